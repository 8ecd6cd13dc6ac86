//! RAID-Mimic (thesis ch. 6, catalog ALG-RAIDMIMIC): a layer in the VMM's place, below
//! the guest and above a RAID-5 whose geometry it is not told. It holds the guest's
//! writes, cuts and joins them on a grid of cells (`size` sectors, starting `offset`
//! past each multiple of `size`), and sends whole cells below. While discovering it
//! cycles the grid through candidate sizes, each aligned (offset 0) and shifted (offset
//! `shift-kib`), times every whole-cell write from its issue to its completion, and
//! groups the times by (size, alignment). Once every group holds `samples` writes the
//! stripe is the smallest aligned size whose bandwidth is within `margin-pct` of the
//! best group's: a write of whole stripes needs no parity reads, so the stripe and its
//! multiples stand out, and the smallest of them is the stripe. From then on (or from
//! the start, given `stripe-kib`) writes go below as whole aligned stripes, joined up
//! to `max-request-kib`. Reads pass straight through.
//!
//! A guest write completes when every write below that carries part of it completes.
//! Data that cannot grow into a whole cell (a file's tail, a lone small write) goes
//! below as it is after waiting `hold-us` for neighbours. Timing only: bytes are not
//! kept, and a read is not served from held writes.

use super::layer::{Layer, LayerIo};
use crate::disk::hdd::Request;
use crate::node::{Done, NodeReport, Parts};
use crate::time::SimTime;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Largest candidate size and request the layer issues, KiB (64 MiB).
pub const MAX_SIZE_KIB: u64 = 64 << 10;
/// Most candidate sizes (`max-kib / granule-kib`).
pub const MAX_CANDIDATES: u64 = 4096;
/// Most timed writes per group.
pub const MAX_SAMPLES: u32 = 10_000;
/// Most requests outstanding below.
pub const MAX_DEPTH: u32 = 1024;
/// Longest hold, µs (one second).
pub const MAX_HOLD_US: f64 = 1e6;

/// `[[layer]] kind = "raid-mimic"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RaidMimicSpec {
    /// The stripe, KiB, when it is known (no discovery; thesis §6.4 assumes it known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_kib: Option<u64>,
    /// Candidate sizes are the multiples of this, KiB.
    #[serde(default = "default_granule")]
    pub granule_kib: u64,
    /// The largest candidate size, KiB.
    #[serde(default = "default_max")]
    pub max_kib: u64,
    /// How far past the grid a shifted ("unaligned") cell starts, KiB.
    #[serde(default = "default_shift")]
    pub shift_kib: u64,
    /// Timed writes per (size, alignment) group before deciding.
    #[serde(default = "default_samples")]
    pub samples: u32,
    /// How the stripe is picked from the groups.
    #[serde(default)]
    pub rule: StripeRule,
    /// The stripe is the smallest aligned size whose measure (see `rule`) is within
    /// this many percent of the best.
    #[serde(default = "default_margin")]
    pub margin_pct: f64,
    /// Longest a part of a cell waits for adjacent writes, µs.
    #[serde(default = "default_hold")]
    pub hold_us: f64,
    /// Largest write issued once the stripe is known (whole stripes joined), KiB.
    #[serde(default = "default_max_request")]
    pub max_request_kib: u64,
    /// Writes outstanding below at once.
    #[serde(default = "default_depth")]
    pub depth: u32,
}

/// What "best" means when picking the stripe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StripeRule {
    /// A size's aligned bandwidth over its shifted bandwidth: what alignment alone
    /// buys at that size. Larger writes are faster whatever the array (positioning is
    /// paid once), so raw bandwidth favours large multiples of the stripe; the ratio
    /// cancels the size and leaves the parity reads a whole-stripe write avoids.
    #[default]
    AlignmentGain,
    /// The aligned bandwidth itself (the thesis's words: "the size and alignment with
    /// the highest bandwidth").
    Bandwidth,
}

impl StripeRule {
    pub fn name(self) -> &'static str {
        match self {
            StripeRule::AlignmentGain => "alignment-gain",
            StripeRule::Bandwidth => "bandwidth",
        }
    }
}

