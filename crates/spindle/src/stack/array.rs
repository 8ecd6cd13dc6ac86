//! Devices made of devices: a volume set (independent units, addressed one after
//! another, as a trace's device numbers address separate disks) and RAID-0, RAID-1,
//! RAID-4 and RAID-5 in one shape. Each member is itself a device — normally a host
//! queue over a drive — so every member has its own scheduler, and arrays nest.
//!
//! These arrays model timing: where each part of a request goes and what it waits for.
//! RAID-4 and RAID-5 writes that cover only part of a stripe row read the old data and
//! parity first, then write both (read-modify-write); a write covering whole rows
//! writes data and parity without reading. Decision: a request's parity reads for all
//! its rows finish before any of its writes start (one phase barrier per request, not
//! per row); requests do not wait for one another.

pub use crate::array::layout::ParityLayout;
use crate::disk::hdd::Request;
use crate::node::{tree_line, Device, Done, NodeReport, Parts, Units};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Wakes the member with the earliest event due at `now` (ties to the lowest index),
/// its completions into `got` (cleared first); which member, if any was due.
fn wake_earliest(
    members: &mut [Box<dyn Device>],
    wakes: &mut [Option<SimTime>],
    now: SimTime,
    got: &mut Vec<Done>,
) -> Option<usize> {
    got.clear();
    let (t, i) = wakes
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.map(|t| (t, i)))
        .min()?;
    if t > now {
        return None;
    }
    members[i].wake(now, got);
    wakes[i] = members[i].next_wake();
    Some(i)
}

/// Independent units addressed one after another: unit `i` holds the addresses from
/// the sum of the capacities before it. The engine routes a trace's device numbers to
/// units, so each trace disk lands on its own drive.
pub struct Volumes {
    members: Vec<Box<dyn Device>>,
    /// First address of each unit.
    base: Vec<u64>,
    /// Each unit's next wake, as it said after the last call into it: a unit changes
    /// only when called, so the set answers `next_wake` without asking every unit.
    wakes: Vec<Option<SimTime>>,
    outstanding: usize,
}

impl Volumes {
    pub fn new(members: Vec<Box<dyn Device>>) -> Volumes {
        let mut base = Vec::with_capacity(members.len());
        let mut at = 0u64;
        for m in &members {
            base.push(at);
            at = at.saturating_add(m.capacity());
        }
        let wakes = members.iter().map(|m| m.next_wake()).collect();
        Volumes {
            members,
            base,
            wakes,
            outstanding: 0,
        }
    }

    /// Where each unit starts and how large it is: how trace devices map onto the set.
    pub fn units(&self) -> Units {
        Units {
            units: self
                .base
                .iter()
                .zip(&self.members)
                .map(|(&b, m)| (b, m.capacity()))
                .collect(),
        }
    }
}

impl Device for Volumes {
    fn capacity(&self) -> u64 {
        self.base.last().copied().unwrap_or(0) + self.members.last().map_or(0, |m| m.capacity())
    }

    fn outstanding(&self) -> usize {
        self.outstanding
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        // The unit whose range holds the first sector (the engine checked the end).
        let i = self
            .base
            .partition_point(|&b| b <= req.lbn)
            .saturating_sub(1);
        self.outstanding += 1;
        self.members[i].submit(
            now,
            Request {
                lbn: req.lbn - self.base[i],
                ..req
            },
        );
        self.wakes[i] = self.members[i].next_wake();
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.wakes.iter().flatten().min().copied()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        // The unit with the earliest event due at `now` (ties to the lowest index).
        let Some((t, i)) = self
            .wakes
            .iter()
            .enumerate()
            .filter_map(|(i, w)| w.map(|t| (t, i)))
            .min()
        else {
            return;
        };
        if t > now {
            return;
        }
        // The unit appends its completions to `out`; they are relabelled in place.
        let first = out.len();
        self.members[i].wake(now, out);
        self.wakes[i] = self.members[i].next_wake();
        let base = self.base[i];
        for d in &mut out[first..] {
            if !d.background {
                self.outstanding -= 1;
            }
            d.unit = i as u32;
            d.req.lbn += base;
        }
    }

    fn describe(&self, depth: usize, out: &mut String) {
        tree_line(
            depth,
            out,
            &format!(
                "volumes ({} units, each its own address range)",
                self.members.len()
            ),
        );
        for m in &self.members {
            m.describe(depth + 1, out);
        }
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        for (i, m) in self.members.iter().enumerate() {
            m.report_until(&format!("{path}/unit {i}"), end, out);
        }
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        for m in &self.members {
            m.predictions(out);
        }
    }
}

/// The RAID levels an [`Array`] implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaidLevel {
    /// Striping, no redundancy.
    Raid0,
    /// Every member holds every block; reads go to one member, writes to all.
    Raid1,
    /// Striping with parity on the last member.
    Raid4,
    /// Striping with parity rotated over the members (see [`ParityLayout`]).
    Raid5,
}

impl RaidLevel {
    pub fn name(self) -> &'static str {
        match self {
            RaidLevel::Raid0 => "raid0",
            RaidLevel::Raid1 => "raid1",
            RaidLevel::Raid4 => "raid4",
            RaidLevel::Raid5 => "raid5",
        }
    }

    /// Fewest members the level works with.
    pub fn min_members(self) -> usize {
        match self {
            RaidLevel::Raid0 => 1,
            RaidLevel::Raid1 | RaidLevel::Raid4 => 2,
            RaidLevel::Raid5 => 3,
        }
    }

    fn has_parity(self) -> bool {
        matches!(self, RaidLevel::Raid4 | RaidLevel::Raid5)
    }
}

/// How a mirror (RAID-1) picks the replica that serves a read (MimdRAID, ALG-MIMD).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicaChoice {
    /// The member with the fewest outstanding requests (ties: the lowest).
    #[default]
    LeastBusy,
    /// Among the least busy, the shortest seek from the member's head to the block.
    Seek,
    /// Among the least busy, the shortest positioning time (seek and rotation) the
    /// member's drive model predicts from its state now.
    Positioning,
}

impl ReplicaChoice {
    pub fn name(self) -> &'static str {
        match self {
            ReplicaChoice::LeastBusy => "least-busy",
            ReplicaChoice::Seek => "seek",
            ReplicaChoice::Positioning => "positioning",
        }
    }
}

/// When a RAID-4/5 update's member writes go, relative to its reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteOrder {
    /// Every write once all of the request's reads are back (one barrier per request).
    #[default]
    AfterAllReads,
    /// A data write once the request's reads on its own member are back; a parity
    /// write once all of the request's reads are back.
    PerMember,
    /// A write once the request's reads on its own member are back and, for the
    /// parity of a row it reads, that row's reads too (DiskSim's unsynchronized writes,
    /// `logorg_parity_table_dodeps_nosync`). The same as `PerMember` for one-row writes.
    PerRow,
}

