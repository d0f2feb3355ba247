//! A limit is a limit, measured: every budgeted command, on a random input from the project's
//! generators, under a small `--memory-limit`, ends with exit status 0, 1 or 3 and a peak
//! resident memory within the limit plus a stated slack.
//!
//! The budget does not measure the process: it *accounts* for what the growing structures say
//! they hold. This file holds that accounting to what the kernel counts. Each run is measured
//! in a process of its own: this test binary, started again as the run's parent (the ignored
//! test [`measuring_parent`]), spawns `hindsight`, waits for it and reads
//! `getrusage(RUSAGE_CHILDREN)`, whose `ru_maxrss` is the peak resident memory of its one
//! child (the kernel keeps the largest child's; a parent with one child makes that the
//! child's own). `/proc/PID/status` read from outside would miss the peak of a process that
//! ends between two reads.
//!
//! The slack is stated per run: **the command's own baseline** (the same command line on a
//! small input, measured the same way in the same test run: the binary, its libraries, its
//! threads' stacks, the parse workers and their chunks, the parent's few pages a child starts
//! with; 7 to 25 MiB for the test build) **plus [`MARGIN_KIB`]** for what the budget leaves
//! out by design: the growth between two polls (a pass charges every 1024 events, or per batch
//! when pipelined), a growing vector's spare capacity, the allocator's freed but kept pages,
//! the pipelined pass's batches in flight, **plus [`READ_AHEAD_KIB`] per parse worker**: a
//! worker parses up to two 512 KiB chunks ahead of the pass, and the names those chunks
//! define are in its own tables before the pass charges them. Nothing here depends on time: no run has a timeout, and the
//! inputs are sized so that the limit binds for most commands by a wide margin, which the
//! tests assert (a limit that never binds would prove nothing).
//!
//! The inputs are drawn from a seed (`HINDSIGHT_RSS_SEED`, default 39): the generators'
//! parameters and seeds come from it, so a failure names the seed that reproduces it.
//!
//! Where a command overshoots today for a reason issue #39 item 3 names, its case is in a
//! test of its own, ignored with that reason (`cargo test --test budget_rss -- --ignored`).

#![cfg(target_os = "linux")]

mod common;

use common::{hindsight, root, temp};
use hindsight_rng::SplitMix64;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The memory limit every run is given, as the option reads it and in KiB.
const LIMIT: &str = "8M";
const LIMIT_KIB: u64 = 8 * 1024;

/// What the budget leaves out by design, on top of a command's baseline (see the file's
/// comment): 8 MiB.
const MARGIN_KIB: u64 = 8 * 1024;

/// What one parse worker may hold ahead of the pass's charge (see the file's comment): its
/// two chunks in flight and the names they define, 3 MiB. The names are the larger part on a
/// trace of many variables: a worker's copy of the short names' table (`names.rs`, `Small`)
/// holds up to 512 KiB of slots per kind of name, and 768 KiB while it grows (the old slots
/// beside the new); at 2 MiB, 300,000 variables came within 0.1 MiB of the bound under load.
const READ_AHEAD_KIB: u64 = 3 * 1024;

/// The slack of a run: [`MARGIN_KIB`] and the read-ahead of every parse worker (one per core,
/// as the CLI parses text).
fn slack_kib() -> u64 {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    MARGIN_KIB + READ_AHEAD_KIB * workers
}

/// The variable the measuring parent finds its run in: the arguments, separated by `\x1f`.
const RUN_ENV: &str = "HINDSIGHT_RSS_RUN";
/// Where the measuring parent writes the run's standard output and error.
const STDOUT_ENV: &str = "HINDSIGHT_RSS_STDOUT";
const STDERR_ENV: &str = "HINDSIGHT_RSS_STDERR";
/// What the measuring parent prints before `CODE PEAK_KIB` (on the line where libtest names
/// the test).
const MEASURED: &str = "measured: ";

