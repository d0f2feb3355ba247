//! The pipelined driver against the sequential one: on thousands of small random traces, read
//! back from text and binary bytes, with batches of one to a few events so that every batch
//! boundary is crossed, the two return the same outcome (findings, summaries, statistics,
//! warnings, names) or the same error at the same position. Invalid traces (cut, corrupted,
//! releasing a lock not held, strict mode, lock-invalid for `atomicity`, calls the spec does not
//! declare) check that the first error in trace order wins in both.

use hindsight_order::HappensBefore;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::{compile_file, spec, Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::{
    run, run_any, run_pipelined, Analysis, AnalysisOutput, Observer, RunOptions, RunOutcome,
};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::generate::{generate, GenConfig};
use hindsight_trace::{
    AnyReader, BinaryReader, BinaryWriter, Call, ErrorKind, Event, LocId, LockId, NameKind, Names,
    ObjId, Op, SymId, TextReader, TextWriter, ThreadId, TraceError, Value,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::io::{Cursor, Read};

/// Everything a run returns, in a form that compares and prints.
#[derive(Debug, PartialEq)]
enum Seen {
    Error(String),
    Outcome {
        outputs: Vec<(&'static str, Vec<String>, String, Vec<String>)>,
        stats: String,
        warnings: Vec<String>,
        warning_counts: Vec<(&'static str, u64)>,
        names: Vec<Vec<String>>,
    },
}

fn seen(result: Result<RunOutcome, TraceError>) -> Seen {
    match result {
        Err(e) => Seen::Error(format!("{:?} {e}", e.pos)),
        Ok(o) => Seen::Outcome {
            outputs: o
                .outputs
                .iter()
                .map(|(name, out)| {
                    (
                        *name,
                        out.findings
                            .iter()
                            .map(|f| serde_json::to_string(f).expect("serializes"))
                            .collect(),
                        serde_json::Value::Object(out.summary.clone()).to_string(),
                        out.rules.iter().map(|r| format!("{r:?}")).collect(),
                    )
                })
                .collect(),
            stats: format!("{:?}", o.stats),
            warnings: o
                .warnings
                .iter()
                .map(|w| format!("{:?} {w}", w.pos))
                .collect(),
            warning_counts: o.warning_counts.clone(),
            names: NameKind::ALL
                .iter()
                .map(|&k| o.names.of(k).iter().map(str::to_owned).collect())
                .collect(),
        },
    }
}

/// Writes down every event it sees. It takes calls whole (through the default `on_call`),
/// so with two of them in a chain the pipelined driver builds a whole call for the first and
/// hands the same to the second; both must see exactly the events the sequential driver shows.
struct Echo(Vec<String>);

impl Observer for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn on_event(&mut self, e: &Event, _: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        self.0.push(format!("{e:?}"));
        Ok(())
    }
}

impl Analysis for Echo {
    fn finish(self: Box<Self>, _: &Names) -> AnalysisOutput {
        let mut out = AnalysisOutput::default();
        out.summary.insert("events".into(), self.0.into());
        out
    }
}

/// The analyses both drivers run; `atomicity` needs lock-valid traces, so lock records the
/// repair cannot put back are tolerated. With `solo`, only that one of them runs: the pipelined
/// driver hands a lone analysis whole batches (`Analysis::on_batch`), a chain each event.
fn analyses(with_atomicity: bool, solo: Option<usize>) -> Vec<Box<dyn Analysis>> {
    let specs = compile_file(
        spec::parse(builtin("map").expect("shipped")).expect("parses"),
        false,
    )
    .expect("compiles");
    let mut chain: Vec<Box<dyn Analysis>> = vec![
        Box::new(Echo(Vec::new())),
        Box::new(Races::new()),
        Box::new(Commute::new(specs, Binding::All(0)).with_granularity(Granularity::EveryEvent)),
        Box::new(Echo(Vec::new())),
    ];
    if with_atomicity {
        chain.push(Box::new(Atomicity::new(Options {
            all: true,
            schedule: false,
            ignore_non_nested: false,
            granularity: hindsight_stream::groups::Granularity::EveryEvent,
        })));
    }
    match solo {
        Some(k) => vec![chain.swap_remove(k % chain.len())],
        None => chain,
    }
}

fn reader(bytes: &[u8], binary: bool) -> AnyReader {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(bytes.to_vec()));
    if binary {
        AnyReader::Binary(BinaryReader::new(input))
    } else {
        AnyReader::Text(TextReader::new(input))
    }
}

/// Runs both drivers over `bytes`; asserts they agree and returns what they saw.
fn compare(
    bytes: &[u8],
    binary: bool,
    strict: bool,
    (atomicity, solo): (bool, Option<usize>),
    batch: usize,
) -> Seen {
    let options = RunOptions {
        strict,
        pipeline: false,
        lock_records: Default::default(),
    };
    let sequential = match reader(bytes, binary) {
        AnyReader::Text(mut r) => seen(run(&mut r, analyses(atomicity, solo), options)),
        AnyReader::Binary(mut r) => seen(run(&mut r, analyses(atomicity, solo), options)),
        _ => unreachable!("`reader` opens text or binary"),
    };
    let pipelined = seen(run_pipelined(
        &mut reader(bytes, binary),
        analyses(atomicity, solo),
        options,
        batch,
    ));
    assert_eq!(
        sequential, pipelined,
        "batch {batch}, binary {binary}, strict {strict}"
    );
    sequential
}

/// A small random trace with calls on two maps (and now and then a method the map spec does
/// not declare), locations, and optionally a release of a lock that may not be held.
fn random_trace(
    choices: &[(u8, u8, u8)],
    seeds: &[u8],
    odd: bool,
    stray_release: Option<(usize, u8, u8)>,
) -> (Names, Vec<Event>) {
    let mut trace = trace_from_choices(
        choices,
        Shape {
            odd,
            ..Shape::default()
        },
    );
    let names = &mut trace.names;
    let sym =
        |names: &mut Names, s: &str| SymId(names.symbols.intern(s.as_bytes()).expect("ascii"));
    let objects = [
        ObjId(names.objects.intern(b"m0").expect("ascii")),
        ObjId(names.objects.intern(b"m1").expect("ascii")),
    ];
    let methods = [
        sym(names, "put"),
        sym(names, "get"),
        sym(names, "size"),
        sym(names, "frob"),
    ];
    let mut k = 0usize;
    let mut next = || {
        k += 1;
        seeds[k % seeds.len()].wrapping_add((k / 5) as u8)
    };
    let value = |x: u8| match x % 4 {
        0 => Value::Nil,
        v => Value::Int(i64::from(v)),
    };
    for e in trace.events.iter_mut() {
        let s = next();
        if s % 3 == 0 {
            let loc = format!("f.c:{}", s % 7);
            e.loc = Some(LocId(
                names.locations.intern(loc.as_bytes()).expect("ascii"),
            ));
        }
        if let Op::Read(x) | Op::Write(x) = e.op {
            let s = next();
            if s % 2 == 0 {
                continue;
            }
            // One call in about forty names a method the spec lacks: an analysis error.
            let m = if s % 79 == 1 { 3 } else { (s as usize / 2) % 3 };
            let mut call = Call {
                object: objects[x.index() % 2],
                method: methods[m],
                ..Call::default()
            };
            let (args, results) = [(2, 1), (1, 1), (0, 1), (1, 0)][m];
            for _ in 0..args {
                call.args.push(value(next()));
            }
            for _ in 0..results {
                call.results.push(value(next()));
            }
            e.op = Op::Call(Box::new(call));
        }
    }
    if let Some((at, thread, lock)) = stray_release {
        let at = at % (trace.events.len() + 1);
        let t = ThreadId(u32::from(thread) % trace.names.threads.len() as u32);
        let l = LockId(u32::from(lock) % trace.names.locks.len() as u32);
        trace.events.insert(at, Event::new(0, t, Op::Release(l)));
        for (i, e) in trace.events.iter_mut().enumerate() {
            e.index = i as u64;
        }
    }
    (trace.names, trace.events)
}

fn text_bytes(names: &Names, events: &[Event]) -> Vec<u8> {
    let mut w = TextWriter::new(Vec::new());
    for e in events {
        w.write_event(e, names).expect("writes");
    }
    w.finish().expect("flushes")
}

fn binary_bytes(names: &Names, events: &[Event]) -> Vec<u8> {
    let mut w = BinaryWriter::new(Vec::new()).expect("header");
    for e in events {
        w.write_event(e, names).expect("writes");
    }
    w.finish().expect("flushes")
}

/// How a trace's bytes are spoiled before reading.
#[derive(Clone, Copy, Debug)]
enum Damage {
    None,
    Cut(usize),
    Byte(usize, u8),
}

fn damaged(mut bytes: Vec<u8>, damage: Damage) -> Vec<u8> {
    match damage {
        Damage::None => {}
        Damage::Cut(at) => bytes.truncate(at % (bytes.len() + 1)),
        Damage::Byte(at, b) if !bytes.is_empty() => {
            let at = at % bytes.len();
            bytes[at] = b;
        }
        Damage::Byte(..) => {}
    }
    bytes
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        3 => Just(Damage::None),
        1 => any::<usize>().prop_map(Damage::Cut),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Damage::Byte(at, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1200))]

    #[test]
    fn pipelined_and_sequential_drivers_agree(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..48),
        seeds in prop::collection::vec(any::<u8>(), 1..12),
        odd in any::<bool>(),
        stray_release in prop::option::weighted(0.2, any::<(usize, u8, u8)>()),
        damage in damage(),
        strict in prop::bool::weighted(0.2),
        atomicity in any::<bool>(),
        solo in prop::option::of(0usize..5),
        batch in 1usize..=4,
    ) {
        let (names, events) = random_trace(&choices, &seeds, odd, stray_release);
        for binary in [false, true] {
            let bytes = if binary {
                binary_bytes(&names, &events)
            } else {
                text_bytes(&names, &events)
            };
            compare(&damaged(bytes, damage), binary, strict, (atomicity, solo), batch);
        }
    }
}

