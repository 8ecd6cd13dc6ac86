//! A data journal with real bytes (thesis ch. 5, catalog ALG-MINIMIMIC): the shape of
//! ext3's data journaling, with log skipping and transactional checksums as options.
//!
//! An application write becomes one transaction: a descriptor block (sequence number,
//! home locations) followed by the data, written synchronously to the log, then — in
//! plain mode — a 4 KiB commit block. With `checksum`, the descriptor carries a
//! checksum of the data and the commit block goes in the same write, right after the
//! data (ext4's asynchronous commit): one synchronous write per transaction, and
//! recovery trusts the checksum, never the commit block's presence. With `skip`, each log write goes
//! where miniMimic says the head will be (the previous write's end plus the skip with
//! the least mean time for the write's size and the think time before it), or else to
//! the next free place that fits; a bitmap tracks free log blocks. When free space
//! falls below a threshold the log is cleaned: every block the log holds newer than
//! its home is written home (checkpointed), then the journal superblock records the
//! last checkpointed sequence number, and only then is the log's space reused.
//!
//! Device layout, in 4 KiB blocks: block 0 the journal superblock, blocks 1..=L the
//! log, then the home locations of the address space offered above. Bytes are real:
//! the layer keeps the device's durable image, applying a write's bytes when the
//! device below completes it (the drive must write through: a write cache would make
//! completion a lie). A power cut keeps any subset of an in-flight write's blocks.
//! [`recover`] reads the whole log, orders records by sequence number and replays the
//! committed transactions after the superblock's checkpoint, in order, stopping at the
//! first one that is missing or not committed (checksum-verified in checksum mode).
//!
//! With each home block the journal keeps the xxh3 checksum ([`home_sum`]) of what the
//! transactions since its last durable one wrote there ([`Inside::sums`]); a read after
//! recovery ([`Recovered::read_checked`]) refuses bytes that fail it, so a lost,
//! misdirected or torn write or a flipped bit is reported unreadable, never returned.
//!
//! Application data is generated, not carried: requests hold no bytes, so a write of
//! home block `b` as transaction `s` writes [`payload`]`(b, s)` (a partially written
//! 4 KiB block is rewritten whole). Tests know the same function.

use crate::disk::hdd::Request;
use crate::mimic::minimimic::{Cell, MiniMimic};
use crate::node::{Done, NodeReport};
use crate::stack::layer::{Layer, LayerIo};
use crate::store::{zero_block, Block, BlockStore, BLOCK_BYTES, SECTORS_PER_BLOCK};
use crate::time::SimTime;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;

/// Largest log, MiB.
pub const MAX_LOG_MIB: u64 = 4096;
/// Most data blocks one descriptor describes; larger writes are several transactions
/// (fewer blocks still where a small log has less room above its cleaning threshold).
pub const MAX_TX_BLOCKS: usize = (BLOCK_BYTES - 40) / 8;
/// Longest checkpoint write, blocks.
const MAX_CHECKPOINT_RUN: u64 = 256;

const DESC: &[u8; 4] = b"SPJD";
const COMMIT: &[u8; 4] = b"SPJC";
const SUPER: &[u8; 4] = b"SPJS";

/// `[[layer]] kind = "journal"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct JournalSpec {
    /// Transactional checksums: one write of descriptor + data + commit block.
    #[serde(default)]
    pub checksum: bool,
    /// Log skipping (needs a miniMimic table).
    #[serde(default)]
    pub skip: bool,
    /// Log size, MiB (the thesis: 40).
    #[serde(default = "default_log_mib")]
    pub log_mib: u64,
    /// Clean the log when less than this percentage is free (the thesis states no
    /// threshold; ext3 cleans at about a quarter).
    #[serde(default = "default_clean_pct")]
    pub clean_below_pct: u32,
    /// A miniMimic table file (`minimimic 1` format), for `skip`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimimic: Option<String>,
    /// Refine the table with each observed log write.
    #[serde(default = "yes")]
    pub refine: bool,
    /// A table handed over in memory (an experiment that sampled it).
    #[serde(skip)]
    pub table: Option<SharedTable>,
    /// Where tests and experiments look inside.
    #[serde(skip)]
    pub probe: Option<Probe>,
    /// The first transaction's sequence number (1 on a fresh device): a journal
    /// restarted after recovery continues past the sequence its superblock records,
    /// as ext3's does, so the old log's records are never replayed again.
    #[serde(skip)]
    pub first_seq: Option<u64>,
}

fn default_log_mib() -> u64 {
    40
}
fn default_clean_pct() -> u32 {
    25
}
fn yes() -> bool {
    true
}

/// A miniMimic table shared with the spec that built the layer.
#[derive(Clone, Debug)]
pub struct SharedTable(pub Rc<MiniMimic>);

