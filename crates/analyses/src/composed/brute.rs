//! The brute-force oracle: linearizability, straight from its definition (Herlihy & Wing), of
//! two threads running concurrently on a small domain. Thread A runs the composed operation;
//! thread B runs it too (with its own value and its own objects) or one base map operation
//! (`put(k, 1000)`, `remove(k)`, `get(k)`). Every interleaving of their atomic steps is
//! explored; a complete history (both invoked at the start, so they overlap) is linearizable
//! iff running the two operations atomically in one of the two orders from the same initial
//! map gives both observed results and the observed final map.
//!
//! It shares only the single-step semantics of `ir.rs` with the verifier: no environment
//! transitions, no linearization points, no renaming (each thread's objects differ).

use super::ast::MapMethod;
use super::ir::{apply_map, Code, Local, Outcome, Shared, Step, Stuck, Value};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;

/// What thread B runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Other {
    /// The composed operation with these arguments.
    Operation(Vec<Value>),
    /// One base map operation with these arguments.
    Base(MapMethod, Vec<Value>),
}

/// A non-linearizable history.
#[derive(Clone, Debug)]
pub struct Violation {
    pub other: Other,
    pub initial: Shared,
    pub outcome_a: Outcome,
    pub outcome_b: Outcome,
    pub last: Shared,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Thread {
    Running(Local),
    Done(Outcome),
}

/// Runs thread B's operation alone.
fn run_other(
    code: &Code,
    other: &Other,
    shared: Shared,
    limit: usize,
) -> Result<(Outcome, Shared), Stuck> {
    match other {
        Other::Operation(args) => {
            let mut l = code.start(args);
            l.thread = 2;
            code.run_sequential(l, shared, limit)
        }
        Other::Base(m, args) => {
            let mut s = shared;
            let o = match apply_map(&mut s, 0, *m, args) {
                Ok(v) => Outcome::Returned(v),
                Err(e) => Outcome::Threw(e),
            };
            Ok((o, s))
        }
    }
}

fn start(code: &Code, args: &[Value], thread: u8) -> Local {
    let mut l = code.start(args);
    l.thread = thread;
    l
}

/// Checks every interleaving of A (`args`) and B (`other`) from `initial`; the first
/// non-linearizable history, if any. `Err` when a run cannot be evaluated or exceeds `limit`
/// states.
pub fn check_pair(
    code: &Code,
    args: &[Value],
    other: &Other,
    initial: &Shared,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    let a0 = Thread::Running(start(code, args, 1));
    let b0 = match other {
        Other::Operation(bargs) => Thread::Running(start(code, bargs, 2)),
        Other::Base(..) => Thread::Running(Local {
            pc: usize::MAX,
            slots: Vec::new(),
            thread: 2,
        }),
    };
    let seq_limit = 10_000;
    // The sequential outcomes of both orders, computed once.
    let ab = {
        let (oa, s) = code.run_sequential(start(code, args, 1), initial.clone(), seq_limit)?;
        let (ob, s) = run_other(code, other, s, seq_limit)?;
        (oa, ob, s)
    };
    let ba = {
        let (ob, s) = run_other(code, other, initial.clone(), seq_limit)?;
        let (oa, s) = code.run_sequential(start(code, args, 1), s, seq_limit)?;
        (oa, ob, s)
    };
    let mut seen: FxHashSet<(Thread, Thread, Shared)> = FxHashSet::default();
    let mut stack = vec![(a0, b0, initial.clone())];
    while let Some((a, b, s)) = stack.pop() {
        if !seen.insert((a.clone(), b.clone(), s.clone())) {
            continue;
        }
        if seen.len() > limit {
            return Err(Stuck(format!("more than {limit} states")));
        }
        if let (Thread::Done(oa), Thread::Done(ob)) = (&a, &b) {
            let observed = (oa.clone(), ob.clone(), s.clone());
            if observed != ab && observed != ba {
                return Ok(Some(Violation {
                    other: other.clone(),
                    initial: initial.clone(),
                    outcome_a: oa.clone(),
                    outcome_b: ob.clone(),
                    last: s,
                }));
            }
            continue;
        }
        if let Thread::Running(l) = &a {
            let mut l = l.clone();
            let mut s2 = s.clone();
            let next = match code.step(&mut l, &mut s2)? {
                Step::Done(o) => Thread::Done(o),
                _ => Thread::Running(l),
            };
            stack.push((next, b.clone(), s2));
        }
        if let Thread::Running(l) = &b {
            let mut s2 = s.clone();
            let next = match other {
                Other::Operation(_) => {
                    let mut l = l.clone();
                    match code.step(&mut l, &mut s2)? {
                        Step::Done(o) => Thread::Done(o),
                        _ => Thread::Running(l),
                    }
                }
                Other::Base(..) => {
                    let (o, after) = run_other(code, other, s2, seq_limit)?;
                    s2 = after;
                    Thread::Done(o)
                }
            };
            stack.push((a.clone(), next, s2));
        }
    }
    Ok(None)
}

/// The small domain: key `1` for the key parameter, values 500 (A) and 501 (B) for the value
/// parameter, the maps `{}` and `{1->1000}`, and B running the operation (same or other
/// value) or `put(1, 1000)`, `remove(1)`, `get(1)`. Returns the first violation found.
pub fn brute_force(
    code: &Code,
    key: Option<usize>,
    value: Option<usize>,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    let k = Value::Int(1);
    let args_with = |v: i64| {
        let mut a = vec![Value::Void; code.params];
        if let Some(i) = key {
            a[i] = k.clone();
        }
        if let Some(i) = value {
            a[i] = Value::Int(v);
        }
        a
    };
    let env = Value::Int(super::verify::ENV_VALUE);
    let others = [
        Other::Operation(args_with(500)),
        Other::Operation(args_with(501)),
        Other::Base(MapMethod::Put, vec![k.clone(), env.clone()]),
        Other::Base(MapMethod::Remove, vec![k.clone()]),
        Other::Base(MapMethod::Get, vec![k.clone()]),
    ];
    for init in [
        BTreeMap::new(),
        BTreeMap::from([((0u8, k.clone()), env.clone())]),
    ] {
        let initial = code.shared(init);
        for other in &others {
            if let Some(v) = check_pair(code, &args_with(500), other, &initial, limit)? {
                return Ok(Some(v));
            }
        }
    }
    Ok(None)
}
