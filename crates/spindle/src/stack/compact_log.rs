//! A run's request logs kept compactly while it runs (for a front end that hands them
//! out afterwards, such as the Python package's `Result.requests`): one column per field, each in the
//! narrowest width that holds every value so far, times as differences.
//!
//! Why: a 1 M-request run from Python kept one 104-byte `RequestLog` per request, and
//! faulting in those 100 MB of fresh pages was most of what a run from Python cost over
//! the command line (which keeps nothing). Here a typical row takes about 38 bytes (a
//! column whose values are all the same takes none), and every row comes back exactly.
//!
//! Rows are kept in completion order (the order the engine hands them out, which the fio
//! summary depends on through its running variance). A row is stored as:
//! `id − row index`, `arrival − previous row's arrival`, `dispatch − arrival`,
//! `start − dispatch`, `done − start` (each as a zigzag-coded wrapping difference, so any
//! u64 times round-trip), and device, LBN, sectors, flags (write, cache hit,
//! background), process (+1, 0 for none) and the four service-time parts as they are.

use crate::disk::hdd::Breakdown;
use crate::engine::RequestLog;
use crate::time::SimTime;

/// One column of unsigned values in the narrowest width that holds them.
#[derive(Debug)]
enum Packed {
    /// No value yet.
    Empty,
    /// Every value so far is this one (no memory per row).
    Same(u64),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Packed {
    /// Appends `vals` as the values of rows `len..` (`len` rows before them); `cap`
    /// is the number of rows expected, reserved when the column gets wider.
    fn extend(&mut self, vals: &[u64], len: usize, cap: usize) {
        let Some(&first) = vals.first() else { return };
        // One pass: the values are all equal when no bit differs (`or == and`), and all
        // fit a width of 2^k − 1 when their `or` does.
        let (or, and) = vals.iter().fold((0, u64::MAX), |(o, a), &v| (o | v, a & v));
        let same = or == and;
        match self {
            Packed::Empty if same => {
                *self = Packed::Same(first);
                return;
            }
            Packed::Same(c) if same && *c == first => return,
            Packed::U8(x) if or <= u64::from(u8::MAX) => return narrow_into(x, vals),
            Packed::U16(x) if or <= u64::from(u16::MAX) => return narrow_into(x, vals),
            Packed::U32(x) if or <= u64::from(u32::MAX) => return narrow_into(x, vals),
            Packed::U64(x) => return x.extend_from_slice(vals),
            _ => {}
        }
        self.widen(or, len, cap);
        self.extend(vals, len, cap);
    }

    /// Rewrites the column's `len` values in a width that also holds `top`.
    #[cold]
    fn widen(&mut self, top: u64, len: usize, cap: usize) {
        let old: Vec<u64> = (0..len).map(|i| self.get(i)).collect();
        let top = old.iter().copied().fold(top, u64::max);
        let cap = cap.max(len);
        fn narrow<T: Word>(old: &[u64], cap: usize) -> Vec<T> {
            let mut x = Vec::with_capacity(cap);
            x.extend(old.iter().map(|&o| T::of(o)));
            x
        }
        *self = if top <= u64::from(u8::MAX) {
            Packed::U8(narrow(&old, cap))
        } else if top <= u64::from(u16::MAX) {
            Packed::U16(narrow(&old, cap))
        } else if top <= u64::from(u32::MAX) {
            Packed::U32(narrow(&old, cap))
        } else {
            Packed::U64(narrow(&old, cap))
        };
    }

    #[inline]
    fn get(&self, i: usize) -> u64 {
        match self {
            Packed::Empty => unreachable!("a column with rows has a value"),
            Packed::Same(c) => *c,
            Packed::U8(x) => u64::from(x[i]),
            Packed::U16(x) => u64::from(x[i]),
            Packed::U32(x) => u64::from(x[i]),
            Packed::U64(x) => x[i],
        }
    }

    /// Bytes held (capacity), for the tests and the docs' figures.
    fn bytes(&self) -> usize {
        match self {
            Packed::Empty | Packed::Same(_) => 0,
            Packed::U8(x) => x.capacity(),
            Packed::U16(x) => x.capacity() * 2,
            Packed::U32(x) => x.capacity() * 4,
            Packed::U64(x) => x.capacity() * 8,
        }
    }
}

/// A column's element type: `u8` … `u64`.
trait Word: Copy {
    /// `v`, known to fit (the caller checked the values' `or`): the cast keeps it whole.
    fn of(v: u64) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline(always)]
            fn of(v: u64) -> $t {
                v as $t
            }
        }
    )*};
}
word!(u8, u16, u32, u64);

