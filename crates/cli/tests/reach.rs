//! `hindsight reach` end to end, on the worked examples of Chang's thesis rebuilt as traces
//! (`examples/reach/`), plus bad input.

mod common;

use common::*;

use serde_json::Value;

const FIG67_STATE: &str = "T0=12,T1=10,T2=10,T3=5,T4=5,T5=5,T6=5,T7=5,T8=5,T9=5,T10=5,T11=2,T12=3";

#[test]
fn fig_5_2_feasible_but_unreachable() {
    let (code, v) = json(&["reach", "examples/reach/fig5_2.txt", "--state", "T1=4,T2=3"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["verdict"], "unreachable");
    let reason = v["summary"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("feasible but not strongly feasible"),
        "{reason}"
    );
    assert!(reason.contains("dynamic locking order on `x`"), "{reason}");
    assert!(reason.contains("dynamic locking order on `y`"), "{reason}");
}

#[test]
fn fig_5_3_invalid_loset_is_detected_with_a_cycle() {
    let out = hindsight(&["reach", "examples/reach/fig5_3.txt", "--check-valid"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out
        .stdout
        .starts_with("invalid-loset: invalid loset: no run reaches the final state"));
    assert!(
        out.stdout.contains("locking order on `z`"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("valid false"));
    assert!(out.stderr.contains("lock records out of order"));
}

#[test]
fn recorded_runs_are_valid() {
    for f in [
        "fig1_5_t1_first",
        "fig1_5_t2_first",
        "fig1_7",
        "fig5_2",
        "fig6_7",
    ] {
        let (code, v) = json(&["reach", &format!("examples/reach/{f}.txt"), "--check-valid"]);
        assert_eq!(code, 0, "{f}");
        assert_eq!(v["summary"]["valid"], true, "{f}");
    }
}

#[test]
fn fig_6_7_strongly_feasible_but_unreachable() {
    let path = "examples/reach/fig6_7.txt";
    // Strong feasibility does not refute it; neither lock-free nor viable proves it.
    let (code, v) = json(&["reach", path, "--state", FIG67_STATE]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["verdict"], "unknown");
    // The search (cut by normalization, Theorem 13's bound) proves it unreachable.
    let (code, v) = json(&["reach", path, "--state", FIG67_STATE, "--exact"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["verdict"], "unreachable");
    let reason = v["summary"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("strongly feasible but unreachable"),
        "{reason}"
    );
}

#[test]
fn two_threads_strongly_feasible_is_reachable() {
    for f in ["fig1_5_t1_first", "fig1_5_t2_first", "fig5_2"] {
        let (code, v) = json(&[
            "reach",
            &format!("examples/reach/{f}.txt"),
            "--count",
            "--exact",
        ]);
        assert_eq!(code, 0);
        assert!(v["summary"]["states"].as_u64().unwrap() > 0);
        assert_eq!(v["summary"]["states"], v["summary"]["reachable"], "{f}");
    }
}

#[test]
fn reachable_states_come_with_a_schedule() {
    let (code, v) = json(&[
        "reach",
        "examples/reach/fig1_5_t2_first.txt",
        "--state",
        "T1=4,T2=2",
    ]);
    assert_eq!(code, 1);
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "state");
    let schedule: Vec<u64> = f["schedule"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    // T1 (fork, acq, open, rel) and T2 (acq, open): 6 events, T1's section first.
    assert_eq!(schedule.len(), 6);
    assert_eq!(schedule[..4], [0, 5, 6, 7]);
}

#[test]
fn count_on_an_invalid_loset_counts_strongly_feasible_and_reachable() {
    let (code, v) = json(&["reach", "examples/reach/fig5_3.txt", "--count", "--exact"]);
    assert_eq!(code, 0);
    let states = v["summary"]["states"].as_u64().unwrap();
    let reachable = v["summary"]["reachable"].as_u64().unwrap();
    // Every state but the final one is reachable; the final one is strongly feasible.
    assert_eq!(reachable + 1, states);
}

#[test]
fn bad_input_is_an_error_with_its_place() {
    let dir = std::env::temp_dir().join(format!("hindsight-reach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "T0|acq(l)\nT0|rel(m)\n").unwrap();
    // A release without an acquire: the loset takes no lock order from the log and ignores
    // it, with a warning; an error under --strict.
    let out = hindsight(&["reach", bad.to_str().unwrap(), "--count"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("bad.txt:2: warning: T0 releases lock `m` with no acquire of it before"),
        "{}",
        out.stderr
    );
    let out = hindsight(&["reach", bad.to_str().unwrap(), "--count", "--strict"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("bad.txt:2: error"), "{}", out.stderr);

    let out = hindsight(&["reach", "examples/reach/fig5_2.txt"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("needs"), "{}", out.stderr);

    for state in ["T9=1", "T1=99", "T1", "T1=x"] {
        let out = hindsight(&["reach", "examples/reach/fig5_2.txt", "--state", state]);
        assert_eq!(out.code, 2, "{state}");
        assert!(out.stderr.contains("--state"), "{}", out.stderr);
    }
    let out = hindsight(&["reach", "no/such/file.txt", "--count"]);
    assert_eq!(out.code, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

const OPEN_TWICE: &str = "count(method == open) >= 2 && count(method == close) >= 0";

#[test]
fn fig_1_5_double_open_is_found_whichever_lock_order_the_run_took() {
    for (f, cuts_finds) in [("fig1_5_t1_first", true), ("fig1_5_t2_first", false)] {
        let path = format!("examples/reach/{f}.txt");
        let (code, v) = json(&["reach", &path, "--predicate", OPEN_TWICE]);
        assert_eq!(code, 1, "{f}");
        let finding = &v["findings"][0];
        assert_eq!(finding["kind"], "predicate");
        assert_eq!(finding["state"]["T1"], 4, "{f}: T1 after its release");
        assert_eq!(finding["state"]["T2"], 2, "{f}: T2 after its open");
        assert!(!finding["schedule"].as_array().unwrap().is_empty());
        // The poset of the same run orders the critical sections as recorded: `cuts` finds the
        // state only when T1 took the lock first.
        let (code, v) = json(&["cuts", &path, "--predicate", OPEN_TWICE]);
        assert_eq!(code, i32::from(cuts_finds), "{f}");
        assert_eq!(
            v["findings"].as_array().unwrap().len(),
            usize::from(cuts_finds)
        );
    }
}

#[test]
fn fig_1_7_no_false_alarm() {
    let (code, v) = json(&[
        "reach",
        "examples/reach/fig1_7.txt",
        "--predicate",
        OPEN_TWICE,
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["satisfying"], 0);
    assert_eq!(v["summary"]["complete"], true);
}

#[test]
fn a_bad_predicate_is_an_error_at_its_column() {
    let out = hindsight(&[
        "reach",
        "examples/reach/fig1_7.txt",
        "--predicate",
        "count(colour == red) >= 1",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.starts_with("<predicate>:1:"), "{}", out.stderr);
}

#[test]
fn sarif_output() {
    let out = hindsight(&[
        "reach",
        "examples/reach/fig1_5_t2_first.txt",
        "--predicate",
        OPEN_TWICE,
        "--format",
        "sarif",
    ]);
    assert_eq!(out.code, 1);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "predicate");
}
