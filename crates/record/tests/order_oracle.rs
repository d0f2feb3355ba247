//! Oracle for the global order: random concurrent programs (threads taking random locks around
//! random accesses, and incrementing a shared sequentially consistent counter) log what really
//! happened — the ticket each critical section drew inside its lock, the value each increment
//! returned — and the recorded trace must agree exactly:
//! - each thread's events are the operations it performed, in program order, none missing; a
//!   guard's dereferences are accesses of the lock's data `L` by the rule of `sync.rs` (a read
//!   unless one was recorded since the last write, a write once), which [`GuardLog`]
//!   transcribes;
//! - the critical sections of each lock appear in the order of their tickets (the real order);
//! - the increments of the counter appear in the order of the values they returned (its
//!   modification order), each `rmw(c) snd(c)` and every one after the first preceded by
//!   `rcv(c)`; a relaxed increment of a second counter is one `rmw(d)` event (the
//!   read-modify-write is indivisible);
//! - the trace is strictly valid (lock-valid, no warning) and `races` finds nothing, since
//!   every plain access is under its lock and atomics never race; with atomics made plain
//!   accesses, only the relaxed counter races (the edges order the SeqCst one).
//!
//! A second oracle does the same for the one-time initialisations and barriers: every
//! edge std guarantees is in the trace (`races` finds nothing on data published through them
//! with relaxed atomics, asked as plain accesses since atomics never race)
//! and no other (a barrier's departures receive exactly the messages of their generation's
//! arrivals; one `Once` caller sends, every other receives).

#![cfg(feature = "record")]

mod common;

use common::*;
use hindsight_record::sync::atomic::{AtomicU64, Ordering};
use hindsight_record::sync::{Barrier, LazyLock, Mutex, Once, OnceLock, RwLock};
use hindsight_record::{thread, Named, Shared};
use hindsight_trace::Op;
use proptest::prelude::*;
use std::hint::black_box;

/// What a critical section does with its guard.
#[derive(Clone, Copy, Debug)]
enum Access {
    /// Reads or writes (`true`) variable `v` of the lock's data, through the guard.
    Var(usize, bool),
    /// Dereferences the guard for reading or writing (`true`) and touches nothing inside.
    Data(bool),
}

#[derive(Clone, Debug)]
enum Step {
    /// Lock `lock` (a `Mutex`), then the accesses.
    Locked(usize, Vec<Access>),
    /// Read-lock (`false`) or write-lock the `RwLock`, then read (a read guard) or read and
    /// write the data.
    Rw(bool),
    Increment,
    RelaxedIncrement,
}

const LOCKS: usize = 3;
const VARS: usize = 2;

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![
        3 => (0..VARS, any::<bool>()).prop_map(|(v, w)| Access::Var(v, w)),
        1 => any::<bool>().prop_map(Access::Data),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..LOCKS, prop::collection::vec(access(), 0..4))
            .prop_map(|(l, a)| Step::Locked(l, a)),
        1 => any::<bool>().prop_map(Step::Rw),
        1 => Just(Step::Increment),
        1 => Just(Step::RelaxedIncrement),
    ]
}

/// The rule of a guard, transcribed: a dereference for reading records `r(L)` unless a read
/// was recorded since the last recorded write; one for writing records `w(L)` once.
struct GuardLog<'a> {
    lock: String,
    read: bool,
    written: bool,
    ops: &'a mut Vec<String>,
}

impl GuardLog<'_> {
    fn deref(&mut self, write: bool) {
        if write && !self.written {
            self.ops.push(format!("w({})", self.lock));
            self.written = true;
            self.read = false;
        } else if !write && !self.read {
            self.ops.push(format!("r({})", self.lock));
            self.read = true;
        }
    }
}

fn program() -> impl Strategy<Value = Vec<Vec<Step>>> {
    prop::collection::vec(prop::collection::vec(step(), 0..25), 1..5)
}

/// A lock, its ticket counter and its variables.
struct Guarded {
    ticket: Shared<u64>,
    vars: Vec<Shared<u64>>,
}

/// What a thread really did: its operations as the trace should show them, the tickets of its
/// critical sections per lock, the values its increments returned.
#[derive(Default)]
struct Log {
    ops: Vec<String>,
    tickets: Vec<(usize, u64)>,
    increments: Vec<u64>,
    rw_writes: usize,
}

/// A thread's operations without the messages and releases of the `RwLock` `R`, whose
/// `snd`/`rcv` depend on which thread read or wrote before (`rwlock_orders_writers_with_readers`
/// in `recorder.rs` checks those).
fn without_rw_messages(ops: Vec<String>) -> Vec<String> {
    ops.into_iter()
        .filter(|o| !(o.starts_with("snd(R.") || o.starts_with("rcv(R.") || o == "rel(R)"))
        .collect()
}

