//! The `hindsight` binary end to end: outputs, formats and exit statuses.

mod common;

use common::*;

use serde_json::Value;

#[test]
fn races_text_output_groups_by_variable() {
    let out = hindsight(&["races", "examples/bank.std", "--every-event"]);
    assert_eq!(out.code, 1, "findings exit 1");
    insta::assert_snapshot!(out.stdout);
    assert_eq!(out.stderr, "");
}

#[test]
fn races_json_has_the_documented_shape() {
    let out = hindsight(&["races", "examples/bank.std", "--format", "json"]);
    assert_eq!(out.code, 1);
    let v: Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    assert_eq!(v["tool"], "hindsight");
    assert_eq!(v["analysis"], "races");
    assert_eq!(v["trace"]["events"], 15);
    assert_eq!(v["trace"]["threads"], 3);
    assert_eq!(v["trace"]["variables"], 2);
    assert_eq!(v["trace"]["locks"], 1);
    assert_eq!(v["summary"]["racy_events"], 2);
    assert_eq!(v["summary"]["racy_variables"], 2);
    let findings = v["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 2);
    let f = &findings[0];
    assert_eq!(f["kind"], "data-race");
    assert_eq!(f["variable"], "balance");
    assert!(f["message"].as_str().expect("message").contains("balance"));
    assert_eq!(
        f["events"],
        serde_json::json!([
            {"index": 4, "thread": "T1", "op": "w(balance)", "location": "Bank.java:22"},
            {"index": 7, "thread": "T2", "op": "r(balance)", "location": "Bank.java:30"}
        ])
    );
}

#[test]
fn races_sarif_is_one_result_per_racy_variable() {
    let out = hindsight(&["races", "examples/bank.std", "--format", "sarif"]);
    assert_eq!(out.code, 1);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"]
        .as_str()
        .expect("schema")
        .contains("sarif-2.1.0"));
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "hindsight");
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "data-race");
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(r["ruleId"], "data-race");
        assert!(r["message"]["text"].is_string());
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "Bank.java");
        assert!(loc["region"]["startLine"].as_i64().expect("line") > 0);
        assert!(r["relatedLocations"].is_array());
    }
}

#[test]
fn sarif_keeps_non_file_locations_as_logical_locations() {
    let out = hindsight(&["races", "examples/rapid.std", "--format", "sarif"]);
    assert_eq!(out.code, 1);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let loc = &v["runs"][0]["results"][0]["locations"][0];
    assert_eq!(loc["logicalLocations"][0]["name"], "11");
}

#[test]
fn clean_trace_exits_zero() {
    let p = write_temp(
        "clean.std",
        "T0|fork(T1)|1\nT1|acq(L)|2\nT1|w(x)|3\nT1|rel(L)|4\nT0|acq(L)|5\nT0|r(x)|6\nT0|rel(L)|7\nT0|join(T1)|8\n",
    );
    let out = hindsight(&["races", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("races: 0 finding(s)"));
    let out = hindsight(&["races", &p, "--format", "json"]);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["findings"], serde_json::json!([]));
    assert_eq!(v["summary"]["racy_events"], 0);
}

