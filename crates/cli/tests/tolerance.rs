//! One tolerance for every analysis (docs/lock-records.md): lock records the repair cannot put
//! back are tolerated, so every trace analysis answers where plain `races` does; only
//! `--strict` refuses. The logs are in `crates/cli/tests/corpus/locks/`, each with the
//! expected findings reasoned in its header: a real excerpt (jigsaw, from the Freiburg
//! trace-analyzer set) and one hand-made log per tolerated shape.

mod common;

use common::{hindsight, json};

const DIR: &str = "crates/cli/tests/corpus/locks";

const MODELS: [&str; 5] = ["hb", "shb", "wcp", "syncp", "osr"];

fn log(name: &str) -> String {
    format!("{DIR}/{name}")
}

/// `races --model m` on `file` in JSON: exit status, racy events, lock records tolerated.
fn races(file: &str, extra: &[&str]) -> (i32, u64, u64) {
    let path = log(file);
    let mut args = vec!["races", &path];
    args.extend_from_slice(extra);
    let (code, v) = json(&args);
    let summary = &v["summary"];
    (
        code,
        summary["racy_events"].as_u64().expect("racy_events"),
        summary["lock_records_tolerated"].as_u64().unwrap_or(0),
    )
}

#[test]
fn jigsaw_is_answered_by_every_analysis() {
    let path = log("jigsaw-excerpt.std");
    for model in MODELS {
        let (code, racy, tolerated) = races("jigsaw-excerpt.std", &["--model", model]);
        assert_eq!(code, 1, "{model}");
        assert!(racy > 0, "{model}");
        assert_eq!(tolerated, 7, "{model}");
    }
    let out = hindsight(&["atomicity", &path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("lock_records_tolerated 7"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(
            "jigsaw-excerpt.std:1548: warning: T11 acquires lock `L411` while T10 holds it"
        ),
        "{}",
        out.stderr
    );
    let out = hindsight(&[
        "check",
        "--analyses",
        "races,atomicity,commute,views",
        "--builtin",
        "map",
        &path,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    for analysis in ["races", "atomicity", "commute", "views"] {
        assert!(
            out.stdout
                .lines()
                .any(|l| l.starts_with(&format!("{analysis}: "))
                    && l.contains("lock_records_tolerated 7")),
            "{analysis}: {}",
            out.stdout
        );
    }
}

#[test]
fn strict_refuses_what_is_tolerated() {
    for (file, line) in [
        ("jigsaw-excerpt.std", 1548),
        ("unprotected.std", 9),
        ("release-without-acquire.std", 9),
        ("wrong-owner.std", 8),
    ] {
        let path = log(file);
        for model in MODELS {
            let out = hindsight(&["races", &path, "--model", model, "--strict"]);
            assert_eq!(out.code, 2, "{file} {model}");
            assert!(
                out.stderr.contains(&format!("{file}:{line}: error:")),
                "{file} {model}: {}",
                out.stderr
            );
        }
        let out = hindsight(&["atomicity", &path, "--strict"]);
        assert_eq!(out.code, 2, "{file}");
    }
}

#[test]
fn each_tolerated_shape_gives_the_findings_its_header_reasons() {
    // (log, racy events under every model, records tolerated)
    for (file, racy, tolerated) in [
        ("unprotected.std", 1, 4),
        ("release-without-acquire.std", 1, 1),
        ("wrong-owner.std", 1, 1),
    ] {
        for model in MODELS {
            assert_eq!(
                races(file, &["--model", model]),
                (1, racy, tolerated),
                "{file} {model}"
            );
        }
        let path = log(file);
        let out = hindsight(&["atomicity", &path]);
        assert_eq!(out.code, 0, "{file}: {}", out.stderr);
        assert!(
            out.stdout
                .contains(&format!("lock_records_tolerated {tolerated}")),
            "{file}: {}",
            out.stdout
        );
    }
}

#[test]
fn as_logged_reads_a_release_without_acquire_as_rapid_does() {
    // Happens-before reads the log literally: the release orders T1's write before T2's
    // section, no race, and nothing tolerated.
    assert_eq!(
        races(
            "release-without-acquire.std",
            &["--lock-records", "as-logged"]
        ),
        (0, 0, 0)
    );
    let path = log("release-without-acquire.std");
    let out = hindsight(&["races", &path, "--lock-records", "as-logged"]);
    assert!(
        out.stderr
            .contains("release-without-acquire.std:9: warning: T1 releases lock `L` with no acquire of it before; read as logged"),
        "{}",
        out.stderr
    );
    // WCP has no reading of a log that is not lock-valid: tolerated even as logged.
    assert_eq!(
        races(
            "release-without-acquire.std",
            &["--model", "wcp", "--lock-records", "as-logged"]
        ),
        (1, 1, 1)
    );
}

#[test]
fn as_logged_leaves_late_releases_where_they_were_logged() {
    // T1's release of L is logged after T2's acquire: repaired by default (T1's section comes
    // first, ordering the two writes), read literally as logged (T2's acquire joins no
    // release: the writes race).
    let p = common::write_temp(
        "late.std",
        "T0|fork(T1)\nT0|fork(T2)\nT1|acq(L)\nT1|w(x)\nT2|acq(L)\nT1|rel(L)\nT2|w(x)\nT2|rel(L)\n",
    );
    let (code, v) = json(&["races", &p]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["lock_records_repaired"], 1);
    let (code, v) = json(&["races", &p, "--lock-records", "as-logged"]);
    assert_eq!(code, 1);
    assert_eq!(v["summary"]["racy_events"], 1);
    assert!(v["summary"].get("lock_records_repaired").is_none());
}
