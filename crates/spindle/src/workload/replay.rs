//! Replaying a request sequence back to back with a fixed number outstanding.

use crate::time::SimTime;
use crate::trace::IoRecord;

/// A fixed request sequence replayed in order with no idle time: the first `window`
/// requests arrive at time 0, and every completion releases the next request of the
/// sequence at that moment, so exactly `window` requests are outstanding until the
/// sequence runs out. The records' own arrival times are ignored.
///
/// It is driven like [`super::ClosedLoop`] (the simulation loop calls
/// [`WindowedReplay::start`] and [`WindowedReplay::on_complete`]); the "process" of a
/// request is the window slot it occupies, `0..window`, and a slot's next request
/// takes the same number. Unlike a closed loop of independent processes, the requests
/// outstanding together are neighbours in one sequence, so a sequence with locality
/// between consecutive requests (e.g. [`super::Pattern::Walk`]) keeps it in the queue.
#[derive(Clone, Debug)]
pub struct WindowedReplay {
    records: Vec<IoRecord>,
    window: u32,
    next: usize,
}

impl WindowedReplay {
    /// Replays `records` with `window` requests outstanding (at least 1).
    ///
    /// # Panics
    ///
    /// If `window` is 0.
    pub fn new(records: Vec<IoRecord>, window: u32) -> WindowedReplay {
        assert!(window > 0, "a replay window must hold at least 1 request");
        WindowedReplay {
            records,
            window,
            next: 0,
        }
    }

    /// Requests released so far.
    pub fn issued(&self) -> usize {
        self.next
    }

    /// (Re)starts the replay: the first `window` requests (fewer if the sequence is
    /// shorter) at time 0, as `(slot, record)`.
    pub fn start(&mut self) -> Vec<(u32, IoRecord)> {
        self.next = 0;
        let n = (self.window as usize).min(self.records.len()) as u32;
        (0..n)
            .map(|slot| (slot, self.release(SimTime::ZERO)))
            .collect()
    }

    /// The request in `slot` completed at `now`: the next request of the sequence,
    /// arriving now, or `None` once all have been released.
    pub fn on_complete(&mut self, _slot: u32, now: SimTime) -> Option<IoRecord> {
        (self.next < self.records.len()).then(|| self.release(now))
    }

    fn release(&mut self, arrival: SimTime) -> IoRecord {
        let r = IoRecord {
            arrival,
            ..self.records[self.next].clone()
        };
        self.next += 1;
        r
    }
}

/// The engine drives it as any closed-loop source.
impl crate::engine::ClosedSource for WindowedReplay {
    fn start(&mut self) -> Vec<(u32, IoRecord)> {
        WindowedReplay::start(self)
    }
    fn on_complete(&mut self, process: u32, now: SimTime) -> Option<IoRecord> {
        WindowedReplay::on_complete(self, process, now)
    }
}
