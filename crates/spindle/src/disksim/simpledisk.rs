//! DiskSim's simple disk (`disksim_simpledisk`): no mechanism, every request takes
//! the same access time. As `disksim_simpledisk.c` runs it with no bus latency, a
//! request's command overhead starts on arrival; its access starts once that is done
//! and the request before it has completed (first come first served); its data
//! crosses the bus at the slower of the disk's and the bus's block times, before the
//! access for a write and after it for a read, so either way the request completes
//! `overhead + access + blocks × block time` after it could start.

use super::import::ImportError;
use super::param::{Block, Loc, ParamFile, Value};
use crate::disk::hdd::Request;
use crate::disk::params::MAX_TIME_MS;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::{ms_to_ns, SimTime};
use std::collections::VecDeque;

/// Most blocks a simple disk may have (DiskSim's block numbers are ints).
pub const MAX_SIMPLE_BLOCKS: u64 = i32::MAX as u64;

/// A `disksim_simpledisk` block as spindle runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct SimpleDiskSpec {
    pub instance: String,
    pub blocks: u64,
    pub access_ms: f64,
    pub overhead_ms: f64,
    /// Per block on the bus: the larger of `Bulk sector transfer time` and the bus's.
    pub block_ms: f64,
    pub max_queue: u32,
}

fn at<T>(loc: &Loc, msg: impl Into<String>) -> Result<T, ImportError> {
    Err(ImportError::At {
        loc: loc.to_string(),
        msg: msg.into(),
    })
}

const NAMES: [&str; 9] = [
    "Block count",
    "Access time",
    "Command overhead",
    "Bus transaction latency",
    "Bulk sector transfer time",
    "Never disconnect",
    "Print stats",
    "Max queue length",
    "Scheduler",
];

/// Reads the simple disk `instance`, on a bus whose block time is `bus_block_ms`.
pub fn read_simpledisk(
    b: &Block,
    file: &ParamFile,
    instance: &str,
    bus_block_ms: f64,
) -> Result<SimpleDiskSpec, ImportError> {
    let b = b.resolved(file);
    let name = b.name.clone().unwrap_or_default();
    for p in &b.params {
        if !NAMES.contains(&p.name.as_str()) {
            return at(
                &p.loc,
                format!(
                    "disksim_simpledisk `{name}`: unknown parameter `{}` (expected one of {})",
                    p.name,
                    NAMES.join(", ")
                ),
            );
        }
    }
    let num = |key: &str| -> Result<(f64, Loc), ImportError> {
        let Some(p) = b.get(key) else {
            return at(&b.loc, format!("disksim_simpledisk `{name}` lacks `{key}`"));
        };
        match p.value {
            Value::Int(i) => Ok((i as f64, p.loc.clone())),
            Value::Float(f) => Ok((f, p.loc.clone())),
            ref v => at(
                &p.loc,
                format!("disksim_simpledisk `{name}`: `{key}` must be a number, got {v:?}"),
            ),
        }
    };
    let time = |key: &str| -> Result<f64, ImportError> {
        let (v, loc) = num(key)?;
        if !(0.0..=MAX_TIME_MS).contains(&v) {
            return at(
                &loc,
                format!("disksim_simpledisk `{name}`: `{key}` must be a time within 0..={MAX_TIME_MS} ms, got {v}"),
            );
        }
        Ok(v)
    };
    let (blocks, bloc) = num("Block count")?;
    if !(blocks >= 1.0 && blocks <= MAX_SIMPLE_BLOCKS as f64 && blocks.fract() == 0.0) {
        return at(
            &bloc,
            format!("disksim_simpledisk `{name}`: `Block count` must be a whole number 1..={MAX_SIMPLE_BLOCKS}, got {blocks}"),
        );
    }
    let latency = time("Bus transaction latency")?;
    if latency != 0.0 {
        let loc = b.get("Bus transaction latency").map_or(&b.loc, |p| &p.loc);
        return at(
            loc,
            format!("disksim_simpledisk `{name}`: a `Bus transaction latency` other than 0 is not modelled"),
        );
    }
    if let Some(p) = b.get("Never disconnect") {
        // The simple disk always disconnects between command and completion.
        if !matches!(p.value, Value::Int(0)) {
            return at(
                &p.loc,
                format!(
                    "disksim_simpledisk `{name}`: `Never disconnect` other than 0 is not modelled"
                ),
            );
        }
    }
    let (q, qloc) = num("Max queue length")?;
    if !(1.0..=1024.0).contains(&q) || q.fract() != 0.0 {
        return at(
            &qloc,
            format!("disksim_simpledisk `{name}`: `Max queue length` must be 1..=1024, got {q}"),
        );
    }
    if let Some(Value::Block(s)) = b.get("Scheduler").map(|p| &p.value) {
        if let Some(p) = s.get("Scheduling policy") {
            if p.value != Value::Int(1) {
                return at(
                    &p.loc,
                    format!("disksim_simpledisk `{name}`: only first-come-first-served scheduling (policy 1) is modelled"),
                );
            }
        }
    }
    let bulk = match b.get("Bulk sector transfer time") {
        Some(_) => time("Bulk sector transfer time")?,
        None => 0.0,
    };
    Ok(SimpleDiskSpec {
        instance: instance.to_string(),
        blocks: blocks as u64,
        access_ms: time("Access time")?,
        overhead_ms: time("Command overhead")?,
        block_ms: bulk.max(bus_block_ms),
        max_queue: q as u32,
    })
}

