//! The streaming happens-before pass (shared epochs) against the reference (a fresh epoch per
//! event): for every pair of events, the same answer.

use hindsight_order::reference::EventClocks;
use hindsight_order::HappensBefore;
use hindsight_trace::arbitrary::{requests_from_choices, trace_from_choices, Requests, Shape};
use hindsight_trace::{Op, Trace};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn epochs_decide_happens_before_exactly(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=4,
        odd in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let reference = EventClocks::compute(&trace);
        let mut hb = HappensBefore::new();
        // Every clock sharing its dense prefix from the first fork on: the same clocks.
        let mut shared = HappensBefore::new().sharing_dense_from(0);
        // Driven with `plain` at the events that order nothing, as the pipelined driver does
        // at calls: the same clocks.
        let mut plain = HappensBefore::new();
        let mut stamps = Vec::new();
        for e in &trace.events {
            hb.before(e);
            stamps.push((hb.epoch(e.thread), hb.clock(e.thread).clone()));
            hb.after(e);
            shared.before(e);
            prop_assert_eq!(shared.clock(e.thread), &stamps[stamps.len() - 1].1);
            shared.after(e);
            let orders_nothing = matches!(
                e.op,
                Op::Read(_)
                    | Op::Write(_)
                    | Op::AtomicLoad(_)
                    | Op::AtomicStore(_)
                    | Op::AtomicRmw(_)
                    | Op::Request(_)
                    | Op::Begin(_)
                    | Op::End
                    | Op::Call(_)
            );
            if orders_nothing {
                plain.plain(e.thread);
            } else {
                plain.before(e);
            }
            prop_assert_eq!(plain.clock(e.thread), &stamps[stamps.len() - 1].1);
            if !orders_nothing {
                plain.after(e);
            }
        }
        for j in 0..trace.events.len() {
            for i in 0..j {
                let (epoch_i, _) = &stamps[i];
                let fast = epoch_i.happens_before(&stamps[j].1);
                prop_assert_eq!(
                    fast,
                    reference.happens_before(i, j),
                    "events {} and {}", i, j
                );
                // Happens-before never points backwards in the trace.
                prop_assert!(!reference.happens_before(j, i));
            }
        }
    }
}

/// The trace with its lock operations turned into operations that order nothing.
fn without_locks(trace: &Trace) -> Trace {
    let mut t = trace.clone();
    for e in &mut t.events {
        if matches!(e.op, Op::Acquire(_) | Op::Release(_)) {
            e.op = Op::End;
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Without lock edges, the pass orders events as the reference orders the same trace with
    /// its acquires and releases erased.
    #[test]
    fn without_lock_edges_is_happens_before_of_the_lock_free_trace(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=4,
        odd in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let reference = EventClocks::compute(&without_locks(&trace));
        let mut hb = HappensBefore::without_lock_edges();
        let mut stamps = Vec::new();
        for e in &trace.events {
            hb.before(e);
            stamps.push((hb.epoch(e.thread), hb.clock(e.thread).clone()));
            hb.after(e);
        }
        for j in 0..trace.events.len() {
            for i in 0..j {
                prop_assert_eq!(
                    stamps[i].0.happens_before(&stamps[j].1),
                    reference.happens_before(i, j),
                    "events {} and {}", i, j
                );
            }
        }
    }
}

/// A release followed by another thread's acquire of the same lock: ordered with lock edges,
/// not without.
#[test]
fn a_critical_section_does_not_order_the_next_without_lock_edges() {
    use hindsight_trace::TextReader;
    let text = "T0|fork(T1)\nT0|acq(L)\nT0|w(x)\nT0|rel(L)\nT1|acq(L)\nT1|w(x)\nT1|rel(L)\n";
    let trace = Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a trace");
    for (mut hb, ordered) in [
        (HappensBefore::new(), true),
        (HappensBefore::without_lock_edges(), false),
    ] {
        let mut stamps = Vec::new();
        for e in &trace.events {
            hb.before(e);
            stamps.push((hb.epoch(e.thread), hb.clock(e.thread).clone()));
            hb.after(e);
        }
        // The write of T0 (event 2) against the write of T1 (event 5); the fork orders both.
        assert_eq!(stamps[2].0.happens_before(&stamps[5].1), ordered);
        assert!(stamps[0].0.happens_before(&stamps[5].1));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Thread-per-request traces (the main thread forks and joins short threads that lock,
    /// access and message, with ids past the clocks' dense prefix and far enough apart to give
    /// their tree several levels): the streaming pass orders every pair of events as the
    /// reference does, with lock edges and without, and with the clocks' dense prefix kept
    /// in the shared tree from a random fork on.
    #[test]
    fn many_short_threads_are_ordered_exactly(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..300),
        first in 1u32..100,
        stride in 1u32..40,
        in_flight in 1u8..6,
        share in 0usize..200,
    ) {
        let shape = Requests { first, stride, in_flight, vars: 3, locks: 2, msgs: 2 };
        let trace = requests_from_choices(&choices, shape);
        for (mut hb, relation) in [
            (HappensBefore::new(), trace.clone()),
            (HappensBefore::without_lock_edges(), without_locks(&trace)),
            (HappensBefore::new().sharing_dense_from(share), trace.clone()),
            (
                HappensBefore::without_lock_edges().sharing_dense_from(share),
                without_locks(&trace),
            ),
        ] {
            let reference = EventClocks::compute(&relation);
            let mut stamps = Vec::new();
            for e in &trace.events {
                hb.before(e);
                stamps.push((hb.epoch(e.thread), hb.clock(e.thread).clone()));
                hb.after(e);
            }
            for j in 0..trace.events.len() {
                for i in 0..j {
                    prop_assert_eq!(
                        stamps[i].0.happens_before(&stamps[j].1),
                        reference.happens_before(i, j),
                        "events {} and {}", i, j
                    );
                }
            }
        }
    }
}
