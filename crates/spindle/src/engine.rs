//! The engine: spindle's one event loop. It pulls arrivals from a workload (one pending
//! arrival per open source; one per process of a closed loop), hands each to the top
//! device of a stack, wakes the stack whenever it asks to be woken, and passes every
//! finished request to the caller as it completes.
//!
//! Time is integer nanoseconds. Arrivals and device events at the same instant go
//! arrivals first, then device events in the order the devices report them; arrivals
//! at one instant in the order they were scheduled (a sequence number breaks ties). So
//! runs are reproducible bit for bit.
//!
//! The engine checks its invariants as it goes and stops with an [`EngineError`] when
//! one breaks: time never runs backwards, every request completes exactly once, and
//! the stack is empty when the workload ends.

use crate::disk::hdd::{Breakdown, Request};
use crate::in_flight::InFlightTable;
pub use crate::node::Units;
use crate::node::{Device, Done};
use crate::record::IoRecord;
use crate::time::SimTime;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One request's life: arrival at the host, dispatch to the drive, start of service
/// inside the drive, completion.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RequestLog {
    pub id: u64,
    pub device: u32,
    pub lbn: u64,
    pub blocks: u32,
    pub write: bool,
    pub arrival: SimTime,
    pub dispatch: SimTime,
    pub start: SimTime,
    pub done: SimTime,
    pub breakdown: Breakdown,
    pub cache_hit: bool,
    /// The closed-loop process that issued it, if any.
    pub process: Option<u32>,
    /// A background request of a freeblock scheduler.
    pub background: bool,
}

impl RequestLog {
    pub fn response_ns(&self) -> u64 {
        self.done.0 - self.arrival.0
    }
    /// Time the drive spent on it ("time at the disk").
    pub fn service_ns(&self) -> u64 {
        self.done.0 - self.start.0
    }
    pub fn queue_ns(&self) -> u64 {
        self.start.0 - self.arrival.0
    }
}

#[derive(Debug)]
struct Entry<E> {
    at: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// A deterministic event queue: events fire in time order, ties in scheduling order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    now: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }
}

/// An event scheduled before the current time: a bug in whatever scheduled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an event was scheduled at {at} ns, before the current time {now} ns")]
pub struct InThePast {
    pub at: u64,
    pub now: u64,
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The time of the most recently popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `at`; an instant before now is refused.
    pub fn schedule(&mut self, at: SimTime, event: E) -> Result<(), InThePast> {
        if at < self.now {
            return Err(InThePast {
                at: at.0,
                now: self.now.0,
            });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry { at, seq, event }));
        Ok(())
    }

    /// Removes and returns the next event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let Reverse(entry) = self.heap.pop()?;
        self.now = entry.at;
        Some((entry.at, entry.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(e)| e.at)
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
}

/// A closed-loop workload: processes that issue a request, wait for it, think, and
/// issue the next.
pub trait ClosedSource {
    /// Each process's first request (arrival times set).
    fn start(&mut self) -> Vec<(u32, IoRecord)>;
    /// Process `process`'s request completed at `now`: its next request, if any.
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord>;
    /// Process `process`'s request `index` (the engine's request number) entered the
    /// stack at `now`: a request the process issues next without waiting for it, if
    /// any (a process that does not always wait, as DiskSim's synthetic generators).
    fn issued(&mut self, _process: u32, _index: u64, _now: SimTime) -> Option<IoRecord> {
        None
    }
    /// Process `process`'s request `index` completed at `now`: its next request, if
    /// any. By default [`ClosedSource::on_complete`].
    fn completed(&mut self, process: u32, _index: u64, now: SimTime) -> Option<IoRecord> {
        self.on_complete(process, now)
    }
    /// Another process's request made ready by the last call (in DiskSim's process
    /// flow a process that stops lets a waiting one run on its processor). The engine
    /// drains these after every call into the source.
    fn take_other(&mut self) -> Option<(u32, IoRecord)> {
        None
    }
    /// A time at which the source wants [`ClosedSource::tick`] called with no request
    /// of its own (a process reaching a time limit). Drained after every call.
    fn take_tick(&mut self) -> Option<SimTime> {
        None
    }
    /// The time asked for by [`ClosedSource::take_tick`] has come.
    fn tick(&mut self, _now: SimTime) {}
}

