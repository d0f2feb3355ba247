//! Witnesses: every sync-preserving race (and so every SHB race) gets one, the replayer accepts
//! it, and the pair it enables is a predictable race by the oracle; the replayer refuses
//! schedules that break the definition, each for its reason.

use hindsight_predict::oracle::{explore, Reorderings};
use hindsight_predict::recording::{Recorded, Recording};
use hindsight_predict::replay::check;
use hindsight_predict::shb::Shb;
use hindsight_predict::syncp::SyncP;
use hindsight_predict::witness;
use hindsight_trace::arbitrary::{trace_from_choices, with_late_forks, Shape};
use hindsight_trace::{TextReader, Trace};
use proptest::prelude::*;

mod common;
use common::{drive, every_event};

fn recording(trace: &Trace) -> Recording {
    let mut r = Recording::new();
    for e in &trace.events {
        r.record(e);
    }
    r
}

fn generated(choices: &[(u8, u8, u8)], threads: u8) -> Trace {
    const ACTIONS: [u8; 16] = [0, 2, 2, 2, 4, 4, 4, 4, 5, 5, 5, 5, 5, 7, 8, 9];
    let shape = Shape {
        threads,
        vars: 2,
        locks: 2,
        msgs: 1,
        odd: false,
    };
    let forks = (1..threads).map(|u| (0, 6, u));
    let rest = choices
        .iter()
        .map(|&(t, b, c)| (t, ACTIONS[b as usize % ACTIONS.len()], c));
    trace_from_choices(&forks.chain(rest).collect::<Vec<_>>(), shape)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_sync_preserving_and_shb_race_has_a_witness_that_replays(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..12),
        threads in 2u8..=4,
    ) {
        witnesses_replay(&generated(&choices, threads))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The same with the forks late, after some of the children's events.
    #[test]
    fn witnesses_replay_when_children_run_before_their_forks(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..12),
        threads in 2u8..=4,
        late in 1usize..4,
    ) {
        witnesses_replay(&with_late_forks(generated(&choices, threads), late))?;
    }
}

/// Every sync-preserving and SHB race of `trace` has a witness that the replayer accepts, it
/// is a predictable race by the oracle, and the named witness is that schedule.
fn witnesses_replay(trace: &Trace) -> Result<(), TestCaseError> {
    let truth = explore(trace, Reorderings::Correct);
    let mut syncp = SyncP::new(every_event());
    drive(trace, &mut syncp);
    let mut shb = Shb::new(every_event());
    drive(trace, &mut shb);
    let mut rec = recording(trace);
    for r in syncp.races().iter().chain(shb.races()) {
        let (a, b) = (r.partner.index, r.racy.index);
        let schedule = witness::reordering(&mut rec, a, b);
        prop_assert!(schedule.is_some(), "no witness for ({a}, {b})");
        let schedule = schedule.unwrap_or_default();
        prop_assert_eq!(check(&rec.events, &schedule, a, b), Ok(()));
        prop_assert!(truth.races.contains(&(a, b)));
        let named = witness::find(&mut rec, &trace.names, a, b).expect("checked");
        prop_assert_eq!(named.schedule.len(), schedule.len());
    }
    Ok(())
}

fn events(text: &str) -> Vec<Recorded> {
    let trace = Trace::collect(&mut TextReader::new(text.as_bytes())).expect("valid");
    recording(&trace).events
}

#[test]
fn the_replayer_accepts_the_textbook_witness() {
    let t = events("T1|w(x)\nT1|acq(l)\nT1|rel(l)\nT2|acq(l)\nT2|rel(l)\nT2|w(x)\n");
    assert_eq!(check(&t, &[3, 4], 0, 5), Ok(()));
}

#[test]
fn the_replayer_refuses_what_breaks_the_definition() {
    let t = events(
        "T1|fork(T2)\nT1|w(x)\nT1|acq(l)\nT1|w(y)\nT1|rel(l)\nT2|acq(l)\nT2|r(y)\nT2|rel(l)\nT2|w(x)\nT1|join(T2)\n",
    );
    let refused = |schedule: &[u64], a: u64, b: u64| check(&t, schedule, a, b).unwrap_err();
    assert!(refused(&[1, 0], 1, 8).contains("not the next event of its thread"));
    assert!(refused(&[5], 1, 8).contains("not forked"));
    assert!(refused(&[0, 1, 2, 5], 1, 8).contains("held by"));
    assert!(refused(&[0, 5, 6], 1, 8).contains("sees no write instead of #3"));
    assert!(refused(&[0, 1, 2, 3, 4, 9], 1, 8).contains("has not finished"));
    assert!(refused(&[0, 1, 2, 3, 4], 1, 8).contains("not enabled"));
    assert!(refused(&[0], 1, 8).contains("not enabled"));
    assert!(refused(&[0], 1, 5).contains("do not conflict"));
    assert!(refused(&[99], 1, 8).contains("no such event"));
    assert_eq!(
        check(&t, &[0, 5, 7], 1, 8).unwrap_err(),
        "step 2 (event #7): not the next event of its thread"
    );
    assert_eq!(
        check(&t, &[0, 5, 6, 7], 1, 8),
        Err("step 2 (event #6): sees no write instead of #3".into())
    );
    assert_eq!(
        check(&t, &[0, 2, 3, 4, 5, 6, 7], 1, 8).unwrap_err(),
        "step 1 (event #2): not the next event of its thread"
    );
}

/// A log can show a child's events before the fork that creates it (a warning: the fork
/// orders only the child's later events, as happens-before reads it). A witness that runs such
/// an event before the fork is correct, and the replayer accepts it; an event after the fork
/// still waits for it. On the Freiburg jigsaw log (`races --model wcp --witness`) the refusal
/// of the first kind stopped a debug build (and hid the witness in a release build).
#[test]
fn a_childs_events_before_its_fork_do_not_wait_for_it() {
    let text = "T1|r(z)\nT0|fork(T1)\nT0|w(x)\nT1|w(x)\n";
    let t = events(text);
    assert_eq!(check(&t, &[0, 1], 2, 3), Ok(()));
    assert!(check(&t, &[0], 2, 3).unwrap_err().contains("not enabled"));
    let trace = Trace::collect(&mut TextReader::new(text.as_bytes())).expect("valid");
    let mut rec = recording(&trace);
    let found = witness::find(&mut rec, &trace.names, 2, 3).expect("a witness");
    let ops: Vec<&str> = found.schedule.iter().map(|e| e.op.as_str()).collect();
    assert_eq!(ops, ["r(z)", "fork(T1)"]);
}

/// A join waits for its thread's fork even when the log shows no event of it after the fork.
#[test]
fn a_join_waits_for_the_fork_of_its_thread() {
    let t = events("T1|r(y)\nT0|fork(T1)\nT0|w(x)\nT2|join(T1)\nT2|w(x)\n");
    assert!(check(&t, &[0, 3], 2, 4)
        .unwrap_err()
        .contains("the joined thread is not forked yet"));
    assert_eq!(check(&t, &[0, 1, 3], 2, 4), Ok(()));
}