/// Appends `vals`, each known to fit `T` (a plain cast per value, which the compiler
/// turns into a few vector instructions per chunk).
#[inline]
fn narrow_into<T: Word>(x: &mut Vec<T>, vals: &[u64]) {
    x.extend(vals.iter().map(|&v| T::of(v)));
}

/// A signed difference as an unsigned value that is small when the difference is small
/// either way (0, −1, 1, −2 … → 0, 1, 2, 3 …).
#[inline]
fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

#[inline]
fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// `b − a` as a wrapping, zigzag-coded difference (exact for any two u64).
#[inline]
fn diff(a: u64, b: u64) -> u64 {
    zigzag(b.wrapping_sub(a) as i64)
}

#[inline]
fn undiff(a: u64, z: u64) -> u64 {
    a.wrapping_add(unzigzag(z) as u64)
}

const ID: usize = 0;
const ARRIVAL: usize = 1;
const WAIT: usize = 2;
const TO_START: usize = 3;
const SERVICE: usize = 4;
const DEVICE: usize = 5;
const LBN: usize = 6;
const BLOCKS: usize = 7;
const FLAGS: usize = 8;
const PROCESS: usize = 9;
const OVERHEAD: usize = 10;
const SEEK: usize = 11;
const ROTATION: usize = 12;
const TRANSFER: usize = 13;
const NCOLS: usize = 14;

const WRITE: u64 = 1;
const CACHE_HIT: u64 = 2;
const BACKGROUND: u64 = 4;

/// Rows gathered before they are added to the columns, a chunk at a time: checking a
/// column's width once per chunk instead of once per value, and narrowing a chunk with
/// vector instructions, makes keeping a row cost about 130 instructions (callgrind, a
/// 1 M-request open run: about 65 to gather it, 65 to add it to the 14 columns).
const CHUNK: usize = 256;

/// Request rows in completion order, compactly (see the module doc).
#[derive(Debug)]
pub struct CompactLog {
    cols: [Packed; NCOLS],
    /// Rows in `cols`.
    len: usize,
    /// Rows expected (reserved when a column gets wider).
    cap: usize,
    last_arrival: u64,
    /// Rows not yet in `cols`, column after column.
    buf: Box<[[u64; CHUNK]; NCOLS]>,
    pending: usize,
}

