//! A flash device (SSD) timing model for staging areas and metadata.
//!
//! The model is deliberately simple: the device has `channels` identical, independent
//! servers (channels, dies or planes — whatever serves operations concurrently inside the
//! drive). One operation occupies one channel for
//!
//! ```text
//! service = latency + bytes / channel bandwidth
//! ```
//!
//! with separate latency and bandwidth for reads and writes. Operations are served first
//! come first served by the earliest-free channel: a channel idle at the arrival time
//! counts as free at that time, and ties go to the lowest channel index. An optional
//! queue-depth limit caps how many operations are in the device at once; further
//! operations wait at the host in arrival order. Under first-come-first-served service
//! that is the same as serving with `min(channels, queue_depth)` channels, which is how
//! it is computed.
//!
//! Garbage collection, write amplification, read/write interference inside a die, the
//! DRAM write buffer and the host link are not modelled. The presets fold their effect
//! into the fitted parameters (see [`presets`]).
//!
//! Units: operations address 4 KiB **blocks** (`FlashParams::block_bytes`, 4096 in the
//! presets) — both the offset and the length of a [`FlashOp`] are in blocks. Times are
//! integer nanoseconds ([`SimTime`]); latencies in the parameters are µs, bandwidths MB/s
//! with MB = 10^6 bytes.
//!
//! This is timing only: the device stores no data. Pair it with a block store and make a
//! write durable at the completion time [`FlashDevice::submit`] returns.
//!
//! ## Why `submit` returns the completion time
//!
//! The HDD's [`crate::disk::Drive`] uses `submit` / `next_completion` / `complete`
//! because its firmware may reorder requests (SPTF), so a request's completion is not
//! known until the requests queued with it are. Here service is first come first served
//! over identical channels, so an operation's start and completion depend only on the
//! operations submitted before it: they are known at submission. `submit(now, op)`
//! therefore returns the [`FlashCompletion`] at once; a caller driving an event loop
//! schedules an event at `completion.done`, and a layer that only needs the time (a
//! staging log, a metadata update) uses it directly. No polling, no hidden queue state.

pub mod presets;

use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Everything that describes one flash device.
///
/// Bandwidths are per channel: `channels` operations in flight together move
/// `channels × channel_*_mb_s`. See [`FlashParams::device_read_mb_s`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashParams {
    pub name: String,
    /// Where the numbers come from (datasheet, derivation, decisions).
    pub provenance: String,
    /// Usable capacity in bytes; a whole number of blocks.
    pub capacity_bytes: u64,
    /// Bytes per addressable block (the unit of [`FlashOp::block`] and
    /// [`FlashOp::blocks`]); 4096 in the presets.
    pub block_bytes: u32,
    /// Fixed time of one read on a channel, µs.
    pub read_latency_us: f64,
    /// Fixed time of one write on a channel, µs.
    pub write_latency_us: f64,
    /// Read transfer rate of one channel, MB/s (10^6 bytes per second).
    pub channel_read_mb_s: f64,
    /// Write transfer rate of one channel, MB/s (10^6 bytes per second).
    pub channel_write_mb_s: f64,
    /// Independent channels that serve operations concurrently (at least 1).
    pub channels: u32,
    /// Most operations in the device at once (e.g. SATA NCQ: 32); `None` = no limit.
    #[serde(default)]
    pub queue_depth: Option<u32>,
}