/// The order in which an array request's member requests reach their members at one
/// instant. It matters on a shared bus: a free bus goes to the first to ask, and a
/// data write and its parity write to the same sectors of two disks on one bus both
/// need it at once (the loser may miss its sector by a revolution).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IssueOrder {
    /// Plan order: by member, then LBN.
    #[default]
    Plan,
    /// DiskSim's I/O driver. A new request's member requests enter the driver's
    /// queues in its logorg's list order: RAID-0 from the first unit's disk on in
    /// stripe order; a RAID-4/5 read by disk and LBN, both descending; a RAID-4/5
    /// write its reads so, then the writes that wait for nothing, disks descending and
    /// LBN ascending. A request entering an idle disk's queue is that disk's next, and
    /// the driver starts those in the reverse of that order (it collects them first and
    /// hands them on last-in first). Writes released by one read's completion arrive one
    /// by one, disks descending, LBN ascending (`logorg_parity_table_dodeps_nosync`,
    /// `logorg_check_dependencies` and `iodriver_access_complete`).
    DiskSim,
}

/// How a RAID-4/5 write that covers part of a stripe row brings the row's parity
/// up to date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParityUpdate {
    /// spindle's own arrays: every row the write does not cover whole is
    /// read-modify-written (old data and parity read first), one parity request per
    /// row over the span of the row's written offsets.
    #[default]
    ReadModifyWrite,
    /// DiskSim's logorg (`logorg_parity_table` in disksim_redun.c), per row: a row
    /// whose every data unit the write touches is written without reading (DiskSim
    /// writes parity over the touched span even where a unit is only partly written);
    /// one touching fewer than `rmw_point` units is read-modify-written; any other is
    /// reconstruct-written (the row's other data over the parity span is read, the
    /// written units' own data is not). The parity span is the written offsets' span,
    /// except that a one-row write of two units whose offset ranges do not overlap is
    /// two one-unit updates. A request's member requests of one kind on one member
    /// less than `seq_give` sectors apart join into one that reads or writes through
    /// the gap (`logorg_join_seqreqs`).
    DiskSim {
        /// DiskSim's `RMW vs. reconstruct` × devices, truncated.
        rmw_point: u32,
        /// `LOGORG_PARITY_SEQGIVE` (32 sectors).
        seq_give: u32,
    },
}

/// A member request: (member, LBN, sectors, write).
type MemberOp = (usize, u64, u32, bool);
/// A member write: (member, LBN, sectors).
type MemberWrite = (usize, u64, u32);

/// An array request's member requests: `first` go at once; each of `then` once the
/// reads of `first` it waits for are back.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    first: Vec<MemberOp>,
    then: Vec<MemberWrite>,
    /// For each of `then`, the indices in `first` of the reads it waits for.
    waits: Vec<Vec<u32>>,
    /// Rows reconstruct-written.
    reconstructs: u64,
}

/// Marks a member request issued after the first phase (no dependents).
const LATER: u32 = u32::MAX;

/// A request of the array in progress.
#[derive(Clone, Debug)]
struct Parent {
    req: Request,
    /// Member requests, issued or still waiting, not yet completed.
    left: u32,
    /// Writes still to issue: the write and how many of its reads are still out.
    then: Vec<(MemberWrite, u32)>,
    /// For each first-phase member request, the writes (indices into `then`) that
    /// wait for it.
    dependents: Vec<Vec<u32>>,
    parts: Parts,
}

#[derive(Clone, Copy, Debug, Default)]
struct ArrayStats {
    reads: u64,
    writes: u64,
    member_reads: u64,
    member_writes: u64,
    read_modify_writes: u64,
    reconstruct_writes: u64,
}

pub struct Array {
    level: RaidLevel,
    members: Vec<Box<dyn Device>>,
    /// Each member's next wake, as it said after the last call into it (as in
    /// [`Volumes`]): the array answers `next_wake` without asking every member.
    wakes: Vec<Option<SimTime>>,
    /// Stripe unit, sectors.
    unit: u64,
    capacity: u64,
    /// Member request id → parent id, and its index in the parent's first phase
    /// ([`LATER`] for a write issued after it).
    children: FxHashMap<u64, (u64, u32)>,
    parents: FxHashMap<u64, Parent>,
    next_child: u64,
    scratch: Vec<Done>,
    stats: ArrayStats,
    /// RAID-1: how a read picks its replica.
    replica: ReplicaChoice,
    /// RAID-5: where data goes around the parity.
    parity_layout: ParityLayout,
    /// RAID-4/5: when an update's writes go.
    write_order: WriteOrder,
    /// RAID-4/5: how a partial-row write updates parity.
    parity_update: ParityUpdate,
    /// The order of member requests issued at one instant.
    issue_order: IssueOrder,
}

impl Array {
    /// An array of `members` with a stripe unit of `unit_sectors`; errors name what
    /// cannot work (too few members, a zero stripe unit).
    pub fn new(
        level: RaidLevel,
        members: Vec<Box<dyn Device>>,
        unit_sectors: u64,
    ) -> Result<Array, String> {
        if members.len() < level.min_members() {
            return Err(format!(
                "{} needs at least {} members, got {}",
                level.name(),
                level.min_members(),
                members.len()
            ));
        }
        if unit_sectors == 0 {
            return Err("the stripe unit must be at least one sector".into());
        }
        let smallest = members.iter().map(|m| m.capacity()).min().unwrap_or(0);
        let data = match level {
            RaidLevel::Raid0 => members.len() as u64,
            RaidLevel::Raid1 => 1,
            RaidLevel::Raid4 | RaidLevel::Raid5 => members.len() as u64 - 1,
        };
        let capacity = match level {
            RaidLevel::Raid1 => smallest,
            _ => smallest / unit_sectors * unit_sectors * data,
        };
        if capacity == 0 {
            return Err(format!(
                "the members are smaller than one stripe unit of {unit_sectors} sectors"
            ));
        }
        Ok(Array {
            level,
            wakes: members.iter().map(|m| m.next_wake()).collect(),
            members,
            unit: unit_sectors,
            capacity,
            children: FxHashMap::default(),
            parents: FxHashMap::default(),
            next_child: 0,
            scratch: Vec::new(),
            stats: ArrayStats::default(),
            replica: ReplicaChoice::default(),
            parity_layout: ParityLayout::default(),
            write_order: WriteOrder::default(),
            parity_update: ParityUpdate::default(),
            issue_order: IssueOrder::default(),
        })
    }