/// A simple disk as a stack device.
pub struct SimpleDisk {
    spec: SimpleDiskSpec,
    access_ns: u64,
    overhead_ns: u64,
    block_ns: u64,
    /// Requests waiting: when their command overhead ends.
    queue: VecDeque<(SimTime, Request)>,
    /// The request in service, when it started and when it completes.
    active: Option<(Request, SimTime, SimTime)>,
    reads: u64,
    writes: u64,
    busy_ns: u64,
}

impl SimpleDisk {
    pub fn new(spec: SimpleDiskSpec) -> SimpleDisk {
        SimpleDisk {
            access_ns: ms_to_ns(spec.access_ms),
            overhead_ns: ms_to_ns(spec.overhead_ms),
            block_ns: ms_to_ns(spec.block_ms),
            spec,
            queue: VecDeque::new(),
            active: None,
            reads: 0,
            writes: 0,
            busy_ns: 0,
        }
    }

    fn begin(&mut self, now: SimTime) {
        if self.active.is_some() {
            return;
        }
        let Some((ready, req)) = self.queue.pop_front() else {
            return;
        };
        let start = ready.max(now);
        let done = start + self.access_ns + u64::from(req.blocks.max(1)) * self.block_ns;
        self.active = Some((req, start, done));
    }
}

impl Device for SimpleDisk {
    fn capacity(&self) -> u64 {
        self.spec.blocks
    }

    fn outstanding(&self) -> usize {
        self.queue.len() + usize::from(self.active.is_some())
    }

    fn can_accept(&self) -> bool {
        self.outstanding() < self.spec.max_queue as usize
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        if req.write {
            self.writes += 1;
        } else {
            self.reads += 1;
        }
        self.queue.push_back((now + self.overhead_ns, req));
        self.begin(now);
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.active.map(|(_, _, done)| done)
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        let Some((req, start, done)) = self.active else {
            return;
        };
        if done > now {
            return;
        }
        self.active = None;
        self.busy_ns += done.0 - start.0;
        let mut d = Done::served(req, start, done);
        d.dispatch = None;
        out.push(d);
        self.begin(done);
    }

    fn describe(&self, depth: usize, out: &mut String) {
        tree_line(
            depth,
            out,
            &format!(
                "disksim simple disk {} ({} blocks, access {} ms, overhead {} ms, {} ms a block, queue {})",
                self.spec.instance,
                self.spec.blocks,
                self.spec.access_ms,
                self.spec.overhead_ms,
                self.spec.block_ms,
                self.spec.max_queue
            ),
        );
    }

    fn report_until(&self, path: &str, _end: SimTime, out: &mut Vec<NodeReport>) {
        out.push(NodeReport {
            path: path.to_string(),
            kind: format!("simple disk {}", self.spec.instance),
            reads: self.reads,
            writes: self.writes,
            busy_ns: self.busy_ns,
            extra: Vec::new(),
            is_drive: true,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> SimpleDiskSpec {
        SimpleDiskSpec {
            instance: "sd0".into(),
            blocks: 1000,
            access_ms: 9.5,
            overhead_ms: 0.5,
            block_ms: 0.1,
            max_queue: 4,
        }
    }

    #[test]
    fn every_request_takes_overhead_access_and_transfer_in_turn() {
        let mut d = SimpleDisk::new(spec());
        let r = |id, blocks| Request {
            id,
            lbn: 0,
            blocks,
            write: id % 2 == 1,
        };
        d.submit(SimTime(0), r(0, 8));
        d.submit(SimTime(1_000_000), r(1, 2));
        let mut out = Vec::new();
        while let Some(t) = d.next_wake() {
            d.wake(t, &mut out);
        }
        let done: Vec<u64> = out.iter().map(|x| x.done.0).collect();
        // 0.5 + 9.5 + 8 × 0.1 = 10.8 ms; the second's overhead overlapped: + 9.5 + 0.2.
        assert_eq!(done, vec![10_800_000, 20_500_000]);
        assert_eq!(out.len(), 2);
    }
}
