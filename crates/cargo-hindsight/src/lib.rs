//! `cargo hindsight`: builds a Rust package with `hindsight-record`'s `record` feature, runs
//! its program (`run`) or each of its tests in a process of its own (`test`), each run
//! recording its own trace (the recorder writes to the path in `HINDSIGHT_TRACE`), checks each
//! trace with every trace analysis that needs no specification (`races`, `atomicity`, `views`)
//! in one pass through `hindsight_stream::analyse_trace`, the entry point of `hindsight check`,
//! and gathers the findings per program or test, across `--repeat` runs.
//!
//! It owns how a package becomes runs and traces (cargo's JSON messages, libtest's `--list`,
//! one process per test) and which analyses check a recorded trace, with what options. It
//! knows nothing of how an analysis works, and prints nothing: `main.rs` renders the
//! [`Unit`]s it gets back.
//!
//! One meaning of `atomic_block`: a block says the code in it *should* be atomic, which
//! `atomicity` checks; `views` takes the program's lock regions, what the program really runs
//! atomically, and ignores blocks (`Regions::Locks`), so that declaring an intent never hides
//! what the locks do.

use hindsight_report::{Finding, Report};
use hindsight_stream::atomicity::{Atomicity, Options as AtomicityOptions};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace, Analysis, RunOptions, TraceRun};
use serde_json::Value;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What to build and run.
#[derive(Clone, Debug)]
pub enum Target {
    /// The package's binary (`--bin`, or its only one) with these arguments.
    Run {
        bin: Option<String>,
        args: Vec<OsString>,
    },
    /// Each test whose name contains the filter (all without one), in a process of its own.
    Test { filter: Option<String> },
}

#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// `--manifest-path` and `--package` for cargo.
    pub manifest_path: Option<PathBuf>,
    pub package: Option<String>,
    /// Runs per program or test: each run is a schedule of its own.
    pub repeat: u32,
    /// The cargo to run (`$CARGO` when cargo runs us).
    pub cargo: OsString,
}

