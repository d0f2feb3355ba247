//! The enumerators of `cuts` against the definition: the reference enumerator (every per-process
//! index vector, kept when consistent by Section 2.4's definition checked event by event) must
//! agree with BFS, Lex, QuickLex and ParaMount (1, 2, 4 threads; each subroutine) on the set of
//! states of thousands of small random posets; Lex and QuickLex must produce lexical order; the
//! poset of a trace must order elements exactly as the reference happens-before relation does;
//! and the thesis's worked examples are rebuilt from what its text says of them.

use hindsight_order::reference::EventClocks;
use hindsight_states::cuts::generate::{generate_poset, PosetGenConfig};
use hindsight_states::cuts::paramount::{children, intervals, paramount, Online, Part, Plan};
use hindsight_states::cuts::poset::{Poset, Selection, TracePoset};
use hindsight_states::cuts::poset_file::{
    event_line, parse_poset, parse_poset_in_order, write_poset,
};
use hindsight_states::cuts::quicklex::QuickLex;
use hindsight_states::cuts::{bounded, count, count_parallel, enumerate, Algorithm, Visitor};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use proptest::prelude::*;
use std::ops::ControlFlow;

fn states(poset: &Poset, algorithm: Algorithm) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let _ = enumerate(poset, algorithm, &mut |g: &[u32]| {
        out.push(g.to_vec());
        ControlFlow::Continue(())
    });
    out
}

fn paramount_states(poset: &Poset, threads: usize, algorithm: Algorithm) -> Vec<Vec<u32>> {
    struct Collect(Vec<Vec<u32>>);
    impl Visitor for Collect {
        fn visit(&mut self, g: &[u32]) -> ControlFlow<()> {
            self.0.push(g.to_vec());
            ControlFlow::Continue(())
        }
    }
    paramount(
        poset,
        threads,
        algorithm,
        |_| Collect(Vec::new()),
        |_, c, _| c.0,
    )
    .into_iter()
    .flatten()
    .collect()
}

fn sorted(mut v: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    v.sort();
    v
}

/// Every algorithm agrees with the reference; `Lex` and `QuickLex` in the same (lexical) order.
fn check_all(poset: &Poset) -> Result<(), TestCaseError> {
    let reference = states(poset, Algorithm::Brute);
    // The reference is an odometer, so it is in lexical order and has no repeats.
    prop_assert!(reference.windows(2).all(|w| w[0] < w[1]));
    prop_assert_eq!(&states(poset, Algorithm::Lex), &reference, "lex");
    prop_assert_eq!(&states(poset, Algorithm::QuickLex), &reference, "quicklex");
    prop_assert_eq!(
        sorted(states(poset, Algorithm::Bfs)),
        reference.clone(),
        "bfs"
    );
    for threads in [1, 2, 4] {
        for sub in [Algorithm::QuickLex, Algorithm::Lex, Algorithm::Bfs] {
            let got = sorted(paramount_states(poset, threads, sub));
            prop_assert_eq!(&got, &reference, "paramount {} threads {:?}", threads, sub);
        }
    }
    Ok(())
}

