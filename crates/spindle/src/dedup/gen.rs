//! The content-trace generator: a **synthetic stand-in for the FIU traces** (web-vm,
//! mail, homes) of the I/O Deduplication paper, which cannot be shipped here. Its
//! parameters are the workloads' *published characteristics only* ([`Published`], each
//! with its source); no outcome figure of the paper (F1, F2, F8–F11, T3) is an input,
//! and nothing here is tuned to one. When a user has the real traces, the same
//! experiments take them instead.
//!
//! Two parts, both computed on demand (memory bounded by the parameters, never by the
//! trace's length):
//!
//! * [`Layout`], the initial disk image: which content each page of the file system
//!   holds. The rule, stated before any run: `unique` contents (Table 2, scaled) whose
//!   copy counts are geometric with mean `total / unique` (Table 2), capped at 1,000
//!   copies (F3's cap); every copy is one slot of `total` slots, and slots are scattered
//!   over the file system (outside the journal) by a seeded pseudo-random permutation.
//!   Pages no slot lands on are zero pages. The journal is a contiguous region in the
//!   middle of the file system (assumed: the paper does not say where it is).
//! * [`ContentTrace`], an iterator of one-page requests with their content digests, day
//!   after day. Reads: each 3-day interval (F4's unit) has a read set of sectors; a
//!   fraction `overlap` (F4) of it is carried over from the previous interval's read
//!   set, the rest is new. Each new read sector first draws its copy count k, geometric
//!   with mean 2.5 (F3's workload static similarity, an average over the blocks read).
//!   It is then another copy (not yet in the set) of a content with k copies already in
//!   the set (the same file read in two places) while such sectors are fewer than a
//!   share `1 − rc/rs` of the new sectors (rc/rs = Table 1's unique read content over
//!   unique read sectors; kept as a running quota); otherwise a copy of a content with
//!   k copies never read before (each class of contents is walked in a seeded
//!   pseudo-random order, so new content is new to the trace). The set's size is chosen
//!   so that a week's unique read sectors are Table 1's. Within an interval the set is
//!   read in shuffled rounds (every sector about `reads / unique sectors` times a week,
//!   Table 1). Writes: cyclic over the journal, whose size is Table 1's unique write
//!   sectors; a running quota makes a share `unique write content / write volume`
//!   (Table 1) of them new content, the others repeat one of the last 4,096 written
//!   contents. Requests of a day are
//!   spread evenly over it with a random jitter (the paper's per-day volumes, Table 1 /
//!   7), reads and writes interleaved in proportion. Reads are issued when drawn; writes
//!   are issued as **write-back flushes**: the traces were captured below an active page
//!   cache (§2), where writes "are committed to persistent storage in the background"
//!   (§2) by the kernel's periodic write-back, so each write waits for the end of its
//!   [`FLUSH_S`]-second window (Linux's default write-back and ext3 commit interval)
//!   and the window's writes arrive together. The window is counted at the workload's
//!   traced request rate (`FLUSH_S / scale` seconds of generated time), so a scaled
//!   trace replayed at `1/scale` flushes every `FLUSH_S` seconds with the traced
//!   number of writes. `accel` compresses time as the paper's replay did (up to 100×).
//!
//! `scale` multiplies every page count (volumes, unique counts, Table 2's pages) but not
//! the file system's size, so the geometry of the disk stays the paper's while runs stay
//! short. Digests are synthetic identifiers (tagged, never real MD5s of data).

use super::{Digest, PAGE_SECTORS};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The three FIU workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FiuWorkload {
    WebVm,
    Mail,
    Homes,
}

impl FiuWorkload {
    pub const ALL: [FiuWorkload; 3] = [FiuWorkload::WebVm, FiuWorkload::Mail, FiuWorkload::Homes];

