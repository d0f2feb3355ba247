//! The windows of `timelines` against their definition, computed over the whole trace held in
//! memory: for each thread of the finding, the last C events before its first event, the first
//! C and last C between its first and last, the first C after its last; the locks each holds;
//! the edges into kept events from kept events (the last release of an acquired lock, the
//! joined thread's last event, else the fork of a thread for its first event after the fork), with whether each lies on a
//! happens-before path from the finding's first event to its last (the reference relation, a
//! full vector clock per event).

use hindsight_order::reference::EventClocks;
use hindsight_report::{EventRef, Finding, Report, Timeline};
use hindsight_stream::timelines::{draw_timelines_from, TimelineOptions};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{LockId, Op, Trace};
use proptest::prelude::*;
use std::collections::BTreeSet;

const CONTEXT: usize = 2;

/// Whether event `i` happens before or is event `j`.
fn hb(clocks: &EventClocks, i: usize, j: usize) -> bool {
    i == j || clocks.happens_before(i, j)
}

/// (kept indices, edges as (from, to, orders pair), held locks per kept event, ordered).
type Window = (
    Vec<u64>,
    Vec<(u64, u64, bool)>,
    Vec<Vec<String>>,
    Option<bool>,
);

fn by_definition(trace: &Trace, marks: &[usize]) -> Window {
    let ev = &trace.events;
    let clocks = EventClocks::compute(trace);
    let (first, last) = (marks[0], *marks.last().unwrap());
    let lanes: BTreeSet<_> = marks.iter().map(|&m| ev[m].thread).collect();
    let mut kept: BTreeSet<usize> = marks.iter().copied().collect();
    for &t in &lanes {
        let own: Vec<usize> = (0..ev.len()).filter(|&i| ev[i].thread == t).collect();
        let before: Vec<usize> = own.iter().copied().filter(|&i| i < first).collect();
        let between: Vec<usize> = own
            .iter()
            .copied()
            .filter(|&i| i > first && i < last)
            .collect();
        let after: Vec<usize> = own.iter().copied().filter(|&i| i > last).collect();
        kept.extend(before.iter().rev().take(CONTEXT));
        kept.extend(between.iter().take(CONTEXT));
        kept.extend(between.iter().rev().take(CONTEXT));
        kept.extend(after.iter().take(CONTEXT));
    }
    let mut edges = Vec::new();
    let mut held = Vec::new();
    for &j in &kept {
        let from = match ev[j].op {
            Op::Acquire(l) => (0..j).rev().find(|&i| ev[i].op == Op::Release(l)),
            Op::Join(u) => (0..j).rev().find(|&i| ev[i].thread == u),
            _ => None,
        };
        // A fork reaches the forked thread's first event after it.
        let fork = (0..j)
            .rev()
            .find(|&i| ev[i].op == Op::Fork(ev[j].thread))
            .filter(|&f| !(f + 1..j).any(|i| ev[i].thread == ev[j].thread));
        let from = from.or(fork);
        if let Some(i) = from.filter(|i| kept.contains(i)) {
            edges.push((
                i as u64,
                j as u64,
                hb(&clocks, first, i) && hb(&clocks, j, last),
            ));
        }
        let mut stack: Vec<LockId> = Vec::new();
        for e in ev[..=j].iter().filter(|e| e.thread == ev[j].thread) {
            match e.op {
                Op::Acquire(l) => stack.push(l),
                Op::Release(l) if e.index != ev[j].index => {
                    if let Some(p) = stack.iter().rposition(|&h| h == l) {
                        stack.remove(p);
                    }
                }
                _ => {}
            }
        }
        held.push(
            stack
                .iter()
                .map(|&l| trace.names.lock(l).to_owned())
                .collect(),
        );
    }
    let ordered = (first != last).then(|| hb(&clocks, first, last));
    (
        kept.iter().map(|&i| i as u64).collect(),
        edges,
        held,
        ordered,
    )
}