/// Each aligned size's measure under `rule`: (size, measure), by size.
pub fn measures(groups: &[Group], rule: StripeRule) -> Vec<(u64, f64)> {
    let mut out = Vec::new();
    for a in groups.iter().filter(|g| g.aligned) {
        let m = match rule {
            StripeRule::Bandwidth => a.mb_per_s(),
            StripeRule::AlignmentGain => {
                let shifted = groups
                    .iter()
                    .find(|g| !g.aligned && g.size == a.size)
                    .map_or(0.0, Group::mb_per_s);
                if shifted > 0.0 {
                    a.mb_per_s() / shifted
                } else {
                    0.0
                }
            }
        };
        out.push((a.size, m));
    }
    out
}

/// The smallest size whose measure is within `margin_pct` of the best.
pub fn pick_stripe(groups: &[Group], rule: StripeRule, margin_pct: f64) -> Option<u64> {
    let m = measures(groups, rule);
    let best = m.iter().map(|x| x.1).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    let floor = best * (1.0 - margin_pct / 100.0);
    m.iter().find(|x| x.1 >= floor).map(|x| x.0)
}

fn default_granule() -> u64 {
    16
}
fn default_max() -> u64 {
    1024
}
fn default_shift() -> u64 {
    4
}
fn default_samples() -> u32 {
    4
}
fn default_margin() -> f64 {
    25.0
}
fn default_hold() -> f64 {
    2000.0
}
fn default_max_request() -> u64 {
    1024
}
fn default_depth() -> u32 {
    1
}

impl Default for RaidMimicSpec {
    fn default() -> Self {
        RaidMimicSpec {
            stripe_kib: None,
            granule_kib: default_granule(),
            max_kib: default_max(),
            shift_kib: default_shift(),
            samples: default_samples(),
            rule: StripeRule::default(),
            margin_pct: default_margin(),
            hold_us: default_hold(),
            max_request_kib: default_max_request(),
            depth: default_depth(),
        }
    }
}

/// One (size, alignment) group of timed writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Cell size, sectors.
    pub size: u64,
    pub aligned: bool,
    pub bytes: u64,
    /// Summed issue-to-completion times, ns.
    pub ns: u64,
    pub writes: u32,
}

impl Group {
    /// MB/s (10^6 bytes per second) over the group's writes; 0 with none.
    pub fn mb_per_s(&self) -> f64 {
        if self.ns == 0 {
            0.0
        } else {
            self.bytes as f64 / self.ns as f64 * 1e3
        }
    }
}

/// What the layer has learned and done, shared with whoever built it.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Every group, by size then aligned before shifted.
    pub groups: Vec<Group>,
    /// The stripe in use, sectors (found or given).
    pub stripe: Option<u64>,
    /// When discovery decided.
    pub decided_at: Option<SimTime>,
    /// Whole cells written during discovery (timed).
    pub probes: u64,
    /// Whole aligned stripe writes once the stripe is known.
    pub stripe_writes: u64,
    /// Writes below that were not whole cells (heads, tails, lone writes).
    pub partial_writes: u64,
    pub guest_writes: u64,
    pub guest_reads: u64,
}