    pub fn name(self) -> &'static str {
        match self {
            FiuWorkload::WebVm => "web-vm",
            FiuWorkload::Mail => "mail",
            FiuWorkload::Homes => "homes",
        }
    }

    pub fn parse(s: &str) -> Result<FiuWorkload, String> {
        FiuWorkload::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| format!("workload must be web-vm, mail or homes, got `{s}`"))
    }

    /// The published characteristics.
    pub fn published(self) -> Published {
        // Table 1 (GB per week), Table 2 (millions of pages), F4 (average overlap).
        let (fs, rt, rs, rc, wt, ws, wc, uniq, total, overlap) = match self {
            FiuWorkload::WebVm => (70.0, 3.40, 1.27, 1.09, 11.46, 0.86, 4.85, 1.9, 5.2, 0.85),
            FiuWorkload::Mail => (
                500.0, 62.0, 29.24, 28.82, 482.10, 4.18, 34.02, 27.0, 73.0, 0.45,
            ),
            FiuWorkload::Homes => (
                470.0, 5.79, 2.40, 1.99, 148.86, 4.33, 33.68, 62.0, 183.0, 0.60,
            ),
        };
        Published {
            fs_gb: fs,
            reads_total_gb: rt,
            reads_sectors_gb: rs,
            reads_content_gb: rc,
            writes_total_gb: wt,
            writes_sectors_gb: ws,
            writes_content_gb: wc,
            unique_pages_m: uniq,
            total_pages_m: total,
            read_similarity: 2.5,
            overlap,
        }
    }
}

/// A workload's published characteristics, the generator's only inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// Table 1: file system size, GB.
    pub fs_gb: f64,
    /// Table 1, one week: reads total / unique sectors / unique content, GB.
    pub reads_total_gb: f64,
    pub reads_sectors_gb: f64,
    pub reads_content_gb: f64,
    /// Table 1, one week: writes total / unique sectors / unique content, GB.
    pub writes_total_gb: f64,
    pub writes_sectors_gb: f64,
    pub writes_content_gb: f64,
    /// Table 2: unique and total (non-zero) pages on disk, millions.
    pub unique_pages_m: f64,
    pub total_pages_m: f64,
    /// F3: workload static similarity (copies of blocks read, capped at 1,000).
    pub read_similarity: f64,
    /// F4: average content overlap of a 3-day interval's reads with the previous one.
    pub overlap: f64,
}

impl Published {
    /// `(name, value, source)` rows for the report.
    pub fn rows(&self) -> Vec<(&'static str, f64, &'static str)> {
        vec![
            ("file system, GB", self.fs_gb, "Table 1"),
            ("reads per week, GB", self.reads_total_gb, "Table 1"),
            (
                "unique sectors read per week, GB",
                self.reads_sectors_gb,
                "Table 1",
            ),
            (
                "unique content read per week, GB",
                self.reads_content_gb,
                "Table 1",
            ),
            ("writes per week, GB", self.writes_total_gb, "Table 1"),
            (
                "unique sectors written per week, GB",
                self.writes_sectors_gb,
                "Table 1",
            ),
            (
                "unique content written per week, GB",
                self.writes_content_gb,
                "Table 1",
            ),
            (
                "unique pages on disk, millions",
                self.unique_pages_m,
                "Table 2",
            ),
            (
                "non-zero pages on disk, millions",
                self.total_pages_m,
                "Table 2",
            ),
            (
                "copies of blocks read (cap 1000)",
                self.read_similarity,
                "Figure 3 / §2.2",
            ),
            (
                "3-day read overlap with previous interval",
                self.overlap,
                "Figure 4 / §2.3",
            ),
        ]
    }
}

/// GB (10^9 bytes, as Table 1 prints them) in 4 KiB pages.
fn gb_pages(gb: f64) -> f64 {
    gb * 1e9 / 4096.0
}

/// Most copies a content has (F3's cap).
pub const MAX_COPIES: u64 = 1000;
/// Largest scale (1 = the paper's volumes).
pub const MAX_SCALE: f64 = 1.0;
/// Most days a trace may run.
pub const MAX_DAYS: u32 = 366;
/// Contents remembered for repeated writes.
const WRITE_RING: usize = 4096;
/// Days per F4 interval.
pub const INTERVAL_DAYS: u32 = 3;
const DAY_NS: u64 = 86_400 * 1_000_000_000;
/// The golden ratio's fractional part: the step of the copy-count sequence.
const WEYL: f64 = 0.618_033_988_749_894_9;
/// Write-back interval, seconds at the traced request rate: Linux's default
/// (`dirty_writeback_centisecs` = 500) and ext3's default commit interval, both 5 s.
pub const FLUSH_S: f64 = 5.0;

