//! The proximal-I/O data layout engine (ALG-PROX-DLE) and its two baselines, over a
//! RAID-4 group with a flash device for staging and metadata.
//!
//! Extents live in a flat namespace; each maps its 4 KiB offsets to volume blocks (the
//! leaves of the inode's constant-height indirect-block tree; the tree's interior is
//! not materialized, its cost is the metadata writes counted per batch). Policies:
//! - `Proximal` (the DLE): writes below the threshold (168 KB) go to an append-only
//!   staging log on flash, which is their home until destaged; when the log is full,
//!   staged blocks are sorted by extent and offset and each extent's group is written
//!   as one RAID batch to free blocks next to its logical neighbours, searched within
//!   the proximal span (±`proximal_ranges` allocation ranges on the same disk), never
//!   over a live block.
//! - `UpdateInPlace`: every write is a read-modify-write at the block's location.
//! - `WriteAnywhere`: no staging; every write goes to the next free hole from a
//!   moving cursor (holes left by freed older versions are plugged greedily; no
//!   cleaner).
//!
//! Crash consistency: the flash holds the durable state — the committed extent maps,
//! the staging log's records (written after their data, one record per write, so a
//! multi-block write is all or nothing) and the intent of the RAID batch in flight.
//! A batch writes only free blocks, then commits the new pointers in one metadata
//! write; a power cut before the commit leaves the old pointers and the staged data.
//! That state lies on flash as a log of checksummed records ([`super::metalog`]);
//! recovery replays it up to a record a power cut tore (cut off: that write was never
//! acknowledged) and resynchronizes the rows the intent names.
//! Decision: a block's on-disk version is freed when the block is staged (the paper,
//! §4.2: the staging log is then its home), unless a snapshot holds it. The durable
//! maps still point at it until the destage commits, and recovery lets staged blocks
//! override them, so a destage may plug that hole, even with the same block: destage
//! takes the free block nearest the block's logical position. A live or
//! snapshot-held block is never overwritten.
//!
//! Over a timing-only array (`DataMode::TimingOnly`) the engine keeps no bytes and no
//! durable copy of its state (nothing to crash-test), and it can run layout-only
//! (`set_layout_only`): every allocation decision as usual, no flash or disk I/O.

use super::freespace::FreeSpace;
pub use super::metalog::{Durable, MetaLogStats, StageRecord, Tear, NONE};
use super::metalog::{MetaLog, MetaOp};
use crate::array::{ArrayError, BatchReport, Raid4};
use crate::flash::{FlashDevice, FlashOp, FlashParams};
use crate::store::{zero_block, Block, BlockStore, DataMode};
use crate::time::SimTime;
use rand_chacha::ChaCha8Rng;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How writes are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutPolicy {
    /// The data layout engine: `dle`, the name users type, also when echoed;
    /// `proximal` is still read.
    #[serde(rename = "dle", alias = "proximal")]
    Proximal,
    UpdateInPlace,
    WriteAnywhere,
}

