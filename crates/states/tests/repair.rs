//! One tolerance for real logs in `cuts` and `reach`, on random traces: a lock-valid trace whose
//! releases a logger recorded late is repaired by the pass, and both commands then report on it
//! what they report on the lock-valid original (event numbers aside: the repaired trace numbers
//! its events in its own order; every event has a location of its own, so they are still told
//! apart).

use hindsight_budget::Budget;
use hindsight_report::Report;
use hindsight_states::cuts::{self, Detection, Enumerator, PredicateText};
use hindsight_states::reach;
use hindsight_states::Quiet;
use hindsight_stream::RunOptions;
use hindsight_trace::arbitrary::{late_release, trace_from_choices, Shape};
use hindsight_trace::arbitrary::{located, text_of};
use hindsight_trace::{AnyReader, TextReader};
use proptest::prelude::*;
use std::io::{Cursor, Read};
use std::sync::Arc;

fn reader(text: &[u8]) -> AnyReader {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    AnyReader::Text(TextReader::new(input))
}

fn predicate(text: &str) -> Option<PredicateText> {
    Some(PredicateText {
        text: text.to_owned(),
        name: "<predicate>".to_owned(),
    })
}

fn cuts(text: &[u8], what: &str, count: bool, detection: Detection) -> Result<Report, String> {
    let options = cuts::Options {
        predicate: predicate(what),
        enumerator: Enumerator::QuickLex,
        threads: None,
        count,
        all: false,
        limit: 100,
        every_event: false,
        online: false,
        detection,
        cluster: None,
    };
    let input = cuts::Input::Trace(&mut reader(text), RunOptions::default());
    cuts::detect(
        input,
        "t.std",
        &options,
        &Quiet,
        &Arc::new(Budget::unlimited()),
    )
    .map_err(|d| d.to_string())
}

fn reach(text: &[u8], options: reach::analyse::Options) -> Result<Report, String> {
    reach::analyse::analyse(
        &mut reader(text),
        "t.std",
        RunOptions::default(),
        &options,
        &Quiet,
        &Budget::unlimited(),
    )
    .map_err(|d| d.to_string())
}

/// Findings and summary without event numbers, timings, schedules and search effort (a schedule follows the
/// trace's own order, which the two traces give independent events differently).
fn shown(r: &Report) -> String {
    let mut value = serde_json::json!({ "findings": r.findings, "summary": r.summary });
    strip(&mut value);
    let text = serde_json::to_string_pretty(&value).expect("serializes");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '#' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

fn strip(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            // `strong_feasibility_checks` counts the search's work, which depends on the order
            // the trace gives independent events: the same states are proved reachable either way.
            for key in [
                "index",
                "seconds",
                "milliseconds",
                "schedule",
                "strong_feasibility_checks",
            ] {
                m.remove(key);
            }
            if let Some(serde_json::Value::String(message)) = m.get_mut("message") {
                if let Some(at) = message.find("schedule") {
                    message.truncate(at);
                }
            }
            m.values_mut().for_each(strip);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
        _ => {}
    }
}

fn lock_heavy() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    let action = prop_oneof![Just(4u8), Just(5u8), any::<u8>()];
    prop::collection::vec((any::<u8>(), action, any::<u8>()), 1..24)
}

const PREDICATES: [&str; 3] = [
    "race",
    "at(T1, op == w) && at(T2, op == r || op == w)",
    "atleast(2, op == w)",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn cuts_and_reach_report_on_a_repaired_log_what_they_report_on_the_original(
        choices in lock_heavy(),
        pick in any::<usize>(),
        carry in 0usize..4,
    ) {
        let mut all = vec![(0, 6, 1), (0, 6, 2)];
        all.extend_from_slice(&choices);
        let shape = Shape { odd: false, ..Shape::default() };
        let original = located(trace_from_choices(&all, shape));
        let Some(late) = late_release(&original, pick, carry) else { return Ok(()) };
        let (original, logged) = (text_of(&original), text_of(&late.logged));
        for p in PREDICATES {
            for detection in [Detection::Auto, Detection::Enumerate] {
                let want = cuts(&original, p, false, detection);
                let got = cuts(&logged, p, false, detection);
                prop_assert_eq!(want.is_ok(), got.is_ok(), "{}", p);
                if let (Ok(want), Ok(got)) = (want, got) {
                    prop_assert_eq!(shown(&got), shown(&want), "{}", p);
                }
            }
        }
        let want = cuts(&original, "true", true, Detection::Auto).expect("counts");
        let got = cuts(&logged, "true", true, Detection::Auto).expect("counts");
        prop_assert_eq!(shown(&got), shown(&want));
        let options = [
            reach::analyse::Options { count: true, exact: true, ..Default::default() },
            reach::analyse::Options { check_valid: true, ..Default::default() },
            reach::analyse::Options { predicate: predicate("race"), ..Default::default() },
        ];
        for o in options {
            let want = reach(&original, o.clone()).expect("lock-valid");
            let got = reach(&logged, o).expect("repaired");
            prop_assert_eq!(shown(&got), shown(&want));
        }
    }
}
