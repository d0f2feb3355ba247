//! Oracle for the global order: random concurrent programs (threads taking random locks around
//! random accesses, and incrementing a shared sequentially consistent counter) log what really
//! happened — the ticket each critical section drew inside its lock, the value each increment
//! returned — and the recorded trace must agree exactly:
//! - each thread's events are the operations it performed, in program order, none missing;
//! - the critical sections of each lock appear in the order of their tickets (the real order);
//! - the increments of the counter appear in the order of the values they returned (its
//!   modification order), each a `snd` and every one after the first also a `rcv`;
//! - the trace is strictly valid (lock-valid, no warning) and `races` finds nothing, since
//!   every access is under its lock.

#![cfg(feature = "record")]

mod common;

use common::*;
use hindsight_record::sync::atomic::{AtomicU64, Ordering};
use hindsight_record::sync::Mutex;
use hindsight_record::{thread, Named, Shared};
use hindsight_trace::Op;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Step {
    /// Lock `lock`, then read or write (`true`) the variables of that lock.
    Locked(usize, Vec<(usize, bool)>),
    Increment,
}

const LOCKS: usize = 3;
const VARS: usize = 2;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..LOCKS, prop::collection::vec((0..VARS, any::<bool>()), 0..4))
            .prop_map(|(l, a)| Step::Locked(l, a)),
        1 => Just(Step::Increment),
    ]
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
    thread::scope(|s| {
        let hs: Vec<_> = program
            .iter()
            .map(|steps| {
                let (locks, counter) = (&locks, &counter);
                s.spawn(move || {
                    let mut log = Log::default();
                    for step in steps {
                        match step {
                            Step::Locked(l, accesses) => {
                                let mut g = locks[*l].lock().unwrap();
                                let t = g.ticket.update(|t| {
                                    *t += 1;
                                    *t
                                });
                                log.tickets.push((*l, t));
                                log.ops.extend([
                                    format!("acq(L{l})"),
                                    format!("r(t{l})"),
                                    format!("w(t{l})"),
                                ]);
                                for &(v, write) in accesses {
                                    if write {
                                        g.vars[v].set(t);
                                        log.ops.push(format!("w(x{l}_{v})"));
                                    } else {
                                        let _ = g.vars[v].get();
                                        log.ops.push(format!("r(x{l}_{v})"));
                                    }
                                }
                                drop(g);
                                log.ops.push(format!("rel(L{l})"));
                            }
                            Step::Increment => {
                                let v = counter.fetch_add(1, Ordering::SeqCst);
                                if v > 0 {
                                    log.ops.push("rcv(c)".into());
                                }
                                log.ops.push("snd(c)".into());
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
            prop_assert_eq!(&ops_of(&trace, &name), &log.ops, "thread {}", name);
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
            .filter(|e| matches!(e.op, Op::Send(_)))
            .map(|e| trace.names.thread(e.thread).to_owned())
            .collect();
        prop_assert_eq!(recorded, expected, "counter");
        prop_assert!(races(&path).is_empty());
    }
}
