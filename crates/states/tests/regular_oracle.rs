//! Regular predicates by computation slicing, against the reference enumerator (every index
//! vector, kept when consistent by the definition) on thousands of small random traces and
//! predicates of the recognised class (conjunctions of local terms and of comparisons of two
//! threads' `events(...)`):
//! - every such predicate is recognised, and the recognised form holds exactly where the
//!   predicate does;
//! - its satisfying states are closed under meet and join (the theory: it is regular);
//! - the least satisfying state (by advancing forbidden threads) is the first satisfying state
//!   in lexical order, and the least above any consistent state is the least of those above it;
//! - the slice's enumeration visits exactly the satisfying states, in lexical order (so the
//!   counts agree);
//! - end to end, `cuts` reports with the detector the first state, every state and the count
//!   it reports by enumeration;
//! - predicates outside the class (a sum of two threads' counts, `!=`, a disjunction over two
//!   threads) are not recognised, and are indeed not regular on a witness trace.

use hindsight_budget::Budget;
use hindsight_states::cuts::brute::brute;
use hindsight_states::cuts::poset::{Selection, TracePoset};
use hindsight_states::cuts::predicate::{parse_predicate, Predicate};
use hindsight_states::cuts::regular::Slice;
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Quiet;
use hindsight_stream::RunOptions;
use hindsight_trace::arbitrary::text_of;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{AnyReader, Event, Names, TextReader, Trace};
use proptest::prelude::*;
use serde_json::Value;
use std::io::Read;
use std::ops::ControlFlow;

const CONDS: [&str; 6] = [
    "op == w",
    "op == r",
    "op == snd",
    "op == rcv",
    "op == acq || op == rel",
    "var == x0",
];

const CMPS: [&str; 5] = ["<=", "<", ">=", ">", "=="];

/// A predicate of the recognised class from `picks`: local `at` terms and comparisons of two
/// threads' `events`, sometimes negated, with a constant.
fn regular_text(picks: &[(u8, u8, u8, u8)]) -> String {
    let mut conjuncts = Vec::new();
    for &(t, u, c, shape) in picks {
        let a = format!("T{}", t % 4);
        let b = format!("T{}", u % 4);
        let cond = CONDS[c as usize % CONDS.len()];
        let other = CONDS[(c as usize / 8) % CONDS.len()];
        let cmp = CMPS[(shape / 16) as usize % CMPS.len()];
        let k = i64::from(shape % 5) - 2;
        let left = if c % 3 == 0 {
            format!("events({a})")
        } else {
            format!("events({a}, {cond})")
        };
        let right = format!("events({b}, {other})");
        conjuncts.push(match shape % 8 {
            0 | 1 => format!("at({a}, {cond})"),
            2 => format!("!at({a}, {cond})"),
            3 => format!("{left} {cmp} {right} + {k}"),
            // `!(a == b)` is `a != b`, which is not regular.
            4 => format!("!({left} {} {right})", CMPS[(shape / 16) as usize % 4]),
            5 => format!("{left} - {right} {cmp} {k}"),
            6 => format!("{k} + {right} {cmp} {left}"),
            _ => format!("{left} <= {k} + 3"),
        });
    }
    conjuncts.join(" && ")
}

/// A trace of `choices` over four threads, after the root forks the three others.
fn forked_trace(choices: &[(u8, u8, u8)]) -> Trace {
    let mut all = vec![(0, 6, 1), (0, 6, 2), (0, 6, 3)];
    all.extend_from_slice(choices);
    trace_from_choices(
        &all,
        Shape {
            threads: 4,
            odd: false,
            ..Shape::default()
        },
    )
}

fn poset_of(trace: &Trace, predicate: &Predicate, every: bool) -> TracePoset {
    let relevant = |e: &Event, n: &Names| every || predicate.relevant(e, n);
    let selection = Selection {
        relevant: &relevant,
        merge: false,
    };
    TracePoset::read(&mut trace.source(), &selection).expect("in memory")
}

/// Every consistent state, in lexical order, by the definition.
fn all_states(tp: &TracePoset) -> Vec<Vec<u32>> {
    let poset = &tp.poset;
    let lo = vec![0; poset.processes()];
    let mut out = Vec::new();
    let _ = brute(poset, &lo, &poset.final_state(), &mut |g: &[u32]| {
        out.push(g.to_vec());
        ControlFlow::Continue(())
    });
    out
}

