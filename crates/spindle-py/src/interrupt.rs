//! Ctrl-C during a long call. A call runs with the GIL released, so Python cannot
//! raise `KeyboardInterrupt` until it returns. [`interruptible`] runs the work on a
//! second thread while the calling thread waits, looking for a signal every
//! [`POLL`]; on one it asks the runs under way to stop ([`spindle::interrupt`]: every
//! run in the process that began before the signal), waits for the work to end (the
//! engine stops at its next event, `reproduce` before its next experiment; a loop
//! that does not poll finishes first) and raises the signal's exception. A second
//! Ctrl-C meanwhile is raised by Python after the call returns.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

/// How often the waiting thread looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// How many polls apart a progress report is made (about twice a second).
const POLLS_PER_TICK: u32 = 10;

/// The work thread's stack: the main thread's size, which the experiments were
/// written for.
const WORK_STACK: usize = 8 << 20;

/// A progress report, made on the calling thread with the GIL held.
pub type Tick<'a> = &'a mut (dyn FnMut(Python<'_>) -> PyResult<()> + Send);

/// Runs `work` with the GIL released, stopping it early if a signal's handler raises
/// (Ctrl-C: `KeyboardInterrupt`); that exception is then the result. Signals are
/// seen only when called from the main thread, as in Python.
pub fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    interruptible_ticking(py, work, &mut |_| Ok(()), &AtomicBool::new(false))
}

/// [`interruptible`], calling `tick` about twice a second while the work runs. An
/// exception from `tick` stops this call only: `cancel` is set, which the work is to
/// watch, and once the work has ended the exception is the result.
pub fn interruptible_ticking<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    tick: Tick<'_>,
    cancel: &AtomicBool,
) -> PyResult<T> {
    // Every run of the work is dated from now: a signal before one begins stops it.
    let since = spindle::interrupt::Watch::start();
    let (out, raised) = py.detach(|| {
        // Taken by the work thread, or by this one if no thread can start (then
        // without signals or reports: nothing is left to wait on).
        let slot = Mutex::new(Some(work));
        let take = || slot.lock().ok().and_then(|mut w| w.take());
        let take = &take;
        std::thread::scope(|s| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let spawned = std::thread::Builder::new()
                .stack_size(WORK_STACK)
                .spawn_scoped(s, move || {
                    let out = take().map(|w| spindle::interrupt::scoped(since, w));
                    // Dropped unsent if the work panics: the wait ends either way.
                    let _ = done_tx.send(());
                    out
                });
            let Ok(handle) = spawned else {
                return (Ok(take().map(|w| w())), None);
            };
            let mut raised = None;
            let mut polls = 0u32;
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) if raised.is_none() => {
                        polls += 1;
                        let checked = Python::attach(|py| {
                            if let Err(signal) = py.check_signals() {
                                spindle::interrupt::request();
                                return Err(signal);
                            }
                            if polls.is_multiple_of(POLLS_PER_TICK) {
                                if let Err(e) = tick(py) {
                                    cancel.store(true, Ordering::Relaxed);
                                    return Err(e);
                                }
                            }
                            Ok(())
                        });
                        raised = checked.err();
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
            (handle.join(), raised)
        })
    });
    if let Some(e) = raised {
        return Err(e);
    }
    match out {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "the work was taken twice (a bug in spindle's interrupt helper)",
        )),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
