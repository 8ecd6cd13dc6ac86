//! The sans-IO interface every part of a stack implements: a *device* takes requests,
//! says when it next needs the engine, and hands back completions when woken.
//!
//! Drives, host queues (a scheduler in front of a device), arrays (devices made of
//! devices) and layers are all devices, so they nest: a RAID-0 of queued drives under a
//! host queue under a cache layer is one `Box<dyn Device>`. None of them owns a clock or a
//! loop: the engine ([`crate::engine`]) passes `now` in and is the only event loop.

use crate::disk::drive::Drive;
use crate::disk::hdd::{Breakdown, Hdd, Request};
use crate::time::SimTime;

/// A finished request, as a device reports it to the part above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// The request as the reporting device received it (id, address, size, kind).
    pub req: Request,
    /// When the first host queue below sent (part of) it to a drive.
    pub dispatch: Option<SimTime>,
    /// When a drive started on it (the earliest start over its parts).
    pub start: SimTime,
    pub done: SimTime,
    /// Where the time went, summed over its parts.
    pub breakdown: Breakdown,
    /// No media access was needed for any part.
    pub cache_hit: bool,
    /// A request a part generated itself (freeblock's background reads), not one from
    /// above: the engine logs it apart and nothing above waits for it.
    pub background: bool,
    /// Set when a host queue held the request behind an overlapping earlier one: the
    /// instant it was released, from which its response time counts (thesis §3.5).
    pub released: Option<SimTime>,
    /// Which unit of a volume set served it (set by [`crate::stack::array::Volumes`]).
    pub unit: u32,
    /// It went below merged behind another request (a host queue's request merging):
    /// its device time is that request's, counted once there.
    pub rider: bool,
}

/// A request's parts' completions gathered into the request's own, as [`Done`] defines
/// it: the earliest start and dispatch over the parts, their breakdowns summed (a part
/// that rode below behind another request carries that request's, as a rider does at
/// the top), a cache hit only if every part hit. Arrays, splits and replica retrievers that send a request
/// below in pieces report it this way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    start: Option<SimTime>,
    dispatch: Option<SimTime>,
    breakdown: Breakdown,
    cache_hit: bool,
}

impl Default for Parts {
    fn default() -> Parts {
        Parts {
            start: None,
            dispatch: None,
            breakdown: Breakdown::default(),
            cache_hit: true,
        }
    }
}

impl Parts {
    /// Counts one part's completion.
    pub fn absorb(&mut self, d: &Done) {
        self.start = Some(self.start.map_or(d.start, |s| s.min(d.start)));
        self.dispatch = match (self.dispatch, d.dispatch) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let (b, p) = (&mut self.breakdown, &d.breakdown);
        b.overhead_ns += p.overhead_ns;
        b.seek_ns += p.seek_ns;
        b.rotation_ns += p.rotation_ns;
        b.transfer_ns += p.transfer_ns;
        self.cache_hit &= d.cache_hit;
    }

    /// Marks the request started and dispatched at `now` with no part to report it.
    pub fn start_at(&mut self, now: SimTime) {
        self.start = Some(now);
        self.dispatch = Some(now);
    }

    /// The parts' breakdown so far.
    pub fn breakdown(&self) -> Breakdown {
        self.breakdown
    }

    /// `req`'s completion at `now`, its last part done (started at `now` if no part
    /// reported a start).
    pub fn done(&self, req: Request, now: SimTime) -> Done {
        Done {
            breakdown: self.breakdown,
            cache_hit: self.cache_hit,
            dispatch: self.dispatch,
            ..Done::served(req, self.start.unwrap_or(now), now)
        }
    }
}

impl Done {
    /// `req` served by the reporting part itself from `start` to `done` (sent on at
    /// `start`, no media breakdown of its own): a layer's or a layout engine's
    /// completion.
    pub fn served(req: Request, start: SimTime, done: SimTime) -> Done {
        Done {
            req,
            dispatch: Some(start),
            start,
            done,
            breakdown: Breakdown::default(),
            cache_hit: false,
            background: false,
            released: None,
            unit: 0,
            rider: false,
        }
    }

    /// A drive's completion of request `c.id`: the drive knows only the id, the parts
    /// above keep the rest of the request.
    pub fn of_drive(c: &crate::disk::hdd::Completion, unit: u32) -> Done {
        Done {
            req: Request {
                id: c.id,
                lbn: 0,
                blocks: 0,
                write: false,
            },
            dispatch: None,
            start: c.start,
            done: c.done,
            breakdown: c.breakdown,
            cache_hit: c.cache_hit,
            background: false,
            released: None,
            unit,
            rider: false,
        }
    }
}

