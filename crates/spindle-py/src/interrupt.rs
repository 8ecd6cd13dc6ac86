//! Ctrl-C during a long call. A call runs with the GIL released, so Python cannot
//! raise `KeyboardInterrupt` until it returns. [`interruptible`] runs the work on a
//! second thread while the calling thread waits, looking for a signal every
//! [`POLL`]; on one it asks the work to stop ([`spindle::interrupt`]), waits for it to
//! end (the engine stops at its next event, `reproduce` before its next experiment),
//! and raises the signal's exception. A second Ctrl-C while it waits is not needed
//! and not seen: the first already asked.

use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::Duration;

/// How often the waiting thread looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// The work thread's stack: the main thread's size, which the experiments were
/// written for.
const WORK_STACK: usize = 8 << 20;

/// How many polls apart a progress report is made (about twice a second).
const POLLS_PER_TICK: u32 = 10;

/// A progress report, made on the calling thread with the GIL held; an error stops
/// the work as a signal does.
pub type Tick<'a> = &'a mut (dyn FnMut(Python<'_>) -> PyResult<()> + Send);

/// Runs `work` with the GIL released, stopping it early if a signal's handler raises
/// (Ctrl-C: `KeyboardInterrupt`); that exception is then the result. Signals are
/// seen only when called from the main thread, as in Python.
pub fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    interruptible_ticking(py, work, &mut |_| Ok(()))
}

/// [`interruptible`], calling `tick` about twice a second while the work runs.
pub fn interruptible_ticking<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    tick: Tick<'_>,
) -> PyResult<T> {
    let (out, signal) = py.detach(|| {
        // Taken by the work thread, or by this one if no thread can start.
        let slot = Mutex::new(Some(work));
        let take = || slot.lock().ok().and_then(|mut w| w.take());
        let take = &take;
        std::thread::scope(|s| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let spawned = std::thread::Builder::new()
                .stack_size(WORK_STACK)
                .spawn_scoped(s, move || {
                    let out = take().map(|w| w());
                    // Dropped unsent if the work panics: the wait ends either way.
                    let _ = done_tx.send(());
                    out
                });
            let Ok(handle) = spawned else {
                return (Ok(take().map(|w| w())), None);
            };
            let mut signal = None;
            let mut polls = 0u32;
            loop {
                match done_rx.recv_timeout(POLL) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) if signal.is_none() => {
                        polls += 1;
                        let checked = Python::attach(|py| {
                            py.check_signals()?;
                            if polls.is_multiple_of(POLLS_PER_TICK) {
                                tick(py)?;
                            }
                            Ok(())
                        });
                        if let Err(e) = checked {
                            spindle::interrupt::request();
                            signal = Some(e);
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
            let out = handle.join();
            if signal.is_some() {
                spindle::interrupt::clear();
            }
            (out, signal)
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    if out.is_ok() {
        // The last report, of the whole: a progress bar ends full.
        tick(py)?;
    }
    match out {
        Ok(Some(v)) => Ok(v),
        Ok(None) => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "the work was taken twice (a bug in spindle's interrupt helper)",
        )),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// An error if the work was asked to stop: for loops of the extension's own that the
/// library's polling does not cover (reading a trace).
pub fn stop_if_interrupted() -> Result<(), String> {
    if spindle::interrupt::requested() {
        Err(spindle::interrupt::MESSAGE.to_string())
    } else {
        Ok(())
    }
}
