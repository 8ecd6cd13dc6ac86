//! The layout engine's durable state as it lies on flash: an append-only log of
//! metadata records, each written as real bytes with an xxh3 checksum, and the replay
//! that rebuilds the state from those bytes after a power cut.
//!
//! A record is `magic (4) | sequence number (8) | payload length (4) | payload |
//! xxh3-64 of all that (8)`, little-endian. The payload is one change to the state
//! ([`MetaOp`]): an extent created, a write staged, the intent of a RAID batch, a
//! batch's new pointers committed, an extent deleted, a snapshot taken or dropped.
//! When the log has grown past twice the last full copy (and at least
//! [`CHECKPOINT_MIN_BYTES`]), the next change is written as a checkpoint instead:
//! the whole state and then the change, in one record. Once that record is on flash,
//! the records before it are superseded and dropped (replay would start from it
//! anyway), so the log stays within a few copies of the state.
//!
//! A power cut during a metadata write may tear it ([`Tear`]): part of the record
//! reaches the flash and the rest holds bytes it did not mean to write. Replay stops
//! at the first record that is short, has a bad magic, an out-of-order sequence
//! number or a bad checksum: that is the torn tail of the last write, which was never
//! acknowledged. Recovery cuts the tail off, so that later records follow the last
//! good one. Only the last record can be torn (the power is cut during it); damage
//! further back (bit rot on flash) would also stop replay there and lose acknowledged
//! changes after it, which a second copy of the log would be needed to survive.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_64;

/// No volume block (a hole in a sparse extent).
pub const NONE: u32 = u32::MAX;

/// Marks the start of a record ("SPML").
const MAGIC: u32 = 0x4C4D_5053;
/// Magic, sequence number, payload length.
pub const HEADER_BYTES: usize = 16;
/// The checksum after the payload.
pub const CHECKSUM_BYTES: usize = 8;
/// The log is not compacted before it holds this many bytes.
pub const CHECKPOINT_MIN_BYTES: usize = 256 << 10;

/// One staged write as the flash log records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StageRecord {
    pub extent: u32,
    /// (offset, staging slot) of every block of the write.
    pub blocks: Vec<(u32, u32)>,
}

/// What the flash holds across a power cut.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Durable {
    /// Committed extent maps.
    pub maps: BTreeMap<u32, Vec<u32>>,
    /// Staging records not yet destaged, in write order.
    pub log: Vec<StageRecord>,
    /// Volume blocks the uncommitted RAID batch writes.
    pub intent: Vec<u64>,
    /// Snapshot maps.
    pub snapshots: Vec<Option<BTreeMap<u32, Vec<u32>>>>,
}

impl Durable {
    /// Checks that the state fits the engine it is for (`volume_blocks` blocks,
    /// `staging_blocks` slots): a record with a good checksum that breaks this is
    /// the engine's bug, refused as an error rather than followed into a panic.
    pub fn check(&self, volume_blocks: u64, staging_blocks: u64) -> Result<(), String> {
        let pointers = self
            .maps
            .iter()
            .chain(self.snapshots.iter().flatten().flat_map(|m| m.iter()));
        for (e, map) in pointers {
            if let Some(vb) = map
                .iter()
                .find(|&&v| v != NONE && u64::from(v) >= volume_blocks)
            {
                return Err(format!(
                    "extent {e} points at block {vb}, beyond the volume's {volume_blocks}"
                ));
            }
        }
        for r in &self.log {
            let len = self.maps.get(&r.extent).map(|m| m.len());
            for &(o, slot) in &r.blocks {
                if len.is_none_or(|n| o as usize >= n) || u64::from(slot) >= staging_blocks {
                    return Err(format!(
                        "a staging record for extent {} offset {o} slot {slot} names no block of the engine",
                        r.extent
                    ));
                }
            }
        }
        Ok(())
    }
}

