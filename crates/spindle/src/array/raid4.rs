//! A RAID-4 group of simulated disks that stores real bytes (ALG-PROX-DLE, PROX-EQ4):
//! parity on the last member, a 64-byte checksum/generation/identity entry for every
//! 4 KiB block packed 63 to a checksum block, parity updated by subtraction
//! (read-modify-write) or addition (reconstruct-write), whichever reads fewer members.
//!
//! Every read is verified; a block that fails verification is reported and rebuilt from
//! the rest of its stripe row, then written back. A failed member is served from parity
//! (degraded mode) until a rebuild onto a replacement restores it; a second failure in
//! that window is reported and the rows it takes are refused, never guessed.
//!
//! The expected write generation of every block is host metadata (the layer above keeps
//! it in its block pointers, as WAFL and ZFS do); it is what lets a read tell a lost
//! write, even one whose checksum-block update was lost too, from current data. Being
//! the parent's metadata it is durable: a power cut does not lose it, so recovery never
//! rebuilds it from checksum blocks (a lost or damaged one would make its rows look
//! never written, and a lost data write whose checksum-block write was lost too would
//! verify again).
//!
//! Power cuts (decision): a write is acknowledged when its batch returns with the power
//! on (with `sync_writes` off, once the drives have also destaged it); acknowledged
//! writes are never revisited. For the blocks that may have been cut off — the rows
//! the caller's intent names in `recover_after_crash` — the array keeps, as part of
//! that intent, each block's old and new generation and checksum entry (`InDoubt`; the
//! layer above knows the data's before it issues the batch, the parity's are the
//! array's own, as a RAID with a write journal logs them; no simulated I/O). Recovery
//! settles each block of those rows to a version it can prove: bytes that match the
//! old or new entry (or the on-disk entry of a generation it may have), or bytes
//! rebuilt from a parity proven at one version with every other member known at that
//! same version. A block it cannot prove is marked lost: its reads are refused until
//! it is written again, never answered with bytes that may be stale or zeros. The rows
//! are then stamped with generations above any they ever had (no older copy verifies
//! again) and parity is recomputed.
//!
//! A batch of user writes runs in two phases on every member: all the reads it needs
//! (old data, old parity, checksum blocks), then all its writes, each phase one strand
//! per member in ascending LBN with at most `max_outstanding` at the drive. Decision
//! (the paper is silent): the write phase starts when the whole read phase is done, so
//! data members do not run ahead of the parity member; the parity member, which needs
//! every read, is on the critical path either way.

use super::checksum::{ChecksumBlock, ChecksumBlockError, Entry, Owner};
use super::error::ArrayError;
use super::faults::FaultInjector;
use super::layout::{
    checksum_block, checksum_slot, data_block, row_of_block, zone_of, Layout, Place, DATA_PER_ZONE,
    ZONE_BLOCKS,
};
use super::members::{default_member_queue, DiskActivity, Done, Executor, Io, Member, TAG_REPAIR};
use crate::array::layout::ParityLayout;
use crate::disk::drive::Drive;
use crate::disk::params::DiskParams;
use crate::parts::queue::QueueSpec;
use crate::store::{xor_into, zero_block, Block, BlockStore, DataMode, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rand::Rng;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Shape of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Raid4Config {
    /// Data members; one more member holds parity (the paper: 4+1).
    pub data_disks: usize,
    /// Stripe unit in 4 KiB blocks: 256 (1 MB) for nearline, 128 (512 KB) for
    /// enterprise drives (ALG-PROX-DLE).
    pub stripe_unit_blocks: u64,
    /// Requests outstanding at each drive (the paper: at most 8).
    pub max_outstanding: usize,
    /// Contiguous block reads queued together on a member go to the drive as one
    /// request of up to this many 4 KiB blocks. Decision: 512 (2 MB), so that a
    /// stripe unit of 1 MB (the paper's largest per-disk I/O) and the checksum blocks
    /// among it go as one request. Writes always go block by block, as the paper
    /// counts them.
    #[serde(default = "default_max_read_blocks")]
    pub max_read_blocks: u32,
    /// Such a request also reads through gaps of up to this many unwanted blocks
    /// rather than split (cheaper than a lost revolution for small gaps). Decision:
    /// 64, one checksum zone, so a run of data and the checksum block closing its zone
    /// go as one request and the drive's read-ahead continues right after them.
    #[serde(default)]
    pub read_gap_blocks: u64,
    /// Real bytes (default) or timing only (same I/Os, no contents kept).
    #[serde(default)]
    pub data: DataMode,
    /// Whether a write batch ends with a cache flush on every member, so that it is on
    /// the media when it returns (matters only for drives with a write cache).
    /// Default on: the layout engine must know a destage is durable before it points
    /// its metadata at the new locations and frees the staging copies. Off, a batch
    /// returns once the drives have buffered its writes (a RAID layer that trusts the
    /// drives' caches, as PROX-T2's baseline row).
    #[serde(default = "default_sync_writes")]
    pub sync_writes: bool,
}

fn default_sync_writes() -> bool {
    true
}

/// I/Os sorted by member and block (each member's strand in ascending LBN), one per
/// block.
fn one_per_block(mut ios: Vec<Io>) -> Vec<Io> {
    ios.sort_by_key(|io| (io.disk, io.block));
    ios.dedup_by_key(|io| (io.disk, io.block));
    ios
}

fn default_max_read_blocks() -> u32 {
    512
}

impl Default for Raid4Config {
    fn default() -> Self {
        Raid4Config {
            data_disks: 4,
            stripe_unit_blocks: 256,
            max_outstanding: 8,
            max_read_blocks: 512,
            read_gap_blocks: 64,
            data: DataMode::RealBytes,
            sync_writes: true,
        }
    }
}

/// Health of one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MemberState {
    Healthy,
    Failed,
    /// A replacement being rebuilt: rows below `next_row` hold valid contents.
    Rebuilding {
        next_row: u64,
    },
}

/// What a verification failure pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FaultKind {
    /// The data does not match its checksum entry (bit rot, a lost or stray write).
    DataMismatch,
    /// The entry is intact but older than the expected generation (a lost write of the
    /// checksum block) or describes another block.
    StaleMetadata,
    /// The checksum block fails its own checksum.
    ChecksumBlockCorrupt,
    /// The checksum block belongs elsewhere (a misdirected write landed on it).
    ChecksumBlockMisplaced,
}

/// One detected fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Detection {
    pub disk: usize,
    /// Physical 4 KiB block on the member.
    pub block: u64,
    pub kind: FaultKind,
    pub repaired: bool,
}

/// What one batch did (the columns of PROX-T2).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BatchReport {
    pub start_ns: u64,
    pub end_ns: u64,
    /// When a write batch's planned reads (old data, parity, checksum blocks) had all
    /// completed (its start if it read nothing); a read batch's end.
    pub reads_done_ns: u64,
    pub user_writes: u64,
    pub user_reads: u64,
    /// Per member, parity last.
    #[serde(skip)]
    pub disks: Vec<DiskActivity>,
    pub detections: u64,
    pub repairs: u64,
}

impl BatchReport {
    pub fn response_ms(&self) -> f64 {
        (self.end_ns - self.start_ns) as f64 / 1e6
    }

    /// Milliseconds from the batch's start to its last read's completion.
    pub fn read_phase_ms(&self) -> f64 {
        self.reads_done_ns.saturating_sub(self.start_ns) as f64 / 1e6
    }

    pub fn disk_ios(&self) -> u64 {
        self.disks.iter().map(|d| d.ios()).sum()
    }

    /// Disk I/Os per user write.
    pub fn amplification(&self) -> f64 {
        self.disk_ios() as f64 / self.user_writes.max(1) as f64
    }
}

/// PROX-T2's "I/Os per revolution" of write batches (ambiguity P9, settled): the I/Os
/// of a mean disk, the mean of a data disk's I/Os per batch (over the data disks that
/// did I/O) and the parity disk's, over the batch's response time in revolutions. On
/// the paper's own columns this gives every row of its Table 2 to within 0.08.
pub fn ios_per_revolution(data_ios: f64, parity_ios: f64, resp_ms: f64, rev_ms: f64) -> f64 {
    (data_ios + parity_ios) / 2.0 * rev_ms / resp_ms.max(1e-9)
}

/// A RAID-4 group.
#[derive(Clone, Debug)]
pub struct Raid4 {
    layout: Layout,
    cfg: Raid4Config,
    params: DiskParams,
    /// Each member's host queue (scheduler) over its drive.
    member_queue: QueueSpec,
    /// A fresh drive as `params` builds it, cloned for each replacement (building one
    /// from the parameters is costly, and a campaign replaces drives often).
    spare: Drive,
    members: Vec<Member>,
    state: Vec<MemberState>,
    /// Expected write generation per block owner (0: never written).
    gens: FxHashMap<Owner, u64>,
    /// Rows that hold any written data or parity.
    rows_in_use: BTreeSet<u64>,
    /// Per stripe row with writes that may not be on the media yet: every version each
    /// written block may hold after a power cut (see the module comment).
    in_doubt: BTreeMap<u64, FxHashMap<Owner, Vec<Version>>>,
    /// Write batches issued (numbers the versions in `in_doubt`).
    batch_seq: u64,
    /// Volume blocks whose stored bytes a recovery could not prove to be any version
    /// written (reads are refused until the block is written again).
    lost: FxHashSet<u64>,
    /// Blocks recoveries have marked lost, in all.
    lost_by_recovery: u64,
    /// Whether rows that hold more faults than parity can repair are settled (see
    /// `settle_row`); off by default.
    pub heal: bool,
    /// Rows settled and blocks they marked lost, in all.
    settled: Settlements,
    pub faults: FaultInjector,
    now: SimTime,
    detections: Vec<Detection>,
    /// Test hook: every executor's clock starts far ahead of its members, so the
    /// first member event breaks the time invariant (tests of the error path).
    #[cfg(test)]
    pub(crate) break_clock: bool,
}