impl CompactLog {
    /// Rows for a run expected to complete about `expected` requests.
    pub fn with_capacity(expected: usize) -> CompactLog {
        CompactLog {
            cols: std::array::from_fn(|_| Packed::Empty),
            len: 0,
            cap: expected,
            last_arrival: 0,
            buf: Box::new([[0; CHUNK]; NCOLS]),
            pending: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len + self.pending
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the columns hold (not counting the chunk of rows being gathered).
    pub fn bytes(&self) -> usize {
        self.cols.iter().map(Packed::bytes).sum()
    }

    #[inline]
    pub fn push(&mut self, l: &RequestLog) {
        let n = self.len();
        let flags = u64::from(l.write) * WRITE
            + u64::from(l.cache_hit) * CACHE_HIT
            + u64::from(l.background) * BACKGROUND;
        let values = [
            diff(n as u64, l.id),
            diff(self.last_arrival, l.arrival.0),
            diff(l.arrival.0, l.dispatch.0),
            diff(l.dispatch.0, l.start.0),
            diff(l.start.0, l.done.0),
            u64::from(l.device),
            l.lbn,
            u64::from(l.blocks),
            flags,
            l.process.map_or(0, |p| u64::from(p) + 1),
            l.breakdown.overhead_ns,
            l.breakdown.seek_ns,
            l.breakdown.rotation_ns,
            l.breakdown.transfer_ns,
        ];
        // `pending` is below CHUNK (a power of two): the mask only spares the bounds checks.
        let k = self.pending & (CHUNK - 1);
        for (col, v) in self.buf.iter_mut().zip(values) {
            col[k] = v;
        }
        self.last_arrival = l.arrival.0;
        self.pending += 1;
        if self.pending == CHUNK {
            self.flush();
        }
    }

    /// Adds the gathered rows to the columns.
    fn flush(&mut self) {
        for (c, col) in self.cols.iter_mut().enumerate() {
            col.extend(&self.buf[c][..self.pending], self.len, self.cap);
        }
        self.len += self.pending;
        self.pending = 0;
    }

    /// Value of column `c` in row `i`.
    #[inline]
    fn value(&self, c: usize, i: usize) -> u64 {
        if i < self.len {
            self.cols[c].get(i)
        } else {
            self.buf[c][i - self.len]
        }
    }

    /// Row `i`, whose arrival is `arrival` (arrivals are stored as differences: see
    /// [`CompactLog::arrivals`]).
    #[inline]
    pub fn get(&self, i: usize, arrival: u64) -> RequestLog {
        let c = |k: usize| self.value(k, i);
        let dispatch = undiff(arrival, c(WAIT));
        let start = undiff(dispatch, c(TO_START));
        let done = undiff(start, c(SERVICE));
        let flags = c(FLAGS);
        let process = c(PROCESS);
        RequestLog {
            id: undiff(i as u64, c(ID)),
            // Stored from a u32 (and the blocks from a u32): the casts are exact.
            device: c(DEVICE) as u32,
            lbn: c(LBN),
            blocks: c(BLOCKS) as u32,
            write: flags & WRITE != 0,
            arrival: SimTime(arrival),
            dispatch: SimTime(dispatch),
            start: SimTime(start),
            done: SimTime(done),
            breakdown: Breakdown {
                overhead_ns: c(OVERHEAD),
                seek_ns: c(SEEK),
                rotation_ns: c(ROTATION),
                transfer_ns: c(TRANSFER),
            },
            cache_hit: flags & CACHE_HIT != 0,
            process: (process > 0).then(|| (process - 1) as u32),
            background: flags & BACKGROUND != 0,
        }
    }

    /// Every row's arrival, in completion order.
    pub fn arrivals(&self) -> Vec<u64> {
        let mut t = 0u64;
        (0..self.len())
            .map(|i| {
                t = undiff(t, self.value(ARRIVAL, i));
                t
            })
            .collect()
    }

    /// The rows in completion order.
    pub fn iter(&self) -> impl Iterator<Item = RequestLog> + '_ {
        let mut t = 0u64;
        (0..self.len()).map(move |i| {
            t = undiff(t, self.value(ARRIVAL, i));
            self.get(i, t)
        })
    }

    /// Every row's request id, in completion order.
    pub fn ids(&self) -> Vec<u64> {
        (0..self.len())
            .map(|i| undiff(i as u64, self.value(ID, i)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(i: u64, x: u64) -> RequestLog {
        RequestLog {
            id: i ^ (x & 3),
            device: (x % 3) as u32,
            lbn: x.wrapping_mul(2654435761) >> (x % 40),
            blocks: 1 + (x % 300) as u32,
            write: x.is_multiple_of(5),
            arrival: SimTime(i * 1000 + x % 7),
            dispatch: SimTime(i * 1000 + 10 + x % 70_000),
            start: SimTime(i * 1000 + 100_000 + x % 70_000),
            done: SimTime(i * 1000 + 100_000 + (x % 70_000) * (1 + x % 100_000)),
            breakdown: Breakdown {
                overhead_ns: 100,
                seek_ns: x % 10_000_000,
                rotation_ns: x % 8_000_000,
                transfer_ns: x >> 20,
            },
            cache_hit: x.is_multiple_of(11),
            process: (!x.is_multiple_of(4)).then_some((x % 100) as u32),
            background: x.is_multiple_of(13),
        }
    }

    fn same(a: &RequestLog, b: &RequestLog) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn rows_come_back_exactly() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let logs: Vec<RequestLog> = (0..5000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                log(i, x)
            })
            .collect();
        let mut r = CompactLog::with_capacity(100);
        for l in &logs {
            r.push(l);
        }
        assert_eq!(r.len(), logs.len());
        for (a, b) in logs.iter().zip(r.iter()) {
            assert!(same(a, &b), "{a:?} != {b:?}");
        }
        assert_eq!(r.ids(), logs.iter().map(|l| l.id).collect::<Vec<_>>());
    }

    #[test]
    fn extremes_round_trip() {
        let mut l = log(0, 1);
        let mut r = CompactLog::with_capacity(0);
        let cases = [
            (0u64, 0u64, 0u64, 0u64),
            (u64::MAX, 0, u64::MAX, 1),
            (5, u64::MAX, 0, u64::MAX),
            (u64::MAX / 2, 1, u64::MAX, 0),
        ];
        // Ordinary rows before and after, so that the extremes widen filled columns.
        let mut logs: Vec<RequestLog> = (0..600).map(|i| log(i, i * 7919)).collect();
        for l in &logs {
            r.push(l);
        }
        for (k, &(a, d, s, e)) in cases.iter().enumerate() {
            l.id = if k % 2 == 0 {
                u64::MAX - k as u64
            } else {
                k as u64
            };
            (l.arrival, l.dispatch, l.start, l.done) =
                (SimTime(a), SimTime(d), SimTime(s), SimTime(e));
            l.device = u32::MAX;
            l.blocks = u32::MAX;
            l.lbn = u64::MAX;
            l.process = Some(u32::MAX);
            l.breakdown.seek_ns = u64::MAX;
            r.push(&l);
            logs.push(l);
        }
        for i in 0..300 {
            let l = log(700 + i, i * 31);
            r.push(&l);
            logs.push(l);
        }
        assert_eq!(r.len(), logs.len());
        for (a, b) in logs.iter().zip(r.iter()) {
            assert!(same(a, &b), "{a:?} != {b:?}");
        }
    }

    #[test]
    fn values_at_every_width_boundary_come_back() {
        // Chunks of growing values: 2^k − 1 (the largest of a width) then 2^k (one
        // more), so each column meets every width's edge while it is that width.
        for cap in [0, 1 << 20] {
            let mut r = CompactLog::with_capacity(cap);
            let mut logs = Vec::new();
            for k in 1..64u32 {
                for (j, top) in [(1u64 << k) - 1, 1u64 << k].into_iter().enumerate() {
                    for i in 0..CHUNK as u64 {
                        let mut l = log(logs.len() as u64, i);
                        let v = if i % 2 == 0 { top } else { top >> 1 };
                        (l.lbn, l.breakdown.seek_ns) = (v, v ^ j as u64);
                        l.done = SimTime(l.start.0.wrapping_add(v));
                        r.push(&l);
                        logs.push(l);
                    }
                }
            }
            for (a, b) in logs.iter().zip(r.iter()) {
                assert!(same(a, &b), "{a:?} != {b:?}");
            }
        }
    }

    #[test]
    fn large_columns_hold_every_value() {
        // 300,000 rows of u64 and u32 columns, several MiB each; a column that widens
        // late is copied into a new one.
        let n = 300_000u64;
        let mut r = CompactLog::with_capacity(n as usize);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let logs: Vec<RequestLog> = (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut l = log(i, x);
                // A u32 column that widens to u64 near the end.
                l.lbn = if i > 250_000 { x } else { x & 0xffff_ffff };
                l
            })
            .collect();
        for l in &logs {
            r.push(l);
        }
        assert!(r.bytes() >= 8 * n as usize, "{}", r.bytes());
        assert_eq!(r.len(), logs.len());
        for (a, b) in logs.iter().zip(r.iter()) {
            assert!(same(a, &b), "{a:?} != {b:?}");
        }
    }

    #[test]
    fn a_constant_column_takes_no_memory() {
        let mut r = CompactLog::with_capacity(1000);
        let mut l = log(0, 0);
        l.process = None;
        for i in 0..1000 {
            l.id = i;
            l.arrival = SimTime(i * 20_000_000);
            l.dispatch = l.arrival;
            l.start = l.arrival;
            l.done = SimTime(l.arrival.0 + 5_000_000);
            l.lbn = i * 977 % 100_000;
            r.push(&l);
        }
        r.flush();
        // lbn (u32) and arrival (difference 20 ms, u32): 8 bytes a row; the rest constant.
        assert_eq!(r.bytes(), 8 * 1000);
    }
}