impl LayoutPolicy {
    /// The name a configuration gives it.
    pub fn name(self) -> &'static str {
        match self {
            LayoutPolicy::Proximal => "dle",
            LayoutPolicy::UpdateInPlace => "update-in-place",
            LayoutPolicy::WriteAnywhere => "write-anywhere",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct DleConfig {
    pub policy: LayoutPolicy,
    /// Staging log capacity in 4 KiB blocks.
    pub staging_blocks: u64,
    /// Writes of fewer blocks than this are staged (168 KB = 42 blocks).
    pub small_write_blocks: u64,
    /// Allocation range in blocks; the RAID stripe unit (1 MB = 256 on nearline disks).
    pub range_blocks: u64,
    /// How far (in allocation ranges on the same disk) a destage looks for room near a
    /// block's logical neighbours (the paper: about 100).
    pub proximal_ranges: u64,
    /// Volume blocks the engine manages, from the start of the volume (0: all). A
    /// scaled configuration uses a small part of full-size drives.
    #[serde(default)]
    pub volume_blocks: u64,
}

impl Default for DleConfig {
    fn default() -> Self {
        DleConfig {
            policy: LayoutPolicy::Proximal,
            staging_blocks: 1 << 16,
            small_write_blocks: 42,
            range_blocks: 256,
            proximal_ranges: 100,
            volume_blocks: 0,
        }
    }
}

/// Most allocation ranges a volume may have (the free-space map keeps 4 bytes for
/// each: 64 MiB at most; 1 MiB ranges over 16 TiB).
pub const MAX_RANGES: u64 = 1 << 24;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DleError {
    #[error("array: {0}")]
    Array(#[from] ArrayError),
    #[error("flash: {0}")]
    Flash(String),
    #[error("extent {0} does not exist")]
    NoExtent(u32),
    #[error("extent {0} already exists")]
    ExtentExists(u32),
    #[error("extent {extent}: blocks {offset}..{end} lie outside its {len} blocks")]
    OutOfExtent {
        extent: u32,
        offset: u64,
        end: u64,
        len: u64,
    },
    #[error("the volume is full")]
    Full,
    #[error("allocation ranges of {range_kib} KiB cut the volume into {ranges} ranges; at most {} (a larger layout.allocation-range-kib, or a smaller layout.volume-mib)", MAX_RANGES)]
    TooManyRanges { ranges: u64, range_kib: u64 },
    #[error("snapshot {0} does not exist")]
    NoSnapshot(usize),
    #[error("power cut: the operation did not complete")]
    Crashed,
    #[error("a write without bytes (or layout-only mode) needs a timing-only array")]
    TimingOnlyRequired,
}

/// The data of a write: its bytes, or only how many blocks (timing-only arrays).
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    Bytes(&'a [Block]),
    Blocks(u64),
}

impl Payload<'_> {
    pub fn len(&self) -> u64 {
        match self {
            Payload::Bytes(b) => b.len() as u64,
            Payload::Blocks(n) => *n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bytes(&self, i: u64) -> Option<&Block> {
        match self {
            Payload::Bytes(b) => b.get(i as usize),
            Payload::Blocks(_) => None,
        }
    }
}

/// A block in the staging log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Staged {
    slot: u32,
    /// Where its previous version was on disk (freed when it was staged; `NONE` if
    /// it had none): the destage's first placement hint.
    home: u32,
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DleStats {
    pub user_writes: u64,
    pub staged_blocks: u64,
    pub direct_blocks: u64,
    pub destages: u64,
    pub flash_data_writes: u64,
    pub flash_meta_writes: u64,
    pub flash_reads: u64,
}

/// The layout engine.
#[derive(Clone, Debug)]
pub struct Dle {
    cfg: DleConfig,
    raid: Raid4,
    flash: FlashDevice,
    flash_store: BlockStore,
    flash_ids: u64,
    /// Block map per extent (hashed: every write looks one up, and at full scale
    /// there are ~200,000).
    maps: FxHashMap<u32, Vec<u32>>,
    /// (extent, offset) → where the block is staged and where it was.
    staged: FxHashMap<(u32, u32), Staged>,
    next_slot: u64,
    free: FreeSpace,
    /// Snapshot references per volume block.
    held: FxHashMap<u32, u32>,
    /// Blocks no longer in any current map but kept for a snapshot.
    orphans: FxHashSet<u32>,
    snapshots: Vec<Option<BTreeMap<u32, Vec<u32>>>>,
    /// The durable state, as checksummed records on the flash.
    meta: MetaLog,
    /// A power cut planned at a metadata write: how many to let through first.
    meta_cut: Option<u64>,
    /// A flash write has been lost to a power cut (the first one lost is the one
    /// the cut landed on; the engine stops at it).
    flash_write_lost: bool,
    /// Allocation decisions only: no flash or disk I/O, no batch reports.
    layout_only: bool,
    cursor: u64,
    /// The RAID batch of every extent destaged and every direct write, in order.
    pub batches: Vec<BatchReport>,
    /// When the latest flash operation completes (staged writes are acknowledged then).
    pub flash_done: SimTime,
    /// When set, one random read per drive precedes every RAID batch (the paper's
    /// anti short-stroke I/Os; not part of the batch's statistics).
    pub scatter: Option<ChaCha8Rng>,
    /// Called after each extent batch of a destage with (batches done, batches in
    /// this destage): progress of long runs.
    pub destage_progress: Option<DestageProgress>,
    pub stats: DleStats,
}

/// A destage progress hook: shared (the engine is `Clone`) and callable from `&self`,
/// so it keeps its own state behind interior mutability.
#[derive(Clone)]
pub struct DestageProgress(pub std::sync::Arc<dyn Fn(u64, u64) + Send + Sync>);

impl std::fmt::Debug for DestageProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DestageProgress(..)")
    }
}

impl Dle {
    pub fn new(raid: Raid4, flash: FlashParams, cfg: DleConfig) -> Result<Dle, DleError> {
        let mut blocks = raid.layout().volume_blocks().min(u64::from(NONE) - 1);
        if cfg.volume_blocks > 0 {
            blocks = blocks.min(cfg.volume_blocks);
        }
        // The free-space map keeps a count per range: bound it before allocating.
        let ranges = blocks.div_ceil(cfg.range_blocks.max(1));
        if ranges > MAX_RANGES {
            return Err(DleError::TooManyRanges {
                ranges,
                range_kib: cfg.range_blocks * 4,
            });
        }
        let flash = FlashDevice::new(flash).map_err(|e| DleError::Flash(e.to_string()))?;
        Ok(Dle {
            free: FreeSpace::new(blocks, cfg.range_blocks),
            cfg,
            raid,
            flash,
            flash_store: BlockStore::new(),
            flash_ids: 0,
            maps: FxHashMap::default(),
            staged: FxHashMap::default(),
            next_slot: 0,
            held: FxHashMap::default(),
            orphans: FxHashSet::default(),
            snapshots: Vec::new(),
            meta: MetaLog::new(),
            meta_cut: None,
            flash_write_lost: false,
            layout_only: false,
            cursor: 0,
            batches: Vec::new(),
            scatter: None,
            destage_progress: None,
            flash_done: SimTime::ZERO,
            stats: DleStats::default(),
        })
    }

    pub fn config(&self) -> &DleConfig {
        &self.cfg
    }

    pub fn raid(&self) -> &Raid4 {
        &self.raid
    }

    pub fn raid_mut(&mut self) -> &mut Raid4 {
        &mut self.raid
    }

    /// The RAID-4 below, on its own (PROX-T2's baseline drives it without a layout).
    pub fn into_raid(self) -> Raid4 {
        self.raid
    }

    pub fn free_space(&self) -> &FreeSpace {
        &self.free
    }

    /// Blocks waiting in the staging log.
    pub fn staged_blocks(&self) -> usize {
        self.staged.len()
    }

    /// The extent's block map (volume block per offset, `NONE` for holes).
    pub fn map(&self, extent: u32) -> Option<&[u32]> {
        self.maps.get(&extent).map(|m| &m[..])
    }

    /// Whether the array stores real bytes (then the engine keeps its durable state).
    fn real_bytes(&self) -> bool {
        self.raid.config().data == DataMode::RealBytes
    }

    /// Layout-only mode makes every placement decision as usual (the same extent maps
    /// and free space) but simulates no flash or disk I/O and records no batches. The
    /// disks then do not hold what the maps say, so it needs a timing-only array.
    /// Decision (full-scale PROX-T2): aging only decides where blocks live; the
    /// measured destages after it run with full timing.
    pub fn set_layout_only(&mut self, on: bool) -> Result<(), DleError> {
        if on && self.real_bytes() {
            return Err(DleError::TimingOnlyRequired);
        }
        self.layout_only = on;
        Ok(())
    }

    /// Plans a power cut after `writes` more device writes (flash or disk).
    pub fn crash_after_writes(&mut self, writes: u64) {
        self.raid.faults.crash_after_writes(writes);
    }

    /// Plans a power cut during the metadata write after `writes` more of them
    /// (`None`: cancels it); every other device write before it persists.
    pub fn crash_at_meta_write(&mut self, writes: Option<u64>) {
        self.meta_cut = writes;
    }

    fn check_crash(&self) -> Result<(), DleError> {
        if self.raid.faults.crashed() {
            Err(DleError::Crashed)
        } else {
            Ok(())
        }
    }

    /// One flash operation at the current time; returns whether a write persisted.
    fn flash_op(&mut self, block: u64, write: bool) -> Result<bool, DleError> {
        if self.layout_only {
            return Ok(true);
        }
        let op = FlashOp {
            id: self.flash_ids,
            block: block % self.flash.capacity_blocks().max(1),
            blocks: 1,
            write,
        };
        self.flash_ids += 1;
        let c = self
            .flash
            .submit(self.raid.now(), op)
            .map_err(|e| DleError::Flash(e.to_string()))?;
        self.flash_done = self.flash_done.max(c.done);
        let persisted = !write || self.raid.faults.write_survives();
        self.flash_write_lost |= !persisted;
        Ok(persisted)
    }

    /// A metadata write on flash (maps, log record or intent): over a real-bytes
    /// array its record goes to the flash's metadata log, and changes the durable
    /// state only if it persisted. A power cut during it may tear the record.
    fn meta_write(&mut self, op: MetaOp) -> Result<(), DleError> {
        self.stats.flash_meta_writes += 1;
        // No write was lost yet: if this one is, the power failed during it.
        let first = !self.flash_write_lost;
        match self.meta_cut {
            Some(0) => {
                self.meta_cut = None;
                self.raid.faults.crash_after_writes(0);
            }
            Some(n) => self.meta_cut = Some(n - 1),
            None => {}
        }
        let persisted = self.flash_op(0, true)?;
        if self.real_bytes() {
            self.meta.write(op, persisted, first && !persisted);
        }
        if persisted {
            Ok(())
        } else {
            Err(DleError::Crashed)
        }
    }

    /// Sets how a power cut tears the metadata record it lands on (`None`: the
    /// record does not reach the flash at all). Kept across recoveries.
    pub fn tear_metadata(&mut self, tear: Option<Tear>) {
        self.meta.set_tear(tear);
    }

    /// What the flash's metadata log did: records, checkpoints, tears, tails cut.
    pub fn meta_log_stats(&self) -> MetaLogStats {
        self.meta.stats
    }

    /// The durable state as the engine last wrote it (what recovery must rebuild
    /// from the flash's bytes).
    pub fn durable_image(&self) -> &Durable {
        self.meta.image()
    }

    /// Creates an empty (sparse) extent of `blocks` blocks.
    pub fn create(&mut self, extent: u32, blocks: u64) -> Result<(), DleError> {
        if self.maps.contains_key(&extent) {
            return Err(DleError::ExtentExists(extent));
        }
        let n = u32::try_from(blocks).map_err(|_| DleError::OutOfExtent {
            extent,
            offset: 0,
            end: blocks,
            len: u64::from(u32::MAX),
        })?;
        self.meta_write(MetaOp::Create { extent, blocks: n })?;
        self.maps.insert(extent, vec![NONE; blocks as usize]);
        Ok(())
    }

    fn check_span(&self, extent: u32, offset: u64, n: u64) -> Result<(), DleError> {
        let len = self
            .maps
            .get(&extent)
            .ok_or(DleError::NoExtent(extent))?
            .len() as u64;
        if offset + n > len {
            return Err(DleError::OutOfExtent {
                extent,
                offset,
                end: offset + n,
                len,
            });
        }
        Ok(())
    }

    /// Writes `data` at block `offset` of an extent. Returns once the write is durable
    /// (on flash when staged, on the disks otherwise). A timing-only array ignores the
    /// bytes.
    pub fn write(&mut self, extent: u32, offset: u64, data: &[Block]) -> Result<(), DleError> {
        self.write_payload(extent, offset, Payload::Bytes(data))
    }

    /// Writes `blocks` blocks without bytes: only over a timing-only array.
    pub fn write_timing_only(
        &mut self,
        extent: u32,
        offset: u64,
        blocks: u64,
    ) -> Result<(), DleError> {
        if self.real_bytes() {
            return Err(DleError::TimingOnlyRequired);
        }
        self.write_payload(extent, offset, Payload::Blocks(blocks))
    }

    fn write_payload(&mut self, extent: u32, offset: u64, data: Payload) -> Result<(), DleError> {
        self.check_crash()?;
        self.check_span(extent, offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        self.stats.user_writes += 1;
        let small = data.len() < self.cfg.small_write_blocks;
        if self.cfg.policy == LayoutPolicy::Proximal && small && self.cfg.staging_blocks > 0 {
            self.stage(extent, offset, data)
        } else {
            let offsets: Vec<u32> = (offset..offset + data.len()).map(|o| o as u32).collect();
            let bytes = match data {
                Payload::Bytes(b) if self.real_bytes() => Some(b.to_vec()),
                _ => None,
            };
            let homes: Vec<u32> = offsets
                .iter()
                .map(|&o| self.staged.get(&(extent, o)).map_or(NONE, |s| s.home))
                .collect();
            self.stats.direct_blocks += data.len();
            self.write_to_disk(extent, &offsets, &homes, bytes)?;
            // The disk now holds the newest version: staged copies are stale.
            for o in offsets {
                self.staged.remove(&(extent, o));
            }
            Ok(())
        }
    }

    fn stage(&mut self, extent: u32, offset: u64, data: Payload) -> Result<(), DleError> {
        let n = data.len();
        if self.next_slot + n > self.cfg.staging_blocks {
            self.destage()?;
        }
        // Slots are consecutive: block i of the write goes to slot `first + i`.
        let first = self.next_slot;
        for i in 0..n {
            let slot = self.next_slot;
            self.next_slot += 1;
            self.stats.flash_data_writes += 1;
            if !self.flash_op(slot, true)? {
                return Err(DleError::Crashed);
            }
            if let Some(b) = data.bytes(i).filter(|_| self.real_bytes()) {
                self.flash_store.write(slot, b);
            }
        }
        // The record, written after the data, makes the write durable all at once.
        self.meta_write(MetaOp::Stage(StageRecord {
            extent,
            blocks: (0..n)
                .map(|i| ((offset + i) as u32, (first + i) as u32))
                .collect(),
        }))?;
        for i in 0..n {
            let o = (offset + i) as u32;
            let home = self.release_for_staging(extent, o);
            let slot = (first + i) as u32;
            // Staged again before a destage: the new slot, the same home.
            self.staged
                .entry((extent, o))
                .and_modify(|s| s.slot = slot)
                .or_insert(Staged { slot, home });
        }
        self.stats.staged_blocks += n;
        Ok(())
    }

    /// The staging log is now the block's home: its on-disk version is freed (unless
    /// a snapshot holds it) and remembered as a placement hint. The durable maps still
    /// point at it until the destage commits; recovery knows staged blocks override.
    /// Returns that version (`NONE` if there was none).
    fn release_for_staging(&mut self, extent: u32, o: u32) -> u32 {
        let Some(map) = self.maps.get_mut(&extent) else {
            return NONE;
        };
        let old = std::mem::replace(&mut map[o as usize], NONE);
        if old != NONE {
            self.drop_block(old);
        }
        old
    }

    /// Writes every staged block to disk, one RAID batch per extent.
    pub fn destage(&mut self) -> Result<(), DleError> {
        self.check_crash()?;
        // The staged blocks leave the table (keeping its capacity); if a batch fails,
        // those not yet written go back.
        let mut entries: Vec<((u32, u32), Staged)> = self.staged.drain().collect();
        entries.sort_unstable_by_key(|e| e.0);
        let real = self.real_bytes();
        let groups = entries
            .windows(2)
            .filter(|w| w[0].0 .0 != w[1].0 .0)
            .count() as u64
            + u64::from(!entries.is_empty());
        let mut done = 0;
        let mut i = 0;
        while i < entries.len() {
            let group = i;
            let extent = entries[i].0 .0;
            let mut offsets = Vec::new();
            let mut homes = Vec::new();
            let mut bytes = Vec::new();
            let mut result = Ok(());
            while i < entries.len() && entries[i].0 .0 == extent {
                let ((_, offset), s) = entries[i];
                self.stats.flash_reads += 1;
                if let Err(e) = self.flash_op(u64::from(s.slot), false) {
                    result = Err(e);
                    break;
                }
                offsets.push(offset);
                homes.push(s.home);
                if real {
                    bytes.push(self.flash_store.read(u64::from(s.slot)));
                }
                i += 1;
            }
            let result = result
                .and_then(|_| self.write_to_disk(extent, &offsets, &homes, real.then_some(bytes)));
            if let Err(e) = result {
                self.staged.extend(entries.drain(group..));
                return Err(e);
            }
            done += 1;
            if let Some(DestageProgress(f)) = &self.destage_progress {
                f(done, groups);
            }
        }
        self.next_slot = 0;
        self.stats.destages += 1;
        Ok(())
    }

    /// Places the blocks at `offsets` of an extent (ascending), writes them as one RAID
    /// batch (`data`: their bytes, `None` over a timing-only array) and commits the new
    /// pointers.
    fn write_to_disk(
        &mut self,
        extent: u32,
        offsets: &[u32],
        homes: &[u32],
        data: Option<Vec<Block>>,
    ) -> Result<(), DleError> {
        // The map is updated in place (no copy per batch: at full scale there are
        // millions of batches); it is put back whatever happens.
        let mut map = std::mem::take(
            self.maps
                .get_mut(&extent)
                .ok_or(DleError::NoExtent(extent))?,
        );
        let result = self.place_and_write(extent, &mut map, offsets, homes, data);
        self.maps.insert(extent, map);
        result
    }

    fn place_and_write(
        &mut self,
        extent: u32,
        map: &mut [u32],
        offsets: &[u32],
        homes: &[u32],
        data: Option<Vec<Block>>,
    ) -> Result<(), DleError> {
        // The pointer each placement replaced, to free on commit or restore on failure.
        let mut old = Vec::with_capacity(offsets.len());
        for (&o, &home) in offsets.iter().zip(homes) {
            let o = o as usize;
            let vb = match self.cfg.policy {
                LayoutPolicy::UpdateInPlace if map[o] != NONE => Ok(map[o]),
                LayoutPolicy::UpdateInPlace => {
                    // A never-written block: its fixed, direct-mapped place (the frame
                    // array's), or the free block nearest it if that is taken.
                    let direct = u64::from(extent) * map.len() as u64 + o as u64;
                    if direct < self.free.blocks() && self.free.take(direct) {
                        Ok(direct as u32)
                    } else {
                        let near = direct.min(u64::from(NONE) - 1) as u32;
                        self.take_near(&neighbour_hints(map, o, near))
                    }
                }
                LayoutPolicy::WriteAnywhere => self.take_next_free(),
                _ => {
                    let hints = neighbour_hints(map, o, home);
                    self.take_near(&hints)
                }
            };
            match vb {
                Ok(vb) => {
                    old.push(map[o]);
                    map[o] = vb;
                }
                Err(e) => {
                    self.undo_placement(map, offsets, &old);
                    return Err(e);
                }
            }
        }
        let report = if self.layout_only {
            None
        } else {
            match self.issue_batch(map, offsets, data) {
                Ok(r) => Some(r),
                Err(e) => {
                    self.undo_placement(map, offsets, &old);
                    return Err(e);
                }
            }
        };
        let commit = self.meta_write(MetaOp::Commit {
            extent,
            map: map.to_vec(),
            written: offsets.to_vec(),
        });
        if let Err(e) = commit {
            self.undo_placement(map, offsets, &old);
            return Err(e);
        }
        for (&o, &was) in offsets.iter().zip(&old) {
            if was != NONE && was != map[o as usize] {
                self.drop_block(was);
            }
        }
        self.batches.extend(report);
        Ok(())
    }

    /// Gives back the blocks a failed batch took and restores the old pointers.
    fn undo_placement(&mut self, map: &mut [u32], offsets: &[u32], old: &[u32]) {
        for (&o, &was) in offsets.iter().zip(old) {
            let now = std::mem::replace(&mut map[o as usize], was);
            if now != was {
                self.free.release(u64::from(now));
            }
        }
    }

    /// Writes the placed blocks as one RAID batch, after the intent that names them.
    fn issue_batch(
        &mut self,
        map: &[u32],
        offsets: &[u32],
        data: Option<Vec<Block>>,
    ) -> Result<BatchReport, DleError> {
        let targets: Vec<u64> = offsets
            .iter()
            .map(|&o| u64::from(map[o as usize]))
            .collect();
        if let Some(rng) = self.scatter.as_mut() {
            self.raid.scatter_heads(rng)?;
        }
        self.meta_write(MetaOp::Intent(targets.clone()))?;
        let report = match data {
            Some(bytes) => {
                let writes: Vec<(u64, Block)> = targets.iter().copied().zip(bytes).collect();
                self.raid.write_batch(&writes)?
            }
            None => self.raid.write_blocks_timing_only(&targets)?,
        };
        self.check_crash()?;
        Ok(report)
    }

    /// Takes a free block for a block with these hints: in the hinted ranges first,
    /// then in ranges on the same disk within the proximal span of the first hint,
    /// then anywhere from the cursor.
    fn take_near(&mut self, hints: &[u64]) -> Result<u32, DleError> {
        let hints: Vec<u64> = hints
            .iter()
            .copied()
            .filter(|&h| h < self.free.blocks())
            .collect();
        let Some(&p) = hints.first() else {
            return self.take_next_free();
        };
        for &h in &hints {
            if let Some(b) = self.free.nearest_in_range(self.free.range_of(h), h) {
                self.free.take(b);
                return Ok(b as u32);
            }
        }
        let disks = self.raid.layout().data_disks as u64;
        let same_disk_step = if self.cfg.range_blocks == self.raid.layout().stripe_unit {
            disks
        } else {
            1
        };
        let r0 = self.free.range_of(p);
        for k in 1..=self.cfg.proximal_ranges {
            for r in [
                r0.checked_add(k * same_disk_step),
                r0.checked_sub(k * same_disk_step),
            ]
            .into_iter()
            .flatten()
            {
                if r >= self.free.ranges() {
                    continue;
                }
                if let Some(b) = self.free.nearest_in_range(r, p) {
                    self.free.take(b);
                    return Ok(b as u32);
                }
            }
        }
        self.take_next_free()
    }

    /// The next free block from the moving cursor (write-anywhere, and the fallback).
    fn take_next_free(&mut self) -> Result<u32, DleError> {
        let b = self
            .free
            .next_free_from(self.cursor)
            .ok_or(DleError::Full)?;
        self.free.take(b);
        self.cursor = b + 1;
        Ok(b as u32)
    }

    /// A block left by the current maps: free unless a snapshot holds it.
    fn drop_block(&mut self, vb: u32) {
        if self.held.get(&vb).copied().unwrap_or(0) > 0 {
            self.orphans.insert(vb);
        } else {
            self.free.release(u64::from(vb));
        }
    }

    /// Reads `n` blocks at `offset`; the RAID batch report covers the disk part.
    pub fn read(
        &mut self,
        extent: u32,
        offset: u64,
        n: u64,
    ) -> Result<(Vec<Block>, BatchReport), DleError> {
        self.check_span(extent, offset, n)?;
        let map = self.maps.get(&extent).ok_or(DleError::NoExtent(extent))?;
        let ptrs = map[offset as usize..(offset + n) as usize].to_vec();
        self.read_via(&ptrs, extent, offset, true)
    }

    /// Reads the blocks whose pointers are `ptrs` (offsets `offset`.. of the extent),
    /// staged copies first when `staged`.
    fn read_via(
        &mut self,
        ptrs: &[u32],
        extent: u32,
        offset: u64,
        staged: bool,
    ) -> Result<(Vec<Block>, BatchReport), DleError> {
        let mut out: Vec<Option<Block>> = vec![None; ptrs.len()];
        let mut disk = Vec::new();
        let mut disk_at = Vec::new();
        for (i, slot_out) in out.iter_mut().enumerate() {
            let o = offset as usize + i;
            if staged {
                if let Some(&Staged { slot, .. }) = self.staged.get(&(extent, o as u32)) {
                    self.stats.flash_reads += 1;
                    self.flash_op(u64::from(slot), false)?;
                    *slot_out = Some(self.flash_store.read(u64::from(slot)));
                    continue;
                }
            }
            match ptrs[i] {
                NONE => *slot_out = Some(zero_block()),
                vb => {
                    disk.push(u64::from(vb));
                    disk_at.push(i);
                }
            }
        }
        // Ascending volume order lets contiguous runs merge into large requests.
        let mut order: Vec<usize> = (0..disk.len()).collect();
        order.sort_by_key(|&k| disk[k]);
        let sorted: Vec<u64> = order.iter().map(|&k| disk[k]).collect();
        let (blocks, report) = self.raid.read_batch(&sorted)?;
        for (k, r) in order.into_iter().zip(blocks) {
            out[disk_at[k]] = Some(r?);
        }
        Ok((
            out.into_iter()
                .map(|b| b.unwrap_or_else(zero_block))
                .collect(),
            report,
        ))
    }

    /// Deletes an extent; its blocks are freed unless a snapshot holds them.
    pub fn delete(&mut self, extent: u32) -> Result<(), DleError> {
        self.check_crash()?;
        let map = self
            .maps
            .get(&extent)
            .cloned()
            .ok_or(DleError::NoExtent(extent))?;
        self.meta_write(MetaOp::Delete { extent })?;
        self.maps.remove(&extent);
        self.staged.retain(|(e, _), _| *e != extent);
        for vb in map.into_iter().filter(|&v| v != NONE) {
            self.drop_block(vb);
        }
        Ok(())
    }

    /// Takes a snapshot of every extent (staged data is destaged first so that the
    /// snapshot's blocks are all on disk) and returns its id.
    pub fn snapshot(&mut self) -> Result<usize, DleError> {
        self.destage()?;
        let maps: BTreeMap<u32, Vec<u32>> =
            self.maps.iter().map(|(&e, m)| (e, m.clone())).collect();
        let id = self.snapshots.len();
        self.meta_write(MetaOp::Snapshot(maps.clone()))?;
        for vb in maps.values().flatten().copied().filter(|&v| v != NONE) {
            *self.held.entry(vb).or_insert(0) += 1;
        }
        self.snapshots.push(Some(maps));
        Ok(id)
    }

    /// Reads from a snapshot.
    pub fn read_snapshot(
        &mut self,
        id: usize,
        extent: u32,
        offset: u64,
        n: u64,
    ) -> Result<Vec<Block>, DleError> {
        let map = self
            .snapshots
            .get(id)
            .and_then(|s| s.as_ref())
            .ok_or(DleError::NoSnapshot(id))?
            .get(&extent)
            .ok_or(DleError::NoExtent(extent))?;
        if offset + n > map.len() as u64 {
            return Err(DleError::OutOfExtent {
                extent,
                offset,
                end: offset + n,
                len: map.len() as u64,
            });
        }
        let ptrs = map[offset as usize..(offset + n) as usize].to_vec();
        self.read_via(&ptrs, extent, offset, false).map(|r| r.0)
    }

    /// Deletes a snapshot, freeing the blocks only it held.
    pub fn delete_snapshot(&mut self, id: usize) -> Result<(), DleError> {
        let maps = self
            .snapshots
            .get_mut(id)
            .and_then(|s| s.take())
            .ok_or(DleError::NoSnapshot(id))?;
        self.meta_write(MetaOp::DropSnapshot(id as u32))?;
        for vb in maps.values().flatten().copied().filter(|&v| v != NONE) {
            if let Some(h) = self.held.get_mut(&vb) {
                *h -= 1;
                if *h == 0 {
                    self.held.remove(&vb);
                    if self.orphans.remove(&vb) {
                        self.free.release(u64::from(vb));
                    }
                }
            }
        }
        Ok(())
    }

    /// Restarts after a power cut from what the flash and the disks hold: the
    /// metadata log is replayed from its bytes (committed maps, the staging log,
    /// snapshots, the batch in flight) up to a torn last record, which is cut off;
    /// the rows of the batch in flight are resynchronized. Everything volatile is
    /// rebuilt; the clock keeps running.
    pub fn recover(mut self) -> Result<Dle, DleError> {
        self.raid.faults = crate::array::FaultInjector::none();
        let durable = if self.real_bytes() {
            self.meta.replay().map_err(DleError::Flash)?
        } else {
            Durable::default()
        };
        self.raid.recover_after_crash(&durable.intent)?;
        let mut d = Dle::new(self.raid, self.flash.params().clone(), self.cfg)?;
        durable
            .check(d.free.blocks(), d.cfg.staging_blocks)
            .map_err(|e| DleError::Flash(format!("metadata log replay: {e}")))?;
        let in_flight = !durable.intent.is_empty();
        d.meta = self.meta;
        d.flash = self.flash;
        d.flash_ids = self.flash_ids;
        d.flash_store = self.flash_store;
        d.maps = durable.maps.iter().map(|(&e, m)| (e, m.clone())).collect();
        d.snapshots = durable.snapshots.clone();
        for maps in d.snapshots.iter().flatten() {
            for vb in maps.values().flatten().copied().filter(|&v| v != NONE) {
                *d.held.entry(vb).or_insert(0) += 1;
            }
        }
        // A staged block's durable pointer is stale: its old block may already hold
        // another block's data. The staged copy is the block's home.
        let mut homes: FxHashMap<(u32, u32), u32> = FxHashMap::default();
        for r in &durable.log {
            for &(o, _) in &r.blocks {
                if let Some(map) = d.maps.get_mut(&r.extent) {
                    let old = std::mem::replace(&mut map[o as usize], NONE);
                    if old != NONE {
                        homes.insert((r.extent, o), old);
                    }
                }
            }
        }
        let live: FxHashSet<u32> = d
            .maps
            .values()
            .flatten()
            .copied()
            .filter(|&v| v != NONE)
            .collect();
        let mut used: Vec<u32> = live.iter().copied().chain(d.held.keys().copied()).collect();
        used.sort_unstable();
        used.dedup();
        for vb in used {
            d.free.take(u64::from(vb));
            if !live.contains(&vb) {
                d.orphans.insert(vb);
            }
        }
        for r in &durable.log {
            for &(o, slot) in &r.blocks {
                let home = homes.get(&(r.extent, o)).copied().unwrap_or(NONE);
                d.staged.insert((r.extent, o), Staged { slot, home });
                d.next_slot = d.next_slot.max(u64::from(slot) + 1);
            }
        }
        d.batches = self.batches;
        d.stats = self.stats;
        if in_flight {
            // The rows are settled: the next recovery need not resynchronize them.
            d.meta_write(MetaOp::Intent(Vec::new()))?;
        }
        Ok(d)
    }
}

/// Where a block should go: the allocation ranges holding the block itself (its
/// current version, or `home`, where it was before it was staged), its logical
/// predecessor and its successor, in that order, each with the position it would
/// take there. Decision: the block's own range comes first so that a neighbour that
/// once had to move far away does not pull the block after it.
fn neighbour_hints(map: &[u32], o: usize, home: u32) -> Vec<u64> {
    let mut hints = Vec::with_capacity(3);
    let own = match map[o] {
        NONE => home,
        b => b,
    };
    if own != NONE {
        hints.push(u64::from(own));
    }
    if o > 0 && map[o - 1] != NONE {
        hints.push(u64::from(map[o - 1]) + 1);
    }
    if o + 1 < map.len() && map[o + 1] != NONE {
        hints.push(u64::from(map[o + 1]).saturating_sub(1));
    }
    hints
}
