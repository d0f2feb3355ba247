//! `views` under the run's budget (issue #20, item 3): `--memory-limit` holds its views, the
//! slots of each thread's views and the relation of views that may run in parallel together;
//! `--timeout` stops the pass and the sensors after it. A spent budget stops cleanly with exit
//! status 3, the summary naming the limit and saying how many events were analysed.

mod common;

use common::*;
use serde_json::Value;

/// A server that starts a thread per request: `T0` forks `n` threads one after the other,
/// each updating `x` under `L` in one lock region, and joins each before forking the next.
/// Every thread has the same one view, so there is nothing to warn about; what grows is one
/// slot per thread.
fn per_request(n: u32) -> String {
    let path = temp(&format!("views-per-request-{n}.std"));
    if !path.exists() {
        let mut text = String::new();
        for i in 1..=n {
            text.push_str(&format!(
                "T0|fork(T{i})\nT{i}|acq(L)\nT{i}|r(x)\nT{i}|w(x)\nT{i}|rel(L)\nT0|join(T{i})\n"
            ));
        }
        std::fs::write(&path, text).expect("write the trace");
    }
    path.to_str().expect("utf-8 path").to_owned()
}

fn summary(v: &Value) -> &serde_json::Map<String, Value> {
    v["summary"].as_object().expect("a summary")
}

#[test]
fn views_within_its_budget_answers_as_without() {
    let t = per_request(20_000);
    let (code, v) = json(&["views", &t]);
    assert_eq!(code, 0, "{v:#}");
    let s = summary(&v);
    assert_eq!(s["atomic_regions"], 20_000);
    assert_eq!(s["views"], 1);
    assert!(s.get("budget_spent").is_none(), "{v:#}");
    // The default limit, a share of the machine's memory, is reported.
    assert!(s["memory_limit"].as_u64().is_some_and(|m| m > 0), "{v:#}");
}

#[test]
fn views_stops_at_its_memory_limit_with_what_it_has_seen() {
    let t = per_request(20_000);
    let (code, v) = json(&["views", &t, "--memory-limit", "1M"]);
    assert_eq!(code, 3, "{v:#}");
    let s = summary(&v);
    assert_eq!(s["budget_spent"], "memory-limit", "{v:#}");
    assert_eq!(s["memory_limit"], 1 << 20);
    // It stopped part of the way, and says where.
    let analysed = s["events_analysed"].as_u64().expect("events analysed");
    assert!(analysed > 0 && analysed < 120_000, "{v:#}");
    let regions = s["atomic_regions"].as_u64().expect("regions");
    assert!(regions > 0 && regions < 20_000, "{v:#}");
}

#[test]
fn views_stops_at_its_timeout() {
    let t = per_request(20_000);
    let (code, v) = json(&["views", &t, "--timeout", "0"]);
    assert_eq!(code, 3, "{v:#}");
    let s = summary(&v);
    assert_eq!(s["budget_spent"], "timeout", "{v:#}");
    assert_eq!(s["timeout"], 0.0);
    // The first look at the clock comes after the first batch of events.
    assert_eq!(s["events_analysed"], 1024, "{v:#}");
}

/// Threads whose views all differ and all meet on `c`: `T0` forks `n` threads one after the
/// other, each reading and writing `c` and writing its own `x_i` in one lock region, and joins
/// each before forking the next. The pass is quick (seven events a thread), while the view-
/// consistency sensor compares every two of the `n` classes of threads (no warning comes of
/// it: each overlap is `{c}` alone).
fn distinct_views(n: u32) -> String {
    let path = temp(&format!("views-distinct-{n}.std"));
    if !path.exists() {
        let mut text = String::new();
        for i in 1..=n {
            text.push_str(&format!(
                "T0|fork(T{i})\nT{i}|acq(L)\nT{i}|r(c)\nT{i}|w(c)\nT{i}|w(x{i})\nT{i}|rel(L)\nT0|join(T{i})\n"
            ));
        }
        std::fs::write(&path, text).expect("write the trace");
    }
    path.to_str().expect("utf-8 path").to_owned()
}

/// The pass is linear and the sensors quadratic in the threads, so a size sets them far apart:
/// at 16,000 threads the pass takes under half a second in the test build and the sensors
/// about a minute (four times the 14 s of CPU they took on 8,000 threads). Six seconds are
/// then ten times the pass (a loaded machine's stretch of its wall time stays below) and a
/// tenth of the sensors (a machine several times faster still does not finish them).
#[test]
fn views_sensors_stop_at_the_timeout() {
    // The pass sees all 112,000 events well within the six seconds; the sensors' 256 million
    // comparisons of classes take far longer, and they too stop when the time is up.
    let t = distinct_views(16_000);
    let started = std::time::Instant::now();
    let (code, v) = json(&["views", &t, "--timeout", "6"]);
    let s = summary(&v);
    assert_eq!(code, 3, "{v:#}");
    assert_eq!(s["budget_spent"], "timeout", "{v:#}");
    // The pass went to the end: the time ran out in the sensors, which stopped.
    assert_eq!(s["atomic_regions"], 16_000, "{v:#}");
    assert_eq!(s["events_analysed"], 112_000, "{v:#}");
    assert_eq!(s["sensors_stopped"], true, "{v:#}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "the sensors did not stop: {:?}",
        started.elapsed()
    );
}

#[test]
fn views_findings_within_the_limit_are_reported() {
    // MoTH's Coordinates test (Fig. 6): its high-level race, within a budget it never reaches.
    let (code, v) = json(&[
        "views",
        "examples/views/coordinates.std",
        "--memory-limit",
        "1M",
    ]);
    assert_eq!(code, 1, "{v:#}");
    assert!(!v["findings"].as_array().expect("findings").is_empty());
}

#[test]
fn views_budget_options_apply_to_programs() {
    // Within the budget: the answer of a run without one, the limits in the summary.
    let (code, v) = json(&["views", "examples/views/coordinates.mv", "--timeout", "60"]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["summary"]["timeout"], 60.0, "{v:#}");
    assert!(v["summary"].get("budget_spent").is_none(), "{v:#}");
    // Past it: thousands of statements, the clock read after the first 1024.
    let mut text = String::from("class C { a; }\nglobal g: C;\nthread T1 {\n");
    for _ in 0..5000 {
        text.push_str("  atomic { g.a := 1; }\n");
    }
    text.push_str("}\nthread T2 { atomic { g.a := 2; } }\n");
    let path = write_temp("long.mv", &text);
    let (code, v) = json(&["views", &path, "--timeout", "0"]);
    assert_eq!(code, 3, "{v:#}");
    assert_eq!(v["summary"]["budget_spent"], "timeout", "{v:#}");
    let out = hindsight(&[
        "views",
        "examples/views/coordinates.mv",
        "--memory-limit",
        "1.5G",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}
