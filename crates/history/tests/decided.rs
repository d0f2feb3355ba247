//! A verdict as soon as it is known: a history is not linearizable as soon as one of its
//! independent parts is not, and the search stops there (the other parts not checked) unless
//! every part is asked for. Porcupine's `c50-bad` (see `fixtures/lin/porcupine/README.md`)
//! once took 92 s and 8 GB, checking every key after one had decided it.

use hindsight_budget::{Budget, Limits};
use hindsight_history::parse::parse_history;
use hindsight_history::{check, model_by_name, CheckOptions, Verdict};
use std::time::Duration;

const C50_BAD: &str = include_str!("fixtures/lin/porcupine/c50-bad.txt");

fn run(all_parts: bool) -> hindsight_history::Outcome {
    let history = parse_history(C50_BAD).expect("Porcupine's history parses");
    let model = model_by_name("kv", None).expect("kv is a model");
    let options = CheckOptions {
        all_parts,
        ..CheckOptions::default()
    };
    let budget = Budget::new(Limits::new(Some(Duration::from_secs(60)), Some(2 << 30)));
    check(&history, model.as_ref(), &options, &budget)
}

/// That the search stopped at the deciding key is read from the keys left unchecked (a count
/// of the work not done), not from the wall time, which a loaded machine stretches at will;
/// the 60 s budget only bounds a regression that checks every key (it would end unknown).
#[test]
fn c50_bad_is_decided_by_one_key() {
    let outcome = run(false);
    assert_eq!(outcome.verdict, Verdict::NotLinearizable);
    let count = |v: Verdict| outcome.partitions.iter().filter(|p| p.verdict == v).count();
    assert!(count(Verdict::NotLinearizable) >= 1);
    assert!(
        count(Verdict::NotChecked) >= 1,
        "the keys after the deciding one are left unchecked"
    );
    assert_eq!(count(Verdict::Unknown), 0);
    // In the same test, after the one above: the two would compete for the cores.
    every_key_is_checked_when_asked();
}

fn every_key_is_checked_when_asked() {
    let history = parse_history(C50_BAD).expect("Porcupine's history parses");
    let model = model_by_name("kv", None).expect("kv is a model");
    let options = CheckOptions {
        all_parts: true,
        ..CheckOptions::default()
    };
    // Checking every key takes long: the budget is short, and the keys it leaves are
    // unknown, never "not checked".
    let budget = Budget::new(Limits::new(Some(Duration::from_secs(2)), Some(2 << 30)));
    let outcome = check(&history, model.as_ref(), &options, &budget);
    assert!(outcome
        .partitions
        .iter()
        .all(|p| p.verdict != Verdict::NotChecked));
    assert_ne!(outcome.verdict, Verdict::Linearizable);
}