fn drawn(trace: &Trace, marks: &[usize]) -> Timeline {
    let mut report = Report::new("races");
    report.findings.push(Finding {
        kind: "data-race".into(),
        message: String::new(),
        occurrences: None,
        events: marks
            .iter()
            .map(|&m| EventRef {
                index: m as u64,
                thread: trace.names.thread(trace.events[m].thread).to_owned(),
                op: String::new(),
                location: None,
            })
            .collect(),
        fields: Default::default(),
        group: None,
    });
    let options = TimelineOptions {
        findings: 1,
        context: CONTEXT,
        keep_lock_order: false,
    };
    let mut reports = [report];
    draw_timelines_from(&mut trace.source(), &mut reports, options).expect("a valid trace");
    let [report] = reports;
    report
        .figures
        .timelines
        .into_iter()
        .next()
        .expect("a timeline")
        .1
}

fn fast(trace: &Trace, marks: &[usize]) -> Window {
    let t = drawn(trace, marks);
    let index = |i: usize| t.events[i].event.index;
    (
        t.events.iter().map(|e| e.event.index).collect(),
        t.edges
            .iter()
            .map(|e| (index(e.from), index(e.to), e.orders_pair))
            .collect(),
        t.events.iter().map(|e| e.held.clone()).collect(),
        t.ordered,
    )
}

fn shape() -> impl Strategy<Value = Shape> {
    (2u8..=4, 1u8..=2, 1u8..=3, 1u8..=2, any::<bool>()).prop_map(
        |(threads, vars, locks, msgs, odd)| Shape {
            threads,
            vars,
            locks,
            msgs,
            odd,
        },
    )
}

/// The arbitrary trace as the pass numbers it (late releases repaired).
fn repaired(choices: &[(u8, u8, u8)], shape: Shape) -> Trace {
    let trace = trace_from_choices(choices, shape);
    Trace::collect(&mut hindsight_trace::LockRepair::new(trace.source(), true)).expect("in memory")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn windows_match_the_definition(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 1..60),
        shape in shape(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
    ) {
        let trace = repaired(&choices, shape);
        prop_assume!(!trace.events.is_empty());
        let mut marks: Vec<usize> = picks.iter().map(|p| p.index(trace.events.len())).collect();
        marks.sort_unstable();
        marks.dedup();
        let shown: Vec<String> = trace.events.iter().map(|e| format!("{} {} {}", e.index, trace.names.thread(e.thread), e.display_op(&trace.names))).collect();
        prop_assert_eq!(fast(&trace, &marks), by_definition(&trace, &marks), "marks {:?} in\n{}", marks, shown.join("\n"));
    }
}

/// Fig.-style example: a race on `balance` whose partners are not ordered; the lock's edge
/// from T1's release to T2's acquire comes after the racy read, so it orders nothing.
#[test]
fn bank_example() {
    let text = "T0|fork(T1)\nT0|fork(T2)\nT1|acq(L)\nT1|r(b)\nT1|w(b)\nT1|rel(L)\nT2|r(b)\nT2|acq(L)\nT2|w(b)\nT2|rel(L)\n";
    let trace = Trace::collect(&mut hindsight_trace::TextReader::new(text.as_bytes())).unwrap();
    let t = drawn(&trace, &[4, 6]);
    assert_eq!(t.lanes, ["T1", "T2"]);
    assert_eq!(t.ordered, Some(false));
    let pair: Vec<u64> = t
        .events
        .iter()
        .filter(|e| e.highlight)
        .map(|e| e.event.index)
        .collect();
    assert_eq!(pair, [4, 6]);
    assert_eq!(
        t.events.iter().find(|e| e.event.index == 4).unwrap().held,
        ["L"]
    );
    assert_eq!(t.edges.len(), 1);
    assert_eq!(t.edges[0].label, "lock L");
    assert!(!t.edges[0].orders_pair);
    // The write of T2 under the lock is ordered after T1's write: that edge orders the pair.
    let t = drawn(&trace, &[4, 8]);
    assert_eq!(t.ordered, Some(true));
    assert!(t.edges.iter().any(|e| e.label == "lock L" && e.orders_pair));
}