/// The oracle above can only fail if both kinds of outcome occur: make sure the generator
/// reaches clean runs, findings, warnings and errors of each source (reader, validator,
/// analysis), lock records tolerated, with the batch boundaries in between.
#[test]
fn the_random_traces_reach_every_kind_of_outcome() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (
        prop::collection::vec(any::<(u8, u8, u8)>(), 0..48),
        prop::collection::vec(any::<u8>(), 1..12),
        any::<bool>(),
        prop::option::weighted(0.2, any::<(usize, u8, u8)>()),
        damage(),
        any::<bool>(),
    );
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..400 {
        let (choices, seeds, odd, stray, damage, atomicity) =
            strategy.new_tree(&mut runner).expect("generates").current();
        let (names, events) = random_trace(&choices, &seeds, odd, stray);
        let bytes = damaged(binary_bytes(&names, &events), damage);
        let kind = match compare(&bytes, true, false, (atomicity, None), 2) {
            Seen::Error(e) if e.contains("is not a method of") || e.contains("nested locking") => {
                "analysis"
            }
            Seen::Error(e) if e.contains("never sent") || e.contains("itself") => "validation",
            Seen::Error(e) if e.contains("truncated") || e.contains("corrupt") => "reader",
            Seen::Error(_) => "other error",
            Seen::Outcome {
                outputs, warnings, ..
            } => {
                if !warnings.is_empty() {
                    kinds.insert("warnings");
                }
                if warnings.iter().any(|w| w.contains("not protected")) {
                    kinds.insert("tolerated");
                }
                if outputs.iter().any(|o| !o.1.is_empty()) {
                    "findings"
                } else {
                    "clean"
                }
            }
        };
        kinds.insert(kind);
    }
    for k in [
        "analysis",
        "tolerated",
        "validation",
        "reader",
        "warnings",
        "findings",
        "clean",
    ] {
        assert!(kinds.contains(k), "no {k} outcome among {kinds:?}");
    }
}