/// A write batch's rows and read phase (see `plan_writes`).
struct WritePlan {
    /// Per stripe row: (member, volume block) of every block written.
    by_row: BTreeMap<u64, Vec<(usize, u64)>>,
    /// Rows whose parity is updated by subtraction (read-modify-write).
    rmw_rows: FxHashSet<u64>,
    /// Member blocks the read phase reads.
    want: Vec<Place>,
    /// Checksum blocks (member, zone) it reads besides those of `want`.
    meta: Vec<(usize, u64)>,
}

/// One version a block may hold on the media after a power cut.
#[derive(Clone, Copy, Debug)]
struct Version {
    /// The write batch that wrote it; 0: the version durable before the batches in
    /// doubt. Parity written by batch `seq` encodes each data block's version with the
    /// largest `seq` not above it.
    seq: u64,
    generation: u64,
    /// Its checksum entry; `None`: all zeros (generation 0) or not at hand.
    entry: Option<Entry>,
    /// Bytes a recovery could not prove (reads of this version are refused).
    lost: bool,
}

/// What `settle_row` has done, in all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Settlements {
    /// Rows settled: each held blocks no parity could rebuild, and is consistent again.
    pub rows: u64,
    /// Blocks those settlements marked lost (refused until written again).
    pub blocks_lost: u64,
    /// Lost blocks written again (their reads are served from then on).
    pub blocks_rewritten: u64,
}

/// A block's contents as a recovery settles them: the bytes, and whether they are lost.
type Settled = Option<(Block, bool)>;

/// Raw results of one read round: member bytes and decoded checksum blocks.
#[derive(Default)]
struct Fetch {
    data: FxHashMap<Place, Block>,
    meta: FxHashMap<(usize, u64), Result<ChecksumBlock, ChecksumBlockError>>,
    /// The entries of checksum blocks that failed their own checksum (see
    /// `ChecksumBlock::salvage`).
    salvaged: FxHashMap<(usize, u64), ChecksumBlock>,
    /// Checksum zones `repair_zone` has regenerated in this operation: what it could
    /// not repair then it cannot now (nothing has changed but its own writes), so a
    /// second row of the zone that fails is refused at once rather than regenerating
    /// the zone again (that made a zone with many unrecoverable rows quadratic).
    repaired: FxHashSet<(usize, u64)>,
}

/// A block that passed verification: zeros (never written), or its fetched bytes and
/// the entry they matched.
enum Verified<'f> {
    Zeros,
    Bytes(&'f Block, Entry),
}

impl Verified<'_> {
    fn into_block(self) -> Block {
        match self {
            Verified::Zeros => zero_block(),
            Verified::Bytes(b, _) => b.clone(),
        }
    }
}

/// Rotational phase of member `i` at time zero: spindles of an array are not
/// synchronized. Decision: spread by the golden ratio, deterministic without a seed.
fn member_phase(i: usize) -> f64 {
    (i as f64 * 0.618_033_988_75).fract()
}

impl Raid4 {
    /// A group whose members queue in issue order (FCFS, `max_outstanding` at each
    /// drive).
    pub fn new(params: DiskParams, cfg: Raid4Config) -> Result<Raid4, ArrayError> {
        let queue = default_member_queue(cfg.max_outstanding);
        Raid4::with_member_queue(params, cfg, queue)
    }

