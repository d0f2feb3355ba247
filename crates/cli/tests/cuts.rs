//! `hindsight cuts` and `hindsight gen-poset` end to end: the thesis's examples, every algorithm
//! agreeing through the command line, output formats, exit statuses and bad input.

mod common;

use common::*;

use serde_json::Value;
use std::path::PathBuf;

fn json(out: &Out) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hindsight-cuts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn figure_1_1_write_write_race_in_state_a3_b2() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "race",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "data-race");
    assert_eq!(f["variable"], "x");
    assert_eq!(f["frontier"], serde_json::json!([2, 1]));
    let idx: Vec<u64> = f["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["index"].as_u64().unwrap())
        .collect();
    assert_eq!(idx, vec![2, 4], "a3 and b2");
    assert_eq!(v["findings"].as_array().unwrap().len(), 1);
}

#[test]
fn figure_1_1_has_eight_states_and_one_racy_one() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "race",
        "--full-poset",
        "--count",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v = json(&out);
    // G1..G8 of Fig. 1.2 (five events, a2 -> b1).
    assert_eq!(v["summary"]["states"], 8);
    assert_eq!(v["summary"]["satisfying"], 1);
}

#[test]
fn conjunctive_predicate_and_schedule() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "at(t1, op == w) && at(t2, op == w)",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let f = &json(&out)["findings"][0];
    assert_eq!(f["kind"], "predicate");
    // Only the writes enter the poset; the schedule is a linear extension of the cut.
    assert_eq!(f["schedule"].as_array().unwrap().len(), 2);
}

#[test]
fn elevators_algorithm_10() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/elevator.txt",
        "--predicate",
        "count(method == at by arg0, arg1) >= 3",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let f = &json(&out)["findings"][0];
    let ops: Vec<&str> = f["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, vec!["call(stop.at(3,up))"; 3]);
    // Only the down stops enter the poset, so a thread "is at" its latest down stop: e1 and e2
    // both at 5-down is a state even though e1 released the lock before e2 took it.
    let relevant_only = hindsight(&[
        "cuts",
        "examples/cuts/elevator.txt",
        "--predicate",
        "atleast(3, arg1 == down)",
    ]);
    assert_eq!(relevant_only.code, 1, "{}", relevant_only.stdout);
    // With every event in the poset, e1 is at its release by then: never three at once.
    let every = hindsight(&[
        "cuts",
        "examples/cuts/elevator.txt",
        "--predicate",
        "atleast(3, arg1 == down)",
        "--full-poset",
    ]);
    assert_eq!(every.code, 0, "{}", every.stdout);
}

#[test]
fn count_of_a_poset_file_and_every_algorithm_agrees() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig2.poset",
        "--count",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(json(&out)["summary"]["states"], 16);
    let gen = hindsight(&["gen-poset", "d-60", "--seed", "7"]);
    assert_eq!(gen.code, 0);
    let again = hindsight(&["gen-poset", "d-60", "--seed", "7"]);
    assert_eq!(gen.stdout, again.stdout, "deterministic");
    let p = temp("d60.txt", &gen.stdout);
    let p = p.to_str().unwrap();
    let mut counts = Vec::new();
    for algo in [
        &["--algo", "bfs"][..],
        &["--algo", "lex"],
        &["--algo", "quicklex"],
        &["--algo", "paramount", "--threads", "1"],
        &["--algo", "paramount", "--threads", "2"],
    ] {
        let mut args = vec!["cuts", p, "--count", "--format", "json"];
        args.extend_from_slice(algo);
        let out = hindsight(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        counts.push(json(&out)["summary"]["states"].as_u64().unwrap());
    }
    assert!(
        counts.iter().all(|&c| c == counts[0] && c > 1000),
        "{counts:?}"
    );
}

#[test]
fn all_with_limit_and_sarif() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/elevator.txt",
        "--predicate",
        "exists(method == at)",
        "--all",
        "--max-states",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let v = json(&out);
    assert_eq!(v["findings"].as_array().unwrap().len(), 3);
    assert_eq!(v["summary"]["complete"], false);
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "race",
        "--format",
        "sarif",
    ]);
    assert_eq!(out.code, 1);
    let v = json(&out);
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "data-race");
}

#[test]
fn paramount_finds_the_same_first_state_as_quicklex() {
    for pred in ["race", "at(t1, op == w) && at(t2, op == w)"] {
        let a = hindsight(&[
            "cuts",
            "examples/cuts/fig1.txt",
            "--predicate",
            pred,
            "--format",
            "json",
        ]);
        let b = hindsight(&[
            "cuts",
            "examples/cuts/fig1.txt",
            "--predicate",
            pred,
            "--algo",
            "paramount",
            "--threads",
            "2",
            "--format",
            "json",
        ]);
        assert_eq!(
            json(&a)["findings"][0]["frontier"],
            json(&b)["findings"][0]["frontier"]
        );
    }
}