/// The parent of one measured run: started by [`measure`] as this test binary again, it runs
/// `hindsight` once and prints its exit status and peak resident memory. Ignored, since it is
/// no test by itself; with no run to measure (`--include-ignored`) it does nothing.
#[test]
#[ignore = "the parent process of one measured run, started by the other tests of this file"]
fn measuring_parent() {
    let Ok(args) = std::env::var(RUN_ENV) else {
        return;
    };
    let file = |var: &str| {
        let path = std::env::var(var).expect("the measuring parent's output files");
        std::fs::File::create(path).expect("create an output file")
    };
    let status = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(args.split('\x1f'))
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(file(STDOUT_ENV))
        .stderr(file(STDERR_ENV))
        .status()
        .expect("run hindsight");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    // A run killed by a signal has no code: -1, which no assertion below accepts.
    println!(
        "{MEASURED}{} {}",
        status.code().unwrap_or(-1),
        usage.max_rss()
    );
}

/// One measured run of `hindsight`.
struct Measured {
    args: Vec<String>,
    code: i32,
    peak_kib: u64,
    stdout: String,
    stderr: String,
}

impl Measured {
    /// The limit the report says was reached (`summary.budget_spent`; `check`: of any of its
    /// reports), if it is JSON and says.
    fn spent(&self) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(&self.stdout).ok()?;
        let reports = match v["reports"].as_array() {
            Some(reports) => reports.clone(),
            None => vec![v],
        };
        reports
            .iter()
            .find_map(|r| r["summary"]["budget_spent"].as_str().map(str::to_owned))
    }
}

/// Runs `hindsight ARGS` in a parent of its own (see [`measuring_parent`]).
fn measure(args: &[String]) -> Measured {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let stdout = temp(&format!("run-{n}.out"));
    let stderr = temp(&format!("run-{n}.err"));
    let parent = Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "measuring_parent",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(RUN_ENV, args.join("\x1f"))
        .env(STDOUT_ENV, &stdout)
        .env(STDERR_ENV, &stderr)
        .stdin(Stdio::null())
        .output()
        .expect("start the measuring parent");
    let said = String::from_utf8_lossy(&parent.stdout);
    let line = said
        .lines()
        .find_map(|l| l.split_once(MEASURED).map(|(_, measure)| measure))
        .unwrap_or_else(|| {
            panic!(
                "{args:?}: the measuring parent said no measure:\n{said}\n{}",
                String::from_utf8_lossy(&parent.stderr)
            )
        });
    let mut fields = line.split_whitespace().map(|f| f.parse::<i64>());
    let (Some(Ok(code)), Some(Ok(peak))) = (fields.next(), fields.next()) else {
        panic!("{args:?}: a measure that does not parse: {line}");
    };
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let run = Measured {
        args: args.to_vec(),
        code: code as i32,
        peak_kib: peak as u64,
        stdout: read(&stdout),
        stderr: read(&stderr),
    };
    let _ = std::fs::remove_file(stdout);
    let _ = std::fs::remove_file(stderr);
    run
}

/// A budgeted command on a generated input, and the same command on a tiny bundled input: its
/// baseline.
struct Case {
    args: Vec<String>,
    baseline: Vec<String>,
}

fn case(args: &[&str], baseline: &[&str]) -> Case {
    let with_limit = |a: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        v.extend(["--memory-limit".into(), LIMIT.into()]);
        v
    };
    Case {
        args: with_limit(args),
        baseline: with_limit(baseline),
    }
}

/// What a case showed: whether the limit bound (the report says it was reached), and the exit
/// status.
struct Outcome {
    bound: bool,
    code: i32,
}

