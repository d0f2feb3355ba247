//! `views` groups its warnings by kind and set of source locations: checked against a literal
//! fold of the per-warning findings (`--every-event`) of the same trace, on random traces whose
//! code (source locations) runs on many objects, and on a hand-made one.

use hindsight_report::Finding;
use hindsight_rng::SplitMix64;
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{run, RunOptions};
use hindsight_trace::TextReader;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;

fn views(text: &str, granularity: Granularity) -> Vec<Finding> {
    let mut r = TextReader::new(text.as_bytes());
    let mut out = run(
        &mut r,
        vec![Box::new(
            DynamicViews::new(Regions::Auto, true).with_granularity(granularity),
        )],
        RunOptions::default(),
    )
    .expect("valid trace");
    out.outputs.remove(0).1.findings
}

/// The kind of a finding and the places of its events, written out: a location, or the
/// operation without its variable and the thread.
fn key(f: &Finding) -> (String, BTreeSet<String>) {
    let places = f
        .events
        .iter()
        .map(|e| match &e.location {
            Some(l) => format!("at {l}"),
            None => format!("{} by {}", e.op.split('(').next().unwrap(), e.thread),
        })
        .collect();
    (f.kind.clone(), places)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

/// The groups a literal fold makes: in the order of their first warning, each with its
/// warnings; then sorted by number of warnings, most first, ties kept in order.
fn fold(every: &[Finding]) -> Vec<Vec<&Finding>> {
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for f in every {
        match groups.iter_mut().find(|g| key(g[0]) == key(f)) {
            Some(g) => g.push(f),
            None => groups.push(vec![f]),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    groups
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let every = views(text, Granularity::EveryEvent);
    let grouped = views(text, Granularity::Grouped);
    let expected = fold(&every);
    prop_assert_eq!(grouped.len(), expected.len(), "{}", text);
    for (g, members) in grouped.iter().zip(&expected) {
        let first = members[0];
        prop_assert_eq!(key(g), key(first));
        prop_assert_eq!(g.occurrences, Some(members.len() as u64));
        prop_assert_eq!(&g.events, &first.events);
        prop_assert_eq!(&g.fields["variables"], &first.fields["variables"]);
        let threads: BTreeSet<String> = members
            .iter()
            .flat_map(|f| strings(&f.fields["threads"]))
            .collect();
        let got: BTreeSet<String> = strings(&g.fields["threads"]).into_iter().collect();
        prop_assert_eq!(got, threads);
        prop_assert!(g.message.starts_with(&first.message));
        match members.last().filter(|_| members.len() > 1) {
            Some(last) => prop_assert_eq!(
                &g.fields["last"],
                &serde_json::to_value(&last.events).unwrap()
            ),
            None => prop_assert!(!g.fields.contains_key("last")),
        }
    }
    Ok(())
}

/// Threads that each run, on random objects, regions of a few pieces of code: a piece is a
/// list of (read or write, field, location), the object chosen per run; some events carry no
/// location. The same code on different objects gives warnings with different variables at
/// the same locations.
fn program(seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let pieces: Vec<Vec<(char, u64, Option<u64>)>> = (0..3)
        .map(|p| {
            (0..1 + rng.below(3))
                .map(|i| {
                    let op = *rng.pick(&['r', 'w']);
                    let loc = (!rng.chance(0.2)).then_some(p * 10 + i);
                    (op, rng.below(2), loc)
                })
                .collect()
        })
        .collect();
    let threads = 2 + rng.below(2);
    let mut text = String::new();
    for t in 1..=threads {
        text += &format!("T0|fork(T{t})\n");
    }
    for _ in 0..4 + rng.below(12) {
        let t = 1 + rng.below(threads);
        let object = rng.below(3);
        text += &format!("T{t}|acq(l{object})\n");
        for &(op, field, loc) in rng.pick(&pieces) {
            text += &format!("T{t}|{op}(o{object}.f{field})");
            if let Some(l) = loc {
                text += &format!("|code:{l}");
            }
            text += "\n";
        }
        text += &format!("T{t}|rel(l{object})\n");
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn groups_are_the_fold_of_the_warnings(seed in any::<u64>()) {
        check(&program(seed))?;
    }
}

/// One withdrawal's code (read the balance in one region, write it in another) on two accounts,
/// each raced by a deposit: two stale values with different variables at the same three
/// locations, one group of two.
#[test]
fn one_piece_of_code_on_two_objects_is_one_group() {
    let mut text = String::from("T0|fork(T1)\nT0|fork(T2)\n");
    for account in ["a", "b"] {
        text += &format!(
            "T1|acq(l)\nT1|r({account}.balance)|Bank.java:10\nT1|rel(l)\n\
             T2|acq(l)\nT2|w({account}.balance)|Bank.java:30\nT2|rel(l)\n\
             T1|acq(l)\nT1|w({account}.balance)|Bank.java:12\nT1|rel(l)\n"
        );
    }
    let every = views(&text, Granularity::EveryEvent);
    assert_eq!(every.len(), 2, "{every:#?}");
    let grouped = views(&text, Granularity::Grouped);
    assert_eq!(grouped.len(), 1, "{grouped:#?}");
    assert_eq!(grouped[0].kind, "stale-value");
    assert_eq!(grouped[0].occurrences, Some(2));
    assert!(
        grouped[0]
            .message
            .ends_with("(2 warnings with these source locations; threads T1, T2)"),
        "{}",
        grouped[0].message
    );
    check(&text).expect("the fold");
}
