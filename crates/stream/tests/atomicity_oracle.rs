//! `atomicity` against the brute-force product search (`atomicity::reference`) on thousands of
//! small random nested-locking traces with transactions, forks and joins: the linear algorithm
//! (Phase I + II, expanded to every triple) finds exactly the triples `(e1, f, e2)` for which an
//! inferred run reaches `e1`, then `f`, with `e2` to come (Theorem 1); these are exactly the
//! triples of Lemma 1 (a run with `e1`, `f`, `e2` in order) on deadlock-free pairs of threads,
//! and a superset of them otherwise; and every schedule shown replays as an inferred run with
//! `e1`, `f`, `e2` in order, reaching `e2` exactly when some inferred run does.

use hindsight_rng::SplitMix64;
use hindsight_stream::atomicity::reference::{verdicts, Triple};
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_trace::{Event, LockId, NameKind, Names, Op, ThreadId, Trace, VarId};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A trace in which every thread releases its locks in reverse order, locks are never
/// acquired while another thread holds them, and `T0` forks and joins the other threads
/// (when `forks`; otherwise every thread runs from the start, as in the paper's model). With
/// `serial`, the choices run thread by thread and a thread releases what it holds when another
/// takes over: locks are then taken in any order by different threads, which makes
/// incompatible acquisition histories common.
fn nested_trace(
    choices: &[(u8, u8, u8)],
    threads: u8,
    vars: u8,
    locks: u8,
    forks: bool,
    serial: bool,
) -> Trace {
    let (nt, nv, nl) = (threads as usize, vars as usize, locks as usize);
    let mut names = Names::default();
    for (kind, prefix, count) in [
        (NameKind::Thread, "T", nt),
        (NameKind::Var, "x", nv),
        (NameKind::Lock, "L", nl),
    ] {
        for i in 0..count {
            names
                .of_mut(kind)
                .intern(format!("{prefix}{i}").as_bytes())
                .expect("ascii");
        }
    }
    let mut started: Vec<bool> = (0..nt).map(|t| t == 0 || !forks).collect();
    let mut finished = vec![false; nt];
    let mut stacks: Vec<Vec<(usize, u32)>> = vec![Vec::new(); nt];
    let mut owner: Vec<Option<usize>> = vec![None; nl];
    let mut blocks = vec![0u32; nt];
    let mut events: Vec<Event> = Vec::new();
    let mut choices = choices.to_vec();
    if serial {
        choices.sort_by_key(|&(a, _, _)| a as usize % nt);
    }
    for (a, b, c) in choices {
        let mut t = a as usize % nt;
        if !started[t] || finished[t] {
            t = 0;
        }
        if let Some(last) = events.last().map(|e| e.thread.index()) {
            if serial && last != t {
                while let Some((l, n)) = stacks[last].pop() {
                    owner[l] = None;
                    for _ in 0..n {
                        let index = events.len() as u64;
                        events.push(Event::new(
                            index,
                            ThreadId(last as u32),
                            Op::Release(LockId(l as u32)),
                        ));
                    }
                }
            }
        }
        let c = c as usize;
        let op = match b % 13 {
            10 => Op::AtomicLoad(VarId((c % nv) as u32)),
            11 => Op::AtomicStore(VarId((c % nv) as u32)),
            12 => Op::AtomicRmw(VarId((c % nv) as u32)),
            0..=2 => Op::Read(VarId((c % nv) as u32)),
            3..=4 => Op::Write(VarId((c % nv) as u32)),
            5 => {
                let l = c % nl;
                match owner[l] {
                    Some(o) if o != t => continue,
                    Some(_) => {
                        let top = stacks[t].iter_mut().find(|(m, _)| *m == l).expect("held");
                        top.1 += 1;
                    }
                    None => {
                        owner[l] = Some(t);
                        stacks[t].push((l, 1));
                    }
                }
                Op::Acquire(LockId(l as u32))
            }
            6 => {
                let Some(top) = stacks[t].last_mut() else {
                    continue;
                };
                let l = top.0;
                top.1 -= 1;
                if top.1 == 0 {
                    stacks[t].pop();
                    owner[l] = None;
                }
                Op::Release(LockId(l as u32))
            }
            7 if blocks[t] < 2 => {
                blocks[t] += 1;
                Op::Begin(None)
            }
            7 | 8 if blocks[t] > 0 && c % 2 == 0 => {
                blocks[t] -= 1;
                Op::End
            }
            9 if forks && t == 0 => {
                let u = c % nt;
                if u == 0 || finished[u] {
                    continue;
                }
                if !started[u] {
                    started[u] = true;
                    Op::Fork(ThreadId(u as u32))
                } else if c % 2 == 0 {
                    finished[u] = true;
                    Op::Join(ThreadId(u as u32))
                } else {
                    continue;
                }
            }
            _ => Op::Read(VarId((c % nv) as u32)),
        };
        let index = events.len() as u64;
        events.push(Event::new(index, ThreadId(t as u32), op));
    }
    Trace { names, events }
}