impl RaidMimicSpec {
    pub fn build(&self) -> Result<RaidMimic, String> {
        let kib = |name: &str, v: u64, lo: u64| -> Result<u64, String> {
            if v < lo || v > MAX_SIZE_KIB {
                Err(format!(
                    "raid-mimic {name} must be within {lo}..={MAX_SIZE_KIB}, got {v}"
                ))
            } else {
                Ok(v * 2)
            }
        };
        let granule = kib("granule-kib", self.granule_kib, 1)?;
        let max = kib("max-kib", self.max_kib, self.granule_kib)?;
        let shift = kib("shift-kib", self.shift_kib, 1)?;
        let max_request = kib("max-request-kib", self.max_request_kib, 1)?;
        let stripe = match self.stripe_kib {
            Some(s) => Some(kib("stripe-kib", s, 1)?),
            None => None,
        };
        if max / granule > MAX_CANDIDATES {
            return Err(format!(
                "raid-mimic max-kib / granule-kib must be at most {MAX_CANDIDATES} candidate sizes, got {}",
                max / granule
            ));
        }
        if shift >= granule && stripe.is_none() {
            return Err(format!(
                "raid-mimic shift-kib must be below granule-kib ({}), got {}",
                self.granule_kib, self.shift_kib
            ));
        }
        if !(1..=MAX_SAMPLES).contains(&self.samples) {
            return Err(format!(
                "raid-mimic samples must be within 1..={MAX_SAMPLES}, got {}",
                self.samples
            ));
        }
        if !(self.margin_pct.is_finite() && (0.0..100.0).contains(&self.margin_pct)) {
            return Err(format!(
                "raid-mimic margin-pct must be within 0..100, got {}",
                self.margin_pct
            ));
        }
        if !(self.hold_us.is_finite() && (0.0..=MAX_HOLD_US).contains(&self.hold_us)) {
            return Err(format!(
                "raid-mimic hold-us must be within 0..={MAX_HOLD_US}, got {}",
                self.hold_us
            ));
        }
        if !(1..=MAX_DEPTH).contains(&self.depth) {
            return Err(format!(
                "raid-mimic depth must be within 1..={MAX_DEPTH}, got {}",
                self.depth
            ));
        }
        let mut groups = Vec::new();
        if stripe.is_none() {
            for k in 1..=max / granule {
                for aligned in [true, false] {
                    groups.push(Group {
                        size: k * granule,
                        aligned,
                        bytes: 0,
                        ns: 0,
                        writes: 0,
                    });
                }
            }
        }
        Ok(RaidMimic {
            spec: self.clone(),
            shift,
            max_request,
            hold_ns: crate::time::ms_to_ns(self.hold_us / 1e3),
            findings: Rc::new(RefCell::new(Findings {
                groups,
                stripe,
                ..Findings::default()
            })),
            candidate: 0,
            pending: BTreeMap::new(),
            guests: FxHashMap::default(),
            below: FxHashMap::default(),
            writes_below: 0,
            cursor: 0,
            next_id: 0,
        })
    }
}

/// Held guest data: a run of sectors and the guest writes it carries.
#[derive(Debug)]
struct Extent {
    end: u64,
    guests: Vec<u64>,
    /// When it last grew: a part of a cell goes below `hold` after this.
    grew: SimTime,
}

#[derive(Debug)]
struct Guest {
    req: Request,
    /// Extents and writes below still carrying part of it.
    remaining: u32,
    /// The writes below that carried it and have completed (a guest write cut at a
    /// stripe boundary reaches the array as several).
    parts: Parts,
}

impl Guest {
    fn new(req: Request) -> Guest {
        Guest {
            req,
            remaining: 1,
            parts: Parts::default(),
        }
    }
}

#[derive(Debug)]
struct Below {
    guests: Vec<u64>,
    issued: SimTime,
    /// The group a timed write belongs to.
    group: Option<usize>,
    sectors: u64,
}

pub struct RaidMimic {
    spec: RaidMimicSpec,
    shift: u64,
    max_request: u64,
    hold_ns: u64,
    findings: Rc<RefCell<Findings>>,
    /// The group whose grid cuts the next write while discovering.
    candidate: usize,
    /// Held writes by first sector.
    pending: BTreeMap<u64, Extent>,
    guests: FxHashMap<u64, Guest>,
    below: FxHashMap<u64, Below>,
    writes_below: u32,
    /// Where the last write below ended: the next goes from here upwards (C-LOOK).
    cursor: u64,
    next_id: u64,
}

/// What to do with a held extent.
enum Cut {
    /// Send `[start, end)` below, timed in `group` if any; `whole` if whole cells;
    /// `next` moves discovery on to the next group (a timed write, or a cell that
    /// could not fill, so a workload without long runs does not stall on one size).
    Send {
        end: u64,
        group: Option<usize>,
        whole: bool,
        next: bool,
    },
    /// Wait for adjacent data (until `grew + hold`).
    Wait,
}

