//! Time of `lin`'s checker on simulated histories (`hindsight_history::simulate`), next to the
//! checker as it was before issue #24 (`lin_before/`, kept verbatim from commit b75fdba but for
//! its imports) on the very same histories, in the same run:
//!
//! - register histories (read, write, cas) of 150–200 operations over 5 clients, 200 seeds:
//!   linearizable ones and ones with stale reads; `etcd` now, `register` before (the same
//!   semantics on histories without failed cas, which the simulator drops: nil reads checked
//!   like any value, where Knossos' `cas-register` takes them to fit anything);
//! - list-append histories of 50 clients and 2,000 operations (about 4,000 records) over 8
//!   keys, 20 seeds; `list-append` now, `kv` before (the same model under its old name);
//! - 10,000-operation histories of both shapes with a 10 s timeout (`unknown` is an acceptable
//!   verdict there, a crash is not);
//! - Porcupine-style key-value histories (strings, `append` concatenating) of 10,000 operations
//!   and 50 clients over 8 keys, as `hindsight gen-history --model kv --clients 50 --ops 10000`
//!   writes them: `kv` now; the old checker's `kv` read them as lists, so it has no row.
//!
//! Each row gives the median, p95 and max time and the verdicts, now and before, and the ratio
//! of the medians (before / now).
//!
//! `cargo bench -p hindsight-cli --bench lin`

mod lin_before;

use hindsight_budget::{Budget, Limits};
use hindsight_history::check::Verdict;
use hindsight_history::simulate::{simulate, SimConfig};
use hindsight_history::{check, model_by_name, CheckOptions, History};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);

/// Seconds and verdict of one check by today's checker.
fn now(model: &str, history: &History) -> (f64, Verdict) {
    let model = model_by_name(model, None).expect("a model");
    let budget = Budget::new(Limits::new(Some(TIMEOUT), None));
    let t = Instant::now();
    let outcome = check(history, model.as_ref(), &CheckOptions::default(), &budget);
    (t.elapsed().as_secs_f64(), outcome.verdict)
}

/// Seconds and verdict of one check by the checker before issue #24.
fn before(model: &str, history: &History) -> (f64, Verdict) {
    use lin_before::check::Verdict as Old;
    let model = lin_before::models::model_by_name(model, None).expect("a model");
    let options = lin_before::check::CheckOptions {
        timeout: Some(TIMEOUT),
        ..lin_before::check::CheckOptions::default()
    };
    let t = Instant::now();
    let outcome = lin_before::check::check(history, model.as_ref(), &options);
    let verdict = match outcome.verdict {
        Old::Linearizable => Verdict::Linearizable,
        Old::NotLinearizable => Verdict::NotLinearizable,
        Old::Unknown => Verdict::Unknown,
    };
    (t.elapsed().as_secs_f64(), verdict)
}

/// Median, p95 and max time, and the verdicts (lin/not/unknown).
fn stats(results: &[(f64, Verdict)]) -> (f64, String) {
    let mut times: Vec<f64> = results.iter().map(|r| r.0).collect();
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let count = |v: Verdict| results.iter().filter(|r| r.1 == v).count();
    (
        at(0.5),
        format!(
            "{:>10} {:>10} {:>10} {:>3}/{}/{}",
            ms(at(0.5)),
            ms(at(0.95)),
            ms(times[times.len() - 1]),
            count(Verdict::Linearizable),
            count(Verdict::NotLinearizable),
            count(Verdict::Unknown),
        ),
    )
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

/// Checks the histories of `configs` with today's `model` and, if given, the old checker's
/// `old` model; one row with the mean numbers of operations and records.
fn run(case: &str, model: &str, old: Option<&str>, configs: impl Iterator<Item = SimConfig>) {
    let (mut ops, mut recs) = (0, 0);
    let (mut new_results, mut old_results) = (Vec::new(), Vec::new());
    for c in configs {
        let h = simulate(&c);
        ops += h.ops.len();
        recs += records(&h);
        new_results.push(now(model, &h));
        if let Some(old) = old {
            old_results.push(before(old, &h));
        }
    }
    let n = new_results.len().max(1);
    let (new_median, new_row) = stats(&new_results);
    let (old_row, ratio) = match old {
        Some(_) => {
            let (old_median, row) = stats(&old_results);
            (row, format!("{:.1}x", old_median / new_median))
        }
        None => ("(no old model)".to_string(), "-".to_string()),
    };
    println!(
        "{case:<34} {:>6} {:>8} {:>4}  now {new_row}  before {old_row}  {ratio:>7}",
        ops / n,
        recs / n,
        n
    );
}

fn main() {
    println!(
        "{:<34} {:>6} {:>8} {:>4}  now {:>10} {:>10} {:>10} lin/not/unk  before (same columns)  median ratio",
        "case", "ops", "records", "runs", "median", "p95", "max"
    );
    let register = |seed: u64, stale: f64| SimConfig {
        model: "cas-register".into(),
        clients: 5,
        // About 1 in 8 invoked operations is a failed cas, dropped from the history: this
        // leaves 150-200 operations.
        ops: 173 + (seed % 59) as u32,
        stale_reads: stale,
        seed,
        ..SimConfig::default()
    };
    let reg = Some("register");
    run(
        "register 150-200 ops, 5 clients",
        "etcd",
        reg,
        (0..200).map(|s| register(s, 0.0)),
    );
    run(
        "  with 5% stale reads",
        "etcd",
        reg,
        (0..200).map(|s| register(s, 0.05)),
    );
    let lists = |seed: u64, clients: u32, ops: u32| SimConfig {
        model: "list-append".into(),
        clients,
        ops,
        keys: 8,
        seed,
        ..SimConfig::default()
    };
    let old_kv = Some("kv");
    run(
        "list-append 2,000 ops, 50 clients",
        "list-append",
        old_kv,
        (0..20).map(|s| lists(s, 50, 2_000)),
    );
    run(
        "  with 5% stale reads",
        "list-append",
        old_kv,
        (0..20).map(|s| SimConfig {
            stale_reads: 0.05,
            ..lists(s, 50, 2_000)
        }),
    );
    println!("10,000 operations, 10 s timeout:");
    run(
        "register 10,000 ops, 5 clients",
        "etcd",
        reg,
        std::iter::once(SimConfig {
            ops: 10_000,
            ..register(1, 0.0)
        }),
    );
    run(
        "  with 1% stale reads",
        "etcd",
        reg,
        std::iter::once(SimConfig {
            ops: 10_000,
            ..register(1, 0.01)
        }),
    );
    run(
        "list-append 10,000 ops, 50 clients",
        "list-append",
        old_kv,
        std::iter::once(lists(1, 50, 10_000)),
    );
    run(
        "  with 1% stale reads",
        "list-append",
        old_kv,
        std::iter::once(SimConfig {
            stale_reads: 0.01,
            ..lists(1, 50, 10_000)
        }),
    );
    let kv = |seed: u64| SimConfig {
        model: "kv".into(),
        clients: 50,
        ops: 10_000,
        keys: 8,
        seed,
        ..SimConfig::default()
    };
    run(
        "kv (strings) 10,000 ops, 50 clients",
        "kv",
        None,
        (1..=5).map(kv),
    );
    run(
        "  with 1% stale reads",
        "kv",
        None,
        (1..=5).map(|s| SimConfig {
            stale_reads: 0.01,
            ..kv(s)
        }),
    );
}
