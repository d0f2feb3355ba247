//! Throughput of `commute --builtin map` on generated dictionary workloads, and the ratio of
//! Algorithm 1 (access points) to the direct approach of Section 5.1 as traces grow.
//!
//! `cargo bench -p hindsight-cli --bench commute` (actions: `HINDSIGHT_BENCH_ACTIONS`, default
//! 10 million; `HINDSIGHT_BENCH_DIRECT=0` skips the direct approach, which takes most of the
//! time).

mod common;

use common::{best_of, validate_hb};

use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::{compile_file, spec, Binding, Commute};
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, Names};
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Instant;

fn config(events: u64) -> GenConfig {
    GenConfig {
        events,
        threads: 8,
        vars: 16,
        locks: 16,
        max_depth: 2,
        unprotected: 0.02,
        blocks: 0.0,
        seed: 7,
        map_keys: 64,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    }
}

fn write(path: &Path, events: u64) {
    let mut w = BinaryWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create(path).expect("create"),
    ))
    .expect("header");
    let mut names = Names::default();
    generate(&config(events), &mut names, |e, n| w.write_event(e, n)).expect("write");
    w.finish().expect("flush");
}

/// Seconds for the best of `runs`, with (events, actions, racy actions); with `pipeline`,
/// reading and validating run in a second thread, otherwise everything runs in this one (whose
/// pool `one_thread` is).
fn analyse(
    path: &Path,
    direct: bool,
    runs: usize,
    pipeline: bool,
    one_thread: &ThreadPool,
) -> (f64, u64, u64, u64) {
    let mut best = f64::INFINITY;
    let mut out = (0, 0, 0);
    for _ in 0..runs {
        let specs = compile_file(
            spec::parse(builtin("map").expect("shipped")).expect("parses"),
            direct,
        )
        .expect("compiles");
        let t = Instant::now();
        let mut r = hindsight_trace::open(path).expect("open");
        let run = || {
            run_any(
                &mut r,
                vec![Box::new(Commute::new(specs, Binding::All(0)))],
                RunOptions {
                    pipeline,
                    ..RunOptions::default()
                },
            )
            .expect("valid")
        };
        let o = if pipeline {
            run()
        } else {
            one_thread.install(run)
        };
        best = best.min(t.elapsed().as_secs_f64());
        let s = &o.outputs[0].1.summary;
        out = (
            o.stats.events,
            s["actions"].as_u64().unwrap_or(0),
            s["racy_actions"].as_u64().unwrap_or(0),
        );
    }
    (best, out.0, out.1, out.2)
}

fn main() {
    let actions: u64 = std::env::var("HINDSIGHT_BENCH_ACTIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let dir = std::env::temp_dir().join(format!("hindsight-commute-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");

    // Findings are built with rayon: for the one-thread figures, this thread is its pool.
    let one_thread = ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("a pool of this thread");

    // About two thirds of the generated events are actions; the rest are lock events.
    let big = dir.join("big.hst");
    write(&big, actions * 3 / 2);
    // Best of 5 for each figure: on a shared virtual machine a run's speed can vary by half
    // from one minute to the next, and the best run is the one least disturbed.
    let floor = best_of(5, || validate_hb(&big)).0;
    let (secs, events, acts, racy) = analyse(&big, false, 5, false, &one_thread);
    let (piped, _, _, piped_racy) = analyse(&big, false, 5, true, &one_thread);
    assert_eq!(piped_racy, racy, "the pipelined pass finds the same races");
    println!(
        "map workload: {events} events, {acts} actions (8 threads, 16 maps, 64 keys), {racy} racy actions"
    );
    println!(
        "  read + validate + happens-before: {:.1} M events/s",
        events as f64 / floor / 1e6
    );
    println!(
        "  commute (access points):          {:.1} M actions/s, {:.1} M events/s",
        acts as f64 / secs / 1e6,
        events as f64 / secs / 1e6
    );
    println!(
        "  commute, two threads:              {:.1} M actions/s, {:.1} M events/s ({:.2}x)",
        acts as f64 / piped / 1e6,
        events as f64 / piped / 1e6,
        secs / piped
    );

    if std::env::var("HINDSIGHT_BENCH_DIRECT").is_ok_and(|v| v == "0") {
        std::fs::remove_dir_all(&dir).ok();
        return;
    }
    println!("  access points vs direct (Section 5.1), same trace prefix:");
    println!(
        "    {:>9} {:>12} {:>12} {:>8}",
        "actions", "points s", "direct s", "ratio"
    );
    for n in [5_000u64, 10_000, 20_000, 40_000, 80_000] {
        let p = dir.join(format!("p{n}.hst"));
        write(&p, n * 3 / 2);
        let (tp, _, a, rp) = analyse(&p, false, 3, false, &one_thread);
        let (td, _, _, rd) = analyse(&p, true, 1, false, &one_thread);
        assert_eq!(rp, rd, "both approaches report the same races");
        println!("    {a:>9} {tp:>12.4} {td:>12.4} {:>7.1}x", td / tp);
    }
    std::fs::remove_dir_all(&dir).ok();
}