    /// A RAID-5's rows place their data by `layout`.
    pub fn with_parity_layout(mut self, layout: ParityLayout) -> Array {
        self.parity_layout = layout;
        self
    }

    /// A RAID-4/5's read-modify-writes issue their writes by `order`.
    pub fn with_write_order(mut self, order: WriteOrder) -> Array {
        self.write_order = order;
        self
    }

    /// A RAID-4/5's partial-row writes update parity by `update`.
    pub fn with_parity_update(mut self, update: ParityUpdate) -> Array {
        self.parity_update = update;
        self
    }

    /// Member requests issued at one instant go in `order`.
    pub fn with_issue_order(mut self, order: IssueOrder) -> Array {
        self.issue_order = order;
        self
    }

    /// A mirror's reads pick their replica by `choice`.
    pub fn with_replica_choice(mut self, choice: ReplicaChoice) -> Array {
        self.replica = choice;
        self
    }

    /// The replica that serves a read of `lbn` at `now`: the least busy members, and
    /// among them (by the choice) the nearest by seek or by the time until the media
    /// reaches it for a read sent now (command overhead included) as each member's
    /// drive model sees it. Equal positioning times (common on aligned
    /// spindles, where every replica's sector passes at once) go to the shorter seek,
    /// which leaves the other heads spread for later reads; then to the lowest index.
    /// A member with no drive directly below (an array) counts as equally near.
    pub fn replica_for(&self, lbn: u64, now: SimTime) -> usize {
        let near = |m: usize| -> (u64, u64) {
            let Some(hdd) = self.members[m].drive().map(|d| d.hdd()) else {
                return (0, 0);
            };
            let seek = || {
                hdd.locate(lbn).map_or(u64::MAX, |loc| {
                    hdd.seek_ns(hdd.head().cyl.abs_diff(loc.pbn.cyl))
                })
            };
            match self.replica {
                ReplicaChoice::LeastBusy => (0, 0),
                ReplicaChoice::Seek => (seek(), 0),
                ReplicaChoice::Positioning => (hdd.read_delay_if_sent(now, lbn), seek()),
            }
        };
        (0..self.members.len())
            .min_by_key(|&m| (self.members[m].outstanding(), near(m), m))
            .unwrap_or(0)
    }

    fn data_members(&self) -> u64 {
        match self.level {
            RaidLevel::Raid0 => self.members.len() as u64,
            RaidLevel::Raid1 => 1,
            RaidLevel::Raid4 | RaidLevel::Raid5 => self.members.len() as u64 - 1,
        }
    }

    /// The member holding data unit `k` of stripe row `row`, and the row's parity
    /// member (RAID-4/5).
    fn placement(&self, row: u64, k: u64) -> (usize, Option<usize>) {
        let n = self.members.len() as u64;
        match self.level {
            RaidLevel::Raid0 | RaidLevel::Raid1 => (k as usize, None),
            RaidLevel::Raid4 => (k as usize, Some(n as usize - 1)),
            RaidLevel::Raid5 => {
                let (m, p) = self.parity_layout.place(n, row, k);
                (m, Some(p))
            }
        }
    }

    /// The request's pieces per stripe row: (row, member, member LBN, sectors).
    fn pieces(&self, lbn: u64, sectors: u64) -> Vec<(u64, usize, u64, u32)> {
        let mut out = Vec::new();
        let ndata = self.data_members();
        let (mut at, end) = (lbn, lbn + sectors);
        while at < end {
            let u = at / self.unit;
            let off = at % self.unit;
            let len = (self.unit - off).min(end - at);
            let (row, k) = (u / ndata, u % ndata);
            let (m, _) = self.placement(row, k);
            out.push((row, m, row * self.unit + off, len as u32));
            at += len;
        }
        out
    }