/// Where requests come from.
pub enum Source<'a> {
    /// Requests with fixed arrival times, in arrival order (a trace or an open
    /// synthetic workload), read one at a time. `stride`: where a trace device's
    /// addresses start on a unit shared with other devices (see [`Units`]).
    Open {
        requests: Box<dyn Iterator<Item = IoRecord> + 'a>,
        stride: u64,
    },
    Closed(&'a mut dyn ClosedSource),
}

impl<'a> Source<'a> {
    /// An open source over records held in memory.
    pub fn records(recs: &'a [IoRecord]) -> Source<'a> {
        Source::Open {
            requests: Box::new(recs.iter().cloned()),
            stride: device_stride(recs),
        }
    }
}

/// The end of the highest address any record touches: a trace device's extent.
pub fn device_stride(recs: &[IoRecord]) -> u64 {
    recs.iter()
        .map(|r| r.lbn + u64::from(r.blocks))
        .max()
        .unwrap_or(0)
}

/// For a device laid past its unit's start: where it went and what to do instead.
fn mapping_note(device: u32, units: usize, offset: u64) -> String {
    if offset == 0 {
        return String::new();
    }
    format!(
        " (the trace's devices go to the stack's {units} unit{} in turn, and those beyond \
         it are laid end to end: device {device} starts at sector {offset} of unit {}; keep \
         one device with --device N, or give the stack more units, e.g. --disks)",
        if units == 1 { "" } else { "s" },
        device as usize % units
    )
}

/// Latest arrival a workload may give, ns (2^60, about 36 years): simulated time keeps
/// 16 times that in hand, so no run of such a workload reaches the end of `u64`.
pub const MAX_ARRIVAL_NS: u64 = 1 << 60;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("request {index} (device {device}, LBN {lbn}, {blocks} sectors) lies beyond the {capacity}-sector disk it maps to{}", mapping_note(*device, *units, *offset))]
    BeyondCapacity {
        index: u64,
        device: u32,
        lbn: u64,
        blocks: u32,
        capacity: u64,
        /// How many units (disks or arrays) the trace's devices are spread over.
        units: usize,
        /// Where on its unit the device starts (devices beyond the units are laid end
        /// to end, one trace extent apart).
        offset: u64,
    },
    #[error("request {index} (device {device}, LBN {lbn}) arrives {:.0} s after the workload's start; at most {:.0} s (2^60 ns, about 36 years), so that simulated time cannot run out", *arrival as f64 / 1e9, MAX_ARRIVAL_NS as f64 / 1e9)]
    TooLate {
        index: u64,
        device: u32,
        lbn: u64,
        blocks: u32,
        arrival: u64,
    },
    #[error(
        "request {index} (device {device}, LBN {lbn}) is {blocks} sectors long; at most {} (2 GiB)",
        crate::disk::hdd::MAX_REQUEST_SECTORS
    )]
    TooLarge {
        index: u64,
        device: u32,
        lbn: u64,
        blocks: u32,
    },
    #[error("request {index} arrives at {arrival} ns, before the request before it ({previous} ns): an open workload must be in arrival order")]
    OutOfOrder {
        index: u64,
        arrival: u64,
        previous: u64,
    },
    #[error("time went backwards: {0}")]
    Time(#[from] InThePast),
    #[error("the stack completed request {0}, which was not outstanding (completed twice, or never issued)")]
    UnknownCompletion(u64),
    #[error(
        "the workload ended with {0} requests still in the stack that the stack never completed"
    )]
    Stalled(usize),
    #[error("the stack asked to be woken at {wake} ns, before the current time {now} ns")]
    WakeInThePast { wake: u64, now: u64 },
    #[error("the stack stopped: {0}")]
    Failed(String),
    /// The run was asked to stop from outside ([`crate::interrupt`]).
    #[error("{}", crate::interrupt::MESSAGE)]
    Interrupted,
    /// The caller asked the run to stop ([`RunOptions::stop`]).
    #[error("the run was stopped by its caller")]
    Stopped,
}

