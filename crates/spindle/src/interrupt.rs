//! A request to stop long runs from outside them: Python's Ctrl-C. The command line
//! needs none (SIGINT ends its process); a Python call runs with the GIL released, so
//! the interpreter cannot raise `KeyboardInterrupt` until the call returns. The Python
//! package's watcher calls [`request`] when it sees the signal, and the long loops
//! (the engine's event loop, each experiment of `reproduce`, the fault campaigns'
//! operations, the Disk Mimic's probes, calibration's search) hold a [`Watch`] taken
//! when they began and end early with an error once a request came after it.
//!
//! Requests are counted, never withdrawn: every run under way at a request stops, in
//! any thread (the signal is the process's), and a run begun after it is not touched.

use std::sync::atomic::{AtomicU64, Ordering};

/// How many requests there have been.
static REQUESTS: AtomicU64 = AtomicU64::new(0);

/// The message a run stopped this way ends with.
pub const MESSAGE: &str = "interrupted";

/// Asks every run under way to stop.
pub fn request() {
    REQUESTS.fetch_add(1, Ordering::Relaxed);
}

/// What a run sees of the requests: taken when it begins.
#[derive(Clone, Copy, Debug)]
pub struct Watch(u64);

impl Watch {
    /// A watch for a run beginning now.
    pub fn start() -> Watch {
        Watch(REQUESTS.load(Ordering::Relaxed))
    }

    /// Whether a request came since the run began.
    #[inline]
    pub fn stopped(&self) -> bool {
        REQUESTS.load(Ordering::Relaxed) != self.0
    }
}
