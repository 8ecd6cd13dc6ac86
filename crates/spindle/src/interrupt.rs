//! A request to stop a long run from outside it: Python's Ctrl-C. The command line
//! needs none (SIGINT ends its process); a Python call runs with the GIL released, so
//! the interpreter cannot raise `KeyboardInterrupt` until the call returns. The Python
//! package's watcher sets this flag when it sees the signal, and the long loops poll it
//! and end early with an error: the engine's event loop, each experiment of
//! `reproduce`, the fault campaign's operations and the Disk Mimic's probe.
//!
//! The flag is process-wide, as the signal is: while it is set, every run in the
//! process stops, not only the one the interrupted call started.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The message a run stopped this way ends with.
pub const MESSAGE: &str = "interrupted";

/// Asks every run in the process to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Withdraws the request (once the interrupted runs have stopped).
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether runs should stop now.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
