//! Oracles for `reach` on small random lock traces: the fast classes against the definitions
//! applied literally (`reach::brute`) and against reachability by simulation, and the theorems
//! of Chang's thesis that relate them (Figure 6.11, Theorems 14 and 17).

use hindsight_budget::Budget;
use hindsight_states::reach::brute;
use hindsight_states::reach::classes::Normalization;
use hindsight_states::reach::enumerate::{enumerate, Lex};
use hindsight_states::reach::loset::Loset;
use hindsight_states::reach::search::{self, replay, simulate, Order, Validity};
use hindsight_states::reach::{Reach, Verdict};
use hindsight_trace::{Event, LockId, MsgId, NameKind, Names, Op, ThreadId, VarId};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// A log from `(thread, action, target)` choices whose lock records may be out of order (a
/// thread may acquire a lock another holds), as RAPID's real logs are: its loset may be invalid.
fn out_of_order(choices: &[(u8, u8, u8)], threads: usize, locks: usize) -> Loset {
    let names = names(threads, locks);
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); locks]; // lock -> holders
    let mut sent = [false; 2];
    let mut events = Vec::new();
    for (k, &(a, b, c)) in choices.iter().enumerate() {
        let t = a as usize % threads;
        let l = c as usize % locks;
        let write = Op::Write(VarId(0));
        let op = match b % 8 {
            0..=2 => {
                if held[l].contains(&t) {
                    write
                } else {
                    held[l].push(t);
                    Op::Acquire(LockId(l as u32))
                }
            }
            3..=5 => {
                let mine: Vec<usize> = (0..locks).filter(|&x| held[x].contains(&t)).collect();
                if mine.is_empty() {
                    write
                } else {
                    let x = mine[c as usize % mine.len()];
                    held[x].retain(|&h| h != t);
                    Op::Release(LockId(x as u32))
                }
            }
            6 => {
                sent[c as usize % 2] = true;
                Op::Send(MsgId((c % 2) as u32))
            }
            _ => {
                if sent[c as usize % 2] {
                    Op::Receive(MsgId((c % 2) as u32))
                } else {
                    write
                }
            }
        };
        events.push(Event::new(k as u64, ThreadId(t as u32), op));
    }
    Loset::from_events(&events, names)
}

/// A valid trace from choices: each thread gets a program (critical sections of any lock order,
/// releases in any order, messages), then the programs are interleaved by a scheduler that only
/// lets a thread acquire a free lock or receive a sent message, stopping when none can move.
/// The recorded order is a run, so the loset is valid; the programs' lock orders cross often.
fn scheduled(choices: &[(u8, u8, u8)], threads: usize, locks: usize) -> Loset {
    let mut programs: Vec<Vec<Op>> = vec![Vec::new(); threads];
    let mut holds: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for &(a, b, c) in choices {
        let t = a as usize % threads;
        let l = c as usize % locks;
        let op = match b % 7 {
            0..=2 if !holds[t].contains(&l) => {
                holds[t].push(l);
                Op::Acquire(LockId(l as u32))
            }
            0..=4 if !holds[t].is_empty() => {
                let at = c as usize % holds[t].len();
                let x = holds[t].remove(at);
                Op::Release(LockId(x as u32))
            }
            5 => Op::Send(MsgId((c % 2) as u32)),
            6 => Op::Receive(MsgId((c % 2) as u32)),
            _ => Op::Write(VarId(0)),
        };
        programs[t].push(op);
    }
    // Most threads end outside their critical sections, so that others are not starved.
    for (t, h) in holds.iter().enumerate() {
        if t > 0 {
            programs[t].extend(h.iter().map(|&l| Op::Release(LockId(l as u32))));
        }
    }
    let mut pc = vec![0usize; threads];
    let mut owner: Vec<Option<usize>> = vec![None; locks];
    let mut sent = [false; 2];
    let mut events = Vec::new();
    let mut pick = choices.iter().map(|&(_, _, c)| c as usize).cycle();
    loop {
        let ready: Vec<usize> = (0..threads)
            .filter(|&t| match programs[t].get(pc[t]) {
                None => false,
                Some(Op::Acquire(l)) => owner[l.index()].is_none(),
                Some(Op::Receive(m)) => sent[m.index()],
                Some(_) => true,
            })
            .collect();
        if ready.is_empty() {
            // Stuck (a deadlock, or a message nobody sends): drop the first blocked operation,
            // and with an acquisition its release.
            let Some(t) = (0..threads).find(|&t| pc[t] < programs[t].len()) else {
                break;
            };
            if let Op::Acquire(l) = programs[t][pc[t]].clone() {
                let rel = Op::Release(l);
                if let Some(k) = (pc[t] + 1..programs[t].len()).find(|&k| programs[t][k] == rel) {
                    programs[t].remove(k);
                }
            }
            programs[t].remove(pc[t]);
            continue;
        }
        let t = ready[pick.next().unwrap_or(0) % ready.len()];
        let op = programs[t][pc[t]].clone();
        pc[t] += 1;
        match &op {
            Op::Acquire(l) => owner[l.index()] = Some(t),
            Op::Release(l) => owner[l.index()] = None,
            Op::Send(m) => sent[m.index()] = true,
            _ => {}
        }
        events.push(Event::new(events.len() as u64, ThreadId(t as u32), op));
    }
    Loset::from_events(&events, names(threads, locks))
}