fn analyse(trace: &Trace) -> (Atomicity, BTreeSet<Triple>) {
    let mut a = Atomicity::new(Options {
        all: true,
        schedule: true,
        ignore_non_nested: false,
        granularity: hindsight_stream::groups::Granularity::EveryEvent,
    });
    for e in &trace.events {
        a.step(e, &trace.names).expect("nested by construction");
    }
    let classes = a.violations();
    let triples = a
        .all_triples(&classes)
        .into_iter()
        .map(|v| Triple {
            thread: v.thread,
            other: v.other,
            var: v.var,
            pattern: v.pattern.0,
            e1: v.e1.index,
            f: v.f.index,
            e2: v.e2.index,
        })
        .collect();
    (a, triples)
}

/// A literal replay of a schedule (event indices in order) against the trace: each thread runs
/// a prefix of its own events in order, a lock is acquired only when the other thread does not
/// hold it, and every event that precedes a scheduled one in the fork/join order of the two
/// threads is scheduled before it.
fn replay(trace: &Trace, order: &[u64]) -> Result<(), String> {
    let ev = &trace.events;
    // Fork/join predecessors of each event, transitively, as sets of event indices.
    let mut preds: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); ev.len()];
    let mut last_of: BTreeMap<ThreadId, usize> = BTreeMap::new();
    let mut fork_of: BTreeMap<ThreadId, usize> = BTreeMap::new();
    for i in 0..ev.len() {
        let t = ev[i].thread;
        let mut p = BTreeSet::new();
        if let Some(&j) = last_of.get(&t) {
            p.insert(j);
            p.extend(preds[j].iter().copied());
        } else if let Some(&j) = fork_of.get(&t) {
            p.insert(j);
            p.extend(preds[j].iter().copied());
        }
        if let Op::Join(u) = ev[i].op {
            if let Some(&j) = last_of.get(&u) {
                p.insert(j);
                p.extend(preds[j].iter().copied());
            }
        }
        if let Op::Fork(u) = ev[i].op {
            fork_of.insert(u, i);
        }
        preds[i] = p;
        last_of.insert(t, i);
    }
    let threads: BTreeSet<ThreadId> = order.iter().map(|&i| ev[i as usize].thread).collect();
    let mut done: BTreeSet<usize> = BTreeSet::new();
    let mut owner: BTreeMap<LockId, (ThreadId, u32)> = BTreeMap::new();
    for &i in order {
        let i = i as usize;
        let t = ev[i].thread;
        let prev = (0..i).rev().find(|&j| ev[j].thread == t);
        if prev.is_some_and(|j| !done.contains(&j)) {
            return Err(format!("#{i} before its thread's previous event"));
        }
        for &j in &preds[i] {
            if threads.contains(&ev[j].thread) && !done.contains(&j) {
                return Err(format!("#{i} before #{j}, which precedes it by fork/join"));
            }
        }
        match ev[i].op {
            Op::Acquire(l) => match owner.get_mut(&l) {
                Some((h, c)) if *h == t => *c += 1,
                Some(_) => return Err(format!("#{i} acquires a held lock")),
                None => {
                    owner.insert(l, (t, 1));
                }
            },
            Op::Release(l) => {
                let (h, c) = owner.get_mut(&l).ok_or("release of a free lock")?;
                if *h != t {
                    return Err("release by a non-owner".into());
                }
                *c -= 1;
                if *c == 0 {
                    owner.remove(&l);
                }
            }
            _ => {}
        }
        done.insert(i);
    }
    Ok(())
}