fn run(program: &[Vec<Step>]) -> Vec<Log> {
    let locks: Vec<Mutex<Guarded>> = (0..LOCKS)
        .map(|l| {
            Mutex::new(Guarded {
                ticket: Shared::new(0).named(&format!("t{l}")),
                vars: (0..VARS)
                    .map(|v| Shared::new(0).named(&format!("x{l}_{v}")))
                    .collect(),
            })
            .named(&format!("L{l}"))
        })
        .collect();
    let counter = AtomicU64::new(0).named("c");
    let relaxed = AtomicU64::new(0).named("d");
    let rw = RwLock::new(0u64).named("R");
    thread::scope(|s| {
        let hs: Vec<_> = program
            .iter()
            .map(|steps| {
                let (locks, counter, relaxed, rw) = (&locks, &counter, &relaxed, &rw);
                s.spawn(move || {
                    let mut log = Log::default();
                    for step in steps {
                        match step {
                            Step::Locked(l, accesses) => {
                                let mut g = locks[*l].lock().unwrap();
                                log.ops.push(format!("acq(L{l})"));
                                let t = g.ticket.update(|t| {
                                    *t += 1;
                                    *t
                                });
                                log.tickets.push((*l, t));
                                let mut data = GuardLog {
                                    lock: format!("L{l}"),
                                    read: false,
                                    written: false,
                                    ops: &mut log.ops,
                                };
                                data.deref(true);
                                data.ops.extend([format!("r(t{l})"), format!("w(t{l})")]);
                                for &access in accesses {
                                    match access {
                                        Access::Var(v, true) => {
                                            g.vars[v].set(t);
                                            data.deref(true);
                                            data.ops.push(format!("w(x{l}_{v})"));
                                        }
                                        Access::Var(v, false) => {
                                            let _ = g.vars[v].get();
                                            data.deref(false);
                                            data.ops.push(format!("r(x{l}_{v})"));
                                        }
                                        Access::Data(true) => {
                                            black_box(&mut *g);
                                            data.deref(true);
                                        }
                                        Access::Data(false) => {
                                            black_box(&*g);
                                            data.deref(false);
                                        }
                                    }
                                }
                                drop(g);
                                log.ops.push(format!("rel(L{l})"));
                            }
                            Step::Rw(false) => {
                                let g = rw.read().unwrap();
                                black_box(*g);
                                black_box(*g);
                                drop(g);
                                log.ops.push("r(R)".into());
                            }
                            Step::Rw(true) => {
                                let mut g = rw.write().unwrap();
                                *g += 1;
                                black_box(*g);
                                drop(g);
                                log.ops
                                    .extend(["acq(R)".into(), "w(R)".into(), "r(R)".into()]);
                                log.rw_writes += 1;
                            }
                            Step::RelaxedIncrement => {
                                relaxed.fetch_add(1, Ordering::Relaxed);
                                log.ops.push("rmw(d)".into());
                            }
                            Step::Increment => {
                                let v = counter.fetch_add(1, Ordering::SeqCst);
                                if v > 0 {
                                    log.ops.push("rcv(c)".into());
                                }
                                log.ops.extend(["rmw(c)".into(), "snd(c)".into()]);
                                log.increments.push(v);
                            }
                        }
                    }
                    log
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

proptest! {
    // Each case spawns threads and writes a file: a few dozen cases keep this under a second.
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn the_trace_is_what_happened_in_the_order_it_happened(program in program()) {
        let _one = exclusive();
        let (logs, path) = record("order_oracle", || run(&program));
        let trace = load(&path);
        for (i, log) in logs.iter().enumerate() {
            let name = format!("main.{}", i + 1);
            prop_assert_eq!(
                &without_rw_messages(ops_of(&trace, &name)),
                &log.ops,
                "thread {}",
                name
            );
        }
        // Per lock, the thread of each critical section in trace order must be the thread
        // that drew the next ticket.
        for l in 0..LOCKS {
            let mut by_ticket: Vec<(u64, usize)> = logs
                .iter()
                .enumerate()
                .flat_map(|(i, log)| {
                    log.tickets.iter().filter(|(ll, _)| *ll == l).map(move |(_, t)| (*t, i))
                })
                .collect();
            by_ticket.sort();
            let expected: Vec<String> =
                by_ticket.iter().map(|(_, i)| format!("main.{}", i + 1)).collect();
            let recorded: Vec<String> = trace
                .events
                .iter()
                .filter(|e| matches!(e.op, Op::Acquire(x) if trace.names.lock(x) == format!("L{l}")))
                .map(|e| trace.names.thread(e.thread).to_owned())
                .collect();
            prop_assert_eq!(recorded, expected, "lock L{}", l);
        }
        let mut by_value: Vec<(u64, usize)> = logs
            .iter()
            .enumerate()
            .flat_map(|(i, log)| log.increments.iter().map(move |v| (*v, i)))
            .collect();
        by_value.sort();
        let expected: Vec<String> =
            by_value.iter().map(|(_, i)| format!("main.{}", i + 1)).collect();
        let recorded: Vec<String> = trace
            .events
            .iter()
            .filter(|e| matches!(e.op, Op::Send(m) if trace.names.msg(m) == "c"))
            .map(|e| trace.names.thread(e.thread).to_owned())
            .collect();
        prop_assert_eq!(&recorded, &expected, "counter");
        // Each read-modify-write of either counter is one indivisible `rmw` event, and the
        // increments of `c` appear in the order of the values they returned.
        let c_rmws: Vec<String> = trace
            .events
            .iter()
            .filter(|e| matches!(e.op, Op::AtomicRmw(x) if trace.names.var(x) == "c"))
            .map(|e| trace.names.thread(e.thread).to_owned())
            .collect();
        prop_assert_eq!(&c_rmws, &recorded, "counter rmw");
        let plain_counter_access = trace.events.iter().any(|e| {
            matches!(e.op, Op::Read(x) | Op::Write(x) if ["c", "d"].contains(&trace.names.var(x)))
        });
        prop_assert!(!plain_counter_access);
        // Atomics never race, and every other access is under its lock.
        let racy: Vec<String> = names_of(&races(&path), "variable");
        prop_assert!(racy.is_empty(), "{:?}", racy);
        // As plain accesses, the relaxed counter is the one racy variable (the SeqCst one is
        // ordered by its messages).
        let racy: Vec<String> = names_of(&races_atomics_lowered(&path), "variable");
        prop_assert!(racy.iter().all(|v| v == "d"), "{:?}", racy);
        let write_locks: usize = logs.iter().map(|l| l.rw_writes).sum();
        prop_assert_eq!(
            count(&trace, |e| matches!(e.op, Op::Release(x) if trace.names.lock(x) == "R")),
            write_locks
        );
    }
}

/// A one-time initialisation a thread may ask for.
#[derive(Clone, Copy, Debug)]
enum Init {
    Once,
    OnceLock,
    Lazy,
}

fn init() -> impl Strategy<Value = Init> {
    prop_oneof![Just(Init::Once), Just(Init::OnceLock), Just(Init::Lazy)]
}

/// `threads` threads meet `rounds` times at a barrier; before each meeting (and after the last)
/// each does its own list of initialisations. What a thread publishes is written with relaxed
/// atomics, which order nothing: only the recorded edges can order them.
fn rendezvous() -> impl Strategy<Value = (usize, Vec<Vec<Vec<Init>>>)> {
    (1usize..5, 0usize..3).prop_flat_map(|(threads, rounds)| {
        (
            Just(rounds),
            prop::collection::vec(
                prop::collection::vec(prop::collection::vec(init(), 0..3), rounds + 1),
                threads,
            ),
        )
    })
}

/// Runs the rendezvous program; each thread's expected operations, with the barrier's
/// messages written `snd(B)`/`rcv(B)` (their names depend on the schedule).
fn run_rendezvous(rounds: usize, plan: &[Vec<Vec<Init>>]) -> Vec<Vec<String>> {
    let n = plan.len();
    let barrier = Barrier::new(n).named("b");
    let slots: Vec<Vec<AtomicU64>> = (0..rounds)
        .map(|r| {
            (0..n)
                .map(|t| AtomicU64::new(0).named(&format!("s{r}_{t}")))
                .collect()
        })
        .collect();
    let once = Once::new().named("once");
    let once_data = AtomicU64::new(0).named("init");
    let cell: OnceLock<u64> = OnceLock::new().named("cell");
    let cell_data = AtomicU64::new(0).named("celldata");
    let lazy_data = AtomicU64::new(0).named("lazydata");
    // Which thread ran the lazy initialiser, kept outside the trace (a std mutex).
    let lazy_by = std::sync::Mutex::new(None);
    let lazy = LazyLock::new(|| {
        lazy_data.store(1, Ordering::Relaxed);
        *lazy_by.lock().unwrap() = Some(std::thread::current().id());
        7u64
    })
    .named("lazy");
    thread::scope(|s| {
        let hs: Vec<_> = plan
            .iter()
            .enumerate()
            .map(|(t, phases)| {
                let (barrier, slots, once, once_data, cell, cell_data, lazy_data, lazy, lazy_by) = (
                    &barrier, &slots, &once, &once_data, &cell, &cell_data, &lazy_data, &lazy,
                    &lazy_by,
                );
                s.spawn(move || {
                    let mut ops: Vec<String> = Vec::new();
                    let mut lazy_seen = false;
                    for (r, phase) in phases.iter().enumerate() {
                        for step in phase {
                            let mut ran = false;
                            let (var, msg) = match step {
                                Init::Once => {
                                    once.call_once(|| {
                                        once_data.store(1, Ordering::Relaxed);
                                        ran = true;
                                    });
                                    once_data.load(Ordering::Relaxed);
                                    ("init", "once")
                                }
                                Init::OnceLock => {
                                    cell.get_or_init(|| {
                                        cell_data.store(1, Ordering::Relaxed);
                                        ran = true;
                                        5
                                    });
                                    cell_data.load(Ordering::Relaxed);
                                    ("celldata", "cell")
                                }
                                Init::Lazy => {
                                    black_box(**lazy);
                                    ran = *lazy_by.lock().unwrap()
                                        == Some(std::thread::current().id())
                                        && !std::mem::replace(&mut lazy_seen, true);
                                    lazy_data.load(Ordering::Relaxed);
                                    ("lazydata", "lazy")
                                }
                            };
                            if ran {
                                ops.extend([format!("astore({var})"), format!("snd({msg})")]);
                            } else {
                                ops.push(format!("rcv({msg})"));
                            }
                            ops.push(format!("aload({var})"));
                        }
                        if r < rounds {
                            slots[r][t].store(1, Ordering::Relaxed);
                            barrier.wait();
                            ops.extend([format!("astore(s{r}_{t})"), "snd(B)".into()]);
                            ops.extend((0..n).map(|_| "rcv(B)".to_owned()));
                            for (u, slot) in slots[r].iter().enumerate() {
                                slot.load(Ordering::Relaxed);
                                ops.push(format!("aload(s{r}_{u})"));
                            }
                        }
                    }
                    ops
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn initialisations_and_barriers_record_exactly_the_edges_std_guarantees(
        (rounds, plan) in rendezvous()
    ) {
        let _one = exclusive();
        let (expected, path) = record("order_oracle_init", || run_rendezvous(rounds, &plan));
        let trace = load(&path);
        // Per thread and round, the barrier messages it sent and received.
        let mut sent: Vec<Vec<String>> = vec![Vec::new(); rounds];
        let mut received: Vec<Vec<Vec<String>>> = vec![Vec::new(); rounds];
        for (t, expected) in expected.iter().enumerate() {
            let name = format!("main.{}", t + 1);
            let ops = ops_of(&trace, &name);
            let mut round = 0;
            let mut mine: Vec<String> = Vec::new();
            let shown: Vec<String> = ops
                .iter()
                .map(|o| {
                    if let Some(m) = o.strip_prefix("snd(b/") {
                        sent[round].push(m.to_owned());
                        "snd(B)".to_owned()
                    } else if let Some(m) = o.strip_prefix("rcv(b/") {
                        mine.push(m.to_owned());
                        if mine.len() == plan.len() {
                            received[round].push(std::mem::take(&mut mine));
                            round += 1;
                        }
                        "rcv(B)".to_owned()
                    } else {
                        o.clone()
                    }
                })
                .collect();
            prop_assert_eq!(&shown, expected, "thread {}", name);
        }
        // Each departure of a round received exactly the arrivals of that round.
        for r in 0..rounds {
            let mut arrivals = sent[r].clone();
            arrivals.sort();
            for got in &received[r] {
                let mut got = got.clone();
                got.sort();
                prop_assert_eq!(&got, &arrivals, "round {}", r);
            }
        }
        // Exactly one thread initialised each cell.
        for msg in ["once", "cell", "lazy"] {
            let sends = count(&trace, |e| matches!(e.op, Op::Send(m) if trace.names.msg(m) == msg));
            let asked = trace.events.iter().any(|e| matches!(e.op, Op::Receive(m) | Op::Send(m) if trace.names.msg(m) == msg));
            prop_assert_eq!(sends, usize::from(asked), "{}", msg);
        }
        // Every relaxed access is ordered by those edges alone: atomics never race, so they
        // are asked as plain accesses.
        let found = races_atomics_lowered(&path);
        prop_assert!(found.is_empty(), "{:#?}", found);
    }
}
