//! `cargo hindsight` on the package in `tests/fixture` (a bank account whose withdrawal checks
//! and debits in two critical sections), built once into a target directory of its own under
//! cargo's test scratch space, so that later runs reuse the build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture/Cargo.toml")
}

fn cargo_hindsight(args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_cargo-hindsight"))
        .arg("hindsight")
        .args(args)
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("cargo-hindsight-fixture"),
        )
        // The fixture's dependencies are the workspace's: nothing to fetch.
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .expect("runs");
    (
        out.status.code().expect("exits"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// One test (one build of the fixture) for all the cases, run in turn.
#[test]
fn records_checks_and_reports_per_test_and_per_program() {
    let manifest = fixture();
    let manifest = manifest.to_str().expect("UTF-8 path");

    // Each test in its own process and trace; the withdrawals' stale value is predicted from
    // runs in which the account was never overdrawn (the test asserts the balance).
    let (code, out, err) = cargo_hindsight(&["test", "--manifest-path", manifest, "--repeat", "2"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let section = |name: &str| -> String {
        let start = out
            .find(&format!("== {name} "))
            .unwrap_or_else(|| panic!("no {name} in\n{out}"));
        let rest = &out[start + 3..];
        rest[..rest.find("\n== ").unwrap_or(rest.len())].to_owned()
    };
    let withdrawals = section("tests::two_withdrawals");
    assert!(
        withdrawals.starts_with("tests::two_withdrawals (2 run(s)): 1 finding(s)"),
        "{withdrawals}"
    );
    assert!(
        withdrawals.contains("stale-value: main.1 reads `lib.rs:18`")
            || withdrawals.contains("stale-value: main.2 reads `lib.rs:18`"),
        "{withdrawals}"
    );
    assert!(withdrawals.contains("at src/lib.rs:23:9"), "{withdrawals}");
    assert!(withdrawals.contains("at src/lib.rs:30:9"), "{withdrawals}");
    assert!(withdrawals.contains("of 2 runs)"), "{withdrawals}");
    assert!(
        withdrawals.contains("two_withdrawals.1.hst .. "),
        "{withdrawals}"
    );
    assert!(
        withdrawals.contains("two_withdrawals.2.hst"),
        "{withdrawals}"
    );
    assert!(
        section("tests::deposits").starts_with("tests::deposits (2 run(s)): clean"),
        "{out}"
    );
    let unwrapped = section("tests::unwrapped_data");
    assert!(unwrapped.contains("clean"), "{unwrapped}");
    assert_eq!(
        unwrapped
            .matches("warning: 2 threads but no recorded variable: did you wrap your data?")
            .count(),
        1,
        "once for both runs: {unwrapped}"
    );

    // A filter keeps the tests whose name contains it; clean tests exit 0.
    let (code, out, err) = cargo_hindsight(&["test", "deposits", "--manifest-path", manifest]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        out.matches("\n== ").count() + usize::from(out.starts_with("== ")),
        1
    );

    // The program, with its arguments: withdrawing 60 twice from 100, the second withdrawal
    // fails its check and never writes, so nothing is predicted; 30 twice is the bug.
    let (code, out, err) = cargo_hindsight(&["run", "--manifest-path", manifest, "--", "60"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("== fixture (1 run(s)): clean"), "{out}");
    let (code, out, err) = cargo_hindsight(&["run", "--manifest-path", manifest, "--", "30"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("stale-value"), "{out}");

    // Bad input: a clear error and exit status 2.
    let (code, _, err) = cargo_hindsight(&["run", "--repeat", "0", "--manifest-path", manifest]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--repeat"), "{err}");
    let (code, _, err) = cargo_hindsight(&["run", "--manifest-path", "/nonexistent/Cargo.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cargo-hindsight: error:"), "{err}");
    let (code, _, err) = cargo_hindsight(&["run", "--bin", "nothing", "--manifest-path", manifest]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = cargo_hindsight(&["frobnicate"]);
    assert_eq!(code, 2, "{err}");
}
