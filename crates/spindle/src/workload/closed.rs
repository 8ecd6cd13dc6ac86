//! Closed-loop workloads: each process issues its next request a think time after the
//! previous one completes.

use super::generator::{zipf_layout, RequestGen};
use super::open::exponential;
use super::spec::{ClosedSpec, Think};
use super::{rng, streams, WorkloadError};
use crate::time::SimTime;
use crate::trace::IoRecord;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A running closed-loop workload, driven by the simulation loop: [`ClosedLoop::start`]
/// gives each process's first request (all at time 0), then every completion reported
/// through [`ClosedLoop::on_complete`] yields that process's next request, arriving one
/// think time after the completion, until `requests` requests have been issued in total.
///
/// Each process draws its addresses and think times from its own ChaCha8 streams (all
/// processes share the Zipf hot-spot layout), so process `p`'s `i`-th request is the
/// same whatever order completions come in: runs differing only in scheduling see the
/// same per-process request sequences. Sequential runs are per process.
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    spec: ClosedSpec,
    layout: Option<Arc<[u32]>>,
    procs: Vec<Process>,
    issued: u64,
}

#[derive(Clone, Debug)]
struct Process {
    gen: RequestGen,
    think: ChaCha8Rng,
}

impl ClosedLoop {
    /// Validates `spec` and prepares the loop; nothing is issued until [`Self::start`].
    pub fn new(spec: &ClosedSpec) -> Result<ClosedLoop, WorkloadError> {
        spec.validate()?;
        Ok(ClosedLoop {
            spec: spec.clone(),
            layout: zipf_layout(&spec.gen, spec.seed),
            procs: Vec::new(),
            issued: 0,
        })
    }

    pub fn spec(&self) -> &ClosedSpec {
        &self.spec
    }

    /// Requests issued so far.
    pub fn issued(&self) -> u64 {
        self.issued
    }

    /// Requests still to be issued.
    pub fn remaining(&self) -> u64 {
        self.spec.requests - self.issued
    }

    /// (Re)starts the workload: the first request of each process, at time 0, as
    /// `(process, record)` with processes numbered from 0. If `requests` is smaller
    /// than `processes`, only the first `requests` processes start.
    pub fn start(&mut self) -> Vec<(u32, IoRecord)> {
        let active = (self.spec.processes as u64).min(self.spec.requests) as u32;
        self.issued = 0;
        self.procs = (0..active)
            .map(|p| Process {
                gen: RequestGen::build(
                    &self.spec.gen,
                    self.layout.clone(),
                    rng(self.spec.seed, streams::process_requests(p)),
                )
                .expect("the spec was validated"),
                think: rng(self.spec.seed, streams::process_think(p)),
            })
            .collect();
        (0..active)
            .map(|p| (p, self.issue(p, SimTime::ZERO)))
            .collect()
    }

    /// Process `process`'s request completed at `now`: its next request, arriving after
    /// its think time, or `None` once `requests` requests have been issued.
    ///
    /// # Panics
    ///
    /// If `process` was not started by [`Self::start`].
    pub fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        assert!(
            (process as usize) < self.procs.len(),
            "process {process} is not running in this closed loop ({} started)",
            self.procs.len()
        );
        if self.issued >= self.spec.requests {
            return None;
        }
        let think = match self.spec.think {
            Think::None => 0,
            Think::Fixed { ns } => ns,
            Think::Exponential { mean_ns } => {
                exponential(&mut self.procs[process as usize].think, mean_ns).round() as u64
            }
        };
        Some(self.issue(process, SimTime(now.0.saturating_add(think))))
    }

    fn issue(&mut self, process: u32, arrival: SimTime) -> IoRecord {
        self.issued += 1;
        let (lbn, blocks, write) = self.procs[process as usize].gen.next();
        IoRecord {
            arrival,
            device: self.spec.device,
            lbn,
            blocks,
            write,
            content: Vec::new(),
        }
    }
}

/// The engine drives it as any closed-loop source.
impl crate::engine::ClosedSource for ClosedLoop {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        ClosedLoop::start(self)
    }
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        ClosedLoop::on_complete(self, process, now)
    }
}