/// Runs `case`: exit 0, 1 or 3, and a peak within the limit plus the slack (its baseline and
/// [`MARGIN_KIB`]).
fn check(case: &Case) -> Outcome {
    let base = measure(&case.baseline);
    assert!(
        [0, 1, 3].contains(&base.code),
        "baseline {:?} exited {}: {}",
        base.args,
        base.code,
        base.stderr
    );
    let run = measure(&case.args);
    assert!(
        [0, 1, 3].contains(&run.code),
        "{:?} (seed {}) exited {}: {}",
        run.args,
        seed(),
        run.code,
        run.stderr
    );
    let slack = slack_kib();
    let allowed = LIMIT_KIB + base.peak_kib + slack;
    // The figures, for `--nocapture`.
    eprintln!(
        "{:?}: exit {}, peak {} KiB (baseline {} KiB), limit reached: {:?}",
        run.args,
        run.code,
        run.peak_kib,
        base.peak_kib,
        run.spent()
    );
    assert!(
        run.peak_kib <= allowed,
        "{:?} (seed {}) peaked at {} KiB, over the limit {LIMIT_KIB} KiB + its baseline {} KiB \
         + the slack {slack} KiB = {allowed} KiB; limit reached: {:?}",
        run.args,
        seed(),
        run.peak_kib,
        base.peak_kib,
        run.spent()
    );
    let bound = run.spent().is_some_and(|s| s == "memory-limit");
    if bound {
        // A reached limit is never a clean answer.
        assert_ne!(run.code, 0, "{:?}: limit reached, yet exit 0", run.args);
    }
    Outcome {
        bound,
        code: run.code,
    }
}

/// The seed the inputs are drawn from.
fn seed() -> u64 {
    std::env::var("HINDSIGHT_RSS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(39)
}

/// The generator of the inputs' parameters, one stream per input kind.
fn rng(kind: u64) -> SplitMix64 {
    SplitMix64::new(seed() ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Runs a generator to `name` (in this binary's temporary folder) and gives its path.
fn generated(name: &str, args: &[String]) -> String {
    let path = temp(name);
    let path = path.to_str().expect("utf-8 path").to_owned();
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.extend(["-o", &path]);
    let out = hindsight(&all);
    assert_eq!(out.code, 0, "{all:?}: {}", out.stderr);
    path
}

/// A random trace of 100,000 events: 4 to 8 threads over 1,000 to 3,000 variables, nested
/// locks, atomic blocks and a share of unprotected accesses (races, atomicity violations).
fn trace() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut r = rng(1);
        let args = [
            "gen".to_string(),
            "--events".into(),
            "100000".into(),
            "--threads".into(),
            (4 + r.below(5)).to_string(),
            "--vars".into(),
            (1000 + r.below(2001)).to_string(),
            "--depth".into(),
            (1 + r.below(3)).to_string(),
            "--unprotected".into(),
            format!("{:.2}", 0.1 + 0.3 * r.unit()),
            "--blocks".into(),
            format!("{:.2}", 0.05 + 0.1 * r.unit()),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("trace-{}.std", seed()), &args)
    })
}

/// A random trace for `reach`: 20,000 events of 4 to 8 threads (the loset's states grow as
/// the product of the threads' positions).
fn reach_trace() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut r = rng(2);
        let args = [
            "gen".to_string(),
            "--events".into(),
            "20000".into(),
            "--threads".into(),
            (4 + r.below(5)).to_string(),
            "--vars".into(),
            (50 + r.below(200)).to_string(),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("reach-{}.std", seed()), &args)
    })
}

/// A random poset of the ParaMount benchmarks' `w-N` family: 40 to 80 processes, 480 events,
/// far more consistent global states than the limit holds.
fn poset() -> &'static str {
    static POSET: OnceLock<String> = OnceLock::new();
    POSET.get_or_init(|| {
        let mut r = rng(3);
        let args = [
            "gen-poset".to_string(),
            format!("w-{}", 40 + r.below(41)),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("poset-{}.poset", seed()), &args)
    })
}