impl PartialEq for SharedTable {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// A window into a running journal: its device image and what it did.
#[derive(Clone, Debug, Default)]
pub struct Probe(pub Rc<RefCell<Inside>>);

impl PartialEq for Probe {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}

/// One log write as the journal saw it.
#[derive(Clone, Copy, Debug)]
pub struct LogWrite {
    /// Descriptor + data (false: a commit block).
    pub record: bool,
    pub blocks: u64,
    pub skip_kib: i64,
    /// What miniMimic expected, when the write went where it recommended.
    pub predicted: Option<Cell>,
    pub actual_ns: u64,
}

/// What the probe shows.
#[derive(Debug, Default)]
pub struct Inside {
    /// The device's durable contents, by 4 KiB block.
    pub image: BlockStore,
    /// Writes issued below and not complete: their blocks and bytes.
    pub inflight: BTreeMap<u64, Vec<(u64, Block)>>,
    /// Transactions in sequence order: (seq, home blocks, the application
    /// request's id).
    pub txs: Vec<(u64, Vec<u64>, u64)>,
    pub log_writes: Vec<LogWrite>,
    pub log_blocks: u64,
    /// Cleanings started (checkpoint writes home, then the superblock).
    pub cleanings: u64,
    /// The checksum kept with each home block: [`home_sum`] of the bytes of every
    /// transaction since the last committed one that wrote it, as (sequence, sum). It
    /// lives in host memory that a power cut does not lose (NVRAM): on one drive, a
    /// lost write whose checksum was lost with it would leave an old block beside its
    /// old checksum, which no check could tell from the current one.
    pub sums: HashMap<u64, Vec<(u64, u64)>>,
    /// Faults injected into the device's writes, if any (the torture campaign's).
    pub faults: Option<WriteFaults>,
    /// Where completed writes land instead of `image`, when the device's bytes live
    /// in a device of their own (a byte-exact array, [`super::journal_array`]).
    pub media: Option<Rc<RefCell<dyn Media>>>,
}

/// A device that keeps the journal's bytes itself: it takes each write the device
/// below completed, at that instant.
pub trait Media: std::fmt::Debug {
    fn write(&mut self, now: SimTime, blocks: &[(u64, Block)]);
}

/// Faults in the device's completed writes: lost (the write never reaches the media),
/// misdirected (it lands elsewhere on the device), torn (it stops part-way, inside a
/// block), and bit flips of stored blocks after a write.
#[derive(Debug)]
pub struct WriteFaults {
    pub lost: f64,
    pub misdirected: f64,
    pub torn: f64,
    pub flips: f64,
    /// Device blocks a misdirected write or a flip may land on.
    pub device_blocks: u64,
    pub rng: rand_chacha::ChaCha8Rng,
    /// Faults injected, by kind.
    pub lost_n: u64,
    pub misdirected_n: u64,
    pub torn_n: u64,
    pub flips_n: u64,
}

impl WriteFaults {
    /// Applies one completed write's blocks to `image`, with the faults drawn for it.
    fn apply(&mut self, image: &mut BlockStore, blocks: &[(u64, Block)]) {
        let rng = &mut self.rng;
        if rng.gen_bool(self.lost) {
            self.lost_n += 1;
        } else if rng.gen_bool(self.misdirected) {
            self.misdirected_n += 1;
            let start = blocks.first().map_or(0, |b| b.0);
            let mut to = rng.gen_range(0..self.device_blocks);
            if to == start {
                to = (to + 1) % self.device_blocks;
            }
            for (k, (_, data)) in blocks.iter().enumerate() {
                image.write((to + k as u64) % self.device_blocks, data);
            }
        } else if rng.gen_bool(self.torn) {
            self.torn_n += 1;
            let cut = rng.gen_range(0..blocks.len());
            for (b, data) in &blocks[..cut] {
                image.write(*b, data);
            }
            let (b, data) = &blocks[cut];
            let mut torn = image.read(*b);
            let k = rng.gen_range(1..SECTORS_PER_BLOCK as usize) * 512;
            torn[..k].copy_from_slice(&data[..k]);
            image.write(*b, &torn);
        } else {
            for (b, data) in blocks {
                image.write(*b, data);
            }
        }
        if rng.gen_bool(self.flips) {
            let b = rng.gen_range(0..self.device_blocks);
            if image.flip_bit(b, rng.gen_range(0..BLOCK_BYTES * 8)) {
                self.flips_n += 1;
            }
        }
    }
}

/// The checksum of home block `home` holding `bytes`: xxh3 seeded with the block
/// number, so that a block written in the wrong place fails it too.
pub fn home_sum(home: u64, bytes: &[u8; BLOCK_BYTES]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(bytes, home)
}

impl Inside {
    /// The device after a power cut now: the durable image plus, of each in-flight
    /// write, the blocks `keep` says reached the media.
    pub fn cut(&self, rng: &mut impl Rng) -> BlockStore {
        let mut img = self.image.clone();
        for blocks in self.inflight.values() {
            for (b, data) in blocks {
                if rng.gen_bool(0.5) {
                    img.write(*b, data);
                }
            }
        }
        img
    }
}

impl JournalSpec {
    /// Sectors the journal keeps out of the address space below it: its superblock's
    /// block and its log's.
    pub fn reserved_sectors(&self) -> u64 {
        self.log_mib
            .saturating_mul(256)
            .saturating_add(1)
            .saturating_mul(SECTORS_PER_BLOCK)
    }

    pub fn new(checksum: bool, skip: bool, log_mib: u64) -> JournalSpec {
        JournalSpec {
            checksum,
            skip,
            log_mib,
            clean_below_pct: default_clean_pct(),
            minimimic: None,
            refine: true,
            table: None,
            probe: None,
            first_seq: None,
        }
    }