fn meet(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().zip(b).map(|(&x, &y)| x.min(y)).collect()
}

fn join(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().zip(b).map(|(&x, &y)| x.max(y)).collect()
}

fn below(a: &[u32], b: &[u32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn slicing_agrees_with_the_definition(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..12),
        picks in proptest::collection::vec(any::<(u8, u8, u8, u8)>(), 1..4),
        every in any::<bool>(),
    ) {
        let trace = forked_trace(&choices);
        let text = regular_text(&picks);
        let predicate = parse_predicate(&text).expect("parses");
        let tp = poset_of(&trace, &predicate, every);
        // A thread with no relevant event cannot be named: `cuts` refuses such predicates.
        let Ok(bound) = predicate.bind(&tp) else { return Ok(()) };
        let regular = bound.regular();
        prop_assert!(regular.is_some(), "{} not recognised", text);
        let regular = regular.expect("recognised");
        let states = all_states(&tp);
        let satisfying: Vec<Vec<u32>> =
            states.iter().filter(|g| bound.holds(g)).cloned().collect();
        for g in &states {
            prop_assert_eq!(regular.holds(g), bound.holds(g), "{} at {:?}", text, g);
        }
        // Regular: closed under meet and join.
        for a in &satisfying {
            for b in &satisfying {
                prop_assert!(bound.holds(&meet(a, b)), "{}: meet of {:?} {:?}", text, a, b);
                prop_assert!(bound.holds(&join(a, b)), "{}: join of {:?} {:?}", text, a, b);
            }
        }
        let n = tp.poset.processes();
        let mut advances = 0;
        let first = regular.least(&tp.poset, &vec![0; n], &mut advances);
        prop_assert_eq!(first.as_ref(), satisfying.first(), "{}", text);
        let slice = Slice::compute(&tp.poset, &regular, &Budget::unlimited()).expect("unlimited");
        prop_assert_eq!(slice.bottom.as_ref(), satisfying.first(), "{}", text);
        // The least satisfying state above each consistent state.
        for lo in &states {
            let above: Vec<&Vec<u32>> = satisfying.iter().filter(|g| below(lo, g)).collect();
            let least = above.iter().fold(None::<Vec<u32>>, |m, g| {
                Some(m.map_or_else(|| g.to_vec(), |m| meet(&m, g)))
            });
            prop_assert_eq!(slice.least_above(lo), least.clone(), "{} above {:?}", text, lo);
            prop_assert_eq!(regular.least(&tp.poset, lo, &mut advances), least, "{}", text);
        }
        let mut visited = Vec::new();
        let _ = slice.satisfying(&mut |g: &[u32]| {
            visited.push(g.to_vec());
            ControlFlow::Continue(())
        });
        prop_assert_eq!(visited, satisfying, "{}", text);
    }
}

/// `cuts` on a trace: the findings and the number of satisfying states (with `count`), and
/// the algorithm that answered.
fn cuts(
    text: &[u8],
    predicate: &str,
    all: bool,
    count: bool,
    detection: Detection,
) -> Result<(String, Value, String), String> {
    let input: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let options = Options {
        predicate: Some(PredicateText {
            text: predicate.to_owned(),
            name: "<predicate>".to_owned(),
        }),
        enumerator: Enumerator::QuickLex,
        threads: None,
        count,
        all,
        limit: 1000,
        every_event: false,
        online: false,
        detection,
        cluster: None,
    };
    let report = detect(
        Input::Trace(&mut reader, RunOptions::default()),
        "t.std",
        &options,
        &Quiet,
        &std::sync::Arc::new(Budget::unlimited()),
    )
    .map_err(|d| d.to_string())?;
    let algorithm = report.summary["algorithm"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    let satisfying = report
        .summary
        .get("satisfying")
        .cloned()
        .unwrap_or(Value::Null);
    Ok((
        serde_json::to_string(&report.findings).expect("serializes"),
        satisfying,
        algorithm,
    ))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// End to end: the first state, every state (`--all`) and the count of satisfying states
    /// (`--count`) of a regular predicate are the same by slicing as by enumeration.
    #[test]
    fn cuts_reports_by_slicing_what_it_reports_by_enumeration(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..16),
        picks in proptest::collection::vec(any::<(u8, u8, u8, u8)>(), 1..4),
        mode in 0u8..3,
    ) {
        let text = text_of(&forked_trace(&choices));
        let predicate = regular_text(&picks);
        let (all, count) = (mode == 1, mode == 2);
        let detected = cuts(&text, &predicate, all, count, Detection::Detector);
        let enumerated = cuts(&text, &predicate, all, count, Detection::Enumerate);
        match (detected, enumerated) {
            (Ok((f, s, algorithm)), Ok((g, t, _))) => {
                prop_assert_eq!(f, g, "{}", predicate);
                if count {
                    prop_assert_eq!(s, t, "{}", predicate);
                }
                prop_assert!(
                    ["garg-waldecker", "slice", "regular", "regular-slice"]
                        .contains(&algorithm.as_str()),
                    "{}: {}", predicate, algorithm
                );
            }
            (Err(e), Err(f)) => prop_assert_eq!(e, f),
            (d, e) => prop_assert!(false, "{}: {:?} vs {:?}", predicate, d, e),
        }
    }
}

