//! `atomicity` on many short threads, a window of them running at once: a main thread forks
//! each, it runs a few events (locks, blocks, accesses), the main thread joins it, and now and
//! then a joined thread runs again (accepted with a warning) or is forked again. Joined threads
//! at rest are reduced to a few numbers, the marks of their witness sets dropped, and the
//! fork/join clocks of epochs no profile names are not kept: the answers must be those of the
//! product search (`atomicity::reference`) on small traces, and those of the analysis keeping
//! every state whole on larger ones.

use hindsight_stream::atomicity::reference::{verdicts, Triple};
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::driver::Observer;
use hindsight_trace::{Event, LockId, NameKind, Names, Op, ThreadId, Trace, VarId};
use proptest::prelude::*;
use std::collections::BTreeSet;

/// A trace of `threads` short threads forked by `T0` or by one another, at most `window` of
/// them running at once; `choices` drive which thread steps and what it does. Locking is nested and never
/// contended; a thread may be joined holding a lock or inside a block (it is then not at
/// rest). With `revive`, a joined thread sometimes runs an access or a block again, or is
/// forked again.
fn short_threads(choices: &[(u8, u8, u8)], threads: usize, window: usize, revive: bool) -> Trace {
    let (nv, nl) = (2usize, 2usize);
    let mut names = Names::default();
    for (kind, prefix, count) in [
        (NameKind::Thread, "T", threads + 1),
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
    let mut events: Vec<Event> = Vec::new();
    let mut push = |t: usize, op: Op| {
        let index = events.len() as u64;
        events.push(Event::new(index, ThreadId(t as u32), op));
    };
    let mut running: Vec<usize> = Vec::new();
    let mut joined: Vec<usize> = Vec::new();
    let mut next = 1;
    let mut stacks: Vec<Vec<usize>> = vec![Vec::new(); threads + 1];
    let mut blocks = vec![0u32; threads + 1];
    let mut owner: Vec<Option<usize>> = vec![None; nl];
    for &(a, b, c) in choices {
        let (a, b, c) = (a as usize, b as usize, c as usize);
        match a % 8 {
            // Fork the next thread (or, reviving, fork a joined one again).
            0 | 1 if running.len() < window => {
                if revive && b % 5 == 0 && !joined.is_empty() {
                    let u = joined.remove(c % joined.len());
                    push(0, Op::Fork(ThreadId(u as u32)));
                    running.push(u);
                } else if next <= threads {
                    push(0, Op::Fork(ThreadId(next as u32)));
                    running.push(next);
                    next += 1;
                }
            }
            // Join the oldest running thread.
            2 if !running.is_empty() => {
                let u = running.remove(0);
                push(0, Op::Join(ThreadId(u as u32)));
                joined.push(u);
            }
            // A joined thread runs again.
            3 if revive && b % 3 == 0 && !joined.is_empty() => {
                let u = joined[c % joined.len()];
                let x = VarId((b % nv) as u32);
                let op = match c % 4 {
                    0 => Op::Read(x),
                    1 => Op::Write(x),
                    2 if blocks[u] == 0 => {
                        blocks[u] += 1;
                        Op::Begin(None)
                    }
                    _ if blocks[u] > 0 => {
                        blocks[u] -= 1;
                        Op::End
                    }
                    _ => Op::Write(x),
                };
                push(u, op);
            }
            _ if !running.is_empty() => {
                let t = running[c % running.len()];
                let x = VarId((c % nv) as u32);
                let op = match b % 10 {
                    0..=2 => Op::Read(x),
                    3 | 4 => Op::Write(x),
                    5 => {
                        let l = (c / 2) % nl;
                        if owner[l].is_some() {
                            continue;
                        }
                        owner[l] = Some(t);
                        stacks[t].push(l);
                        Op::Acquire(LockId(l as u32))
                    }
                    6 => {
                        let Some(l) = stacks[t].pop() else { continue };
                        owner[l] = None;
                        Op::Release(LockId(l as u32))
                    }
                    7 if blocks[t] < 2 => {
                        blocks[t] += 1;
                        Op::Begin(None)
                    }
                    7 | 8 if blocks[t] > 0 => {
                        blocks[t] -= 1;
                        Op::End
                    }
                    // A running thread forks one of its own (joined by `T0` in turn).
                    9 if running.len() < window && next <= threads => {
                        running.push(next);
                        next += 1;
                        Op::Fork(ThreadId(next as u32 - 1))
                    }
                    _ => Op::Write(x),
                };
                push(t, op);
            }
            _ => {}
        }
    }
    Trace { names, events }
}

fn run(trace: &Trace, whole: bool) -> Atomicity {
    run_with(trace, whole, true)
}

fn run_with(trace: &Trace, whole: bool, all: bool) -> Atomicity {
    let mut a = Atomicity::new(Options {
        all,
        ..Options::default()
    });
    if whole {
        a = a.without_rest();
    }
    for e in &trace.events {
        a.step(e, &trace.names).expect("nested by construction");
    }
    a
}

fn triples(a: &Atomicity) -> BTreeSet<Triple> {
    a.all_triples(&a.violations())
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
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_500))]

    /// Small traces: the triples are Theorem 1's, as the product search finds them.
    #[test]
    fn short_threads_match_the_product_search(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..45),
        threads in 2usize..=7,
        window in 1usize..=3,
    ) {
        let trace = short_threads(&choices, threads, window, false);
        let a = run(&trace, false);
        prop_assert_eq!(triples(&a), verdicts(&trace).reaches);
        prop_assert_eq!(a.violations(), a.violations_literal());
    }

    /// Larger traces, joined threads running or forked again: the same violation classes,
    /// triples and profiles as with every thread's state kept whole.
    #[test]
    fn reduced_threads_answer_as_whole_ones(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..400),
        threads in 2usize..=60,
        window in 1usize..=4,
        revive in any::<bool>(),
    ) {
        let trace = short_threads(&choices, threads, window, revive);
        let (reduced, whole) = (run(&trace, false), run(&trace, true));
        let classes = reduced.violations();
        prop_assert_eq!(&classes, &whole.violations());
        prop_assert_eq!(reduced.all_triples(&classes), whole.all_triples(&classes));
        prop_assert_eq!(reduced.profiles().len(), whole.profiles().len());
        prop_assert_eq!(&classes, &reduced.violations_literal());
    }
}