impl FlashParams {
    /// Checks that every parameter is usable, naming the device and the bad field.
    pub fn validate(&self) -> Result<(), FlashError> {
        let bad = |field: &str, why: String| FlashError::Param {
            device: self.name.clone(),
            field: field.to_string(),
            why,
        };
        if self.block_bytes == 0 {
            return Err(bad("block_bytes", "must be at least 1".into()));
        }
        if self.capacity_bytes == 0
            || !self
                .capacity_bytes
                .is_multiple_of(u64::from(self.block_bytes))
        {
            return Err(bad(
                "capacity_bytes",
                format!(
                    "must be a positive multiple of block_bytes ({}), got {}",
                    self.block_bytes, self.capacity_bytes
                ),
            ));
        }
        for (field, v) in [
            ("read_latency_us", self.read_latency_us),
            ("write_latency_us", self.write_latency_us),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(field, format!("must be finite and ≥ 0, got {v}")));
            }
        }
        for (field, v) in [
            ("channel_read_mb_s", self.channel_read_mb_s),
            ("channel_write_mb_s", self.channel_write_mb_s),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(field, format!("must be finite and > 0, got {v}")));
            }
        }
        if self.channels == 0 {
            return Err(bad("channels", "must be at least 1".into()));
        }
        if self.queue_depth == Some(0) {
            return Err(bad(
                "queue_depth",
                "must be at least 1 (omit it for no limit)".into(),
            ));
        }
        Ok(())
    }

    /// Channels that can actually be busy at once: `channels`, capped by the queue depth.
    pub fn servers(&self) -> u32 {
        match self.queue_depth {
            Some(d) => self.channels.min(d).max(1),
            None => self.channels.max(1),
        }
    }

    /// Capacity in blocks.
    pub fn capacity_blocks(&self) -> u64 {
        self.capacity_bytes / u64::from(self.block_bytes.max(1))
    }

    /// Service time (ns) of one operation moving `bytes`, on one channel.
    pub fn op_ns(&self, bytes: u64, write: bool) -> u64 {
        let (latency_us, mb_s) = if write {
            (self.write_latency_us, self.channel_write_mb_s)
        } else {
            (self.read_latency_us, self.channel_read_mb_s)
        };
        // bytes / (mb_s × 10^6 B/s) seconds = bytes × 1000 / mb_s ns.
        let latency_ns = (latency_us * 1e3).round() as u64;
        let transfer_ns = (bytes as f64 * 1e3 / mb_s).round() as u64;
        latency_ns + transfer_ns
    }

    /// Aggregate read bandwidth (MB/s) with every usable channel streaming.
    pub fn device_read_mb_s(&self) -> f64 {
        self.channel_read_mb_s * f64::from(self.servers())
    }

    /// Aggregate write bandwidth (MB/s) with every usable channel streaming.
    pub fn device_write_mb_s(&self) -> f64 {
        self.channel_write_mb_s * f64::from(self.servers())
    }

    /// Operations per second with every usable channel busy, each op moving `bytes`.
    pub fn saturated_iops(&self, bytes: u64, write: bool) -> f64 {
        f64::from(self.servers()) * 1e9 / self.op_ns(bytes, write).max(1) as f64
    }
}

/// One operation: `blocks` blocks starting at block `block` (blocks of
/// `FlashParams::block_bytes`, 4 KiB in the presets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashOp {
    pub id: u64,
    /// First block (not byte, not 512-byte sector).
    pub block: u64,
    /// Length in blocks (at least 1).
    pub blocks: u32,
    pub write: bool,
}

/// When an operation was served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlashCompletion {
    pub id: u64,
    /// When the operation was submitted.
    pub arrival: SimTime,
    /// When a channel started on it (`start - arrival` is its queueing time).
    pub start: SimTime,
    /// When it completed: a write is durable from this instant.
    pub done: SimTime,
    /// The channel that served it (0-based).
    pub channel: u32,
}

/// Counters since the device was created (or [`FlashDevice::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FlashStats {
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Sum of service times over all operations (channel-ns; divide by
    /// `servers × elapsed` for utilisation).
    pub busy_ns: u64,
    /// Sum of queueing times (`start - arrival`) over all operations.
    pub wait_ns: u64,
}

impl FlashStats {
    pub fn ops(&self) -> u64 {
        self.reads + self.writes
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FlashError {
    #[error("flash device `{device}`: {field} {why}")]
    Param {
        device: String,
        field: String,
        why: String,
    },
    #[error("unknown flash preset `{0}`; `spindle disks --flash` lists them")]
    UnknownPreset(String),
    #[error(
        "flash operation {id}: blocks {block}..{end} lie outside the device's {capacity} blocks"
    )]
    OutOfRange {
        id: u64,
        block: u64,
        end: u64,
        capacity: u64,
    },
    #[error("flash operation {id} has length 0")]
    Empty { id: u64 },
    #[error(
        "flash operation {id} submitted at {now} ns, before the previous submission at {last} ns"
    )]
    TimeWentBack { id: u64, now: u64, last: u64 },
}