/// A random key-value history of 3,000 operations by 20 to 40 clients on two keys, some
/// outcomes unknown: a search whose memo outgrows the limit.
fn history() -> &'static str {
    static HISTORY: OnceLock<String> = OnceLock::new();
    HISTORY.get_or_init(|| {
        let mut r = rng(4);
        let args = [
            "gen-history".to_string(),
            "--model".into(),
            "kv".into(),
            "--clients".into(),
            (20 + r.below(21)).to_string(),
            "--ops".into(),
            "3000".into(),
            "--keys".into(),
            "2".into(),
            "--info".into(),
            "0.1".into(),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("history-{}.jsonl", seed()), &args)
    })
}

/// A random trace of 200,000 events whose accesses are calls on dictionaries over 10,000 to
/// 30,000 keys, half of them unprotected (commutativity races all along).
fn map_trace() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut r = rng(7);
        let args = [
            "gen".to_string(),
            "--events".into(),
            "200000".into(),
            "--threads".into(),
            (4 + r.below(5)).to_string(),
            "--vars".into(),
            (20 + r.below(60)).to_string(),
            "--map-keys".into(),
            (10_000 + r.below(20_001)).to_string(),
            "--unprotected".into(),
            "0.5".into(),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("map-{}.std", seed()), &args)
    })
}

/// The baseline's trace: two threads on one variable, a few of the readers' 512 KiB chunks
/// long, so that the baseline holds what parsing on every core holds whatever the input (the
/// workers, their stacks and allocator arenas, the chunks in flight) and next to nothing that
/// grows with it.
fn baseline_trace() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let args = [
            "gen",
            "--events",
            "120000",
            "--threads",
            "2",
            "--vars",
            "1",
            "--seed",
            "1",
        ];
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        generated("baseline.std", &args)
    })
}

#[test]
fn race_models_peak_within_the_limit() {
    let t = trace();
    let mut bound = 0;
    for model in ["hb", "shb", "wcp", "syncp", "osr"] {
        let o = check(&case(
            &["races", t, "--model", model, "--format", "json"],
            &[
                "races",
                baseline_trace(),
                "--model",
                model,
                "--format",
                "json",
            ],
        ));
        bound += usize::from(o.bound);
    }
    // syncp and osr keep the trace's recording: the limit binds there.
    assert!(bound >= 2, "the limit bound for {bound} race models of 5");
}

#[test]
fn trace_analyses_peak_within_the_limit() {
    let t = trace();
    let cases = [
        case(
            &["atomicity", t, "--format", "json"],
            &["atomicity", baseline_trace(), "--format", "json"],
        ),
        case(
            &["atomicity", t, "--all", "--format", "json"],
            &["atomicity", baseline_trace(), "--all", "--format", "json"],
        ),
        case(
            &["views", t, "--format", "json"],
            &["views", baseline_trace(), "--format", "json"],
        ),
        case(
            &["check", t, "--format", "json"],
            &["check", baseline_trace(), "--format", "json"],
        ),
        case(
            &[
                "commute",
                map_trace(),
                "--builtin",
                "map",
                "--format",
                "json",
            ],
            &[
                "commute",
                baseline_trace(),
                "--builtin",
                "map",
                "--format",
                "json",
            ],
        ),
    ];
    let outcomes: Vec<Outcome> = cases.iter().map(check).collect();
    let bound = outcomes.iter().filter(|o| o.bound).count();
    // atomicity's witnesses follow the profiles, few here; `--all` keeps the trace, views its
    // relation, check both, commute its access points' actions.
    assert!(bound >= 4, "the limit bound for {bound} of 5");
    assert!(
        outcomes.iter().any(|o| o.code == 3),
        "no run ended unknown (exit 3)"
    );
}