/// The random traces reach what matters: violations between short threads, threads joined
/// at rest (reduced) and not (holding a lock, or inside a block), and joined threads running
/// again. (Deterministic: a fixed pseudo-random stream.)
#[test]
fn short_thread_traces_cover_the_interesting_cases() {
    let mut rng = hindsight_rng::SplitMix64::new(0x005E_ED0F_5407);
    let (mut violating, mut reduced, mut busy_joins, mut revived) = (0, 0, 0, 0);
    for _ in 0..300 {
        let choices: Vec<(u8, u8, u8)> = (0..300)
            .map(|_| {
                let r = rng.next_u64();
                (r as u8, (r >> 8) as u8, (r >> 16) as u8)
            })
            .collect();
        let trace = short_threads(&choices, 40, 3, true);
        let (a, whole) = (run(&trace, false), run(&trace, true));
        violating += usize::from(!a.violations().is_empty());
        reduced += usize::from(a.live_threads() < whole.live_threads());
        let mut held = [0i32; 41];
        let mut depth = [0i32; 41];
        let mut done = BTreeSet::new();
        for e in &trace.events {
            let t = e.thread.index();
            match e.op {
                Op::Acquire(_) => held[t] += 1,
                Op::Release(_) => held[t] -= 1,
                Op::Begin(_) => depth[t] += 1,
                Op::End => depth[t] -= 1,
                _ => {}
            }
            match e.op {
                Op::Join(u) => {
                    busy_joins += usize::from(held[u.index()] > 0 || depth[u.index()] > 0);
                    done.insert(u);
                }
                Op::Fork(u) => {
                    done.remove(&u);
                }
                _ if done.contains(&e.thread) => revived += 1,
                _ => {}
            }
        }
    }
    eprintln!("{violating} violating, {reduced} reduced, {busy_joins} joins not at rest, {revived} revivals");
    assert!(violating > 100 && reduced > 100 && busy_joins > 100 && revived > 100);
}

/// A thread per request, 20,000 of them: the joined ones are reduced (the analysis keeps a
/// few words per thread), and the memory the budget is charged with says so.
#[test]
fn a_thread_per_request_is_reduced_when_joined() {
    let n = 20_000u32;
    let mut names = Names::default();
    for i in 0..=n {
        names
            .of_mut(NameKind::Thread)
            .intern(format!("T{i}").as_bytes())
            .expect("ascii");
    }
    names.of_mut(NameKind::Var).intern(b"x").expect("ascii");
    names.of_mut(NameKind::Lock).intern(b"L").expect("ascii");
    let (x, l) = (VarId(0), LockId(0));
    let mut events = Vec::new();
    for i in 1..=n {
        let t = ThreadId(i);
        for (thread, op) in [
            (ThreadId(0), Op::Fork(t)),
            (t, Op::Begin(None)),
            (t, Op::Acquire(l)),
            (t, Op::Read(x)),
            (t, Op::Write(x)),
            (t, Op::Release(l)),
            (t, Op::End),
            (ThreadId(0), Op::Join(t)),
        ] {
            let index = events.len() as u64;
            events.push(Event::new(index, thread, op));
        }
    }
    let trace = Trace { names, events };
    let (reduced, whole) = (
        run_with(&trace, false, false),
        run_with(&trace, true, false),
    );
    assert_eq!(reduced.live_threads(), 1, "only T0 is kept whole");
    assert_eq!(whole.live_threads(), n as usize + 1);
    assert!(reduced.violations().is_empty());
    let per_thread = reduced.held_bytes() / u64::from(n);
    assert!(
        per_thread < 800,
        "{per_thread} bytes per joined thread (whole: {})",
        whole.held_bytes() / u64::from(n)
    );
}
