//! The names a trace defines grow with it (a million variables are a million names), and a
//! pass within a budget charges them with what its analyses hold (#39): the reader's, and the
//! pipelined pass's replica of them too. Sizes, not timing: the names' text alone is past
//! what `races` holds for the same variables.

use hindsight_budget::{Budget, Limits, Spent};
use hindsight_stream::races::Races;
use hindsight_stream::{analyse_trace_within, RunOptions};
use hindsight_trace::{AnyReader, TextReader};
use std::io::{Cursor, Read};

/// Variables of this many bytes of name.
const NAME: usize = 100;

/// One thread writing `vars` variables of long names once each.
fn many_names(vars: usize) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..vars {
        text.extend_from_slice(format!("T0|w(v{i:0>width$})\n", width = NAME - 1).as_bytes());
    }
    text
}

/// The budget's peak account and the report's summary after `races` on `text`.
fn races_within(
    text: &[u8],
    pipeline: bool,
    budget: &Budget,
) -> serde_json::Map<String, serde_json::Value> {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let options = RunOptions {
        strict: false,
        pipeline,
        lock_records: Default::default(),
    };
    let run = analyse_trace_within(
        &mut reader,
        "t.std",
        vec![Box::new(Races::new())],
        options,
        None,
        Some(budget),
    )
    .expect("a valid trace");
    run.reports[0].summary.clone()
}

#[test]
fn the_names_read_are_charged_to_the_budget() {
    let vars = 100_000;
    let text = many_names(vars);
    for (pipeline, copies) in [(false, 1), (true, 2)] {
        let budget = Budget::unlimited();
        races_within(&text, pipeline, &budget);
        // The names' text alone, once per copy (the account is read at the last poll, a
        // batch or 1024 events before the end).
        let text_bytes = (copies * (vars - 20_000) * NAME) as u64;
        let peak = budget.reading().peak;
        assert!(
            peak >= text_bytes,
            "pipelined {pipeline}: peak {peak} < {text_bytes}"
        );
    }
}

#[test]
fn a_limit_below_the_names_stops_the_pass() {
    let text = many_names(100_000);
    for pipeline in [false, true] {
        let budget = Budget::new(Limits {
            timeout: None,
            memory: 5 << 20,
        });
        let summary = races_within(&text, pipeline, &budget);
        assert_eq!(budget.spent(), Some(Spent::Memory));
        let read = summary["events_analysed"].as_u64().expect("stopped early");
        assert!(read < 100_000, "pipelined {pipeline}: read {read}");
    }
}