    /// The `--layer` form: `journal` followed by colon-separated options `checksum`,
    /// `skip=TABLE` (log skipping with a miniMimic table file), `log-mib=N`,
    /// `clean-below-pct=N` and `no-refine`; values are checked when the layer is built.
    pub fn parse_cli(s: &str) -> Result<JournalSpec, String> {
        let want =
            "expected journal[:checksum][:skip=TABLE][:log-mib=N][:clean-below-pct=N][:no-refine]";
        let mut parts = s.split(':');
        if parts.next() != Some("journal") {
            return Err(format!("--layer `{s}`: {want}"));
        }
        let mut spec = JournalSpec::new(false, false, default_log_mib());
        let number = |key: &str, v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("--layer `{s}`: {key} must be a whole number, got `{v}`"))
        };
        let mut seen: Vec<&str> = Vec::new();
        for part in parts {
            // Each option once: a second would silently replace the first.
            let key = part.split_once('=').map_or(part, |(k, _)| k);
            let known = [
                "checksum",
                "no-refine",
                "skip",
                "log-mib",
                "clean-below-pct",
            ];
            if known.contains(&key) && seen.contains(&key) {
                return Err(format!(
                    "--layer `{s}`: `{key}` is given twice; give each option once"
                ));
            }
            seen.push(key);
            match part.split_once('=') {
                None if part == "checksum" => spec.checksum = true,
                None if part == "no-refine" => spec.refine = false,
                Some(("skip", table)) if !table.is_empty() => {
                    spec.skip = true;
                    spec.minimimic = Some(table.to_string());
                }
                Some(("log-mib", v)) => spec.log_mib = number("log-mib", v)?,
                Some(("clean-below-pct", v)) => {
                    spec.clean_below_pct =
                        u32::try_from(number("clean-below-pct", v)?).unwrap_or(u32::MAX);
                }
                _ => return Err(format!("--layer `{s}`: unknown option `{part}`; {want}")),
            }
        }
        Ok(spec)
    }

    /// Checks the settings without building the journal (a miniMimic file is read
    /// only when it is built).
    pub fn check(&self) -> Result<(), String> {
        if self.log_mib == 0 || self.log_mib > MAX_LOG_MIB {
            return Err(format!(
                "journal: log-mib {}, expected 1 to {MAX_LOG_MIB}",
                self.log_mib
            ));
        }
        if self.clean_below_pct == 0 || self.clean_below_pct >= 100 {
            return Err(format!(
                "journal: clean-below-pct {}, expected 1 to 99",
                self.clean_below_pct
            ));
        }
        if self.skip && self.table.is_none() && self.minimimic.is_none() {
            return Err(
                "journal: skip = true needs a miniMimic table (minimimic = \"file\")".into(),
            );
        }
        // A transaction starts only with the cleaning threshold still free after it,
        // so the log must hold one of at least one block above it: else no write could
        // start, and cleaning an empty log would go round for ever.
        if self.max_homes() == 0 {
            return Err(format!(
                "journal: a {} MiB log ({} blocks) has no room for a transaction above its \
                 cleaning threshold ({} blocks: clean-below-pct {}, at least {}): give \
                 log-mib = 3 or more",
                self.log_mib,
                self.log_blocks(),
                self.clean_below_blocks(),
                self.clean_below_pct,
                MAX_TX_BLOCKS + 3
            ));
        }
        Ok(())
    }

    fn log_blocks(&self) -> u64 {
        self.log_mib * 256
    }

    /// Free blocks below which the log is cleaned before a transaction starts: a
    /// transaction starts only if this many stay free after it (a plain log's commit
    /// block comes out of them).
    fn clean_below_blocks(&self) -> u64 {
        // At least a largest transaction and its commit, whatever the percentage.
        (self.log_blocks() * u64::from(self.clean_below_pct) / 100).max(MAX_TX_BLOCKS as u64 + 3)
    }

    /// Most home blocks one transaction carries: what one descriptor describes, and
    /// what fits in the log above the cleaning threshold with the descriptor (and,
    /// with checksums, the commit block). A larger write is several transactions.
    fn max_homes(&self) -> u64 {
        let above = self.log_blocks().saturating_sub(self.clean_below_blocks());
        above
            .saturating_sub(1 + u64::from(self.checksum))
            .min(MAX_TX_BLOCKS as u64)
    }

    pub fn build(&self) -> Result<Journal, String> {
        self.check()?;
        let table = match (&self.table, &self.minimimic) {
            (Some(t), _) => Some((*t.0).clone()),
            (None, Some(path)) => Some(
                MiniMimic::load_file(path).map_err(|e| format!("journal: miniMimic table {e}"))?,
            ),
            (None, None) => None,
        };
        if self.skip && table.is_none() {
            return Err(
                "journal: skip = true needs a miniMimic table (minimimic = \"file\")".into(),
            );
        }
        let log_blocks = self.log_blocks();
        let clean_below = self.clean_below_blocks();
        let probe = self.probe.clone().unwrap_or_default();
        probe.0.borrow_mut().log_blocks = log_blocks;
        Ok(Journal {
            checksum: self.checksum,
            skip: self.skip,
            refine: self.refine,
            log_blocks,
            clean_below,
            max_homes: self.max_homes() as usize,
            table,
            inside: probe.0,
            used: vec![false; log_blocks as usize],
            free: log_blocks,
            cursor: 0,
            last_done: SimTime::ZERO,
            queue: VecDeque::new(),
            phase: Phase::Idle,
            next_seq: self.first_seq.unwrap_or(1).max(1),
            dirty: BTreeMap::new(),
            ops: HashMap::new(),
            next_id: 0,
            reads: 0,
            stats: Stats::default(),
        })
    }
}

/// What one request below is for.
#[derive(Clone, Debug)]
enum Op {
    Read(Request),
    Record(Obs),
    Commit(Obs),
    Checkpoint,
    Super,
}

/// A transaction: (part of) one application write.
#[derive(Clone, Debug)]
struct Tx {
    req: Request,
    /// When the application's request arrived.
    arrived: SimTime,
    seq: u64,
    homes: Vec<u64>,
    /// Log block of the descriptor.
    at: u64,
    /// The application's request is complete with this transaction.
    last: bool,
}

#[derive(Clone, Debug)]
enum Phase {
    Idle,
    /// Descriptor + data in flight.
    Record(Tx),
    /// Commit block in flight.
    Commit(Tx),
    /// Cleaning: checkpoint writes left, then the superblock.
    Clean {
        left: usize,
        since: SimTime,
        upto: u64,
    },
    Super {
        since: SimTime,
    },
}

#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    /// Requests from above, as every node counts them (reads served from memory too;
    /// a write however many transactions it takes).
    reads: u64,
    writes: u64,
    transactions: u64,
    log_writes: u64,
    log_bytes: u64,
    log_ns: u64,
    clean_ns: u64,
    cleanings: u64,
    skipped: u64,
    fallback: u64,
}

/// An application write waiting: the request, when it arrived, and how many of its
/// blocks earlier transactions already carried.
type Waiting = (Request, SimTime, usize);

/// The journal layer.
pub struct Journal {
    checksum: bool,
    skip: bool,
    refine: bool,
    log_blocks: u64,
    clean_below: u64,
    /// Most home blocks in one transaction ([`JournalSpec`]'s room above `clean_below`).
    max_homes: usize,
    table: Option<MiniMimic>,
    inside: Rc<RefCell<Inside>>,
    /// Log blocks holding live records.
    used: Vec<bool>,
    free: u64,
    /// Log block just past the previous log write.
    cursor: u64,
    /// When the previous log write completed.
    last_done: SimTime,
    queue: VecDeque<Waiting>,
    phase: Phase,
    next_seq: u64,
    /// Application blocks whose newest committed contents are only in the log: the
    /// transaction that wrote them.
    dirty: BTreeMap<u64, u64>,
    ops: HashMap<u64, Op>,
    next_id: u64,
    reads: usize,
    stats: Stats,
}