fn names(threads: usize, locks: usize) -> Names {
    let mut names = Names::default();
    for t in 0..threads {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{t}").as_bytes())
            .unwrap();
    }
    for l in 0..locks {
        names
            .of_mut(NameKind::Lock)
            .intern(format!("L{l}").as_bytes())
            .unwrap();
    }
    for m in 0..2 {
        names
            .of_mut(NameKind::Msg)
            .intern(format!("m{m}").as_bytes())
            .unwrap();
    }
    names.of_mut(NameKind::Var).intern(b"x").unwrap();
    names
}

fn set(v: Vec<Vec<u32>>) -> BTreeSet<Vec<u32>> {
    v.into_iter().collect()
}

fn lex_states(l: &Loset, lex: Lex) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = Vec::new();
    enumerate(l, lex, &mut |g: &[u32]| {
        out.push(g.to_vec());
        ControlFlow::Continue(())
    });
    out
}

fn simulated(l: &Loset, order: Order) -> BTreeSet<Vec<u32>> {
    let mut out = BTreeSet::new();
    let zero = vec![0; l.processes()];
    simulate(l, &zero, &l.final_state(), order, |g| {
        out.insert(g.to_vec());
        ControlFlow::Continue(())
    });
    out
}

fn choices(max: usize) -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), max / 2..max)
}

