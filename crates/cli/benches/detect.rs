//! Detection without enumeration (issue #29), each against a baseline measured in the same run.
//!
//! 1. `cuts --predicate race` on a generated trace of 100,000 events and 150 threads whose
//!    releases are logged late (every delayable one, as `delay_releases` shapes them), through
//!    the whole library entry point (read, validate, repair, poset, racy pair, report): seconds,
//!    against the same trace read, validated and repaired with no analysis.
//! 2. A conjunctive predicate on the poset of a trace of four threads that run free (30 accesses
//!    each and one message), where enumeration is feasible:
//!    Garg-Waldecker's least state against QuickLex enumerating until the first satisfying
//!    state (or through every state when none satisfies), and the satisfying states alone
//!    (the slice, `--all`) against QuickLex visiting every state to keep the satisfying ones.
//!    The poset is built once; only the searches are timed.
//! 3. Regular predicates with relations between threads (`events(...)` comparisons) on the
//!    same poset: the least satisfying state (forbidden threads advanced) against QuickLex
//!    until the first satisfying state, and the slice (`J(e)` of every event, then the
//!    satisfying states alone, as `--all` and `--count` use it) against QuickLex visiting
//!    every state to count the satisfying ones.
//!
//! `cargo bench -p hindsight-cli --bench detect` (`HINDSIGHT_BENCH_EVENTS=N` and
//! `HINDSIGHT_BENCH_THREADS=N` change the first trace; `HINDSIGHT_BENCH_SMALL=N` the accesses
//! per thread of the second).

mod common;

use common::best_of;
use hindsight_states::cuts::conjunctive::{least, satisfying};
use hindsight_states::cuts::poset::{Selection, TracePoset};
use hindsight_states::cuts::predicate::parse_predicate;
use hindsight_states::cuts::quicklex::QuickLex;
use hindsight_states::cuts::regular::Slice;
use hindsight_states::cuts::{detect, Detection, Enumerator, Input, Options, PredicateText};
use hindsight_states::Quiet;
use hindsight_stream::{run_any, RunOptions};
use hindsight_trace::arbitrary::delay_releases;
use hindsight_trace::generate::{generate_trace, GenConfig};
use hindsight_trace::{AnyReader, Event, Names, TextReader, TextWriter, Trace};
use std::io::{Cursor, Read};
use std::ops::ControlFlow;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn text_of(t: &Trace) -> Vec<u8> {
    let mut w = TextWriter::new(Vec::new());
    for e in &t.events {
        w.write_event(e, &t.names).expect("writes");
    }
    w.finish().expect("finishes")
}

fn reader(text: &[u8]) -> AnyReader {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    AnyReader::Text(TextReader::new(input))
}

fn cuts_options(predicate: &str, detection: Detection) -> Options {
    Options {
        predicate: Some(PredicateText {
            text: predicate.to_owned(),
            name: "<predicate>".to_owned(),
        }),
        enumerator: Enumerator::QuickLex,
        threads: None,
        count: false,
        all: false,
        limit: 100,
        every_event: false,
        online: false,
        detection,
        cluster: None,
    }
}

fn race_on_late_releases() {
    let events = env("HINDSIGHT_BENCH_EVENTS", 100_000);
    let threads = env("HINDSIGHT_BENCH_THREADS", 150) as u32;
    let config = GenConfig {
        events,
        threads,
        vars: 1000,
        locks: 16,
        max_depth: 2,
        unprotected: 0.05,
        blocks: 0.0,
        seed: 1,
        map_keys: 0,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    };
    let (logged, delayed) = delay_releases(&generate_trace(&config), 1, 64);
    let text = text_of(&logged);
    println!(
        "1. cuts --predicate race: {events} events, {threads} threads, {delayed} releases logged late"
    );
    let (base, n) = best_of(3, || {
        run_any(&mut reader(&text), Vec::new(), RunOptions::default())
            .expect("repaired")
            .stats
            .events
    });
    assert_eq!(n, logged.events.len() as u64);
    let options = cuts_options("race", Detection::Auto);
    let mut summary = String::new();
    let unlimited = std::sync::Arc::new(hindsight_budget::Budget::unlimited());
    let (race, found) = best_of(3, || {
        let input = Input::Trace(&mut reader(&text), RunOptions::default());
        let report = detect(input, "t.std", &options, &Quiet, &unlimited).expect("decides");
        summary = format!(
            "algorithm {}, poset_events {}",
            report.summary["algorithm"], report.summary["poset_events"]
        );
        report.findings.len() as u64
    });
    println!("   read + validate + repair (baseline) {base:>8.3} s");
    println!(
        "   cuts --predicate race               {race:>8.3} s  ({:.2}x the baseline; {found} finding; {summary})",
        race / base
    );
}