    /// A group whose every member has a host queue built from `queue` (any scheduler:
    /// SMTF, SPTF, C-LOOK, …) over its drive.
    pub fn with_member_queue(
        params: DiskParams,
        cfg: Raid4Config,
        queue: QueueSpec,
    ) -> Result<Raid4, ArrayError> {
        let drive = Drive::new(params.clone()).map_err(|e| ArrayError::Disk(e.to_string()))?;
        let member_blocks = drive.hdd().capacity() / SECTORS_PER_BLOCK;
        let layout = Layout::new(cfg.data_disks, cfg.stripe_unit_blocks, member_blocks);
        if layout.rows == 0 {
            return Err(ArrayError::StripeUnitTooLarge {
                disk: params.name.clone(),
                data_blocks: Layout::data_rows_of(member_blocks),
                unit_blocks: cfg.stripe_unit_blocks,
            });
        }
        let members = (0..layout.members())
            .map(|i| {
                let mut drive = drive.clone();
                drive.hdd_mut().set_spindle_phase(member_phase(i));
                Member::new(drive, &queue, i).map_err(ArrayError::Disk)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Raid4 {
            layout,
            cfg,
            params,
            spare: drive,
            member_queue: queue,
            members,
            state: vec![MemberState::Healthy; layout.members()],
            gens: FxHashMap::default(),
            rows_in_use: BTreeSet::new(),
            in_doubt: BTreeMap::new(),
            batch_seq: 0,
            lost: FxHashSet::default(),
            lost_by_recovery: 0,
            heal: false,
            settled: Settlements::default(),
            faults: FaultInjector::none(),
            now: SimTime::ZERO,
            detections: Vec::new(),
            #[cfg(test)]
            break_clock: false,
        })
    }

    /// The same group as a RAID-5: parity rotates stripe by stripe, its data units
    /// placed around it as `layout` says (left-asymmetric, the thesis's Figure 6.1, or
    /// left-symmetric, Linux md's default); every other mechanism (checksums,
    /// read-modify-write, degraded reads, rebuild, recovery) works row by row on the
    /// row's own parity member. Only on a group that holds nothing yet.
    pub fn rotating_parity(mut self, layout: ParityLayout) -> Result<Raid4, ArrayError> {
        if !self.rows_in_use.is_empty() {
            return Err(ArrayError::Disk(
                "the parity layout can change only before anything is written".into(),
            ));
        }
        self.layout.rotation = Some(layout);
        Ok(self)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn config(&self) -> &Raid4Config {
        &self.cfg
    }

    pub fn disk_params(&self) -> &DiskParams {
        &self.params
    }

    /// Simulated time now (the end of the last batch).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Lets the group sit idle until `t` (no effect if `t` has passed).
    pub fn idle_until(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }

    pub fn state(&self, disk: usize) -> Option<MemberState> {
        self.state.get(disk).copied()
    }

    /// What row settlements have done (see `heal`), in all.
    pub fn settlements(&self) -> Settlements {
        self.settled
    }

    /// Volume blocks whose reads are refused until they are written again (lost in a
    /// power cut or pinned by a settlement).
    pub fn lost_blocks(&self) -> usize {
        self.lost.len()
    }

    /// Blocks power-cut recoveries could not prove to hold any version written (each
    /// refused until written again), in all.
    pub fn lost_by_recovery(&self) -> u64 {
        self.lost_by_recovery
    }

    /// Every fault detected so far.
    pub fn detections(&self) -> &[Detection] {
        &self.detections
    }

    /// Blocks the members' drives have acknowledged but hold only in their write
    /// caches (0 after every batch with `sync_writes`).
    pub fn buffered_blocks(&self) -> usize {
        self.members.iter().map(|m| m.buffered_blocks()).sum()
    }

    /// The members: each a host queue over a drive, and its bytes.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The member's stored bytes (for tests and fault injection).
    pub fn member_store_mut(&mut self, disk: usize) -> Option<&mut BlockStore> {
        self.members.get_mut(disk).map(|m| &mut m.store)
    }

    fn owner(&self, p: Place) -> Owner {
        if p.disk == self.layout.parity_of(p.row) {
            Owner::Parity(p.row)
        } else {
            Owner::Data(self.layout.volume_block(p))
        }
    }

    fn gen(&self, p: Place) -> u64 {
        self.gens.get(&self.owner(p)).copied().unwrap_or(0)
    }

    /// Whether `e` describes `p` (owner, member, row) at `generation`.
    fn entry_fits(&self, e: &Entry, p: Place, generation: u64) -> bool {
        e.generation == generation
            && e.owner == self.owner(p)
            && e.disk == p.disk as u32
            && e.row == p.row
    }

    /// Whether `p` holds a data block a recovery marked lost.
    fn is_lost(&self, p: Place) -> bool {
        match self.owner(p) {
            Owner::Data(v) => self.lost.contains(&v),
            Owner::Parity(_) => false,
        }
    }

    /// Forgets the versions of rows whose writes are all on the media (every drive's
    /// cache holds none of their blocks): with `sync_writes`, every row after a batch.
    fn prune_in_doubt(&mut self) {
        if self.buffered_blocks() == 0 {
            self.in_doubt.clear();
            return;
        }
        let members = &self.members;
        self.in_doubt.retain(|&row, _| {
            members
                .iter()
                .any(|m| m.is_buffered(data_block(row)) || m.is_buffered(checksum_block(row)))
        });
    }

    fn readable(&self, p: Place) -> bool {
        match self.state[p.disk] {
            MemberState::Healthy => true,
            MemberState::Failed => false,
            MemberState::Rebuilding { next_row } => p.row < next_row,
        }
    }

    fn zone_readable(&self, disk: usize, zone: u64) -> bool {
        self.readable(Place {
            disk,
            row: zone * DATA_PER_ZONE + DATA_PER_ZONE - 1,
        })
    }

    /// Locations the fault injector damaged that still hold something a read would
    /// check (what a final scrub left unrepaired).
    pub fn damaged_in_use(&self) -> u64 {
        self.faults
            .damaged()
            .into_iter()
            .filter(|&(d, b)| self.location_in_use(d, b))
            .count() as u64
    }

    /// Whether a physical location holds something a read would check: a written
    /// block or the checksum block of a zone in use (for fault-injection accounting).
    pub fn location_in_use(&self, disk: usize, block: u64) -> bool {
        if disk >= self.members.len() || self.state[disk] == MemberState::Failed {
            return false;
        }
        let zone = block / ZONE_BLOCKS;
        let slot = block % ZONE_BLOCKS;
        let rows = zone * DATA_PER_ZONE..(zone + 1) * DATA_PER_ZONE;
        if slot == DATA_PER_ZONE {
            rows.clone().any(|row| self.gen(Place { disk, row }) > 0)
        } else {
            self.gen(Place {
                disk,
                row: zone * DATA_PER_ZONE + slot,
            }) > 0
        }
    }

    fn new_exec(&self) -> Executor {
        self.write_exec().merge_up_to(self.cfg.max_read_blocks, 1)
    }

    /// The executor of a write batch: each block its own disk I/O, reads included, as
    /// the paper counts them (PROX-EQ4's 8 I/Os per single-block update).
    fn write_exec(&self) -> Executor {
        #[allow(unused_mut)]
        let mut e = Executor::new(&self.members, self.now);
        #[cfg(test)]
        if self.break_clock {
            e.skew_clock(SimTime(self.now.0 + 1_000_000_000_000));
        }
        match self.cfg.data {
            DataMode::RealBytes => e,
            DataMode::TimingOnly => e.without_bytes(),
        }
    }

    /// Runs block I/Os to completion; writes among them are on the media when it
    /// returns (with `sync_writes`).
    fn run(&mut self, exec: &mut Executor, ios: Vec<Io>) -> Result<Vec<Done>, ArrayError> {
        let ios = one_per_block(ios);
        let writes = ios.iter().any(|io| io.write);
        exec.issue(&mut self.members, ios);
        self.drain(exec, writes)
    }

    /// Runs the executor until idle, then (with `sync_writes`, when the I/Os included
    /// writes) flushes the drives' caches.
    fn drain(&mut self, exec: &mut Executor, writes: bool) -> Result<Vec<Done>, ArrayError> {
        let done = exec.drain(&mut self.members, &mut self.faults, None)?;
        if writes && self.cfg.sync_writes {
            exec.sync_caches(&mut self.members, &mut self.faults);
        }
        Ok(done)
    }

    /// Runs a write batch's writes after its reads, then (with `sync_writes`) flushes
    /// the drives' caches. The host sends a write once the reads it depends on are
    /// done: a data or parity block once every read of its stripe row is done (data,
    /// parity and the checksum blocks that verify them: the row's parity arithmetic
    /// uses only verified blocks), a checksum block once the rows it describes on that
    /// member are, and never before its member's own reads are all done, so each
    /// member gets a read strand, then a write strand (§4.4: the RAID layer controls
    /// each disk's queue). A data disk therefore need not idle while the parity disk
    /// reads other rows. Without `own_reads_suffice` (a read needed repair from other
    /// members) every write waits for all reads.
    fn run_writes(
        &mut self,
        exec: &mut Executor,
        ios: Vec<Io>,
        start: SimTime,
        own_reads_suffice: bool,
    ) -> Result<(), ArrayError> {
        let all_read = exec.now;
        let members = self.members.len();
        // A row's old data and parity are verified against their checksum entries
        // before the parity arithmetic, so the row's update waits for those reads too.
        let row_read = |row: u64| {
            (0..members)
                .flat_map(|d| {
                    [
                        exec.read_done_at(d, data_block(row)),
                        exec.read_done_at(d, checksum_block(row)),
                    ]
                })
                .flatten()
                .max()
                .unwrap_or(start)
        };
        // Per (member, zone): when the rows it writes there were read. Sorted by
        // block, a zone's data blocks come before its checksum block.
        let mut zone_ready: FxHashMap<(usize, u64), SimTime> = FxHashMap::default();
        let mut timed: Vec<(SimTime, Io)> = Vec::with_capacity(ios.len());
        for io in one_per_block(ios) {
            let zone = (io.disk, io.block / ZONE_BLOCKS);
            let at = match row_of_block(io.block) {
                _ if !own_reads_suffice => all_read,
                None => zone_ready.get(&zone).copied().unwrap_or(start),
                Some(row) => {
                    let at = row_read(row);
                    let z = zone_ready.entry(zone).or_insert(start);
                    *z = (*z).max(at);
                    at
                }
            };
            let own = exec.last_done(io.disk).unwrap_or(start);
            timed.push((at.max(own), io));
        }
        exec.issue_timed(timed);
        self.drain(exec, true).map(|_| ())
    }

    /// Reads the data of `want` (where written and readable) and the checksum blocks of
    /// their zones and of `meta`, adding to `f`.
    fn fetch(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        want: &[Place],
        meta: &[(usize, u64)],
    ) -> Result<(), ArrayError> {
        let mut ios = Vec::new();
        let mut zones: FxHashSet<(usize, u64)> = meta.iter().copied().collect();
        for &p in want {
            // Never-written blocks are read too, as an array that does not know
            // which blocks hold data would; their contents count as zeros.
            if !self.readable(p) {
                continue;
            }
            zones.insert((p.disk, zone_of(p.row)));
            if !f.data.contains_key(&p) {
                ios.push(Io {
                    disk: p.disk,
                    block: data_block(p.row),
                    write: false,
                    data: None,
                    tag: 0,
                    sector: None,
                });
            }
        }
        for &(disk, zone) in &zones {
            if self.zone_readable(disk, zone) && !f.meta.contains_key(&(disk, zone)) {
                ios.push(Io {
                    disk,
                    block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                    write: false,
                    data: None,
                    tag: 0,
                    sector: None,
                });
            }
        }
        for d in self.run(exec, ios)? {
            let Some(bytes) = d.data else { continue };
            let zone = d.block / ZONE_BLOCKS;
            let slot = d.block % ZONE_BLOCKS;
            if slot == DATA_PER_ZONE {
                let cb = ChecksumBlock::decode(&bytes, d.disk as u32, zone);
                if cb == Err(ChecksumBlockError::Corrupt) {
                    f.salvaged
                        .insert((d.disk, zone), ChecksumBlock::salvage(&bytes));
                }
                f.meta.insert((d.disk, zone), cb);
            } else {
                f.data.insert(
                    Place {
                        disk: d.disk,
                        row: zone * DATA_PER_ZONE + slot,
                    },
                    bytes,
                );
            }
        }
        Ok(())
    }

    /// Checks fetched bytes of `p` against its entry and the expected generation.
    fn verify(&self, f: &Fetch, p: Place) -> Result<Block, (u64, FaultKind)> {
        self.verify_ref(f, p).map(Verified::into_block)
    }

    /// `verify` without copying the block: the fetched bytes and the entry they
    /// matched (repairs touch every row of a zone, so copies there add up).
    fn verify_ref<'f>(&self, f: &'f Fetch, p: Place) -> Result<Verified<'f>, (u64, FaultKind)> {
        let g = self.gen(p);
        if g == 0 {
            return Ok(Verified::Zeros);
        }
        let cb_at = checksum_block(p.row);
        let cb = match f.meta.get(&(p.disk, zone_of(p.row))) {
            Some(Ok(cb)) => cb,
            Some(Err(ChecksumBlockError::Corrupt)) => {
                return Err((cb_at, FaultKind::ChecksumBlockCorrupt))
            }
            Some(Err(ChecksumBlockError::Misplaced)) => {
                return Err((cb_at, FaultKind::ChecksumBlockMisplaced))
            }
            None => return Err((cb_at, FaultKind::StaleMetadata)),
        };
        let owner = self.owner(p);
        match cb.entries[checksum_slot(p.row)] {
            Some(e)
                if e.generation == g
                    && e.owner == owner
                    && e.disk == p.disk as u32
                    && e.row == p.row =>
            {
                match f.data.get(&p) {
                    Some(d) if e.matches(&d[..]) => Ok(Verified::Bytes(d, e)),
                    _ => Err((data_block(p.row), FaultKind::DataMismatch)),
                }
            }
            _ => Err((cb_at, FaultKind::StaleMetadata)),
        }
    }

    /// The entry that describes the current contents of `p`: its owner, place and
    /// expected generation, from its checksum block or, with `salvage`, if that block
    /// fails its own checksum, salvaged from it (then it may be damaged: use it only
    /// to confirm bytes it matches). `None` when no such entry is at hand (the
    /// block's metadata was lost or is older than its last write).
    fn current_entry(&self, f: &Fetch, p: Place, salvage: bool) -> Option<Entry> {
        let key = (p.disk, zone_of(p.row));
        let cb = match f.meta.get(&key) {
            Some(Ok(cb)) => cb,
            Some(Err(ChecksumBlockError::Corrupt)) if salvage => f.salvaged.get(&key)?,
            _ => return None,
        };
        let g = self.gen(p);
        cb.entries[checksum_slot(p.row)].filter(|e| {
            g > 0
                && e.generation == g
                && e.owner == self.owner(p)
                && e.disk == p.disk as u32
                && e.row == p.row
        })
    }

