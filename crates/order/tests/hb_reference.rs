//! The streaming happens-before pass (shared epochs) against the reference (a fresh epoch per
//! event): for every pair of events, the same answer.

use hindsight_order::reference::EventClocks;
use hindsight_order::HappensBefore;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::Op;
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
        // Driven with `plain` at the events that order nothing, as the pipelined driver does
        // at calls: the same clocks.
        let mut plain = HappensBefore::new();
        let mut stamps = Vec::new();
        for e in &trace.events {
            hb.before(e);
            stamps.push((hb.epoch(e.thread), hb.clock(e.thread).clone()));
            hb.after(e);
            let orders_nothing = matches!(
                e.op,
                Op::Read(_) | Op::Write(_) | Op::Request(_) | Op::Begin(_) | Op::End | Op::Call(_)
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
