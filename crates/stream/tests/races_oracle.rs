//! `races` against the brute-force definition: for every access, look at every earlier access
//! of the same variable by another thread, at least one a write, and ask the reference
//! happens-before relation (a full vector clock per event) whether they are ordered.

use hindsight_order::reference::EventClocks;
use hindsight_order::HappensBefore;
use hindsight_rng::SplitMix64;
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::{run, Observer, RunOptions};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{Op, Trace, VarId};
use proptest::prelude::*;

fn access(op: &Op) -> Option<(VarId, bool)> {
    match op {
        Op::Read(x) => Some((*x, false)),
        Op::Write(x) => Some((*x, true)),
        _ => None,
    }
}

/// (racy event, latest earlier partner), by the definition.
fn brute_force(trace: &Trace) -> Vec<(u64, u64)> {
    let hb = EventClocks::compute(trace);
    let ev = &trace.events;
    let mut out = Vec::new();
    for j in 0..ev.len() {
        let Some((x, wj)) = access(&ev[j].op) else {
            continue;
        };
        let partner = (0..j).rev().find(|&i| {
            access(&ev[i].op).is_some_and(|(y, wi)| {
                y == x && (wi || wj) && ev[i].thread != ev[j].thread && !hb.happens_before(i, j)
            })
        });
        if let Some(i) = partner {
            out.push((j as u64, i as u64));
        }
    }
    out
}

fn fast(trace: &Trace) -> Vec<(u64, u64)> {
    let mut hb = HappensBefore::new();
    let mut races = Races::with_granularity(Granularity::EveryEvent);
    for e in &trace.events {
        hb.before(e);
        races
            .on_event(e, &hb, &trace.names)
            .expect("races accepts every event");
        hb.after(e);
    }
    races.races().iter().map(|r| (r.racy, r.partner)).collect()
}

fn shape() -> impl Strategy<Value = Shape> {
    (2u8..=4, 1u8..=3, 1u8..=3, 1u8..=2, any::<bool>()).prop_map(
        |(threads, vars, locks, msgs, odd)| Shape {
            threads,
            vars,
            locks,
            msgs,
            odd,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn races_match_the_definition(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..48),
        shape in shape(),
    ) {
        let trace = trace_from_choices(&choices, shape);
        prop_assert_eq!(fast(&trace), brute_force(&trace));
    }

    /// The same through the streaming driver (validator included): the arbitrary traces are
    /// all accepted, and the findings are the same set.
    #[test]
    fn driver_agrees(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..32),
        shape in shape(),
    ) {
        let trace = trace_from_choices(&choices, shape);
        let outcome = run(&mut trace.source(), vec![Box::new(Races::with_granularity(Granularity::EveryEvent))], RunOptions::default())
            .expect("arbitrary traces are valid");
        let found: Vec<(u64, u64)> = outcome.outputs[0]
            .1
            .findings
            .iter()
            .map(|f| (f.events[1].index, f.events[0].index))
            .collect();
        // The pass repairs late lock releases (and numbers events in the repaired order): the
        // reference reads the repaired log.
        let repaired = hindsight_trace::Trace::collect(&mut hindsight_trace::LockRepair::new(trace.source(), true))
            .expect("in memory");
        prop_assert_eq!(found, brute_force(&repaired));
    }
}

/// Long traces with few threads exercise the read-shared and multi-writer states.
#[test]
fn long_random_traces_match() {
    let mut rng = SplitMix64::new(0x5EED);
    let mut next = || rng.next_u64() as u8;
    for round in 0..200 {
        let choices: Vec<(u8, u8, u8)> = (0..300).map(|_| (next(), next(), next())).collect();
        let shape = Shape {
            threads: 2 + (round % 5) as u8,
            vars: 1 + (round % 3) as u8,
            locks: 1 + (round % 2) as u8,
            msgs: 2,
            odd: round % 2 == 0,
        };
        let trace = trace_from_choices(&choices, shape);
        assert_eq!(fast(&trace), brute_force(&trace), "round {round}");
    }
}

/// Many short threads on one or two variables, the shape of a fork of n workers or a thread per
/// request: the sets of concurrent accesses grow past `hindsight_order::latest::SMALL`, and the
/// check's walk from the latest access down (and what it remembers having passed) must give
/// the definition's latest partner, pair for pair.
#[test]
fn many_short_threads_match() {
    let mut rng = SplitMix64::new(0x7EAD5);
    let mut next = || rng.next_u64() as u8;
    for round in 0..300 {
        let choices: Vec<(u8, u8, u8)> = (0..250).map(|_| (next(), next(), next())).collect();
        let shape = Shape {
            threads: 9 + (round % 40) as u8,
            vars: 1 + (round % 2) as u8,
            locks: 1,
            msgs: 1,
            odd: round % 3 == 0,
        };
        let trace = trace_from_choices(&choices, shape);
        assert_eq!(fast(&trace), brute_force(&trace), "round {round}");
    }
}