/// What to generate (`[[layer]] kind = "drr"` `preload = {…}` takes the same table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ContentTraceSpec {
    pub workload: FiuWorkload,
    /// Multiplies every page count, not the file system's size; (0, 1].
    pub scale: f64,
    /// Days of trace (1..=366).
    #[serde(default = "default_days")]
    pub days: u32,
    /// Replay acceleration, 1..=100 (the paper replayed at up to 100×).
    #[serde(default = "default_accel")]
    pub accel: f64,
    #[serde(default)]
    pub seed: u64,
}

fn default_days() -> u32 {
    7
}
fn default_accel() -> f64 {
    1.0
}

impl ContentTraceSpec {
    pub fn new(workload: FiuWorkload, scale: f64, days: u32, seed: u64) -> ContentTraceSpec {
        ContentTraceSpec {
            workload,
            scale,
            days,
            accel: 1.0,
            seed,
        }
    }

    pub fn check(&self) -> Result<(), String> {
        if !(self.scale.is_finite() && self.scale > 0.0 && self.scale <= MAX_SCALE) {
            return Err(format!(
                "content trace scale must be within (0, 1], got {}",
                self.scale
            ));
        }
        if !(1..=MAX_DAYS).contains(&self.days) {
            return Err(format!(
                "content trace days must be within 1..={MAX_DAYS}, got {}",
                self.days
            ));
        }
        if !(self.accel.is_finite() && (1.0..=100.0).contains(&self.accel)) {
            return Err(format!(
                "content trace accel must be within 1..=100, got {}",
                self.accel
            ));
        }
        Ok(())
    }

    /// The disk image.
    pub fn layout(&self) -> Result<Layout, String> {
        self.check()?;
        Layout::new(self.workload, self.scale, self.seed)
    }

    /// The trace (over [`ContentTraceSpec::layout`]).
    pub fn trace(&self) -> Result<ContentTrace, String> {
        let layout = self.layout()?;
        ContentTrace::new(self, layout)
    }
}