/// Three threads that each write once, unordered: every combination of their states is
/// consistent.
const FREE: &[u8] = b"T0|fork(T1)\nT0|fork(T2)\nT1|w(x)\nT1|w(x)\nT2|w(y)\nT2|w(y)\n";

#[test]
fn predicates_outside_the_class_are_not_recognised() {
    let input: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(FREE.to_vec()));
    let trace = Trace::collect(&mut TextReader::new(input)).expect("a trace");
    for text in [
        // A sum of two increasing counts: T1 at 2 and T2 at 0 satisfy it, so do T1 at 0 and
        // T2 at 2; their join (2, 2) does not.
        "events(T1) + events(T2) <= 2",
        "events(T1) != events(T2)",
        "at(T1, op == w) || at(T2, op == w)",
        "count(op == w) <= 1",
        "events(T1) <= events(T2) || events(T2) <= 0",
    ] {
        let predicate = parse_predicate(text).expect("parses");
        let tp = poset_of(&trace, &predicate, true);
        let bound = predicate.bind(&tp).expect("binds");
        assert!(bound.regular().is_none(), "{text} recognised");
        // And it is indeed not regular here: two satisfying states whose meet or join fails.
        let satisfying: Vec<Vec<u32>> = all_states(&tp)
            .into_iter()
            .filter(|g| bound.holds(g))
            .collect();
        let witness = satisfying.iter().any(|a| {
            satisfying
                .iter()
                .any(|b| !bound.holds(&meet(a, b)) || !bound.holds(&join(a, b)))
        });
        assert!(witness, "{text} is regular on this trace");
    }
    // Forced, `cuts` refuses it; by default it enumerates.
    let err = cuts(
        FREE,
        "events(T1) + events(T2) <= 2",
        false,
        false,
        Detection::Detector,
    )
    .expect_err("refused");
    assert!(err.contains("neither regular"), "{err}");
    let (_, _, algorithm) = cuts(
        FREE,
        "events(T1) + events(T2) <= 2",
        false,
        true,
        Detection::Auto,
    )
    .expect("runs");
    assert_eq!(algorithm, "quicklex");
}

#[test]
fn no_message_in_transit_is_answered_by_slicing() {
    // T1 sends two messages T2 receives; the states where none is in transit are those where
    // T2 has received all T1 has sent.
    let text =
        b"T0|fork(T1)\nT0|fork(T2)\nT1|snd(m1)\nT1|w(x)\nT1|snd(m2)\nT2|rcv(m1)\nT2|rcv(m2)\n";
    let predicate = "events(T1, op == snd) == events(T2, op == rcv)";
    for (all, count) in [(false, false), (true, false), (false, true)] {
        let detected = cuts(text, predicate, all, count, Detection::Auto).expect("runs");
        let enumerated = cuts(text, predicate, all, count, Detection::Enumerate).expect("runs");
        assert_eq!(detected.0, enumerated.0);
        assert_eq!(detected.1, enumerated.1);
        let expected = match (all, count) {
            (false, false) => "regular",
            _ => "regular-slice",
        };
        assert_eq!(detected.2, expected);
    }
}