#[test]
fn rapid_example_warns_and_strict_refuses() {
    let out = hindsight(&["races", "examples/rapid.std"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr.trim(),
        "examples/rapid.std:8: warning: thread `T1` is never forked"
    );
    let out = hindsight(&["races", "examples/rapid.std", "--strict"]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim(),
        "examples/rapid.std:8: error: thread `T1` is never forked (an error under --strict)"
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn bad_input_is_exit_two_with_file_and_line() {
    let cases = [
        (
            "unknown-op.std",
            "T0|w(x)|1\nT0|frob(x)|2\n",
            "unknown-op.std:2: error: unknown operation `frob`",
        ),
        (
            "syntax.std",
            "T0|w(x)|1\n\nT0 w(x)\n",
            "syntax.std:3: error: bad syntax",
        ),
        (
            "rcv.std",
            "T0|fork(T1)\nT1|rcv(m)|9\n",
            "rcv.std:2: error: T1 receives message `m`, which was never sent",
        ),
        (
            "join.std",
            "T0|w(x)\nT0|join(T9)|4\nT0|r(x)\n",
            "join.std:2: error: T0 joins thread `T9`, which never appears",
        ),
    ];
    for (name, text, expected) in cases {
        let p = write_temp(name, text);
        let out = hindsight(&["races", &p, "--format", "json"]);
        assert_eq!(out.code, 2, "{name}");
        assert_eq!(out.stdout, "", "{name}: no report on error");
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{name}: one line: {}",
            out.stderr
        );
        assert!(out.stderr.contains(expected), "{name}: {}", out.stderr);
    }
}

#[test]
fn a_release_without_acquire_is_a_warning_and_an_error_only_under_strict() {
    let p = write_temp("release.std", "T0|fork(T1)\nT0|acq(L)\nT1|rel(L)\n");
    let out = hindsight(&["races", &p]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "release.std:3: warning: T1 releases lock `L` with no acquire of it before; ignored"
        ),
        "{}",
        out.stderr
    );
    let out = hindsight(&["races", &p, "--strict"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("release.std:3: error: T1 releases lock `L`, which it does not hold"),
        "{}",
        out.stderr
    );
}

#[test]
fn missing_file_and_bad_usage_exit_two() {
    let out = hindsight(&["races", "no/such/trace.std"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no/such/trace.std: error: cannot read"),
        "{}",
        out.stderr
    );
    assert_eq!(hindsight(&["races"]).code, 2);
    assert_eq!(hindsight(&["frobnicate"]).code, 2);
    assert_eq!(
        hindsight(&["races", "examples/bank.std", "--format", "xml"]).code,
        2
    );
}

#[test]
fn truncated_binary_is_an_error() {
    let hst = temp("bank.hst");
    let out = hindsight(&["convert", "examples/bank.std", hst.to_str().expect("path")]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bytes = std::fs::read(&hst).expect("read");
    let cut = temp("cut.hst");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).expect("write");
    let out = hindsight(&["races", cut.to_str().expect("path")]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("truncated binary trace"),
        "{}",
        out.stderr
    );
}

#[test]
fn convert_round_trips_and_binary_gives_the_same_answer() {
    let hst = temp("messages.hst");
    let back = temp("messages.txt");
    let (h, b) = (hst.to_str().expect("path"), back.to_str().expect("path"));
    assert_eq!(hindsight(&["convert", "examples/messages.txt", h]).code, 0);
    assert_eq!(hindsight(&["convert", h, b]).code, 0);
    let original = hindsight(&["convert", "examples/messages.txt", "-"]).stdout;
    assert_eq!(std::fs::read_to_string(&back).expect("read"), original);
    let from_text = hindsight(&["races", "examples/messages.txt", "--format", "json"]);
    let from_binary = hindsight(&["races", h, "--format", "json"]);
    let strip = |s: &str| {
        let mut v: Value = serde_json::from_str(s).expect("JSON");
        v["trace"]
            .as_object_mut()
            .expect("trace")
            .retain(|k, _| k != "path" && k != "format");
        v
    };
    assert_eq!(strip(&from_text.stdout), strip(&from_binary.stdout));
    assert_eq!(from_text.code, 1);
}

#[test]
fn reads_standard_input() {
    let out = hindsight_stdin(
        &["races", "-", "--every-event"],
        Some(b"T0|fork(T1)\nT1|w(x)\nT0|w(x)\n"),
    );
    assert_eq!(out.code, 1);
    assert!(out
        .stdout
        .contains("write of `x` by T0 (#2) races with the earlier write by T1 (#1)"));
}

#[test]
fn gen_is_deterministic_and_valid() {
    let a = hindsight(&["gen", "--events", "500", "--threads", "3", "--seed", "7"]);
    let b = hindsight(&["gen", "--events", "500", "--threads", "3", "--seed", "7"]);
    assert_eq!(a.code, 0);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.lines().count(), 500);
    let p = temp("gen.hst");
    let p = p.to_str().expect("path");
    assert_eq!(
        hindsight(&["gen", "--events", "2000", "--seed", "3", "-o", p]).code,
        0
    );
    let out = hindsight(&["races", p, "--strict", "--format", "json"]);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["trace"]["events"], 2000);
    assert_eq!(v["trace"]["format"], "binary");
}

/// More dictionary keys than `gen` keeps is refused, not silently capped.
#[test]
fn gen_refuses_more_map_keys_than_it_keeps() {
    let ok = hindsight(&["gen", "--events", "50", "--map-keys", "65536"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let out = hindsight(&["gen", "--events", "50", "--map-keys", "65537"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("65537"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

#[test]
fn stats_counts_and_reports_warnings() {
    let out = hindsight(&["stats", "examples/rapid.std", "--format", "json"]);
    assert_eq!(out.code, 0);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["events"], 10);
    assert_eq!(v["threads"], 3);
    assert_eq!(v["warnings"].as_array().expect("warnings").len(), 1);
    let out = hindsight(&["stats", "examples/bank.std"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn commute_finds_the_duplicate_host_of_figure_3() {
    let out = hindsight(&[
        "commute",
        "examples/hosts.txt",
        "--builtin",
        "map",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["analysis"], "commute");
    assert_eq!(v["summary"]["racy_actions"], 1);
    assert_eq!(v["summary"]["actions"], 3);
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "commutativity-race");
    assert_eq!(f["object"], "o");
    assert_eq!(f["type"], "Map");
    assert_eq!(f["events"][0]["index"], 2);
    assert_eq!(f["events"][1]["index"], 3);
    assert_eq!(f["events"][1]["op"], "call(o.put(\"a.com\",c2)/c1)");
    assert_eq!(
        f["access_points"],
        serde_json::json!(["put.k[v != p](\"a.com\")", "put.k[v != p](\"a.com\")"])
    );
    let text = hindsight(&["commute", "examples/hosts.txt", "--builtin", "map"]);
    insta::assert_snapshot!(text.stdout);
    let sarif = hindsight(&[
        "commute",
        "examples/hosts.txt",
        "--builtin",
        "map",
        "--format",
        "sarif",
    ]);
    let s: Value = serde_json::from_str(&sarif.stdout).expect("JSON");
    assert_eq!(s["runs"][0]["results"][0]["ruleId"], "commutativity-race");
}

#[test]
fn commute_explain_prints_figure_7() {
    let out = hindsight(&["commute", "--explain", "--builtin", "map"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn commute_spec_errors_point_at_file_line_column() {
    let spec = write_temp("bad.spec", "object Map {\n  method put(k, v) -> p;\n  commute put(k1) -> p1, put(k2, v2) -> p2 : true;\n}\n");
    let out = hindsight(&["commute", "examples/hosts.txt", "--spec", &spec]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with(&format!("{spec}:3:")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("error:"), "{}", out.stderr);
    let syntax = write_temp("syntax.spec", "object Map {\n  method put(k v) -> p;\n}\n");
    let out = hindsight(&["commute", "--explain", "--spec", &syntax]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with(&format!("{syntax}:2:")),
        "{}",
        out.stderr
    );
}

#[test]
fn commute_checks_formulas_outside_ecl_directly_with_a_warning() {
    let spec = write_temp(
        "register.spec",
        "object Reg {\n  method read() -> v;\n  method write(v);\n  commute read, read : true;\n  commute write(v1), write(v2) : v1 == v2;\n}\n",
    );
    let trace = write_temp(
        "reg.txt",
        "T0|fork(T1)\nT0|call(r.write(1))\nT1|call(r.write(1))\nT1|call(r.write(2))\n",
    );
    let out = hindsight(&["commute", &trace, "--spec", &spec, "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains(&format!("{spec}:5:")), "{}", out.stderr);
    assert!(out.stderr.contains("checked directly"), "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    // Equal writes commute; the write of 2 races with T0's write of 1.
    assert_eq!(v["summary"]["racy_actions"], 1);
    assert_eq!(v["findings"][0]["events"][1]["index"], 3);
    assert_eq!(
        v["findings"][0]["access_points"][0],
        "formula checked directly"
    );
}

#[test]
fn commute_bad_traces_and_bindings_exit_two() {
    let trace = write_temp("frob.txt", "T0|call(o.size()/0)\nT0|call(o.frob(1))\n");
    let out = hindsight(&["commute", &trace, "--builtin", "map"]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim(),
        format!("{trace}:2: error: `frob` is not a method of Map (object `o`)")
    );
    let two = write_temp("two.spec", "object A { method f(); commute f, f : true; }\nobject B { method g(); commute g, g : true; }\n");
    let ok = write_temp("ab.txt", "T0|call(a.f())\nT0|call(b.g())\n");
    let out = hindsight(&["commute", &ok, "--spec", &two]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--bind OBJECT=TYPE"), "{}", out.stderr);
    let out = hindsight(&[
        "commute", &ok, "--spec", &two, "--bind", "a=A", "--bind", "b=B",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out = hindsight(&["commute", &ok, "--spec", &two, "--bind", "a=A"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("object `b` has no spec"),
        "{}",
        out.stderr
    );
    let out = hindsight(&["commute", &ok, "--builtin", "nosuch"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no builtin spec `nosuch`"),
        "{}",
        out.stderr
    );
    assert_eq!(hindsight(&["commute", &ok]).code, 2, "a spec is required");
}

#[test]
fn lin_explains_a_stale_read() {
    let out = hindsight(&[
        "lin",
        "examples/register.jsonl",
        "--model",
        "cas-register",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["analysis"], "lin");
    assert_eq!(v["summary"]["verdict"], "not-linearizable");
    assert_eq!(v["trace"]["operations"], 5);
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "non-linearizable");
    assert_eq!(f["state"], "2");
    assert_eq!(f["events"][0]["op"], "read(nil) -> 1");
    assert_eq!(f["events"][0]["location"], "examples/register.jsonl:7");
    assert_eq!(f["prefix"].as_array().expect("prefix").len(), 3);
    let ok = hindsight(&["lin", "examples/register.edn", "--model", "cas-register"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("verdict linearizable"));
}

#[test]
fn lin_bad_input_and_models_exit_two() {
    let bad = write_temp("bad.jsonl", "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n{\"process\":0,\"type\":\"invoke\"\n");
    let out = hindsight(&["lin", &bad, "--model", "register"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with(&format!("{bad}:2: error:")),
        "{}",
        out.stderr
    );
    let out = hindsight(&["lin", "examples/register.jsonl", "--model", "stack"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no model `stack`"), "{}", out.stderr);
    let unknown_f = write_temp(
        "frob.jsonl",
        "{\"process\":0,\"type\":\"invoke\",\"f\":\"frob\",\"value\":1}\n",
    );
    let out = hindsight(&["lin", &unknown_f, "--model", "register"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains(":1: error:"), "{}", out.stderr);
}

#[test]
fn lin_counter_with_initial_value() {
    let h = write_temp(
        "counter.jsonl",
        "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\",\"value\":null}\n{\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"value\":5}\n",
    );
    assert_eq!(
        hindsight(&["lin", &h, "--model", "counter", "--init", "5"]).code,
        0
    );
    assert_eq!(hindsight(&["lin", &h, "--model", "counter"]).code, 1);
}

#[test]
fn lin_gives_up_with_unknown_after_the_timeout() {
    let h = temp("big-kv.jsonl");
    let h = h.to_str().expect("path");
    let out = hindsight(&[
        "gen-history",
        "--model",
        "kv",
        "--clients",
        "50",
        "--ops",
        "10000",
        "--keys",
        "4",
        "--seed",
        "3",
        "-o",
        h,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let started = std::time::Instant::now();
    let out = hindsight(&[
        "lin",
        h,
        "--model",
        "kv",
        "--timeout",
        "0.2",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 3, "unknown: {}", out.stdout);
    // The deadline honoured, with slack for a loaded machine: the search alone takes hours.
    assert!(started.elapsed().as_secs_f64() < 60.0);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["summary"]["verdict"], "unknown");
    // What the search memoized until then: the clock runs from the start of the command, so
    // reading the history may take the whole budget on a loaded machine.
    assert!(v["summary"]["memo_bytes"].as_u64().is_some());
    assert_eq!(v["summary"]["budget_spent"], "timeout");
}

#[test]
fn lin_chooses_the_model_and_refuses_operations_that_do_not_fit() {
    let h = write_temp(
        "porcupine-kv.edn",
        "{:process 0, :type :invoke, :f :append, :key \"0\", :value \"x 0 0 y\"}\n\
         {:process 0, :type :ok, :f :append, :key \"0\", :value \"x 0 0 y\"}\n\
         {:process 1, :type :invoke, :f :get, :key \"0\", :value nil}\n\
         {:process 1, :type :ok, :f :get, :key \"0\", :value \"x 0 0 y\"}\n",
    );
    let out = hindsight(&["lin", &h, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("chose the kv model"), "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(v["summary"]["model"], "kv");
    assert_eq!(v["summary"]["model_chosen"], "auto");
    // Under cas-register, `append` is no function: an error at its line.
    let out = hindsight(&["lin", &h, "--model", "cas-register"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains(":1: error:"), "{}", out.stderr);
    assert!(out.stderr.contains("`append`"), "{}", out.stderr);
    let cas = write_temp(
        "bad-cas.edn",
        "{:process 0, :type :invoke, :f :write, :value 1}\n\
         {:process 0, :type :ok, :f :write, :value 1}\n\
         {:process 0, :type :invoke, :f :cas, :value [1 2 3]}\n",
    );
    let out = hindsight(&["lin", &cas, "--model", "cas-register"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains(":3: error:"), "{}", out.stderr);
    assert!(out.stderr.contains("pair"), "{}", out.stderr);
    // Nothing fits that cas; a well-formed one fits two models, which is an error too.
    let out = hindsight(&["lin", &cas]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no model fits"), "{}", out.stderr);
    let both = write_temp(
        "cas.edn",
        "{:process 0, :type :invoke, :f :cas, :value [1 2]}\n",
    );
    let out = hindsight(&["lin", &both]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("cas-register, etcd"), "{}", out.stderr);
}

#[test]
fn gen_history_with_stale_reads_is_caught() {
    let h = temp("stale.jsonl");
    let h = h.to_str().expect("path");
    let gen = |extra: &[&str]| {
        let mut args = vec![
            "gen-history",
            "--model",
            "register",
            "--ops",
            "300",
            "--seed",
            "5",
            "-o",
            h,
        ];
        args.extend_from_slice(extra);
        assert_eq!(hindsight(&args).code, 0);
    };
    gen(&[]);
    assert_eq!(hindsight(&["lin", h, "--model", "register"]).code, 0);
    gen(&["--stale-reads", "0.2"]);
    assert_eq!(hindsight(&["lin", h, "--model", "register"]).code, 1);
    assert_eq!(hindsight(&["gen-history", "--model", "stack"]).code, 2);
}

/// `lin --one-thread` searches on the calling thread alone, so the same history gives the same
/// count of states every time; on several threads the parts race for the cores and the count
/// varies (Porcupine's `c50-bad`: 28,000 to 33,000 states from run to run), while the verdict
/// does not.
#[test]
fn lin_on_one_thread_searches_the_same_states_every_run() {
    let history = "crates/history/tests/fixtures/lin/porcupine/c50-bad.txt";
    let states: Vec<u64> = (0..3)
        .map(|_| {
            let out = hindsight(&[
                "--one-thread",
                "lin",
                history,
                "--model",
                "kv",
                "--format",
                "json",
            ]);
            assert_eq!(out.code, 1, "{}", out.stderr);
            let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
            assert_eq!(v["summary"]["verdict"], "not-linearizable");
            v["summary"]["states"].as_u64().expect("states")
        })
        .collect();
    assert!(states.windows(2).all(|w| w[0] == w[1]), "{states:?}");
}

/// `--one-thread` runs the one-thread pass; on a machine with two cores the default is the
/// two-thread pipeline. Both print the same report, findings, errors and exit status alike.
#[test]
fn one_thread_and_pipelined_runs_agree() {
    let big = temp("one-thread.hst");
    let big = big.to_str().expect("utf-8 path");
    let gen = [
        "gen",
        "--events",
        "60000",
        "--threads",
        "6",
        "--map-keys",
        "16",
        "--seed",
        "3",
        "-o",
        big,
    ];
    assert_eq!(hindsight(&gen).code, 0);
    let text = std::fs::read_to_string(root().join("examples/rapid.std")).expect("example");
    let bad: String = text
        .lines()
        .map(|l| format!("{l}\nT9|rel(nowhere)\n"))
        .collect();
    let bad = write_temp("one-thread-bad.std", &bad);
    let cut = &bad;
    // Text of many chunks, which is parsed on every core unless `--one-thread` (the names'
    // ids, warnings in input order and the first error included).
    let big_text = temp("one-thread.std");
    let big_text = big_text.to_str().expect("utf-8 path");
    let mut gen_text = gen;
    gen_text[10] = big_text;
    assert_eq!(hindsight(&gen_text).code, 0);
    let text = std::fs::read_to_string(big_text).expect("generated");
    let odd: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| match i % 5000 {
            4999 => format!("{l}\nT9|rel(nowhere)\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    let odd = write_temp("one-thread-odd.std", &odd);
    for args in [
        vec!["stats", big_text],
        vec!["races", big_text, "--format", "json"],
        vec!["races", &odd],
        vec!["races", &odd, "--strict"],
        vec!["stats", &odd, "--strict"],
        vec!["races", "examples/rapid.std", "--format", "json"],
        vec!["commute", big, "--builtin", "map", "--format", "json"],
        vec!["races", big, "--format", "json"],
        vec!["races", cut],
        vec!["races", cut, "--strict"],
    ] {
        let two = hindsight(&args);
        let mut one_args = args.clone();
        one_args.push("--one-thread");
        let one = hindsight(&one_args);
        assert_eq!(one.code, two.code, "{args:?}");
        assert_eq!(one.stdout, two.stdout, "{args:?}");
        assert_eq!(one.stderr, two.stderr, "{args:?}");
    }
}
