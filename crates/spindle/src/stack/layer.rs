//! Layers: parts that sit above a device, take requests from above, issue requests
//! below, see completions from below, complete requests above, and may set timers — a
//! cache, a replica retriever, a log skipper, a layout engine. A layer is a sans-IO
//! state machine: each step writes into a [`LayerIo`] outbox, and [`LayerNode`] turns a
//! layer and the device below it into a device, so layers stack on anything.

use crate::disk::hdd::Request;
use crate::node::{tree_line, Device, Done, NodeReport};
use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What a layer asks for in one step.
#[derive(Debug, Default)]
pub struct LayerIo {
    /// Requests for the device below (ids are the layer's own).
    pub below: Vec<Request>,
    /// Requests from above that are complete.
    pub up: Vec<Done>,
    /// Timers to set: (when, the layer's token).
    pub timers: Vec<(SimTime, u64)>,
}

impl LayerIo {
    /// Completes `req` (from above) now, with no device time.
    pub fn complete_now(&mut self, req: Request, now: SimTime) {
        self.up.push(Done {
            cache_hit: true,
            ..Done::served(req, now, now)
        });
    }
}

/// A layer's behaviour.
pub trait Layer {
    /// A request from above.
    fn on_request(&mut self, now: SimTime, req: Request, io: &mut LayerIo);
    /// The device below completed a request this layer issued.
    fn on_complete(&mut self, now: SimTime, done: &Done, io: &mut LayerIo);
    /// A timer this layer set fired.
    fn on_timer(&mut self, now: SimTime, token: u64, io: &mut LayerIo);
    /// Requests from above not yet completed.
    fn outstanding(&self) -> usize;
    /// One line for `--print-stack`.
    fn describe(&self) -> String;
    /// Its statistics.
    fn report(&self, path: &str) -> NodeReport;
    /// Sectors it offers above, given the device below's (a remapping layer may hide
    /// some; a journal keeps its log out of the address space). Default: all of them.
    fn capacity(&self, below: u64) -> u64 {
        below
    }
    /// Why the layer stopped serving (it broke a limit), if it did: the run ends with
    /// this reason.
    fn failure(&self) -> Option<String> {
        None
    }
}

/// A layer over a device, as a device.
pub struct LayerNode {
    layer: Box<dyn Layer>,
    child: Box<dyn Device>,
    /// Pending timers: (when, sequence, token); ties fire in the order set.
    timers: BinaryHeap<Reverse<(SimTime, u64, u64)>>,
    timer_seq: u64,
    /// Completions the layer produced while taking a request, handed up at the next
    /// wake (at the same instant).
    ready: Vec<Done>,
    ready_at: SimTime,
    io: LayerIo,
    scratch: Vec<Done>,
}

impl LayerNode {
    pub fn new(layer: Box<dyn Layer>, child: Box<dyn Device>) -> LayerNode {
        LayerNode {
            layer,
            child,
            timers: BinaryHeap::new(),
            timer_seq: 0,
            ready: Vec::new(),
            ready_at: SimTime::ZERO,
            io: LayerIo::default(),
            scratch: Vec::new(),
        }
    }

    /// Carries out what the layer asked for.
    fn apply(&mut self, now: SimTime, out: Option<&mut Vec<Done>>) {
        let mut io = std::mem::take(&mut self.io);
        for r in io.below.drain(..) {
            self.child.submit(now, r);
        }
        for (at, token) in io.timers.drain(..) {
            // A timer in the past fires now: the engine never goes back.
            self.timers
                .push(Reverse((at.max(now), self.timer_seq, token)));
            self.timer_seq += 1;
        }
        match out {
            Some(out) => out.append(&mut io.up),
            None => {
                if !io.up.is_empty() {
                    self.ready_at = now;
                    self.ready.append(&mut io.up);
                }
            }
        }
        self.io = io;
    }
}

impl Device for LayerNode {
    fn capacity(&self) -> u64 {
        self.layer.capacity(self.child.capacity())
    }

    fn failure(&self) -> Option<String> {
        self.layer.failure().or_else(|| self.child.failure())
    }

    fn outstanding(&self) -> usize {
        self.layer.outstanding()
    }

    fn can_accept(&self) -> bool {
        true
    }

    fn submit(&mut self, now: SimTime, req: Request) {
        let mut io = std::mem::take(&mut self.io);
        self.layer.on_request(now, req, &mut io);
        self.io = io;
        self.apply(now, None);
    }

    fn next_wake(&self) -> Option<SimTime> {
        let ready = (!self.ready.is_empty()).then_some(self.ready_at);
        let timer = self.timers.peek().map(|Reverse((t, _, _))| *t);
        [ready, timer, self.child.next_wake()]
            .into_iter()
            .flatten()
            .min()
    }

    fn wake(&mut self, now: SimTime, out: &mut Vec<Done>) {
        if !self.ready.is_empty() {
            out.append(&mut self.ready);
            return;
        }
        let timer = self.timers.peek().map(|Reverse((t, _, _))| *t);
        let child = self.child.next_wake();
        // Timers go before device events at the same instant.
        if timer.is_some_and(|t| t <= now && child.is_none_or(|c| t <= c)) {
            if let Some(Reverse((_, _, token))) = self.timers.pop() {
                let mut io = std::mem::take(&mut self.io);
                self.layer.on_timer(now, token, &mut io);
                self.io = io;
                self.apply(now, Some(out));
            }
            return;
        }
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        self.child.wake(now, &mut got);
        for d in &got {
            if d.background {
                // A part below generated it: not the layer's business.
                out.push(*d);
                continue;
            }
            let mut io = std::mem::take(&mut self.io);
            self.layer.on_complete(now, d, &mut io);
            self.io = io;
            self.apply(now, Some(out));
        }
        self.scratch = got;
    }

    fn describe(&self, depth: usize, out: &mut String) {
        tree_line(depth, out, &self.layer.describe());
        self.child.describe(depth + 1, out);
    }

    fn report_until(&self, path: &str, end: SimTime, out: &mut Vec<NodeReport>) {
        out.push(self.layer.report(path));
        self.child.report_until(&format!("{path}/below"), end, out);
    }

    fn predictions(&self, out: &mut Vec<(u32, u64)>) {
        self.child.predictions(out);
    }
}
