//! `hindsight check`: several analyses in one pass, each reported exactly as its own command
//! reports it.

mod common;

use common::*;
use serde_json::Value;

const BANK: &str = "examples/bank.std";

/// `check`'s JSON against the separate commands' JSON, with the trace read from standard input
/// (which can be read only once).
#[test]
fn json_holds_each_command_s_object_and_reads_the_trace_once() {
    let trace = std::fs::read(root().join(BANK)).expect("example");
    let out = hindsight_stdin(
        &[
            "check",
            "-",
            "--analyses",
            "races,atomicity,views",
            "--format",
            "json",
        ],
        Some(&trace),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    assert_eq!(v["tool"], "hindsight");
    assert_eq!(v["analysis"], "check");
    let reports = v["reports"].as_array().expect("reports");
    assert_eq!(reports.len(), 3);
    for (report, command) in reports.iter().zip(["races", "atomicity", "views"]) {
        let alone = hindsight_stdin(&[command, "-", "--format", "json"], Some(&trace));
        let alone: Value = serde_json::from_str(&alone.stdout).expect("JSON");
        assert_eq!(report, &alone, "{command}");
    }
}

#[test]
fn text_is_each_command_s_text_in_turn_and_the_exit_status_the_worst() {
    let out = hindsight(&["check", BANK, "--analyses", "atomicity,races"]);
    let atomicity = hindsight(&["atomicity", BANK]);
    let races = hindsight(&["races", BANK]);
    assert_eq!(out.stdout, format!("{}{}", atomicity.stdout, races.stdout));
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr, races.stderr,
        "the trace's warnings are printed once"
    );
    let clean = hindsight(&[
        "check",
        "examples/atomicity/protected.std",
        "--analyses",
        "races",
    ]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
}

#[test]
fn sarif_has_one_run_per_analysis() {
    let (code, _) = json(&["races", BANK]);
    assert_eq!(code, 1);
    let out = hindsight(&[
        "check",
        "examples/hosts.txt",
        "--analyses",
        "commute,races",
        "--builtin",
        "map",
        "--format",
        "sarif",
    ]);
    let v: Value = serde_json::from_str(&out.stdout).expect("SARIF");
    assert_eq!(v["version"], "2.1.0");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2);
    let alone = hindsight(&[
        "commute",
        "examples/hosts.txt",
        "--builtin",
        "map",
        "--format",
        "sarif",
    ]);
    let alone: Value = serde_json::from_str(&alone.stdout).expect("SARIF");
    assert_eq!(runs[0], alone["runs"][0]);
}

#[test]
fn bad_uses_are_errors() {
    let out = hindsight(&["check", BANK, "--analyses", "races,races"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("twice"), "{}", out.stderr);
    let out = hindsight(&["check", BANK, "--analyses", "commute"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("--spec FILE or --builtin NAME"),
        "{}",
        out.stderr
    );
    let out = hindsight(&["check", BANK, "--analyses", "lin"]);
    assert_eq!(out.code, 2);
    let out = hindsight(&["check", "no/such/file.std", "--analyses", "races"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("no/such/file.std: error:"),
        "{}",
        out.stderr
    );
}

/// A trace of several threads with no variable and no call (a recorded program whose data was
/// not wrapped) is warned about by every trace command, once, and still exits clean.
#[test]
fn trace_commands_warn_when_threads_record_no_data() {
    let locks_only = write_temp(
        "unwrapped.std",
        "T1|acq(l)\nT1|rel(l)\nT2|acq(l)\nT2|rel(l)\n",
    );
    let warning = "warning: 2 threads but no recorded variable: did you wrap your data?";
    for args in [
        vec!["races", locks_only.as_str()],
        vec!["atomicity", locks_only.as_str()],
        vec!["views", locks_only.as_str()],
        vec![
            "check",
            locks_only.as_str(),
            "--analyses",
            "races,atomicity,views",
        ],
    ] {
        let out = hindsight(&args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert_eq!(
            out.stderr.matches(warning).count(),
            1,
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains(&format!("{locks_only}: {warning}")),
            "{}",
            out.stderr
        );
    }
    let with_data = write_temp(
        "wrapped.std",
        "T1|acq(l)\nT1|aload(x)\nT1|rel(l)\nT2|acq(l)\nT2|rel(l)\n",
    );
    let out = hindsight(&["races", with_data.as_str()]);
    assert!(!out.stderr.contains(warning), "{}", out.stderr);
}