/// A bijection on `[0, n)`: a 4-round Feistel network on the next even power of two,
/// cycle-walked into range. Computable both ways in O(1) memory.
#[derive(Clone, Debug)]
struct Scatter {
    n: u64,
    half: u32,
    keys: [u64; 4],
}

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Scatter {
    fn new(n: u64, seed: u64) -> Scatter {
        let bits = (64 - n.max(2).saturating_sub(1).leading_zeros()).max(2);
        let half = bits.div_ceil(2);
        let mut keys = [0u64; 4];
        for (i, k) in keys.iter_mut().enumerate() {
            *k = mix(seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
        Scatter { n, half, keys }
    }

    fn round(&self, x: u64, inverse: bool) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        if inverse {
            for k in self.keys.iter().rev() {
                let nl = r ^ (mix(l ^ k) & mask);
                r = l;
                l = nl;
            }
        } else {
            for k in &self.keys {
                let nr = l ^ (mix(r ^ k) & mask);
                l = r;
                r = nr;
            }
        }
        (l << self.half) | r
    }

    fn fwd(&self, mut x: u64) -> u64 {
        loop {
            x = self.round(x, false);
            if x < self.n {
                return x;
            }
        }
    }

    fn inv(&self, mut x: u64) -> u64 {
        loop {
            x = self.round(x, true);
            if x < self.n {
                return x;
            }
        }
    }
}

/// Contents with the same copy count, numbered and slotted contiguously.
#[derive(Clone, Copy, Debug)]
struct Class {
    copies: u64,
    count: u64,
    first_content: u64,
    first_slot: u64,
}

/// The initial disk image (see the module note).
#[derive(Clone, Debug)]
pub struct Layout {
    pub workload: FiuWorkload,
    /// File system pages (not scaled).
    pub fs_pages: u64,
    /// The journal: first page and pages.
    pub journal_start: u64,
    pub journal_pages: u64,
    /// Non-zero pages and distinct contents.
    pub total: u64,
    pub unique: u64,
    scatter: Scatter,
    classes: Vec<Class>,
    tag: u8,
}

impl Layout {
    pub fn new(workload: FiuWorkload, scale: f64, seed: u64) -> Result<Layout, String> {
        let p = workload.published();
        let fs_pages = gb_pages(p.fs_gb) as u64;
        let journal_pages = (gb_pages(p.writes_sectors_gb) * scale).round().max(1.0) as u64;
        let journal_start = (fs_pages - journal_pages) / 2;
        let domain = fs_pages - journal_pages;
        let unique_target = (p.unique_pages_m * 1e6 * scale).round().max(1.0);
        let total_target = p.total_pages_m * 1e6 * scale;
        // Geometric copy counts with mean total/unique.
        let q = (unique_target / total_target).clamp(1e-9, 1.0);
        let mut classes = Vec::new();
        let (mut content, mut slot) = (0u64, 0u64);
        for k in 1..=MAX_COPIES {
            let count = (unique_target * q * (1.0 - q).powi(k as i32 - 1)).round() as u64;
            if count == 0 {
                continue;
            }
            classes.push(Class {
                copies: k,
                count,
                first_content: content,
                first_slot: slot,
            });
            content += count;
            slot += count * k;
        }
        if slot > domain {
            return Err(format!(
                "{}: {} non-zero pages at scale {scale} do not fit in the file system's {domain} \
                 pages outside the journal; use a smaller scale",
                workload.name(),
                slot
            ));
        }
        Ok(Layout {
            workload,
            fs_pages,
            journal_start,
            journal_pages,
            total: slot,
            unique: content,
            scatter: Scatter::new(domain, mix(seed ^ 0x1a70)),
            classes,
            tag: match workload {
                FiuWorkload::WebVm => 1,
                FiuWorkload::Mail => 2,
                FiuWorkload::Homes => 3,
            },
        })
    }

    /// The digest of static content `c`.
    pub fn digest(&self, c: u64) -> Digest {
        let mut d = [0u8; 16];
        d[..8].copy_from_slice(&c.to_le_bytes());
        d[14] = self.tag;
        d[15] = 0xd5;
        d
    }

    /// The digest of the `n`-th new content written.
    pub fn written_digest(&self, n: u64) -> Digest {
        let mut d = self.digest(n);
        d[15] = 0xd6;
        d
    }

    fn slot_page(&self, slot: u64) -> u64 {
        let x = self.scatter.fwd(slot);
        if x < self.journal_start {
            x
        } else {
            x + self.journal_pages
        }
    }

    fn class_of_slot(&self, slot: u64) -> &Class {
        let i = self.classes.partition_point(|c| c.first_slot <= slot) - 1;
        &self.classes[i]
    }

    fn class_index(&self, c: u64) -> usize {
        self.classes.partition_point(|k| k.first_content <= c) - 1
    }

    fn class_of_content(&self, c: u64) -> &Class {
        let i = self.classes.partition_point(|k| k.first_content <= c) - 1;
        &self.classes[i]
    }

    /// The static content of `page` (`None`: a zero page or the journal).
    pub fn content_at(&self, page: u64) -> Option<u64> {
        if page >= self.fs_pages
            || (self.journal_start..self.journal_start + self.journal_pages).contains(&page)
        {
            return None;
        }
        let x = if page < self.journal_start {
            page
        } else {
            page - self.journal_pages
        };
        let slot = self.scatter.inv(x);
        if slot >= self.total {
            return None;
        }
        let c = self.class_of_slot(slot);
        Some(c.first_content + (slot - c.first_slot) / c.copies)
    }

    /// How many copies content `c` has.
    pub fn copies(&self, c: u64) -> u64 {
        self.class_of_content(c).copies
    }

    /// The page of copy `j` of content `c`.
    pub fn copy_page(&self, c: u64, j: u64) -> u64 {
        let k = self.class_of_content(c);
        self.slot_page(k.first_slot + (c - k.first_content) * k.copies + j)
    }

    /// Every non-zero page and its digest, in slot order (streams).
    pub fn pages(&self) -> impl Iterator<Item = (u64, Digest)> + '_ {
        self.classes.iter().flat_map(move |k| {
            (0..k.count * k.copies).map(move |i| {
                let c = k.first_content + i / k.copies;
                (self.slot_page(k.first_slot + i), self.digest(c))
            })
        })
    }

    /// The class of copy count k = 1 + ⌊ln(1 − u)/ln(1 − 1/mean)⌋ (geometric with mean
    /// `mean` for u uniform in [0, 1), capped); the nearest larger count present when
    /// the drawn one has no content (the largest if none).
    fn class_for(&self, u: f64, mean: f64) -> usize {
        let p = (1.0 / mean).clamp(1e-9, 1.0);
        let k = if p >= 1.0 {
            1
        } else {
            (1.0 + ((1.0 - u).ln() / (1.0 - p).ln()).floor()).min(MAX_COPIES as f64) as u64
        };
        let i = self.classes.partition_point(|c| c.copies < k.max(1));
        i.min(self.classes.len().saturating_sub(1))
    }
}

