//! The detectors of `cuts` that do not enumerate, against the reference enumerator (every index
//! vector, kept when consistent by the definition) on thousands of small random posets and
//! predicates:
//! - a predicate recognised as conjunctive holds in exactly the consistent states made of the
//!   local states it names;
//! - Garg-Waldecker finds a state exactly when one exists, and it is the first satisfying state
//!   in lexical order (the least one);
//! - the slice enumeration visits exactly the satisfying states, in lexical order;
//! - the racy-pair detector finds a state exactly when a racy state exists, and its state holds
//!   the race and is the least consistent state holding both elements of its pair;
//! - end to end, `cuts` reports with a detector what it reports by enumeration.

use hindsight_states::cuts::brute::{brute, consistent_by_definition};
use hindsight_states::cuts::conjunctive::{least, satisfying};
use hindsight_states::cuts::poset::{Selection, TracePoset};
use hindsight_states::cuts::predicate::{parse_predicate, Predicate};
use hindsight_states::cuts::race::first_racy_pair;
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Quiet;
use hindsight_stream::RunOptions;
use hindsight_trace::arbitrary::text_of;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{AnyReader, Event, Names, TextReader, Trace};
use proptest::prelude::*;
use std::io::Read;
use std::ops::ControlFlow;

const CONDS: [&str; 8] = [
    "op == w",
    "op == r",
    "var == x0",
    "op == acq || op == rel",
    "op != r",
    "op == w && var == x1",
    "op == fork || op == join",
    "thread == T1",
];

/// A predicate from `picks`: mostly conjunctions of local terms, sometimes with a term that is
/// not local (two threads in one conjunct, a count, a race) so that recognition is tested too.
fn predicate_text(picks: &[(u8, u8, u8)]) -> String {
    let mut conjuncts = Vec::new();
    for &(t, c, shape) in picks {
        let th = format!("T{}", t % 4);
        let cond = CONDS[c as usize % CONDS.len()];
        let other = CONDS[(c as usize + 3) % CONDS.len()];
        conjuncts.push(match shape % 12 {
            0..=4 => format!("at({th}, {cond})"),
            5 | 6 => format!("!at({th}, {cond})"),
            7 => format!("(at({th}, {cond}) || !at({th}, {other}))"),
            8 => "true".to_owned(),
            9 if shape % 5 == 0 => "false".to_owned(),
            9 => format!("at({}, {cond})", t % 4),
            10 => format!("(at({th}, {cond}) || at(T{}, {other}))", (t % 4 + 1) % 4),
            _ => format!("count({cond}) <= 1"),
        });
    }
    conjuncts.join(" && ")
}

/// A lock-valid trace of `choices` over four threads, after the root forks the three others so
/// that all can have events.
fn forked_trace(choices: &[(u8, u8, u8)]) -> Trace {
    let mut all = vec![(0, 6, 1), (0, 6, 2), (0, 6, 3)];
    all.extend_from_slice(choices);
    trace_from_choices(&all, lock_valid())
}

fn lock_valid() -> Shape {
    Shape {
        threads: 4,
        odd: false,
        ..Shape::default()
    }
}

/// The poset of `trace` with the events `predicate` looks at (or every one).
fn poset_of(trace: &Trace, predicate: &Predicate, every: bool, merge: bool) -> TracePoset {
    let relevant = |e: &Event, n: &Names| every || predicate.relevant(e, n);
    let selection = Selection {
        relevant: &relevant,
        merge,
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn conjunctive_detection_agrees_with_the_definition(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..12),
        picks in proptest::collection::vec(any::<(u8, u8, u8)>(), 1..4),
        every in any::<bool>(),
    ) {
        let trace = forked_trace(&choices);
        let predicate = parse_predicate(&predicate_text(&picks)).expect("parses");
        let tp = poset_of(&trace, &predicate, every, false);
        // A thread with no relevant event cannot be named: `cuts` refuses such predicates.
        let Ok(bound) = predicate.bind(&tp) else { return Ok(()) };
        let Some(local) = bound.conjunctive() else {
            // Not recognised: only predicates with a count or a conjunct over two threads.
            prop_assert!(predicate.text.contains("count") || predicate.text.contains("|| at("),
                "{} not recognised", predicate.text);
            return Ok(());
        };
        let states = all_states(&tp);
        let satisfying: Vec<&Vec<u32>> = states.iter().filter(|g| bound.holds(g)).collect();
        // Recognition is sound: the local states are exactly what the predicate asks.
        for g in &states {
            let made_of_local = !local.never
                && (0..g.len()).all(|p| local.states[p].binary_search(&g[p]).is_ok());
            prop_assert_eq!(bound.holds(g), made_of_local, "{} at {:?}", predicate.text, g);
        }
        let mut eliminated = 0;
        let lo = vec![0; tp.poset.processes()];
        let first = least(&tp.poset, &local, &lo, &mut eliminated);
        prop_assert_eq!(first.as_ref(), satisfying.first().copied(), "{}", predicate.text);
        // The least state is below every satisfying state.
        if let Some(f) = &first {
            for g in &satisfying {
                prop_assert!(f.iter().zip(g.iter()).all(|(a, b)| a <= b));
            }
        }
        let mut visited = Vec::new();
        let _ = satisfying_states(&tp, &local, &mut visited);
        let expected: Vec<Vec<u32>> = satisfying.into_iter().cloned().collect();
        prop_assert_eq!(visited, expected, "{}", predicate.text);
    }

    #[test]
    fn the_racy_pair_agrees_with_the_definition(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..14),
        on_x0 in any::<bool>(),
        merge in any::<bool>(),
        every in any::<bool>(),
    ) {
        let trace = forked_trace(&choices);
        let predicate = parse_predicate(if on_x0 { "race(x0)" } else { "race" }).expect("parses");
        let tp = poset_of(&trace, &predicate, every, merge);
        let bound = predicate.bind(&tp).expect("binds");
        let exists = all_states(&tp).iter().any(|g| bound.holds(g));
        let found = first_racy_pair(&tp.poset, &bound);
        prop_assert_eq!(found.is_some(), exists);
        if let Some(((p, i), (q, j), g)) = found {
            prop_assert!(p != q);
            prop_assert!(tp.poset.concurrent(p, i, q, j));
            prop_assert!(consistent_by_definition(&tp.poset, &g));
            prop_assert!(bound.holds(&g));
            prop_assert_eq!((g[p], g[q]), (i, j), "both are on the frontier");
            // The least consistent state holding both: nothing below it holds them.
            for r in 0..g.len() {
                if r != p && r != q && g[r] > 0 {
                    let mut below = g.clone();
                    below[r] -= 1;
                    prop_assert!(!consistent_by_definition(&tp.poset, &below));
                }
            }
        }
    }
}