/// A generated trace much longer than a batch, read from files through `run_any` as the CLI
/// does: the pipelined pass finds what the sequential one finds.
#[test]
fn run_any_pipelined_matches_sequential_on_files() {
    let dir = std::env::temp_dir().join(format!("hindsight-pipeline-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let config = GenConfig {
        events: 30_000,
        threads: 6,
        vars: 12,
        locks: 4,
        max_depth: 2,
        unprotected: 0.05,
        blocks: 0.0,
        seed: 11,
        map_keys: 8,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    };
    let text = dir.join("t.std");
    let bin = dir.join("t.hst");
    {
        let mut t = TextWriter::new(std::fs::File::create(&text).expect("create"));
        let mut b =
            BinaryWriter::new(std::fs::File::create(&bin).expect("create")).expect("header");
        let mut names = Names::default();
        generate(&config, &mut names, |e, n| {
            t.write_event(e, n)?;
            b.write_event(e, n)
        })
        .expect("writes");
        t.finish().expect("flush");
        b.finish().expect("flush");
    }
    for path in [&text, &bin] {
        let go = |pipeline: bool| {
            let mut r = hindsight_trace::open(path).expect("opens");
            seen(run_any(
                &mut r,
                analyses(false, None),
                RunOptions {
                    strict: false,
                    pipeline,
                    lock_records: Default::default(),
                },
            ))
        };
        let sequential = go(false);
        let Seen::Outcome { outputs, .. } = &sequential else {
            panic!("valid trace: {sequential:?}")
        };
        assert!(
            outputs.iter().any(|o| !o.1.is_empty()),
            "the workload races"
        );
        assert_eq!(sequential, go(true), "{}", path.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Reads the pass's happens-before for its first `reads` events, then says it no longer does
/// (`Observer::reads_happens_before`). At every event it notes how many threads the
/// happens-before it is handed knows: a count, which it may look at where a real observer
/// would read nothing, to see whether the pass still keeps its clocks.
struct Quits {
    reads: usize,
    seen: usize,
    threads: Vec<usize>,
}

impl Quits {
    fn new(reads: usize) -> Quits {
        Quits {
            reads,
            seen: 0,
            threads: Vec::new(),
        }
    }
}

impl Observer for Quits {
    fn name(&self) -> &'static str {
        "quits"
    }

    fn reads_happens_before(&self) -> bool {
        self.seen < self.reads
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        if self.seen < self.reads {
            assert!(
                hb.epoch(e.thread).clock > 0,
                "a live clock at event {}",
                e.index
            );
        }
        self.threads.push(hb.thread_count());
        self.seen += 1;
        Ok(())
    }
}

/// Once no observer reads the happens-before, both drivers free its clocks at their next
/// look (a batch, or as many events as a batch), and not before; while one observer still
/// reads it, they keep it.
#[test]
fn the_happens_before_goes_once_no_observer_reads_it() {
    let config = GenConfig {
        events: 60_000,
        threads: 6,
        vars: 12,
        locks: 4,
        max_depth: 2,
        unprotected: 0.05,
        blocks: 0.0,
        seed: 3,
        map_keys: 0,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    };
    let trace = hindsight_trace::generate::generate_trace(&config);
    let n = trace.events.len();
    let options = RunOptions::default();
    let batch = 1000;
    for pipelined in [false, true] {
        let (mut early, mut late) = (Quits::new(100), Quits::new(usize::MAX));
        for alone in [true, false] {
            let mut observers: Vec<&mut dyn Observer> = if alone {
                vec![&mut early]
            } else {
                vec![&mut early, &mut late]
            };
            let mut source = trace.source();
            if pipelined {
                hindsight_stream::observe_pipelined(&mut source, &mut observers, options, batch)
                    .expect("runs");
            } else {
                hindsight_stream::observe(&mut source, &mut observers, options).expect("runs");
            }
            drop(observers);
            let threads = std::mem::take(&mut early.threads);
            early.seen = 0;
            assert_eq!(threads.len(), n);
            // The pass looks after each batch (pipelined) or every `BATCH_EVENTS` events.
            let look = if pipelined {
                batch
            } else {
                hindsight_stream::pipeline::BATCH_EVENTS
            };
            assert!(
                threads[..look].iter().all(|&t| t > 0),
                "pipelined {pipelined}"
            );
            if alone {
                assert!(
                    threads[look..].iter().all(|&t| t == 0),
                    "pipelined {pipelined}"
                );
            } else {
                assert!(threads.iter().all(|&t| t > 0), "pipelined {pipelined}");
            }
        }
    }
}
