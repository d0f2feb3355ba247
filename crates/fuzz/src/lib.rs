//! The bodies of the fuzz targets: each reader of hindsight, and what a command does right
//! after it, on arbitrary bytes. A body may reject its input (that is the reader's job) but
//! must never panic, overflow the stack or run away with memory: a panic here is a bug.
//!
//! The libFuzzer targets in `fuzz/fuzz_targets/` (run with `cargo fuzz run TARGET -s none`)
//! call these; so does this crate's test, over the bundled examples and thousands of
//! mutations of them, so that the test suite runs every target briefly on every machine.
//! Knows nothing of files: inputs are bytes.
//!
//! The bodies that analyse run within a budget of [`MEMORY_LIMIT`], as a command under a
//! small `--memory-limit` does: an input whose analyses would hold more stops them (the
//! reports are then unknown), and libFuzzer's `-rss_limit_mb` (see `fuzz/README.md`), set
//! above that limit plus what the process holds besides, catches an analysis whose memory the
//! budget does not account for.

use hindsight_budget::{Budget, Limits};
use hindsight_report::{render, OutputFormat};
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace_within, Analysis, RunOptions};
use hindsight_trace::{AnyReader, BinaryReader, RapidBinReader, RoadRunnerOptions};
use hindsight_trace::{RoadRunnerReader, TextReader};
use std::io::{Cursor, Read};

/// The memory limit of the analyses' budget: 64 MiB, what a small `--memory-limit` gives.
pub const MEMORY_LIMIT: u64 = 64 << 20;

/// What a target runs on one input.
pub type Body = fn(&[u8]);

/// The targets, by name: what `fuzz/fuzz_targets/NAME.rs` runs.
pub const TARGETS: &[(&str, Body)] = &[
    ("trace_text", trace_text),
    ("trace_binary", trace_binary),
    ("trace_roadrunner", trace_roadrunner),
    ("trace_rapidbin", trace_rapidbin),
    ("poset", poset),
    ("predicate", predicate),
    ("history", history),
    ("spec", spec),
    ("views_program", views_program),
    ("java", java),
];

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Every trace analysis in one pass, as `hindsight check` runs them within a budget of
/// [`MEMORY_LIMIT`], and their reports.
fn analyse(mut reader: AnyReader) {
    let map = load(builtin("map").expect("shipped"), "map", false).expect("the shipped spec loads");
    let analyses: Vec<Box<dyn Analysis>> = vec![
        Box::new(Races::new()),
        Box::new(Atomicity::new(Options {
            ignore_non_nested: true,
            ..Options::default()
        })),
        Box::new(DynamicViews::new(Regions::Auto, true)),
        Box::new(Commute::new(map.specs, Binding::All(0))),
    ];
    let options = RunOptions {
        strict: false,
        pipeline: false,
        lock_records: Default::default(),
    };
    // No deadline: a fuzzer's input must behave the same on every run (libFuzzer's `-timeout`
    // catches one that runs too long).
    let budget = Budget::new(Limits {
        timeout: None,
        memory: MEMORY_LIMIT,
    });
    if let Ok(run) =
        analyse_trace_within(&mut reader, "fuzz", analyses, options, None, Some(&budget))
    {
        for r in &run.reports {
            render(r, OutputFormat::Sarif, &mut std::io::sink()).expect("a sink takes anything");
        }
    }
}

fn bytes(data: &[u8]) -> Box<dyn Read + Send> {
    Box::new(Cursor::new(data.to_vec()))
}

/// A trace in the text formats (RAPID's STD and its superset), through every analysis.
pub fn trace_text(data: &[u8]) {
    analyse(AnyReader::Text(TextReader::new(bytes(data))));
}

/// A binary `.hst` trace, through every analysis.
pub fn trace_binary(data: &[u8]) {
    analyse(AnyReader::Binary(BinaryReader::new(bytes(data))));
}

/// A RoadRunner printer log (excluding one method pattern), through every analysis.
pub fn trace_roadrunner(data: &[u8]) {
    let options = RoadRunnerOptions {
        exclude: vec!["java.lang".into()],
    };
    analyse(AnyReader::RoadRunner(RoadRunnerReader::new(
        bytes(data),
        &options,
    )));
}

/// A RapidBin trace, through every analysis.
pub fn trace_rapidbin(data: &[u8]) {
    analyse(AnyReader::RapidBin(RapidBinReader::new(bytes(data))));
}

/// A poset file (`cuts INPUT`).
pub fn poset(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = hindsight_states::cuts::poset_file::parse_poset(t);
}

/// A predicate of `cuts` and `reach`.
pub fn predicate(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = hindsight_states::cuts::predicate::parse_predicate(t);
}

/// A client history (JSON Lines, EDN, Jepsen log), as `lin` reads it.
pub fn history(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = hindsight_history::parse::parse_history(t);
}

/// A commutativity spec, loaded as `commute --spec` loads it (parsed, checked, translated).
pub fn spec(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = load(t, "fuzz", false);
}

/// A `.mv` program, parsed and analysed as `views PROGRAM.mv` does.
pub fn views_program(data: &[u8]) {
    let Some(t) = text(data) else { return };
    let _ = hindsight_source::views::analyse_program(t, "fuzz");
}

/// Java source, parsed by the Java front end and lowered as `composed` lowers it: operations
/// found, classified and turned into instructions (not verified: that search is bounded by
/// its own budget, not by the input's size).
pub fn java(data: &[u8]) {
    use hindsight_source::composed::{classify, ir, parse};
    let Some(t) = text(data) else { return };
    let Ok(programs) = parse(t) else { return };
    for program in &programs {
        for op in &program.operations {
            let _ = classify(program, op);
            let _ = ir::lower(program, op);
        }
    }
}