    /// Sends a member request for `parent` (its first-phase index `index`, or
    /// [`LATER`]); its id.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        now: SimTime,
        parent: u64,
        index: u32,
        member: usize,
        lbn: u64,
        blocks: u32,
        w: bool,
    ) -> u64 {
        let id = self.next_child;
        self.next_child += 1;
        self.children.insert(id, (parent, index));
        if w {
            self.stats.member_writes += 1;
        } else {
            self.stats.member_reads += 1;
        }
        self.members[member].submit(
            now,
            Request {
                id,
                lbn,
                blocks,
                write: w,
            },
        );
        self.wakes[member] = self.members[member].next_wake();
        id
    }

    /// The order in which `first` (a new request's first-phase member requests) is
    /// issued: plan order, or DiskSim's ([`IssueOrder::DiskSim`]).
    fn issue_sequence(&self, req: &Request, first: &[MemberOp]) -> Vec<usize> {
        let mut list: Vec<usize> = (0..first.len()).collect();
        if self.issue_order == IssueOrder::Plan {
            return list;
        }
        let n = self.members.len();
        match self.level {
            RaidLevel::Raid1 => return list,
            RaidLevel::Raid0 => {
                // From the first unit's disk on, in stripe order.
                let start = self.pieces(req.lbn, 1).first().map_or(0, |p| p.1);
                list.sort_by_key(|&i| ((first[i].0 + n - start) % n, first[i].1));
            }
            RaidLevel::Raid4 | RaidLevel::Raid5 => {
                // Reads by disk and LBN descending, then writes by disk descending
                // and LBN ascending.
                list.sort_by_key(|&i| {
                    let (m, lbn, _, w) = first[i];
                    (
                        w,
                        std::cmp::Reverse(m),
                        if w { lbn } else { u64::MAX - lbn },
                    )
                });
            }
        }
        // Each member's first in that list is the one an idle member starts; the
        // driver starts them last-in first, then queues the rest in list order.
        let mut seen = vec![false; n];
        let (mut heads, mut rest) = (Vec::new(), Vec::new());
        for i in list {
            let m = first[i].0;
            if seen[m] {
                rest.push(i);
            } else {
                seen[m] = true;
                heads.push(i);
            }
        }
        heads.reverse();
        heads.extend(rest);
        heads
    }

    /// The member requests of `req` and what waits for what.
    fn plan(&self, req: &Request, now: SimTime) -> Plan {
        if let (
            ParityUpdate::DiskSim {
                rmw_point,
                seq_give,
            },
            true,
            true,
        ) = (self.parity_update, req.write, self.level.has_parity())
        {
            return self.plan_disksim(req, rmw_point, seq_give);
        }
        let (first, then, is_parity) = self.plan_rmw(req, now);
        let reads_on = |m: usize| -> Vec<u32> {
            (0..first.len() as u32)
                .filter(|&i| first[i as usize].0 == m && !first[i as usize].3)
                .collect()
        };
        let all: Vec<u32> = if then.is_empty() {
            Vec::new()
        } else {
            (0..first.len() as u32).collect()
        };
        let waits = then
            .iter()
            .zip(&is_parity)
            .map(|(&(m, _, _), &parity)| match self.write_order {
                WriteOrder::AfterAllReads => all.clone(),
                WriteOrder::PerMember | WriteOrder::PerRow if parity => all.clone(),
                WriteOrder::PerMember | WriteOrder::PerRow => reads_on(m),
            })
            .collect();
        Plan {
            first,
            then,
            waits,
            reconstructs: 0,
        }
    }

    /// [`ParityUpdate::DiskSim`]'s member requests for a write.
    fn plan_disksim(&self, req: &Request, rmw_point: u32, seq_give: u32) -> Plan {
        type Piece = (u64, usize, u64, u32);
        let pieces = self.pieces(req.lbn, u64::from(req.blocks.max(1)));
        let ndata = self.data_members();
        let off = |p: &Piece| p.2 % self.unit;
        let mut rows: Vec<&[Piece]> = Vec::new();
        let mut i = 0;
        while i < pieces.len() {
            let row = pieces[i].0;
            let j = i + pieces[i..].iter().take_while(|p| p.0 == row).count();
            rows.push(&pieces[i..j]);
            i = j;
        }
        // DiskSim's one exception to one update per row: a one-row write of two units
        // whose offset ranges do not overlap updates each unit's parity on its own.
        if let [[a, b]] = rows.as_slice() {
            if off(a) > off(b) + u64::from(b.3) {
                rows = vec![&rows[0][..1], &rows[0][1..]];
            }
        }
        // (member, LBN, sectors, row-group mask): the mask ties a parity write to
        // the reads of its own row.
        let mut reads: Vec<(usize, u64, u64, u64)> = Vec::new();
        let mut writes: Vec<(usize, u64, u64, u64)> = Vec::new();
        let (mut group, mut reconstructs) = (0u32, 0u64);
        for u in rows {
            let row = u[0].0;
            let base = row * self.unit;
            let lo = u.iter().map(off).min().unwrap_or(0);
            let hi = u.iter().map(|p| off(p) + u64::from(p.3)).max().unwrap_or(0);
            let parity = self.placement(row, 0).1.unwrap_or(0);
            let whole = u.len() as u64 >= ndata;
            let mask = if whole { 0 } else { 1u64 << group.min(63) };
            group += u32::from(!whole);
            for p in u {
                writes.push((p.1, p.2, u64::from(p.3), 0));
            }
            writes.push((parity, base + lo, hi - lo, mask));
            if whole {
                continue;
            }
            if (u.len() as u64) < u64::from(rmw_point) {
                for p in u {
                    reads.push((p.1, p.2, u64::from(p.3), mask));
                }
                reads.push((parity, base + lo, hi - lo, mask));
            } else {
                // Reconstruct: the row's other data over the parity span.
                reconstructs += 1;
                for k in 0..ndata {
                    let m = self.placement(row, k).0;
                    match u.iter().find(|p| p.1 == m) {
                        Some(p) => {
                            let (a, b) = (off(p), off(p) + u64::from(p.3));
                            if a > lo {
                                reads.push((m, base + lo, a - lo, mask));
                            }
                            if b < hi {
                                reads.push((m, base + b, hi - b, mask));
                            }
                        }
                        None => reads.push((m, base + lo, hi - lo, mask)),
                    }
                }
            }
        }
        let reads = join_near(reads, u64::from(seq_give));
        let writes = join_near(writes, u64::from(seq_give));
        let waits_of = |&(m, _, _, mask): &(usize, u64, u64, u64)| -> Vec<u32> {
            (0..reads.len() as u32)
                .filter(|&i| {
                    let r = &reads[i as usize];
                    match self.write_order {
                        WriteOrder::AfterAllReads => true,
                        WriteOrder::PerMember => r.0 == m || mask != 0,
                        WriteOrder::PerRow => r.0 == m || r.3 & mask != 0,
                    }
                })
                .collect()
        };
        let mut plan = Plan {
            reconstructs,
            ..Plan::default()
        };
        plan.first = reads
            .iter()
            .map(|&(m, lbn, n, _)| (m, lbn, n as u32, false))
            .collect();
        for w in &writes {
            let waits = waits_of(w);
            if waits.is_empty() {
                plan.first.push((w.0, w.1, w.2 as u32, true));
            } else {
                plan.then.push((w.0, w.1, w.2 as u32));
                plan.waits.push(waits);
            }
        }
        plan
    }

    /// [`ParityUpdate::ReadModifyWrite`]'s member requests: (member, LBN, sectors,
    /// write) now, writes for after the reads, and which of those are parity writes.
    #[allow(clippy::type_complexity)]
    fn plan_rmw(
        &self,
        req: &Request,
        now: SimTime,
    ) -> (Vec<MemberOp>, Vec<MemberWrite>, Vec<bool>) {
        let sectors = u64::from(req.blocks.max(1));
        let mut now_ops = Vec::new();
        let mut later = Vec::new();
        if self.level == RaidLevel::Raid1 {
            if req.write {
                for m in 0..self.members.len() {
                    now_ops.push((m, req.lbn, req.blocks.max(1), true));
                }
            } else {
                let m = self.replica_for(req.lbn, now);
                now_ops.push((m, req.lbn, req.blocks.max(1), false));
            }
            return (now_ops, later, Vec::new());
        }
        let pieces = self.pieces(req.lbn, sectors);
        if !req.write || !self.level.has_parity() {
            for (_, m, lbn, n) in merge(pieces.iter().map(|&(_, m, l, n)| (m, l, n))) {
                now_ops.push((m, lbn, n, req.write));
            }
            return (now_ops, later, Vec::new());
        }
        let mut is_parity = Vec::new();
        // Parity writes: per row, whole rows write without reading, partial rows read
        // the old data and parity first.
        let ndata = self.data_members();
        let mut i = 0;
        while i < pieces.len() {
            let row = pieces[i].0;
            let j = i + pieces[i..].iter().take_while(|p| p.0 == row).count();
            let in_row = &pieces[i..j];
            let covered: u64 = in_row.iter().map(|p| u64::from(p.3)).sum();
            let (_, parity) = self.placement(row, 0);
            let parity = parity.unwrap_or(0);
            let lo = in_row.iter().map(|p| p.2 % self.unit).min().unwrap_or(0);
            let hi = in_row
                .iter()
                .map(|p| p.2 % self.unit + u64::from(p.3))
                .max()
                .unwrap_or(0);
            let plbn = row * self.unit + lo;
            let plen = (hi - lo) as u32;
            if covered < ndata * self.unit {
                for &(_, m, lbn, n) in in_row {
                    now_ops.push((m, lbn, n, false));
                }
                now_ops.push((parity, plbn, plen, false));
            }
            for &(_, m, lbn, n) in in_row {
                later.push((m, lbn, n));
                is_parity.push(false);
            }
            later.push((parity, plbn, plen));
            is_parity.push(true);
            i = j;
        }
        if now_ops.is_empty() {
            for (m, lbn, n) in later.drain(..) {
                now_ops.push((m, lbn, n, true));
            }
            is_parity.clear();
        }
        (now_ops, later, is_parity)
    }
}