    /// `verify`, except that a block whose checksum block fails its own checksum still
    /// passes when its salvaged entry (current generation, identity) matches its bytes:
    /// as strong a check as an intact entry. For rebuilding from the rest of a row;
    /// reads still report the damaged checksum block.
    fn verify_salvaging_ref<'f>(
        &self,
        f: &'f Fetch,
        p: Place,
    ) -> Result<Verified<'f>, (u64, FaultKind)> {
        match self.verify_ref(f, p) {
            Err((at, FaultKind::ChecksumBlockCorrupt)) => {
                match (self.current_entry(f, p, true), f.data.get(&p)) {
                    (Some(e), Some(d)) if e.matches(&d[..]) => Ok(Verified::Bytes(d, e)),
                    _ => Err((at, FaultKind::ChecksumBlockCorrupt)),
                }
            }
            r => r,
        }
    }

    /// The current contents of `p`: verified from its member, or rebuilt from the rest
    /// of the row when the member is down or the block fails verification (then the
    /// fault is logged and repaired on the member).
    fn logical(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        p: Place,
    ) -> Result<Block, ArrayError> {
        if self.gen(p) == 0 {
            return Ok(zero_block());
        }
        if !self.readable(p) {
            return self.reconstruct(exec, f, p);
        }
        if !f.meta.contains_key(&(p.disk, zone_of(p.row))) || !f.data.contains_key(&p) {
            self.fetch(exec, f, &[p], &[])?;
        }
        match self.verify(f, p) {
            Ok(b) => Ok(b),
            Err((block, FaultKind::DataMismatch)) => {
                let fixed = self.reconstruct(exec, f, p);
                let repaired = fixed.is_ok();
                self.detections.push(Detection {
                    disk: p.disk,
                    block,
                    kind: FaultKind::DataMismatch,
                    repaired,
                });
                let fixed = fixed?;
                self.run(
                    exec,
                    vec![Io {
                        disk: p.disk,
                        block,
                        write: true,
                        data: Some(fixed.clone()),
                        tag: TAG_REPAIR,
                        sector: None,
                    }],
                )?;
                f.data.insert(p, fixed.clone());
                Ok(fixed)
            }
            Err((block, kind)) if f.repaired.contains(&(p.disk, zone_of(p.row))) => {
                self.detections.push(Detection {
                    disk: p.disk,
                    block,
                    kind,
                    repaired: false,
                });
                Err(ArrayError::Unrecoverable {
                    row: p.row,
                    why: format!(
                        "member {} still fails verification after its zone was repaired ({kind:?})",
                        p.disk
                    ),
                })
            }
            Err((block, kind)) => {
                let fixed = self.repair_zone(exec, f, p.disk, zone_of(p.row));
                self.detections.push(Detection {
                    disk: p.disk,
                    block,
                    kind,
                    repaired: fixed.is_ok(),
                });
                fixed?;
                self.verify(f, p)
                    .map_err(|(_, k)| ArrayError::Unrecoverable {
                        row: p.row,
                        why: format!(
                            "member {} still fails verification after repair ({k:?})",
                            p.disk
                        ),
                    })
            }
        }
    }

    /// Rebuilds `p` from the other members of its row (each verified). Refuses rather
    /// than guesses when another member of the row is missing or also bad.
    fn reconstruct(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        p: Place,
    ) -> Result<Block, ArrayError> {
        let others: Vec<Place> = (0..self.members.len())
            .filter(|&d| d != p.disk)
            .map(|disk| Place { disk, row: p.row })
            .collect();
        if let Some(q) = others.iter().find(|&&q| !self.readable(q)) {
            return Err(ArrayError::Unrecoverable {
                row: p.row,
                why: format!("members {} and {} are both unavailable", p.disk, q.disk),
            });
        }
        self.fetch(exec, f, &others, &[])?;
        let mut acc = zero_block();
        // A member whose metadata is bad but whose data may be fine is used on trial:
        // the result is then accepted only if it matches the target's intact entry.
        let mut on_trial = None;
        let mut bad_data = None;
        for q in others {
            match self.verify_salvaging_ref(f, q) {
                Ok(Verified::Bytes(b, _)) => xor_into(&mut acc, b),
                Ok(Verified::Zeros) => {}
                Err((_, kind)) if kind != FaultKind::DataMismatch && f.data.contains_key(&q) => {
                    if let Some(raw) = f.data.get(&q) {
                        xor_into(&mut acc, raw);
                    }
                    on_trial = Some((q.disk, kind));
                }
                Err((_, FaultKind::DataMismatch)) if bad_data.is_none() => bad_data = Some(q),
                Err((_, kind)) => {
                    return Err(ArrayError::Unrecoverable {
                        row: p.row,
                        why: format!("member {} also fails verification ({kind:?})", q.disk),
                    })
                }
            }
        }
        if let Some(q) = bad_data {
            // Another member's data is bad but its entry is intact. If `p`'s own bytes,
            // put on trial, rebuild that member to what its entry says, both stand.
            let p_raw = f.data.get(&p).filter(|_| on_trial.is_none());
            let q_entry = self.current_entry(f, q, false);
            return match (p_raw, q_entry) {
                (Some(raw), Some(e)) => {
                    let mut q_rebuilt = acc.clone();
                    xor_into(&mut q_rebuilt, raw);
                    if e.matches(&q_rebuilt[..]) {
                        Ok(raw.clone())
                    } else {
                        Err(ArrayError::Unrecoverable {
                            row: p.row,
                            why: format!(
                                "members {} and {} both fail verification",
                                p.disk, q.disk
                            ),
                        })
                    }
                }
                _ => Err(ArrayError::Unrecoverable {
                    row: p.row,
                    why: format!("member {} also fails verification (DataMismatch)", q.disk),
                }),
            };
        }
        if self.gen(p) == 0 {
            return Ok(zero_block());
        }
        // A member on trial is vouched for only by the target's own current entry.
        // A row being parity-consistent proves nothing: when the data write and the
        // parity write of one update are both lost, the row is consistent at the
        // older version (zeros, if it was the first write).
        let entry_ok = match self.current_entry(f, p, false) {
            Some(e) => Some(e.matches(&acc[..])),
            None => self
                .current_entry(f, p, true)
                .filter(|e| e.matches(&acc[..]))
                .map(|_| true),
        };
        match (entry_ok, on_trial) {
            (Some(false), _) => Err(ArrayError::Unrecoverable {
                row: p.row,
                why: format!(
                    "the rebuilt block of member {} disagrees with its checksum",
                    p.disk
                ),
            }),
            (None, Some((q, kind))) => Err(ArrayError::Unrecoverable {
                row: p.row,
                why: format!(
                    "member {} cannot be checked ({kind:?}) and member {q} has no usable metadata",
                    p.disk
                ),
            }),
            _ => Ok(acc),
        }
    }

    /// Regenerates a member's checksum block for one zone: every written row of the
    /// zone is checked against the old entries where they are usable and rebuilt from
    /// its row otherwise; bad data blocks and the new checksum block are written back.
    /// Rows that cannot be rebuilt are left without an entry (their reads are refused).
    fn repair_zone(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        disk: usize,
        zone: u64,
    ) -> Result<(), ArrayError> {
        let rows: Vec<Place> = (zone * DATA_PER_ZONE..(zone + 1) * DATA_PER_ZONE)
            .map(|row| Place { disk, row })
            .filter(|&p| self.gen(p) > 0)
            .collect();
        self.fetch(exec, f, &rows, &[(disk, zone)])?;
        let mut cb = ChecksumBlock::default();
        let mut writes = Vec::new();
        for p in rows {
            let content = match self.verify_salvaging_ref(f, p) {
                // The entry that matched is the one `Entry::describe` would make (same
                // owner, place, generation and bytes), and the bytes are already in
                // `f`: nothing to copy or hash again.
                Ok(Verified::Bytes(_, e)) => {
                    cb.entries[checksum_slot(p.row)] = Some(e);
                    continue;
                }
                Ok(Verified::Zeros) => zero_block(),
                Err(_) => {
                    // A row that cannot be rebuilt (two faults in it) stays refused; the
                    // zone's other rows are still repaired. It keeps its current entry
                    // if it has one: dropping it would leave the row's blocks with no
                    // check at all, and a row whose data and parity writes were both
                    // lost would then pass as parity-consistent at an older version.
                    let b = match self.reconstruct(exec, f, p) {
                        Ok(b) => b,
                        Err(e) => {
                            e.internal()?;
                            cb.entries[checksum_slot(p.row)] = self.current_entry(f, p, true);
                            continue;
                        }
                    };
                    if f.data.get(&p) != Some(&b) {
                        if f.data.contains_key(&p) {
                            self.detections.push(Detection {
                                disk,
                                block: data_block(p.row),
                                kind: FaultKind::DataMismatch,
                                repaired: true,
                            });
                        }
                        writes.push(Io {
                            disk,
                            block: data_block(p.row),
                            write: true,
                            data: Some(b.clone()),
                            tag: TAG_REPAIR,
                            sector: None,
                        });
                    }
                    b
                }
            };
            cb.entries[checksum_slot(p.row)] = Some(Entry::describe(
                self.owner(p),
                disk as u32,
                p.row,
                self.gen(p),
                &content[..],
            ));
            f.data.insert(p, content);
        }
        writes.push(Io {
            disk,
            block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
            write: true,
            data: Some(cb.encode(disk as u32, zone)),
            tag: TAG_REPAIR,
            sector: None,
        });
        f.meta.insert((disk, zone), Ok(cb));
        f.repaired.insert((disk, zone));
        self.run(exec, writes)?;
        Ok(())
    }

    /// Settles a stripe row that holds more faults than its parity can repair (two
    /// blocks that fail verification, or one whose rebuild disagrees with its entry),
    /// as an array's bad-block list does. Decision: every block of the row that
    /// verifies, or can be rebuilt, keeps its contents (single faults are repaired on
    /// the way); every block that cannot is *pinned*: the bytes it holds become its
    /// contents under a fresh generation and entry, and it is marked lost (its reads
    /// are refused until the host writes it again). Parity is then recomputed over the
    /// known and pinned contents, so the row is consistent again: a later write of a
    /// pinned block updates parity from its pinned bytes like any other, and a later
    /// single fault anywhere in the row is repairable again. Without this a row with
    /// two faults stays unrecoverable for good: every write that needs one of its bad
    /// blocks for parity is refused, and every fault that lands on it later is lost too.
    ///
    /// Only when every member of the row is readable: with a member down, its block is
    /// defined by the parity and the other blocks, so pinning another block would change
    /// it; such rows stay refused until the member is rebuilt. Nor while the row may
    /// hold writes a power cut could still take (a recovery settles those). Returns the
    /// blocks pinned (0: the row needed no settling, or was repaired) or why it cannot
    /// be settled.
    fn settle_row(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        row: u64,
    ) -> Result<u64, ArrayError> {
        let members = self.members.len();
        let place = |disk| Place { disk, row };
        if let Some(d) = (0..members).find(|&d| !self.readable(place(d))) {
            return Err(ArrayError::Unrecoverable {
                row,
                why: format!("member {d} is down, so the row cannot be settled"),
            });
        }
        self.prune_in_doubt();
        if self.in_doubt.contains_key(&row) {
            return Err(ArrayError::Unrecoverable {
                row,
                why: "the row holds writes a power cut may still take".into(),
            });
        }
        let parity = self.layout.parity_of(row);
        let data: Vec<usize> = self.layout.data_members(row).collect();
        // Each data member's contents (`None`: unknown) and whether it is pinned.
        let mut contents: Vec<Option<Block>> = vec![None; members];
        let mut unknown: Vec<usize> = data.clone();
        // A block repaired may let another be rebuilt (one whose metadata was bad
        // served on trial): try again while that happens.
        loop {
            let before = unknown.len();
            let mut still = Vec::new();
            for d in unknown {
                match self.logical(exec, f, place(d)) {
                    Ok(b) => contents[d] = Some(b),
                    Err(e) => {
                        e.internal()?;
                        still.push(d);
                    }
                }
            }
            unknown = still;
            if unknown.is_empty() || unknown.len() == before {
                break;
            }
        }
        let parity_ok = match self.logical(exec, f, place(parity)) {
            Ok(_) => true,
            Err(e) => e.internal().map(|_| false)?,
        };
        if unknown.is_empty() && parity_ok {
            return Ok(0);
        }
        // Every data block is known but the parity cannot be proven (its rebuild
        // disagrees with its entry): recomputing it from the data is right.
        let pinned = unknown;
        for &d in &pinned {
            let p = place(d);
            if !f.data.contains_key(&p) {
                self.fetch(exec, f, &[p], &[])?;
            }
            let Some(raw) = f.data.get(&p) else {
                return Err(ArrayError::Internal(format!(
                    "row {row}: member {d} was read but holds nothing"
                )));
            };
            contents[d] = Some(raw.clone());
        }
        let mut p_new = zero_block();
        for &d in &data {
            if let Some(b) = &contents[d] {
                xor_into(&mut p_new, b);
            }
        }
        contents[parity] = Some(p_new.clone());
        // Checksum blocks are fetched (and repaired if bad) before the generations
        // move, so the rows being settled read as stale, not as fresh.
        let changed: Vec<usize> = pinned.iter().copied().chain([parity]).collect();
        let zone = zone_of(row);
        let mut cbs = Vec::with_capacity(changed.len());
        for &d in &changed {
            cbs.push((d, self.checksum_block_for_update(exec, f, d, zone)?));
        }
        let mut writes = Vec::with_capacity(changed.len() + 1);
        for (d, mut cb) in cbs {
            let p = place(d);
            let owner = self.owner(p);
            let g = self.gen(p) + 1;
            self.gens.insert(owner, g);
            let Some(b) = &contents[d] else { continue };
            cb.entries[checksum_slot(row)] = Some(Entry::describe(owner, d as u32, row, g, &b[..]));
            writes.push(Io {
                disk: d,
                block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                write: true,
                data: Some(cb.encode(d as u32, zone)),
                tag: TAG_REPAIR,
                sector: None,
            });
            f.meta.insert((d, zone), Ok(cb));
            if let Owner::Data(v) = owner {
                // The bytes stay where they are: they are pinned, not repaired.
                if self.lost.insert(v) {
                    self.settled.blocks_lost += 1;
                }
            }
        }
        writes.push(Io {
            disk: parity,
            block: data_block(row),
            write: true,
            data: Some(p_new.clone()),
            tag: TAG_REPAIR,
            sector: None,
        });
        f.data.insert(place(parity), p_new);
        self.run(exec, writes)?;
        self.settled.rows += 1;
        Ok(pinned.len() as u64)
    }

    /// The decoded checksum block of (disk, zone), repairing it first if it is bad.
    fn checksum_block_for_update(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        disk: usize,
        zone: u64,
    ) -> Result<ChecksumBlock, ArrayError> {
        if !self.zone_readable(disk, zone) {
            // A replacement not yet rebuilt this far: start from an empty block; the
            // rebuild regenerates the whole zone later.
            return Ok(match f.meta.get(&(disk, zone)) {
                Some(Ok(cb)) => cb.clone(),
                _ => ChecksumBlock::default(),
            });
        }
        if !f.meta.contains_key(&(disk, zone)) {
            self.fetch(exec, f, &[], &[(disk, zone)])?;
        }
        let bad = match f.meta.get(&(disk, zone)) {
            // Regenerated in this operation: its rows that are still stale are
            // unrecoverable, and a second regeneration would find the same.
            Some(Ok(_)) if f.repaired.contains(&(disk, zone)) => None,
            Some(Ok(cb)) => {
                // Entries older than expected mean a lost checksum-block write.
                (zone * DATA_PER_ZONE..(zone + 1) * DATA_PER_ZONE).find_map(|row| {
                    let p = Place { disk, row };
                    let g = self.gen(p);
                    let e = cb.entries[checksum_slot(row)];
                    (g > 0 && e.is_none_or(|e| e.generation != g || e.owner != self.owner(p)))
                        .then_some(FaultKind::StaleMetadata)
                })
            }
            Some(Err(ChecksumBlockError::Corrupt)) => Some(FaultKind::ChecksumBlockCorrupt),
            Some(Err(ChecksumBlockError::Misplaced)) => Some(FaultKind::ChecksumBlockMisplaced),
            None => Some(FaultKind::StaleMetadata),
        };
        if let Some(kind) = bad {
            let r = self.repair_zone(exec, f, disk, zone);
            self.detections.push(Detection {
                disk,
                block: checksum_block(zone * DATA_PER_ZONE),
                kind,
                repaired: r.is_ok(),
            });
            r?;
        }
        match f.meta.get(&(disk, zone)) {
            Some(Ok(cb)) => Ok(cb.clone()),
            _ => Err(ArrayError::Unrecoverable {
                row: zone * DATA_PER_ZONE,
                why: format!("member {disk}: checksum block could not be repaired"),
            }),
        }
    }

    fn check_range(&self, v: u64) -> Result<Place, ArrayError> {
        let blocks = self.layout.volume_blocks();
        if v >= blocks {
            return Err(ArrayError::OutOfRange { block: v, blocks });
        }
        Ok(self.layout.place(v))
    }

    /// Which rows a batch writes, how each updates its parity and what its read phase
    /// fetches. Both data modes plan with this, so they issue the same I/Os.
    fn plan_writes(&self, blocks: impl Iterator<Item = u64>) -> WritePlan {
        let mut by_row: BTreeMap<u64, Vec<(usize, u64)>> = BTreeMap::new();
        for v in blocks {
            let p = self.layout.place(v);
            by_row.entry(p.row).or_default().push((p.disk, v));
        }
        // Choose per row: subtraction reads the written members and parity,
        // addition reads the members not written.
        let mut rmw_rows = FxHashSet::default();
        let mut want = Vec::new();
        let mut meta = Vec::new();
        for (&row, ws) in &by_row {
            // The row's parity member and data members (RAID-5 rotates them).
            let parity = self.layout.parity_of(row);
            let data: Vec<usize> = self.layout.data_members(row).collect();
            let failed: Vec<usize> = data
                .iter()
                .copied()
                .filter(|&d| self.state[d] == MemberState::Failed)
                .collect();
            let written: Vec<usize> = ws.iter().map(|w| w.0).collect();
            if self.parity_up(row) {
                let unwritten: Vec<usize> = data
                    .iter()
                    .copied()
                    .filter(|d| !written.contains(d))
                    .collect();
                let failed_written = failed.iter().any(|d| written.contains(d));
                let failed_unwritten = failed.iter().any(|d| unwritten.contains(d));
                let rmw = !failed_written && (failed_unwritten || written.len() < unwritten.len());
                if rmw {
                    rmw_rows.insert(row);
                    want.extend(written.iter().map(|&disk| Place { disk, row }));
                    want.push(Place { disk: parity, row });
                } else {
                    want.extend(unwritten.iter().map(|&disk| Place { disk, row }));
                }
                meta.push((parity, zone_of(row)));
            }
            for &d in &written {
                if self.state[d] != MemberState::Failed {
                    meta.push((d, zone_of(row)));
                }
            }
        }
        WritePlan {
            by_row,
            rmw_rows,
            want,
            meta,
        }
    }

    /// Whether `row`'s parity member is up (a write then updates the parity).
    fn parity_up(&self, row: u64) -> bool {
        self.state[self.layout.parity_of(row)] != MemberState::Failed
    }

    /// Writes a batch of 4 KiB volume blocks (a later write of the same block wins).
    /// Returns when every disk write of the batch has completed. A timing-only array
    /// ignores the bytes.
    pub fn write_batch(&mut self, writes: &[(u64, Block)]) -> Result<BatchReport, ArrayError> {
        let mut latest: BTreeMap<u64, &Block> = BTreeMap::new();
        for (v, b) in writes {
            self.check_range(*v)?;
            latest.insert(*v, b);
        }
        if self.cfg.data == DataMode::TimingOnly {
            return self.write_timing_only(latest.keys().copied().collect());
        }
        self.prune_in_doubt();
        let WritePlan {
            by_row,
            rmw_rows,
            want,
            meta,
        } = self.plan_writes(latest.keys().copied());
        let mut exec = self.write_exec();
        let start = self.now;
        let detections_at_start = self.detections.len();
        let mut f = Fetch::default();
        self.fetch(&mut exec, &mut f, &want, &meta)?;
        let reads_done = exec.now;

        // New contents and entries.
        let mut new_gens: Vec<(Owner, u64)> = Vec::new();
        let mut blocks: Vec<(Place, Block)> = Vec::new();
        for (&row, ws) in &by_row {
            let parity = self.layout.parity_of(row);
            if self.parity_up(row) {
                let rmw = rmw_rows.contains(&row);
                let mut p = match self.row_parity(&mut exec, &mut f, row, ws, &latest, rmw) {
                    // A row with more faults than parity repairs: settled (its bad
                    // blocks pinned and marked lost), then its parity is updated as
                    // any other's; the blocks written here are no longer lost.
                    Err(e @ ArrayError::Unrecoverable { .. }) if self.heal => {
                        match self.settle_row(&mut exec, &mut f, row) {
                            Ok(_) => self.row_parity(&mut exec, &mut f, row, ws, &latest, rmw)?,
                            Err(s) => {
                                s.internal()?;
                                return Err(e);
                            }
                        }
                    }
                    r => r?,
                };
                let g = self.gen(Place { disk: parity, row }) + 1;
                new_gens.push((Owner::Parity(row), g));
                blocks.push((
                    Place { disk: parity, row },
                    std::mem::replace(&mut p, zero_block()),
                ));
            }
            for &(disk, v) in ws {
                new_gens.push((Owner::Data(v), self.gen(Place { disk, row }) + 1));
                blocks.push((Place { disk, row }, latest[&v].clone()));
            }
        }
        let gen_of: FxHashMap<Owner, u64> = new_gens.iter().copied().collect();
        let mut cbs: BTreeMap<(usize, u64), ChecksumBlock> = BTreeMap::new();
        let mut ios = Vec::new();
        // Each block's old and new version, for a recovery if the power is cut.
        let mut doubt: Vec<(Place, Owner, Version, Entry)> = Vec::with_capacity(blocks.len());
        for (p, data) in blocks {
            let owner = self.owner(p);
            let g = gen_of.get(&owner).copied().unwrap_or(1);
            let new_entry = Entry::describe(owner, p.disk as u32, p.row, g, &data[..]);
            let old_gen = self.gen(p);
            let mut old = Version {
                seq: 0,
                generation: old_gen,
                entry: None,
                lost: self.is_lost(p),
            };
            if self.state[p.disk] == MemberState::Failed {
                doubt.push((p, owner, old, new_entry));
                continue;
            }
            let key = (p.disk, zone_of(p.row));
            if let std::collections::btree_map::Entry::Vacant(slot) = cbs.entry(key) {
                slot.insert(self.checksum_block_for_update(&mut exec, &mut f, p.disk, key.1)?);
            }
            if let Some(cb) = cbs.get_mut(&key) {
                let slot = &mut cb.entries[checksum_slot(p.row)];
                old.entry = slot.filter(|e| old_gen > 0 && self.entry_fits(e, p, old_gen));
                *slot = Some(new_entry);
            }
            doubt.push((p, owner, old, new_entry));
            ios.push(Io {
                disk: p.disk,
                block: data_block(p.row),
                write: true,
                data: Some(data),
                tag: 0,
                sector: None,
            });
        }
        for ((disk, zone), cb) in &cbs {
            ios.push(Io {
                disk: *disk,
                block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                write: true,
                data: Some(cb.encode(*disk as u32, *zone)),
                tag: 0,
                sector: None,
            });
        }
        self.batch_seq += 1;
        for (p, owner, old, new_entry) in doubt {
            let versions = self
                .in_doubt
                .entry(p.row)
                .or_default()
                .entry(owner)
                .or_insert_with(|| vec![old]);
            versions.push(Version {
                seq: self.batch_seq,
                generation: new_entry.generation,
                entry: Some(new_entry),
                lost: false,
            });
        }
        let detections_before = self.detections.len();
        let own_reads_suffice = self.detections.len() == detections_at_start;
        self.run_writes(&mut exec, ios, start, own_reads_suffice)?;
        for (o, g) in new_gens {
            self.gens.insert(o, g);
        }
        for v in latest.keys() {
            if self.lost.remove(v) {
                self.settled.blocks_rewritten += 1;
            }
        }
        self.rows_in_use.extend(by_row.keys().copied());
        let mut report = self.finish(exec, start, latest.len() as u64, 0, detections_before);
        report.reads_done_ns = reads_done.0;
        Ok(report)
    }

    /// The new parity of `row` when the blocks `ws` are written with `latest`'s bytes:
    /// by subtraction from the old parity and data (`rmw`), or by addition of the
    /// members not written.
    fn row_parity(
        &mut self,
        exec: &mut Executor,
        f: &mut Fetch,
        row: u64,
        ws: &[(usize, u64)],
        latest: &BTreeMap<u64, &Block>,
        rmw: bool,
    ) -> Result<Block, ArrayError> {
        let parity = self.layout.parity_of(row);
        if rmw {
            let mut acc = self.logical(exec, f, Place { disk: parity, row })?;
            for &(disk, v) in ws {
                let old = self.logical(exec, f, Place { disk, row })?;
                xor_into(&mut acc, &old);
                xor_into(&mut acc, latest[&v]);
            }
            Ok(acc)
        } else {
            let mut acc = zero_block();
            let others: Vec<usize> = self
                .layout
                .data_members(row)
                .filter(|d| ws.iter().all(|w| w.0 != *d))
                .collect();
            for disk in others {
                let old = self.logical(exec, f, Place { disk, row })?;
                xor_into(&mut acc, &old);
            }
            for &(_, v) in ws {
                xor_into(&mut acc, latest[&v]);
            }
            Ok(acc)
        }
    }

    /// Writes volume blocks without bytes: only on a timing-only array.
    pub fn write_blocks_timing_only(&mut self, blocks: &[u64]) -> Result<BatchReport, ArrayError> {
        if self.cfg.data == DataMode::RealBytes {
            return Err(ArrayError::BytesRequired);
        }
        let mut unique = Vec::with_capacity(blocks.len());
        for &v in blocks {
            self.check_range(v)?;
            unique.push(v);
        }
        unique.sort_unstable();
        unique.dedup();
        self.write_timing_only(unique)
    }

    /// The I/Os of `write_batch` without their contents: the same read phase (the
    /// shared plan), then, per row, the parity and every written data block, and the
    /// checksum block of every zone written. Without faults (timing-only arrays take
    /// none) the real-bytes path issues exactly these; no generations or rows in use
    /// are recorded, so the state does not grow with the volume.
    fn write_timing_only(&mut self, blocks: Vec<u64>) -> Result<BatchReport, ArrayError> {
        let plan = self.plan_writes(blocks.iter().copied());
        let mut exec = self.write_exec();
        let start = self.now;
        self.fetch(&mut exec, &mut Fetch::default(), &plan.want, &plan.meta)?;
        let reads_done = exec.now;
        let mut ios = Vec::new();
        let mut zones = BTreeSet::new();
        for (&row, ws) in &plan.by_row {
            let parity = self.layout.parity_of(row);
            let members = self
                .parity_up(row)
                .then_some(parity)
                .into_iter()
                .chain(ws.iter().map(|w| w.0));
            for disk in members.filter(|&d| self.state[d] != MemberState::Failed) {
                zones.insert((disk, zone_of(row)));
                ios.push(Io {
                    disk,
                    block: data_block(row),
                    write: true,
                    data: None,
                    tag: 0,
                    sector: None,
                });
            }
        }
        for (disk, zone) in zones {
            ios.push(Io {
                disk,
                block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                write: true,
                data: None,
                tag: 0,
                sector: None,
            });
        }
        let detections_before = self.detections.len();
        self.run_writes(&mut exec, ios, start, true)?;
        let mut report = self.finish(exec, start, blocks.len() as u64, 0, detections_before);
        report.reads_done_ns = reads_done.0;
        Ok(report)
    }

    fn finish(
        &mut self,
        mut exec: Executor,
        start: SimTime,
        user_writes: u64,
        user_reads: u64,
        detections_before: usize,
    ) -> BatchReport {
        exec.count_busy(&self.members);
        self.now = exec.now.max(self.now);
        self.report(
            start,
            exec.activity,
            user_writes,
            user_reads,
            detections_before,
        )
    }

    /// A report from `start` to now over `disks`, with the detections since
    /// `detections_before`.
    fn report(
        &self,
        start: SimTime,
        disks: Vec<DiskActivity>,
        user_writes: u64,
        user_reads: u64,
        detections_before: usize,
    ) -> BatchReport {
        let new = &self.detections[detections_before.min(self.detections.len())..];
        BatchReport {
            start_ns: start.0,
            end_ns: self.now.0,
            reads_done_ns: self.now.0,
            user_writes,
            user_reads,
            disks,
            detections: new.len() as u64,
            repairs: new.iter().filter(|d| d.repaired).count() as u64,
        }
    }

    /// Reads volume blocks. Each comes back verified (or rebuilt from parity), or as an
    /// error saying why it cannot be recovered — never as wrong bytes.
    pub fn read_batch(
        &mut self,
        blocks: &[u64],
    ) -> Result<(Vec<Result<Block, ArrayError>>, BatchReport), ArrayError> {
        let mut places = Vec::with_capacity(blocks.len());
        for &v in blocks {
            places.push(self.check_range(v)?);
        }
        // User reads may read through small gaps; the read phase of a write batch
        // reads only what it needs.
        let mut exec = self.new_exec().read_through_gaps(self.cfg.read_gap_blocks);
        let start = self.now;
        let before = self.detections.len();
        let mut f = Fetch::default();
        self.fetch(&mut exec, &mut f, &places, &[])?;
        let mut out = Vec::with_capacity(places.len());
        for (&p, v) in places.iter().zip(blocks) {
            if self.lost.contains(v) {
                out.push(Err(ArrayError::Unrecoverable {
                    row: p.row,
                    why: format!(
                        "block {v}: after a power cut its bytes could not be proven to be any version written"
                    ),
                }));
                continue;
            }
            out.push(match self.logical(&mut exec, &mut f, p) {
                Err(e) => {
                    let e = e.internal()?;
                    if self.heal {
                        // Settled now, so that the row's other blocks can be repaired
                        // again; this block, if pinned, is refused until rewritten.
                        if let Err(s) = self.settle_row(&mut exec, &mut f, p.row) {
                            s.internal()?;
                        }
                    }
                    Err(e)
                }
                ok => ok,
            });
        }
        let report = self.finish(exec, start, 0, blocks.len() as u64, before);
        Ok((out, report))
    }

    /// Reads and verifies every written block of every member, data and parity,
    /// repairing what it can. Returns the rows that could not be recovered (an
    /// internal error stops the scrub and is returned as the error).
    pub fn scrub(&mut self) -> Result<(Vec<ArrayError>, BatchReport), ArrayError> {
        let rows: Vec<u64> = self.rows_in_use.iter().copied().collect();
        let start = self.now;
        let before = self.detections.len();
        let mut errors = Vec::new();
        let mut total = vec![DiskActivity::default(); self.members.len()];
        for chunk in rows.chunks(4096) {
            let mut exec = self.new_exec();
            let mut f = Fetch::default();
            let places: Vec<Place> = chunk
                .iter()
                .flat_map(|&row| (0..self.members.len()).map(move |disk| Place { disk, row }))
                .collect();
            self.fetch(&mut exec, &mut f, &places, &[])?;
            let mut bad: BTreeMap<u64, Vec<ArrayError>> = BTreeMap::new();
            for &p in &places {
                if self.readable(p) {
                    if let Err(e) = self.logical(&mut exec, &mut f, p) {
                        bad.entry(p.row).or_default().push(e.internal()?);
                    }
                }
            }
            for (row, errs) in bad {
                // A row parity cannot repair is settled where it can be; what stays
                // unrecoverable is reported.
                if self.heal {
                    match self.settle_row(&mut exec, &mut f, row) {
                        Ok(_) => continue,
                        Err(e) => {
                            e.internal()?;
                        }
                    }
                }
                errors.extend(errs);
            }
            for &(disk, zone) in &places
                .iter()
                .map(|p| (p.disk, zone_of(p.row)))
                .collect::<BTreeSet<_>>()
            {
                if self.zone_readable(disk, zone)
                    && (zone * DATA_PER_ZONE..(zone + 1) * DATA_PER_ZONE)
                        .any(|row| self.gen(Place { disk, row }) > 0)
                {
                    if let Err(e) = self.checksum_block_for_update(&mut exec, &mut f, disk, zone) {
                        errors.push(e.internal()?);
                    }
                }
            }
            self.now = exec.now.max(self.now);
            exec.count_busy(&self.members);
            for (t, a) in total.iter_mut().zip(&exec.activity) {
                t.add(a);
            }
        }
        let report = self.report(start, total, 0, 0, before);
        Ok((errors, report))
    }

    /// Takes a member out (its contents are gone). A second member lost while one is
    /// down or rebuilding is reported as `DoubleFailure`; the failure still happens.
    pub fn fail_disk(&mut self, disk: usize) -> Result<(), ArrayError> {
        match self.state.get(disk) {
            None => return Err(ArrayError::NoSuchMember(disk)),
            Some(MemberState::Failed) => return Err(ArrayError::AlreadyFailed(disk)),
            _ => {}
        }
        let first =
            (0..self.members.len()).find(|&d| d != disk && self.state[d] != MemberState::Healthy);
        self.state[disk] = MemberState::Failed;
        self.members[disk].power_cut();
        self.members[disk].store.clear();
        self.faults.forget_disk(disk);
        match first {
            Some(first) => Err(ArrayError::DoubleFailure {
                first,
                second: disk,
            }),
            None => Ok(()),
        }
    }

    /// Puts a fresh replacement in place of a failed member; `rebuild_step` fills it.
    pub fn replace_disk(&mut self, disk: usize) -> Result<(), ArrayError> {
        if self.state.get(disk) != Some(&MemberState::Failed) {
            return Err(ArrayError::NothingToRebuild(disk));
        }
        let mut drive = self.spare.clone();
        drive.hdd_mut().set_spindle_phase(member_phase(disk));
        self.members[disk] =
            Member::new(drive, &self.member_queue, disk).map_err(ArrayError::Disk)?;
        self.state[disk] = MemberState::Rebuilding { next_row: 0 };
        Ok(())
    }

    /// Rebuilds up to `zones` checksum zones (63 rows each) of the replacement member
    /// from the others. Returns whether the rebuild is complete.
    pub fn rebuild_step(&mut self, zones: u64) -> Result<bool, ArrayError> {
        let Some(disk) = self
            .state
            .iter()
            .position(|s| matches!(s, MemberState::Rebuilding { .. }))
        else {
            return Ok(true);
        };
        let MemberState::Rebuilding { next_row } = self.state[disk] else {
            return Ok(true);
        };
        let Some(&first) = self.rows_in_use.range(next_row..).next() else {
            self.state[disk] = MemberState::Healthy;
            return Ok(true);
        };
        let zone0 = zone_of(first);
        let end_row = (zone0 + zones.max(1)) * DATA_PER_ZONE;
        let rows: Vec<u64> = self.rows_in_use.range(first..end_row).copied().collect();
        let mut exec = self.new_exec();
        let mut f = Fetch::default();
        let mut cbs: BTreeMap<u64, ChecksumBlock> = BTreeMap::new();
        let mut writes = Vec::new();
        for &row in &rows {
            let p = Place { disk, row };
            if disk == self.layout.parity_of(row) && self.gen(p) == 0 {
                // Rows written while the parity member was down: their parity is new.
                self.gens.insert(Owner::Parity(row), 1);
            }
            if self.gen(p) == 0 {
                continue;
            }
            let b = match self.reconstruct(&mut exec, &mut f, p) {
                Ok(b) => b,
                // A latent fault on another (present) member makes this row
                // unrecoverable: the rebuild goes on without it (its block stays
                // unwritten on the replacement, so reads of it are refused, never
                // guessed). A second member missing stops the rebuild, as before.
                Err(e) => {
                    let e = e.internal()?;
                    let others_present = (0..self.members.len())
                        .filter(|&d| d != disk)
                        .all(|d| self.readable(Place { disk: d, row }));
                    if !others_present {
                        return Err(e);
                    }
                    continue;
                }
            };
            let e = Entry::describe(self.owner(p), disk as u32, row, self.gen(p), &b[..]);
            cbs.entry(zone_of(row)).or_default().entries[checksum_slot(row)] = Some(e);
            writes.push(Io {
                disk,
                block: data_block(row),
                write: true,
                data: Some(b),
                tag: TAG_REPAIR,
                sector: None,
            });
        }
        for (zone, cb) in &cbs {
            writes.push(Io {
                disk,
                block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                write: true,
                data: Some(cb.encode(disk as u32, *zone)),
                tag: TAG_REPAIR,
                sector: None,
            });
        }
        self.run(&mut exec, writes)?;
        self.now = exec.now.max(self.now);
        let done = self.rows_in_use.range(end_row..).next().is_none();
        self.state[disk] = if done {
            MemberState::Healthy
        } else {
            MemberState::Rebuilding { next_row: end_row }
        };
        Ok(done)
    }

    /// Issues one random read on every working member and lets them finish: heads
    /// start the next measured batch from random places (ALG-PROX-DLE: anti
    /// short-stroke I/Os, excluded from statistics).
    pub fn scatter_heads<R: Rng>(&mut self, rng: &mut R) -> Result<(), ArrayError> {
        let mut exec = self.new_exec();
        let span = self.members[0].drive().hdd().capacity() / SECTORS_PER_BLOCK;
        let ios = (0..self.members.len())
            .filter(|&d| self.state[d] != MemberState::Failed)
            .map(|disk| Io {
                disk,
                block: rng.gen_range(0..span.max(1)),
                write: false,
                data: None,
                tag: 0,
                sector: None,
            })
            .collect();
        self.run(&mut exec, ios)?;
        self.now = exec.now.max(self.now);
        Ok(())
    }

    /// After a power cut: the drives' caches are gone; the expected generations (host
    /// metadata) are not. Resynchronizes the stripe rows that held `dirty` volume
    /// blocks (the writes that may have been cut off): every block of those rows is
    /// settled to a version it can be proven to hold, or marked lost (see the module
    /// comment); each gets a fresh generation and entry, and parity is recomputed, so
    /// no row is left half-written.
    pub fn recover_after_crash(&mut self, dirty: &[u64]) -> Result<(), ArrayError> {
        for m in &mut self.members {
            m.power_cut();
        }
        // Rows not named by the caller are acknowledged: their versions are settled.
        let in_doubt = std::mem::take(&mut self.in_doubt);
        let mut rows: Vec<u64> = dirty
            .iter()
            .filter(|&&v| v < self.layout.volume_blocks())
            .map(|&v| self.layout.place(v).row)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        let mut exec = self.new_exec();
        let members = self.members.len();
        let places: Vec<Place> = rows
            .iter()
            .flat_map(|&row| (0..members).map(move |disk| Place { disk, row }))
            .filter(|&p| self.readable(p))
            .collect();
        let mut f = Fetch::default();
        self.fetch(&mut exec, &mut f, &places, &[])?;
        let zones: BTreeSet<(usize, u64)> =
            places.iter().map(|p| (p.disk, zone_of(p.row))).collect();
        let mut writes = Vec::new();
        if self.cfg.data == DataMode::TimingOnly {
            // No bytes to settle: the same resync I/O (parity and checksum blocks).
            for &row in &rows {
                let p = Place {
                    disk: self.layout.parity_of(row),
                    row,
                };
                if self.readable(p) {
                    writes.push(Io {
                        disk: p.disk,
                        block: data_block(row),
                        write: true,
                        data: None,
                        tag: TAG_REPAIR,
                        sector: None,
                    });
                }
            }
        } else {
            let mut cbs: BTreeMap<(usize, u64), ChecksumBlock> = zones
                .iter()
                .map(|&key| (key, self.recovery_base(&f, key)))
                .collect();
            for &row in &rows {
                self.resync_row(row, in_doubt.get(&row), &f, &mut cbs, &mut writes);
                self.rows_in_use.insert(row);
            }
            for ((disk, zone), cb) in &cbs {
                writes.push(Io {
                    disk: *disk,
                    block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                    write: true,
                    data: Some(cb.encode(*disk as u32, *zone)),
                    tag: TAG_REPAIR,
                    sector: None,
                });
            }
        }
        if self.cfg.data == DataMode::TimingOnly {
            for &(disk, zone) in &zones {
                writes.push(Io {
                    disk,
                    block: zone * ZONE_BLOCKS + DATA_PER_ZONE,
                    write: true,
                    data: None,
                    tag: TAG_REPAIR,
                    sector: None,
                });
            }
        }
        self.run(&mut exec, writes)?;
        self.now = exec.now.max(self.now);
        Ok(())
    }

    /// The checksum block a recovery rewrites for (disk, zone): the one on the media,
    /// or, if it fails its own checksum or belongs elsewhere, the salvaged entries that
    /// still describe a current generation (the rest are regenerated by the reads and
    /// scrubs that meet them).
    fn recovery_base(&self, f: &Fetch, (disk, zone): (usize, u64)) -> ChecksumBlock {
        if let Some(Ok(cb)) = f.meta.get(&(disk, zone)) {
            return cb.clone();
        }
        let mut cb = f.salvaged.get(&(disk, zone)).cloned().unwrap_or_default();
        for (i, slot) in cb.entries.iter_mut().enumerate() {
            let p = Place {
                disk,
                row: zone * DATA_PER_ZONE + i as u64,
            };
            let g = self.gen(p);
            if slot.is_some_and(|e| g == 0 || !self.entry_fits(&e, p, g)) {
                *slot = None;
            }
        }
        cb
    }

    /// The index of the version among `versions` that the bytes of `p` are proven to
    /// be: they match its entry (kept with the intent, or on the media), or they are
    /// all zeros and it is generation 0. `None` when unreadable or unproven.
    fn prove(&self, f: &Fetch, p: Place, versions: &[Version]) -> Option<usize> {
        if !self.readable(p) {
            return None;
        }
        let raw = f.data.get(&p)?;
        let key = (p.disk, zone_of(p.row));
        let on_media = match f.meta.get(&key) {
            Some(Ok(cb)) => Some(cb),
            Some(Err(ChecksumBlockError::Corrupt)) => f.salvaged.get(&key),
            _ => None,
        }
        .and_then(|cb| cb.entries[checksum_slot(p.row)]);
        (0..versions.len()).rev().find(|&i| {
            let v = &versions[i];
            if v.generation == 0 {
                return raw.iter().all(|&b| b == 0);
            }
            let fits = |e: &Entry| self.entry_fits(e, p, v.generation) && e.matches(&raw[..]);
            v.entry.as_ref().is_some_and(fits) || on_media.as_ref().is_some_and(fits)
        })
    }

    /// Settles one stripe row after a power cut (see `recover_after_crash`): queues
    /// the data and parity writes and fills in the row's entries in `cbs`.
    fn resync_row(
        &mut self,
        row: u64,
        doubt: Option<&FxHashMap<Owner, Vec<Version>>>,
        f: &Fetch,
        cbs: &mut BTreeMap<(usize, u64), ChecksumBlock>,
        writes: &mut Vec<Io>,
    ) {
        let members = self.members.len();
        let parity = self.layout.parity_of(row);
        let place = |disk| Place { disk, row };
        // Per member: the versions it may hold (one unless the row is in doubt) and
        // the one its bytes prove.
        let versions: Vec<Vec<Version>> = (0..members)
            .map(|d| {
                let p = place(d);
                doubt
                    .and_then(|m| m.get(&self.owner(p)))
                    .cloned()
                    .unwrap_or_else(|| {
                        vec![Version {
                            seq: 0,
                            generation: self.gen(p),
                            entry: None,
                            lost: self.is_lost(p),
                        }]
                    })
            })
            .collect();
        let proven: Vec<Option<usize>> = (0..members)
            .map(|d| self.prove(f, place(d), &versions[d]))
            .collect();
        let raws: Vec<Option<&Block>> = (0..members)
            .map(|d| f.data.get(&place(d)).filter(|_| self.readable(place(d))))
            .collect();
        let raw = |d: usize| raws[d];
        // The version of `d` in force when parity of batch `seq` was computed.
        let in_force = |d: usize, seq: u64| versions[d].iter().rposition(|v| v.seq <= seq);
        // Member `d`'s contents at batch `seq`, where known.
        let known_at = |d: usize, seq: u64| -> Option<Block> {
            let i = in_force(d, seq)?;
            if versions[d][i].generation == 0 {
                return Some(zero_block());
            }
            (proven[d] == Some(i)).then(|| raw(d).cloned()).flatten()
        };
        let data: Vec<usize> = self.layout.data_members(row).collect();
        let parity_seq = proven[parity].map(|i| versions[parity][i].seq);
        // Rebuilds `d` from a parity proven at one version and every other data member
        // known at that same version; checked against `d`'s entry for it where at hand.
        let rebuilt = |d: usize| -> Settled {
            let seq = parity_seq?;
            let mut acc = raw(parity)?.clone();
            for &o in data.iter().filter(|&&o| o != d) {
                let k = known_at(o, seq)?;
                xor_into(&mut acc, &k);
            }
            let v = versions[d][in_force(d, seq)?];
            let p = place(d);
            let agrees = if v.generation == 0 {
                acc.iter().all(|&b| b == 0)
            } else {
                match v.entry {
                    Some(e) => self.entry_fits(&e, p, v.generation) && e.matches(&acc[..]),
                    None => true,
                }
            };
            agrees.then_some((acc, v.lost))
        };
        let mut settled: Vec<Settled> = vec![None; members];
        for &d in &data {
            settled[d] = match proven[d] {
                Some(i) => raw(d).map(|b| (b.clone(), versions[d][i].lost)),
                None => rebuilt(d).or_else(|| {
                    // Never written before the batches in doubt: its old contents
                    // are zeros by definition.
                    (versions[d][0].generation == 0).then(|| (zero_block(), false))
                }),
            };
        }
        // Unprovable members that can be read keep their bytes, marked lost, so that
        // the row's parity still covers them.
        for &d in &data {
            if settled[d].is_none() {
                if let Some(b) = raw(d) {
                    settled[d] = Some((b.clone(), true));
                }
            }
        }
        let parity_block = if data.iter().all(|&d| settled[d].is_some()) {
            let mut acc = zero_block();
            for &d in &data {
                if let Some((b, _)) = &settled[d] {
                    xor_into(&mut acc, b);
                }
            }
            Some(acc)
        } else {
            // A member that is down and cannot be rebuilt: the parity as it stands
            // defines its (lost) contents.
            raw(parity).cloned()
        };
        for d in 0..members {
            let p = place(d);
            let owner = self.owner(p);
            let contents = if d == parity {
                parity_block.clone().map(|b| (b, false))
            } else {
                settled[d].clone()
            };
            if let Owner::Data(v) = owner {
                if versions[d].len() == 1 && versions[d][0].generation == 0 {
                    // Never written and not in doubt: zeros, whatever the media holds.
                    continue;
                }
                if contents.as_ref().is_none_or(|c| c.1) {
                    if self.lost.insert(v) {
                        self.lost_by_recovery += 1;
                    }
                } else {
                    self.lost.remove(&v);
                }
            }
            let top = versions[d]
                .iter()
                .map(|v| v.generation)
                .chain([self.gen(p)])
                .max()
                .unwrap_or(0);
            let g = top + 1;
            self.gens.insert(owner, g);
            let Some((b, _)) = contents else { continue };
            if !self.readable(p) {
                continue;
            }
            if let Some(cb) = cbs.get_mut(&(d, zone_of(row))) {
                cb.entries[checksum_slot(row)] =
                    Some(Entry::describe(owner, d as u32, row, g, &b[..]));
            }
            if raw(d) != Some(&b) {
                writes.push(Io {
                    disk: d,
                    block: data_block(row),
                    write: true,
                    data: Some(b),
                    tag: TAG_REPAIR,
                    sector: None,
                });
            }
        }
    }

    /// Flips one bit of a member's stored block (bit rot) and records the fault.
    pub fn inject_bit_flip(&mut self, disk: usize, block: u64, bit: usize) -> bool {
        let Some(m) = self.members.get_mut(disk) else {
            return false;
        };
        let flipped = m.store.flip_bit(block, bit);
        if flipped {
            self.faults.note_bit_flip(disk, block);
        }
        flipped
    }
}
