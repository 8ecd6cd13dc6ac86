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

use crate::disk::hdd::{Breakdown, Request};
use crate::node::{tree_line, Device, Done, NodeReport, Units};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Wakes the member with the earliest event due at `now` (ties to the lowest index),
/// its completions into `got` (cleared first); which member, if any was due.
fn wake_earliest(
    members: &mut [Box<dyn Device>],
    now: SimTime,
    got: &mut Vec<Done>,
) -> Option<usize> {
    got.clear();
    let (t, i) = members
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.next_wake().map(|t| (t, i)))
        .min()?;
    if t > now {
        return None;
    }
    members[i].wake(now, got);
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
    scratch: Vec<Done>,
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
            scratch: Vec::new(),
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
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        self.members[i].wake(now, &mut got);
        self.wakes[i] = self.members[i].next_wake();
        for d in got.drain(..) {
            if !d.background {
                self.outstanding -= 1;
            }
            out.push(Done {
                unit: i as u32,
                req: Request {
                    lbn: d.req.lbn + self.base[i],
                    ..d.req
                },
                ..d
            });
        }
        self.scratch = got;
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

    fn report(&self, path: &str, out: &mut Vec<NodeReport>) {
        for (i, m) in self.members.iter().enumerate() {
            m.report(&format!("{path}/unit {i}"), out);
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

/// Where a RAID-5 row's data units go around its rotating parity. Both put row `r`'s
/// parity on member `n - 1 - r mod n`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParityLayout {
    /// Data unit `k` on member `(p + 1 + k) mod n`: data follows the parity around
    /// (Linux md's default).
    #[default]
    LeftSymmetric,
    /// Data units fill the members in order, skipping the parity member (the thesis's
    /// Fig 6.1 and its Adaptec 2200S).
    LeftAsymmetric,
}

impl ParityLayout {
    pub fn name(self) -> &'static str {
        match self {
            ParityLayout::LeftSymmetric => "left-symmetric",
            ParityLayout::LeftAsymmetric => "left-asymmetric",
        }
    }

    /// The member holding data unit `k` of row `row` of an `n`-member RAID-5, and the
    /// row's parity member.
    pub fn place(self, n: u64, row: u64, k: u64) -> (usize, usize) {
        let p = n - 1 - row % n;
        let m = match self {
            ParityLayout::LeftSymmetric => (p + 1 + k) % n,
            ParityLayout::LeftAsymmetric => k + u64::from(k >= p),
        };
        (m as usize, p as usize)
    }
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

/// When a RAID-4/5 read-modify-write's member writes go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteOrder {
    /// Every write once all of the request's reads are back (one barrier per request).
    #[default]
    AfterAllReads,
    /// A data write once the request's reads on its own member are back; a parity
    /// write once all of the request's reads are back (DiskSim's unsynchronized
    /// parity writes, which tie a parity write to its row's reads only).
    PerMember,
}

/// A member request: (member, LBN, sectors, write).
type MemberOp = (usize, u64, u32, bool);
/// A member write: (member, LBN, sectors).
type MemberWrite = (usize, u64, u32);

/// A request of the array in progress.
#[derive(Clone, Debug)]
struct Parent {
    req: Request,
    /// Member requests of the current phase not yet completed.
    remaining: u32,
    /// Writes to issue once the reads of a read-modify-write are back.
    then_write: Vec<MemberWrite>,
    /// With [`WriteOrder::PerMember`]: which of `then_write` are parity writes, and the
    /// reads still out per member.
    then_parity: Vec<bool>,
    reads_left: Vec<u32>,
    start: Option<SimTime>,
    dispatch: Option<SimTime>,
    breakdown: Breakdown,
    cache_hit: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct ArrayStats {
    reads: u64,
    writes: u64,
    member_reads: u64,
    member_writes: u64,
    read_modify_writes: u64,
}

pub struct Array {
    level: RaidLevel,
    members: Vec<Box<dyn Device>>,
    /// Stripe unit, sectors.
    unit: u64,
    capacity: u64,
    /// Member request id → parent id.
    children: FxHashMap<u64, (u64, usize)>,
    parents: FxHashMap<u64, Parent>,
    next_child: u64,
    scratch: Vec<Done>,
    stats: ArrayStats,
    /// RAID-1: how a read picks its replica.
    replica: ReplicaChoice,
    /// RAID-5: where data goes around the parity.
    parity_layout: ParityLayout,
    /// RAID-4/5: when a read-modify-write's writes go.
    write_order: WriteOrder,
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

    /// A mirror's reads pick their replica by `choice`.
    pub fn with_replica_choice(mut self, choice: ReplicaChoice) -> Array {
        self.replica = choice;
        self
    }