fn small_poset() -> impl Strategy<Value = Poset> {
    (
        1usize..=4,
        0usize..=9,
        0.0f64..1.0,
        0.0f64..1.0,
        any::<u64>(),
    )
        .prop_map(|(processes, events, send, receive, seed)| {
            generate_poset(&PosetGenConfig {
                processes,
                events,
                send,
                receive,
                seed,
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_algorithm_agrees_with_the_definition(poset in small_poset()) {
        check_all(&poset)?;
    }

    #[test]
    fn intervals_partition_the_states(poset in small_poset()) {
        // Lemmas 2 and 3: each consistent state in exactly one interval I(e), whichever
        // topological order; both orders are topological (every prefix is consistent).
        for order in [poset.topological_order(), poset.priority_order()] {
        let mut prefix = vec![0u32; poset.processes()];
        prop_assert_eq!(order.len() as u64, poset.events());
        for &(p, i) in &order {
            prop_assert_eq!(prefix[p] + 1, i);
            prefix[p] = i;
            prop_assert!(poset.is_consistent(&prefix));
        }
        let ivs = intervals(&poset, &order);
        for g in states(&poset, Algorithm::Brute) {
            let n = ivs.iter().filter(|iv| {
                iv.lo.iter().zip(&g).all(|(a, b)| a <= b) && g.iter().zip(&iv.hi).all(|(a, b)| a <= b)
            }).count();
            prop_assert_eq!(n, usize::from(!ivs.is_empty()), "state {:?}", g);
        }
        }
    }
}

/// The states of `lo <= g <= hi`, by the reference, in lexical order.
fn brute_between(poset: &Poset, lo: &[u32], hi: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let _ = bounded(poset, Algorithm::Brute, lo, hi, &mut out);
    out
}

/// ParaMount's intervals of `poset` in priority order, with the one holding the empty state of
/// a poset without events.
fn intervals_of(poset: &Poset) -> Vec<hindsight_states::cuts::paramount::Interval> {
    Plan::new(poset, 1)
        .parts
        .into_iter()
        .map(|p: Part| hindsight_states::cuts::paramount::Interval {
            event: (0, 0),
            lo: p.lo,
            hi: p.hi,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Splitting a part by its first free process: each child's bounds are consistent, and
    /// the children's states, child after child, are exactly the part's, in lexical order.
    #[test]
    fn children_partition_a_part(poset in small_poset()) {
        for iv in intervals_of(&poset) {
            let part = Part { interval: 0, lo: iv.lo, hi: iv.hi };
            let whole = brute_between(&poset, &part.lo, &part.hi);
            let Some(kids) = children(&poset, &part) else {
                prop_assert_eq!(&part.lo, &part.hi);
                prop_assert_eq!(whole.len(), 1);
                continue;
            };
            let mut got = Vec::new();
            for kid in &kids {
                prop_assert!(poset.is_consistent(&kid.lo) && poset.is_consistent(&kid.hi));
                prop_assert!(kid.lo.iter().zip(&kid.hi).all(|(l, h)| l <= h));
                let mine = brute_between(&poset, &kid.lo, &kid.hi);
                prop_assert!(!mine.is_empty(), "an empty child {:?}", kid);
                got.extend(mine);
            }
            prop_assert_eq!(got, whole);
        }
    }

    /// A plan split to any number of parts: the parts' states, part after part, are the
    /// intervals' states interval after interval (the same sequence, so a first satisfying
    /// state is the same whatever the split), every state of the poset exactly once; and the
    /// schedule takes every part once.
    #[test]
    fn split_plans_enumerate_every_state_once(poset in small_poset(), target in 1usize..40) {
        let whole = Plan::new(&poset, 1);
        let sequence = |plan: &Plan| -> Vec<Vec<u32>> {
            plan.parts.iter().flat_map(|p| brute_between(&poset, &p.lo, &p.hi)).collect()
        };
        let reference = sequence(&whole);
        prop_assert_eq!(sorted(reference.clone()), states(&poset, Algorithm::Brute));
        let split = Plan::split(&poset, intervals_of(&poset), target, 0.0);
        prop_assert_eq!(split.intervals, whole.intervals);
        prop_assert!(split.parts.len() >= target.min(reference.len()) || split.parts.len() == reference.len());
        prop_assert_eq!(&sequence(&split), &reference);
        let mut taken = split.schedule.clone();
        taken.sort_unstable();
        prop_assert_eq!(taken, (0..split.parts.len()).collect::<Vec<_>>());
        for threads in [1, 2, 3] {
            for sub in [Algorithm::QuickLex, Algorithm::Lex] {
                let got: Vec<Vec<u32>> = split
                    .run(&poset, threads, sub, |_| Vec::new(), |_, v: Vec<Vec<u32>>, _| v)
                    .into_iter()
                    .flatten()
                    .collect();
                prop_assert_eq!(&got, &reference, "{} threads {:?}", threads, sub);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The poset of a trace orders its elements as the reference happens-before relation orders
    /// the trace events, and every algorithm agrees on its states.
    #[test]
    fn trace_posets_follow_happens_before(
        choices in proptest::collection::vec((0u8..3, any::<u8>(), any::<u8>()), 0..14)
    ) {
        let trace = trace_from_choices(&choices, Shape { odd: false, ..Shape::default() });
        let tp = TracePoset::read(&mut trace.source(), &Selection::every_event()).unwrap();
        let hb = EventClocks::compute(&trace);
        let mut at = Vec::new();
        for p in 0..tp.poset.processes() {
            for i in 1..=tp.poset.len(p) {
                let e = &tp.element(p, i)[0];
                at.push((p, i, e.index as usize));
            }
        }
        prop_assert_eq!(at.len(), trace.events.len());
        for &(p, i, a) in &at {
            for &(q, j, b) in &at {
                if a != b {
                    prop_assert_eq!(tp.poset.happens_before(p, i, q, j), hb.happens_before(a, b),
                        "events {} and {}", a, b);
                }
            }
        }
        check_all(&tp.poset)?;
    }

    /// With any selection of relevant events, merged into event collections or not, the poset
    /// of a trace is what Section 3.5.4 and Fig. 3.7 say: each thread's elements are its
    /// relevant events in order, a collection being a longest run of them with no
    /// synchronisation event in it or between them (with merging; one event each without), and
    /// component `q` of an element's clock is the number of `q`'s elements whose first event
    /// happens before (or is) the element's first event.
    #[test]
    fn trace_posets_with_selections_follow_the_definition(
        choices in proptest::collection::vec(any::<(u8, u8, u8)>(), 0..30),
        odd in any::<bool>(),
        mask in any::<u16>(),
        merge in any::<bool>(),
    ) {
        use hindsight_trace::{Event, Names, Op};
        let trace = trace_from_choices(&choices, Shape { odd, ..Shape::default() });
        let relevant = |e: &Event, _: &Names| mask & (1 << e.op.kind()) != 0;
        let tp = TracePoset::read(&mut trace.source(), &Selection { relevant: &relevant, merge }).unwrap();
        let hb = EventClocks::compute(&trace);
        let sync = |op: &Op| matches!(
            op,
            Op::Acquire(_) | Op::Receive(_) | Op::Join(_) | Op::Release(_) | Op::Send(_) | Op::Fork(_)
        );
        for (p, &t) in tp.threads.iter().enumerate() {
            // The thread's relevant events, grouped by the definition.
            let mut groups: Vec<Vec<u64>> = Vec::new();
            let mut open = false;
            for e in trace.events.iter().filter(|e| e.thread == t) {
                let is_sync = sync(&e.op);
                if relevant(e, &trace.names) {
                    match groups.last_mut() {
                        Some(g) if merge && open && !is_sync => g.push(e.index),
                        _ => groups.push(vec![e.index]),
                    }
                    open = !is_sync;
                } else if is_sync {
                    open = false;
                }
            }
            let built: Vec<Vec<u64>> = (1..=tp.poset.len(p))
                .map(|i| tp.element(p, i).iter().map(|e| e.index).collect())
                .collect();
            prop_assert_eq!(&built, &groups, "thread {}", p);
        }
        let first = |q: usize, j: u32| tp.element(q, j)[0].index as usize;
        for p in 0..tp.poset.processes() {
            for i in 1..=tp.poset.len(p) {
                for q in 0..tp.poset.processes() {
                    let before = (1..=tp.poset.len(q))
                        .filter(|&j| (q, j) == (p, i) || hb.happens_before(first(q, j), first(p, i)))
                        .count() as u32;
                    prop_assert_eq!(tp.poset.clock(p, i)[q], before, "element {} of {}, component {}", i, p, q);
                }
            }
        }
        // Threads without relevant events are not processes.
        let with_events = (0..trace.names.threads.len())
            .filter(|&t| trace.events.iter().any(|e| e.thread.index() == t && relevant(e, &trace.names)))
            .count();
        prop_assert_eq!(tp.poset.processes(), with_events);
    }

    /// The online ParaMount (Algorithm 6), fed a trace in its order and flushed at random
    /// points, enumerates each state exactly once.
    #[test]
    fn online_paramount_agrees(poset in small_poset(), flush_every in 1usize..5) {
        let n = poset.processes();
        let mut online = Online::new(n, 2, Algorithm::QuickLex);
        let mut got = Vec::new();
        for (k, (p, i)) in poset.topological_order().into_iter().enumerate() {
            online.insert(p, poset.clock(p, i));
            if k % flush_every == 0 {
                got.extend(online.flush(|_| Vec::new(), |_, v: Vec<Vec<u32>>, _| v).into_iter().flatten());
            }
        }
        got.extend(online.flush(|_| Vec::new(), |_, v: Vec<Vec<u32>>, _| v).into_iter().flatten());
        if poset.is_empty() {
            got.push(vec![0; n]);
        }
        prop_assert_eq!(sorted(got), states(&poset, Algorithm::Brute));
    }
}

#[test]
fn larger_posets_agree_across_algorithms() {
    for (processes, events, seed) in [(6, 60, 1), (10, 60, 2), (4, 80, 3), (8, 64, 4)] {
        let poset = generate_poset(&PosetGenConfig {
            processes,
            events,
            send: 0.3,
            receive: 0.6,
            seed,
        });
        let quick = count(&poset, Algorithm::QuickLex);
        assert_eq!(count(&poset, Algorithm::Lex), quick);
        assert_eq!(count(&poset, Algorithm::Bfs), quick);
        for t in [1, 2, 4, 16] {
            assert_eq!(count_parallel(&poset, Algorithm::QuickLex, t), quick);
            assert_eq!(count_parallel(&poset, Algorithm::Lex, t), quick);
        }
        assert!(quick > 1000, "a non-trivial poset: {quick} states");
    }
}

/// Fig. 1.1/1.2: t1 runs a1: r(x), a2: send, a3: w(x); t2 runs b1: receive, b2: w(x); a2 -> b1.
/// The text names G1..G8 as the consistent states (8 of them), G4 = {a1, a2, a3}, and the
/// write-write race in G8 = frontier (a3, b2).
#[test]
fn figure_1_2() {
    let poset = parse_poset("0:(1,0)\n0:(2,0)\n0:(3,0)\n1:(2,1)\n1:(2,2)\n").unwrap();
    let s = states(&poset, Algorithm::QuickLex);
    assert_eq!(s.len(), 8);
    assert!(s.contains(&vec![3, 0]), "G4");
    assert!(s.contains(&vec![3, 2]), "G8");
    assert!(!s.contains(&vec![1, 1]), "b1 needs a2");
    assert!(poset.concurrent(0, 3, 1, 2), "a3 || b2");
}

/// Section 3.1, Figs. 3.1-3.4: two processes, e then f on p1, g then h on p2, with g -> f
/// (so that G_min(f) = [2, 1]): the text gives G_min(e) = [1, 0], G_max(e) = [1, 2] and, for
/// the order e, g, f, h, G_bnd(e) = [1, 0], G_bnd(g) = [1, 1], G_bnd(f) = [2, 1],
/// G_bnd(h) = [2, 2]; [0, 0] belongs to I(e).
#[test]
fn section_3_1_intervals() {
    let poset = parse_poset("0:(1,0)\n1:(0,1)\n0:(2,1)\n1:(0,2)\n").unwrap();
    let order = [(0, 1), (1, 1), (0, 2), (1, 2)];
    let ivs = intervals(&poset, &order);
    let hi: Vec<Vec<u32>> = ivs.iter().map(|iv| iv.hi.clone()).collect();
    assert_eq!(hi, vec![vec![1, 0], vec![1, 1], vec![2, 1], vec![2, 2]]);
    assert_eq!(ivs[0].lo, vec![0, 0]);
    assert_eq!(ivs[2].lo, vec![2, 1]);
    let mut per_interval = Vec::new();
    for iv in &ivs {
        let mut v = Vec::new();
        let _ = bounded(
            &poset,
            Algorithm::QuickLex,
            &iv.lo,
            &iv.hi,
            &mut |g: &[u32]| {
                v.push(g.to_vec());
                ControlFlow::Continue(())
            },
        );
        per_interval.push(v);
    }
    assert_eq!(per_interval[0], vec![vec![0, 0], vec![1, 0]]);
    assert_eq!(per_interval[1], vec![vec![0, 1], vec![1, 1]]);
    assert_eq!(per_interval[2], vec![vec![2, 1]]);
    assert_eq!(per_interval[3], vec![vec![0, 2], vec![1, 2], vec![2, 2]]);
    // G_max(e): the greatest state with e in its frontier.
    let with_e: Vec<Vec<u32>> = states(&poset, Algorithm::Brute)
        .into_iter()
        .filter(|g| g[0] == 1)
        .collect();
    assert_eq!(with_e.iter().max(), Some(&vec![1, 2]));
}

/// Fig. 2.2: the text quotes e7 = [0, 2, 3] (third event of p3, after e3, the second of p2),
/// e6 = [0, 2, 2] after its predecessor e5 = [0, 0, 1] and e3 -> e6, and the frontier
/// G'' = [1, 2, 2] is consistent. Section 4.2 adds: remote event of e6 is e3.
#[test]
fn figure_2_2_clocks() {
    let poset =
        parse_poset("0:(1,0,0)\n1:(0,1,0)\n1:(0,2,0)\n2:(0,0,1)\n2:(0,2,2)\n2:(0,2,3)\n").unwrap();
    assert_eq!(poset.clock(2, 3), &[0, 2, 3]);
    assert_eq!(poset.clock(2, 2), &[0, 2, 2]);
    assert!(poset.is_consistent(&[1, 2, 2]));
    assert!(!poset.is_consistent(&[1, 1, 2]), "G' leaves out e3 -> e6");
    let q = QuickLex::new(&poset);
    assert_eq!(q.remote_events(2, 2), &[(1, 2)]);
    assert_eq!(q.remote_events(2, 3), &[] as &[(u32, u32)]);
}

fn racy_by_definition(trace: &hindsight_trace::Trace) -> bool {
    use hindsight_trace::Op;
    let hb = EventClocks::compute(trace);
    let acc = |op: &Op| match op {
        Op::Read(x) => Some((*x, false)),
        Op::Write(x) => Some((*x, true)),
        _ => None,
    };
    let ev = &trace.events;
    (0..ev.len()).any(|a| {
        (0..ev.len()).any(|b| {
            ev[a].thread != ev[b].thread
                && matches!((acc(&ev[a].op), acc(&ev[b].op)), (Some((x, wa)), Some((y, wb))) if x == y && (wa || wb))
                && !hb.happens_before(a, b)
                && !hb.happens_before(b, a)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Algorithms 7/8: some consistent state has a race on its frontier iff two conflicting
    /// accesses of different threads are concurrent; with event collections or without, and
    /// whichever events enter the poset.
    #[test]
    fn race_predicate_matches_the_definition(
        choices in proptest::collection::vec((0u8..3, any::<u8>(), any::<u8>()), 0..14),
        merge in any::<bool>(),
        every in any::<bool>(),
    ) {
        use hindsight_states::cuts::predicate::parse_predicate;
        let trace = trace_from_choices(&choices, Shape { odd: false, ..Shape::default() });
        let pred = parse_predicate("race").unwrap();
        let relevant = |e: &hindsight_trace::Event, n: &hindsight_trace::Names| every || pred.relevant(e, n);
        let tp = TracePoset::read(&mut trace.source(), &Selection { relevant: &relevant, merge }).unwrap();
        let bound = pred.bind(&tp).unwrap();
        let mut found = false;
        let _ = enumerate(&tp.poset, Algorithm::QuickLex, &mut |g: &[u32]| {
            if bound.holds(g) {
                found = true;
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        prop_assert_eq!(found, racy_by_definition(&trace));
    }

    /// `count(c)` is the number of processes whose frontier event matches `c`, by brute force
    /// over every state, and `atleast`/`exists`/`at` agree with it.
    #[test]
    fn counting_predicates_count(
        choices in proptest::collection::vec((0u8..3, any::<u8>(), any::<u8>()), 0..12),
    ) {
        use hindsight_states::cuts::predicate::parse_predicate;
        let trace = trace_from_choices(&choices, Shape { odd: false, ..Shape::default() });
        let tp = TracePoset::read(&mut trace.source(), &Selection::every_event()).unwrap();
        let names = &tp.names;
        for k in 0..4i64 {
            let p = parse_predicate(&format!("count(op == w || op == acq) == {k} && (atleast({k}, op == w || op == acq) && !atleast({}, op == w || op == acq))", k + 1)).unwrap();
            let b = p.bind(&tp).unwrap();
            let _ = enumerate(&tp.poset, Algorithm::Lex, &mut |g: &[u32]| {
                let by_hand = (0..g.len()).filter(|&q| g[q] > 0 && {
                    let e = &tp.element(q, g[q])[0];
                    matches!(e.op, hindsight_trace::Op::Write(_) | hindsight_trace::Op::Acquire(_))
                }).count() as i64;
                assert_eq!(b.holds(g), by_hand == k, "state {g:?}");
                ControlFlow::Continue(())
            });
        }
        let _ = names;
    }
}

#[test]
fn predicate_errors_have_line_and_column() {
    use hindsight_states::cuts::predicate::parse_predicate;
    let cases = [
        (
            "count(op == w) >=",
            1,
            18,
            "expected a predicate or a number",
        ),
        (
            "race &&\n  count(op = w) > 1",
            2,
            12,
            "unexpected character `=`",
        ),
        ("count(op == w)", 1, 1, "a number is not a predicate"),
        ("exists(colour == red)", 1, 8, "unknown field `colour`"),
        ("race race", 1, 6, "expected `&&`, `||` or the end"),
        ("at(T1 op == w)", 1, 7, "expected `,`"),
        ("frobnicate", 1, 1, "unknown word `frobnicate`"),
        ("\"open", 1, 1, "unterminated string"),
    ];
    for (text, line, column, want) in cases {
        let e = parse_predicate(text).unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (line, column), "{text}: {e}");
        assert!(e.message.contains(want), "{text}: {e}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    use hindsight_states::cuts::predicate::parse_predicate;
    for deep in [
        format!("{}race", "(".repeat(100_000)),
        format!("{}race", "!".repeat(100_000)),
        format!("exists({}op == w)", "(".repeat(100_000)),
        format!("exists({}op == w)", "!".repeat(100_000)),
    ] {
        let e = parse_predicate(&deep).unwrap_err();
        assert_eq!(e.message, "nested more than 128 deep", "{e}");
    }
    let nested = format!("{}race{}", "(".repeat(100), ")".repeat(100));
    assert!(parse_predicate(&nested).is_ok());
}

/// Whether the event lines of `text` come in an order consistent with their clocks: each
/// process's events in order, each after every event its clock names.
fn in_clock_order(text: &str) -> bool {
    let mut read: Vec<u32> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let Ok(Some(l)) = event_line(raw, i + 1, None) else {
            continue;
        };
        read.resize(read.len().max(l.clock.len()), 0);
        for (q, &c) in l.clock.iter().enumerate() {
            let ok = if q == l.pid {
                c == read[q] + 1
            } else {
                c <= read[q]
            };
            if !ok {
                return false;
            }
        }
        read[l.pid] += 1;
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The line-by-line validator of `cuts --online` accepts exactly what `parse_poset` accepts
    /// among files whose lines come in clock order, with the same poset, and never accepts
    /// what `parse_poset` rejects: on a poset written in a topological order, then damaged.
    #[test]
    fn streaming_validation_agrees_with_parse_poset(
        poset in small_poset(),
        damage in 0u8..7,
        at in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
        value in 0u32..5,
    ) {
        let mut lines: Vec<String> = write_poset(&poset).lines().map(str::to_owned).collect();
        if !lines.is_empty() {
            let i = at.index(lines.len());
            let j = other.index(lines.len());
            match damage {
                1 => {
                    // One component changed.
                    let mut numbers: Vec<String> = lines[i]
                        .split(|c: char| !c.is_ascii_digit())
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned)
                        .collect();
                    let k = other.index(numbers.len());
                    numbers[k] = value.to_string();
                    lines[i] = format!("{}:({})", numbers[0], numbers[1..].join(","));
                }
                6 => {
                    // One component other than the own one raised or lowered by one.
                    let numbers: Vec<u32> = lines[i]
                        .split(|c: char| !c.is_ascii_digit())
                        .filter(|t| !t.is_empty())
                        .map(|t| t.parse().unwrap())
                        .collect();
                    let (pid, mut clock) = (numbers[0] as usize, numbers[1..].to_vec());
                    let k = other.index(clock.len());
                    if k != pid {
                        clock[k] = if value % 2 == 0 { clock[k] + 1 } else { clock[k].saturating_sub(1) };
                    }
                    let clock: Vec<String> = clock.iter().map(u32::to_string).collect();
                    lines[i] = format!("{pid}:({})", clock.join(","));
                }
                2 => { lines.remove(i); }
                3 => { let l = lines[i].clone(); lines.insert(j, l); }
                4 => lines.swap(i, j),
                5 => {
                    let k = value as usize % (lines[i].len() + 1);
                    lines[i].insert_str(k, "# 1,");
                }
                _ => {}
            }
        }
        let text = lines.join("\n");
        let whole = parse_poset(&text);
        let streamed = parse_poset_in_order(&text);
        match (&whole, &streamed) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(_), Ok(_)) => prop_assert!(false, "only the stream accepts {:?}", text),
            (Ok(_), Err(e)) => prop_assert!(
                !in_clock_order(&text),
                "the stream rejects a file in clock order: {} {:?}", e, text
            ),
            (Err(_), Err(_)) => {}
        }
        if damage == 0 {
            prop_assert!(streamed.is_ok());
        }
    }
}

#[test]
fn streaming_validation_messages() {
    for (text, want) in [
        (
            "0:(1,0)\n1:(0,1,0)\n",
            "2:1: the clock has 3 components but the one on line 1 has 2",
        ),
        (
            "0:(1,0)\n0:(3,0)\n",
            "2:1: event 3 of process 0 but process 0 has no event 2 yet",
        ),
        (
            "0:(1,0)\n0:(1,0)\n",
            "2:1: process 0 already has an event 1 (line 1)",
        ),
        (
            "0:(1,1)\n1:(0,1)\n",
            "1:1: component 1 is 1 but only 0 events of process 1 have been read: online",
        ),
        (
            "1:(0,1)\n0:(1,0)\n0:(2,2)\n",
            "3:1: component 1 is 2 but only 1 events",
        ),
        (
            "0:(1,0)\n1:(2,1)\n",
            "2:1: component 0 is 2 but only 1 events",
        ),
        (
            "0:(1,0)\n1:(1,1)\n0:(2,1)\n0:(3,0)\n",
            "4:1: component 1 is 0 but the previous",
        ),
        ("  0:(1,x)\n", "1:8: expected a clock component"),
    ] {
        let e = parse_poset_in_order(text).unwrap_err();
        assert!(e.to_string().starts_with(want), "{text:?}: {e}");
    }
}

/// ParaMount across the workers of a cluster (one process of 3 workers: the same split of the
/// parts among workers and the same exchange of results as across processes, without a
/// network): every state of the poset exactly once, each part's states in lexical order,
/// whatever the split; and a first-state search stops at the first state of the earliest part
/// holding one.
#[test]
fn cluster_workers_enumerate_every_state_once() {
    use hindsight_states::cuts::cluster::{run, Cluster, PartResult};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(1000));
    runner
        .run(
            &(small_poset(), 1usize..30, any::<bool>()),
            |(poset, target, first)| {
                let cluster = Cluster {
                    hosts: vec!["localhost:1".to_owned()],
                    process: 0,
                    threads: 3,
                    connect_timeout: std::time::Duration::from_secs(30),
                };
                let plan = Arc::new(Plan::split(&poset, intervals_of(&poset), target, 0.0));
                let shared = Arc::new(poset.clone());
                let results: Vec<PartResult> = run(&cluster, Arc::clone(&plan), 7, move |share| {
                    let quick = QuickLex::new(&shared);
                    while let Some(i) = share.next_part() {
                        let part = &share.plan().parts[i];
                        let best = share.best();
                        let mut seen: Vec<Vec<u32>> = Vec::new();
                        let flow = quick.enumerate(&part.lo, &part.hi, &mut |g: &[u32]| {
                            if best.load(Ordering::Relaxed) < i {
                                return ControlFlow::Break(());
                            }
                            seen.push(g.to_vec());
                            // A first-state search for any state with an event of process 0.
                            if first && g[0] > 0 {
                                best.fetch_min(i, Ordering::Relaxed);
                                return ControlFlow::Break(());
                            }
                            ControlFlow::Continue(())
                        });
                        share.done(PartResult {
                            part: i,
                            check: 7,
                            states: seen.len() as u64,
                            satisfying: 0,
                            found: seen,
                            complete: flow.is_continue(),
                        });
                    }
                })
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(results.len(), plan.parts.len());
                let sequence: Vec<Vec<u32>> = plan
                    .parts
                    .iter()
                    .flat_map(|p| brute_between(&poset, &p.lo, &p.hi))
                    .collect();
                if !first {
                    let got: Vec<Vec<u32>> = results.into_iter().flat_map(|r| r.found).collect();
                    prop_assert_eq!(got, sequence);
                    return Ok(());
                }
                // The first state with an event of process 0 in enumeration order, and the parts
                // before its part enumerated in full.
                let expected = sequence.iter().find(|g| !g.is_empty() && g[0] > 0);
                let mut got = None;
                for r in &results {
                    if let Some(g) = r.found.last().filter(|g| !g.is_empty() && g[0] > 0) {
                        got = Some(g.clone());
                        break;
                    }
                    let part = &plan.parts[r.part];
                    prop_assert_eq!(&r.found, &brute_between(&poset, &part.lo, &part.hi));
                }
                prop_assert_eq!(got.as_ref(), expected);
                Ok(())
            },
        )
        .unwrap();
}