/// A trace whose threads run free after their forks: `per_thread` random reads and writes of
/// three variables by each of four threads, a message from T1 to T2 halfway. Its lattice of
/// states is large but enumerable.
fn free_threads(per_thread: u64) -> Trace {
    let mut text = String::from("T0|fork(T1)\nT0|fork(T2)\nT0|fork(T3)\n");
    let mut rng = hindsight_rng::SplitMix64::new(7);
    for k in 0..per_thread {
        for t in 0..4 {
            let op = if rng.chance(0.5) { "w" } else { "r" };
            text.push_str(&format!("T{t}|{op}(x{})\n", rng.below(3)));
        }
        if k == per_thread / 2 {
            text.push_str("T1|snd(m)\nT2|rcv(m)\n");
        }
    }
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a trace")
}

/// A conjunctive predicate's least state and satisfying states against enumeration.
fn conjunctive_against_enumeration() {
    let events = env("HINDSIGHT_BENCH_SMALL", 30);
    let trace = free_threads(events);
    let relevant = |_: &Event, _: &Names| true;
    let selection = Selection {
        relevant: &relevant,
        merge: false,
    };
    let tp = TracePoset::read(&mut trace.source(), &selection).expect("in memory");
    let poset = &tp.poset;
    let lo = vec![0; poset.processes()];
    let hi = poset.final_state();
    let quicklex = QuickLex::new(poset);
    let mut states = 0u64;
    let _ = quicklex.enumerate(&lo, &hi, &mut |_: &[u32]| {
        states += 1;
        ControlFlow::Continue(())
    });
    println!(
        "2. a conjunctive predicate on the poset of {} events, {} threads ({states} consistent states)",
        poset.events(),
        poset.processes()
    );
    let predicates = [
        "at(T1, op == w && var == x0) && at(T2, op == w && var == x1) && at(T3, op == r)",
        // T0 is the most significant process of the lexical order: a state with T0 past its
        // forks comes late in it.
        "at(T0, op == r) && at(T1, op == w) && at(T2, op == r && var == x2)",
        // Never satisfied (no thread receives twice): enumeration visits every state.
        "at(T1, op == w && var == x2) && at(T3, op == rcv)",
    ];
    for text in predicates {
        let predicate = parse_predicate(text).expect("parses");
        let bound = predicate.bind(&tp).expect("binds");
        let mut eliminated = 0;
        // The detector's time includes finding each thread's candidates (recognition); binding
        // the predicate is shared with enumeration and left out of both.
        let (gw, found) = best_of(5, || {
            let local = bound.conjunctive().expect("conjunctive");
            u64::from(least(poset, &local, &lo, &mut eliminated).is_some())
        });
        let (ql, visited) = best_of(3, || {
            let mut visited = 0u64;
            let _ = quicklex.enumerate(&lo, &hi, &mut |g: &[u32]| {
                visited += 1;
                if bound.holds(g) {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            });
            visited
        });
        let (slice, sat) = best_of(3, || {
            let local = bound.conjunctive().expect("conjunctive");
            let mut n = 0u64;
            let _ = satisfying(
                poset,
                &local,
                &mut |_: &[u32]| {
                    n += 1;
                    ControlFlow::Continue(())
                },
                &mut eliminated,
            );
            n
        });
        let (all, sat_enum) = best_of(3, || {
            let mut n = 0u64;
            let _ = quicklex.enumerate(&lo, &hi, &mut |g: &[u32]| {
                n += u64::from(bound.holds(g));
                ControlFlow::Continue(())
            });
            n
        });
        assert_eq!(
            sat, sat_enum,
            "the slice visits exactly the satisfying states"
        );
        println!("   {text}");
        println!(
            "     first: Garg-Waldecker {:>9.1} us (found {found}) | QuickLex {:>9.1} us ({visited} states) | {:>8.0}x",
            gw * 1e6,
            ql * 1e6,
            ql / gw.max(1e-9)
        );
        println!(
            "     all:   slice          {:>9.1} us ({sat} states) | QuickLex {:>9.1} us ({states} states) | {:>8.1}x",
            slice * 1e6,
            all * 1e6,
            all / slice.max(1e-9)
        );
    }
}

/// Regular predicates with relations: the least state and the slice against enumeration.
fn regular_against_enumeration() {
    let events = env("HINDSIGHT_BENCH_SMALL", 30);
    let trace = free_threads(events);
    let relevant = |_: &Event, _: &Names| true;
    let selection = Selection {
        relevant: &relevant,
        merge: false,
    };
    let tp = TracePoset::read(&mut trace.source(), &selection).expect("in memory");
    let poset = &tp.poset;
    let lo = vec![0; poset.processes()];
    let hi = poset.final_state();
    let quicklex = QuickLex::new(poset);
    println!("3. regular predicates with relations on the same poset");
    let predicates = [
        // T1 never ahead of T2 in writes, and T3 at a read.
        "events(T1, op == w) <= events(T2, op == w) && at(T3, op == r)",
        // The two threads' reads within one of each other, T0 past half its events.
        "events(T1, op == r) <= events(T2, op == r) + 1 && events(T2, op == r) <= events(T1, op == r) + 1 && events(T0) >= 20",
        // Never: T1 ahead of T2 by more than its own length.
        "events(T1) >= events(T2) + 40",
    ];
    let budget = hindsight_budget::Budget::unlimited();
    for text in predicates {
        let predicate = parse_predicate(text).expect("parses");
        let bound = predicate.bind(&tp).expect("binds");
        let mut advances = 0;
        let (least, found) = best_of(5, || {
            let regular = bound.regular().expect("regular");
            u64::from(regular.least(poset, &lo, &mut advances).is_some())
        });
        let (ql, visited) = best_of(3, || {
            let mut visited = 0u64;
            let _ = quicklex.enumerate(&lo, &hi, &mut |g: &[u32]| {
                visited += 1;
                if bound.holds(g) {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            });
            visited
        });
        let (slice, sat) = best_of(3, || {
            let regular = bound.regular().expect("regular");
            let slice = Slice::compute(poset, &regular, &budget).expect("unlimited");
            let mut n = 0u64;
            let _ = slice.satisfying(&mut |_: &[u32]| {
                n += 1;
                ControlFlow::Continue(())
            });
            n
        });
        let (all, sat_enum) = best_of(3, || {
            let mut n = 0u64;
            let _ = quicklex.enumerate(&lo, &hi, &mut |g: &[u32]| {
                n += u64::from(bound.holds(g));
                ControlFlow::Continue(())
            });
            n
        });
        assert_eq!(
            sat, sat_enum,
            "the slice visits exactly the satisfying states"
        );
        println!("   {text}");
        println!(
            "     first: least state    {:>9.1} us (found {found}) | QuickLex {:>9.1} us ({visited} states) | {:>8.0}x",
            least * 1e6,
            ql * 1e6,
            ql / least.max(1e-9)
        );
        println!(
            "     count: slice          {:>9.1} us ({sat} states) | QuickLex {:>9.1} us (every state) | {:>8.1}x",
            slice * 1e6,
            all * 1e6,
            all / slice.max(1e-9)
        );
    }
}

fn main() {
    race_on_late_releases();
    conjunctive_against_enumeration();
    regular_against_enumeration();
}
