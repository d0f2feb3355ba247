//! What a predictive model adds to happens-before (`races --model M --beyond hb`, and the
//! `predicted` mark without it), against a literal happens-before: the transitive closure of
//! program order, release to later acquire of the lock, fork to the child, the child to its
//! join, and the latest send of a message to its receive (docs/format-std.md), over small
//! random traces.

use hindsight_predict::found::Race;
use hindsight_predict::osr::Osr;
use hindsight_predict::shb::{Options, Shb};
use hindsight_predict::syncp::SyncP;
use hindsight_predict::wcp::Wcp;
use hindsight_predict::{analysis, Model};
use hindsight_stream::groups::Granularity;
use hindsight_stream::{run, Observer, RunOptions};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{Op, TextReader, Trace};
use proptest::prelude::*;
use std::collections::BTreeSet;

mod common;
use common::drive;

fn options(beyond_hb: bool) -> Options {
    Options {
        granularity: Granularity::EveryEvent,
        witnesses: false,
        beyond_hb,
    }
}

/// `before[i][j]`: event `i` happens before event `j` (i < j), by the definition.
fn happens_before(trace: &Trace) -> Vec<Vec<bool>> {
    let es = &trace.events;
    let n = es.len();
    let mut before = vec![vec![false; n]; n];
    for j in 0..n {
        for i in 0..j {
            let (a, b) = (&es[i], &es[j]);
            before[i][j] = a.thread == b.thread
                || matches!((&a.op, &b.op), (Op::Release(l), Op::Acquire(m)) if l == m)
                || matches!(a.op, Op::Fork(t) if t == b.thread)
                || matches!(b.op, Op::Join(t) if t == a.thread)
                || matches!((&a.op, &b.op), (Op::Send(x), Op::Receive(y)) if x == y
                    && !es[i + 1..j].iter().any(|c| c.op == Op::Send(*x)));
        }
    }
    // Warshall's closure; edges only go forward in the trace.
    for k in 0..n {
        let after_k = before[k].clone();
        for row in before.iter_mut().take(k) {
            if row[k] {
                for (b, &r) in row.iter_mut().zip(&after_k).skip(k + 1) {
                    *b |= r;
                }
            }
        }
    }
    before
}

fn races(model: Model, trace: &Trace, beyond_hb: bool) -> Vec<Race> {
    let o = options(beyond_hb);
    fn go<A: Observer>(mut a: A, trace: &Trace, races: impl Fn(&A) -> Vec<Race>) -> Vec<Race> {
        drive(trace, &mut a);
        races(&a)
    }
    match model {
        Model::Shb => go(Shb::new(o), trace, |a| a.races().to_vec()),
        Model::Wcp => go(Wcp::new(o), trace, |a| a.races().to_vec()),
        Model::SyncP => go(SyncP::new(o), trace, |a| a.races().to_vec()),
        Model::Osr => go(Osr::new(o), trace, |a| a.races().to_vec()),
        Model::Hb => unreachable!("happens-before adds nothing to itself"),
    }
}

fn pairs(races: &[Race]) -> BTreeSet<(u64, u64)> {
    races
        .iter()
        .map(|r| (r.partner.index, r.racy.index))
        .collect()
}

fn check(trace: &Trace) -> Result<(), TestCaseError> {
    let before = happens_before(trace);
    for model in [Model::Shb, Model::Wcp, Model::SyncP, Model::Osr] {
        let all = races(model, trace, false);
        for r in &all {
            let ordered = before[r.partner.index as usize][r.racy.index as usize];
            prop_assert_eq!(r.hb_ordered, ordered, "{:?} {:?}", model, r);
        }
        let added: Vec<Race> = all.iter().copied().filter(|r| r.hb_ordered).collect();
        prop_assert_eq!(
            pairs(&races(model, trace, true)),
            pairs(&added),
            "{:?}",
            model
        );
    }
    Ok(())
}

fn shape() -> impl Strategy<Value = Shape> {
    (2u8..=3, 1u8..=2, 1u8..=2).prop_map(|(threads, vars, locks)| Shape {
        threads,
        vars,
        locks,
        msgs: 1,
        odd: false,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn the_races_beyond_happens_before_are_those_it_orders(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..24),
        shape in shape(),
    ) {
        // Threads forked first, so that they meet within a couple of dozen events.
        let forks = (1..shape.threads).map(|u| (0, 6, u));
        let all: Vec<(u8, u8, u8)> = forks.chain(choices).collect();
        check(&trace_from_choices(&all, shape))?;
    }
}

/// The README's example: a write under a lock in each thread, the critical sections in the
/// observed order: happens-before orders the writes, WCP does not; the one race is marked,
/// and `--beyond hb` keeps it; a happens-before race is not marked and goes.
#[test]
fn marks_and_keeps_only_what_the_model_adds() {
    let text = "\
T1|fork(T2)
T1|acq(l)
T1|w(x)|A.java:3
T1|rel(l)
T2|acq(l)
T2|r(y)
T2|rel(l)
T2|w(x)|B.java:9
T2|w(z)|B.java:10
T1|w(z)|A.java:11
";
    let report = |beyond_hb: bool, granularity: Granularity| {
        let o = Options {
            granularity,
            witnesses: false,
            beyond_hb,
        };
        let mut out = run(
            &mut TextReader::new(text.as_bytes()),
            vec![analysis(Model::Wcp, o)],
            RunOptions::default(),
        )
        .expect("a valid trace");
        out.outputs.remove(0).1
    };
    for granularity in [Granularity::Grouped, Granularity::EveryEvent] {
        let all = report(false, granularity);
        let marked: Vec<&str> = all
            .findings
            .iter()
            .filter(|f| {
                f.message
                    .ends_with("; predicted: not a happens-before race")
            })
            .map(|f| f.fields["variable"].as_str().unwrap())
            .collect();
        assert_eq!(all.findings.len(), 2, "{:#?}", all.findings);
        assert_eq!(marked, ["x"], "{:#?}", all.findings);
        assert_eq!(all.summary["beyond_hb_events"], 1);
        let only = report(true, granularity);
        assert_eq!(only.findings.len(), 1);
        assert_eq!(only.findings[0].fields["variable"], "x");
        assert_eq!(
            only.findings[0].fields["beyond_hb"],
            all.findings[0].fields["beyond_hb"]
        );
        assert_eq!(only.summary["racy_events"], 1);
        assert_eq!(only.summary["only"], "beyond hb");
    }
}
