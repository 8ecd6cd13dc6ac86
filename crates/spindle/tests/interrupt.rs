//! A run asked to stop from outside (Python's Ctrl-C, `spindle::interrupt`) ends at
//! the engine's next event with an error, a trace being read stops too, and runs begun
//! after the request are whole.
//! Its own test binary with one test: a request stops every run under way in the
//! process, those of other tests beside it too.

use spindle::disk::presets::preset;
use spindle::engine::Source;
use spindle::runner::{simulate, StackSpec};
use spindle::sched::SchedulerKind;
use spindle::time::SimTime;
use spindle::trace::IoRecord;

#[test]
fn a_requested_stop_ends_the_run_at_its_next_event() {
    let recs: Vec<IoRecord> = (0..2_000u64)
        .map(|i| IoRecord {
            arrival: SimTime(i * 1_000_000),
            device: 0,
            lbn: (i * 7_919) % 1_000_000,
            blocks: 8,
            write: i % 3 == 0,
            content: Vec::new(),
        })
        .collect();
    let spec = StackSpec::one_disk(preset("hp-c2249a").expect("preset"), SchedulerKind::Sstf);
    let whole = simulate(&spec, Source::records(&recs), &mut |_| {}).expect("runs");
    assert_eq!(whole.requests.len(), recs.len());

    // Asked to stop after 100 completions: nothing completes after the request.
    let mut seen = 0;
    let stopped = simulate(&spec, Source::records(&recs), &mut |n| {
        seen = n;
        if n >= 100 {
            spindle::interrupt::request();
        }
    });
    let err = stopped.expect_err("the run stops");
    assert!(err.contains(spindle::interrupt::MESSAGE), "{err}");
    assert!((100..110).contains(&seen), "{seen} completions");

    // Begun after the request: the next run is whole and the same as the first.
    let again = simulate(&spec, Source::records(&recs), &mut |_| {}).expect("runs");
    let done = |r: &spindle::runner::RunResult| {
        r.requests
            .iter()
            .map(|l| (l.id, l.done))
            .collect::<Vec<_>>()
    };
    assert_eq!(done(&again), done(&whole));

    // A call's runs are dated from the call's start: a request after the call began
    // but before a run did stops that run too.
    use spindle::interrupt::{scoped, Watch};
    let call = Watch::start();
    spindle::interrupt::request();
    let late = scoped(call, || {
        simulate(&spec, Source::records(&recs), &mut |_| {})
    });
    assert!(late.is_err_and(|e| e.contains(spindle::interrupt::MESSAGE)));
    // Outside the call, a run begun now is whole.
    assert!(simulate(&spec, Source::records(&recs), &mut |_| {}).is_ok());

    // A trace file being read in a call (a run's first pass over it too) stops within
    // one buffer fill of a request; a later call reading the same open file reads on.
    let hp =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces/ajw.1week.srt");
    let all = spindle::trace::open_trace(&hp, None)
        .expect("opens")
        .count();
    let mut reading = spindle::trace::open_trace(&hp, None).expect("opens");
    let call = Watch::start();
    let rest: Vec<_> = scoped(call, || {
        assert!(reading.by_ref().take(10).all(|r| r.is_ok()));
        spindle::interrupt::request();
        reading.by_ref().take(all).collect()
    });
    let err = rest.last().expect("an error").clone().expect_err("stopped");
    assert!(err.msg.contains(spindle::interrupt::MESSAGE), "{err}");
    assert!(
        rest.len() < all / 2,
        "{} of {all} records after the request",
        rest.len()
    );
    let mut later = spindle::trace::open_trace(&hp, None).expect("opens");
    assert!(later.by_ref().take(10).all(|r| r.is_ok()));
    spindle::interrupt::request();
    let call = Watch::start();
    assert!(scoped(call, || later.by_ref().take(all).all(|r| r.is_ok())));
    // Outside any call, a read is never stopped.
    assert_eq!(
        spindle::trace::open_trace(&hp, None)
            .expect("opens")
            .filter(Result::is_ok)
            .count(),
        all
    );
}
