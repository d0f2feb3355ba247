//! What the tests of hindsight-record share: recording one function into a file (one recording
//! at a time: the recorder is process-wide), loading the trace back, and running analyses on
//! it through the `hindsight-stream` library.

#![allow(dead_code)]

use hindsight_record::Recorder;
use hindsight_report::Finding;
use hindsight_stream::atomicity::{Atomicity, Options as AtomicityOptions};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::{compile_file, spec, Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{run_any, Analysis, RunOptions};
use hindsight_trace::{Event, Names, Op, Trace};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

static ONE_RECORDING: Mutex<()> = Mutex::new(());

/// Held by every test of a binary: traced types used by one test while another records
/// would land in that test's trace.
pub fn exclusive() -> MutexGuard<'static, ()> {
    ONE_RECORDING.lock().unwrap_or_else(PoisonError::into_inner)
}

pub fn trace_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("record-{name}.hst"))
}

/// Runs `f` while recording to `trace_path(name)`; the caller holds [`exclusive`].
pub fn record<T>(name: &str, f: impl FnOnce() -> T) -> (T, PathBuf) {
    let path = trace_path(name);
    let recorder = Recorder::start(&path).expect("can record");
    let out = f();
    let summary = recorder.finish().expect("trace written");
    assert_eq!(summary.path, path);
    (out, path)
}

/// The trace, read back and validated strictly (no warning of any kind).
pub fn load(path: &Path) -> Trace {
    let mut src = hindsight_trace::open(path).expect("opens");
    run_any(
        &mut src,
        Vec::new(),
        RunOptions {
            strict: true,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut src = hindsight_trace::open(path).expect("opens");
    Trace::collect(&mut src).expect("reads")
}

pub fn analyse(path: &Path, analysis: Box<dyn Analysis>) -> Vec<Finding> {
    let mut src = hindsight_trace::open(path).expect("opens");
    let mut outcome = run_any(
        &mut src,
        vec![analysis],
        RunOptions {
            strict: true,
            ..RunOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    outcome.outputs.remove(0).1.findings
}

pub fn races(path: &Path) -> Vec<Finding> {
    analyse(
        path,
        Box::new(Races::with_granularity(Granularity::EveryEvent)),
    )
}

/// `races` on the trace with every atomic access made a plain one (`aload` a read, `astore` a
/// write, `rmw` both): atomics never race, so this is how a test asks whether the recorded
/// edges alone order accesses that a program made with relaxed atomics.
pub fn races_atomics_lowered(path: &Path) -> Vec<Finding> {
    let trace = load(path);
    let mut events = Vec::with_capacity(trace.events.len());
    for e in &trace.events {
        let mut plain = |op| {
            let mut p = e.clone();
            p.op = op;
            p.index = events.len() as u64;
            events.push(p);
        };
        match e.op {
            Op::AtomicLoad(x) => plain(Op::Read(x)),
            Op::AtomicStore(x) => plain(Op::Write(x)),
            Op::AtomicRmw(x) => {
                plain(Op::Read(x));
                plain(Op::Write(x));
            }
            ref op => plain(op.clone()),
        }
    }
    let lowered = path.with_extension("lowered.hst");
    let mut w =
        hindsight_trace::BinaryWriter::new(std::fs::File::create(&lowered).unwrap()).unwrap();
    for e in &events {
        w.write_event(e, &trace.names).unwrap();
    }
    w.finish().unwrap();
    races(&lowered)
}

/// `hindsight commute --builtin NAME`.
pub fn commute(path: &Path, spec_name: &str) -> Vec<Finding> {
    let text = builtin(spec_name).expect("shipped spec");
    let specs = compile_file(spec::parse(text).expect("parses"), false).expect("compiles");
    analyse(
        path,
        Box::new(Commute::new(specs, Binding::All(0)).with_granularity(Granularity::EveryEvent)),
    )
}

/// The operations of thread `name`, as the text format writes them.
pub fn ops_of(trace: &Trace, name: &str) -> Vec<String> {
    trace
        .events
        .iter()
        .filter(|e| trace.names.thread(e.thread) == name)
        .map(|e| e.display_op(&trace.names).to_string())
        .collect()
}

/// Every thread's operations, split into its `begin`..`end` blocks.
pub fn blocks(trace: &Trace) -> Vec<(String, Vec<String>)> {
    let mut open: Vec<Option<Vec<String>>> = vec![None; trace.names.threads.len()];
    let mut out = Vec::new();
    for e in &trace.events {
        let t = e.thread.index();
        match &e.op {
            Op::Begin(_) => open[t] = Some(Vec::new()),
            Op::End => out.push((
                trace.names.thread(e.thread).to_owned(),
                open[t].take().expect("begin before end"),
            )),
            _ => {
                if let Some(b) = open[t].as_mut() {
                    b.push(e.display_op(&trace.names).to_string());
                }
            }
        }
    }
    out
}

/// Every thread's outermost `acq(l)`..`rel(l)` regions of lock `lock`, as the accesses in them.
pub fn lock_regions(trace: &Trace, lock: &str) -> Vec<(String, Vec<String>)> {
    let mut open: Vec<Option<Vec<String>>> = vec![None; trace.names.threads.len()];
    let mut out = Vec::new();
    let is = |names: &Names, l| names.lock(l) == lock;
    for e in &trace.events {
        let t = e.thread.index();
        match &e.op {
            Op::Acquire(l) if is(&trace.names, *l) => open[t] = Some(Vec::new()),
            Op::Release(l) if is(&trace.names, *l) => out.push((
                trace.names.thread(e.thread).to_owned(),
                open[t].take().expect("acq before rel"),
            )),
            Op::Read(_) | Op::Write(_) => {
                if let Some(r) = open[t].as_mut() {
                    r.push(e.display_op(&trace.names).to_string());
                }
            }
            _ => {}
        }
    }
    out
}

pub fn count(trace: &Trace, pred: impl Fn(&Event) -> bool) -> usize {
    trace.events.iter().filter(|e| pred(e)).count()
}

/// `hindsight atomicity TRACE`.
pub fn atomicity(path: &Path) -> Vec<Finding> {
    analyse(path, Box::new(Atomicity::new(AtomicityOptions::default())))
}

/// `hindsight views TRACE` (regions chosen as by default, with the may-happen-in-parallel
/// filter).
pub fn views(path: &Path) -> Vec<Finding> {
    analyse(path, Box::new(DynamicViews::new(Regions::Auto, true)))
}

pub fn names_of(findings: &[Finding], field: &str) -> Vec<String> {
    let mut v: Vec<String> = findings
        .iter()
        .filter_map(|f| {
            f.fields
                .get(field)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        })
        .collect();
    v.sort();
    v.dedup();
    v
}