/// The bytes transaction `seq` writes to application block `home`.
pub fn payload(home: u64, seq: u64) -> Block {
    let mut b = zero_block();
    let mut x =
        home.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ seq.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ 1;
    for chunk in b.chunks_exact_mut(8) {
        // splitmix64
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    b
}

/// FNV-1a, 64-bit.
fn fnv(h: u64, bytes: &[u8]) -> u64 {
    let mut h = h;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
const FNV0: u64 = 0xcbf2_9ce4_8422_2325;

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn data_sum(seq: u64, data: &[Block]) -> u64 {
    data.iter()
        .fold(fnv(FNV0, &seq.to_le_bytes()), |h, d| fnv(h, &d[..]))
}

/// Descriptor layout: magic, seq, n, data checksum (0 without checksums), header
/// checksum over everything else, then n home block numbers.
fn descriptor(seq: u64, homes: &[u64], sum: u64) -> Block {
    let mut b = zero_block();
    b[0..4].copy_from_slice(DESC);
    b[4..12].copy_from_slice(&seq.to_le_bytes());
    b[12..20].copy_from_slice(&(homes.len() as u64).to_le_bytes());
    b[20..28].copy_from_slice(&sum.to_le_bytes());
    for (i, h) in homes.iter().enumerate() {
        b[40 + 8 * i..48 + 8 * i].copy_from_slice(&h.to_le_bytes());
    }
    let end = 40 + 8 * homes.len();
    let hsum = fnv(fnv(FNV0, &b[0..28]), &b[40..end]);
    b[28..36].copy_from_slice(&hsum.to_le_bytes());
    b
}

struct Desc {
    seq: u64,
    homes: Vec<u64>,
    sum: u64,
}

fn parse_descriptor(b: &[u8; BLOCK_BYTES]) -> Option<Desc> {
    if &b[0..4] != DESC {
        return None;
    }
    let n = u64_at(b, 12) as usize;
    if n == 0 || n > MAX_TX_BLOCKS {
        return None;
    }
    let end = 40 + 8 * n;
    if fnv(fnv(FNV0, &b[0..28]), &b[40..end]) != u64_at(b, 28) {
        return None;
    }
    Some(Desc {
        seq: u64_at(b, 4),
        homes: (0..n).map(|i| u64_at(b, 40 + 8 * i)).collect(),
        sum: u64_at(b, 20),
    })
}

/// Commit layout: magic, seq, the descriptor's log block, checksum of those.
fn commit_block(seq: u64, at: u64) -> Block {
    let mut b = zero_block();
    b[0..4].copy_from_slice(COMMIT);
    b[4..12].copy_from_slice(&seq.to_le_bytes());
    b[12..20].copy_from_slice(&at.to_le_bytes());
    let s = fnv(FNV0, &b[0..20]);
    b[20..28].copy_from_slice(&s.to_le_bytes());
    b
}

fn parse_commit(b: &[u8; BLOCK_BYTES]) -> Option<(u64, u64)> {
    (&b[0..4] == COMMIT && fnv(FNV0, &b[0..20]) == u64_at(b, 20))
        .then(|| (u64_at(b, 4), u64_at(b, 12)))
}

/// The journal superblock recording that every transaction up to `upto` is home.
pub fn super_block(upto: u64) -> Block {
    let mut b = zero_block();
    b[0..4].copy_from_slice(SUPER);
    b[4..12].copy_from_slice(&upto.to_le_bytes());
    let s = fnv(FNV0, &b[0..12]);
    b[12..20].copy_from_slice(&s.to_le_bytes());
    b
}

fn parse_super(b: &[u8; BLOCK_BYTES]) -> u64 {
    if &b[0..4] == SUPER && fnv(FNV0, &b[0..12]) == u64_at(b, 12) {
        u64_at(b, 4)
    } else {
        0
    }
}

/// What recovery found and rebuilt.
#[derive(Debug)]
pub struct Recovered {
    /// The device image with committed transactions replayed home.
    pub image: BlockStore,
    pub log_blocks: u64,
    /// The superblock's checkpoint.
    pub checkpoint: u64,
    /// Transactions replayed (sequence numbers checkpoint+1 ..= checkpoint+replayed).
    pub replayed: u64,
}

impl Recovered {
    /// Application block `b` after recovery.
    pub fn read(&self, b: u64) -> Block {
        self.image.read(1 + self.log_blocks + b)
    }

    /// Application block `b` after recovery if its bytes pass the checksum kept with
    /// it in `sums` (a block never written must read as zeros); `None`: unreadable.
    pub fn read_checked(&self, b: u64, sums: &HashMap<u64, Vec<(u64, u64)>>) -> Option<Block> {
        let got = self.read(b);
        home_ok(b, &got, sums).then_some(got)
    }
}

/// Whether `got` may be application block `b`'s contents: it passes a checksum kept
/// with the block in `sums`, or, for a block never written, is all zeros.
pub fn home_ok(b: u64, got: &Block, sums: &HashMap<u64, Vec<(u64, u64)>>) -> bool {
    match sums.get(&b) {
        Some(c) => {
            let s = home_sum(b, got);
            c.iter().any(|&(_, want)| want == s)
        }
        None => got.iter().all(|&x| x == 0),
    }
}

/// Recovery after a crash: reads the superblock and the whole log (`log_blocks`
/// blocks after it), orders descriptors by sequence number, and replays the
/// transactions after the checkpoint that are committed (a commit block naming the
/// descriptor, or in `checksum` mode data matching the descriptor's checksum), in
/// order, up to the first that is missing or not committed.
pub fn recover(image: &BlockStore, log_blocks: u64, checksum: bool) -> Recovered {
    let checkpoint = parse_super(&image.read(0));
    let mut descs: BTreeMap<u64, Vec<(u64, Desc)>> = BTreeMap::new();
    let mut commits: HashMap<u64, Vec<u64>> = HashMap::new();
    for i in 0..log_blocks {
        // Only written blocks can hold records.
        if !image.contains(1 + i) {
            continue;
        }
        let b = image.read(1 + i);
        if let Some(d) = parse_descriptor(&b) {
            if d.seq > checkpoint && i + (d.homes.len() as u64) < log_blocks {
                descs.entry(d.seq).or_default().push((i, d));
            }
        } else if let Some((seq, at)) = parse_commit(&b) {
            commits.entry(seq).or_default().push(at);
        }
    }
    let mut img = image.clone();
    let mut replayed = 0;
    let mut seq = checkpoint + 1;
    while let Some(cands) = descs.get(&seq) {
        let mut chosen = None;
        for (at, d) in cands {
            let data: Vec<Block> = (0..d.homes.len() as u64)
                .map(|k| image.read(1 + at + 1 + k))
                .collect();
            let ok = if checksum {
                data_sum(d.seq, &data) == d.sum
            } else {
                commits.get(&seq).is_some_and(|c| c.contains(at))
            };
            if ok {
                chosen = Some((d, data));
                break;
            }
        }
        let Some((d, data)) = chosen else { break };
        for (h, bytes) in d.homes.iter().zip(&data) {
            img.write(1 + log_blocks + h, bytes);
        }
        replayed += 1;
        seq += 1;
    }
    Recovered {
        image: img,
        log_blocks,
        checkpoint,
        replayed,
    }
}

impl Journal {
    fn id(&mut self, op: Op) -> u64 {
        self.next_id += 1;
        self.ops.insert(self.next_id, op);
        self.next_id
    }

    /// Issues a write of `blocks` (device block, bytes) starting at device block `at`.
    fn write(&mut self, at: u64, blocks: Vec<Block>, op: Op, io: &mut LayerIo) {
        let n = blocks.len() as u64;
        let id = self.id(op);
        let list = blocks
            .into_iter()
            .enumerate()
            .map(|(k, b)| (at + k as u64, b))
            .collect();
        self.inside.borrow_mut().inflight.insert(id, list);
        io.below.push(Request {
            id,
            lbn: at * SECTORS_PER_BLOCK,
            blocks: (n * SECTORS_PER_BLOCK) as u32,
            write: true,
        });
    }

    fn home(&self, b: u64) -> u64 {
        1 + self.log_blocks + b
    }

    fn fits(&self, at: u64, n: u64) -> bool {
        at + n <= self.log_blocks && self.used[at as usize..(at + n) as usize].iter().all(|u| !u)
    }

    /// Where a log write of `n` blocks goes: (log block, the advice followed, if any).
    fn place(&mut self, n: u64, think_ns: u64) -> Option<(u64, Option<Cell>)> {
        let mut want = self.cursor as i64;
        let mut advice = None;
        if self.skip {
            if let Some(a) = self
                .table
                .as_ref()
                .and_then(|t| t.recommend((n * 4) as u32, think_ns))
            {
                want += i64::from(a.skip_kib / 4);
                advice = Some(a.cell);
            }
        }
        let l = self.log_blocks as i64;
        let want = want.rem_euclid(l) as u64;
        if self.fits(want, n) {
            return Some((want, advice));
        }
        // The next place in the log that fits, wrapping once.
        let l = self.log_blocks;
        let mut run = 0u64;
        for k in 0..l + n {
            let i = (want + k) % l;
            if i == 0 {
                run = 0;
            }
            if self.used[i as usize] {
                run = 0;
            } else {
                run += 1;
                if run == n {
                    return Some((i + 1 - n, None));
                }
            }
        }
        None
    }

    fn take(&mut self, at: u64, n: u64) {
        for u in &mut self.used[at as usize..(at + n) as usize] {
            *u = true;
        }
        self.free -= n;
    }

    /// Starts the next transaction or a cleaning, if idle.
    fn pump(&mut self, now: SimTime, io: &mut LayerIo) {
        if !matches!(self.phase, Phase::Idle) {
            return;
        }
        let Some(&(req, arrived, done)) = self.queue.front() else {
            return;
        };
        let first = req.lbn / SECTORS_PER_BLOCK;
        let last = (req.lbn + u64::from(req.blocks.max(1)) - 1) / SECTORS_PER_BLOCK;
        let all: Vec<u64> = (first..=last).collect();
        let homes: Vec<u64> = all[done..].iter().copied().take(self.max_homes).collect();
        let n = homes.len() as u64 + 1 + u64::from(self.checksum);
        let think = now.0.saturating_sub(self.last_done.0);
        let placed = if self.free < self.clean_below + n {
            None
        } else {
            self.place(n, think)
        };
        let Some((at, advice)) = placed else {
            self.start_clean(now, io);
            return;
        };
        self.queue.pop_front();
        let is_last = done + homes.len() == all.len();
        if !is_last {
            self.queue.push_front((req, arrived, done + homes.len()));
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let data: Vec<Block> = homes.iter().map(|&h| payload(h, seq)).collect();
        let sum = if self.checksum {
            data_sum(seq, &data)
        } else {
            0
        };
        let mut blocks = vec![descriptor(seq, &homes, sum)];
        blocks.extend(data);
        if self.checksum {
            blocks.push(commit_block(seq, at));
        }
        self.take(at, n);
        let obs = self.observed(at, n, advice, think, now);
        {
            let mut inside = self.inside.borrow_mut();
            for (&h, d) in homes.iter().zip(&blocks[1..]) {
                inside
                    .sums
                    .entry(h)
                    // A block never written holds zeros until a transaction writing it
                    // commits (sequence 0 is older than any).
                    .or_insert_with(|| vec![(0, home_sum(h, &zero_block()))])
                    .push((seq, home_sum(h, d)));
            }
            inside.txs.push((seq, homes.clone(), req.id));
        }
        self.write(1 + at, blocks, Op::Record(obs), io);
        self.cursor = at + n;
        self.phase = Phase::Record(Tx {
            req,
            arrived,
            seq,
            homes,
            at,
            last: is_last,
        });
    }

    /// The context of a log write placed at `at`, for timing it when it completes.
    fn observed(&mut self, at: u64, n: u64, advice: Option<Cell>, think: u64, now: SimTime) -> Obs {
        if advice.is_some() {
            self.stats.skipped += 1;
        } else if self.skip {
            self.stats.fallback += 1;
        }
        Obs {
            issued: now,
            blocks: n,
            skip_kib: (at as i64 - self.cursor as i64) * 4,
            think,
            advice,
        }
    }

    /// A log write completed: its statistics and miniMimic's refinement.
    fn log_done(&mut self, o: &Obs, record: bool, now: SimTime) {
        let ns = now.0.saturating_sub(o.issued.0);
        self.stats.log_writes += 1;
        self.stats.log_bytes += o.blocks * BLOCK_BYTES as u64;
        self.stats.log_ns += ns;
        self.last_done = now;
        if self.refine {
            if let (Some(t), Ok(skip)) = (self.table.as_mut(), i32::try_from(o.skip_kib)) {
                t.observe((o.blocks * 4) as u32, o.think, skip, ns);
            }
        }
        self.inside.borrow_mut().log_writes.push(LogWrite {
            record,
            blocks: o.blocks,
            skip_kib: o.skip_kib,
            predicted: o.advice,
            actual_ns: ns,
        });
    }

    /// The transaction is durable: its blocks are dirty, the application hears.
    fn committed(&mut self, tx: Tx, now: SimTime, io: &mut LayerIo) {
        let mut inside = self.inside.borrow_mut();
        for &h in &tx.homes {
            self.dirty.insert(h, tx.seq);
            // Durable: older contents of the block are no longer allowed.
            if let Some(c) = inside.sums.get_mut(&h) {
                c.retain(|&(s, _)| s >= tx.seq);
            }
        }
        drop(inside);
        self.stats.transactions += 1;
        if tx.last {
            io.up.push(Done::served(tx.req, tx.arrived, now));
        }
        self.phase = Phase::Idle;
    }

    /// Writes every dirty block home, in runs of neighbouring blocks.
    fn start_clean(&mut self, now: SimTime, io: &mut LayerIo) {
        self.stats.cleanings += 1;
        self.inside.borrow_mut().cleanings += 1;
        let upto = self.next_seq - 1;
        let dirty: Vec<(u64, u64)> = self.dirty.iter().map(|(&h, &s)| (h, s)).collect();
        let mut runs: Vec<Vec<(u64, u64)>> = Vec::new();
        for (h, s) in dirty {
            match runs.last_mut() {
                Some(r)
                    if r.last().is_some_and(|&(p, _)| p + 1 == h)
                        && (r.len() as u64) < MAX_CHECKPOINT_RUN =>
                {
                    r.push((h, s))
                }
                _ => runs.push(vec![(h, s)]),
            }
        }
        let left = runs.len();
        for r in runs {
            let at = self.home(r[0].0);
            let blocks = r.iter().map(|&(h, s)| payload(h, s)).collect();
            self.write(at, blocks, Op::Checkpoint, io);
        }
        self.phase = Phase::Clean {
            left,
            since: now,
            upto,
        };
        if left == 0 {
            self.write_super(now, upto, io);
        }
    }

    fn write_super(&mut self, since: SimTime, upto: u64, io: &mut LayerIo) {
        self.write(0, vec![super_block(upto)], Op::Super, io);
        self.phase = Phase::Super { since };
    }
}

/// A log write's context.
#[derive(Clone, Copy, Debug)]
struct Obs {
    issued: SimTime,
    blocks: u64,
    skip_kib: i64,
    think: u64,
    advice: Option<Cell>,
}

impl Layer for Journal {
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo) {
        if req.write {
            self.stats.writes += 1;
            self.queue.push_back((req, now, 0));
            self.pump(now, io);
            return;
        }
        self.stats.reads += 1;
        let first = req.lbn / SECTORS_PER_BLOCK;
        let last = (req.lbn + u64::from(req.blocks.max(1)) - 1) / SECTORS_PER_BLOCK;
        if (first..=last).all(|b| self.dirty.contains_key(&b)) {
            // The newest contents are in memory (the page cache of ext3).
            io.complete_now(req, now);
            return;
        }
        self.reads += 1;
        let id = self.id(Op::Read(req));
        io.below.push(Request {
            id,
            lbn: req.lbn + (1 + self.log_blocks) * SECTORS_PER_BLOCK,
            ..req
        });
    }

    fn on_complete(&mut self, now: SimTime, done: &Done, io: &mut LayerIo) {
        let Some(op) = self.ops.remove(&done.req.id) else {
            return;
        };
        {
            let mut inside = self.inside.borrow_mut();
            let inside = &mut *inside;
            if let Some(blocks) = inside.inflight.remove(&done.req.id) {
                if let Some(m) = &inside.media {
                    if !blocks.is_empty() {
                        m.borrow_mut().write(now, &blocks);
                    }
                } else {
                    match inside.faults.as_mut() {
                        Some(f) if !blocks.is_empty() => f.apply(&mut inside.image, &blocks),
                        _ => {
                            for (b, data) in &blocks {
                                inside.image.write(*b, data);
                            }
                        }
                    }
                }
            }
        }
        match op {
            Op::Read(req) => {
                self.reads -= 1;
                io.up.push(Done { req, ..*done });
            }
            Op::Record(o) => {
                self.log_done(&o, true, now);
                let Phase::Record(tx) = std::mem::replace(&mut self.phase, Phase::Idle) else {
                    return;
                };
                if self.checksum {
                    self.committed(tx, now, io);
                } else {
                    // The commit block, placed like any log write (think time 0).
                    let (at, advice) = self
                        .place(1, 0)
                        .unwrap_or((self.cursor % self.log_blocks, None));
                    self.take(at, 1);
                    let obs = self.observed(at, 1, advice, 0, now);
                    self.write(
                        1 + at,
                        vec![commit_block(tx.seq, tx.at)],
                        Op::Commit(obs),
                        io,
                    );
                    self.cursor = at + 1;
                    self.phase = Phase::Commit(tx);
                }
            }
            Op::Commit(o) => {
                self.log_done(&o, false, now);
                if let Phase::Commit(tx) = std::mem::replace(&mut self.phase, Phase::Idle) {
                    self.committed(tx, now, io);
                }
            }
            Op::Checkpoint => {
                if let Phase::Clean { left, since, upto } = self.phase {
                    if left <= 1 {
                        self.write_super(since, upto, io);
                    } else {
                        self.phase = Phase::Clean {
                            left: left - 1,
                            since,
                            upto,
                        };
                    }
                }
            }
            Op::Super => {
                if let Phase::Super { since } = self.phase {
                    // Everything up to `upto` is home: the whole log is free again.
                    self.dirty.clear();
                    self.used.iter_mut().for_each(|u| *u = false);
                    self.free = self.log_blocks;
                    self.stats.clean_ns += now.0.saturating_sub(since.0);
                    self.phase = Phase::Idle;
                }
            }
        }
        self.pump(now, io);
    }

    fn on_timer(&mut self, _now: SimTime, _token: u64, _io: &mut LayerIo) {}

    fn outstanding(&self) -> usize {
        let tx = usize::from(matches!(self.phase, Phase::Record(_) | Phase::Commit(_)));
        // A transaction in flight is also still at the queue's front when it is not
        // the application request's last part.
        let queued = self.queue.len()
            + match &self.phase {
                Phase::Record(t) | Phase::Commit(t) if t.last => tx,
                _ => 0,
            };
        queued + self.reads
    }

    fn describe(&self) -> String {
        format!(
            "journal {} MiB log{}{}",
            self.log_blocks / 256,
            if self.skip { ", log skipping" } else { "" },
            if self.checksum {
                ", transactional checksums"
            } else {
                ", commit blocks"
            }
        )
    }

    fn report(&self, path: &str) -> NodeReport {
        let s = &self.stats;
        let kv = |k: &str, v: u64| (k.to_string(), v.to_string());
        NodeReport {
            path: path.into(),
            kind: "journal".into(),
            reads: s.reads,
            writes: s.writes,
            busy_ns: 0,
            extra: vec![
                kv("transactions", s.transactions),
                kv("log writes", s.log_writes),
                kv("log bytes", s.log_bytes),
                kv("log io ns", s.log_ns),
                kv("cleanings", s.cleanings),
                kv("cleaning ns", s.clean_ns),
                kv("writes at the recommended skip", s.skipped),
                kv("writes at the next free place", s.fallback),
            ],
            is_drive: false,
        }
    }

    fn capacity(&self, below: u64) -> u64 {
        below.saturating_sub((1 + self.log_blocks) * SECTORS_PER_BLOCK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::drive::Drive;
    use crate::disk::presets::preset;
    use crate::engine::{Step, Stepper};
    use crate::mimic::minimimic::{sample, Grid, Region};
    use crate::node::Device;
    use crate::stack::drive_node::DriveNode;
    use crate::stack::layer::LayerNode;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashSet;

    #[test]
    fn a_layer_option_given_twice_is_refused() {
        let ok = JournalSpec::parse_cli("journal:checksum:log-mib=8").unwrap();
        assert!(ok.checksum && ok.log_mib == 8);
        for twice in ["journal:log-mib=1:log-mib=2", "journal:checksum:checksum"] {
            let e = JournalSpec::parse_cli(twice).unwrap_err();
            assert!(e.contains(twice) && e.contains("twice"), "{e}");
        }
    }

    /// Application blocks the workloads touch (small: blocks are rewritten often).
    const HOME: u64 = 40;
    /// A 3 MiB log (the smallest that holds a largest transaction above the default
    /// cleaning threshold): cleaned every few dozen transactions.
    const LOG_MIB: u64 = 3;

    fn drive() -> Box<dyn Device> {
        Box::new(DriveNode::new(
            Drive::new(preset("mimic-9lzx").unwrap()).unwrap(),
            "disk",
        ))
    }

    fn table() -> SharedTable {
        let grid = Grid {
            skips_kib: (0..=160).step_by(4).collect(),
            sizes_kib: (4..=40).step_by(4).collect(),
            thinks_us: vec![0, 2000, 4000],
            samples: 2,
        };
        let mut d = drive();
        let region = Region {
            start: 8,
            sectors: LOG_MIB * 256 * 8,
        };
        SharedTable(Rc::new(sample(d.as_mut(), region, grid, 3).unwrap()))
    }

    fn workload(seed: u64, n: usize) -> Vec<(SimTime, Request)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut t = 0u64;
        (0..n as u64)
            .map(|id| {
                t += rng.gen_range(0..6_000_000u64);
                let write = rng.gen_bool(0.8);
                let b = rng.gen_range(0..HOME - 8);
                let off = if rng.gen_bool(0.2) {
                    rng.gen_range(0..8)
                } else {
                    0
                };
                let sectors = rng.gen_range(1..=6 * 8 - off) as u32;
                (
                    SimTime(t),
                    Request {
                        id,
                        lbn: b * 8 + off,
                        blocks: sectors,
                        write,
                    },
                )
            })
            .collect()
    }

    struct Cut {
        probe: Probe,
        acked: HashSet<u64>,
        events: usize,
    }

    /// Runs the workload on a fresh journal, stopping after `cut` events.
    fn run(spec: &JournalSpec, wl: &[(SimTime, Request)], cut: Option<usize>) -> Cut {
        let mut spec = spec.clone();
        let probe = Probe::default();
        spec.probe = Some(probe.clone());
        let mut node = LayerNode::new(Box::new(spec.build().unwrap()), drive());
        let mut st: Stepper<Request> = Stepper::new(SimTime::ZERO, false);
        for (t, r) in wl {
            st.schedule(*t, *r).unwrap();
        }
        let (mut out, mut acked, mut events) = (Vec::new(), HashSet::new(), 0);
        while cut != Some(events) {
            match st.step(&mut node, false, None, &mut out).unwrap() {
                Step::Arrival { now, event } => node.submit(now, event),
                Step::Woken { .. } => {
                    for d in &out {
                        assert!(!d.req.write || acked.insert(d.req.id), "completed twice");
                    }
                }
                Step::Idle | Step::Beyond(_) => break,
            }
            events += 1;
        }
        Cut {
            probe,
            acked,
            events,
        }
    }

    /// Whether `rec` is the application state after the first `k` transactions for
    /// some `k` that includes every acknowledged write's transactions.
    fn consistent(rec: &Recovered, c: &Cut) -> Result<usize, String> {
        let inside = c.probe.0.borrow();
        let txs = &inside.txs;
        let need = txs
            .iter()
            .rposition(|t| c.acked.contains(&t.2))
            .map_or(0, |i| i + 1);
        let actual: Vec<Block> = (0..HOME).map(|b| rec.read(b)).collect();
        for k in need..=txs.len() {
            let mut newest: HashMap<u64, u64> = HashMap::new();
            for (seq, homes, _) in &txs[..k] {
                for &h in homes {
                    newest.insert(h, *seq);
                }
            }
            let ok = (0..HOME).all(|b| {
                let want = newest.get(&b).map_or_else(zero_block, |&s| payload(b, s));
                actual[b as usize] == want
            });
            if ok {
                return Ok(k);
            }
        }
        Err(format!(
            "after recovery the home blocks match no prefix of {} transactions with at least {need} (acknowledged)",
            txs.len()
        ))
    }

    /// Cuts power after every event of several seeded runs; returns (cut points,
    /// cuts with a write in flight).
    fn crash_everywhere(spec: &JournalSpec, seeds: &[u64], n: usize) -> (usize, usize) {
        let (mut points, mut torn) = (0, 0);
        for &seed in seeds {
            let wl = workload(seed, n);
            let full = run(spec, &wl, None);
            let writes = wl.iter().filter(|(_, r)| r.write).count();
            assert_eq!(
                full.acked.len(),
                writes,
                "seed {seed}: every write acknowledged"
            );
            let img = full.probe.0.borrow().image.clone();
            let rec = recover(&img, full.probe.0.borrow().log_blocks, spec.checksum);
            let k = consistent(&rec, &full).unwrap();
            assert_eq!(k, full.probe.0.borrow().txs.len());
            for cut in 0..full.events {
                let c = run(spec, &wl, Some(cut));
                let mut rng = ChaCha8Rng::seed_from_u64(seed * 1_000_003 + cut as u64);
                let img = c.probe.0.borrow().cut(&mut rng);
                torn += usize::from(!c.probe.0.borrow().inflight.is_empty());
                let rec = recover(&img, c.probe.0.borrow().log_blocks, spec.checksum);
                if let Err(e) = consistent(&rec, &c) {
                    panic!("seed {seed}, power cut after event {cut}: {e}");
                }
                points += 1;
            }
        }
        eprintln!("{points} power cuts, {torn} with a write in flight, 0 inconsistent");
        (points, torn)
    }

    fn spec(checksum: bool, skip: bool) -> JournalSpec {
        let mut s = JournalSpec::new(checksum, skip, LOG_MIB);
        if skip {
            s.table = Some(table());
        }
        s
    }

    const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];
    const REQUESTS: usize = 110;

    #[test]
    fn crash_anywhere_plain_log_loses_and_tears_nothing() {
        let (points, torn) = crash_everywhere(&spec(false, false), &SEEDS, REQUESTS);
        assert!(
            points >= 1000 && torn >= 300,
            "{points} cut points, {torn} torn"
        );
    }

    #[test]
    fn crash_anywhere_checksums_lose_and_tear_nothing() {
        let (points, torn) = crash_everywhere(&spec(true, false), &SEEDS, REQUESTS);
        assert!(
            points >= 1000 && torn >= 300,
            "{points} cut points, {torn} torn"
        );
    }

    #[test]
    fn crash_anywhere_log_skipping_loses_and_tears_nothing() {
        let (points, torn) = crash_everywhere(&spec(false, true), &SEEDS, REQUESTS);
        assert!(
            points >= 1000 && torn >= 300,
            "{points} cut points, {torn} torn"
        );
    }

    #[test]
    fn crash_anywhere_skipping_with_checksums_loses_and_tears_nothing() {
        let (points, torn) = crash_everywhere(&spec(true, true), &SEEDS, REQUESTS);
        assert!(
            points >= 1000 && torn >= 300,
            "{points} cut points, {torn} torn"
        );
    }

    /// The long run (`cargo test --release -p spindle --lib journal -- --ignored`):
    /// 50 seeds, every event of each, in each mode.
    #[test]
    #[ignore]
    fn crash_anywhere_long_run_every_mode() {
        let seeds: Vec<u64> = (1..=50).collect();
        for (ck, sk) in [(false, false), (true, false), (false, true), (true, true)] {
            let (points, _) = crash_everywhere(&spec(ck, sk), &seeds, REQUESTS);
            eprintln!("checksum {ck}, skip {sk}: {points} power cuts");
            assert!(points >= 10_000);
        }
    }

    #[test]
    fn log_is_cleaned_and_skipping_is_faster_than_a_sequential_log() {
        let wl: Vec<(SimTime, Request)> = (0..300u64)
            .map(|i| {
                (
                    SimTime(0),
                    Request {
                        id: i,
                        lbn: (i % HOME) * 8,
                        blocks: 8,
                        write: true,
                    },
                )
            })
            .collect();
        let mut per = Vec::new();
        for skip in [false, true] {
            let c = run(&spec(false, skip), &wl, None);
            let inside = c.probe.0.borrow();
            let ns: u64 = inside.log_writes.iter().map(|w| w.actual_ns).sum();
            per.push(ns as f64 / inside.log_writes.len() as f64);
            assert_eq!(c.acked.len(), 300);
            // The superblock is written only by a cleaning.
            assert!(inside.image.contains(0), "the log was never cleaned");
        }
        assert!(per[1] < per[0] / 2.0, "{per:?}");
        let s = spec(false, false).build().unwrap();
        assert_eq!(s.capacity(1 << 20), (1 << 20) - (1 + LOG_MIB * 256) * 8);
    }

    /// Logs the check lets through, down to the tightest (a 2 MiB log carries one home
    /// block per transaction), serve the largest writes: each completes, in a bounded
    /// number of events (before, a log with no room for them cleaned an empty log for
    /// ever).
    #[test]
    fn the_smallest_log_accepted_serves_the_largest_writes() {
        let tight = |mib: u64, pct: u32| {
            let mut s = JournalSpec::new(false, false, mib);
            s.clean_below_pct = pct;
            s
        };
        for s in [
            spec(false, false),
            spec(true, false),
            tight(2, 25),
            tight(4, 99),
        ] {
            let what = (s.checksum, s.log_mib, s.clean_below_pct);
            let sectors = (MAX_TX_BLOCKS * 8) as u32;
            let wl: Vec<(SimTime, Request)> = (0..3u64)
                .map(|id| {
                    let r = Request {
                        id,
                        lbn: id * 8,
                        blocks: sectors,
                        write: true,
                    };
                    (SimTime(id * 1_000_000), r)
                })
                .collect();
            let c = run(&s, &wl, Some(1_000_000));
            assert!(c.events < 1_000_000, "{what:?}: did not finish");
            assert_eq!(c.acked.len(), 3, "{what:?}");
        }
    }

    #[test]
    fn bad_specs_are_clear_errors() {
        let e = |s: JournalSpec| s.build().err().unwrap();
        assert!(e(JournalSpec::new(false, false, 0)).contains("log-mib 0"));
        assert!(e(JournalSpec::new(false, true, 40)).contains("miniMimic"));
        assert!(e(JournalSpec::new(false, false, 1)).contains("no room for a transaction"));
        // A transaction must fit above the cleaning threshold, or it would never start.
        assert!(e(JournalSpec::new(true, false, 2)).contains("no room for a transaction"));
        let mut s = JournalSpec::new(false, true, 40);
        s.minimimic = Some("/nonexistent/t.mimic".into());
        assert!(e(s).contains("/nonexistent/t.mimic"));
    }
}
