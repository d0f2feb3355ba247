//! The shapes of real programs that once made analyses quadratic (#38): many threads on one
//! variable, many threads holding locks at once, deep lock nesting, many locks, many
//! variables, a thread per request (`hindsight_trace::shapes`). For each shape and each trace
//! analysis, the time and peak resident memory at size n and 2n (nesting: 1k and 10k, the
//! sizes #38 names) and their ratio: a linear analysis stays near 2x (10x for nesting), a
//! quadratic one near 4x (100x).
//!
//! `cargo bench -p hindsight-cli --bench shapes` (`HINDSIGHT_BENCH_N`: n, default 50,000;
//! `HINDSIGHT_BENCH_SHAPES`, `HINDSIGHT_BENCH_ANALYSES`: comma-separated subsets). Every
//! measurement runs in a child process (this bench re-run with `--child`), so that its peak
//! resident memory (`VmHWM`) is its own, under a 20 s timeout and a 3 GiB memory limit: a run
//! that reaches either prints `>` before its figures (the analysis is not linear there).

use hindsight_budget::{Budget, Limits};
use hindsight_predict::{analysis, Model, Options};
use hindsight_report::{render, OutputFormat};
use hindsight_stream::atomicity::{self, Atomicity};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace_within, Analysis, RunOptions};
use hindsight_trace::shapes::{shape, SHAPES};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const ANALYSES: [&str; 9] = [
    "races",
    "shb",
    "wcp",
    "syncp",
    "osr",
    "commute",
    "atomicity",
    "views",
    "check",
];

fn analyses(name: &str) -> Vec<Box<dyn Analysis>> {
    let options = Options {
        granularity: Granularity::Grouped,
        witnesses: false,
        beyond_hb: false,
    };
    let commute = || {
        let loaded = load(builtin("map").expect("shipped"), "map", false).expect("loads");
        Box::new(Commute::new(loaded.specs, Binding::All(0))) as Box<dyn Analysis>
    };
    let views = || Box::new(DynamicViews::new(Regions::Auto, true)) as Box<dyn Analysis>;
    let atomicity = || Box::new(Atomicity::new(atomicity::Options::default())) as Box<dyn Analysis>;
    match name {
        "races" => vec![analysis(Model::Hb, options)],
        "shb" => vec![analysis(Model::Shb, options)],
        "wcp" => vec![analysis(Model::Wcp, options)],
        "syncp" => vec![analysis(Model::SyncP, options)],
        "osr" => vec![analysis(Model::Osr, options)],
        "commute" => vec![commute()],
        "atomicity" => vec![atomicity()],
        "views" => vec![views()],
        "check" => vec![
            analysis(Model::Hb, options),
            commute(),
            atomicity(),
            views(),
        ],
        other => panic!("no analysis {other}"),
    }
}

/// The child: one pass as the command runs it, within the bench's limits, then the JSON;
/// prints seconds, peak KiB and whether the budget ran out.
fn child(analysis: &str, path: &Path) {
    let started = Instant::now();
    let mut reader = hindsight_trace::open(path).expect("open");
    let budget = Budget::new(Limits::new(Some(Duration::from_secs(20)), Some(3 << 30)));
    let run = analyse_trace_within(
        &mut reader,
        "bench",
        analyses(analysis),
        RunOptions::default(),
        None,
        Some(&budget),
    )
    .expect("valid trace");
    for r in &run.reports {
        render(r, OutputFormat::Json, &mut std::io::sink()).expect("renders");
    }
    println!(
        "{} {} {}",
        started.elapsed().as_secs_f64(),
        peak_kib(),
        budget.spent().is_some()
    );
}

/// This process's peak resident memory, from `/proc/self/status` (0 where there is none).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `analysis` on `path` in a child process: seconds, peak KiB, whether a limit stopped it.
fn measure(analysis: &str, path: &Path) -> (f64, u64, bool) {
    let me = std::env::current_exe().expect("this bench");
    let out = Command::new(&me)
        .args(["--child", analysis])
        .arg(path)
        .output()
        .expect("run the child");
    assert!(
        out.status.success(),
        "{analysis}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut fields = text.split_whitespace();
    let seconds = fields.next().and_then(|s| s.parse().ok()).expect("seconds");
    let peak = fields.next().and_then(|s| s.parse().ok()).expect("peak");
    let spent = fields.next() == Some("true");
    (seconds, peak, spent)
}

fn chosen<'a>(var: &str, all: &[&'a str]) -> Vec<&'a str> {
    match std::env::var(var) {
        Ok(list) => all
            .iter()
            .copied()
            .filter(|a| list.split(',').any(|l| l == *a))
            .collect(),
        Err(_) => all.to_vec(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], Path::new(&args[i + 2]));
        return;
    }
    let n: usize = std::env::var("HINDSIGHT_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000);
    let dir = std::env::temp_dir().join("hindsight-bench-shapes");
    std::fs::create_dir_all(&dir).expect("temp dir");
    for name in chosen("HINDSIGHT_BENCH_SHAPES", &SHAPES) {
        let sizes = match name {
            "nesting" => [1_000, 10_000],
            "many-variables" => [10 * n, 20 * n],
            _ => [n, 2 * n],
        };
        let paths = sizes.map(|size| {
            let path = dir.join(format!("{name}-{size}.std"));
            std::fs::write(&path, shape(name, size).expect("a shape")).expect("write the trace");
            path
        });
        for analysis in chosen("HINDSIGHT_BENCH_ANALYSES", &ANALYSES) {
            let [(t0, m0, s0), (t1, m1, s1)] = [0, 1].map(|i| measure(analysis, &paths[i]));
            let mark = |spent: bool| if spent { ">" } else { "" };
            println!(
                "{name:>18} {analysis:>9}: n={} {}{t0:.2} s {} MiB; n={} {}{t1:.2} s {} MiB; {:.1}x time {:.1}x memory",
                sizes[0],
                mark(s0),
                m0 / 1024,
                sizes[1],
                mark(s1),
                m1 / 1024,
                t1 / t0.max(1e-3),
                m1 as f64 / m0.max(1) as f64
            );
        }
    }
}
