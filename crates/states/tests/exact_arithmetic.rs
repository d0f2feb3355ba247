//! Predicate arithmetic is exact: with constants at the ends of `i64`, every algorithm of
//! `cuts` (the detectors and each enumerator) reports the same states, and as many as the same
//! comparison written with the constants already summed (exactly, by the test) into a small
//! one, or into `true`/`false` when no count can reach it.

use hindsight_budget::Budget;
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Quiet;
use hindsight_stream::RunOptions;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{AnyReader, TextReader, TextWriter};
use proptest::prelude::*;
use serde_json::Value;
use std::io::Read;

const CONSTANTS: [i64; 7] = [
    0,
    1,
    9,
    i64::MAX,
    i64::MAX - 1,
    i64::MAX / 2 + 1,
    4_611_686_018_427_387_904,
];

const CMPS: [&str; 6] = ["<=", "<", ">=", ">", "==", "!="];

/// The text of a trace of `choices` over four threads, after the root forks the others and
/// each of them reads once (so that every thread the predicate names has events).
fn trace_text(choices: &[(u8, u8, u8)]) -> Vec<u8> {
    let mut all = vec![
        (0, 6, 1),
        (0, 6, 2),
        (0, 6, 3),
        (1, 0, 0),
        (2, 0, 0),
        (3, 0, 0),
    ];
    all.extend_from_slice(choices);
    let t = trace_from_choices(
        &all,
        Shape {
            threads: 4,
            odd: false,
            ..Shape::default()
        },
    );
    let mut w = TextWriter::new(Vec::new());
    for e in &t.events {
        w.write_event(e, &t.names).expect("writes");
    }
    w.finish().expect("finishes")
}

/// `cuts` with `detection` and `enumerator`: the findings, and the count of satisfying states
/// when `count`.
fn cuts(
    text: &[u8],
    predicate: &str,
    count: bool,
    detection: Detection,
    enumerator: Enumerator,
) -> Result<(String, Value), String> {
    let input: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let options = Options {
        predicate: Some(PredicateText {
            text: predicate.to_owned(),
            name: "<predicate>".to_owned(),
        }),
        enumerator,
        threads: matches!(enumerator, Enumerator::ParaMount).then_some(2),
        count,
        all: false,
        limit: 1000,
        // The same poset whichever events the predicate looks at (`true` looks at none).
        every_event: true,
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
    let states: Vec<Value> = report
        .findings
        .iter()
        .map(|f| serde_json::to_value(f).expect("serializes")["state"].clone())
        .collect();
    let satisfying = report
        .summary
        .get("satisfying")
        .cloned()
        .unwrap_or(Value::Null);
    Ok((format!("{states:?}"), satisfying))
}

/// Every way `cuts` can decide a predicate.
const ALGORITHMS: [(Detection, Enumerator); 6] = [
    (Detection::Auto, Enumerator::QuickLex),
    (Detection::Enumerate, Enumerator::QuickLex),
    (Detection::Enumerate, Enumerator::Lex),
    (Detection::Enumerate, Enumerator::Bfs),
    (Detection::Enumerate, Enumerator::ParaMount),
    (Detection::Detector, Enumerator::QuickLex),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_algorithm_gives_the_same_answer_on_extreme_constants(
        choices in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 0..10),
        a in 0u8..4,
        b in 0u8..4,
        terms in proptest::collection::vec((any::<bool>(), 0usize..CONSTANTS.len()), 1..5),
        right in 0usize..CONSTANTS.len(),
        cmp in 0usize..CMPS.len(),
    ) {
        let text = trace_text(&choices);
        // `events(Ta) - events(Tb) ± c1 ± c2 ... CMP c`, that is `A - B + k CMP 0`.
        let mut predicate = format!("events(T{a}) - events(T{b})");
        let mut k = -i128::from(CONSTANTS[right]);
        for &(plus, c) in &terms {
            predicate += &format!(" {} {}", if plus { "+" } else { "-" }, CONSTANTS[c]);
            k += if plus { 1 } else { -1 } * i128::from(CONSTANTS[c]);
        }
        let cmp = CMPS[cmp];
        predicate += &format!(" {cmp} {}", CONSTANTS[right]);
        // `A - B` is within the trace's length: beyond that, the comparison is decided by `k`.
        let summed = if k.abs() > 1000 {
            let holds = match cmp {
                "<=" | "<" => k < 0,
                ">=" | ">" => k > 0,
                "==" => false,
                _ => true,
            };
            holds.to_string()
        } else if k >= 0 {
            format!("events(T{a}) + {k} {cmp} events(T{b})")
        } else {
            format!("events(T{a}) {cmp} events(T{b}) + {}", -k)
        };
        for count in [false, true] {
            let expected = cuts(&text, &summed, count, Detection::Enumerate, Enumerator::Lex);
            for (detection, enumerator) in ALGORITHMS {
                let got = cuts(&text, &predicate, count, detection, enumerator);
                match (&expected, &got) {
                    (Ok(e), Ok(g)) => prop_assert_eq!(
                        e, g, "{} ({}) by {:?}/{:?}", predicate, summed, detection, enumerator
                    ),
                    // A thread without events: the same error, at its place in each text.
                    (Err(e), Err(g)) => prop_assert_eq!(
                        e.split_once(" error: ").map(|p| p.1),
                        g.split_once(" error: ").map(|p| p.1)
                    ),
                    // A detector that does not take the predicate (`!=` is not regular).
                    (_, Err(m)) if matches!(detection, Detection::Detector) => {
                        prop_assert!(m.contains("cannot decide"), "{}", m)
                    }
                    (e, g) => prop_assert!(false, "{}: {:?} vs {:?}", predicate, e, g),
                }
            }
        }
    }
}
