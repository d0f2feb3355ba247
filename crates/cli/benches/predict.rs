//! Throughput and memory of the race models (`races --model`) on generated traces, each as a
//! ratio to happens-before (`hb`) measured in the same run on the same file.
//!
//! `cargo bench -p hindsight-cli --bench predict`: 8 threads, 64 variables, 16 and then 64
//! locks, nesting up to 2, 5% of accesses unprotected; `HINDSIGHT_BENCH_EVENTS` events (default
//! 1 M) for every model (syncp and osr: one run each), and `HINDSIGHT_BENCH_BIG` (default 10 M, 0 skips) for the streaming
//! ones (hb, shb, wcp). The pass is pipelined, as the CLI runs it with a second core. Memory is
//! what each model reports holding (`memory_bytes`), the figure its summary gives users.

mod common;

use common::best_of;
use hindsight_predict::{analysis, Model, Options};
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, Names};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

fn write(config: &GenConfig, path: PathBuf) -> PathBuf {
    let mut bin = BinaryWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create(&path).expect("create"),
    ))
    .expect("header");
    let mut names = Names::default();
    generate(config, &mut names, |e, names| bin.write_event(e, names)).expect("write");
    bin.finish().expect("flush");
    path
}

/// One run of `model`: racy events and the memory the model reports.
fn run(path: &Path, model: Model) -> (u64, u64) {
    let mut r = hindsight_trace::open(path).expect("open");
    let options = RunOptions {
        strict: false,
        pipeline: true,
        lock_records: Default::default(),
    };
    let outcome =
        run_any(&mut r, vec![analysis(model, Options::default())], options).expect("valid trace");
    let summary = &outcome.outputs[0].1.summary;
    let get = |k: &str| summary.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    (get("racy_events"), get("memory_bytes"))
}

fn bench(path: &Path, events: u64, models: &[(Model, &str, usize)]) {
    let mut hb_seconds = None;
    for &(model, name, runs) in models {
        let mut result = (0, 0);
        let (seconds, _) = best_of(runs, || {
            result = run(path, model);
            result.0
        });
        let base = *hb_seconds.get_or_insert(seconds);
        println!(
            "  {name:5}  {seconds:7.3} s  {:6.2} M events/s  {:5.2}x hb  racy events {:8}  memory {:8.1} MiB",
            events as f64 / seconds / 1e6,
            seconds / base,
            result.0,
            result.1 as f64 / (1 << 20) as f64
        );
    }
}

fn main() {
    let env = |k: &str, default: u64| {
        std::env::var(k)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (events, big) = (
        env("HINDSIGHT_BENCH_EVENTS", 1_000_000),
        env("HINDSIGHT_BENCH_BIG", 10_000_000),
    );
    let dir = std::env::temp_dir().join(format!("hindsight-predict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let all = [
        (Model::Hb, "hb", 3),
        (Model::Shb, "shb", 3),
        (Model::Wcp, "wcp", 3),
        (Model::SyncP, "syncp", 1),
        (Model::Osr, "osr", 1),
    ];
    for locks in [16, 64] {
        let config = |events| GenConfig {
            events,
            threads: 8,
            vars: 64,
            locks,
            max_depth: 2,
            unprotected: 0.05,
            blocks: 0.0,
            seed: 1,
            map_keys: 0,
            per_request: 0,
            sites: hindsight_trace::generate::DEFAULT_SITES,
        };
        let path = write(&config(events), dir.join(format!("l{locks}.hst")));
        println!("{events} events, 8 threads, 64 variables, {locks} locks:");
        bench(&path, events, &all);
        if big > 0 {
            let path = write(&config(big), dir.join(format!("l{locks}-big.hst")));
            println!("{big} events, 8 threads, 64 variables, {locks} locks:");
            bench(&path, big, &all[..3]);
            std::fs::remove_file(path).ok();
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