    /// The replica that serves a read of `lbn` at `now`: the least busy members, and
    /// among them (by the choice) the nearest by seek or by positioning time as each
    /// member's drive model sees it. Equal positioning times (common on aligned
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
                ReplicaChoice::Positioning => (hdd.positioning_from_state(now, lbn, false), seek()),
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

    fn issue(&mut self, now: SimTime, parent: u64, member: usize, lbn: u64, blocks: u32, w: bool) {
        let id = self.next_child;
        self.next_child += 1;
        self.children.insert(id, (parent, member));
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
    }

    /// Member requests for a parent: (member, LBN, sectors, write) now, and writes for
    /// after the reads.
    #[allow(clippy::type_complexity)]
    fn plan(&self, req: &Request, now: SimTime) -> (Vec<MemberOp>, Vec<MemberWrite>, Vec<bool>) {
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
        let (first, later, then_parity) = self.plan(&req, now);
        let mut reads_left = Vec::new();
        if self.write_order == WriteOrder::PerMember && !later.is_empty() {
            reads_left = vec![0u32; self.members.len()];
            for &(m, _, _, w) in &first {
                if !w {
                    reads_left[m] += 1;
                }
            }
        }
        if !later.is_empty() {
            self.stats.read_modify_writes += 1;
        }
        self.parents.insert(
            req.id,
            Parent {
                req,
                remaining: first.len() as u32,
                then_write: later,
                then_parity,
                reads_left,
                start: None,
                dispatch: None,
                breakdown: Breakdown::default(),
                cache_hit: true,
            },
        );
        for (m, lbn, n, w) in first {
            self.issue(now, req.id, m, lbn, n, w);
        }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.members.iter().filter_map(|m| m.next_wake()).min()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let mut got = std::mem::take(&mut self.scratch);
        if wake_earliest(&mut self.members, now, &mut got).is_none() {
            self.scratch = got;
            return;
        }
        for d in got.drain(..) {
            // A member's own background work is not the array's.
            let Some((pid, member)) = self.children.remove(&d.req.id) else {
                continue;
            };
            let Some(p) = self.parents.get_mut(&pid) else {
                continue;
            };
            p.start = Some(p.start.map_or(d.start, |s| s.min(d.start)));
            p.dispatch = match (p.dispatch, d.dispatch) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            p.breakdown.overhead_ns += d.breakdown.overhead_ns;
            p.breakdown.seek_ns += d.breakdown.seek_ns;
            p.breakdown.rotation_ns += d.breakdown.rotation_ns;
            p.breakdown.transfer_ns += d.breakdown.transfer_ns;
            p.cache_hit &= d.cache_hit;
            p.remaining -= 1;
            if !p.reads_left.is_empty() && !d.req.write && !p.then_write.is_empty() {
                // Per member: this member's data writes once its reads are back, all
                // the rest once every read is.
                p.reads_left[member] -= 1;
                let all_read = p.reads_left.iter().all(|&r| r == 0);
                let mine = p.reads_left[member] == 0;
                let mut go = Vec::new();
                let mut i = 0;
                while i < p.then_write.len() {
                    if all_read || (mine && p.then_write[i].0 == member && !p.then_parity[i]) {
                        go.push(p.then_write.remove(i));
                        p.then_parity.remove(i);
                    } else {
                        i += 1;
                    }
                }
                p.remaining += go.len() as u32;
                let left = p.remaining;
                for (m, lbn, n) in go {
                    self.issue(now, pid, m, lbn, n, true);
                }
                if left > 0 {
                    continue;
                }
            }
            let Some(p) = self.parents.get_mut(&pid) else {
                continue;
            };
            if p.remaining > 0 {
                continue;
            }
            if !p.then_write.is_empty() {
                let writes = std::mem::take(&mut p.then_write);
                p.remaining = writes.len() as u32;
                for (m, lbn, n) in writes {
                    self.issue(now, pid, m, lbn, n, true);
                }
                continue;
            }
            if let Some(p) = self.parents.remove(&pid) {
                out.push(Done {
                    req: p.req,
                    dispatch: p.dispatch,
                    start: p.start.unwrap_or(now),
                    done: now,
                    breakdown: p.breakdown,
                    cache_hit: p.cache_hit,
                    background: false,
                    released: None,
                    unit: 0,
                    rider: false,
                });
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

    fn report(&self, path: &str, out: &mut Vec<NodeReport>) {
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
            m.report(&format!("{path}/member {i}"), out);
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
            RunOptions { remove_idle: false },
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
        fn report(&self, _: &str, _: &mut Vec<crate::node::NodeReport>) {}
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
}