/// Engine options.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions<'a> {
    /// Remove idle time from the workload: whenever nothing is outstanding anywhere in
    /// the stack and the next arrival lies in the future, the clock jumps to it, and
    /// that arrival and every later one move earlier by the gap. Busy periods are thus
    /// laid end to end with their internal spacing and order unchanged (thesis
    /// §3.6.4, "idle time is removed from the trace").
    pub remove_idle: bool,
    /// Set by the caller (from `on_done`, say) to end the run at its next event with
    /// [`EngineError::Stopped`]: a run whose output cannot be written ends then, not
    /// after the whole workload.
    pub stop: Option<&'a Cell<bool>>,
}

/// What the loop counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunTotals {
    pub requests: u64,
    pub background: u64,
    /// The simulated time of the last event.
    pub end: SimTime,
}

#[derive(Clone, Debug)]
struct Pending {
    rec: IoRecord,
    index: u64,
    process: Option<u32>,
    /// A closed source's tick, not a request.
    tick: bool,
}

/// The unit of `units` that holds top-device address `lbn` (units lie in address order).
fn unit_at(units: &Units, lbn: u64) -> usize {
    units
        .units
        .partition_point(|&(base, _)| base <= lbn)
        .saturating_sub(1)
}

/// What one [`Stepper::step`] did.
#[derive(Debug)]
pub enum Step<E> {
    /// The next event was an arrival, due at `now` (the stack's time, idle time
    /// removed): the caller hands it to the stack.
    Arrival { now: SimTime, event: E },
    /// The stack was woken at `now`; what it completed is in the step's `out`.
    Woken { now: SimTime },
    /// No arrival is scheduled and the stack is idle.
    Idle,
    /// The next event lies beyond the step's `until`: nothing was done.
    Beyond(SimTime),
}

/// The one piece of code that decides what happens next in a simulation: the next
/// arrival (of a caller-defined kind `E`) or the next wake of the stack. Arrivals and
/// wakes at the same instant go arrivals first; arrivals at one instant in the order
/// they were scheduled. [`run`] drives a workload with it; other drivers (an array's
/// executor) schedule their own arrivals.
#[derive(Debug)]
pub struct Stepper<E> {
    events: EventQueue<E>,
    /// The stack's time of the last event.
    clock: SimTime,
    /// With idle removal: the idle time removed so far. Arrivals stay keyed by their
    /// workload time; the stack sees that minus `shift`.
    shift: u64,
    remove_idle: bool,
}

impl<E> Stepper<E> {
    /// A stepper starting at `start`; `remove_idle`: see [`RunOptions::remove_idle`].
    pub fn new(start: SimTime, remove_idle: bool) -> Stepper<E> {
        Stepper {
            events: EventQueue::new(),
            clock: start,
            shift: 0,
            remove_idle,
        }
    }

    /// The stack's time of the last event.
    pub fn now(&self) -> SimTime {
        self.clock
    }

    /// The idle time removed so far, ns.
    pub fn shift(&self) -> u64 {
        self.shift
    }

    /// Schedules an arrival at workload time `at`.
    pub fn schedule(&mut self, at: SimTime, event: E) -> Result<(), InThePast> {
        self.events.schedule(at, event)
    }

    /// Arrivals scheduled and not yet handed out.
    pub fn pending(&self) -> usize {
        self.events.len()
    }