/// Joins member requests (member, LBN, sectors, mask) on one member at most `give`
/// sectors apart into one through the gap, their masks together; sorted by member and
/// LBN. A join that would pass `u32::MAX` sectors is not made.
fn join_near(mut v: Vec<(usize, u64, u64, u64)>, give: u64) -> Vec<(usize, u64, u64, u64)> {
    v.sort_unstable();
    let mut out: Vec<(usize, u64, u64, u64)> = Vec::with_capacity(v.len());
    for (m, lbn, n, mask) in v {
        match out.last_mut() {
            Some(last)
                if last.0 == m
                    && lbn <= last.1 + last.2 + give
                    && (lbn + n).max(last.1 + last.2) - last.1 <= u64::from(u32::MAX) =>
            {
                last.2 = (lbn + n).max(last.1 + last.2) - last.1;
                last.3 |= mask;
            }
            _ => out.push((m, lbn, n, mask)),
        }
    }
    out
}

/// Joins pieces that are contiguous on the same member.
fn merge(pieces: impl Iterator<Item = (usize, u64, u32)>) -> Vec<(u64, usize, u64, u32)> {
    let mut v: Vec<(usize, u64, u32)> = pieces.collect();
    v.sort_unstable();
    let mut out: Vec<(u64, usize, u64, u32)> = Vec::with_capacity(v.len());
    for (m, lbn, n) in v {
        match out.last_mut() {
            Some(last) if last.1 == m && last.2 + u64::from(last.3) == lbn => last.3 += n,
            _ => out.push((0, m, lbn, n)),
        }
    }
    out
}