fn check(trace: &Trace) -> Result<(), TestCaseError> {
    let (analysis, fast) = analyse(trace);
    let reference = verdicts(trace);
    prop_assert_eq!(&fast, &reference.reaches, "triples differ from Theorem 1's");
    prop_assert!(reference.completes.is_subset(&fast));
    for t in &fast {
        if reference.deadlock_free.contains(&(t.thread, t.other)) {
            prop_assert!(reference.completes.contains(t), "{:?} does not complete", t);
        }
    }
    // The classes cover exactly the violated (T, T', x, pattern).
    let classes = analysis.violations();
    let class_keys: BTreeSet<_> = classes
        .iter()
        .map(|v| (v.thread, v.other, v.var, v.pattern.0))
        .collect();
    let triple_keys: BTreeSet<_> = fast
        .iter()
        .map(|t| (t.thread, t.other, t.var, t.pattern))
        .collect();
    prop_assert_eq!(class_keys, triple_keys);
    // Phase II's index by lockset answers as the double loop over pairs of threads.
    prop_assert_eq!(&classes, &analysis.violations_literal());
    // Every class representative gets a schedule that replays.
    let budget = hindsight_budget::Budget::unlimited();
    let scheduler = hindsight_stream::atomicity::schedule::Scheduler::new(analysis.kept(), &budget);
    for v in &classes {
        let run = scheduler.build(v).map_err(TestCaseError::fail)?;
        let order: Vec<u64> = run
            .stretches
            .iter()
            .flat_map(|s| {
                let t = s.thread;
                trace
                    .events
                    .iter()
                    .filter(move |e| e.thread == t && e.index >= s.from && e.index <= s.to)
                    .map(|e| e.index)
            })
            .collect();
        replay(trace, &order).map_err(TestCaseError::fail)?;
        let at = |i: u64| order.iter().position(|&x| x == i);
        let (a, b) = (at(v.e1.index).expect("e1"), at(v.f.index).expect("f"));
        prop_assert!(a < b);
        let triple = Triple {
            thread: v.thread,
            other: v.other,
            var: v.var,
            pattern: v.pattern.0,
            e1: v.e1.index,
            f: v.f.index,
            e2: v.e2.index,
        };
        prop_assert_eq!(run.reaches_e2, reference.completes.contains(&triple));
        if run.reaches_e2 {
            prop_assert!(b < at(v.e2.index).expect("e2"));
        } else {
            prop_assert!(at(v.e2.index).is_none());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn linear_algorithm_matches_the_product_search(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=3,
        vars in 1u8..=2,
        locks in 1u8..=3,
        forks in any::<bool>(),
        serial in any::<bool>(),
    ) {
        let trace = nested_trace(&choices, threads, vars, locks, forks, serial);
        check(&trace)?;
    }
}

/// The random traces exercise what matters: violations, triples that only deadlocking runs
/// reach, and forks and joins that rule triples out. (Deterministic: a fixed pseudo-random
/// stream.)
#[test]
fn random_traces_cover_the_interesting_cases() {
    let mut rng = SplitMix64::new(0x2545_F491_4F6C_DD1D);
    let mut next = || rng.next_u64();
    let (mut violating, mut deadlocking, mut forked, mut cases) = (0, 0, 0, 0);
    for _ in 0..600 {
        let len = 8 + (next() % 32) as usize;
        let choices: Vec<(u8, u8, u8)> = (0..len)
            .map(|_| {
                let r = next();
                (r as u8, (r >> 8) as u8, (r >> 16) as u8)
            })
            .collect();
        let forks = next() % 2 == 0;
        let serial = next() % 2 == 0;
        let (threads, vars, locks) = (
            2 + (next() % 2) as u8,
            1 + (next() % 2) as u8,
            1 + (next() % 3) as u8,
        );
        let trace = nested_trace(&choices, threads, vars, locks, forks, serial);
        check(&trace).expect("agrees");
        let v = verdicts(&trace);
        cases += 1;
        violating += usize::from(!v.reaches.is_empty());
        deadlocking += usize::from(v.reaches.len() > v.completes.len());
        forked += usize::from(forks && !v.reaches.is_empty());
    }
    eprintln!("{cases} traces: {violating} with violations, {deadlocking} with deadlock-only triples, {forked} forked with violations");
    assert!(violating * 3 > cases, "{violating} of {cases}");
    assert!(deadlocking > 0);
    assert!(forked > 0);
}

/// Phase II on many threads (a thread per request, or threads running free, on a few
/// variables and locks): the lockset index pairs exactly what the double loop over pairs of
/// threads pairs, in the same order.
#[test]
fn phase_two_on_many_threads_pairs_as_the_double_loop() {
    let mut rng = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    let mut found = 0;
    for (threads, forks, serial) in [
        (250u8, true, false),
        (250, false, false),
        (120, false, true),
    ] {
        let choices: Vec<(u8, u8, u8)> = (0..6000)
            .map(|_| {
                let r = rng.next_u64();
                (r as u8, (r >> 8) as u8, (r >> 16) as u8)
            })
            .collect();
        let trace = nested_trace(&choices, threads, 3, 3, forks, serial);
        let mut analysis = Atomicity::new(Options::default());
        for e in &trace.events {
            analysis
                .step(e, &trace.names)
                .expect("nested by construction");
        }
        let classes = analysis.violations();
        assert_eq!(classes, analysis.violations_literal(), "{threads} threads");
        found += classes.len();
    }
    assert!(found > 0, "no violation to compare");
}
