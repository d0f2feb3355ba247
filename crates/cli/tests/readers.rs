//! RoadRunner logs and RapidBin end to end: every analysis reads them directly (sniffed),
//! `convert` turns them into the text and binary formats and says what it leaves out, round
//! trips keep the events, and bad input is a positioned error with exit status 2.

mod common;

use common::{hindsight, hindsight_stdin, json, temp};
use hindsight_trace::{Op, RapidBinWriter, RoadRunnerWriter, Trace};
use std::io::Cursor;

const FIXTURES: &str = "crates/trace/tests/fixtures/readers";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn read_trace(path: &str) -> Trace {
    let path = common::root().join(path);
    let mut reader = hindsight_trace::open(&path).expect("open");
    Trace::collect(&mut reader).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(t: &Trace) -> Vec<String> {
    t.events
        .iter()
        .map(|e| {
            let mut s = format!("{}|{}", t.names.thread(e.thread), e.display_op(&t.names));
            if let Some(l) = e.loc {
                s.push('|');
                s.push_str(t.names.location(l));
            }
            s
        })
        .collect()
}

fn path_arg(p: &std::path::Path) -> String {
    p.to_str().expect("utf-8 path").to_owned()
}

/// A generated trace in the text format, with blocks, and read back.
fn generated(seed: u64) -> (String, Trace) {
    let std = path_arg(&temp(&format!("gen-{seed}.std")));
    let seed = seed.to_string();
    let run = hindsight(&[
        "gen",
        "--events",
        "3000",
        "--threads",
        "4",
        "--blocks",
        "0.1",
        "--seed",
        &seed,
        "-o",
        &std,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let trace = read_trace(&std);
    (std, trace)
}

#[test]
fn analyses_read_both_formats_directly() {
    let (code, v) = json(&["races", &fixture("test.rr")]);
    assert_eq!(code, 1);
    assert_eq!(v["trace"]["format"], "roadrunner");
    assert_eq!(v["findings"].as_array().unwrap().len(), 1);
    assert_eq!(v["findings"][0]["variable"], "null.test/Test.x_I");
    for (name, events) in [("wasmgrind.rapidbin", 9), ("blocks.rapidbin", 8)] {
        let (code, v) = json(&["stats", &fixture(name)]);
        assert_eq!(code, 0, "{name}");
        assert_eq!(v["format"], "rapidbin", "{name}");
        assert_eq!(v["events"], events, "{name}");
        let (code, _) = json(&[
            "check",
            &fixture(name),
            "--analyses",
            "races,atomicity,views",
        ]);
        assert_eq!(code, 0, "{name}");
    }
    let (code, v) = json(&["atomicity", &fixture("test.rr")]);
    assert!(code <= 1, "{v}");
}

#[test]
fn rr_exclude_applies_to_every_command() {
    let (_, all) = json(&["stats", &fixture("test.rr")]);
    let (_, some) = json(&[
        "stats",
        &fixture("test.rr"),
        "--rr-exclude",
        &fixture("test.exclude"),
    ]);
    assert_eq!(all["events"], 13);
    assert_eq!(some["events"], 11);
    let run = hindsight(&["stats", &fixture("test.rr"), "--rr-exclude", "no/such/file"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no/such/file"), "{}", run.stderr);
}

#[test]
fn convert_reads_both_formats_and_says_what_it_leaves_out() {
    let out = path_arg(&temp("blocks.std"));
    let run = hindsight(&["convert", &fixture("blocks.rapidbin"), &out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim(),
        format!(
            "{}: warning: 1 `branch` event(s) left out: hindsight has no branch operation, and a branch orders nothing",
            fixture("blocks.rapidbin")
        )
    );
    let want =
        std::fs::read_to_string(common::root().join(fixture("blocks.expected.std"))).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    // Standard input, the format named.
    let log = std::fs::read(common::root().join(fixture("test.rr"))).unwrap();
    let run = hindsight_stdin(
        &["convert", "-", "-", "--from", "rr", "--to", "std"],
        Some(&log),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let want = std::fs::read_to_string(common::root().join(fixture("test.expected.std"))).unwrap();
    assert_eq!(run.stdout, want);
    assert_eq!(run.stderr, "");
    // `--from` wins over the content: the log read as STD is an error at its first line.
    let run = hindsight(&["convert", &fixture("test.rr"), "-", "--from", "std"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with(&format!("{}:1:", fixture("test.rr"))),
        "{}",
        run.stderr
    );
}

#[test]
fn rapidbin_round_trips_through_convert() {
    for seed in [1, 2] {
        let (std, trace) = generated(seed);
        let bin = temp(&format!("gen-{seed}.rapidbin"));
        let mut w = RapidBinWriter::new(Cursor::new(Vec::new())).unwrap();
        for e in &trace.events {
            w.write_event(e).unwrap();
        }
        std::fs::write(&bin, w.finish(&trace.names).unwrap().into_inner()).unwrap();
        let bin = path_arg(&bin);
        // To `.hst` (named by the extension) and back to text.
        let hst = path_arg(&temp(&format!("gen-{seed}.hst")));
        let back = path_arg(&temp(&format!("gen-{seed}.back.std")));
        assert_eq!(hindsight(&["convert", &bin, &hst]).code, 0);
        assert_eq!(hindsight(&["convert", &hst, &back, "--to", "std"]).code, 0);
        let want: Vec<String> = trace
            .events
            .iter()
            .map(|e| {
                let op = match e.op {
                    Op::Read(x) => format!("r(V{})", x.0),
                    Op::Write(x) => format!("w(V{})", x.0),
                    Op::Acquire(l) => format!("acq(L{})", l.0),
                    Op::Release(l) => format!("rel(L{})", l.0),
                    Op::Fork(u) => format!("fork(T{})", u.0),
                    Op::Join(u) => format!("join(T{})", u.0),
                    Op::Begin(_) => "begin".into(),
                    Op::End => "end".into(),
                    ref op => panic!("gen wrote {op:?}"),
                };
                let loc = e.loc.map_or(0, |l| l.0 + 1);
                format!("T{}|{op}|{loc}", e.thread.0)
            })
            .collect();
        assert_eq!(lines(&read_trace(&back)), want, "seed {seed}");
        // The same races from the RapidBin file and from the original, up to the names.
        let (code_bin, races_bin) = json(&["races", &bin]);
        let (code_std, races_std) = json(&["races", &std]);
        assert_eq!(code_bin, code_std, "seed {seed}");
        assert_eq!(races_bin["summary"], races_std["summary"], "seed {seed}");
    }
}

#[test]
fn roadrunner_round_trips_through_convert() {
    for seed in [3, 4] {
        let (std, trace) = generated(seed);
        let rr = temp(&format!("gen-{seed}.rr"));
        let mut w = RoadRunnerWriter::new(Vec::new());
        let mut written = Vec::new();
        for e in &trace.events {
            // A generated block has no label, and a RoadRunner block is a method: blocks stay
            // out of this round trip (the trace crate's tests cover labelled ones).
            let mut e = e.clone();
            if matches!(e.op, Op::Begin(_) | Op::End) {
                continue;
            }
            if w.write_event(&e, &trace.names).unwrap() {
                if !matches!(e.op, Op::Read(_) | Op::Write(_)) {
                    e.loc = None;
                }
                written.push(e);
            }
        }
        std::fs::write(&rr, w.finish().unwrap()).unwrap();
        let rr = path_arg(&rr);
        let back = path_arg(&temp(&format!("gen-{seed}.rr.std")));
        let run = hindsight(&["convert", &rr, &back]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let want = lines(&Trace {
            names: trace.names.clone(),
            events: written,
        });
        assert_eq!(lines(&read_trace(&back)), want, "seed {seed}");
        let (_, from_rr) = json(&["races", &rr]);
        let (_, from_std) = json(&["races", &std]);
        assert_eq!(from_rr["summary"], from_std["summary"], "seed {seed}");
    }
}

fn bad_input(name: &str, bytes: &[u8], position: &str, message: &str) {
    let path = temp(name);
    std::fs::write(&path, bytes).unwrap();
    let p = path_arg(&path);
    for args in [vec!["races", p.as_str()], vec!["convert", p.as_str(), "-"]] {
        let run = hindsight(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        let want = format!("{p}{position}: error: {message}");
        assert!(
            run.stderr.starts_with(&want),
            "{args:?}:\n{}\nshould start with\n{want}",
            run.stderr
        );
    }
}

fn header(threads: u16, locks: u32, vars: u32, events: u64) -> Vec<u8> {
    let mut h = threads.to_be_bytes().to_vec();
    h.extend(locks.to_be_bytes());
    h.extend(vars.to_be_bytes());
    h.extend(events.to_be_bytes());
    h
}

#[test]
fn bad_input_is_a_positioned_error_with_status_2() {
    let read = |v: u64| (2u64 << 10 | v << 14 | 1 << 48).to_be_bytes();
    let mut truncated = header(1, 0, 1, 2);
    truncated.extend(read(0));
    truncated.extend(&read(0)[..5]);
    bad_input(
        "truncated.rapidbin",
        &truncated,
        ": byte 26",
        "truncated binary trace: event 1 is cut after 5 of its 8 bytes",
    );
    let mut short = header(1, 0, 1, 3);
    short.extend(read(0));
    bad_input(
        "count.rapidbin",
        &short,
        ": byte 26",
        "truncated binary trace: the header declares 3 events, the file ends after 1",
    );
    let mut unknown = header(1, 0, 1, 1);
    unknown.extend((12u64 << 10).to_be_bytes());
    bad_input(
        "op.rapidbin",
        &unknown,
        ": byte 18",
        "corrupt binary trace: event 0: unknown operation code 12",
    );
    let mut range = header(1, 0, 1, 2);
    range.extend(read(0));
    range.extend(read(1));
    bad_input(
        "range.rapidbin",
        &range,
        ": byte 26",
        "corrupt binary trace: event 1: variable V1 is one more than the 1 the header declares",
    );
    bad_input(
        "line.rr",
        b"[main: RoadRunner Agent Loaded.]\n@  Start(0,1)\n@   Rd(1,x)  null\n",
        ":3",
        "bad syntax: an access needs a location",
    );
}