#[test]
fn state_searches_peak_within_the_limit() {
    let cases = [
        case(
            &[
                "cuts",
                poset(),
                "--count",
                "--algo",
                "bfs",
                "--format",
                "json",
            ],
            &[
                "cuts",
                "examples/cuts/fig2.poset",
                "--count",
                "--algo",
                "bfs",
                "--format",
                "json",
            ],
        ),
        case(
            &[
                "cuts",
                poset(),
                "--predicate",
                "events(P1) >= 0",
                "--all",
                "--max-states",
                "1000000",
                "--format",
                "json",
            ],
            &[
                "cuts",
                "examples/cuts/fig2.poset",
                "--predicate",
                "events(P1) >= 0",
                "--all",
                "--max-states",
                "1000000",
                "--format",
                "json",
            ],
        ),
        case(
            &["reach", reach_trace(), "--count", "--format", "json"],
            &[
                "reach",
                "examples/reach/fig1_7.txt",
                "--count",
                "--format",
                "json",
            ],
        ),
        case(
            &["lin", history(), "--format", "json"],
            &[
                "lin",
                "examples/register.jsonl",
                "--model",
                "cas-register",
                "--format",
                "json",
            ],
        ),
    ];
    let outcomes: Vec<Outcome> = cases.iter().map(check).collect();
    let unknown = outcomes.iter().filter(|o| o.bound && o.code == 3).count();
    // Each search has far more states than the limit holds, and stops unknown.
    assert_eq!(unknown, outcomes.len(), "only {unknown} searches stopped");
}

#[test]
fn passes_that_keep_nothing_peak_within_the_limit() {
    // `stats` and `convert` keep the names they meet and nothing else: the limit need not
    // bind, but it must hold.
    let t = trace();
    let out = temp(&format!("converted-{}.hst", seed()));
    let out = out.to_str().expect("utf-8 path");
    let tiny_out = temp("converted-tiny.hst");
    let tiny_out = tiny_out.to_str().expect("utf-8 path");
    check(&case(
        &["stats", t, "--format", "json"],
        &["stats", baseline_trace(), "--format", "json"],
    ));
    check(&case(
        &["convert", t, out],
        &["convert", baseline_trace(), tiny_out],
    ));
    let _ = std::fs::remove_file(out);
}

#[test]
fn composed_peaks_within_the_limit() {
    check(&case(
        &["composed", "examples/composed", "--format", "json"],
        &[
            "composed",
            "examples/composed/paper.java",
            "--format",
            "json",
        ],
    ));
}

// Overshoots today, for reasons issue #39 item 3 names; each stays here, ignored, until the
// library charges what it holds.

/// A random trace of 300,000 events over 300,000 variables, a third of the accesses
/// unprotected.
fn many_variables() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut r = rng(5);
        let args = [
            "gen".to_string(),
            "--events".into(),
            "300000".into(),
            "--threads".into(),
            (4 + r.below(5)).to_string(),
            "--vars".into(),
            "300000".into(),
            "--unprotected".into(),
            "0.3".into(),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("vars-{}.std", seed()), &args)
    })
}

#[test]
fn races_on_many_variables_peak_within_the_limit() {
    check(&case(
        &["races", many_variables(), "--format", "json"],
        &["races", baseline_trace(), "--format", "json"],
    ));
}

/// A random trace of 3,000 threads, each with atomic blocks over a few variables.
fn many_blocks() -> &'static str {
    static TRACE: OnceLock<String> = OnceLock::new();
    TRACE.get_or_init(|| {
        let mut r = rng(6);
        let args = [
            "gen".to_string(),
            "--events".into(),
            "30000".into(),
            "--threads".into(),
            (2500 + r.below(1000)).to_string(),
            "--vars".into(),
            "4".into(),
            "--blocks".into(),
            "0.3".into(),
            "--seed".into(),
            r.below(1 << 20).to_string(),
        ];
        generated(&format!("blocks-{}.std", seed()), &args)
    })
}

#[test]
fn atomicity_on_many_threads_peaks_within_the_limit() {
    check(&case(
        &["atomicity", many_blocks(), "--format", "json"],
        &["atomicity", baseline_trace(), "--format", "json"],
    ));
}

#[test]
fn composed_bounded_peaks_within_the_limit() {
    check(&case(
        &[
            "composed",
            "examples/composed",
            "--bounded",
            "--format",
            "json",
        ],
        &[
            "composed",
            "examples/composed/paper.java",
            "--format",
            "json",
        ],
    ));
}