/// The device: per-channel free times plus counters. Sans-IO: it never reads a clock;
/// the caller passes `now` to every [`FlashDevice::submit`].
#[derive(Clone, Debug)]
pub struct FlashDevice {
    params: FlashParams,
    /// When each usable channel finishes its last assigned operation.
    free_at: Vec<SimTime>,
    /// The latest submission time (submissions must not go back in time).
    last_submit: SimTime,
    stats: FlashStats,
}

impl FlashDevice {
    pub fn new(params: FlashParams) -> Result<FlashDevice, FlashError> {
        params.validate()?;
        let servers = params.servers() as usize;
        Ok(FlashDevice {
            params,
            free_at: vec![SimTime::ZERO; servers],
            last_submit: SimTime::ZERO,
            stats: FlashStats::default(),
        })
    }

    pub fn params(&self) -> &FlashParams {
        &self.params
    }

    pub fn capacity_blocks(&self) -> u64 {
        self.params.capacity_blocks()
    }

    /// Service time (ns) of `op` on one channel, excluding any queueing. Pure.
    pub fn service_ns(&self, op: &FlashOp) -> u64 {
        let bytes = u64::from(op.blocks) * u64::from(self.params.block_bytes);
        self.params.op_ns(bytes, op.write)
    }

    /// Submits `op` at `now` and returns when it starts and completes. Submissions must
    /// come in non-decreasing `now`; operations are served in submission order.
    pub fn submit(&mut self, now: SimTime, op: FlashOp) -> Result<FlashCompletion, FlashError> {
        if op.blocks == 0 {
            return Err(FlashError::Empty { id: op.id });
        }
        let capacity = self.capacity_blocks();
        let end = op.block.saturating_add(u64::from(op.blocks));
        if end > capacity {
            return Err(FlashError::OutOfRange {
                id: op.id,
                block: op.block,
                end,
                capacity,
            });
        }
        if now < self.last_submit {
            return Err(FlashError::TimeWentBack {
                id: op.id,
                now: now.ns(),
                last: self.last_submit.ns(),
            });
        }
        self.last_submit = now;

        // Earliest-free channel; an idle channel is free at `now`; ties → lowest index.
        let mut channel = 0;
        let mut start = SimTime(u64::MAX);
        for (i, &f) in self.free_at.iter().enumerate() {
            let t = f.max(now);
            if t < start {
                start = t;
                channel = i;
            }
        }
        let service = self.service_ns(&op);
        let done = start + service;
        self.free_at[channel] = done;

        let bytes = u64::from(op.blocks) * u64::from(self.params.block_bytes);
        let s = &mut self.stats;
        if op.write {
            s.writes += 1;
            s.bytes_written += bytes;
        } else {
            s.reads += 1;
            s.bytes_read += bytes;
        }
        s.busy_ns += service;
        s.wait_ns += start.saturating_sub(now);

        Ok(FlashCompletion {
            id: op.id,
            arrival: now,
            start,
            done,
            channel: channel as u32,
        })
    }

    /// When every operation submitted so far has completed.
    pub fn idle_at(&self) -> SimTime {
        self.free_at.iter().copied().max().unwrap_or(SimTime::ZERO)
    }

    /// The earliest time a newly submitted operation could start.
    pub fn next_free(&self) -> SimTime {
        self.free_at.iter().copied().min().unwrap_or(SimTime::ZERO)
    }

    pub fn stats(&self) -> &FlashStats {
        &self.stats
    }

