//! `atomicity`'s work after the pass within the run's budget (#39): Phase II's violations and
//! memo, `--all`'s triples and the findings are charged before they grow, and the deadline is
//! polled while pairing. `n` threads each run `begin r(x) w(x) end`: every ordered pair of
//! threads is a violation class (the read and write of one, the write of the other between
//! them), `n (n - 1)` of them, which at a few thousand threads took gigabytes unaccounted.
//! Nothing here depends on timing: the memory limits bind by construction, and a zero timeout
//! is spent at the first poll.

use hindsight_budget::{Budget, Limits, Spent, GRANULE};
use hindsight_stream::atomicity::pairing::Violation;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::driver::Analysis;
use hindsight_stream::groups::Granularity;
use hindsight_trace::{Event, NameKind, Names, Op, ThreadId, VarId};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// The names and events of `n` threads forked by `T0`, each with one `begin r(x) w(x) end`.
fn blocks(n: u32) -> (Names, Vec<Event>) {
    let mut names = Names::default();
    for t in 0..=n {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{t}").as_bytes())
            .expect("ascii");
    }
    names.of_mut(NameKind::Var).intern(b"x").expect("ascii");
    let mut ops: Vec<(ThreadId, Op)> = (1..=n)
        .map(|t| (ThreadId(0), Op::Fork(ThreadId(t))))
        .collect();
    for t in (1..=n).map(ThreadId) {
        ops.push((t, Op::Begin(None)));
        ops.push((t, Op::Read(VarId(0))));
        ops.push((t, Op::Write(VarId(0))));
        ops.push((t, Op::End));
    }
    let events = ops
        .into_iter()
        .enumerate()
        .map(|(i, (t, op))| Event::new(i as u64, t, op))
        .collect();
    (names, events)
}

fn analysed(n: u32, options: Options) -> (Names, Atomicity) {
    let (names, events) = blocks(n);
    let mut a = Atomicity::new(options);
    for e in &events {
        a.step(e, &names).expect("nested by construction");
    }
    (names, a)
}

fn memory(bytes: u64) -> Budget {
    Budget::new(Limits {
        timeout: None,
        memory: bytes,
    })
}

fn key(v: &Violation) -> (ThreadId, ThreadId, u64, u64, u64) {
    (v.thread, v.other, v.e1.index, v.f.index, v.e2.index)
}

#[test]
fn pairing_stops_at_the_memory_limit_with_classes_it_found() {
    let (_, a) = analysed(60, Options::default());
    let whole: BTreeSet<_> = a.violations().iter().map(key).collect();
    assert_eq!(whole.len(), 60 * 59, "a class per ordered pair of threads");
    let budget = memory(2 * GRANULE);
    let paired = a.pair_within(&budget);
    assert_eq!(paired.stopped, Some(Spent::Memory));
    assert_eq!(budget.spent(), Some(Spent::Memory));
    assert!(!paired.classes.is_empty() && paired.classes.len() < whole.len());
    // What it found are classes, and nothing was allocated past the limit.
    assert!(paired.classes.iter().all(|v| whole.contains(&key(v))));
    let bytes = paired.classes.capacity() * std::mem::size_of::<Violation>();
    assert!(bytes as u64 <= 2 * GRANULE, "{bytes} bytes of classes");
}

#[test]
fn pairing_thousands_of_threads_stays_within_a_small_limit() {
    // 2,000 threads: four million classes, 300 MB unbounded.
    let (_, a) = analysed(2_000, Options::default());
    let limit = 8 << 20;
    let budget = memory(limit);
    let paired = a.pair_within(&budget);
    assert_eq!(paired.stopped, Some(Spent::Memory));
    let bytes = (paired.classes.capacity() * std::mem::size_of::<Violation>()) as u64;
    assert!(bytes <= limit, "{bytes} bytes of classes under {limit}");
    assert!(paired.classes.len() > 10_000, "{}", paired.classes.len());
}

#[test]
fn pairing_polls_its_deadline() {
    let (_, a) = analysed(100, Options::default());
    let budget = Budget::new(Limits {
        timeout: Some(Duration::ZERO),
        memory: u64::MAX,
    });
    let paired = a.pair_within(&budget);
    assert_eq!(paired.stopped, Some(Spent::Time));
    // Stopped at the first poll, after as many checks as a meter counts between two.
    assert!(paired.classes.len() < 100 * 99);
    assert!(paired.checks <= hindsight_budget::CHECK_EVERY);
}

#[test]
fn all_triples_stop_at_the_memory_limit() {
    let (_, a) = analysed(
        300,
        Options {
            all: true,
            ..Options::default()
        },
    );
    let classes = a.violations();
    let whole: BTreeSet<_> = a.all_triples(&classes).iter().map(key).collect();
    // The classes' keys take about 1 MB: the triples get the rest.
    let budget = memory(2 << 20);
    let mut triples = Vec::new();
    let stopped = a.all_triples_within(&classes, &budget, &mut triples);
    assert_eq!(stopped, Err(Spent::Memory));
    assert!(!triples.is_empty() && triples.len() < whole.len());
    assert!(triples.iter().all(|v| whole.contains(&key(v))));
    let bytes = (triples.capacity() * std::mem::size_of::<Violation>()) as u64;
    assert!(bytes <= 2 << 20, "{bytes} bytes of triples");
}

#[test]
fn a_stopped_pairing_is_reported_unknown_with_what_it_found() {
    for granularity in [Granularity::Grouped, Granularity::EveryEvent] {
        let budget = Arc::new(memory(16 * GRANULE));
        let (names, a) = analysed(
            400,
            Options {
                granularity,
                ..Options::default()
            },
        );
        let out = Box::new(a.within(Arc::clone(&budget))).finish(&names);
        assert!(out.unknown, "{granularity:?}");
        assert!(!out.findings.is_empty(), "{granularity:?}");
        assert_eq!(out.summary["complete"], Value::from(false));
        assert_eq!(out.summary["budget_spent"], Value::from("memory-limit"));
        // Every finding shown is charged: the findings stay within the limit.
        let bytes: u64 = out.findings.iter().map(|f| f.heap_bytes()).sum();
        assert!(
            bytes <= 16 * GRANULE,
            "{granularity:?}: {bytes} bytes of findings"
        );
    }
}

#[test]
fn a_run_within_its_budget_says_nothing_of_it() {
    let budget = Arc::new(memory(64 << 20));
    let (names, a) = analysed(20, Options::default());
    let out = Box::new(a.within(budget)).finish(&names);
    assert!(!out.unknown);
    // Without source locations, a group per pair of threads.
    assert_eq!(out.findings.len(), 20 * 19);
    for k in ["complete", "budget_spent", "memory_limit"] {
        assert!(!out.summary.contains_key(k), "{k}");
    }
}

#[test]
fn a_short_trace_is_paired_whole_when_the_pass_spent_the_budget() {
    // The pass polls at its end: on a short trace it finds the budget spent with every event
    // read. The pairing still has its meter's grace.
    let budget = Arc::new(Budget::new(Limits {
        timeout: Some(Duration::ZERO),
        memory: u64::MAX,
    }));
    assert_eq!(budget.check(), Err(Spent::Time));
    let (names, a) = analysed(
        10,
        Options {
            all: true,
            granularity: Granularity::EveryEvent,
            ..Options::default()
        },
    );
    let out = Box::new(a.within(budget)).finish(&names);
    assert_eq!(out.findings.len(), 10 * 9);
    // Nothing stopped short (the pass's report says the budget was spent).
    assert!(!out.summary.contains_key("complete"));
}