/// Why nothing could be checked.
#[derive(Debug)]
pub enum Error {
    /// Cargo failed (its own output already went to standard error).
    Build(String),
    /// A process could not be started or its output not understood.
    Io(String),
    /// `run` without `--bin` on a package of several binaries, or none.
    Bin(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Build(m) | Error::Io(m) | Error::Bin(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// One run of a program or test.
pub struct RunResult {
    pub trace: PathBuf,
    /// Whether the program or test succeeded, and its output when it did not.
    pub passed: bool,
    pub output: String,
    /// The check of the trace; an error when there is no trace or it cannot be read.
    pub check: Result<TraceRun, String>,
}

/// A program or test and its runs.
pub struct Unit {
    pub name: String,
    pub runs: Vec<RunResult>,
}

/// A finding seen in some runs of a unit, shown once.
#[derive(Debug)]
pub struct Seen {
    pub analysis: String,
    pub finding: Finding,
    /// In how many runs it was found.
    pub runs: u32,
}

impl Unit {
    /// The distinct findings of all runs, in the order of their first appearance; a finding
    /// is the same in two runs when its kind, message and events' threads, operations and
    /// locations are, in any order (event indices and order differ from run to run).
    pub fn findings(&self) -> Vec<Seen> {
        let mut seen: Vec<Seen> = Vec::new();
        for run in &self.runs {
            let Ok(check) = &run.check else { continue };
            for report in &check.reports {
                for f in &report.findings {
                    match seen
                        .iter_mut()
                        .find(|s| s.analysis == report.analysis && same(&s.finding, f))
                    {
                        Some(s) => s.runs += 1,
                        None => seen.push(Seen {
                            analysis: report.analysis.clone(),
                            finding: f.clone(),
                            runs: 1,
                        }),
                    }
                }
            }
        }
        seen
    }

    /// The findings as one report per analysis, for the text renderer.
    pub fn reports(&self) -> Vec<Report> {
        let mut reports: Vec<Report> = Vec::new();
        for s in self.findings() {
            let i = match reports.iter().position(|r| r.analysis == s.analysis) {
                Some(i) => i,
                None => {
                    reports.push(Report::new(&s.analysis));
                    reports.len() - 1
                }
            };
            reports[i]
                .summary
                .insert("runs".into(), Value::from(self.runs.len()));
            let mut f = s.finding;
            if self.runs.len() > 1 {
                f.message = format!("{} (in {} of {} runs)", f.message, s.runs, self.runs.len());
            }
            reports[i].findings.push(f);
        }
        reports
    }

    /// Warnings about the traces, once each whichever runs they come from (without the
    /// trace's name): the pass's, with the library's for a trace of several threads with no
    /// variable and no call (the data was not wrapped).
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for run in &self.runs {
            let Ok(check) = &run.check else { continue };
            let prefix = format!("{}: ", run.trace.display());
            let lines = check.warnings.iter().map(|w| {
                w.strip_prefix(&prefix)
                    .map_or_else(|| w.clone(), str::to_owned)
            });
            for w in lines {
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
        out
    }
}

fn same(a: &Finding, b: &Finding) -> bool {
    a.kind == b.kind && a.message == b.message && shape(a) == shape(b)
}

/// A finding's events as threads, operations and locations, sorted: another schedule lists the
/// same events in another order (a write of the other thread first, say).
fn shape(f: &Finding) -> Vec<(&str, &str, Option<&str>)> {
    let mut events: Vec<_> = f
        .events
        .iter()
        .map(|e| (e.thread.as_str(), e.op.as_str(), e.location.as_deref()))
        .collect();
    events.sort_unstable();
    events
}

/// The analyses of a recorded trace, in the order their findings are shown.
pub fn analyses() -> Vec<Box<dyn Analysis>> {
    vec![
        Box::new(Races::with_granularity(Granularity::Grouped)),
        Box::new(Atomicity::new(AtomicityOptions {
            all: false,
            schedule: false,
            ignore_non_nested: false,
            granularity: Granularity::Grouped,
        })),
        Box::new(DynamicViews::new(Regions::Locks, true)),
    ]
}

/// Checks one trace with [`analyses`].
pub fn check(trace: &Path) -> Result<TraceRun, String> {
    let name = trace.display().to_string();
    let mut reader = hindsight_trace::open(trace).map_err(|e| format!("{name}: {e}"))?;
    analyse_trace(&mut reader, &name, analyses(), RunOptions::default()).map_err(|d| d.to_string())
}

/// The exit status: 1 if any run has findings, else 2 if a run could not be checked or
/// failed, else 0.
pub fn exit_code(units: &[Unit]) -> u8 {
    let runs = || units.iter().flat_map(|u| &u.runs);
    if runs().any(|r| {
        r.check
            .as_ref()
            .is_ok_and(|c| c.reports.iter().any(|rep| !rep.findings.is_empty()))
    }) {
        1
    } else if runs().any(|r| r.check.is_err() || !r.passed) {
        2
    } else {
        0
    }
}

/// Builds, runs and checks what `options` says.
pub fn hindsight(options: &Options) -> Result<Vec<Unit>, Error> {
    let target_dir = target_directory(options)?;
    let out = target_dir.join("hindsight");
    std::fs::create_dir_all(&out)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", out.display())))?;
    match &options.target {
        Target::Run { bin, args } => {
            let exe = build_bin(options, bin.as_deref())?;
            let stem = file_stem(&exe);
            let unit = run_unit(options, &stem, &out.join(&stem), |trace| {
                let mut c = Command::new(&exe);
                c.args(args).env("HINDSIGHT_TRACE", trace);
                c
            })?;
            Ok(vec![unit])
        }
        Target::Test { filter } => {
            let mut units = Vec::new();
            for exe in build_tests(options)? {
                let stem = file_stem(&exe);
                for test in list_tests(&exe)? {
                    if filter.as_deref().is_some_and(|f| !test.contains(f)) {
                        continue;
                    }
                    let base = out.join(&stem).join(sanitize(&test));
                    units.push(run_unit(options, &test, &base, |trace| {
                        let mut c = Command::new(&exe);
                        c.args(["--exact", &test, "--test-threads=1", "--quiet"])
                            .env("HINDSIGHT_TRACE", trace);
                        c
                    })?);
                }
            }
            Ok(units)
        }
    }
}

/// Runs `command(trace)` `options.repeat` times, each with the trace `base.K.hst`.
fn run_unit(
    options: &Options,
    name: &str,
    base: &Path,
    command: impl Fn(&Path) -> Command,
) -> Result<Unit, Error> {
    if let Some(dir) = base.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut runs = Vec::new();
    for k in 1..=options.repeat.max(1) {
        let trace = PathBuf::from(format!("{}.{k}.hst", base.display()));
        // A trace left by an earlier run must not pass for this one's.
        let _ = std::fs::remove_file(&trace);
        let output = command(&trace)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error::Io(format!("cannot run {name}: {e}")))?;
        let passed = output.status.success();
        let text = if passed {
            String::new()
        } else {
            let mut t = String::from_utf8_lossy(&output.stdout).into_owned();
            t.push_str(&String::from_utf8_lossy(&output.stderr));
            t
        };
        let check = if trace.exists() {
            check(&trace)
        } else {
            Err(format!(
                "{}: no trace written: does {name} start recording with \
                 `let _trace = hindsight_record::init();`, and does the package enable \
                 hindsight-record's `record` feature through `cargo hindsight`?",
                trace.display()
            ))
        };
        runs.push(RunResult {
            trace,
            passed,
            output: text,
            check,
        });
    }
    Ok(Unit {
        name: name.to_owned(),
        runs,
    })
}

fn file_stem(exe: &Path) -> String {
    exe.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".to_owned())
}

/// A test name as a file name: `::` and anything unusual become `_`.
fn sanitize(test: &str) -> String {
    test.replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn cargo(options: &Options, subcommand: &str) -> Command {
    let mut c = Command::new(&options.cargo);
    c.arg(subcommand);
    if let Some(m) = &options.manifest_path {
        c.arg("--manifest-path").arg(m);
    }
    c
}

fn package_args(options: &Options, c: &mut Command) {
    if let Some(p) = &options.package {
        c.args(["--package", p]);
    }
    // Enables the optional dependency too, if it is one (see docs/record.md, "cargo hindsight").
    c.args(["--features", "hindsight-record/record"]);
}

fn target_directory(options: &Options) -> Result<PathBuf, Error> {
    let mut c = cargo(options, "metadata");
    c.args(["--format-version", "1", "--no-deps"]);
    let out = c
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Io(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(Error::Build("cargo metadata failed".to_owned()));
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::Io(format!("cannot read cargo metadata: {e}")))?;
    v.get("target_directory")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| Error::Io("cargo metadata names no target directory".to_owned()))
}

/// The executables of the artifacts a cargo build reports, with whether each is a test.
fn build(options: &Options, mut c: Command) -> Result<Vec<(PathBuf, bool, String)>, Error> {
    c.arg("--message-format=json-render-diagnostics");
    package_args(options, &mut c);
    let out = c
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Io(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(Error::Build(
            "the build failed (cargo's messages are above)".to_owned(),
        ));
    }
    let mut exes = Vec::new();
    for line in out.stdout.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v.get("reason").and_then(Value::as_str) != Some("compiler-artifact") {
            continue;
        }
        let Some(exe) = v.get("executable").and_then(Value::as_str) else {
            continue;
        };
        let test = v
            .pointer("/profile/test")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let name = v
            .pointer("/target/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        exes.push((PathBuf::from(exe), test, name));
    }
    Ok(exes)
}

fn build_bin(options: &Options, bin: Option<&str>) -> Result<PathBuf, Error> {
    let mut c = cargo(options, "build");
    match bin {
        Some(b) => c.args(["--bin", b]),
        None => c.arg("--bins"),
    };
    let bins: Vec<(PathBuf, String)> = build(options, c)?
        .into_iter()
        .filter(|(_, test, _)| !test)
        .map(|(exe, _, name)| (exe, name))
        .collect();
    match bins.as_slice() {
        [(exe, _)] => Ok(exe.clone()),
        [] => Err(Error::Bin("the package has no binary to run".to_owned())),
        _ => Err(Error::Bin(format!(
            "the package has several binaries ({}): say which with --bin",
            bins.iter()
                .map(|(_, n)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn build_tests(options: &Options) -> Result<Vec<PathBuf>, Error> {
    let mut c = cargo(options, "test");
    c.arg("--no-run");
    Ok(build(options, c)?
        .into_iter()
        .filter(|(_, test, _)| *test)
        .map(|(exe, _, _)| exe)
        .collect())
}

/// The tests of a libtest binary (`--list --format terse`: `NAME: test` lines).
fn list_tests(exe: &Path) -> Result<Vec<String>, Error> {
    let out = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| Error::Io(format!("cannot run {}: {e}", exe.display())))?;
    if !out.status.success() {
        return Err(Error::Io(format!(
            "{} cannot list its tests",
            exe.display()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_report::EventRef;

    fn finding(events: &[(&str, &str, &str)]) -> Finding {
        Finding {
            kind: "stale-value".into(),
            message: "main.1 may write back a stale value".into(),
            occurrences: None,
            events: events
                .iter()
                .enumerate()
                .map(|(i, &(thread, op, at))| EventRef {
                    index: i as u64 * 3,
                    thread: thread.into(),
                    op: op.into(),
                    location: Some(at.into()),
                })
                .collect(),
            fields: Default::default(),
            group: None,
        }
    }

    /// The two schedules of `two_withdrawals`: the other thread's write first or last.
    #[test]
    fn a_finding_is_the_same_whatever_order_its_events_come_in() {
        let (r, w, other) = (
            ("main.1", "r(x)", "lib.rs:23"),
            ("main.1", "w(x)", "lib.rs:30"),
            ("main.2", "w(x)", "lib.rs:30"),
        );
        assert!(same(&finding(&[r, w, other]), &finding(&[other, r, w])));
        let elsewhere = ("main.2", "w(x)", "lib.rs:31");
        assert!(!same(
            &finding(&[r, w, other]),
            &finding(&[elsewhere, r, w])
        ));
        assert!(!same(&finding(&[r, w, other]), &finding(&[r, w])));
    }
}
