//! The oracle on traces small enough to enumerate by hand.

use hindsight_predict::oracle::{explore, Reorderings};
use hindsight_trace::{TextReader, Trace};

fn trace(text: &str) -> Trace {
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid trace")
}

fn races(text: &str, which: Reorderings) -> Vec<(u64, u64)> {
    explore(&trace(text), which).races.into_iter().collect()
}

/// Two writes in different critical sections' shadows: dropping T1's section exposes them.
const UNPROTECTED_AROUND_A_LOCK: &str =
    "T1|w(x)\nT1|acq(l)\nT1|rel(l)\nT2|acq(l)\nT2|rel(l)\nT2|w(x)\n";

#[test]
fn accesses_outside_reversible_sections_race() {
    for which in [Reorderings::Correct, Reorderings::SyncPreserving] {
        assert_eq!(races(UNPROTECTED_AROUND_A_LOCK, which), [(0, 5)]);
    }
}

#[test]
fn accesses_under_one_lock_never_race() {
    let t = "T1|acq(l)\nT1|w(x)\nT1|rel(l)\nT2|acq(l)\nT2|w(x)\nT2|rel(l)\n";
    assert!(races(t, Reorderings::Correct).is_empty());
}

#[test]
fn a_read_keeps_the_write_it_saw() {
    // T2's r(y) must see T1's w(y), so T1's w(x) is done before T2's w(x) can be enabled.
    let t = "T1|w(x)\nT1|w(y)\nT2|r(y)\nT2|w(x)\n";
    assert_eq!(races(t, Reorderings::Correct), [(1, 2)]);
}

#[test]
fn opposite_lock_orders_deadlock() {
    let t =
        "T1|acq(a)\nT1|acq(b)\nT1|rel(b)\nT1|rel(a)\nT2|acq(b)\nT2|acq(a)\nT2|rel(a)\nT2|rel(b)\n";
    assert!(explore(&trace(t), Reorderings::Correct).deadlock);
    // T1 holding `a` and T2 holding `b` keeps each lock's (single) acquire in order.
    assert!(explore(&trace(t), Reorderings::SyncPreserving).deadlock);
    let nested =
        "T1|acq(a)\nT1|acq(b)\nT1|rel(b)\nT1|rel(a)\nT2|acq(a)\nT2|acq(b)\nT2|rel(b)\nT2|rel(a)\n";
    assert!(!explore(&trace(nested), Reorderings::Correct).deadlock);
}

#[test]
fn a_forked_thread_waits_for_its_fork_and_a_join_for_its_thread() {
    let t = "T1|w(x)\nT1|fork(T2)\nT2|w(x)\nT1|join(T2)\nT1|w(x)\n";
    assert!(races(t, Reorderings::Correct).is_empty());
}