impl RaidMimic {
    /// What the layer has learned, shared: it stays readable after the layer is boxed
    /// into a stack.
    pub fn findings(&self) -> Rc<RefCell<Findings>> {
        Rc::clone(&self.findings)
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The grid now: (size, offset, group while discovering).
    fn grid(&self) -> (u64, u64, Option<usize>) {
        let f = self.findings.borrow();
        match f.stripe {
            Some(s) => (s, 0, None),
            None => {
                let g = f.groups[self.candidate];
                let off = if g.aligned { 0 } else { self.shift % g.size };
                (g.size, off, Some(self.candidate))
            }
        }
    }

    fn cut(&self, now: SimTime, start: u64, e: &Extent) -> Cut {
        let (size, off, group) = self.grid();
        let expired = now.0 >= e.grew.0.saturating_add(self.hold_ns);
        let into = (start + size - off) % size;
        if into != 0 {
            // A head: it can never become a whole cell (what came before is gone).
            let boundary = start + (size - into);
            return if e.end >= boundary {
                Cut::Send {
                    end: boundary,
                    group: None,
                    whole: false,
                    next: false,
                }
            } else if expired {
                Cut::Send {
                    end: e.end,
                    group: None,
                    whole: false,
                    next: false,
                }
            } else {
                Cut::Wait
            };
        }
        let cells = (e.end - start) / size;
        if cells == 0 {
            return if expired {
                Cut::Send {
                    end: e.end,
                    group: None,
                    whole: false,
                    next: group.is_some(),
                }
            } else {
                Cut::Wait
            };
        }
        match group {
            Some(g) => Cut::Send {
                end: start + size,
                group: Some(g),
                whole: true,
                next: true,
            },
            None => {
                let most = (self.max_request / size).max(1);
                Cut::Send {
                    end: start + cells.min(most) * size,
                    group: None,
                    whole: true,
                    next: false,
                }
            }
        }
    }

    /// Sends what can go below now.
    fn dispatch(&mut self, now: SimTime, io: &mut LayerIo) {
        while self.writes_below < self.spec.depth {
            // C-LOOK from the cursor: the first extent at or above it, then from the
            // lowest; the first that can go now.
            let order = self
                .pending
                .range(self.cursor..)
                .chain(self.pending.range(..self.cursor));
            let mut pick = None;
            for (&start, e) in order {
                if let Cut::Send {
                    end,
                    group,
                    whole,
                    next,
                } = self.cut(now, start, e)
                {
                    pick = Some((start, end, group, whole, next));
                    break;
                }
            }
            let Some((start, end, group, whole, next)) = pick else {
                break;
            };
            self.send(now, start, end, group, whole, io);
            if next {
                let groups = self.findings.borrow().groups.len();
                self.candidate = (self.candidate + 1) % groups.max(1);
            }
        }
    }

    fn send(
        &mut self,
        now: SimTime,
        start: u64,
        end: u64,
        group: Option<usize>,
        whole: bool,
        io: &mut LayerIo,
    ) {
        let Some(e) = self.pending.remove(&start) else {
            return;
        };
        let mut carried = Vec::new();
        if end < e.end {
            // Split: the guests reaching past `end` stay held too.
            let mut rest = Vec::new();
            for &g in &e.guests {
                let Some(gs) = self.guests.get_mut(&g) else {
                    continue;
                };
                let (lo, hi) = (gs.req.lbn, gs.req.lbn + u64::from(gs.req.blocks.max(1)));
                let before = lo < end;
                let after = hi > end;
                if before {
                    carried.push(g);
                }
                if after {
                    rest.push(g);
                }
                if before && after {
                    gs.remaining += 1;
                }
            }
            self.pending.insert(
                end,
                Extent {
                    end: e.end,
                    guests: rest,
                    grew: e.grew,
                },
            );
        } else {
            carried = e.guests;
        }
        let id = self.fresh_id();
        let sectors = end - start;
        {
            let mut f = self.findings.borrow_mut();
            match (group, whole) {
                (Some(_), _) => f.probes += 1,
                (None, true) => f.stripe_writes += 1,
                (None, false) => f.partial_writes += 1,
            }
        }
        self.below.insert(
            id,
            Below {
                guests: carried,
                issued: now,
                group,
                sectors,
            },
        );
        self.writes_below += 1;
        self.cursor = end;
        io.below.push(Request {
            id,
            lbn: start,
            blocks: sectors as u32,
            write: true,
        });
    }

    /// Holds a guest write, joined with any held data it touches or overlaps.
    fn hold(&mut self, now: SimTime, req: Request) {
        let (mut lo, mut hi) = (req.lbn, req.lbn + u64::from(req.blocks.max(1)));
        let mut guests = vec![req.id];
        let touching: Vec<u64> = self
            .pending
            .range(..=hi)
            .rev()
            .take_while(|(_, e)| e.end >= lo)
            .map(|(&s, _)| s)
            .collect();
        for s in touching {
            if let Some(e) = self.pending.remove(&s) {
                lo = lo.min(s);
                hi = hi.max(e.end);
                guests.extend(e.guests);
            }
        }
        self.guests.insert(req.id, Guest::new(req));
        self.pending.insert(
            lo,
            Extent {
                end: hi,
                guests,
                grew: now,
            },
        );
    }

    /// Decides the stripe once every group is full.
    fn maybe_decide(&mut self, now: SimTime) {
        let mut f = self.findings.borrow_mut();
        if f.stripe.is_some() || f.groups.iter().any(|g| g.writes < self.spec.samples) {
            return;
        }
        f.stripe = pick_stripe(&f.groups, self.spec.rule, self.spec.margin_pct);
        f.decided_at = Some(now);
    }
}

impl Layer for RaidMimic {
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo) {
        if !req.write {
            self.findings.borrow_mut().guest_reads += 1;
            let id = self.fresh_id();
            self.guests.insert(req.id, Guest::new(req));
            self.below.insert(
                id,
                Below {
                    guests: vec![req.id],
                    issued: now,
                    group: None,
                    sectors: 0,
                },
            );
            io.below.push(Request { id, ..req });
            return;
        }
        self.findings.borrow_mut().guest_writes += 1;
        self.hold(now, req);
        if self.hold_ns > 0 {
            io.timers.push((now + self.hold_ns, 0));
        }
        self.dispatch(now, io);
    }

