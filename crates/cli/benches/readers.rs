//! Reading the formats Java users already have, against STD text of the same generated trace
//! in the same run: a RoadRunner log and RapidBin, each read alone (parse) and with
//! validation and happens-before (the pass every analysis starts with).
//!
//! `cargo bench -p hindsight-cli --bench readers` (events: `HINDSIGHT_BENCH_EVENTS`, default
//! 2 million).

mod common;

use common::{best_of, validate_hb};

use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{EventSource, Names, RapidBinWriter, RoadRunnerWriter, TextWriter};
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;
use std::time::Instant;

fn parse_only(path: &Path) -> u64 {
    parse_on(path, 1)
}

/// Parses with `parse_threads` threads (the line-based formats: see `ChunkedReader`).
fn parse_on(path: &Path, parse_threads: usize) -> u64 {
    let options = hindsight_trace::OpenOptions {
        parse_threads,
        ..hindsight_trace::OpenOptions::default()
    };
    let mut r = hindsight_trace::open_with(path, &options).expect("open");
    let mut n = 0;
    while r.advance().expect("valid trace") {
        n += 1;
    }
    n
}

fn main() {
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let dir = std::env::temp_dir().join(format!("hindsight-bench-readers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let std_path = dir.join("trace.std");
    let rr_path = dir.join("trace.rr");
    let bin_path = dir.join("trace.rapidbin");
    let config = GenConfig {
        events,
        threads: 8,
        vars: 10_000,
        locks: 16,
        max_depth: 2,
        unprotected: 0.02,
        blocks: 0.0,
        seed: 1,
        map_keys: 0,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    };
    let t = Instant::now();
    let mut written_rr = 0u64;
    {
        let create = |p: &Path| BufWriter::with_capacity(1 << 20, File::create(p).expect("create"));
        let mut text = TextWriter::new(create(&std_path));
        let mut rr = RoadRunnerWriter::new(create(&rr_path));
        let mut bin = RapidBinWriter::new(create(&bin_path)).expect("header");
        let mut names = Names::default();
        generate(&config, &mut names, |e, names| {
            text.write_event(e, names)?;
            written_rr += u64::from(rr.write_event(e, names).map_err(io::Error::other)?);
            bin.write_event(e).map_err(io::Error::other)
        })
        .expect("write");
        text.finish().expect("flush");
        rr.finish().expect("flush");
        bin.finish(&names).expect("flush");
    }
    assert_eq!(
        written_rr, events,
        "the generated trace has no event a log leaves out"
    );
    let size = |p: &Path| std::fs::metadata(p).expect("stat").len() as f64 / 1e6;
    println!(
        "generated {events} events (8 threads, 10000 vars, 16 locks) in {:.2}s: STD {:.1} MB, RoadRunner {:.1} MB, RapidBin {:.1} MB",
        t.elapsed().as_secs_f64(),
        size(&std_path),
        size(&rr_path),
        size(&bin_path),
    );
    let runs = 3;
    let rate = |secs: f64| events as f64 / secs / 1e6;
    let (std_parse, _) = best_of(runs, || parse_only(&std_path));
    let (std_hb, _) = best_of(runs, || validate_hb(&std_path));
    println!(
        "{:<11} parse {:6.1} M events/s            validate+hb {:6.1} M events/s",
        "STD",
        rate(std_parse),
        rate(std_hb)
    );
    // The line-based formats parsed on every core, as the CLI reads them.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
    for (label, path) in [("STD", &std_path), ("RoadRunner", &rr_path)] {
        let (parse, n) = best_of(runs, || parse_on(path, cores));
        assert_eq!(n, events, "{label}");
        println!(
            "{label:<11} parse on {cores} threads {:6.1} M events/s ({:.2}x STD on one)",
            rate(parse),
            std_parse / parse
        );
    }
    for (label, path) in [("RoadRunner", &rr_path), ("RapidBin", &bin_path)] {
        let (parse, n) = best_of(runs, || parse_only(path));
        assert_eq!(n, events, "{label}");
        let (hb, n) = best_of(runs, || validate_hb(path));
        assert_eq!(n, events, "{label}");
        println!(
            "{label:<11} parse {:6.1} M events/s ({:.2}x STD)  validate+hb {:6.1} M events/s ({:.2}x STD)",
            rate(parse),
            std_parse / parse,
            rate(hb),
            std_hb / hb
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