/// The record stream (see the module note).
pub struct ContentTrace {
    layout: Layout,
    rng: ChaCha8Rng,
    spec: ContentTraceSpec,
    p: Published,
    /// Requests per day: reads, writes.
    reads_day: u64,
    writes_day: u64,
    /// Target size of an interval's read set.
    set_size: usize,
    day: u32,
    /// Index of the next request within the day.
    i: u64,
    set: Vec<u64>,
    cursor: usize,
    journal_at: u64,
    ring: Vec<u64>,
    ring_at: usize,
    fresh: u64,
    /// Writes drawn (for the new-content quota).
    written: u64,
    /// The copy-count sequence's last point.
    weyl: f64,
    /// Per class of the layout: contents in a seeded order and how many were taken.
    order: Vec<(Scatter, u64)>,
    /// The next request as drawn (trace time, ns) and writes waiting for their flush.
    ahead: Option<(f64, IoRecord)>,
    pending: std::collections::VecDeque<IoRecord>,
}

impl ContentTrace {
    fn new(spec: &ContentTraceSpec, layout: Layout) -> Result<ContentTrace, String> {
        let p = spec.workload.published();
        let reads_day = (gb_pages(p.reads_total_gb) * spec.scale / 7.0)
            .round()
            .max(1.0) as u64;
        let writes_day = (gb_pages(p.writes_total_gb) * spec.scale / 7.0).round() as u64;
        // A week: interval 0 and 1 whole, then one day of interval 2. Expected unique read
        // sectors: n (interval 0) + (1−o)n (interval 1's new ones) + f(1−o)n (those of
        // interval 2 read on day 7, f = the share of the set read in a day).
        let rs = gb_pages(p.reads_sectors_gb) * spec.scale;
        let o = p.overlap;
        let mut n = rs;
        for _ in 0..20 {
            let f = (reads_day as f64 / n).min(1.0);
            n = rs / (1.0 + (1.0 - o) * (1.0 + f));
        }
        let mut t = ContentTrace {
            rng: ChaCha8Rng::seed_from_u64(mix(spec.seed ^ 0x7ace)),
            spec: spec.clone(),
            p,
            reads_day,
            writes_day,
            set_size: n.round().max(1.0) as usize,
            day: 0,
            i: 0,
            set: Vec::new(),
            cursor: 0,
            journal_at: 0,
            ring: Vec::with_capacity(WRITE_RING),
            ring_at: 0,
            fresh: 0,
            written: 0,
            weyl: 0.0,
            order: layout
                .classes
                .iter()
                .enumerate()
                .map(|(i, c)| (Scatter::new(c.count, mix(spec.seed ^ 0xc1a5 ^ i as u64)), 0))
                .collect(),
            ahead: None,
            pending: std::collections::VecDeque::new(),
            layout,
        };
        t.weyl = t.rng.gen::<f64>();
        t.new_interval();
        Ok(t)
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Requests a day (reads, writes).
    pub fn per_day(&self) -> (u64, u64) {
        (self.reads_day, self.writes_day)
    }

    /// A content of class `i` never read before (classes walked in a seeded order; an
    /// exhausted class starts over).
    fn fresh_content(&mut self, i: usize) -> u64 {
        let class = self.layout.classes[i];
        let (scatter, taken) = &mut self.order[i];
        let c = class.first_content + scatter.fwd(*taken % class.count);
        *taken += 1;
        c
    }

    /// A new read set: `overlap` of it carried over, the rest new.
    fn new_interval(&mut self) {
        let keep = if self.set.is_empty() {
            0
        } else {
            ((self.set_size as f64 * self.p.overlap).round() as usize).min(self.set.len())
        };
        // The previous set's pages: a dropped page is not drawn again as a new one.
        let before: rustc_hash::FxHashSet<u64> = self.set.iter().copied().collect();
        self.set.shuffle(&mut self.rng);
        self.set.truncate(keep);
        let dup = (1.0 - self.p.reads_content_gb / self.p.reads_sectors_gb).max(0.0);
        let mut member: rustc_hash::FxHashSet<u64> = self.set.iter().copied().collect();
        // Contents of the set with more than one copy, by class.
        let mut by_class: Vec<Vec<u64>> = vec![Vec::new(); self.layout.classes.len()];
        for &page in &self.set {
            if let Some(c) = self.layout.content_at(page) {
                let i = self.layout.class_index(c);
                if self.layout.classes[i].copies > 1 {
                    by_class[i].push(c);
                }
            }
        }
        let (mut new, mut dups) = (0u64, 0u64);
        while self.set.len() < self.set_size {
            // u from a Weyl sequence with a random start: uniform, and evenly spread
            // however few sectors a small stand-in draws.
            self.weyl = (self.weyl + WEYL) % 1.0;
            let i = self.layout.class_for(self.weyl, self.p.read_similarity);
            let k = self.layout.classes[i].copies;
            let mut page = None;
            if k > 1 && (dups as f64) < dup * (new + 1) as f64 && !by_class[i].is_empty() {
                // Another copy of a content in the set, if one is free (a few tries).
                for _ in 0..4 {
                    let c = by_class[i][self.rng.gen_range(0..by_class[i].len())];
                    let p = self.layout.copy_page(c, self.rng.gen_range(0..k));
                    if !member.contains(&p) && !before.contains(&p) {
                        page = Some(p);
                        dups += 1;
                        break;
                    }
                }
            }
            let page = match page {
                Some(p) => p,
                None => {
                    let c = self.fresh_content(i);
                    if k > 1 {
                        by_class[i].push(c);
                    }
                    self.layout.copy_page(c, self.rng.gen_range(0..k))
                }
            };
            new += 1;
            member.insert(page);
            self.set.push(page);
        }
        // The first round reads kept and new sectors shuffled apart and interleaved in
        // proportion, so any day's share of new sectors is the set's (no sampling noise
        // in a week's unique sectors); later rounds are plain shuffles.
        let mut fresh = self.set.split_off(keep);
        fresh.shuffle(&mut self.rng);
        self.set.shuffle(&mut self.rng);
        let kept = std::mem::take(&mut self.set);
        let n = kept.len() + fresh.len();
        let (mut a, mut b) = (kept.into_iter(), fresh.into_iter());
        for i in 0..n {
            let take_new = (i + 1) * (n - keep) / n > i * (n - keep) / n;
            let next = if take_new { b.next() } else { a.next() };
            self.set
                .extend(next.or_else(|| a.next()).or_else(|| b.next()));
        }
        self.cursor = 0;
    }

    fn next_read(&mut self) -> (u64, Digest) {
        if self.cursor >= self.set.len() {
            self.set.shuffle(&mut self.rng);
            self.cursor = 0;
        }
        let page = self.set[self.cursor];
        self.cursor += 1;
        let c = self.layout.content_at(page).unwrap_or(0);
        (page, self.layout.digest(c))
    }

    fn next_write(&mut self) -> (u64, Digest) {
        let page = self.layout.journal_start + self.journal_at;
        self.journal_at = (self.journal_at + 1) % self.layout.journal_pages;
        let share = self.p.writes_content_gb / self.p.writes_total_gb;
        let n = self.written;
        self.written += 1;
        // Running quota: the (n+1)-th write is new when it brings the new ones to
        // ⌊(n+1)·share⌋.
        let quota = ((n + 1) as f64 * share).floor() > (n as f64 * share).floor();
        let id = if self.ring.is_empty() || quota {
            self.fresh += 1;
            let id = self.fresh;
            if self.ring.len() < WRITE_RING {
                self.ring.push(id);
            } else {
                self.ring[self.ring_at] = id;
                self.ring_at = (self.ring_at + 1) % WRITE_RING;
            }
            id
        } else {
            self.ring[self.rng.gen_range(0..self.ring.len())]
        };
        (page, self.layout.written_digest(id))
    }
}

impl ContentTrace {
    /// The next request as drawn, with its trace time (ns) before acceleration.
    fn draw(&mut self) -> Option<(f64, IoRecord)> {
        let n = self.reads_day + self.writes_day;
        if self.day >= self.spec.days {
            return None;
        }
        if self.i >= n {
            self.day += 1;
            self.i = 0;
            if self.day >= self.spec.days {
                return None;
            }
            if self.day.is_multiple_of(INTERVAL_DAYS) {
                self.new_interval();
            }
        }
        let i = self.i;
        self.i += 1;
        // Reads interleaved evenly among the day's requests.
        let read = (i + 1) * self.reads_day / n > i * self.reads_day / n;
        let (page, digest) = if read {
            self.next_read()
        } else {
            self.next_write()
        };
        let slot = DAY_NS as f64 / n as f64;
        let t = self.day as f64 * DAY_NS as f64 + (i as f64 + self.rng.gen::<f64>()) * slot;
        Some((
            t,
            IoRecord {
                arrival: SimTime((t / self.spec.accel) as u64),
                device: 0,
                lbn: page * PAGE_SECTORS,
                blocks: PAGE_SECTORS as u32,
                write: !read,
                content: vec![digest],
            },
        ))
    }

