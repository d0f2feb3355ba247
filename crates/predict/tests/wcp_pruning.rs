//! The pruned WCP pass (`wcp`: dead sections dropped from the locks' queues, rule (a) as the
//! latest conflicting section's number) against WCP with nothing dropped (`wcp_queues`, the
//! paper's Algorithm 1 as main had it): the same racy events with the same partners on every
//! lock-valid trace. The traces are aimed at what the pruning argues about: threads forked late
//! or never forked (starting late, with nothing of the lock's history in their clocks), locks
//! first used late, nested sections, atomics and messages; long ones (hundreds of sections on
//! one or two locks) so that dead sections pile up and are dropped.

use hindsight_order::HappensBefore;
use hindsight_predict::shb::Options;
use hindsight_predict::wcp::Wcp;
use hindsight_predict::wcp_queues::WcpQueues;
use hindsight_stream::groups::Granularity;
use hindsight_stream::Observer;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::generate::{generate_trace, GenConfig};
use hindsight_trace::{Event, Op, TextReader, Trace, VarId};
use proptest::prelude::*;

mod common;
use common::drive;

/// The pruned pass's races (partner, racy) and the sections its queues still hold.
fn pruned(trace: &Trace) -> (Vec<(u64, u64)>, usize) {
    let mut a = Wcp::new(Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
        beyond_hb: false,
    });
    drive(trace, &mut a);
    let races = a
        .races()
        .iter()
        .map(|r| (r.partner.index, r.racy.index))
        .collect();
    (races, a.queued_sections())
}

fn reference(trace: &Trace) -> Vec<(u64, u64)> {
    let mut a = WcpQueues::new();
    drive(trace, &mut a);
    a.races()
        .iter()
        .map(|r| (r.partner.index, r.racy.index))
        .collect()
}

/// `trace` made lock-valid, as the pass requires (the driver refuses other traces): an acquire
/// of a lock another thread holds, and a release of a lock its thread does not hold, become
/// reads. Everything else the odd shape allows stays: events before a fork, threads never
/// forked, events after a join.
fn lock_valid(mut trace: Trace) -> Trace {
    let mut holder: Vec<Option<(u32, u32)>> = Vec::new();
    for e in &mut trace.events {
        let read = Op::Read(VarId(0));
        match e.op {
            Op::Acquire(l) => {
                if holder.len() <= l.index() {
                    holder.resize(l.index() + 1, None);
                }
                match &mut holder[l.index()] {
                    Some((t, depth)) if *t == e.thread.0 => *depth += 1,
                    Some(_) => e.op = read,
                    free => *free = Some((e.thread.0, 1)),
                }
            }
            Op::Release(l) => match holder.get_mut(l.index()) {
                Some(Some((t, depth))) if *t == e.thread.0 => {
                    *depth -= 1;
                    if *depth == 0 {
                        holder[l.index()] = None;
                    }
                }
                _ => e.op = read,
            },
            _ => {}
        }
    }
    trace
}

/// Choices weighted towards sections and accesses, with forks, joins, messages and atomics.
fn traced(choices: &[(u8, u8, u8)], shape: Shape) -> Trace {
    const ACTIONS: [u8; 20] = [
        0, 2, 2, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 7, 8, 9, 13, 14, 15, 0,
    ];
    let choices: Vec<(u8, u8, u8)> = choices
        .iter()
        .map(|&(t, b, c)| (t, ACTIONS[b as usize % ACTIONS.len()], c))
        .collect();
    lock_valid(trace_from_choices(&choices, shape))
}