    /// Takes the next event, unless it lies beyond `until`: pops an arrival (for the
    /// caller to hand to `root`), or wakes `root` once, leaving what completed in `out`
    /// (cleared first). `quiescent`: nothing the caller sent is outstanding, so idle
    /// time before the next arrival may be removed.
    pub fn step(
        &mut self,
        root: &mut dyn Device,
        quiescent: bool,
        until: Option<SimTime>,
        out: &mut Vec<Done>,
    ) -> Result<Step<E>, EngineError> {
        let mut shift = self.shift;
        let mut next_arrival = self
            .events
            .peek_time()
            .map(|t| SimTime(t.0.saturating_sub(shift)));
        let next_wake = root.next_wake();
        if self.remove_idle && quiescent && next_wake.is_none() {
            if let Some(a) = next_arrival.filter(|&a| a > self.clock) {
                shift += a.0 - self.clock.0;
                next_arrival = Some(self.clock);
            }
        }
        let arrival_first = match (next_arrival, next_wake) {
            (None, None) => return Ok(Step::Idle),
            (Some(a), Some(d)) => a <= d,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        let next = if arrival_first {
            next_arrival
        } else {
            next_wake
        };
        if let (Some(u), Some(t)) = (until, next) {
            if t > u {
                return Ok(Step::Beyond(t));
            }
        }
        self.shift = shift;
        if arrival_first {
            let Some((at, event)) = self.events.pop() else {
                return Ok(Step::Idle);
            };
            let now = SimTime(at.0.saturating_sub(self.shift));
            if now < self.clock {
                return Err(InThePast {
                    at: now.0,
                    now: self.clock.0,
                }
                .into());
            }
            self.clock = now;
            Ok(Step::Arrival { now, event })
        } else {
            let Some(now) = next_wake else {
                return Ok(Step::Idle);
            };
            if now < self.clock {
                return Err(EngineError::WakeInThePast {
                    wake: now.0,
                    now: self.clock.0,
                });
            }
            self.clock = now;
            out.clear();
            root.wake(now, out);
            Ok(Step::Woken { now })
        }
    }
}

/// Schedules a closed-loop process's next request, if it has one, at its arrival in
/// workload time (the stack's time plus the idle time removed so far).
fn schedule_next(
    stepper: &mut Stepper<Pending>,
    next_index: &mut u64,
    process: u32,
    next: Option<IoRecord>,
) -> Result<(), EngineError> {
    if let Some(rec) = next {
        let index = *next_index;
        *next_index += 1;
        stepper.schedule(
            SimTime(rec.arrival.0.saturating_add(stepper.shift())),
            Pending {
                rec,
                index,
                process: Some(process),
                tick: false,
            },
        )?;
    }
    Ok(())
}

/// Schedules what a closed source made ready besides its caller's next request.
fn drain_source(
    stepper: &mut Stepper<Pending>,
    next_index: &mut u64,
    src: &mut dyn ClosedSource,
) -> Result<(), EngineError> {
    while let Some((p, rec)) = src.take_other() {
        schedule_next(stepper, next_index, p, Some(rec))?;
    }
    while let Some(t) = src.take_tick() {
        stepper.schedule(
            SimTime(t.0.saturating_add(stepper.shift())),
            Pending {
                rec: IoRecord {
                    arrival: t,
                    device: 0,
                    lbn: 0,
                    blocks: 0,
                    write: false,
                    content: Vec::new(),
                },
                index: u64::MAX,
                process: None,
                tick: true,
            },
        )?;
    }
    Ok(())
}

/// Pulls an open source's next request into the stepper.
fn pull_open(
    stepper: &mut Stepper<Pending>,
    source: &mut Source,
    next_index: &mut u64,
    last_open: &mut SimTime,
) -> Result<(), EngineError> {
    if let Source::Open { requests, .. } = source {
        if let Some(rec) = requests.next() {
            let index = *next_index;
            *next_index += 1;
            if rec.arrival < *last_open {
                return Err(EngineError::OutOfOrder {
                    index,
                    arrival: rec.arrival.0,
                    previous: last_open.0,
                });
            }
            *last_open = rec.arrival;
            stepper.schedule(
                rec.arrival,
                Pending {
                    rec,
                    index,
                    process: None,
                    tick: false,
                },
            )?;
        }
    }
    Ok(())
}

/// Runs `source` through the stack whose top is `root`; `on_done` sees each finished
/// request (and each background request a part generated) as it completes.
pub fn run(
    root: &mut dyn Device,
    units: &Units,
    mut source: Source,
    opts: RunOptions<'_>,
    on_done: &mut dyn FnMut(&RequestLog),
) -> Result<RunTotals, EngineError> {
    let n_units = units.units.len().max(1);
    let stride = match &source {
        Source::Open { stride, .. } => *stride,
        Source::Closed(_) => 0,
    };
    let watch = crate::interrupt::Watch::start();
    let mut stepper: Stepper<Pending> = Stepper::new(SimTime::ZERO, opts.remove_idle);
    let mut next_index = 0u64;
    let mut last_open = SimTime::ZERO;
    match &mut source {
        Source::Open { .. } => {
            pull_open(&mut stepper, &mut source, &mut next_index, &mut last_open)?;
        }
        Source::Closed(c) => {
            for (p, rec) in c.start() {
                let index = next_index;
                next_index += 1;
                stepper.schedule(
                    rec.arrival,
                    Pending {
                        rec,
                        index,
                        process: Some(p),
                        tick: false,
                    },
                )?;
            }
            drain_source(&mut stepper, &mut next_index, *c)?;
        }
    }

    // What the engine keeps of a request until it completes: its arrival, and the few
    // facts its completion does not carry (which reports the request as the top device
    // received it).
    let mut in_flight = InFlightTable::default();
    let mut process_of: FxHashMap<u64, u32> = FxHashMap::default();
    let mut zero_sized: FxHashSet<u64> = FxHashSet::default();
    let mut done: Vec<Done> = Vec::new();
    let mut totals = RunTotals::default();
    loop {
        if watch.stopped() {
            return Err(EngineError::Interrupted);
        }
        if opts.stop.is_some_and(Cell::get) {
            return Err(EngineError::Stopped);
        }
        match stepper.step(root, in_flight.is_empty(), None, &mut done)? {
            Step::Idle | Step::Beyond(_) => break,
            Step::Arrival { now, event: p } => {
                if p.tick {
                    if let Source::Closed(src) = &mut source {
                        src.tick(now);
                        drain_source(&mut stepper, &mut next_index, *src)?;
                    }
                    continue;
                }
                if p.process.is_none() {
                    pull_open(&mut stepper, &mut source, &mut next_index, &mut last_open)?;
                }
                let d = p.rec.device as usize;
                let unit = d % n_units;
                let offset = ((d / n_units) as u64).saturating_mul(stride);
                let (base, cap) = units.units[unit];
                let lbn = p.rec.lbn.saturating_add(offset);
                let blocks = p.rec.blocks.max(1);
                if p.rec.arrival.0 > MAX_ARRIVAL_NS {
                    return Err(EngineError::TooLate {
                        index: p.index,
                        device: p.rec.device,
                        lbn: p.rec.lbn,
                        blocks: p.rec.blocks,
                        arrival: p.rec.arrival.0,
                    });
                }
                if blocks > crate::disk::hdd::MAX_REQUEST_SECTORS {
                    return Err(EngineError::TooLarge {
                        index: p.index,
                        device: p.rec.device,
                        lbn: p.rec.lbn,
                        blocks,
                    });
                }
                if lbn
                    .checked_add(u64::from(blocks))
                    .is_none_or(|end| end > cap)
                {
                    return Err(EngineError::BeyondCapacity {
                        index: p.index,
                        device: p.rec.device,
                        lbn: p.rec.lbn,
                        blocks: p.rec.blocks,
                        capacity: cap,
                        units: n_units,
                        offset,
                    });
                }
                in_flight.insert(p.index, now);
                if let Some(proc_) = p.process {
                    process_of.insert(p.index, proc_);
                }
                if p.rec.blocks == 0 {
                    zero_sized.insert(p.index);
                }
                root.submit(
                    now,
                    Request {
                        id: p.index,
                        lbn: base + lbn,
                        blocks,
                        write: p.rec.write,
                    },
                );
                if let (Some(proc_), Source::Closed(src)) = (p.process, &mut source) {
                    let next = src.issued(proc_, p.index, now);
                    schedule_next(&mut stepper, &mut next_index, proc_, next)?;
                    drain_source(&mut stepper, &mut next_index, *src)?;
                }
            }
            Step::Woken { now } => {
                for d in done.drain(..) {
                    if d.background {
                        totals.background += 1;
                        let at = d.dispatch.unwrap_or(d.start);
                        on_done(&RequestLog {
                            id: d.req.id,
                            device: d.unit,
                            lbn: d.req.lbn - units.units[d.unit as usize % n_units].0,
                            blocks: d.req.blocks,
                            write: d.req.write,
                            arrival: at,
                            dispatch: at,
                            start: d.start,
                            done: d.done,
                            breakdown: d.breakdown,
                            cache_hit: d.cache_hit,
                            process: None,
                            background: true,
                        });
                        continue;
                    }
                    // The request's index is its key in the map and its id below.
                    let index = d.req.id;
                    let arrival_at = in_flight
                        .remove(index)
                        .ok_or(EngineError::UnknownCompletion(index))?;
                    let process = if process_of.is_empty() {
                        None
                    } else {
                        process_of.remove(&index)
                    };
                    let blocks = if !zero_sized.is_empty() && zero_sized.remove(&index) {
                        0
                    } else {
                        d.req.blocks
                    };
                    let unit = unit_at(units, d.req.lbn);
                    let arrival = d.released.unwrap_or(arrival_at);
                    totals.requests += 1;
                    on_done(&RequestLog {
                        id: index,
                        device: unit as u32,
                        lbn: d.req.lbn - units.units[unit].0,
                        blocks,
                        write: d.req.write,
                        arrival,
                        dispatch: d.dispatch.unwrap_or(arrival),
                        start: d.start,
                        done: now,
                        breakdown: d.breakdown,
                        cache_hit: d.cache_hit,
                        process,
                        background: false,
                    });
                    if let (Some(proc_), Source::Closed(src)) = (process, &mut source) {
                        let next = src.completed(proc_, index, now);
                        schedule_next(&mut stepper, &mut next_index, proc_, next)?;
                        drain_source(&mut stepper, &mut next_index, *src)?;
                    }
                }
            }
        }
    }
    // A part that broke an invariant stops serving: the run ends with its reason
    // (checked once, here: a stopped part leaves requests in flight, or none).
    if let Some(why) = root.failure() {
        return Err(EngineError::Failed(why));
    }
    if !in_flight.is_empty() {
        return Err(EngineError::Stalled(in_flight.len()));
    }
    totals.end = stepper.now();
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        for (t, e) in [(30, "c"), (10, "a"), (30, "d"), (10, "b")] {
            q.schedule(SimTime(t), e).unwrap();
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
    }

    /// A device that completes one request at each of the given instants.
    struct Timer(Vec<SimTime>);

    impl Device for Timer {
        fn capacity(&self) -> u64 {
            0
        }
        fn outstanding(&self) -> usize {
            self.0.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, _now: SimTime, _req: Request) {}
        fn next_wake(&self) -> Option<SimTime> {
            self.0.first().copied()
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
            let t = self.0.remove(0);
            let req = Request {
                id: t.0,
                lbn: 0,
                blocks: 1,
                write: false,
            };
            out.push(Done {
                dispatch: None,
                ..Done::served(req, now, now)
            });
        }
        fn describe(&self, _depth: usize, _out: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<crate::node::NodeReport>) {}
    }

    #[test]
    fn stepper_takes_arrivals_first_at_a_tie_and_stops_at_until() {
        let mut dev = Timer(vec![SimTime(10), SimTime(20)]);
        let mut s: Stepper<&str> = Stepper::new(SimTime::ZERO, false);
        s.schedule(SimTime(10), "a").unwrap();
        let mut out = Vec::new();
        let mut seen = Vec::new();
        loop {
            match s
                .step(&mut dev, false, Some(SimTime(15)), &mut out)
                .unwrap()
            {
                Step::Arrival { now, event } => seen.push(format!("{event}@{}", now.0)),
                Step::Woken { now } => seen.push(format!("wake@{} ({})", now.0, out.len())),
                Step::Beyond(t) => {
                    seen.push(format!("beyond {}", t.0));
                    break;
                }
                Step::Idle => break,
            }
        }
        assert_eq!(seen, ["a@10", "wake@10 (1)", "beyond 20"]);
        assert_eq!(s.now(), SimTime(10));
        assert!(
            matches!(s.step(&mut dev, false, None, &mut out), Ok(Step::Woken { now }) if now == SimTime(20))
        );
        assert!(matches!(
            s.step(&mut dev, false, None, &mut out),
            Ok(Step::Idle)
        ));
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(50), 1).unwrap();
        q.pop();
        assert_eq!(
            q.schedule(SimTime(10), 2),
            Err(InThePast { at: 10, now: 50 })
        );
        assert!(q.schedule(SimTime(50), 3).is_ok());
    }
}