/// One change to the durable state: the payload of a metadata record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetaOp {
    /// A sparse extent of this many blocks.
    Create {
        extent: u32,
        blocks: u32,
    },
    /// A staged write (written after its data: the write is durable with it).
    Stage(StageRecord),
    /// The volume blocks the next RAID batch writes.
    Intent(Vec<u64>),
    /// A batch is on disk: the extent's new map; the staged copies of `written` are
    /// no longer needed; no batch is in flight.
    Commit {
        extent: u32,
        map: Vec<u32>,
        written: Vec<u32>,
    },
    Delete {
        extent: u32,
    },
    Snapshot(BTreeMap<u32, Vec<u32>>),
    DropSnapshot(u32),
    /// The whole state, then one change to it.
    Checkpoint(Box<Durable>, Box<MetaOp>),
}

impl MetaOp {
    /// Applies the change (live, and in replay: the same code both ways).
    pub fn apply(self, d: &mut Durable) {
        match self {
            MetaOp::Create { extent, blocks } => {
                d.maps.insert(extent, vec![NONE; blocks as usize]);
            }
            MetaOp::Stage(r) => d.log.push(r),
            MetaOp::Intent(t) => d.intent = t,
            MetaOp::Commit {
                extent,
                map,
                written,
            } => {
                d.maps.insert(extent, map);
                d.log.retain_mut(|r| {
                    if r.extent == extent {
                        r.blocks.retain(|(o, _)| !written.contains(o));
                    }
                    !r.blocks.is_empty()
                });
                d.intent.clear();
            }
            MetaOp::Delete { extent } => {
                d.maps.remove(&extent);
                d.log.retain(|r| r.extent != extent);
            }
            MetaOp::Snapshot(m) => d.snapshots.push(Some(m)),
            MetaOp::DropSnapshot(id) => {
                if let Some(s) = d.snapshots.get_mut(id as usize) {
                    *s = None;
                }
            }
            MetaOp::Checkpoint(state, op) => {
                *d = *state;
                op.apply(d);
            }
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            MetaOp::Create { extent, blocks } => {
                out.push(0);
                put_u32(out, *extent);
                put_u32(out, *blocks);
            }
            MetaOp::Stage(r) => {
                out.push(1);
                put_stage(out, r);
            }
            MetaOp::Intent(t) => {
                out.push(2);
                put_u32(out, t.len() as u32);
                for &v in t {
                    put_u64(out, v);
                }
            }
            MetaOp::Commit {
                extent,
                map,
                written,
            } => {
                out.push(3);
                put_u32(out, *extent);
                put_u32s(out, map);
                put_u32s(out, written);
            }
            MetaOp::Delete { extent } => {
                out.push(4);
                put_u32(out, *extent);
            }
            MetaOp::Snapshot(m) => {
                out.push(5);
                put_maps(out, m);
            }
            MetaOp::DropSnapshot(id) => {
                out.push(6);
                put_u32(out, *id);
            }
            MetaOp::Checkpoint(state, op) => {
                out.push(7);
                put_durable(out, state);
                op.encode(out);
            }
        }
    }