fn shape(odd: bool) -> impl Strategy<Value = Shape> {
    (2u8..=5, 1u8..=3, 1u8..=3).prop_map(move |(threads, vars, locks)| Shape {
        threads,
        vars,
        locks,
        msgs: 1,
        odd,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Short traces: threads that start (forked or not) after the locks have a history.
    #[test]
    fn pruned_wcp_is_wcp_on_short_traces(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        shape in shape(true),
    ) {
        let trace = traced(&choices, shape);
        prop_assert_eq!(pruned(&trace).0, reference(&trace));
    }

    /// The papers' model: threads forked before they act.
    #[test]
    fn pruned_wcp_is_wcp_on_well_formed_traces(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        shape in shape(false),
    ) {
        let trace = traced(&choices, shape);
        prop_assert_eq!(pruned(&trace).0, reference(&trace));
    }
}

/// Shapes of long traces: `threads`, up to 3 variables and 2 locks, one message channel.
fn long_shape(threads: std::ops::RangeInclusive<u8>) -> impl Strategy<Value = Shape> {
    (threads, 1u8..=3, 1u8..=2, any::<bool>()).prop_map(|(threads, vars, locks, odd)| Shape {
        threads,
        vars,
        locks,
        msgs: 1,
        odd,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Long traces on few locks: dead sections are dropped many times over (their clock slots
    /// reused), and late threads meet locks whose early sections are gone.
    #[test]
    fn pruned_wcp_is_wcp_on_long_traces(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 200..1500),
        shape in long_shape(2..=5),
    ) {
        let trace = traced(&choices, shape);
        prop_assert_eq!(pruned(&trace).0, reference(&trace));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Traces of hundreds of threads, most past the first 64, whose components a clock keeps
    /// beside its plain array: the sections' clocks are shared copies of the threads' there,
    /// where the reference holds dense ones.
    #[test]
    fn pruned_wcp_is_wcp_with_hundreds_of_threads(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 200..1500),
        shape in long_shape(70..=255),
    ) {
        let trace = traced(&choices, shape);
        prop_assert_eq!(pruned(&trace).0, reference(&trace));
    }

    /// A thread per request, as a server's (the generator's `per_request`): hundreds of
    /// short threads, each knowing of every request before it through the locks and `T0`'s
    /// joins, which is where the clocks of the two families (`H` and `P`) meet most.
    #[test]
    fn pruned_wcp_is_wcp_on_a_thread_per_request(
        seed in any::<u64>(),
        per_request in 3u32..12,
        locks in 1u32..4,
        in_flight in 2u32..10,
    ) {
        let trace = generate_trace(&GenConfig {
            events: 1_500,
            threads: in_flight,
            vars: 6,
            locks,
            max_depth: 2,
            unprotected: 0.2,
            blocks: 0.0,
            seed,
            map_keys: 0,
            per_request,
            sites: hindsight_trace::generate::DEFAULT_SITES,
        });
        prop_assert_eq!(pruned(&trace).0, reference(&trace));
    }
}

/// A generated trace of the bench's kind: same races, and the queues hold a small part of the
/// sections (the reference keeps all of them).
#[test]
fn generated_trace_keeps_few_sections() {
    let trace = generate_trace(&GenConfig {
        events: 40_000,
        threads: 8,
        vars: 16,
        locks: 4,
        max_depth: 2,
        unprotected: 0.05,
        blocks: 0.0,
        seed: 7,
        map_keys: 0,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    });
    let sections = trace
        .events
        .iter()
        .filter(|e: &&Event| matches!(e.op, Op::Acquire(_)))
        .count();
    let (races, queued) = pruned(&trace);
    assert_eq!(races, reference(&trace));
    assert!(!races.is_empty());
    assert!(
        queued * 10 < sections,
        "{queued} of {sections} sections still queued"
    );
}

/// `rounds` sections of `l` taken in turn by `T1` and `T2`, each writing `y` (so each is ordered
/// before the next by rule (a), and dies); then `T3`, never forked, writes `x` and takes `l`
/// with `inside` in its section; then `T1` writes `y` in a section of `l` and writes `x`.
fn late_thread(rounds: usize, inside: &str) -> Trace {
    let mut text = String::new();
    for i in 0..rounds {
        let t = 1 + i % 2;
        text.push_str(&format!("T{t}|acq(l)\nT{t}|w(y)\nT{t}|rel(l)\n"));
    }
    text.push_str(&format!("T3|w(x)\nT3|acq(l)\nT3|{inside}\nT3|rel(l)\n"));
    text.push_str("T1|acq(l)\nT1|w(y)\nT1|rel(l)\nT1|w(x)\n");
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid trace")
}

/// A thread that appears after the lock's early sections were dropped is ordered as if they
/// were there. When its section writes `y`, `T1`'s later write of `y` is ordered after its
/// release (rule a), and so `T3`'s write of `x` before `T1`'s (rule c): no race. When it reads
/// `z` instead, nothing orders the two sections, and the writes of `x` race.
#[test]
fn a_late_thread_meets_a_pruned_lock() {
    let rounds = 50;
    let first = 3 * rounds as u64;
    let conflicting = late_thread(rounds, "w(y)");
    let (races, queued) = pruned(&conflicting);
    assert_eq!(races, []);
    assert_eq!(races, reference(&conflicting));
    assert!(queued <= 4, "{queued} sections queued");
    let apart = late_thread(rounds, "r(z)");
    let (races, queued) = pruned(&apart);
    assert_eq!(races, [(first, first + 7)]);
    assert_eq!(races, reference(&apart));
    assert!(queued <= 4, "{queued} sections queued");
}

/// What the pass holds (`held_bytes`, what `--memory-limit` is charged) follows the live
/// sections, not the trace's length: eight times the events, about the same bytes. With every
/// section kept it grew with the acquires (about 18 bytes an event).
#[test]
fn held_bytes_do_not_grow_with_the_trace() {
    let held = |events: u64| {
        let trace = generate_trace(&GenConfig {
            events,
            threads: 8,
            vars: 16,
            locks: 8,
            max_depth: 2,
            unprotected: 0.05,
            blocks: 0.0,
            seed: 3,
            map_keys: 0,
            per_request: 0,
            sites: hindsight_trace::generate::DEFAULT_SITES,
        });
        let mut a = Wcp::new(Options::default());
        drive(&trace, &mut a);
        a.held_bytes()
    };
    let (short, long) = (held(20_000), held(160_000));
    assert!(short > 0);
    assert!(
        long < 2 * short,
        "{short} bytes for 20,000 events, {long} for 160,000"
    );
}

/// `T1`'s section of `l` is followed by `rounds` sections of `T2` that read `y`: nothing
/// orders any of them before a later release, so all stay queued; then `T2` writes `y` in a
/// section of `l`, which orders the latest of them (and, by thread order and happens-before,
/// all the others) before it (rule a), and all die at once. After it, `T3` (never forked)
/// writes `x` before a section reading `y`, `T2` writes `y` in a section and then `x`
/// (ordered after `T3`'s write), and `T1` writes `x` (racing with both).
fn burst(rounds: usize) -> Trace {
    // `T3` takes `l` first, so that the clocks' width is settled before the burst.
    let mut text = String::from("T3|acq(l)\nT3|r(u)\nT3|rel(l)\nT1|acq(l)\nT1|r(z)\nT1|rel(l)\n");
    for _ in 0..rounds {
        text.push_str("T2|acq(l)\nT2|r(y)\nT2|rel(l)\n");
    }
    text.push_str("T2|acq(l)\nT2|w(y)\nT2|rel(l)\n");
    text.push_str(
        "T3|w(x)\nT3|acq(l)\nT3|r(y)\nT3|rel(l)\nT2|acq(l)\nT2|w(y)\nT2|rel(l)\nT2|w(x)\nT1|w(x)\n",
    );
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid trace")
}

/// A burst of live sections on one lock, then their deaths: the clocks' slots are given back
/// (moved to fresh ones, in order) and the answers stay those of the reference.
#[test]
fn a_burst_of_live_sections_is_given_back() {
    let rounds = 700;
    let trace = burst(rounds);
    let mut a = Wcp::new(Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
        beyond_hb: false,
    });
    let mut hb = HappensBefore::new();
    let mut peak = (0, 0);
    for (i, e) in trace.events.iter().enumerate() {
        hb.before(e);
        a.on_event(e, &hb, &trace.names).expect("accepted");
        hb.after(e);
        if i == 3 * rounds + 5 {
            peak = (a.queued_sections(), a.held_bytes());
        }
    }
    assert_eq!(peak.0, rounds + 2);
    assert!(a.queued_sections() <= 4, "{} queued", a.queued_sections());
    assert!(
        2 * a.held_bytes() < peak.1,
        "{} bytes held after, {} at the burst",
        a.held_bytes(),
        peak.1
    );
    let races: Vec<_> = a
        .races()
        .iter()
        .map(|r| (r.partner.index, r.racy.index))
        .collect();
    assert!(!races.is_empty());
    assert_eq!(races, reference(&trace));
}