#[test]
fn bad_poset_files_are_located() {
    let cases = [
        (
            "0:(1,0)\n1:(0,1,0)\n",
            ":2:1: error: the clock has 3 components",
        ),
        (
            "0:(1,0)\n0:(3,0)\n",
            ":2:1: error: event 3 of process 0 but process 0 has no event 2",
        ),
        ("0:(1,0)\n1:(0,1\n", ":2:7: error: expected `,` or `)`"),
        ("0:(1,1)\n1:(1,1)\n", "a cycle"),
        ("0:(1,2)\n1:(0,1)\n", "process 1 has only 1 events"),
        ("2:(1,0)\n", "process 2 does not exist"),
        ("0:(1,x)\n", ":1:6: error: expected a clock component"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let p = temp(&format!("bad{i}.poset"), text);
        let out = hindsight(&["cuts", p.to_str().unwrap(), "--count", "--poset"]);
        assert_eq!(out.code, 2, "{text}");
        assert!(out.stderr.contains(want), "{text}: {}", out.stderr);
    }
}

#[test]
fn bad_predicates_and_usage() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "count(op == w) >=",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("<predicate>:1:"), "{}", out.stderr);
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "count(colour == red) > 1",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("<predicate>:1:7: error: unknown field `colour`"),
        "{}",
        out.stderr
    );
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--predicate",
        "at(t9, op == w)",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no thread `t9`"), "{}", out.stderr);
    let out = hindsight(&["cuts", "examples/cuts/fig1.txt"]);
    assert_eq!(out.code, 2);
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig1.txt",
        "--count",
        "--threads",
        "2",
    ]);
    assert_eq!(out.code, 2);
    let out = hindsight(&["gen-poset", "x-3"]);
    assert_eq!(out.code, 2);
}

#[test]
fn online_counts_what_offline_counts() {
    let offline = json(&hindsight(&[
        "cuts",
        "examples/cuts/fig2.poset",
        "--count",
        "--format",
        "json",
    ]));
    for extra in [&[][..], &["--threads", "1"], &["--algo", "lex"]] {
        let mut args = vec![
            "cuts",
            "examples/cuts/fig2.poset",
            "--online",
            "--count",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = hindsight(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v = json(&out);
        assert_eq!(v["summary"]["states"], offline["summary"]["states"]);
        assert_eq!(v["summary"]["online"], true);
        assert_eq!(v["summary"]["complete"], true);
    }
    // A generated poset through standard input, large enough for several batches.
    let gen = hindsight(&["gen-poset", "d-300", "--seed", "3"]);
    assert_eq!(gen.code, 0);
    let file = temp("online-d300.poset", &gen.stdout);
    let offline = json(&hindsight(&[
        "cuts",
        file.to_str().unwrap(),
        "--count",
        "--format",
        "json",
    ]));
    let streamed = hindsight_stdin(
        &[
            "cuts", "-", "--poset", "--online", "--count", "--format", "json",
        ],
        Some(gen.stdout.as_bytes()),
    );
    assert_eq!(streamed.code, 0, "{}", streamed.stderr);
    let v = json(&streamed);
    assert_eq!(v["summary"]["states"], offline["summary"]["states"]);
    assert_eq!(v["summary"]["poset_events"], 300);
    assert!(v["summary"]["states"].as_u64().unwrap() > 10_000);
}

#[test]
fn online_first_state_stops_reading() {
    let out = hindsight(&[
        "cuts",
        "examples/cuts/fig2.poset",
        "--online",
        "--predicate",
        "true",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v = json(&out);
    assert_eq!(v["findings"][0]["frontier"], serde_json::json!([0, 0, 0]));
    assert_eq!(v["summary"]["complete"], false);
    // The first state is found after the first line, so a bad line far later is never read.
    let gen = hindsight(&["gen-poset", "d-300", "--seed", "3"]);
    let text = format!("{}0:(1,x)\n", gen.stdout);
    let first = hindsight_stdin(
        &["cuts", "-", "--poset", "--online", "--predicate", "true"],
        Some(text.as_bytes()),
    );
    assert_eq!(first.code, 1, "{}", first.stderr);
    // Counting reads on to the bad line and says where it is.
    let count = hindsight_stdin(
        &["cuts", "-", "--poset", "--online", "--count"],
        Some(text.as_bytes()),
    );
    assert_eq!(count.code, 2);
    assert!(
        count
            .stderr
            .contains("<stdin>:301:6: error: expected a clock component"),
        "{}",
        count.stderr
    );
    // --all --limit keeps the limit, and counts every satisfying state.
    let (code, v) = common::json(&[
        "cuts",
        "examples/cuts/fig2.poset",
        "--online",
        "--predicate",
        "true",
        "--all",
        "--max-states",
        "5",
    ]);
    assert_eq!(code, 1);
    assert_eq!(v["findings"].as_array().unwrap().len(), 5);
    assert_eq!(v["summary"]["satisfying"], 16);
}

#[test]
fn online_rejects_lines_out_of_clock_order_and_traces() {
    // Fine offline (any order), but online an event must follow the events it happens after.
    let text = "1:(1,1)\n0:(1,0)\n";
    let p = temp("online-order.poset", text);
    let p = p.to_str().unwrap();
    assert_eq!(hindsight(&["cuts", p, "--count"]).code, 0);
    let out = hindsight(&["cuts", p, "--count", "--online"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            ":1:1: error: component 0 is 1 but only 0 events of process 0 have been read: online"
        ),
        "{}",
        out.stderr
    );
    let out = hindsight(&["cuts", "examples/cuts/fig1.txt", "--online", "--count"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("--online reads poset files only"),
        "{}",
        out.stderr
    );
}
