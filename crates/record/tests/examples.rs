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

#[test]
fn data_race_races_on_data_and_flag() {
    let _one = exclusive();
    let (_, path) = record("data_race", data_race::run);
    load(&path);
    let findings = races(&path);
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
