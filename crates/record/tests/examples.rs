//! Each example, recorded, and the analysis that should find its bug run on the trace:
//! findings for the buggy program, none for the fixed one. The examples are compiled into this
//! test as modules, so the test runs exactly the code `cargo run --example` runs.
//!
//! For `check_then_act`, `lost_update` and `coordinates` the tests also check the shape of the
//! trace (the blocks and accesses the analysis looks at), so that a failure says whether the
//! recording or the analysis changed.

#![cfg(feature = "record")]

mod common;

use common::*;
use hindsight_trace::Op;

#[allow(dead_code)]
#[path = "../examples/check_then_act.rs"]
mod check_then_act;
#[allow(dead_code)]
#[path = "../examples/check_then_act_fixed.rs"]
mod check_then_act_fixed;
#[allow(dead_code)]
#[path = "../examples/coordinates.rs"]
mod coordinates;
#[allow(dead_code)]
#[path = "../examples/coordinates_fixed.rs"]
mod coordinates_fixed;
#[allow(dead_code)]
#[path = "../examples/data_race.rs"]
mod data_race;
#[allow(dead_code)]
#[path = "../examples/data_race_fixed.rs"]
mod data_race_fixed;
#[allow(dead_code)]
#[path = "../examples/get_lock.rs"]
mod get_lock;
#[allow(dead_code)]
#[path = "../examples/get_lock_fixed.rs"]
mod get_lock_fixed;
#[allow(dead_code)]
#[path = "../examples/hosts.rs"]
mod hosts;
#[allow(dead_code)]
#[path = "../examples/hosts_fixed.rs"]
mod hosts_fixed;
#[allow(dead_code)]
#[path = "../examples/lost_update.rs"]
mod lost_update;
#[allow(dead_code)]
#[path = "../examples/lost_update_fixed.rs"]
mod lost_update_fixed;

// Ports of public programs (see each file's header): programs with a `main` only are included
// into a module that can call it.
#[allow(dead_code)]
mod book_counter {
    include!("../examples/book_counter.rs");
    pub fn run() {
        main()
    }
}
#[allow(dead_code)]
mod statistics {
    include!("../examples/statistics.rs");
    pub fn run() {
        main()
    }
}
#[allow(dead_code)]
#[path = "../examples/thread_pool_racy.rs"]
mod thread_pool_racy;
// The racy program includes the pool unchanged.
use thread_pool_racy::pool as thread_pool;

/// Each port changes at most three lines of the std program, all marked `hindsight:`.
#[test]
fn ports_change_at_most_three_lines() {
    for (name, text) in [
        ("book_counter", include_str!("../examples/book_counter.rs")),
        ("statistics", include_str!("../examples/statistics.rs")),
        ("thread_pool", include_str!("../examples/thread_pool.rs")),
    ] {
        let changed: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("hindsight_record"))
            .collect();
        assert!(changed.len() <= 3, "{name}: {changed:#?}");
        assert!(
            changed.iter().all(|l| l.contains("// hindsight:")),
            "{name}: {changed:#?}"
        );
    }
}

/// All of `races`, `atomicity` and `views` (over lock regions, as `cargo hindsight` runs it).
fn check(path: &std::path::Path) -> Vec<hindsight_report::Finding> {
    let mut all = races(path);
    all.extend(atomicity(path));
    all.extend(analyse(
        path,
        Box::new(hindsight_stream::views::DynamicViews::new(
            hindsight_stream::views::Regions::Locks,
            true,
        )),
    ));
    all
}

/// The Book's counter: ten critical sections `acq w rel` of the lock's data, and nothing to
/// report.
#[test]
fn book_counter_records_each_increment_and_is_clean() {
    let _one = exclusive();
    let (_, path) = record("book_counter", book_counter::run);
    let trace = load(&path);
    for t in 1..=10 {
        let ops = ops_of(&trace, &format!("main.{t}"));
        assert_eq!(ops.len(), 3, "{ops:?}");
        assert!(ops[0].starts_with("acq(book_counter.rs:"), "{ops:?}");
        assert!(ops[1].starts_with("w(book_counter.rs:"), "{ops:?}");
    }
    let found = check(&path);
    assert!(found.is_empty(), "{found:#?}");
}

