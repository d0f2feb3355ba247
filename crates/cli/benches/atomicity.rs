//! Throughput of `atomicity` on generated traces of the paper's shapes, next to a baseline
//! measured in the same run on the same file: reading, validating and happens-before alone.
//!
//! `cargo bench -p hindsight-cli --bench atomicity` (events of the `tsp` shape:
//! `HINDSIGHT_BENCH_EVENTS`, default 11 million).
//!
//! - `tsp`: 20 threads, 1510 variables, 2 locks, transactions of ~100,000 events (Table 1's
//!   largest run, 11 M events);
//! - `elevator`: 5 threads, 200 variables, 50 locks taken in any order, nested up to 3 deep,
//!   78,000 events (the paper's slow case, whose time went to the compatibility check), with
//!   Phase I, Phase II and the building of findings timed apart. Random lock orders make
//!   thousands of distinct profiles and hundreds of thousands of violation classes, far more
//!   than a real program: timing Phase II apart shows what the compatibility check costs
//!   even so.
//!
//! The paper's times for both, and ours, are in `BENCHMARKS.md`.

mod common;

use common::{best_of, validate_hb};

use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::groups::Granularity;
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::generate::{generate_nested, NestedConfig};
use hindsight_trace::{BinaryWriter, Names, TextWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn write(config: &NestedConfig, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let text_path = dir.join(format!("{name}.std"));
    let bin_path = dir.join(format!("{name}.hst"));
    let mut text = TextWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create(&text_path).expect("create"),
    ));
    let mut bin = BinaryWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create(&bin_path).expect("create"),
    ))
    .expect("header");
    let mut names = Names::default();
    generate_nested(config, &mut names, |e, names| {
        text.write_event(e, names)?;
        bin.write_event(e, names)
    })
    .expect("write");
    text.finish().expect("flush");
    bin.finish().expect("flush");
    (text_path, bin_path)
}

/// Runs the analysis; returns the findings and the summary line.
fn atomicity(path: &Path) -> (u64, String) {
    let mut r = hindsight_trace::open(path).expect("open");
    let out = run_any(
        &mut r,
        vec![Box::new(Atomicity::new(Options::default()))],
        RunOptions::default(),
    )
    .expect("valid trace");
    let o = &out.outputs[0].1;
    let summary: Vec<String> = o.summary.iter().map(|(k, v)| format!("{k} {v}")).collect();
    (o.findings.len() as u64, summary.join(", "))
}

fn bench(name: &str, config: &NestedConfig, dir: &Path, runs: usize) {
    let t = Instant::now();
    let (text, bin) = write(config, dir, name);
    println!(
        "{name}: generated {} events ({} threads, {} vars, {} locks, depth {}) in {:.1}s",
        config.events,
        config.threads,
        config.vars,
        config.locks,
        config.max_depth,
        t.elapsed().as_secs_f64()
    );
    let rate = |secs: f64| config.events as f64 / secs / 1e6;
    for (label, path) in [("binary", &bin), ("text", &text)] {
        let (base, n) = best_of(runs, || validate_hb(path));
        assert_eq!(n, config.events);
        let mut summary = String::new();
        let (full, findings) = best_of(runs, || {
            let (f, s) = atomicity(path);
            summary = s;
            f
        });
        println!(
            "{name} {label:>6}: read + validate + happens-before {:.2}s ({:.1} M events/s); + atomicity {:.2}s ({:.1} M events/s, {:.0}% of baseline speed), {findings} findings",
            base,
            rate(base),
            full,
            rate(full),
            100.0 * base / full
        );
        println!("{name} {label:>6}: {summary}");
    }
}

/// Phase I, Phase II and the findings, timed separately on a trace held in memory.
fn phases(name: &str, config: &NestedConfig) {
    use hindsight_stream::Analysis;
    let mut names = Names::default();
    let mut events = Vec::new();
    generate_nested::<std::convert::Infallible>(config, &mut names, |e, _| {
        events.push(e.clone());
        Ok(())
    })
    .expect("infallible");
    // One finding per violation class, as the count it is checked against.
    let mut a = Atomicity::new(Options {
        granularity: Granularity::EveryEvent,
        ..Options::default()
    });
    let t = Instant::now();
    for e in &events {
        a.step(e, &names).expect("nested");
    }
    let phase1 = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (classes, checks) = a.violations_counted();
    let phase2 = t.elapsed().as_secs_f64();
    let profiles = a.profiles().len();
    let t = Instant::now();
    let out = Box::new(a).finish(&names);
    let report = t.elapsed().as_secs_f64();
    println!(
        "{name} phases: Phase I {phase1:.3}s ({profiles} profiles), Phase II {phase2:.3}s ({checks} distinct profile pairs checked, {:.0} ns each at most; {} violation classes), findings built in {report:.3}s",
        phase2 * 1e9 / checks.max(1) as f64,
        classes.len(),
    );
    assert_eq!(out.findings.len(), classes.len());
}

fn main() {
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(11_000_000);
    // HINDSIGHT_BENCH_KEEP=DIR writes the traces there and keeps them (for profiling).
    let keep = std::env::var_os("HINDSIGHT_BENCH_KEEP").map(PathBuf::from);
    let dir = keep.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("hindsight-atomicity-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).expect("temp dir");
    let tsp = NestedConfig {
        events,
        threads: 20,
        vars: 1510,
        locks: 2,
        max_depth: 2,
        transaction: 100_000,
        shared: 0.0005,
        seed: 1,
    };
    bench("tsp", &tsp, &dir, 3);
    if std::env::var_os("HINDSIGHT_BENCH_TSP_ONLY").is_some() {
        return;
    }
    let elevator = NestedConfig {
        events: 78_000,
        threads: 5,
        vars: 200,
        locks: 50,
        max_depth: 3,
        transaction: 300,
        shared: 0.005,
        seed: 2,
    };
    bench("elevator", &elevator, &dir, 5);
    phases("elevator", &elevator);
    if keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
