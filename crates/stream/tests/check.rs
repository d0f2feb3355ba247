//! `hindsight check`'s contract, on random traces: a chain of analyses in one pass reports, per
//! analysis, exactly what the analysis reports alone (findings, summary, rules, warnings, facts
//! about the trace), sequentially and pipelined; and a trace an analysis refuses is refused by
//! the chain with the error of the first analysis that refuses it.

use hindsight_report::Report;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace, Analysis, RunOptions, TraceRun};
use hindsight_trace::arbitrary::text_of;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{AnyReader, Names, TextReader, TextWriter};
use proptest::prelude::*;
use std::io::{Cursor, Read};

/// The analyses `check` chains, each as its command would build it; `which` picks them.
fn analysis(which: usize) -> Box<dyn Analysis> {
    match which {
        0 => Box::new(Races::new()),
        1 => {
            let loaded = load(builtin("map").expect("shipped"), "<builtin map>", false)
                .expect("the shipped spec loads");
            Box::new(
                Commute::new(loaded.specs, Binding::All(0)).with_spec_warnings(loaded.warnings),
            )
        }
        2 => Box::new(Atomicity::new(Options {
            all: false,
            schedule: true,
            ignore_non_nested: true,
            granularity: hindsight_stream::groups::Granularity::EveryEvent,
        })),
        _ => Box::new(DynamicViews::new(Regions::Both, true)),
    }
}

const ANALYSES: usize = 4;

/// A report in a form that compares: its JSON (findings, summary, warnings, trace facts) and
/// its rules.
fn shown(r: &Report) -> String {
    let rules: Vec<&str> = r.rules.iter().map(|r| r.id).collect();
    format!(
        "{}\n{rules:?}",
        serde_json::to_string_pretty(r).expect("serializes")
    )
}

fn analyse(text: &[u8], chain: &[usize], pipeline: bool) -> Result<TraceRun, String> {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let analyses = chain.iter().map(|&k| analysis(k)).collect();
    let options = RunOptions {
        strict: false,
        pipeline,
        lock_records: Default::default(),
    };
    analyse_trace(&mut reader, "t.std", analyses, options).map_err(|d| d.to_string())
}

/// Checks the chain against each of its analyses alone.
fn agree(text: &[u8], chain: &[usize], pipeline: bool) {
    let together = analyse(text, chain, pipeline);
    let alone: Vec<Result<TraceRun, String>> = chain
        .iter()
        .map(|&k| analyse(text, &[k], pipeline))
        .collect();
    match together {
        Ok(run) => {
            assert_eq!(run.reports.len(), chain.len());
            for (report, single) in run.reports.iter().zip(&alone) {
                let single = single
                    .as_ref()
                    .expect("an analysis the chain ran accepts alone");
                assert_eq!(shown(report), shown(&single.reports[0]));
            }
            // The pass's warnings about the trace go to standard error once, then each
            // analysis' own.
            let pass = analyse(text, &[], false).expect("a trace some analysis accepts reads");
            assert_eq!(run.info, pass.info);
            let mut expected = pass.warnings.clone();
            for single in &alone {
                let single = single.as_ref().expect("ran");
                expected.extend(single.warnings[pass.warnings.len()..].iter().cloned());
            }
            assert_eq!(run.warnings, expected);
        }
        Err(e) => {
            let first = alone
                .iter()
                .find_map(|r| r.as_ref().err())
                .expect("some analysis refuses the trace alone");
            assert_eq!(&e, first);
        }
    }
}

fn generated(config: &GenConfig) -> Vec<u8> {
    let mut w = TextWriter::new(Vec::new());
    let mut names = Names::default();
    generate(config, &mut names, |e, names| w.write_event(e, names)).expect("generates");
    w.finish().expect("finishes")
}

/// A subset of the analyses, in some order, from `picks`.
fn chain_of(picks: &[u8]) -> Vec<usize> {
    let mut chain = Vec::new();
    for &p in picks {
        let k = p as usize % ANALYSES;
        if !chain.contains(&k) {
            chain.push(k);
        }
    }
    chain
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_chain_reports_what_each_analysis_reports_alone(
        choices in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..60),
        odd in any::<bool>(),
        picks in prop::collection::vec(any::<u8>(), 1..6),
        pipeline in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { odd, ..Shape::default() });
        agree(&text_of(&trace), &chain_of(&picks), pipeline);
    }

    #[test]
    fn so_it_does_on_generated_map_traces(
        seed in any::<u64>(),
        events in 20u64..400,
        threads in 2u32..5,
        blocks in prop_oneof![Just(0.0), Just(0.2)],
        picks in prop::collection::vec(any::<u8>(), 1..6),
    ) {
        let config = GenConfig {
            events,
            threads,
            vars: 4,
            locks: 2,
            max_depth: 2,
            unprotected: 0.2,
            blocks,
            seed,
            map_keys: if seed % 2 == 0 { 3 } else { 0 },
            per_request: 0,
            sites: hindsight_trace::generate::DEFAULT_SITES,
        };
        agree(&generated(&config), &chain_of(&picks), seed % 3 == 0);
    }
}

#[test]
fn every_analysis_at_once_on_a_bundled_trace() {
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hosts.txt"
    ))
    .expect("example");
    agree(&text, &[3, 2, 1, 0], false);
    agree(&text, &[0, 1, 2, 3], true);
}