/// The Book's thread pool: nothing to report.
#[test]
fn thread_pool_is_clean() {
    let _one = exclusive();
    let (served, path) = record("thread_pool", || thread_pool::serve(32));
    assert_eq!(served, 32);
    load(&path);
    let found = check(&path);
    assert!(found.is_empty(), "{found:#?}");
}

/// The pool with a job that reads the count in one critical section and writes it back in
/// another: from a run that counted every request (the update was not lost), `views`
/// predicts the stale write-back, naming the two sections. The run is `serve_in_turn`: two
/// workers run jobs (the sensor needs another thread's write) and none loses an update, on a
/// schedule fixed by synchronisation the recorder does not see.
#[test]
fn thread_pool_racy_lost_update_is_predicted_from_a_run_without_it() {
    let _one = exclusive();
    let (served, path) = record("thread_pool_racy", || thread_pool_racy::serve_in_turn(64));
    assert_eq!(served, 64);
    let trace = load(&path);
    let workers = (1..=4)
        .filter(|t| {
            ops_of(&trace, &format!("main.{t}"))
                .iter()
                .any(|o| o.starts_with("w(thread_pool_racy.rs:"))
        })
        .count();
    assert!(workers >= 2, "{workers} workers ran jobs");
    let found = check(&path);
    assert!(!found.is_empty(), "no prediction");
    assert!(found.iter().all(|f| f.kind == "stale-value"), "{found:#?}");
    let f = &found[0];
    assert!(f.message.contains("thread_pool_racy.rs:"), "{}", f.message);
    let at: Vec<&str> = f
        .events
        .iter()
        .filter_map(|e| e.location.as_deref())
        .collect();
    assert!(
        at.iter().any(|l| l.ends_with("thread_pool_racy.rs:61:28")),
        "the read: {at:?}"
    );
    assert!(
        at.iter().any(|l| l.ends_with("thread_pool_racy.rs:64:17")),
        "the write-back: {at:?}"
    );
}

/// Relaxed statistics: every `fetch_add`/`fetch_max` is one `rmw` event and every load an
/// `aload`, and atomics never race: nothing is found. (Recorded as plain reads and writes,
/// before atomic events, `races` reported the three counters: false positives, since atomics
/// cannot data-race in Rust; made plain accesses again they still race, so this can fail.)
#[test]
fn statistics_is_clean_with_atomic_events() {
    let _one = exclusive();
    let (_, path) = record("statistics", statistics::run);
    let trace = load(&path);
    let rmws = count(&trace, |e| matches!(e.op, Op::AtomicRmw(_)));
    // Three per item: 4 workers, 25 items each.
    assert_eq!(rmws, 3 * 4 * 25);
    assert!(count(&trace, |e| matches!(e.op, Op::AtomicLoad(_))) >= 3);
    assert_eq!(
        count(&trace, |e| matches!(e.op, Op::Read(_) | Op::Write(_))),
        0
    );
    let findings = check(&path);
    assert!(findings.is_empty(), "{findings:#?}");
    let lowered = names_of(&races_atomics_lowered(&path), "variable");
    assert_eq!(lowered.len(), 3, "{lowered:?}");
}

#[test]
fn hosts_has_a_commutativity_race_on_the_duplicate_host() {
    let _one = exclusive();
    let (n, path) = record("hosts", || hosts::run(&hosts::HOSTS));
    assert_eq!(n, 2);
    let trace = load(&path);
    assert_eq!(trace.names.threads.len(), 4, "main and one thread per host");
    let findings = commute(&path, "map");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    assert_eq!(f.kind, "commutativity-race");
    assert!(f.message.contains("\"a.com\""), "{}", f.message);
}

