//! What reporting costs: `races` and `commute` reporting grouped findings as JSON, against
//! `stats` (reading, validating, happens-before, no analysis) on the same file in the same run,
//! with each run's peak memory; and, for scale, the same analyses reporting every racy event.
//!
//! `cargo bench -p hindsight-cli --bench findings` (events: `HINDSIGHT_BENCH_EVENTS`, default
//! 10 million). Two generated traces, each written as text and as binary:
//! - `races`: `hindsight gen --events N --threads 8 --seed 7` (racy accesses repeat at a few
//!   pairs of source locations, as in real programs);
//! - `commute`: a dictionary workload of about `0.73 N` actions with every access unprotected
//!   over 7 keys, so that about 40% of the actions race.
//!
//! Every measurement runs in a child process (this bench re-run with `--child`) so that its
//! peak resident memory (`VmHWM`) is its own; the child does what the command does: one pass,
//! then the JSON rendered (to a sink: printing is not what is measured).

use hindsight_report::{render, OutputFormat};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::{analyse_trace, Analysis, RunOptions};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{BinaryWriter, Names, TextWriter};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What a child measures.
#[derive(Clone, Copy)]
enum Job {
    Stats,
    Races(Granularity),
    Commute(Granularity),
}

impl Job {
    fn parse(s: &str) -> Job {
        match s {
            "stats" => Job::Stats,
            "races" => Job::Races(Granularity::Grouped),
            "races-every" => Job::Races(Granularity::EveryEvent),
            "commute" => Job::Commute(Granularity::Grouped),
            "commute-every" => Job::Commute(Granularity::EveryEvent),
            other => panic!("no job {other}"),
        }
    }

    fn analyses(self) -> Vec<Box<dyn Analysis>> {
        match self {
            Job::Stats => Vec::new(),
            Job::Races(g) => vec![Box::new(Races::with_granularity(g))],
            Job::Commute(g) => {
                let loaded = load(builtin("map").expect("shipped"), "map", false).expect("loads");
                let commute = Commute::new(loaded.specs, Binding::All(0)).with_granularity(g);
                vec![Box::new(commute)]
            }
        }
    }
}

/// The child: one pass as the command runs it, then the JSON; prints seconds, peak KiB and
/// findings.
fn child(job: &str, path: &Path) {
    let job = Job::parse(job);
    let started = Instant::now();
    let mut reader = hindsight_trace::open(path).expect("open");
    let analyses = job.analyses();
    let options = RunOptions {
        strict: false,
        // As the command does: two threads when there is an analysis and a second core.
        pipeline: !analyses.is_empty() && hindsight_stream::pipeline::worthwhile(),
        lock_records: Default::default(),
    };
    let run = analyse_trace(&mut reader, "bench", analyses, options).expect("valid trace");
    let mut findings = 0;
    for r in &run.reports {
        render(r, OutputFormat::Json, &mut std::io::sink()).expect("renders");
        findings += r.findings.len();
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("{seconds} {} {findings}", peak_kib());
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

/// Runs `job` on `path` in a child process: (seconds, peak KiB, findings), best time of `runs`.
fn measure(job: &str, path: &Path, runs: usize) -> (f64, u64, u64) {
    let me = std::env::current_exe().expect("this bench");
    let mut best = (f64::INFINITY, 0, 0);
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
        let findings: u64 = fields
            .next()
            .and_then(|s| s.parse().ok())
            .expect("findings");
        if seconds < best.0 {
            best = (seconds, peak.max(best.1), findings);
        } else {
            best.1 = best.1.max(peak);
        }
    }
    best
}

fn write(config: &GenConfig, dir: &Path, stem: &str) -> [PathBuf; 2] {
    let text = dir.join(format!("{stem}.std"));
    let binary = dir.join(format!("{stem}.hst"));
    let mut t = TextWriter::new(BufWriter::new(File::create(&text).expect("create")));
    let mut b = BinaryWriter::new(BufWriter::new(File::create(&binary).expect("create")))
        .expect("binary header");
    let mut names = Names::default();
    generate(config, &mut names, |e, n| {
        t.write_event(e, n)?;
        b.write_event(e, n)
    })
    .expect("generates");
    t.finish().expect("finish");
    b.finish().expect("finish");
    [text, binary]
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
        .unwrap_or(10_000_000);
    let dir = std::env::temp_dir().join("hindsight-bench-findings");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let races_trace = GenConfig {
        events,
        threads: 8,
        seed: 7,
        ..GenConfig::default()
    };
    let commute_trace = GenConfig {
        events: events * 137 / 100,
        threads: 8,
        vars: 16,
        locks: 16,
        max_depth: 2,
        unprotected: 1.0,
        map_keys: 7,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
        seed: 7,
        ..GenConfig::default()
    };
    for (name, config, job, every) in [
        ("races", &races_trace, "races", "races-every"),
        ("commute", &commute_trace, "commute", "commute-every"),
    ] {
        let files = write(config, &dir, name);
        for path in &files {
            let kind = if path.extension().is_some_and(|e| e == "hst") {
                "binary"
            } else {
                "text"
            };
            let (stats, stats_peak, _) = measure("stats", path, 3);
            let (grouped, peak, groups) = measure(job, path, 3);
            println!(
                "{name:>7} {kind:>6}: stats {stats:.2} s ({} MiB); grouped JSON {grouped:.2} s ({} MiB, {groups} findings): {:.2}x stats",
                stats_peak / 1024,
                peak / 1024,
                grouped / stats
            );
            if std::env::var("HINDSIGHT_BENCH_EVERY").is_ok_and(|v| v != "0") {
                let (t, peak, findings) = measure(every, path, 1);
                println!(
                    "{name:>7} {kind:>6}: every racy event as JSON {t:.2} s ({} MiB, {findings} findings): {:.2}x stats",
                    peak / 1024,
                    t / stats
                );
            }
        }
    }
}
