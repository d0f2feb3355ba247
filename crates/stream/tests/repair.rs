//! One tolerance for real logs, on random traces: a lock-valid trace whose releases a logger
//! recorded late (after the next acquire of the lock) is repaired by the pass, and every trace
//! analysis then reports on it what it reports on the lock-valid original.

use hindsight_report::Report;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace, Analysis, RunOptions, TraceRun};
use hindsight_trace::arbitrary::{late_release, trace_from_choices, Shape};
use hindsight_trace::arbitrary::{located, text_of};
use hindsight_trace::{AnyReader, TextReader};
use proptest::prelude::*;
use std::io::{Cursor, Read};

const ANALYSES: [&str; 6] = [
    "races",
    "atomicity",
    "atomicity --schedule",
    "views",
    "views --regions locks",
    "commute",
];

fn analysis(name: &str) -> Box<dyn Analysis> {
    let atomicity = |schedule| {
        Box::new(Atomicity::new(Options {
            all: false,
            schedule,
            ignore_non_nested: true,
            granularity: Granularity::Grouped,
        }))
    };
    match name {
        "races" => Box::new(Races::new()),
        "atomicity" => atomicity(false),
        "atomicity --schedule" => atomicity(true),
        "views" => Box::new(DynamicViews::new(Regions::Both, true)),
        "views --regions locks" => Box::new(DynamicViews::new(Regions::Locks, true)),
        "commute" => {
            let loaded = load(builtin("map").expect("shipped"), "<builtin map>", false)
                .expect("the shipped spec loads");
            Box::new(Commute::new(loaded.specs, Binding::All(0)))
        }
        _ => unreachable!("{name}"),
    }
}

fn run(text: &[u8], name: &str, strict: bool) -> Result<TraceRun, String> {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let options = RunOptions {
        strict,
        pipeline: false,
        lock_records: Default::default(),
    };
    analyse_trace(&mut reader, "t.std", vec![analysis(name)], options).map_err(|d| d.to_string())
}

/// The findings and summary of a report, with event numbers left out: the repaired trace
/// numbers its events in its own order. Every event has a location of its own, so the events
/// are still told apart. Atomicity's witness runs are left out too: the run shown starts from
/// the trace's own order, and the two traces order independent events differently, so each
/// shows a run of its own (both checked by replay); whether it reaches `e2` is kept.
fn findings(r: &Report) -> String {
    let mut value = serde_json::json!({ "findings": r.findings, "summary": r.summary });
    strip_indices(&mut value);
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

fn strip_indices(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("index");
            m.remove("witness");
            // Said of the repaired log only; `warnings` checks the repair.
            m.remove("lock_records_repaired");
            if let Some(s) = m.get_mut("schedule") {
                *s = s["reaches_e2"].clone();
            }
            if let Some(serde_json::Value::String(message)) = m.get_mut("message") {
                if let Some(at) = message.find("; schedule:") {
                    message.truncate(at);
                }
            }
            m.values_mut().for_each(strip_indices);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_indices),
        _ => {}
    }
}

/// Choices of `trace_from_choices` that take and give back locks often.
fn lock_heavy() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    let action = prop_oneof![Just(4u8), Just(5u8), any::<u8>()];
    prop::collection::vec((any::<u8>(), action, any::<u8>()), 1..40)
}

/// `choices` after the root forks every other thread, so that all can take locks.
fn forked(choices: &[(u8, u8, u8)]) -> Vec<(u8, u8, u8)> {
    let mut all = vec![(0, 6, 1), (0, 6, 2)];
    all.extend_from_slice(choices);
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_repaired_log_reports_what_the_lock_valid_original_reports(
        choices in lock_heavy(),
        pick in any::<usize>(),
        carry in 0usize..4,
    ) {
        let shape = Shape { odd: false, ..Shape::default() };
        let original = located(trace_from_choices(&forked(&choices), shape));
        let Some(late) = late_release(&original, pick, carry) else { return Ok(()) };
        let (original, logged) = (text_of(&original), text_of(&late.logged));
        for name in ANALYSES {
            let want = run(&original, name, false).expect("lock-valid");
            let got = run(&logged, name, false).expect("repaired");
            prop_assert_eq!(
                findings(&got.reports[0]),
                findings(&want.reports[0]),
                "{}", name
            );
            prop_assert!(
                got.warnings.iter().any(|w| w.contains("repaired")),
                "{:?}", got.warnings
            );
            // Under --strict the late release is an error, as every warning is.
            prop_assert!(run(&logged, name, true).is_err());
        }
    }
}