/// Every class against its definition, and Figure 6.11's inclusions, on one valid loset.
fn check_classes(l: &Loset) {
    let all = brute::all_states(l);
    let reachable = set(brute::reachable(l));
    let budget = Budget::unlimited();
    let reach = Reach::new(l, &budget);
    let Validity::Valid(run) = &reach.validity else {
        panic!("a trace recorded in order gives a valid loset");
    };
    let zero = vec![0; l.processes()];
    assert_eq!(replay(l, &zero, run), Some(l.final_state()));
    let normal = reach.normal().expect("valid losets normalize");
    let mut strong = BTreeSet::new();
    for g in &all {
        assert_eq!(l.is_feasible(g), brute::feasible(l, g), "feasible {g:?}");
        let lf = l.is_lock_free_feasible(g);
        assert_eq!(lf, brute::lock_free_feasible(l, g), "lock-free {g:?}");
        assert_eq!(
            l.greatest_lock_free_below(g),
            brute::greatest_lock_free_below(l, g),
            "greatest lock-free below {g:?}"
        );
        let sf = l.is_strongly_feasible(g);
        assert_eq!(
            sf,
            brute::strongly_feasible(l, g),
            "strongly feasible {g:?}"
        );
        let viable = l.is_feasible(g) && l.is_viable(normal, g);
        let r = reachable.contains(g);
        // Figure 6.11: lock-free feasible ⊆ viable ⊆ reachable ⊆ strongly feasible.
        assert!(!lf || viable, "lock-free but not viable {g:?}");
        assert!(!viable || r, "viable but unreachable {g:?}");
        assert!(!r || sf, "reachable but not strongly feasible {g:?}");
        // The decision flow agrees with the simulation, and its witnesses are runs.
        match reach.decide(g, true) {
            Verdict::Reachable { run, .. } => {
                assert!(r, "decided reachable {g:?}");
                assert_eq!(replay(l, &zero, &run).as_deref(), Some(&g[..]));
            }
            Verdict::Unreachable(_) => assert!(!r, "decided unreachable {g:?}"),
            Verdict::Unknown => panic!("--exact decides"),
        }
        if let Verdict::Reachable { .. } = reach.decide(g, false) {
            assert!(r);
        }
        if sf {
            strong.insert(g.clone());
        }
    }
    // The modified QuickLex: lexical order, each strongly feasible state once, Lex1 == Lex2.
    let lex1 = lex_states(l, Lex::Lex1);
    let lex2 = lex_states(l, Lex::Lex2);
    assert!(lex2.windows(2).all(|w| w[0] < w[1]), "lexical order");
    assert_eq!(lex1, lex2);
    assert_eq!(set(lex2), strong);
    // Both simulations find exactly the reachable states.
    assert_eq!(simulated(l, Order::Bfs), reachable);
    assert_eq!(simulated(l, Order::Dfs), reachable);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn three_threads_classes_match_their_definitions(c in choices(18), locks in 1usize..4) {
        check_classes(&scheduled(&c, 3, locks));
    }

    #[test]
    fn two_threads_reachable_is_strongly_feasible(c in choices(20), locks in 1usize..4) {
        let l = scheduled(&c, 2, locks);
        check_classes(&l);
        // Theorem 17.
        let strong: BTreeSet<Vec<u32>> = lex_states(&l, Lex::Lex2).into_iter().collect();
        prop_assert_eq!(strong, set(brute::reachable(&l)));
    }

    /// Theorem 14: the normalized loset has exactly the runs of the loset.
    #[test]
    fn normalization_preserves_the_runs(c in choices(12), locks in 1usize..3, threads in 2usize..4) {
        let l = scheduled(&c, threads, locks);
        let zero = vec![0; l.processes()];
        let Normalization::Acyclic(normal) = l.normalize(&zero, &l.final_state()) else {
            panic!("a valid loset normalizes without a cycle");
        };
        let plain = brute::count_runs(&l, &|g| brute::feasible(&l, g));
        let normalized = brute::count_runs(&l, &|g| brute::feasible(&l, g) && normal.is_consistent(g));
        prop_assert!(plain >= 1);
        prop_assert_eq!(plain, normalized);
    }

    /// Validity (Definition 14) of logs with out-of-order lock records, against the simulation.
    #[test]
    fn validity_matches_the_simulation(c in choices(12), locks in 1usize..3, threads in 2usize..4) {
        let l = out_of_order(&c, threads, locks);
        let end = l.final_state();
        let valid = brute::reachable(&l).contains(&end);
        match search::check_valid(&l, &Budget::unlimited()) {
            Validity::Valid(run) => {
                prop_assert!(valid);
                prop_assert_eq!(replay(&l, &vec![0; l.processes()], &run), Some(end));
            }
            Validity::Invalid(_) => prop_assert!(!valid),
            Validity::Unknown { .. } => prop_assert!(false, "an unlimited budget ran out"),
        }
        // Reachable ⊆ strongly feasible holds in any loset, valid or not.
        for g in brute::reachable(&l) {
            prop_assert!(l.is_strongly_feasible(&g), "{:?}", g);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Definition 4: the loset orders two events iff happened-before orders them once the
    /// lock operations are taken out of the trace (lock edges only record which critical
    /// section went first); a clock component counts the events of a thread ordered before.
    #[test]
    fn loset_order_is_happened_before_without_lock_edges(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..30),
        odd in any::<bool>(),
    ) {
        use hindsight_order::reference::EventClocks;
        use hindsight_trace::arbitrary::{trace_from_choices, Shape};
        let trace = trace_from_choices(&choices, Shape { odd, ..Shape::default() });
        let l = Loset::from_events(&trace.events, trace.names.clone());
        let mut lock_free = trace.clone();
        for e in &mut lock_free.events {
            if matches!(e.op, Op::Acquire(_) | Op::Release(_)) {
                e.op = Op::End;
            }
        }
        let hb = EventClocks::compute(&lock_free);
        let events: Vec<(usize, u32)> = (0..l.processes())
            .flat_map(|p| (1..=l.len(p)).map(move |i| (p, i)))
            .collect();
        prop_assert_eq!(events.len(), trace.events.len());
        for &a in &events {
            for &b in &events {
                let (i, j) = (l.trace_index(a) as usize, l.trace_index(b) as usize);
                prop_assert_eq!(l.hb_leq(a, b), i == j || hb.happens_before(i, j), "{:?} {:?}", a, b);
            }
        }
    }
}

/// A lock-valid loset of `threads` threads taking turns on four locks, `rounds` critical
/// sections each: large enough that normalizing all of it is thousands of units of work.
fn turns(threads: usize, rounds: usize) -> Loset {
    let mut events = Vec::new();
    for r in 0..rounds {
        for t in 0..threads {
            let l = LockId(((r + t) % 4) as u32);
            for op in [Op::Acquire(l), Op::Write(VarId(0)), Op::Release(l)] {
                events.push(Event::new(events.len() as u64, ThreadId(t as u32), op));
            }
        }
    }
    Loset::from_events(&events, names(threads, 4))
}

/// A budget already spent: its deadline is now.
fn spent() -> Budget {
    Budget::new(hindsight_budget::Limits {
        timeout: Some(std::time::Duration::ZERO),
        memory: u64::MAX,
    })
}

#[test]
fn whole_loset_normalizations_poll_the_budget() {
    let l = turns(20, 40);
    let zero = vec![0; l.processes()];
    let end = l.final_state();
    // Unbounded, the loset is valid and its normalization acyclic.
    assert!(matches!(
        l.normalize_within(&zero, &end, None),
        Ok(Normalization::Acyclic(_))
    ));
    assert!(matches!(
        search::check_valid(&l, &Budget::unlimited()),
        Validity::Valid(_)
    ));
    // With the deadline already past, neither runs to its end: they stop at their first poll
    // with the limit reached, rather than normalizing the whole loset first.
    let budget = spent();
    assert_eq!(
        l.normalize_within(&zero, &end, Some(&budget)).err(),
        Some(hindsight_budget::Spent::Time)
    );
    assert!(
        matches!(
            search::check_valid(&l, &budget),
            Validity::Unknown { explored: 0, .. }
        ),
        "validity is unknown, not decided past the deadline"
    );
    // `L''` (for viability) is not built past the deadline either, and every decision that
    // would need it or a search is unknown.
    let reach = Reach::new(&l, &budget);
    assert!(reach.normal().is_none());
}