    fn on_complete(&mut self, now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(b) = self.below.remove(&done.req.id) else {
            return;
        };
        if done.req.write {
            self.writes_below -= 1;
        }
        if let Some(g) = b.group {
            let mut f = self.findings.borrow_mut();
            let grp = &mut f.groups[g];
            grp.bytes += b.sectors * 512;
            grp.ns += now.0 - b.issued.0;
            grp.writes += 1;
        }
        let mut first = true;
        for g in b.guests {
            let Some(gs) = self.guests.get_mut(&g) else {
                continue;
            };
            gs.remaining -= 1;
            gs.parts.absorb(done);
            if gs.remaining == 0 {
                if let Some(gs) = self.guests.remove(&g) {
                    // Its start, dispatch and breakdown over every write that carried it.
                    io.up.push(Done {
                        rider: !first,
                        unit: done.unit,
                        released: done.released,
                        ..gs.parts.done(gs.req, now)
                    });
                    first = false;
                }
            }
        }
        self.maybe_decide(now);
        self.dispatch(now, io);
    }

    fn on_timer(&mut self, now: SimTime, _token: u64, io: &mut LayerIo) {
        self.dispatch(now, io);
    }

    fn outstanding(&self) -> usize {
        self.guests.len()
    }

    fn describe(&self) -> String {
        let s = &self.spec;
        match self.findings.borrow().stripe {
            Some(st) if s.stripe_kib.is_some() => format!(
                "raid-mimic (given stripe {} KiB: whole aligned stripes up to {} KiB)",
                st / 2,
                s.max_request_kib
            ),
            _ => format!(
                "raid-mimic (discovers the stripe: sizes {}..={} KiB by {} KiB, aligned and shifted {} KiB, {} writes each, {} within {} %; then whole aligned stripes up to {} KiB)",
                s.granule_kib, s.max_kib, s.granule_kib, s.shift_kib, s.samples, s.rule.name(), s.margin_pct, s.max_request_kib
            ),
        }
    }

