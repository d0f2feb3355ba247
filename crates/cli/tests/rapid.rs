//! `hindsight convert IN OUT --to rapid`: RAPID reads what it writes (by RAPID's own parsing
//! rules, reimplemented in the trace crate's tests) as the input trace less its `req` events,
//! hindsight finds the same races in both, and what RAPID cannot read is refused.

mod common;

#[path = "../../trace/tests/common/rapid_std.rs"]
mod rapid_std;

use common::{hindsight, json, root, temp, write_temp};
use hindsight_trace::{Op, Trace};
use rapid_std::{expected, parse, parse_locations, RapidEvent, Seen};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn read_trace(path: &Path) -> Trace {
    let mut reader = hindsight_trace::open(path).expect("open");
    Trace::collect(&mut reader).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether RAPID's format has the trace's every operation.
fn rapid_has_all(trace: &Trace) -> bool {
    !trace
        .events
        .iter()
        .any(|e| matches!(e.op, Op::Send(_) | Op::Receive(_) | Op::Call(_)))
}

/// Runs `convert --to rapid` on `input`; the output's path and the location map.
fn convert(input: &str, name: &str) -> (PathBuf, Vec<Option<String>>) {
    let out = temp(name);
    let out_arg = out.to_str().expect("utf-8 path");
    let run = hindsight(&["convert", input, out_arg, "--to", "rapid"]);
    assert_eq!(run.code, 0, "{input}: {}", run.stderr);
    let map = std::fs::read_to_string(format!("{out_arg}.locations")).expect("location map");
    (out, parse_locations(&map).expect("location map"))
}

/// The findings and summary of `races` on `path`, with event indices and locations passed
/// through `index` and `location`, and the exit status.
fn races(
    path: &str,
    index: impl Fn(u64) -> u64,
    location: impl Fn(&Value) -> Value,
    messages: bool,
) -> (i32, Value) {
    // Per racy event: grouping keys events without a location by their thread, and RAPID's
    // format gives them all the location `0`.
    let (code, mut v) = json(&["races", path, "--every-event"]);
    // Likewise `0` counts as one more racy location.
    v["summary"]
        .as_object_mut()
        .expect("summary")
        .remove("racy_locations");
    let findings = v["findings"].as_array_mut().expect("findings");
    for f in findings.iter_mut() {
        if !messages {
            f.as_object_mut().expect("finding").remove("message");
        }
        for e in f["events"].as_array_mut().expect("events") {
            e["index"] = Value::from(index(e["index"].as_u64().expect("index")));
            e["location"] = location(&e["location"]);
        }
    }
    (code, serde_json::json!([v["findings"], v["summary"]]))
}

/// Converts `input`, checks that RAPID reads the output as the input less its `req` events,
/// and that `races` reports the same on both.
fn check(input: &str, name: &str) {
    let trace = read_trace(&root().join(input));
    let (out, map) = convert(input, name);
    let text = std::fs::read_to_string(&out).expect("output");
    let read: Vec<Seen> = parse(&text)
        .unwrap_or_else(|e| panic!("{input}: RAPID cannot read the output: {e}"))
        .into_iter()
        .map(|RapidEvent { thread, op, loc }| {
            let loc = map
                .get(usize::try_from(loc).expect("a number of the map"))
                .unwrap_or_else(|| panic!("{input}: location {loc} is not in the map"))
                .clone();
            (thread, op, loc)
        })
        .collect();
    assert_eq!(read, expected(&trace), "{input}");

    // Event `i` of the output is event `kept[i]` of the input.
    let kept: Vec<u64> = trace
        .events
        .iter()
        .filter(|e| !matches!(e.op, Op::Request(_)))
        .map(|e| e.index)
        .collect();
    let same_indices = kept.len() == trace.events.len();
    let original = races(input, |i| i, Value::clone, same_indices);
    let from_rapid = races(
        out.to_str().expect("utf-8 path"),
        |i| kept[i as usize],
        |loc| {
            let n: usize = loc.as_str().expect("a location").parse().expect("a number");
            map[n].clone().map_or(Value::Null, Value::from)
        },
        same_indices,
    );
    assert_eq!(from_rapid, original, "{input}");
}

fn examples() -> Vec<String> {
    let mut paths = Vec::new();
    for (dir, ext) in [
        ("examples", "std"),
        ("examples/atomicity", "std"),
        ("examples/views", "std"),
        ("examples/reach", "txt"),
        ("examples/cuts", "txt"),
    ] {
        for entry in std::fs::read_dir(root().join(dir)).expect("examples") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == ext) {
                let name = path.file_name().expect("name").to_str().expect("utf-8");
                paths.push(format!("{dir}/{name}"));
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn every_example_without_messages_or_calls_is_read_by_rapid_as_it_was() {
    let mut checked = 0;
    for input in examples() {
        if rapid_has_all(&read_trace(&root().join(&input))) {
            check(&input, &input.replace('/', "_"));
            checked += 1;
        }
    }
    // bank, rapid, the ten atomicity examples, the 24 views traces, one reach trace.
    assert!(checked >= 37, "only {checked} examples checked");
}

#[test]
fn generated_traces_are_read_by_rapid_as_they_were() {
    for (seed, blocks) in [(1, "0"), (2, "0.1"), (3, "0.3")] {
        let seed = seed.to_string();
        let path = temp(&format!("gen-{seed}.std"));
        let path = path.to_str().expect("utf-8 path");
        let args = [
            "gen",
            "--events",
            "3000",
            "--threads",
            "5",
            "--vars",
            "12",
            "--blocks",
            blocks,
            "--unprotected",
            "0.1",
            "--seed",
            &seed,
            "-o",
            path,
        ];
        assert_eq!(hindsight(&args).code, 0);
        check(path, &format!("gen-{seed}.rapid"));
    }
}

#[test]
fn lock_requests_are_left_out_and_races_stay_the_same() {
    let text = std::fs::read_to_string(root().join("examples/bank.std")).expect("example");
    let with_requests: String = text
        .lines()
        .map(|line| match line.split_once("|acq(") {
            Some((thread, rest)) => {
                let lock = rest.split(')').next().expect("lock");
                format!("{thread}|req({lock})\n{line}\n")
            }
            None => format!("{line}\n"),
        })
        .collect();
    assert!(with_requests.contains("|req("));
    let input = write_temp("requests.std", &with_requests);
    check(&input, "requests.rapid");
}

/// The first line of `path` whose operation is one of `ops`.
fn first_line_with(path: &str, ops: &[&str]) -> usize {
    let text = std::fs::read_to_string(root().join(path)).expect("example");
    1 + text
        .lines()
        .position(|l| {
            !l.starts_with('#')
                && l.split('|')
                    .nth(1)
                    .is_some_and(|op| ops.iter().any(|o| op.starts_with(o)))
        })
        .expect("such a line")
}

#[test]
fn messages_and_calls_are_refused_at_their_first_line() {
    for (input, ops, why) in [
        (
            "examples/messages.txt",
            &["snd(", "rcv("][..],
            "has no messages",
        ),
        ("examples/hosts.txt", &["call("][..], "has no method calls"),
    ] {
        let out = temp("refused.std");
        let out_arg = out.to_str().expect("utf-8 path");
        std::fs::write(&out, "stale").expect("write");
        let run = hindsight(&["convert", input, out_arg, "--to", "rapid"]);
        assert_eq!(run.code, 2, "{input}");
        let line = first_line_with(input, ops);
        let want = format!("{input}:{line}: error: `");
        assert!(
            run.stderr.starts_with(&want) && run.stderr.contains(why),
            "{input}: {}",
            run.stderr
        );
        // No half trace is left to pass for the whole: what was there stays.
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "stale");
        assert!(!Path::new(&format!("{out_arg}.locations")).exists());
    }
}

#[test]
fn names_rapid_cannot_read_are_refused() {
    let input = write_temp("spaced.std", "T1|w(x)|A.java:1\nT1|w(total sum)|A.java:2\n");
    let out = temp("spaced.rapid");
    let run = hindsight(&[
        "convert",
        &input,
        out.to_str().expect("path"),
        "--to",
        "rapid",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains(":2: error: variable name \"total sum\" holds whitespace"),
        "{}",
        run.stderr
    );
}

#[test]
fn standard_output_is_refused() {
    let run = hindsight(&["convert", "examples/bank.std", "-", "--to", "rapid"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("give a file, not `-`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn binary_traces_convert_too() {
    let hst = temp("bank.hst");
    let hst = hst.to_str().expect("utf-8 path");
    assert_eq!(hindsight(&["convert", "examples/bank.std", hst]).code, 0);
    let (out, _) = convert(hst, "bank-from-binary.rapid");
    let (direct, _) = convert("examples/bank.std", "bank-direct.rapid");
    assert_eq!(
        std::fs::read_to_string(out).expect("output"),
        std::fs::read_to_string(direct).expect("output")
    );
}