fn satisfying_states(
    tp: &TracePoset,
    local: &hindsight_states::cuts::predicate::LocalStates,
    out: &mut Vec<Vec<u32>>,
) -> ControlFlow<()> {
    let mut eliminated = 0;
    satisfying(
        &tp.poset,
        local,
        &mut |g: &[u32]| {
            out.push(g.to_vec());
            ControlFlow::Continue(())
        },
        &mut eliminated,
    )
}

fn cuts(text: &[u8], predicate: &str, all: bool, detection: Detection) -> Result<String, String> {
    let input: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let options = Options {
        predicate: Some(PredicateText {
            text: predicate.to_owned(),
            name: "<predicate>".to_owned(),
        }),
        enumerator: Enumerator::QuickLex,
        threads: None,
        count: false,
        all,
        limit: 5,
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
        &std::sync::Arc::new(hindsight_budget::Budget::unlimited()),
    )
    .map_err(|d| d.to_string())?;
    let algorithm = &report.summary["algorithm"];
    if detection == Detection::Enumerate {
        assert_eq!(algorithm, "quicklex");
    }
    Ok(serde_json::to_string(&report.findings).expect("serializes"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// End to end: a conjunctive predicate is reported with the same first state, and with
    /// `--all` the same states, by its detector as by enumeration; `race` has findings with
    /// the racy pair exactly when it has by enumeration.
    #[test]
    fn cuts_reports_with_a_detector_what_it_reports_by_enumeration(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..16),
        picks in proptest::collection::vec(any::<(u8, u8, u8)>(), 1..4),
        all in any::<bool>(),
    ) {
        let text = text_of(&forked_trace(&choices));
        let predicate = predicate_text(&picks);
        let detected = cuts(&text, &predicate, all, Detection::Auto);
        let enumerated = cuts(&text, &predicate, all, Detection::Enumerate);
        prop_assert_eq!(detected, enumerated, "{}", predicate);
        let race_detected = cuts(&text, "race", false, Detection::Auto).expect("race binds");
        let race_enumerated = cuts(&text, "race", false, Detection::Enumerate).expect("race binds");
        prop_assert_eq!(race_detected == "[]", race_enumerated == "[]");
    }
}

#[test]
fn forcing_a_detector_on_a_predicate_it_cannot_decide_is_an_error() {
    let text = b"T0|fork(T1)\nT0|w(x)\nT1|w(x)\n";
    let err = cuts(text, "atleast(2, op == w)", false, Detection::Detector).expect_err("refused");
    assert!(
        err.contains("--algo detect cannot decide this: the predicate is neither regular"),
        "{err}"
    );
    let err = cuts(text, "race", true, Detection::Detector).expect_err("refused");
    assert!(err.contains("`race` with --all or --count"), "{err}");
    let ok = cuts(text, "race", false, Detection::Detector).expect("decided");
    assert!(ok.contains("data-race"), "{ok}");
}

/// A candidate eliminated for a later one whose own past reaches a third process: P1's only
/// candidate needs P2 past its first candidate; P2's next candidate comes after P0's event,
/// so P0 must move too, though P0 was looked at before P2 moved.
#[test]
fn an_elimination_that_reaches_a_third_process() {
    use hindsight_states::cuts::poset_file::parse_poset;
    use hindsight_states::cuts::predicate::LocalStates;
    let poset = parse_poset("0:(1,0,0)\n2:(0,0,1)\n2:(0,0,2)\n2:(1,0,3)\n1:(0,1,0)\n1:(0,2,2)\n")
        .expect("a poset");
    let local = LocalStates {
        states: vec![vec![0, 1], vec![2], vec![1, 3]],
        never: false,
    };
    let mut eliminated = 0;
    let g = least(&poset, &local, &[0, 0, 0], &mut eliminated);
    assert_eq!(g, Some(vec![1, 2, 3]));
    assert_eq!(eliminated, 2, "P2's state 1 and P0's state 0");
    let never = LocalStates {
        states: local.states.clone(),
        never: true,
    };
    assert_eq!(least(&poset, &never, &[0, 0, 0], &mut eliminated), None);
    let impossible = LocalStates {
        states: vec![vec![0], vec![2], vec![1, 3]],
        never: false,
    };
    assert_eq!(
        least(&poset, &impossible, &[0, 0, 0], &mut eliminated),
        None
    );
}
