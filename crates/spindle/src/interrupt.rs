//! A request to stop long runs from outside them: Python's Ctrl-C. The command line
//! needs none (SIGINT ends its process); a Python call runs with the GIL released, so
//! the interpreter cannot raise `KeyboardInterrupt` until the call returns. The Python
//! package's watcher calls [`request`] when it sees the signal, and the long loops
//! (the engine's event loop, each experiment of `reproduce`, the fault campaigns'
//! operations, the Disk Mimic's probes, calibration's search, every read of a trace
//! file) hold a [`Watch`] taken
//! when they began and end early with an error once a request came after it.
//!
//! Requests are counted, never withdrawn: every run under way at a request stops, in
//! any thread (the signal is the process's), and a run begun after it is not touched.
//! A call that starts several runs one after another dates them all from its own
//! start ([`scoped`]), so a request between two of them stops the later ones too.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many requests there have been.
static REQUESTS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The count at the start of the call this thread is working for, if any.
    static SINCE: Cell<Option<u64>> = const { Cell::new(None) };
}

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
    /// A watch for a run beginning now, dated from the start of the call this thread
    /// works for where [`scoped`] says so.
    pub fn start() -> Watch {
        Watch(
            SINCE
                .get()
                .unwrap_or_else(|| REQUESTS.load(Ordering::Relaxed)),
        )
    }

    /// Whether a request came since the run began.
    #[inline]
    pub fn stopped(&self) -> bool {
        REQUESTS.load(Ordering::Relaxed) != self.0
    }

    /// [`MESSAGE`] as an error if a request came since the run began.
    pub fn check(&self) -> Result<(), String> {
        if self.stopped() {
            Err(MESSAGE.to_string())
        } else {
            Ok(())
        }
    }
}

/// Whether a stop was requested since the start of the call this thread works for
/// ([`scoped`]); never outside one.
pub fn requested_in_call() -> bool {
    SINCE
        .get()
        .is_some_and(|since| REQUESTS.load(Ordering::Relaxed) != since)
}

/// Runs `f` on this thread with every [`Watch`] taken in it dated `since` (a call's
/// start), so that a request that came before a run began, but after the call did,
/// stops the run too.
pub fn scoped<T>(since: Watch, f: impl FnOnce() -> T) -> T {
    let outer = SINCE.replace(Some(since.0));
    let out = f();
    SINCE.set(outer);
    out
}