    fn decode(r: &mut Reader) -> Result<MetaOp, String> {
        Ok(match r.u8()? {
            0 => MetaOp::Create {
                extent: r.u32()?,
                blocks: r.u32()?,
            },
            1 => MetaOp::Stage(r.stage()?),
            2 => {
                let n = r.count(8)?;
                MetaOp::Intent((0..n).map(|_| r.u64()).collect::<Result<_, _>>()?)
            }
            3 => MetaOp::Commit {
                extent: r.u32()?,
                map: r.u32s()?,
                written: r.u32s()?,
            },
            4 => MetaOp::Delete { extent: r.u32()? },
            5 => MetaOp::Snapshot(r.maps()?),
            6 => MetaOp::DropSnapshot(r.u32()?),
            7 => {
                let state = r.durable()?;
                let op = MetaOp::decode(r)?;
                if matches!(op, MetaOp::Checkpoint(..)) {
                    return Err("a checkpoint inside a checkpoint".into());
                }
                MetaOp::Checkpoint(Box::new(state), Box::new(op))
            }
            t => return Err(format!("unknown record kind {t}")),
        })
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u32s(out: &mut Vec<u8>, v: &[u32]) {
    put_u32(out, v.len() as u32);
    for &x in v {
        put_u32(out, x);
    }
}

fn put_stage(out: &mut Vec<u8>, r: &StageRecord) {
    put_u32(out, r.extent);
    put_u32(out, r.blocks.len() as u32);
    for &(o, s) in &r.blocks {
        put_u32(out, o);
        put_u32(out, s);
    }
}

fn put_maps(out: &mut Vec<u8>, m: &BTreeMap<u32, Vec<u32>>) {
    put_u32(out, m.len() as u32);
    for (&e, map) in m {
        put_u32(out, e);
        put_u32s(out, map);
    }
}

fn put_durable(out: &mut Vec<u8>, d: &Durable) {
    put_maps(out, &d.maps);
    put_u32(out, d.log.len() as u32);
    for r in &d.log {
        put_stage(out, r);
    }
    put_u32(out, d.intent.len() as u32);
    for &v in &d.intent {
        put_u64(out, v);
    }
    put_u32(out, d.snapshots.len() as u32);
    for s in &d.snapshots {
        match s {
            None => out.push(0),
            Some(m) => {
                out.push(1);
                put_maps(out, m);
            }
        }
    }
}

/// Reads a payload; every count is checked against the bytes left, so no payload
/// can make it allocate more than the payload's own size.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| format!("payload ends at byte {}", self.b.len()))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// A count of items of at least `each` bytes that the rest of the payload holds.
    fn count(&mut self, each: usize) -> Result<usize, String> {
        let n = self.u32()? as usize;
        if n.saturating_mul(each) > self.b.len() - self.at {
            return Err(format!("{n} items do not fit in the payload"));
        }
        Ok(n)
    }

    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        let n = self.count(4)?;
        (0..n).map(|_| self.u32()).collect()
    }

    fn stage(&mut self) -> Result<StageRecord, String> {
        let extent = self.u32()?;
        let n = self.count(8)?;
        let blocks = (0..n)
            .map(|_| Ok((self.u32()?, self.u32()?)))
            .collect::<Result<_, String>>()?;
        Ok(StageRecord { extent, blocks })
    }

    fn maps(&mut self) -> Result<BTreeMap<u32, Vec<u32>>, String> {
        let n = self.count(8)?;
        (0..n).map(|_| Ok((self.u32()?, self.u32s()?))).collect()
    }

    fn durable(&mut self) -> Result<Durable, String> {
        let maps = self.maps()?;
        let n = self.count(8)?;
        let log = (0..n).map(|_| self.stage()).collect::<Result<_, _>>()?;
        let n = self.count(8)?;
        let intent = (0..n).map(|_| self.u64()).collect::<Result<_, _>>()?;
        let n = self.count(1)?;
        let snapshots = (0..n)
            .map(|_| match self.u8()? {
                0 => Ok(None),
                1 => self.maps().map(Some),
                t => Err(format!("snapshot tag {t}")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Durable {
            maps,
            log,
            intent,
            snapshots,
        })
    }
}

/// How a power cut tears the metadata record it lands on.
#[derive(Clone, Debug)]
pub struct Tear {
    rng: ChaCha8Rng,
    /// Bytes of the record that reach the flash (at most all but one); `None`: drawn
    /// uniformly from 0 to all but one.
    keep: Option<usize>,
}

impl Tear {
    /// A seeded tear at a random place in the record.
    pub fn seeded(seed: u64) -> Tear {
        Tear {
            rng: ChaCha8Rng::seed_from_u64(seed),
            keep: None,
        }
    }

    /// The first `keep` bytes reach the flash (all but the last if the record is not
    /// longer); the rest are seeded garbage.
    pub fn keeping(keep: usize, seed: u64) -> Tear {
        Tear {
            rng: ChaCha8Rng::seed_from_u64(seed),
            keep: Some(keep),
        }
    }

    /// Tears `record` as the flash stores it: a prefix as meant, and every later
    /// byte different from what was meant (cells the interrupted program left in
    /// some other state).
    fn apply(&mut self, record: &mut [u8]) -> usize {
        let most = record.len().saturating_sub(1);
        let keep = match self.keep {
            Some(k) => k.min(most),
            None => self.rng.gen_range(0..=most),
        };
        for b in &mut record[keep..] {
            *b ^= self.rng.gen_range(1..=255u8);
        }
        keep
    }
}

/// What the metadata log did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MetaLogStats {
    /// Records that reached the flash whole.
    pub records: u64,
    /// Of them, checkpoints (the whole state).
    pub checkpoints: u64,
    /// Records a power cut tore.
    pub torn: u64,
    /// Recoveries that found a torn tail and cut it off.
    pub tails_discarded: u64,
    /// Bytes cut off in those tails.
    pub bytes_discarded: u64,
    /// Records replayed by recoveries.
    pub replayed: u64,
}

/// The metadata area of the flash, and the state its records add up to.
#[derive(Clone)]
pub struct MetaLog {
    /// The bytes on flash from the latest checkpoint on (or from the start).
    bytes: Vec<u8>,
    next_seq: u64,
    /// Length of the latest checkpoint record.
    checkpoint_len: usize,
    /// The state the whole records add up to (what replay returns, kept to write
    /// checkpoints without a replay).
    image: Durable,
    tear: Option<Tear>,
    pub stats: MetaLogStats,
}

impl std::fmt::Debug for MetaLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetaLog")
            .field("bytes", &self.bytes.len())
            .field("next_seq", &self.next_seq)
            .field("stats", &self.stats)
            .finish()
    }
}

