//! Many short threads: a server that starts a thread per request (`hindsight gen
//! --per-request 4 --threads 9`: `T0` forks and joins a thread every few events, eight in
//! flight) against the usual eight threads, the same number of events, in the same run. Each
//! streaming analysis, with its time and peak resident memory: the thread count must cost
//! memory in proportion to the threads, not to their square.
//!
//! `cargo bench -p hindsight-cli --bench threads` (events: `HINDSIGHT_BENCH_EVENTS`, default
//! 1.4 million, some 230,000 threads; `atomicity` runs on a tenth of it, see below). Every
//! measurement runs in a child process (this bench re-run with `--child`) so that its peak
//! resident memory (`VmHWM`) is its own; the child reads the binary trace, runs the analyses
//! in one pass as the command does, and renders the JSON to a sink.
//!
//! `atomicity` pairs, per variable, the witnesses of every two threads that touch it (Phase
//! II): its time grows with the square of the threads of a variable, and it runs here on a
//! tenth of the events.

use hindsight_report::{render, OutputFormat};
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace, Analysis, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, Names};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn analyses(job: &str) -> Vec<Box<dyn Analysis>> {
    let commute = || {
        let loaded = load(builtin("map").expect("shipped"), "map", false).expect("loads");
        Box::new(Commute::new(loaded.specs, Binding::All(0))) as Box<dyn Analysis>
    };
    match job {
        "stats" => Vec::new(),
        "races" => vec![Box::new(Races::new())],
        "commute" => vec![commute()],
        "atomicity" => vec![Box::new(Atomicity::new(Options::default()))],
        "views" => vec![Box::new(DynamicViews::new(Regions::Auto, true))],
        "check" => vec![
            Box::new(Races::new()),
            commute(),
            Box::new(DynamicViews::new(Regions::Auto, true)),
        ],
        other => panic!("no job {other}"),
    }
}

/// The child: one pass as the command runs it, then the JSON; prints seconds and peak KiB.
fn child(job: &str, path: &Path) {
    let started = Instant::now();
    let mut reader = hindsight_trace::open(path).expect("open");
    let analyses = analyses(job);
    let options = RunOptions {
        strict: false,
        pipeline: !analyses.is_empty() && hindsight_stream::pipeline::worthwhile(),
        lock_records: Default::default(),
    };
    let run = analyse_trace(&mut reader, "bench", analyses, options).expect("valid trace");
    for r in &run.reports {
        render(r, OutputFormat::Json, &mut std::io::sink()).expect("renders");
    }
    println!("{} {}", started.elapsed().as_secs_f64(), peak_kib());
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

/// Runs `job` on `path` in a child process: (best seconds of `runs`, largest peak KiB).
fn measure(job: &str, path: &Path, runs: usize) -> (f64, u64) {
    let me = std::env::current_exe().expect("this bench");
    let mut best = (f64::INFINITY, 0);
    for _ in 0..runs {
        let out = Command::new(&me)
            .args(["--child", job])
            .arg(path)
            .output()
            .expect("run the child");
        assert!(
            out.status.success(),
            "{job}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let mut fields = text.split_whitespace();
        let seconds: f64 = fields.next().and_then(|s| s.parse().ok()).expect("seconds");
        let peak: u64 = fields.next().and_then(|s| s.parse().ok()).expect("peak");
        best = (best.0.min(seconds), best.1.max(peak));
    }
    best
}

/// Writes the trace as binary; returns its path and its thread count.
fn write(config: &GenConfig, dir: &Path, stem: &str) -> (PathBuf, usize) {
    let path = dir.join(format!("{stem}.hst"));
    let mut b = BinaryWriter::new(BufWriter::new(File::create(&path).expect("create")))
        .expect("binary header");
    let mut names = Names::default();
    generate(config, &mut names, |e, n| b.write_event(e, n)).expect("generates");
    b.finish().expect("finish");
    (path, names.threads.len())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1], Path::new(&args[i + 2]));
        return;
    }
    let events: u64 = std::env::var("HINDSIGHT_BENCH_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_400_000);
    let dir = std::env::temp_dir().join("hindsight-bench-threads");
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Dictionary actions rather than plain accesses, so that `commute` has calls to look at;
    // the other analyses see them as the events they are.
    let usual = |events| GenConfig {
        events,
        threads: 8,
        map_keys: 64,
        seed: 7,
        ..GenConfig::default()
    };
    let requests = |events| GenConfig {
        threads: 9,
        per_request: 4,
        sites: hindsight_trace::generate::DEFAULT_SITES,
        ..usual(events)
    };
    for job in ["stats", "races", "commute", "views", "check", "atomicity"] {
        let n = if job == "atomicity" {
            events / 10
        } else {
            events
        };
        let (base, _) = write(&usual(n), &dir, &format!("usual-{n}"));
        let (many, threads) = write(&requests(n), &dir, &format!("requests-{n}"));
        let (t0, m0) = measure(job, &base, 3);
        let (t1, m1) = measure(job, &many, 3);
        println!(
            "{job:>9}, {n} events: 8 threads {t0:.2} s ({} MiB); {threads} threads {t1:.2} s ({} MiB): {:.2}x the time",
            m0 / 1024,
            m1 / 1024,
            t1 / t0
        );
    }
}