    fn report(&self, path: &str) -> NodeReport {
        let f = self.findings.borrow();
        let stripe = match f.stripe {
            Some(s) => format!("{} KiB", s / 2),
            None => "not yet".into(),
        };
        let mut extra = vec![
            ("stripe".to_string(), stripe),
            ("timed probes".into(), f.probes.to_string()),
            ("whole-stripe writes".into(), f.stripe_writes.to_string()),
            ("partial writes".into(), f.partial_writes.to_string()),
        ];
        if let Some(t) = f.decided_at {
            extra.push(("decided at".into(), format!("{:.3} ms", t.0 as f64 / 1e6)));
        }
        NodeReport {
            path: path.to_string(),
            kind: "raid-mimic".into(),
            reads: f.guest_reads,
            writes: f.guest_writes,
            busy_ns: 0,
            extra,
            is_drive: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::{self, RunOptions, Source};
    use crate::stack::layer::LayerNode;

    /// A left-asymmetric RAID-5 of `data + 1` thesis disks (the 9LZX of Table 3.1).
    fn raid5_toml(data: u32, chunk_kib: u64) -> String {
        format!(
            "[workload.synthetic]\nkind = \"synthetic\"\npattern = {{ kind = \"uniform\" }}\n\
             sizes = {{ kind = \"fixed\", sectors = 8 }}\nread-fraction = 1.0\n\
             arrivals = {{ kind = \"poisson\", rate-per-s = 20 }}\ncount = 1\n\
             [device]\nkind = \"raid5\"\ncount = {}\nstripe-kib = {chunk_kib}\n\
             parity-layout = \"left-asymmetric\"\n\
             [device.member]\nkind = \"disk\"\ndisk = \"mimic-base\"\n",
            data + 1
        )
    }

    /// A guest writing one long sequential run faster than any array takes it: writes
    /// of 4..=64 KiB (seeded) from a seeded 4 KiB-aligned start.
    fn run(data: u32, chunk_kib: u64, spec: &RaidMimicSpec, seed: u64, mib: u64) -> Findings {
        run_on(&raid5_toml(data, chunk_kib), spec, seed, mib)
    }

    fn run_on(toml_text: &str, spec: &RaidMimicSpec, seed: u64, mib: u64) -> Findings {
        let c = RunConfig::from_toml(toml_text, "test.toml").unwrap();
        let b = c.build().unwrap();
        let layer = spec.build().unwrap();
        let found = layer.findings();
        let mut root = LayerNode::new(Box::new(layer), b.root);
        let recs = crate::workload::sequential_guest(seed, mib);
        let mut n = 0;
        engine::run(
            &mut root,
            &b.units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |_| n += 1,
        )
        .unwrap();
        assert_eq!(n, recs.len());
        let f = found.borrow().clone();
        f
    }

    /// One guest write at sector 0 of `blocks` sectors through a layer told the
    /// stripe (3 × 16 KiB): its completion as the engine logs it.
    fn one_guest_write(blocks: u32) -> engine::RequestLog {
        let c = RunConfig::from_toml(&raid5_toml(3, 16), "test.toml").unwrap();
        let b = c.build().unwrap();
        let spec = RaidMimicSpec {
            stripe_kib: Some(48),
            ..RaidMimicSpec::default()
        };
        let mut root = LayerNode::new(Box::new(spec.build().unwrap()), b.root);
        let recs = [crate::trace::IoRecord {
            arrival: SimTime::ZERO,
            device: 0,
            lbn: 0,
            blocks,
            write: true,
            content: Vec::new(),
        }];
        let mut logs = Vec::new();
        engine::run(
            &mut root,
            &b.units,
            Source::records(&recs),
            RunOptions::default(),
            &mut |l| logs.push(*l),
        )
        .unwrap();
        assert_eq!(logs.len(), 1);
        logs.remove(0)
    }

    /// A guest write cut into several writes below reports them all: its breakdown is
    /// their sum, its start the earliest (not the last write's alone).
    #[test]
    fn a_guest_cut_into_several_writes_reports_them_all() {
        let stripe = one_guest_write(96);
        let two_and_a_bit = one_guest_write(200);
        let total = |l: &engine::RequestLog| {
            let b = l.breakdown;
            b.overhead_ns + b.seek_ns + b.rotation_ns + b.transfer_ns
        };
        assert!(
            two_and_a_bit.breakdown.transfer_ns >= 2 * stripe.breakdown.transfer_ns,
            "{:?} against one stripe's {:?}",
            two_and_a_bit.breakdown,
            stripe.breakdown
        );
        assert!(total(&two_and_a_bit) > total(&stripe));
        assert!(two_and_a_bit.start <= two_and_a_bit.done);
    }

    fn table(f: &Findings) -> Vec<String> {
        f.groups
            .iter()
            .map(|g| {
                let a = if g.aligned { "a" } else { "u" };
                format!("{}{a} {:.2}", g.size / 2, g.mb_per_s())
            })
            .collect()
    }

    /// Discovery finds the stripe of the thesis's array and of wider arrays with larger
    /// chunks without being told, for any seed (the guest's start and write sizes).
    #[test]
    fn finds_the_stripe_of_arrays_it_is_not_told() {
        let spec = RaidMimicSpec {
            max_kib: 1024,
            ..RaidMimicSpec::default()
        };
        for (data, chunk) in [(3, 16), (4, 64), (5, 64), (4, 128), (5, 128)] {
            for seed in [1, 2, 3] {
                let f = run(data, chunk, &spec, seed, 600);
                let want = u64::from(data) * chunk * 2;
                let t = table(&f);
                assert!(
                    f.decided_at.is_some(),
                    "{data}x{chunk} seed {seed}: undecided {t:?}"
                );
                assert_eq!(f.stripe, Some(want), "{data}x{chunk} seed {seed}: {t:?}");
                // The layout around the parity does not matter to discovery.
                if seed == 1 {
                    let sym = run_on(
                        &raid5_toml(data, chunk).replace("left-asymmetric", "left-symmetric"),
                        &spec,
                        seed,
                        600,
                    );
                    assert_eq!(sym.stripe, Some(want), "{data}x{chunk} left-symmetric");
                }
                // Then it writes whole aligned stripes.
                assert!(f.stripe_writes > 0, "{data}x{chunk} seed {seed}");
                let bw = pick_stripe(&f.groups, StripeRule::Bandwidth, 50.0);
                eprintln!("{data}x{chunk} seed {seed}: bandwidth rule at 50 % -> {bw:?}");
            }
        }
    }

    /// Given the stripe, a sequential guest's writes reach the array as whole aligned
    /// stripes: no read-modify-write but at the run's two ends.
    #[test]
    fn a_given_stripe_turns_a_stream_into_whole_stripe_writes() {
        for seed in [4, 5, 6] {
            let spec = RaidMimicSpec {
                stripe_kib: Some(48),
                ..RaidMimicSpec::default()
            };
            let c = RunConfig::from_toml(&raid5_toml(3, 16), "test.toml").unwrap();
            let b = c.build().unwrap();
            let mut root = LayerNode::new(Box::new(spec.build().unwrap()), b.root);
            let recs = crate::workload::sequential_guest(seed, 20);
            engine::run(
                &mut root,
                &b.units,
                Source::records(&recs),
                RunOptions::default(),
                &mut |_| {},
            )
            .unwrap();
            let mut nodes = Vec::new();
            crate::node::Device::report(&root, "stack", &mut nodes);
            let raid = nodes.iter().find(|n| n.kind == "raid5").unwrap();
            let rmw = raid
                .extra
                .iter()
                .find(|(k, _)| k == "read-modify-writes")
                .map(|(_, v)| v.parse::<u64>().unwrap())
                .unwrap();
            assert!(rmw <= 2, "seed {seed}: {rmw} read-modify-writes");
            assert!(raid.writes > 10, "seed {seed}");
        }
    }

    /// The layer as a user writes it in a run's TOML, and values it cannot honour
    /// refused by name.
    #[test]
    fn configured_from_toml_and_bad_values_refused_by_name() {
        let t = format!(
            "{}[[layer]]\nkind = \"raid-mimic\"\nmax-kib = 256\nmargin-pct = 20\n",
            raid5_toml(3, 16)
        );
        let c = RunConfig::from_toml(&t, "test.toml").unwrap();
        let s = c.describe_stack().unwrap();
        assert!(s.contains("raid-mimic (discovers the stripe"), "{s}");
        assert!(s.contains("left-asymmetric"), "{s}");
        for (key, bad) in [
            ("granule-kib", "0"),
            ("max-kib", "100000"),
            ("samples", "0"),
            ("margin-pct", "100"),
            ("hold-us", "-1"),
            ("depth", "0"),
            ("stripe-kib", "0"),
        ] {
            let t = format!(
                "{}[[layer]]\nkind = \"raid-mimic\"\n{key} = {bad}\n",
                raid5_toml(3, 16)
            );
            let e = match RunConfig::from_toml(&t, "test.toml") {
                Ok(c) => c.build().err().map(|e| e.to_string()).unwrap_or_default(),
                Err(e) => e.to_string(),
            };
            assert!(e.contains(key), "{key} = {bad}: {e}");
        }
    }
}
