//! Throughput of parse + `races` on a generated trace, from text and from binary.
//!
//! `cargo bench -p hindsight-cli --bench throughput` (events: `HINDSIGHT_BENCH_EVENTS`, default
//! 10 million). Each stage is measured in the same run as its baselines, so the ratios hold on
//! any machine: a raw newline count over the same file (the I/O floor), parsing alone, parsing
//! with validation and happens-before, and the full `races` pass; for text, parsing and the
//! pipelined pass again with the text parsed on every core.

mod common;

use common::{best_of, validate_hb};

use hindsight_stream::races::Races;
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, EventSource, Names, OpenOptions, TextWriter};
use std::fs::File;
use std::io::{BufWriter, Read};
use std::path::Path;
use std::time::Instant;

fn newlines(path: &Path) -> u64 {
    let mut f = File::open(path).expect("open");
    let mut buf = vec![0u8; 256 * 1024];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).expect("read");
        if k == 0 {
            return n;
        }
        n += memchr_count(&buf[..k]);
    }
}

fn memchr_count(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64
}

fn parse_only(path: &Path) -> u64 {
    parse_on(path, 1)
}

/// Parses the trace with `threads` parsing threads (text only: see `ChunkedReader`).
fn parse_on(path: &Path, threads: usize) -> u64 {
    let mut r = open_on(path, threads);
    let mut n = 0;
    while r.advance().expect("valid trace") {
        n += 1;
    }
    n
}

fn open_on(path: &Path, parse_threads: usize) -> hindsight_trace::AnyReader {
    let options = OpenOptions {
        parse_threads,
        ..OpenOptions::default()
    };
    hindsight_trace::open_with(path, &options).expect("open")
}

fn races(path: &Path, pipeline: bool) -> (u64, u64) {
    races_on(path, pipeline, 1)
}

fn races_on(path: &Path, pipeline: bool, parse_threads: usize) -> (u64, u64) {
    let mut r = open_on(path, parse_threads);
    let options = RunOptions {
        pipeline,
        ..RunOptions::default()
    };
    let out = run_any(&mut r, vec![Box::new(Races::new())], options).expect("valid trace");
    (out.stats.events, out.outputs[0].1.findings.len() as u64)
}

fn main() {
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = std::env::temp_dir().join(format!("hindsight-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text_path = dir.join("trace.std");
    let bin_path = dir.join("trace.hst");
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
    {
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
        generate(&config, &mut names, |e, names| {
            text.write_event(e, names)?;
            bin.write_event(e, names)
        })
        .expect("write");
        text.finish().expect("flush");
        bin.finish().expect("flush");
    }
    let text_size = std::fs::metadata(&text_path).expect("stat").len();
    let bin_size = std::fs::metadata(&bin_path).expect("stat").len();
    println!(
        "generated {events} events (8 threads, 10000 vars, 16 locks) in {:.2}s: text {:.1} MB, binary {:.1} MB ({:.1}x smaller)",
        t.elapsed().as_secs_f64(),
        text_size as f64 / 1e6,
        bin_size as f64 / 1e6,
        text_size as f64 / bin_size as f64
    );
    let runs = 5;
    let rate = |secs: f64| events as f64 / secs / 1e6;
    for (label, path) in [("text", &text_path), ("binary", &bin_path)] {
        let (floor, _) = if label == "text" {
            best_of(runs, || newlines(path))
        } else {
            best_of(runs, || {
                let mut v = Vec::new();
                File::open(path)
                    .expect("open")
                    .read_to_end(&mut v)
                    .expect("read");
                v.len() as u64
            })
        };
        let (parse, n) = best_of(runs, || parse_only(path));
        assert_eq!(n, events);
        let (hb, _) = best_of(runs, || validate_hb(path));
        let mut racy = 0;
        let (full, _) = best_of(runs, || {
            let (n, r) = races(path, false);
            racy = r;
            n
        });
        let (piped, _) = best_of(runs, || races(path, true).0);
        println!("{label:>6}: I/O floor {:>7.1} M events/s", rate(floor));
        println!("{label:>6}: parse     {:>7.1} M events/s", rate(parse));
        println!(
            "{label:>6}: + validate + happens-before {:>7.1} M events/s",
            rate(hb)
        );
        println!(
            "{label:>6}: + races   {:>7.1} M events/s  ({racy} racy events; {:.0}% of parse-only speed)",
            rate(full),
            100.0 * parse / full
        );
        println!(
            "{label:>6}: + races, pipelined (2 threads) {:>7.1} M events/s  ({:.2}x)",
            rate(piped),
            full / piped
        );
        if label == "text" {
            // Text parsed on every core (`ChunkedReader`), as the CLI reads it.
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let (parse_all, n) = best_of(runs, || parse_on(path, cores.max(2)));
            assert_eq!(n, events);
            let (piped_all, _) = best_of(runs, || races_on(path, true, cores.max(2)).0);
            println!(
                "{label:>6}: parse on {} threads {:>7.1} M events/s  ({:.2}x parse)",
                cores.max(2),
                rate(parse_all),
                parse / parse_all
            );
            println!(
                "{label:>6}: + races, pipelined, parsed on {} threads {:>7.1} M events/s  ({:.2}x pipelined)",
                cores.max(2),
                rate(piped_all),
                piped / piped_all
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