impl Device for Array {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn outstanding(&self) -> usize {
        self.parents.len()
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.stats.writes += 1;
        } else {
            self.stats.reads += 1;
        }
        let plan = self.plan(&req, now);
        if !plan.then.is_empty() {
            self.stats.read_modify_writes += 1;
        }
        self.stats.reconstruct_writes += plan.reconstructs;
        // (Nothing waits when there are no writes to follow: no lists then.)
        let mut dependents = Vec::new();
        if !plan.then.is_empty() {
            dependents = vec![Vec::new(); plan.first.len()];
        }
        for (j, w) in plan.waits.iter().enumerate() {
            for &i in w {
                dependents[i as usize].push(j as u32);
            }
        }
        // A read that a write to its own member waits for: the member may hold its
        // next choice until that write is in.
        let followed = |i: usize| {
            let m = plan.first[i].0;
            dependents
                .get(i)
                .is_some_and(|d: &Vec<u32>| d.iter().any(|&j| plan.then[j as usize].0 == m))
        };
        let followed: Vec<usize> = (0..plan.first.len()).filter(|&i| followed(i)).collect();
        let sequence = self.issue_sequence(&req, &plan.first);
        let parent = req.id;
        self.parents.insert(
            req.id,
            Parent {
                req,
                left: (plan.first.len() + plan.then.len()) as u32,
                then: plan
                    .then
                    .iter()
                    .zip(&plan.waits)
                    .map(|(&w, r)| (w, r.len() as u32))
                    .collect(),
                dependents,
                parts: Parts::default(),
            },
        );
        for i in sequence {
            let (m, lbn, n, w) = plan.first[i];
            let id = self.issue(now, parent, i as u32, m, lbn, n, w);
            if followed.contains(&i) {
                self.members[m].follow_up(id);
                self.wakes[m] = self.members[m].next_wake();
            }
        }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.wakes.iter().flatten().min().copied()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let mut got = std::mem::take(&mut self.scratch);
        if wake_earliest(&mut self.members, &mut self.wakes, now, &mut got).is_none() {
            self.scratch = got;
            return;
        }
        let mut go = Vec::new();
        for d in got.drain(..) {
            // A member's own background work is not the array's.
            let Some((pid, index)) = self.children.remove(&d.req.id) else {
                continue;
            };
            let Some(p) = self.parents.get_mut(&pid) else {
                continue;
            };
            p.parts.absorb(&d);
            p.left -= 1;
            // The writes this one was the last read for, in plan order.
            go.clear();
            if let Some(deps) = p.dependents.get(index as usize) {
                for &j in deps {
                    let t = &mut p.then[j as usize];
                    t.1 -= 1;
                    if t.1 == 0 {
                        go.push(t.0);
                    }
                }
            }
            let left = p.left;
            if self.issue_order == IssueOrder::DiskSim {
                go.sort_by_key(|&(m, lbn, _)| (std::cmp::Reverse(m), lbn));
            }
            for &(m, lbn, n) in &go {
                self.issue(now, pid, LATER, m, lbn, n, true);
            }
            if left > 0 {
                continue;
            }
            if let Some(p) = self.parents.remove(&pid) {
                out.push(p.parts.done(p.req, now));
            }
        }
        self.scratch = got;
    }

    fn describe(&self, depth: usize, out: &mut String) {
        let gb = self.capacity as f64 * 512.0 / 1e9;
        let stripe = if self.level == RaidLevel::Raid1 {
            format!(", reads pick the replica by {}", self.replica.name())
        } else if self.level == RaidLevel::Raid5
            && self.parity_layout != ParityLayout::LeftSymmetric
        {
            format!(
                ", stripe unit {} KiB, {}",
                self.unit / 2,
                self.parity_layout.name()
            )
        } else {
            format!(", stripe unit {} KiB", self.unit / 2)
        };
        let stripe = match self.parity_update {
            ParityUpdate::DiskSim { rmw_point, .. } if self.level.has_parity() => format!(
                "{stripe}, DiskSim parity updates (reconstruct-write from {rmw_point} units)"
            ),
            _ => stripe,
        };
        tree_line(
            depth,
            out,
            &format!(
                "{} ({} members{stripe}, {gb:.1} GB)",
                self.level.name(),
                self.members.len()
            ),
        );
        for m in &self.members {
            m.describe(depth + 1, out);
        }
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        let s = &self.stats;
        let mut extra = vec![
            ("member reads".to_string(), s.member_reads.to_string()),
            ("member writes".to_string(), s.member_writes.to_string()),
        ];
        if self.level == RaidLevel::Raid1 {
            extra.push(("replica choice".into(), self.replica.name().into()));
        }
        if self.level.has_parity() {
            extra.push((
                "read-modify-writes".into(),
                s.read_modify_writes.to_string(),
            ));
            if let ParityUpdate::DiskSim { .. } = self.parity_update {
                extra.push((
                    "reconstruct-written rows".into(),
                    s.reconstruct_writes.to_string(),
                ));
            }
        }
        out.push(NodeReport {
            path: path.to_string(),
            kind: self.level.name().to_string(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra,
            is_drive: false,
        });
        for (i, m) in self.members.iter().enumerate() {
            m.report_until(&format!("{path}/member {i}"), end, out);
        }
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        for m in &self.members {
            m.predictions(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::RunConfig;
    use crate::engine::{self, RunOptions, Source};
    use crate::time::SimTime;
    use crate::trace::IoRecord;
    use rand::{Rng, SeedableRng};

    fn mirror(choice: &str, spindles: &str) -> String {
        format!(
            "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\n\
             sizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = 1.0\n\
             arrivals = {{ kind = \"poisson\", rate-per-s = 20 }}\ncount = 1\n\
             [device]\nkind = \"raid1\"\ncount = 4\nreplica-choice = \"{choice}\"\n\
             spindles = \"{spindles}\"\n[device.member]\nkind = \"disk\"\ndisk = \"st34502lw\"\n"
        )
    }

    /// Mean response (ms) of light random reads (one at a time) on a stack.
    fn mean_read_ms(toml: &str, seed: u64) -> f64 {
        let c = RunConfig::from_toml(toml, "test.toml").unwrap();
        let mut b = c.build().unwrap();
        let cap = b.root.capacity() - 8;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let recs: Vec<IoRecord> = (0..400u64)
            .map(|i| IoRecord {
                arrival: SimTime(i * 100_000_000),
                device: 0,
                lbn: rng.gen_range(0..cap),
                blocks: 8,
                write: false,
                content: Vec::new(),
            })
            .collect();
        let mut total = 0u64;
        engine::run(
            b.root.as_mut(),
            &b.units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |l| total += l.response_ns(),
        )
        .unwrap();
        total as f64 / recs.len() as f64 / 1e6
    }

    /// MimdRAID's premise: a read sent to the replica whose head is nearest beats one
    /// sent to any idle replica; choosing by positioning time (seek and rotation, the
    /// drive model's prediction) adds the rotational gain where the spindles are evenly
    /// spaced, and matches the seek choice where they are aligned (every replica's
    /// sector passes at once).
    #[test]
    fn a_mirror_reads_from_the_nearest_replica() {
        for seed in [1, 2, 3] {
            for spindles in ["aligned", "spaced", "random"] {
                let busy = mean_read_ms(&mirror("least-busy", spindles), seed);
                let seek = mean_read_ms(&mirror("seek", spindles), seed);
                let pos = mean_read_ms(&mirror("positioning", spindles), seed);
                let at = format!("{spindles} seed {seed}: {pos} {seek} {busy}");
                assert!(seek < 0.9 * busy, "{at}");
                assert!(pos <= 1.02 * seek, "{at}");
                match spindles {
                    "aligned" => assert!((pos - seek).abs() < 1e-9, "{at}"),
                    "spaced" => assert!(pos < seek, "{at}"),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn replica_choice_is_for_mirrors_only() {
        let t = mirror("seek", "aligned").replace("kind = \"raid1\"", "kind = \"raid0\"");
        let e = RunConfig::from_toml(&t, "test.toml")
            .unwrap()
            .build()
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("replica-choice applies to raid1"), "{e}");
    }

    /// A member that finishes each request a fixed time after it arrives, and logs
    /// when each write arrived.
    struct Fixed {
        lat: u64,
        due: Vec<(SimTime, super::Request)>,
        writes: std::rc::Rc<std::cell::RefCell<Vec<(usize, u64)>>>,
        me: usize,
    }

    impl super::Device for Fixed {
        fn capacity(&self) -> u64 {
            1 << 20
        }
        fn outstanding(&self) -> usize {
            self.due.len()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: super::Request) {
            if req.write {
                self.writes.borrow_mut().push((self.me, now.0));
            }
            self.due.push((SimTime(now.0 + self.lat), req));
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.due.iter().map(|d| d.0).min()
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<super::Done>) {
            let (ready, wait): (Vec<_>, Vec<_>) = self.due.drain(..).partition(|d| d.0 <= now);
            self.due = wait;
            for (t, req) in ready {
                out.push(super::Done {
                    req,
                    dispatch: None,
                    start: t,
                    done: t,
                    breakdown: Default::default(),
                    cache_hit: false,
                    background: false,
                    released: None,
                    unit: 0,
                    rider: false,
                });
            }
        }
        fn describe(&self, _: usize, _: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<crate::node::NodeReport>) {}
    }

    /// A one-sector write to row 0 of a 4-member RAID-5 (data on member 0, parity on
    /// member 3, member 3 ten times slower): with per-member order the data write
    /// follows its own read at 1 ms and the parity write waits for both reads (10 ms);
    /// after all reads, both wait for 10 ms. Either way the request ends at 20 ms.
    #[test]
    fn per_member_write_order_lets_a_data_write_follow_its_own_read() {
        use super::{Array, Device, RaidLevel, Request, WriteOrder};
        // Then the data member slow instead: the parity write, its own read back at
        // 1 ms, still waits for the data read (10 ms).
        for (slow, order, want) in [
            (
                3,
                WriteOrder::PerMember,
                vec![(0, 1_000_000), (3, 10_000_000)],
            ),
            (
                3,
                WriteOrder::AfterAllReads,
                vec![(0, 10_000_000), (3, 10_000_000)],
            ),
            (
                0,
                WriteOrder::PerMember,
                vec![(0, 10_000_000), (3, 10_000_000)],
            ),
        ] {
            let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
            let members: Vec<Box<dyn Device>> = (0..4)
                .map(|me| {
                    Box::new(Fixed {
                        lat: if me == slow { 10_000_000 } else { 1_000_000 },
                        due: Vec::new(),
                        writes: log.clone(),
                        me,
                    }) as Box<dyn Device>
                })
                .collect();
            let mut a = Array::new(RaidLevel::Raid5, members, 64)
                .unwrap()
                .with_write_order(order);
            a.submit(
                SimTime(0),
                Request {
                    id: 7,
                    lbn: 0,
                    blocks: 1,
                    write: true,
                },
            );
            let mut done = Vec::new();
            while let Some(t) = a.next_wake() {
                a.wake(t, &mut done);
            }
            let mut got = log.borrow().clone();
            got.sort_unstable();
            assert_eq!(got, want, "{order:?}");
            assert_eq!(done.len(), 1);
            assert_eq!((done[0].req.id, done[0].done), (7, SimTime(20_000_000)));
        }
    }

    /// A RAID-5 of `n` fixed-latency members (1 ms each) with unit 64 and DiskSim's
    /// parity updates.
    fn disksim_raid5(n: usize, rmw_point: u32) -> super::Array {
        use super::{Array, Device, ParityUpdate, RaidLevel, WriteOrder};
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let members: Vec<Box<dyn Device>> = (0..n)
            .map(|me| {
                Box::new(Fixed {
                    lat: 1_000_000,
                    due: Vec::new(),
                    writes: log.clone(),
                    me,
                }) as Box<dyn Device>
            })
            .collect();
        Array::new(RaidLevel::Raid5, members, 64)
            .unwrap()
            .with_parity_update(ParityUpdate::DiskSim {
                rmw_point,
                seq_give: 32,
            })
            .with_write_order(WriteOrder::PerRow)
    }

    fn write(lbn: u64, blocks: u32) -> super::Request {
        super::Request {
            id: 1,
            lbn,
            blocks,
            write: true,
        }
    }

    /// DiskSim's choice per row (9 members, 8 data units a row, reconstruct from 4):
    /// fewer than 4 units touched read the old data and parity; 4 to 7 read the row's
    /// other data over the parity span; all 8 read nothing.
    #[test]
    fn disksim_parity_updates_choose_rmw_or_reconstruct_by_units_touched() {
        let a = disksim_raid5(9, 4);
        // Row 0: data units 0..7 on members 0..7, parity on member 8.
        // One unit, sectors 8..16: read-modify-write.
        let p = a.plan(&write(8, 8), SimTime(0));
        assert_eq!(p.first, vec![(0, 8, 8, false), (8, 8, 8, false)]);
        assert_eq!(p.then, vec![(0, 8, 8), (8, 8, 8)]);
        // The data write waits for its own read, the parity write for both.
        assert_eq!(p.waits, vec![vec![0], vec![0, 1]]);
        assert_eq!(p.reconstructs, 0);
        // Four whole units: reconstruct from units 4..7; the data writes go at once.
        let p = a.plan(&write(0, 256), SimTime(0));
        assert_eq!(p.reconstructs, 1);
        let reads: Vec<_> = p.first.iter().filter(|o| !o.3).copied().collect();
        assert_eq!(
            reads,
            vec![
                (4, 0, 64, false),
                (5, 0, 64, false),
                (6, 0, 64, false),
                (7, 0, 64, false)
            ]
        );
        let now_writes: Vec<_> = p.first.iter().filter(|o| o.3).map(|o| o.0).collect();
        assert_eq!(now_writes, vec![0, 1, 2, 3]);
        assert_eq!(p.then, vec![(8, 0, 64)]);
        assert_eq!(p.waits, vec![vec![0, 1, 2, 3]]);
        // Every unit touched, the first only partly: no reads at all.
        let p = a.plan(&write(32, 512 - 32), SimTime(0));
        assert!(p.first.iter().all(|o| o.3) && p.then.is_empty(), "{p:?}");
        assert!(p.first.contains(&(8, 0, 64, true)));
        // Reconstruct with a partly written unit: its unwritten part of the span is read.
        let p = a.plan(&write(32, 4 * 64), SimTime(0));
        assert_eq!(p.reconstructs, 1);
        // (sectors 32..288: unit 0 from 32, units 1..3 whole, unit 4 up to 32)
        assert!(p.first.contains(&(0, 0, 32, false)), "{p:?}");
        assert!(p.first.contains(&(4, 32, 32, false)), "{p:?}");
        assert!(p.first.contains(&(5, 0, 64, false)), "{p:?}");
        // Those two data writes wait for their own member's read; the parity write for
        // every read of the row.
        assert_eq!(p.then, vec![(0, 32, 32), (4, 0, 32), (8, 0, 64)]);
        assert_eq!(p.waits, vec![vec![0], vec![1], vec![0, 1, 2, 3, 4]]);
        // With spindle's own policy the same write reads old data and parity.
        let b = disksim_raid5(9, 4).with_parity_update(super::ParityUpdate::ReadModifyWrite);
        let p = b.plan(&write(0, 256), SimTime(0));
        assert_eq!(p.first.len(), 5);
        assert!(p.first.iter().all(|o| !o.3));
    }

    /// A one-row write over two units whose offsets do not overlap updates each unit's
    /// parity on its own; the two parity ranges join when at most 32 sectors apart.
    #[test]
    fn disksim_parity_spans_split_and_join_as_disksim_does() {
        let a = disksim_raid5(9, 4);
        // Sectors 60..68: unit 0 [60,64), unit 1 [0,4); parity ranges [60,64) and
        // [0,4), 56 apart: two parity reads and two parity writes.
        let p = a.plan(&write(60, 8), SimTime(0));
        let parity: Vec<_> = p.first.iter().filter(|o| o.0 == 8).copied().collect();
        assert_eq!(parity, vec![(8, 0, 4, false), (8, 60, 4, false)]);
        assert_eq!(p.then.iter().filter(|w| w.0 == 8).count(), 2);
        // Sectors 40..84: [40,64) and [0,20), 20 apart: one parity request [0,64).
        let p = a.plan(&write(40, 44), SimTime(0));
        let parity: Vec<_> = p.first.iter().filter(|o| o.0 == 8).copied().collect();
        assert_eq!(parity, vec![(8, 0, 64, false)]);
        assert_eq!(
            p.then.iter().filter(|w| w.0 == 8).collect::<Vec<_>>(),
            vec![&(8, 0, 64)]
        );
        // Overlapping offsets (sectors 10..84: [10,64) and [0,20)): one span [0,64).
        let p = a.plan(&write(10, 74), SimTime(0));
        assert!(p.first.contains(&(8, 0, 64, false)), "{p:?}");
    }

    /// No lost write: for many random writes under DiskSim's policy, every written
    /// sector reaches its data member and its row's parity member, and every member
    /// write is issued (the request completes).
    #[test]
    fn disksim_parity_updates_write_every_sector_and_its_parity() {
        use super::Device;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for rmw_point in [0, 2, 4, 9] {
            for _ in 0..300 {
                let mut a = disksim_raid5(5, rmw_point);
                let lbn = rng.gen_range(0..4096u64);
                let n = rng.gen_range(1..700u32);
                let p = a.plan(&write(lbn, n), SimTime(0));
                let all: Vec<(usize, u64, u32)> = p
                    .first
                    .iter()
                    .filter(|o| o.3)
                    .map(|o| (o.0, o.1, o.2))
                    .chain(p.then.iter().copied())
                    .collect();
                let covered = |m: usize, s: u64| {
                    all.iter()
                        .any(|w| w.0 == m && w.1 <= s && s < w.1 + u64::from(w.2))
                };
                for s in lbn..lbn + u64::from(n) {
                    let (row, k) = (s / 64 / 4, s / 64 % 4);
                    let (m, par) = a.placement(row, k);
                    let dev = row * 64 + s % 64;
                    assert!(covered(m, dev), "data {s} rmw {rmw_point} ({lbn}+{n})");
                    assert!(
                        covered(par.unwrap(), dev),
                        "parity {s} rmw {rmw_point} ({lbn}+{n})"
                    );
                }
                a.submit(SimTime(0), write(lbn, n));
                let mut done = Vec::new();
                while let Some(t) = a.next_wake() {
                    a.wake(t, &mut done);
                }
                assert_eq!(done.len(), 1, "({lbn}+{n})");
                assert_eq!(a.stats.member_writes as usize, all.len());
            }
        }
    }

    /// Logs every member request as it arrives: (member, LBN, write).
    struct Logged {
        lat: u64,
        inner: Fixed,
        log: std::rc::Rc<std::cell::RefCell<Vec<(usize, u64, bool)>>>,
    }

    impl super::Device for Logged {
        fn capacity(&self) -> u64 {
            self.inner.capacity()
        }
        fn outstanding(&self) -> usize {
            self.inner.outstanding()
        }
        fn can_accept(&self) -> bool {
            true
        }
        fn submit(&mut self, now: SimTime, req: super::Request) {
            self.log
                .borrow_mut()
                .push((self.inner.me, req.lbn, req.write));
            self.inner.lat = self.lat;
            self.inner.submit(now, req);
        }
        fn next_wake(&self) -> Option<SimTime> {
            self.inner.next_wake()
        }
        fn wake(&mut self, now: SimTime, out: &mut Vec<super::Done>) {
            self.inner.wake(now, out);
        }
        fn describe(&self, _: usize, _: &mut String) {}
        fn report_until(&self, _: &str, _: SimTime, _: &mut Vec<crate::node::NodeReport>) {}
    }

    /// The member requests of one array request in the order they reach the members,
    /// under `order`: a 4-member array with unit 64, member `m` taking `lat(m)` ns.
    fn arrivals(
        level: super::RaidLevel,
        order: super::IssueOrder,
        req: super::Request,
        lat: impl Fn(usize) -> u64,
    ) -> Vec<(usize, u64, bool)> {
        use super::{Array, Device, ParityUpdate, WriteOrder};
        let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let members: Vec<Box<dyn Device>> = (0..4)
            .map(|me| {
                Box::new(Logged {
                    lat: lat(me),
                    inner: Fixed {
                        lat: 0,
                        due: Vec::new(),
                        writes: Default::default(),
                        me,
                    },
                    log: log.clone(),
                }) as Box<dyn Device>
            })
            .collect();
        let mut a = Array::new(level, members, 64)
            .unwrap()
            .with_parity_update(ParityUpdate::DiskSim {
                rmw_point: 2,
                seq_give: 32,
            })
            .with_write_order(WriteOrder::PerRow)
            .with_issue_order(order);
        a.submit(SimTime(0), req);
        let mut done = Vec::new();
        while let Some(t) = a.next_wake() {
            a.wake(t, &mut done);
        }
        assert_eq!(done.len(), 1);
        log.take()
    }

    /// DiskSim's driver starts an array request's member requests in the reverse of
    /// its logorg's list: a RAID-0 read from member 1 into member 2 reaches member 2
    /// first; a RAID-4 read over members 1 and 2 reaches member 1 first (that list runs
    /// by member descending). Plan order is by member either way.
    #[test]
    fn disksim_issue_order_reverses_the_logorg_list() {
        use super::{IssueOrder, RaidLevel, Request};
        let read = Request {
            id: 1,
            lbn: 64 + 60,
            blocks: 8,
            write: false,
        };
        let first = |level, order| -> Vec<usize> {
            arrivals(level, order, read, |_| 1_000_000)
                .iter()
                .map(|a| a.0)
                .collect()
        };
        assert_eq!(first(RaidLevel::Raid0, IssueOrder::DiskSim), [2, 1]);
        assert_eq!(first(RaidLevel::Raid0, IssueOrder::Plan), [1, 2]);
        assert_eq!(first(RaidLevel::Raid4, IssueOrder::DiskSim), [1, 2]);
        // A RAID-0 request that wraps from member 3 to member 0 of the next row.
        let wrap = Request {
            lbn: 3 * 64 + 60,
            ..read
        };
        let got: Vec<usize> = arrivals(RaidLevel::Raid0, IssueOrder::DiskSim, wrap, |_| 1)
            .iter()
            .map(|a| a.0)
            .collect();
        assert_eq!(got, [0, 3]);
    }

    /// A RAID-4 read-modify-write of one unit on member 0, its parity on member 3:
    /// both reads go at once, the data member's last; its completion releases the
    /// data and the parity write together, and DiskSim sends the parity disk's first
    /// (disks descending). Two parity reads on one member (a write over two units
    /// whose offsets do not overlap): the first of DiskSim's list, the higher LBN,
    /// goes ahead of the other members' reads.
    #[test]
    fn disksim_issue_order_of_reads_and_released_writes() {
        use super::{IssueOrder, RaidLevel, Request};
        let w = Request {
            id: 1,
            lbn: 8,
            blocks: 8,
            write: true,
        };
        let slow_data = |m: usize| if m == 0 { 5_000_000 } else { 1_000_000 };
        let got = arrivals(RaidLevel::Raid4, IssueOrder::DiskSim, w, slow_data);
        assert_eq!(
            got,
            [(0, 8, false), (3, 8, false), (3, 8, true), (0, 8, true)]
        );
        let got = arrivals(RaidLevel::Raid4, IssueOrder::Plan, w, slow_data);
        assert_eq!(
            got,
            [(0, 8, false), (3, 8, false), (0, 8, true), (3, 8, true)]
        );
        // Sectors 60..68: member 0 [60,64), member 1 [0,4), parity ranges 60 and 0.
        let two = Request { lbn: 60, ..w };
        let got = arrivals(RaidLevel::Raid4, IssueOrder::DiskSim, two, |_| 1_000_000);
        assert_eq!(
            &got[..4],
            [(0, 60, false), (1, 0, false), (3, 60, false), (3, 0, false)]
        );
    }
}