    /// The end of the write-back window holding trace time `t` (ns).
    fn flush_at(&self, t: f64) -> SimTime {
        let w = FLUSH_S * 1e9 / self.spec.scale;
        SimTime((((t / w).floor() + 1.0) * w / self.spec.accel) as u64)
    }
}

impl Iterator for ContentTrace {
    type Item = IoRecord;

    fn next(&mut self) -> Option<IoRecord> {
        loop {
            if self.ahead.is_none() {
                self.ahead = self.draw();
            }
            // A flush goes before the next drawn request once it is due.
            let flush_due = match (self.pending.front(), &self.ahead) {
                (Some(p), Some((_, a))) => p.arrival <= a.arrival,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if flush_due {
                return self.pending.pop_front();
            }
            let (t, mut r) = self.ahead.take()?;
            if !r.write {
                return Some(r);
            }
            r.arrival = self.flush_at(t);
            self.pending.push_back(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn scatter_is_a_bijection() {
        for (n, seed) in [(1u64, 0u64), (7, 1), (1000, 2), (4099, 3)] {
            let s = Scatter::new(n, seed);
            let mut seen = HashSet::new();
            for x in 0..n {
                let y = s.fwd(x);
                assert!(y < n);
                assert_eq!(s.inv(y), x);
                assert!(seen.insert(y));
            }
        }
    }

    #[test]
    fn layout_pages_agree_with_content_at() {
        for seed in [1, 2, 3] {
            let l = Layout::new(FiuWorkload::WebVm, 0.002, seed).unwrap();
            let mut copies: HashMap<Digest, u64> = HashMap::new();
            for (page, d) in l.pages() {
                let c = l.content_at(page).unwrap();
                assert_eq!(l.digest(c), d);
                *copies.entry(d).or_default() += 1;
            }
            assert_eq!(copies.len() as u64, l.unique);
            let sim = l.total as f64 / l.unique as f64;
            assert!((sim - 5.2 / 1.9).abs() < 0.1, "{sim}");
            // Journal and beyond the file system hold no static content.
            assert_eq!(l.content_at(l.journal_start), None);
            assert_eq!(l.content_at(l.fs_pages), None);
        }
    }

    #[test]
    fn trace_streams_its_volumes_and_is_seeded() {
        for seed in [4, 5] {
            let spec = ContentTraceSpec::new(FiuWorkload::WebVm, 0.002, 2, seed);
            let t = spec.trace().unwrap();
            let (r, w) = t.per_day();
            let recs: Vec<IoRecord> = t.collect();
            assert_eq!(recs.len() as u64, 2 * (r + w));
            assert_eq!(recs.iter().filter(|x| !x.write).count() as u64, 2 * r);
            assert!(recs.windows(2).all(|p| p[0].arrival <= p[1].arrival));
            let again: Vec<IoRecord> = spec.trace().unwrap().collect();
            assert_eq!(recs, again);
            let l = spec.layout().unwrap();
            for x in recs.iter().filter(|x| !x.write) {
                let c = l.content_at(x.lbn / PAGE_SECTORS).unwrap();
                assert_eq!(x.content, vec![l.digest(c)]);
            }
        }
    }

    #[test]
    fn writes_arrive_in_write_back_flushes() {
        for seed in [1, 2, 3] {
            let mut spec = ContentTraceSpec::new(FiuWorkload::Homes, 0.001, 1, seed);
            spec.accel = 100.0;
            let w = FLUSH_S * 1e9 / spec.scale / spec.accel;
            let recs: Vec<IoRecord> = spec.trace().unwrap().collect();
            assert!(recs.windows(2).all(|p| p[0].arrival <= p[1].arrival));
            let mut flushes = HashSet::new();
            for r in recs.iter().filter(|r| r.write) {
                // At the end of its window (up to float rounding).
                let k = (r.arrival.0 as f64 / w).round();
                assert!((r.arrival.0 as f64 - k * w).abs() < 2.0, "{:?}", r.arrival);
                flushes.insert(k as u64);
            }
            // Each flush carries the writes of its window (homes: about 320 at the
            // traced rate).
            let writes = recs.iter().filter(|r| r.write).count();
            let per = writes as f64 / flushes.len() as f64;
            assert!(per > 250.0 && per < 400.0, "{per} writes per flush");
        }
    }

    #[test]
    fn read_sets_keep_the_published_ratios_for_any_seed() {
        for seed in [11, 12, 13, 14] {
            for w in FiuWorkload::ALL {
                let spec = ContentTraceSpec::new(w, 0.0005, 7, seed);
                let p = w.published();
                let (mut sectors, mut contents) = (HashSet::new(), HashSet::new());
                let (mut writes, mut wcontents) = (0u64, HashSet::new());
                for r in spec.trace().unwrap() {
                    if r.write {
                        writes += 1;
                        wcontents.insert(r.content[0]);
                    } else {
                        sectors.insert(r.lbn);
                        contents.insert(r.content[0]);
                    }
                }
                let ratio = sectors.len() as f64 / contents.len() as f64;
                let want = p.reads_sectors_gb / p.reads_content_gb;
                assert!(
                    (ratio / want - 1.0).abs() < 0.01,
                    "{w:?} {seed}: {ratio} vs {want}"
                );
                let share = wcontents.len() as f64 / writes as f64;
                let want = p.writes_content_gb / p.writes_total_gb;
                assert!(
                    (share / want - 1.0).abs() < 0.01,
                    "{w:?} {seed}: {share} vs {want}"
                );
            }
        }
    }

    #[test]
    fn bad_specs_are_refused() {
        let mut s = ContentTraceSpec::new(FiuWorkload::Homes, 0.0, 7, 0);
        assert!(s
            .check()
            .unwrap_err()
            .contains("scale must be within (0, 1], got 0"));
        s.scale = 1.0;
        // Table 2's 183 M pages do not fit in a 470 GB file system.
        assert!(s.layout().unwrap_err().contains("do not fit"));
        s.scale = 0.1;
        s.days = 0;
        assert!(s.check().unwrap_err().contains("days must be within"));
        assert!(FiuWorkload::parse("web").is_err());
    }
}