    pub fn reset_stats(&mut self) {
        self.stats = FlashStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 µs read / 20 µs write latency, 100 MB/s read and 50 MB/s write per channel.
    fn params(channels: u32, queue_depth: Option<u32>) -> FlashParams {
        FlashParams {
            name: "test".into(),
            provenance: "unit test".into(),
            capacity_bytes: 1 << 30,
            block_bytes: 4096,
            read_latency_us: 10.0,
            write_latency_us: 20.0,
            channel_read_mb_s: 100.0,
            channel_write_mb_s: 50.0,
            channels,
            queue_depth,
        }
    }

    fn op(id: u64, blocks: u32, write: bool) -> FlashOp {
        FlashOp {
            id,
            block: id * 16,
            blocks,
            write,
        }
    }

    #[test]
    fn service_is_latency_plus_transfer() {
        let d = FlashDevice::new(params(1, None)).expect("valid");
        // 4096 B at 100 MB/s = 40.96 µs → 40,960 ns; + 10 µs.
        assert_eq!(d.service_ns(&op(0, 1, false)), 10_000 + 40_960);
        // 4096 B at 50 MB/s = 81.92 µs; + 20 µs.
        assert_eq!(d.service_ns(&op(0, 1, true)), 20_000 + 81_920);
        // 8 blocks: transfer scales, latency does not.
        assert_eq!(d.service_ns(&op(0, 8, false)), 10_000 + 8 * 40_960);
    }

    #[test]
    fn back_to_back_on_one_channel() {
        let mut d = FlashDevice::new(params(1, None)).expect("valid");
        let s = d.service_ns(&op(0, 1, false));
        let a = d.submit(SimTime(0), op(0, 1, false)).expect("ok");
        let b = d.submit(SimTime(0), op(1, 1, false)).expect("ok");
        assert_eq!((a.start, a.done), (SimTime(0), SimTime(s)));
        assert_eq!((b.start, b.done), (SimTime(s), SimTime(2 * s)));
        // A later arrival at an idle device starts at once.
        let c = d.submit(SimTime(10 * s), op(2, 1, false)).expect("ok");
        assert_eq!(c.start, SimTime(10 * s));
        assert_eq!(d.stats().wait_ns, s);
    }

    #[test]
    fn n_channels_serve_n_ops_together_and_the_next_waits() {
        let n = 4;
        let mut d = FlashDevice::new(params(n, None)).expect("valid");
        let s = d.service_ns(&op(0, 1, true));
        let now = SimTime(1_000);
        for i in 0..n as u64 {
            let c = d.submit(now, op(i, 1, true)).expect("ok");
            assert_eq!(c.start, now);
            assert_eq!(c.done, now + s);
            assert_eq!(c.channel, i as u32);
        }
        let extra = d.submit(now, op(99, 1, true)).expect("ok");
        assert_eq!(extra.start, now + s, "the N+1th op waits for a channel");
        assert_eq!(extra.done, now + 2 * s);
        assert_eq!(extra.channel, 0, "ties go to the lowest channel");
        assert_eq!(d.idle_at(), now + 2 * s);
    }

    #[test]
    fn earliest_free_channel_serves() {
        let mut d = FlashDevice::new(params(2, None)).expect("valid");
        // A long op on channel 0, a short one on channel 1.
        let long = d.submit(SimTime(0), op(0, 64, false)).expect("ok");
        let short = d.submit(SimTime(0), op(1, 1, false)).expect("ok");
        assert_eq!((long.channel, short.channel), (0, 1));
        // The next op goes to channel 1, which frees first.
        let next = d.submit(SimTime(0), op(2, 1, false)).expect("ok");
        assert_eq!(next.channel, 1);
        assert_eq!(next.start, short.done);
    }

    #[test]
    fn queue_depth_caps_concurrency() {
        let mut d = FlashDevice::new(params(8, Some(2))).expect("valid");
        let s = d.service_ns(&op(0, 1, false));
        let done: Vec<SimTime> = (0..4)
            .map(|i| d.submit(SimTime(0), op(i, 1, false)).expect("ok").done)
            .collect();
        assert_eq!(
            done,
            vec![SimTime(s), SimTime(s), SimTime(2 * s), SimTime(2 * s)]
        );
        assert_eq!(d.params().servers(), 2);
    }

    #[test]
    fn counters() {
        let mut d = FlashDevice::new(params(2, None)).expect("valid");
        d.submit(SimTime(0), op(0, 2, false)).expect("ok");
        d.submit(SimTime(0), op(1, 3, true)).expect("ok");
        let st = *d.stats();
        assert_eq!((st.reads, st.writes, st.ops()), (1, 1, 2));
        assert_eq!(st.bytes_read, 2 * 4096);
        assert_eq!(st.bytes_written, 3 * 4096);
        assert_eq!(
            st.busy_ns,
            d.service_ns(&op(0, 2, false)) + d.service_ns(&op(1, 3, true))
        );
        d.reset_stats();
        assert_eq!(*d.stats(), FlashStats::default());
    }

    #[test]
    fn deterministic() {
        let run = || {
            let mut d = FlashDevice::new(params(3, Some(32))).expect("valid");
            let mut out = Vec::new();
            let mut now = SimTime(0);
            for i in 0..500u64 {
                // A fixed, irregular pattern of sizes, kinds and arrival gaps.
                let blocks = 1 + (i * 7 % 13) as u32;
                let write = i % 3 == 0;
                now += i * 37 % 101 * 1_000;
                out.push(d.submit(now, op(i, blocks, write)).expect("ok"));
            }
            (out, *d.stats())
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn rejects_bad_ops() {
        let mut d = FlashDevice::new(params(1, None)).expect("valid");
        let cap = d.capacity_blocks();
        assert!(matches!(
            d.submit(
                SimTime(0),
                FlashOp {
                    id: 1,
                    block: cap,
                    blocks: 1,
                    write: false
                }
            ),
            Err(FlashError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.submit(
                SimTime(0),
                FlashOp {
                    id: 2,
                    block: u64::MAX,
                    blocks: 2,
                    write: true
                }
            ),
            Err(FlashError::OutOfRange { .. })
        ));
        assert!(matches!(
            d.submit(
                SimTime(0),
                FlashOp {
                    id: 3,
                    block: 0,
                    blocks: 0,
                    write: false
                }
            ),
            Err(FlashError::Empty { id: 3 })
        ));
        d.submit(SimTime(50), op(4, 1, false)).expect("ok");
        assert!(matches!(
            d.submit(SimTime(49), op(5, 1, false)),
            Err(FlashError::TimeWentBack { .. })
        ));
        // Rejected ops change nothing.
        assert_eq!(d.stats().ops(), 1);
    }

    #[test]
    fn rejects_bad_params() {
        type Breaker = Box<dyn Fn(&mut FlashParams)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("channels", Box::new(|p| p.channels = 0)),
            ("block_bytes", Box::new(|p| p.block_bytes = 0)),
            ("capacity_bytes", Box::new(|p| p.capacity_bytes = 4097)),
            ("capacity_bytes", Box::new(|p| p.capacity_bytes = 0)),
            ("read_latency_us", Box::new(|p| p.read_latency_us = -1.0)),
            (
                "write_latency_us",
                Box::new(|p| p.write_latency_us = f64::NAN),
            ),
            ("channel_read_mb_s", Box::new(|p| p.channel_read_mb_s = 0.0)),
            (
                "channel_write_mb_s",
                Box::new(|p| p.channel_write_mb_s = f64::INFINITY),
            ),
            ("queue_depth", Box::new(|p| p.queue_depth = Some(0))),
        ];
        for (field, break_it) in cases {
            let mut p = params(1, None);
            break_it(&mut p);
            match FlashDevice::new(p) {
                Err(FlashError::Param { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: expected a parameter error, got {other:?}"),
            }
        }
    }

    #[test]
    fn params_round_trip_through_toml() {
        let p = params(4, Some(32));
        let text = toml::to_string(&p).expect("serialise");
        let back: FlashParams = toml::from_str(&text).expect("parse");
        assert_eq!(back, p);
        // queue_depth may be omitted; unknown fields are refused.
        let no_qd = text.replace("queue_depth = 32\n", "");
        let parsed: FlashParams = toml::from_str(&no_qd).expect("parse");
        assert_eq!(parsed.queue_depth, None);
        assert!(toml::from_str::<FlashParams>(&format!("{text}typo = 1\n")).is_err());
    }
}
