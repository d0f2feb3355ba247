//! Time of `lin`'s checker on simulated histories (`hindsight_history::simulate`):
//!
//! - register histories of 150–200 operations over 5 clients, 200 seeds: linearizable ones and
//!   ones with stale reads;
//! - kv histories of 50 clients and 2,000 operations (about 4,000 records) over 8 keys, 20 seeds;
//! - 10,000-operation register and kv histories with a 10 s timeout (`unknown` is an acceptable
//!   verdict there, a crash is not).
//!
//! `cargo bench -p hindsight-cli --bench lin`

use hindsight_history::check::Verdict;
use hindsight_history::simulate::{simulate, SimConfig};
use hindsight_history::{check, model_by_name, CheckOptions, History};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);

/// Seconds and verdict of one check.
fn time(model: &str, history: &History) -> (f64, Verdict) {
    let model = model_by_name(model, None).expect("a model");
    let options = CheckOptions {
        timeout: Some(TIMEOUT),
        ..CheckOptions::default()
    };
    let t = Instant::now();
    let outcome = check(history, model.as_ref(), &options);
    (t.elapsed().as_secs_f64(), outcome.verdict)
}

/// One row of the table: runs, median, p95 and max time, and the verdicts.
fn row(case: &str, ops: usize, records: usize, results: &[(f64, Verdict)]) {
    let mut times: Vec<f64> = results.iter().map(|r| r.0).collect();
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let count = |v: Verdict| results.iter().filter(|r| r.1 == v).count();
    println!(
        "{case:<34} {ops:>6} {records:>8} {:>5} {:>11} {:>11} {:>11} {:>5} {:>5} {:>5}",
        results.len(),
        ms(at(0.5)),
        ms(at(0.95)),
        ms(times[times.len() - 1]),
        count(Verdict::Linearizable),
        count(Verdict::NotLinearizable),
        count(Verdict::Unknown),
    );
}

fn ms(s: f64) -> String {
    if s < 0.001 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// Records in a history (invocations and completions).
fn records(h: &History) -> usize {
    h.ops.len() + h.ops.iter().filter(|o| o.ret.is_some()).count()
}

/// Checks the histories of `configs`; the row shows the mean numbers of operations and records.
fn run(case: &str, model: &str, configs: impl Iterator<Item = SimConfig>) {
    let (mut ops, mut recs) = (0, 0);
    let mut results = Vec::new();
    for c in configs {
        let h = simulate(&c);
        ops += h.ops.len();
        recs += records(&h);
        results.push(time(model, &h));
    }
    let n = results.len().max(1);
    row(case, ops / n, recs / n, &results);
}

fn main() {
    println!(
        "{:<34} {:>6} {:>8} {:>5} {:>11} {:>11} {:>11} {:>5} {:>5} {:>5}",
        "case", "ops", "records", "runs", "median", "p95", "max", "lin", "not", "unk"
    );
    let register = |seed: u64, stale: f64| SimConfig {
        model: "register".into(),
        clients: 5,
        // About 1 in 8 invoked operations is a failed cas, dropped from the history: this
        // leaves 150-200 operations.
        ops: 173 + (seed % 59) as u32,
        stale_reads: stale,
        seed,
        ..SimConfig::default()
    };
    run(
        "register 150-200 ops, 5 clients",
        "register",
        (0..200).map(|s| register(s, 0.0)),
    );
    run(
        "  with 5% stale reads",
        "register",
        (0..200).map(|s| register(s, 0.05)),
    );
    let kv = |seed: u64, clients: u32, ops: u32| SimConfig {
        model: "kv".into(),
        clients,
        ops,
        keys: 8,
        seed,
        ..SimConfig::default()
    };
    run(
        "kv 2,000 ops, 50 clients, 8 keys",
        "kv",
        (0..20).map(|s| kv(s, 50, 2_000)),
    );
    run(
        "  with 5% stale reads",
        "kv",
        (0..20).map(|s| SimConfig {
            stale_reads: 0.05,
            ..kv(s, 50, 2_000)
        }),
    );
    println!("10,000 operations, 10 s timeout:");
    run(
        "register 10,000 ops, 5 clients",
        "register",
        std::iter::once(SimConfig {
            ops: 10_000,
            ..register(1, 0.0)
        }),
    );
    run(
        "  with 1% stale reads",
        "register",
        std::iter::once(SimConfig {
            ops: 10_000,
            ..register(1, 0.01)
        }),
    );
    run(
        "kv 10,000 ops, 50 clients, 8 keys",
        "kv",
        std::iter::once(kv(1, 50, 10_000)),
    );
    run(
        "  with 1% stale reads",
        "kv",
        std::iter::once(SimConfig {
            stale_reads: 0.01,
            ..kv(1, 50, 10_000)
        }),
    );
}
