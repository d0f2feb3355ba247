//! One tolerance for real logs in every trace command: a log with the oddities real loggers
//! write, each a warning with its repair (errors only under `--strict`), and what each analysis
//! then answers, reasoned by hand.
//!
//! The log is hand-made in the shape of RAPID-format logs of Java programs, such as
//! `input/Bensalem.std` of Proglang-Uni-Freiburg/trace-analyzer (threads that appear without a
//! matching `fork`, lock records interleaved across threads), and of what a RoadRunner tool that
//! prints each event inside its own hook writes: a release printed after the monitor is given
//! up, so that the next owner's acquire can be printed first.

mod common;

use common::{hindsight, Out};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// An account program's log. T1's release of `L1` (line 8) is printed after T2's acquire of it
/// (line 7); T3 writes `audit` (line 10) before the fork that creates it (line 13); T4 is never
/// forked; T2 writes `log` (line 18) after T0 joined it (line 16).
const ACCOUNT: &str = "\
T0|fork(T1)|Main.java:5
T0|fork(T2)|Main.java:6
T1|acq(L1)|Account.java:10
T1|r(balance)|Account.java:11
T1|w(balance)|Account.java:12
T1|call(accounts.put(1,100)/nil)|Account.java:14
T2|acq(L1)|Account.java:10
T1|rel(L1)|Account.java:13
T2|r(balance)|Account.java:11
T3|w(audit)|Audit.java:3
T2|w(balance)|Account.java:12
T2|call(accounts.get(1)/100)|Account.java:15
T0|fork(T3)|Main.java:7
T2|rel(L1)|Account.java:13
T4|r(audit)|Report.java:8
T0|join(T2)|Main.java:9
T0|r(balance)|Main.java:10
T2|w(log)|Log.java:1
T0|w(log)|Main.java:11
";

/// The log in a folder of its own: tests run at once.
fn log() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hindsight-real-logs-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("account.std");
    std::fs::write(&path, ACCOUNT).expect("write");
    path
}

fn run(args: &[&str]) -> Out {
    let path = log();
    let mut all = args.to_vec();
    all.push(path.to_str().expect("utf-8 path"));
    hindsight(&all)
}

const REPAIRED: &str = "account.std:7: warning: T2 acquires lock `L1` while T1 holds it (lock records out of order); repaired: T1's later release of it is taken to come first";
const BEFORE_FORK: &str = "account.std:13: warning: thread `T3` has events before the fork that creates it (the fork orders only its later events)";
const AFTER_JOIN: &str = "account.std:18: warning: thread `T2` has events after it was joined (the join orders only its earlier events)";
const NEVER_FORKED: &str = "account.std:15: warning: thread `T4` is never forked";

fn warned(out: &Out, late: &str) {
    for w in [late, BEFORE_FORK, AFTER_JOIN, NEVER_FORKED] {
        assert!(out.stderr.contains(w), "{w}\n{}", out.stderr);
    }
}

/// Every command, given the log under `--strict`, stops at its first oddity: the late release.
#[test]
fn under_strict_the_first_oddity_is_an_error_in_every_command() {
    for args in [
        &["races"][..],
        &["atomicity"],
        &["views"],
        &["commute", "--builtin", "map"],
        &["cuts", "--predicate", "race"],
        &["reach", "--check-valid"],
    ] {
        let mut all = args.to_vec();
        all.push("--strict");
        let out = run(&all);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("account.std:7: error: T2 acquires lock `L1` while T1 holds it (lock records out of order) (an error under --strict)"),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn races_orders_the_critical_sections_and_finds_the_two_real_races() {
    // Repaired, T1's critical section comes before T2's, so `balance` is protected; T0's read
    // of it follows the join of T2. `audit` is written by T3 before its fork and read by the
    // never-forked T4: nothing orders them. T2's write of `log` after its join is not ordered
    // before T0's.
    let out = run(&["races"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    warned(&out, REPAIRED);
    assert!(out.stdout.contains("data-race: read of `audit` at Report.java:8 races with the earlier write at Audit.java:3"), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "data-race: write of `log` at Main.java:11 races with the earlier write at Log.java:1"
        ),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("`balance`"), "{}", out.stdout);
    assert!(out.stdout.contains("races: 2 finding(s)"), "{}", out.stdout);
}

#[test]
fn atomicity_accepts_the_repaired_log() {
    // Refused before the repair ("needs a lock-valid trace"); repaired, every access to
    // `balance` is under `L1` and no transaction can be split.
    let out = run(&["atomicity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    warned(&out, REPAIRED);
    assert!(
        out.stdout.contains("atomicity: 0 finding(s)"),
        "{}",
        out.stdout
    );
}

#[test]
fn views_sees_one_view_of_balance_and_no_high_level_race() {
    let out = run(&["views"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    warned(&out, REPAIRED);
    assert!(
        out.stdout.contains(
            "views: 0 finding(s); regions locks, atomic_regions 2, views 1, high_level_races 0"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn commute_finds_the_map_actions_ordered_by_the_lock() {
    // `put` and `get` of key 1 do not commute, but each is inside its thread's critical
    // section, which the repair orders.
    let out = run(&["commute", "--builtin", "map"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    warned(&out, REPAIRED);
    assert!(
        out.stdout
            .contains("commute: 0 finding(s); actions 2, racy_actions 0"),
        "{}",
        out.stdout
    );
}

#[test]
fn cuts_answers_race_from_the_racy_pair_and_the_conjunction_by_garg_waldecker() {
    // The accesses in clock-sum order: `audit`'s write by T3 and read by T4 are the first pair
    // found; the least state holding both has nothing else.
    let out = run(&["cuts", "--predicate", "race"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    warned(&out, REPAIRED);
    assert!(out.stdout.contains("data race on audit: #9 T3 w(audit) and #14 T4 r(audit) are concurrent and both maximal in the consistent global state [T0 before its first event, T1 before its first event, T2 before its first event, T3 at #9 w(audit), T4 at #14 r(audit)]"), "{}", out.stdout);
    assert!(out.stdout.contains("algorithm racy-pair"), "{}", out.stdout);
    // T2's read of `balance` comes after T1's release, so T1 must be at its write (its latest
    // relevant event then); the least such state.
    let out = run(&["cuts", "--predicate", "at(T1, op == w) && at(T2, op == r)"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains("[T0 before its first event, T1 at #4 w(balance), T2 at #8 r(balance), T3 before its first event, T4 before its first event]"), "{}", out.stdout);
    assert!(
        out.stdout.contains("algorithm garg-waldecker"),
        "{}",
        out.stdout
    );
    let enumerated = run(&[
        "cuts",
        "--predicate",
        "at(T1, op == w) && at(T2, op == r)",
        "--algo",
        "quicklex",
    ]);
    let state = |s: &str| s.lines().next().unwrap_or("").to_owned();
    assert_eq!(state(&out.stdout), state(&enumerated.stdout));
}

#[test]
fn reach_keeps_the_logged_lock_order_and_finds_the_loset_valid() {
    // The loset takes no lock order from the log: the records stay as logged, with the plain
    // warning, and some schedule (T1's section first) reaches the end.
    let out = run(&["reach", "--check-valid"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    warned(
        &out,
        "account.std:7: warning: T2 acquires lock `L1` while T1 holds it (lock records out of order)\n",
    );
    assert!(
        out.stdout.contains("reach: 0 finding(s); valid true"),
        "{}",
        out.stdout
    );
    let out = run(&["reach", "--predicate", "race"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("T3 after #9 w(audit), T4 after #14 r(audit)"),
        "{}",
        out.stdout
    );
}