/// What one node did during a run, for per-layer and per-drive statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeReport {
    /// Position in the tree, e.g. `raid0/member 2/queue`.
    pub path: String,
    /// What it is, e.g. `disk wd-re3` or `queue sstf`.
    pub kind: String,
    pub reads: u64,
    pub writes: u64,
    /// Media or service time spent (drives), ns.
    pub busy_ns: u64,
    /// Further figures, name and value.
    pub extra: Vec<(String, String)>,
    /// Whether this node is a drive (its busy time counts in the run's utilization).
    pub is_drive: bool,
}

/// A storage device as the engine and the parts above it see it.
pub trait Device {
    /// Addressable 512-byte sectors.
    fn capacity(&self) -> u64;
    /// Requests accepted and not yet completed (including any held or queued inside).
    fn outstanding(&self) -> usize;
    /// Whether it accepts another request now. Host queues and arrays always do; a
    /// drive does while its firmware queue has room.
    fn can_accept(&self) -> bool;
    /// Takes a request at `now`. Its `id` is the caller's and comes back in [`Done`].
    fn submit(&mut self, now: SimTime, req: Request);
    /// Takes a request at `now` like `submit` but does not start on it yet, so that
    /// requests handed over at one instant are all before the device's own scheduler
    /// (a drive's SPTF firmware) when it first chooses; [`Device::start`] follows at
    /// the same instant. Default: `submit` (nothing to hold back).
    fn enqueue(&mut self, now: SimTime, req: Request) {
        self.submit(now, req);
    }
    /// Starts on what [`Device::enqueue`] handed over at `now`, if idle. Default:
    /// nothing to do.
    fn start(&mut self, _now: SimTime) {}
    /// When it next needs waking (a completion or work of its own); `None`: idle.
    fn next_wake(&self) -> Option<SimTime>;
    /// Handles the next piece of work due at `now` (which the engine takes from
    /// `next_wake`), appending what completed to `out`. One piece per call: the
    /// engine calls again while `next_wake` says `now`, so simultaneous events of
    /// different parts interleave with arrivals deterministically.
    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>);
    /// A positioning oracle (the drive's own model), for schedulers that need one
    /// (greedy SPTF). Only a single drive has one.
    fn oracle(&self) -> Option<&Hdd> {
        None
    }
    /// The drive at the bottom of a chain of single-child parts (a drive, or host
    /// queues over one), for the upkeep an array that stores bytes does on its
    /// members: cache flushes, power cuts and the bookkeeping of destaged writes.
    fn drive(&self) -> Option<&Drive> {
        None
    }
    /// The same drive, to act on.
    fn drive_mut(&mut self) -> Option<&mut Drive> {
        None
    }
    /// Draws this node and its children, indented by `depth`.
    fn describe(&self, depth: usize, out: &mut String);
    /// Appends this node's statistics and its children's, under `path`, as of the
    /// run's end `end`: a drive counts the time it worked up to `end` (or to its own
    /// last completion, if later), so a destage still running after that completion
    /// counts up to the end of the run.
    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>);
    /// [`Device::report_until`] with each drive's busy time up to its own last
    /// completion.
    fn report(&self, path: &str, out: &mut Vec<NodeReport>) {
        self.report_until(path, SimTime::ZERO, out);
    }
    /// SMTF queues: the Disk Mimic's (predicted, observed) service times, ns.
    fn predictions(&self, _out: &mut Vec<(u32, u64)>) {}
    /// The caller will answer the completion of request `id` (sent here) at the same
    /// instant with a request of its own to this device: an array's write that waits
    /// for this read. A queue that honours it chooses its next request only once that
    /// request is in, as DiskSim's driver does for a logorg's dependent requests
    /// (`iodriver_access_complete` skips its own choice when a released request goes
    /// to the same device). Default: ignored.
    fn follow_up(&mut self, _id: u64) {}
    /// Why this node (or one below it) stopped serving, if it did: a breach of the
    /// simulation's own invariants inside it (a bug, never bad input). The engine
    /// ends the run with it as the error. Parts with one child pass their child's on.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// How trace device numbers map onto the top device: device `d` goes to unit
/// `d mod n`, laid after the devices before it on that unit (`d / n` strides in).
#[derive(Clone, Debug)]
pub struct Units {
    /// Each unit's first address on the top device, and its capacity.
    pub units: Vec<(u64, u64)>,
}

impl Units {
    /// A top device that is one unit.
    pub fn single(capacity: u64) -> Units {
        Units {
            units: vec![(0, capacity)],
        }
    }
}

/// One line of `--print-stack` output.
pub fn tree_line(depth: usize, out: &mut String, text: &str) {
    for _ in 0..depth {
        out.push_str("  ");
    }
    if depth > 0 {
        out.push_str("└─ ");
    }
    out.push_str(text);
    out.push('\n');
}