#[test]
fn hosts_fixed_is_clean() {
    let _one = exclusive();
    let (n, path) = record("hosts_fixed", || hosts_fixed::run(&hosts_fixed::HOSTS));
    assert_eq!(n, 2);
    load(&path);
    let findings = commute(&path, "map");
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn get_lock_has_a_commutativity_race_between_lookup_and_insertion() {
    let _one = exclusive();
    let (_, path) = record("get_lock", get_lock::run);
    load(&path);
    let findings = commute(&path, "map");
    assert!(!findings.is_empty());
    for f in &findings {
        assert!(f.message.contains("\"account\""), "{}", f.message);
    }
}

#[test]
fn get_lock_fixed_is_clean() {
    let _one = exclusive();
    let (distinct, path) = record("get_lock_fixed", get_lock_fixed::run);
    assert_eq!(distinct, 1, "one lock per key");
    load(&path);
    let findings = commute(&path, "map");
    assert!(findings.is_empty(), "{findings:#?}");
}

/// Relaxed atomics are race-free in Rust's memory model, so `races` reports nothing; what
/// the example shows is that nothing orders the data's store before its load, which `races`
/// sees once the atomics are asked as plain accesses.
#[test]
fn data_race_orders_nothing_but_atomics_never_race() {
    let _one = exclusive();
    let (_, path) = record("data_race", data_race::run);
    load(&path);
    assert!(races(&path).is_empty());
    let findings = races_atomics_lowered(&path);
    assert_eq!(names_of(&findings, "variable"), ["data", "ready"]);
}

#[test]
fn data_race_fixed_is_clean() {
    let _one = exclusive();
    let (seen, path) = record("data_race_fixed", data_race_fixed::run);
    assert_eq!(seen, 42);
    let trace = load(&path);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Send(_))), 1);
    assert_eq!(count(&trace, |e| matches!(e.op, Op::Receive(_))), 1);
    let findings = races(&path);
    assert!(findings.is_empty(), "{findings:#?}");
}

/// Each withdrawal is one `begin(withdraw)`..`end` block; in the buggy program the check and
/// the debit are two critical sections, and at least two withdrawals debit in any schedule.
#[test]
fn check_then_act_records_two_critical_sections_per_block() {
    let _one = exclusive();
    let (balance, path) = record("check_then_act", check_then_act::run);
    assert!(balance == 20 || balance < 0);
    let trace = load(&path);
    let blocks = blocks(&trace);
    assert_eq!(blocks.len(), 3);
    let debits = blocks
        .iter()
        .filter(|(_, ops)| ops.contains(&"w(balance)".to_owned()))
        .count();
    assert!(debits >= 2, "{blocks:#?}");
    for (_, ops) in &blocks {
        let sections = ops.iter().filter(|o| *o == "acq(account)").count();
        // The guard's dereference reads the lock's data (`account`) before the field.
        assert_eq!(
            ops[..4],
            ["acq(account)", "r(account)", "r(balance)", "rel(account)"]
        );
        let debited = ops.contains(&"w(balance)".to_owned());
        assert_eq!(sections, if debited { 2 } else { 1 }, "{ops:?}");
    }
    assert!(races(&path).is_empty(), "every access is under the lock");
}

#[test]
fn check_then_act_fixed_records_one_critical_section_per_block() {
    let _one = exclusive();
    let (balance, path) = record("check_then_act_fixed", check_then_act_fixed::run);
    assert_eq!(balance, 20);
    let trace = load(&path);
    let blocks = blocks(&trace);
    assert_eq!(blocks.len(), 3);
    for (_, ops) in &blocks {
        assert_eq!(ops.iter().filter(|o| *o == "acq(account)").count(), 1);
        assert_eq!(ops.first().map(String::as_str), Some("acq(account)"));
        assert_eq!(ops.last().map(String::as_str), Some("rel(account)"));
    }
}

#[test]
fn check_then_act_has_an_atomicity_violation_and_the_fixed_one_none() {
    let _one = exclusive();
    let (_, bad) = record("check_then_act_analysed", check_then_act::run);
    let (_, good) = record("check_then_act_fixed_analysed", check_then_act_fixed::run);
    let found = atomicity(&bad);
    assert!(!found.is_empty(), "no atomicity violation found");
    let clean = atomicity(&good);
    assert!(clean.is_empty(), "{clean:#?}");
}

