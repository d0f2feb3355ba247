//! What the repair of late lock releases (`hindsight_trace::LockRepair`, in front of every
//! pass that may repair) costs the `races` pass on a trace that needs no repair: the same pass
//! with the repair on (the default) and off (`--strict`, under which the wrapper hands the
//! stream through), alternated in one run on one file, best of each.
//!
//! `cargo bench -p hindsight-cli --bench repair` (events: `HINDSIGHT_BENCH_EVENTS`, default
//! 4 million; a generated binary trace of 8 threads and 16 locks, lock-valid, so both passes
//! see the same events and find the same races).

mod common;

use hindsight_stream::races::Races;
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, Names};
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::Instant;

/// One `races` pass, one thread; its seconds and its racy events.
fn races(path: &Path, repair: bool) -> (f64, usize) {
    let started = Instant::now();
    let mut r = hindsight_trace::open(path).expect("open");
    let options = RunOptions {
        strict: !repair,
        pipeline: false,
        lock_records: Default::default(),
    };
    let out = run_any(&mut r, vec![Box::new(Races::new())], options).expect("valid trace");
    (
        started.elapsed().as_secs_f64(),
        out.outputs[0].1.findings.len(),
    )
}

fn main() {
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    let dir = std::env::temp_dir().join(format!("hindsight-bench-repair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("trace.hst");
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
    let mut b = BinaryWriter::new(BufWriter::with_capacity(
        1 << 20,
        File::create(&path).expect("create"),
    ))
    .expect("header");
    let mut names = Names::default();
    generate(&config, &mut names, |e, n| b.write_event(e, n)).expect("generates");
    b.finish().expect("finish");
    let (mut with, mut without) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..7 {
        let (a, found_with) = races(&path, true);
        let (b, found_without) = races(&path, false);
        assert_eq!(
            found_with, found_without,
            "the repair changed a lock-valid trace"
        );
        with = with.min(a);
        without = without.min(b);
    }
    let rate = |s: f64| events as f64 / s / 1e6;
    println!("{events} events, races, one thread, best of 7 alternated:");
    println!(
        "  repair off (--strict): {without:.3} s ({:.1} M events/s)",
        rate(without)
    );
    println!(
        "  repair on (default):   {with:.3} s ({:.1} M events/s)",
        rate(with)
    );
    println!("  repair on / off: {:.3}x", with / without);
    std::fs::remove_dir_all(&dir).ok();
}