impl Default for MetaLog {
    fn default() -> Self {
        MetaLog::new()
    }
}

/// Why replay stopped before the end of the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Short,
    Magic,
    Sequence,
    Checksum,
}

impl MetaLog {
    pub fn new() -> MetaLog {
        MetaLog {
            bytes: Vec::new(),
            next_seq: 0,
            checkpoint_len: 0,
            image: Durable::default(),
            tear: None,
            stats: MetaLogStats::default(),
        }
    }

    /// Sets how a power cut tears the record it lands on (`None`: the record does
    /// not reach the flash at all).
    pub fn set_tear(&mut self, tear: Option<Tear>) {
        self.tear = tear;
    }

    pub fn tear(&self) -> Option<&Tear> {
        self.tear.as_ref()
    }

    /// The state the records on flash add up to.
    pub fn image(&self) -> &Durable {
        &self.image
    }

    /// Bytes the log holds on flash.
    pub fn len_bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The whole record for `op` (a checkpoint when the log is due for one).
    fn record(&self, op: &MetaOp, checkpoint: bool) -> Vec<u8> {
        let mut out = vec![0; HEADER_BYTES];
        if checkpoint {
            out.push(7);
            put_durable(&mut out, &self.image);
        }
        op.encode(&mut out);
        let len = (out.len() - HEADER_BYTES) as u32;
        out[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        out[4..12].copy_from_slice(&self.next_seq.to_le_bytes());
        out[12..16].copy_from_slice(&len.to_le_bytes());
        let sum = xxh3_64(&out);
        put_u64(&mut out, sum);
        out
    }

    /// Writes the record for `op`. `persisted`: the flash stored it whole (then it
    /// is applied to the state); else the power was cut, and `cut_here` says it was
    /// cut during this write (a tear, if set, leaves part of the record on flash).
    pub fn write(&mut self, op: MetaOp, persisted: bool, cut_here: bool) {
        let checkpoint =
            self.bytes.len() >= CHECKPOINT_MIN_BYTES && self.bytes.len() >= 2 * self.checkpoint_len;
        if persisted {
            let record = self.record(&op, checkpoint);
            if checkpoint {
                // Replay starts from the newest checkpoint: what precedes it is dead.
                self.bytes.clear();
                self.checkpoint_len = record.len();
                self.stats.checkpoints += 1;
            }
            self.bytes.extend_from_slice(&record);
            self.next_seq += 1;
            self.stats.records += 1;
            op.apply(&mut self.image);
        } else if cut_here && self.tear.is_some() {
            let mut record = self.record(&op, checkpoint);
            if let Some(t) = self.tear.as_mut() {
                t.apply(&mut record);
            }
            self.bytes.extend_from_slice(&record);
            self.stats.torn += 1;
        }
    }

    /// Rebuilds the state from the bytes on flash: every whole record in order, up
    /// to the first torn one, whose bytes (and anything after them) are cut off.
    /// Errors only if a record with a good checksum cannot be read (a bug, not a
    /// tear).
    pub fn replay(&mut self) -> Result<Durable, String> {
        let mut state = Durable::default();
        let mut at = 0;
        let mut seq: Option<u64> = None;
        let mut stop = None;
        while at < self.bytes.len() {
            match record_at(&self.bytes[at..], seq.map(|s| s + 1)) {
                Ok((s, payload, len)) => {
                    let mut r = Reader { b: payload, at: 0 };
                    let op = MetaOp::decode(&mut r)
                        .and_then(|op| {
                            if r.at == payload.len() {
                                Ok(op)
                            } else {
                                Err(format!("{} bytes after the change", payload.len() - r.at))
                            }
                        })
                        .map_err(|e| format!("metadata record {s} at byte {at}: {e}"))?;
                    op.apply(&mut state);
                    self.stats.replayed += 1;
                    seq = Some(s);
                    at += len;
                }
                Err(why) => {
                    stop = Some(why);
                    break;
                }
            }
        }
        if stop.is_some() {
            self.stats.tails_discarded += 1;
            self.stats.bytes_discarded += (self.bytes.len() - at) as u64;
            self.bytes.truncate(at);
        }
        if let Some(s) = seq {
            self.next_seq = s + 1;
        }
        self.image = state.clone();
        Ok(state)
    }
}

/// The record at the start of `b`: (sequence number, payload, record length).
fn record_at(b: &[u8], want_seq: Option<u64>) -> Result<(u64, &[u8], usize), Stop> {
    if b.len() < HEADER_BYTES {
        return Err(Stop::Short);
    }
    let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    if word(0) != MAGIC {
        return Err(Stop::Magic);
    }
    let mut s = [0u8; 8];
    s.copy_from_slice(&b[4..12]);
    let seq = u64::from_le_bytes(s);
    if want_seq.is_some_and(|w| w != seq) {
        return Err(Stop::Sequence);
    }
    let len = HEADER_BYTES + word(12) as usize + CHECKSUM_BYTES;
    if b.len() < len {
        return Err(Stop::Short);
    }
    let body = &b[..len - CHECKSUM_BYTES];
    let mut c = [0u8; 8];
    c.copy_from_slice(&b[len - CHECKSUM_BYTES..len]);
    if xxh3_64(body) != u64::from_le_bytes(c) {
        return Err(Stop::Checksum);
    }
    Ok((seq, &body[HEADER_BYTES..], len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops() -> Vec<MetaOp> {
        vec![
            MetaOp::Create {
                extent: 0,
                blocks: 8,
            },
            MetaOp::Create {
                extent: 1,
                blocks: 4,
            },
            MetaOp::Stage(StageRecord {
                extent: 0,
                blocks: vec![(2, 0), (3, 1)],
            }),
            MetaOp::Intent(vec![17, 18]),
            MetaOp::Commit {
                extent: 0,
                map: vec![NONE, NONE, 17, 18, NONE, NONE, NONE, NONE],
                written: vec![2],
            },
            MetaOp::Snapshot(BTreeMap::from([(0, vec![1, 2]), (1, vec![NONE])])),
            MetaOp::Stage(StageRecord {
                extent: 1,
                blocks: vec![(0, 2)],
            }),
            MetaOp::DropSnapshot(0),
            MetaOp::Delete { extent: 1 },
        ]
    }

    fn written(ops: &[MetaOp]) -> MetaLog {
        let mut log = MetaLog::new();
        for op in ops {
            log.write(op.clone(), true, false);
        }
        log
    }

    #[test]
    fn replay_of_whole_records_gives_the_state_they_were_applied_to() {
        let mut log = written(&ops());
        let image = log.image().clone();
        assert_eq!(log.replay(), Ok(image));
        assert_eq!(log.stats.tails_discarded, 0);
        assert_eq!(log.stats.replayed, ops().len() as u64);
    }

    /// A power cut during the last record at every byte of it: recovery returns the
    /// state before that record, cuts its bytes off, and a record written after
    /// recovery is found by the next replay (it follows the last good record, not
    /// the torn bytes).
    #[test]
    fn a_torn_last_record_is_discarded_at_every_tear_point() {
        let all = ops();
        let (before, last) = all.split_at(all.len() - 1);
        let good = written(before);
        let len = good.record(&last[0], false).len();
        for keep in 0..len {
            let mut log = good.clone();
            log.set_tear(Some(Tear::keeping(keep, keep as u64)));
            log.write(last[0].clone(), false, true);
            assert_eq!(log.stats.torn, 1);
            let got = log.replay().expect("replay");
            assert_eq!(&got, good.image(), "torn after {keep} of {len} bytes");
            assert_eq!(log.stats.tails_discarded, 1, "keep {keep}");
            assert_eq!(log.len_bytes(), good.len_bytes());
            log.write(last[0].clone(), true, false);
            let mut want = good.image().clone();
            last[0].clone().apply(&mut want);
            assert_eq!(log.replay(), Ok(want), "keep {keep}: the write after");
        }
    }

    /// A cut that lands after the record's write (or with no tear set) leaves no
    /// bytes.
    #[test]
    fn writes_after_the_cut_leave_nothing() {
        let mut log = written(&ops()[..3]);
        let n = log.len_bytes();
        log.write(ops()[3].clone(), false, false);
        log.set_tear(None);
        log.write(ops()[3].clone(), false, true);
        assert_eq!(log.len_bytes(), n);
    }

    /// Checkpoints keep the log within a few copies of the state, and replay from
    /// the newest one gives the same state; a torn checkpoint leaves the records
    /// before it.
    #[test]
    fn checkpoints_bound_the_log_and_replay_the_same_state() {
        let mut log = MetaLog::new();
        log.write(
            MetaOp::Create {
                extent: 0,
                blocks: 4096,
            },
            true,
            false,
        );
        let mut most = 0;
        for i in 0..2000u32 {
            let mut map = vec![NONE; 4096];
            map[(i % 4096) as usize] = i;
            log.write(
                MetaOp::Commit {
                    extent: 0,
                    map,
                    written: vec![i % 4096],
                },
                true,
                false,
            );
            most = most.max(log.len_bytes());
        }
        assert!(log.stats.checkpoints > 0, "{:?}", log.stats);
        assert!(
            most < 3 * CHECKPOINT_MIN_BYTES,
            "the log reached {most} bytes"
        );
        let image = log.image().clone();
        assert_eq!(log.replay(), Ok(image.clone()));
        // Tear the next record, whichever kind it is.
        log.set_tear(Some(Tear::seeded(3)));
        log.write(MetaOp::Intent(vec![5]), false, true);
        assert_eq!(log.replay(), Ok(image));
    }

    /// A state whose records name blocks the engine does not have is refused.
    #[test]
    fn a_state_that_does_not_fit_the_engine_is_refused() {
        let mut d = written(&ops()).image().clone();
        assert_eq!(d.check(32, 8), Ok(()));
        assert!(d.check(17, 8).is_err(), "block 17 beyond 17 blocks");
        d.log.push(StageRecord {
            extent: 0,
            blocks: vec![(8, 0)],
        });
        assert!(d.check(32, 8).is_err(), "offset 8 of an 8-block extent");
    }

    #[test]
    fn garbage_counts_do_not_allocate() {
        let mut b = vec![3u8];
        put_u32(&mut b, 0);
        put_u32(&mut b, u32::MAX);
        let mut r = Reader { b: &b, at: 0 };
        assert!(MetaOp::decode(&mut r).is_err());
    }
}