/// Each increment reads `x` in one critical section and writes it in another (Fig. 2).
#[test]
fn lost_update_records_read_and_write_in_separate_sections() {
    let _one = exclusive();
    let (_, path) = record("lost_update", lost_update::run);
    let trace = load(&path);
    for worker in ["main.1", "main.2"] {
        let regions: Vec<Vec<String>> = lock_regions(&trace, "counter")
            .into_iter()
            .filter(|(t, _)| t == worker)
            .map(|(_, r)| r)
            .collect();
        assert_eq!(
            regions,
            [vec!["r(counter)", "r(x)"], vec!["w(counter)", "w(x)"]],
            "{worker}"
        );
    }
}

#[test]
fn lost_update_fixed_records_one_section() {
    let _one = exclusive();
    let (x, path) = record("lost_update_fixed", lost_update_fixed::run);
    assert_eq!(x, 2);
    let trace = load(&path);
    for worker in ["main.1", "main.2"] {
        let regions: Vec<Vec<String>> = lock_regions(&trace, "counter")
            .into_iter()
            .filter(|(t, _)| t == worker)
            .map(|(_, r)| r)
            .collect();
        assert_eq!(
            regions,
            [vec!["r(counter)", "r(x)", "w(counter)", "w(x)"]],
            "{worker}"
        );
    }
}

#[test]
fn lost_update_views_find_the_bug_and_not_in_the_fixed_one() {
    let _one = exclusive();
    let (_, bad) = record("lost_update_analysed", lost_update::run);
    let (_, good) = record("lost_update_fixed_analysed", lost_update_fixed::run);
    let found = views(&bad);
    assert!(found.iter().any(|f| f.kind == "stale-value"), "{found:#?}");
    let clean = views(&good);
    assert!(clean.is_empty(), "{clean:#?}");
}

/// The views of Table 1: swap reads and writes both coordinates in one section, reset writes
/// them in two.
#[test]
fn coordinates_records_the_views_of_table_1() {
    let _one = exclusive();
    let (_, path) = record("coordinates", coordinates::run);
    let trace = load(&path);
    let regions = lock_regions(&trace, "coord");
    let of = |t: &str| -> Vec<Vec<String>> {
        regions
            .iter()
            .filter(|(th, _)| th == t)
            .map(|(_, r)| r.clone())
            .collect()
    };
    assert_eq!(
        of("main.1"),
        [vec![
            "r(coord)",
            "r(coord.x)",
            "r(coord.y)",
            "w(coord)",
            "w(coord.x)",
            "w(coord.y)"
        ]]
    );
    assert_eq!(
        of("main.2"),
        [
            vec!["w(coord)", "w(coord.x)"],
            vec!["w(coord)", "w(coord.y)"]
        ]
    );
}

#[test]
fn coordinates_fixed_resets_in_one_section() {
    let _one = exclusive();
    let (c, path) = record("coordinates_fixed", coordinates_fixed::run);
    assert_eq!(c, (0, 0), "swap before or after the reset, (0, 0) remains");
    let trace = load(&path);
    let regions: Vec<Vec<String>> = lock_regions(&trace, "coord")
        .into_iter()
        .filter(|(t, _)| t == "main.2")
        .map(|(_, r)| r)
        .collect();
    assert_eq!(regions, [vec!["w(coord)", "w(coord.x)", "w(coord.y)"]]);
}

#[test]
fn coordinates_views_find_the_bug_and_not_in_the_fixed_one() {
    let _one = exclusive();
    let (_, bad) = record("coordinates_analysed", coordinates::run);
    let (_, good) = record("coordinates_fixed_analysed", coordinates_fixed::run);
    let found = views(&bad);
    assert!(
        found.iter().any(|f| f.kind == "high-level-race"),
        "{found:#?}"
    );
    let clean = views(&good);
    assert!(clean.is_empty(), "{clean:#?}");
}
