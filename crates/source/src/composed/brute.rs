//! The brute-force oracle: linearizability, straight from its definition (Herlihy & Wing), of
//! two threads running concurrently on a small domain. Thread A runs the composed operation;
//! thread B runs it too (with its own value and its own objects), or one to three base map
//! operations in a row (`put(k, 1000)`, `remove(k)`, `get(k)`). Every interleaving of their
//! atomic steps is explored; a complete history is linearizable iff A can be placed among B's
//! operations (not after one B began once A had finished: real-time order) so that running
//! them atomically in that order from the same initial map gives every observed result and
//! the observed final map.
//!
//! It shares only the single-step semantics of `ir.rs` with the verifier: no environment
//! transitions, no linearization points, no renaming (each thread's objects differ).
//!
//! It is the literal reference the property tests (`tests/composed_oracle.rs`) hold the fast
//! code (classifier and verifier) against. Test support, not API: compiled only with the
//! `oracle` feature, which this crate's tests enable through a dev-dependency on the crate
//! itself.

use super::ast::MapMethod;
use super::ir::{
    apply_map, same_up_to_fresh, Code, Fact, Halt, Local, Outcome, Shared, Step, Stuck, Value,
};
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
    pub other: Vec<Other>,
    pub initial: Shared,
    pub outcome_a: Outcome,
    pub outcome_b: Vec<Outcome>,
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

/// Thread B's progress: which of its operations runs, its local state if it is the composed
/// operation, the outcomes so far, and for each operation whether A had finished when it began.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ThreadB {
    next: usize,
    running: Option<Local>,
    outcomes: Vec<Outcome>,
    after_a: Vec<bool>,
}

/// Checks every interleaving of A (`args`) and B (the operations `others`, one after the
/// other) from `initial`; the first non-linearizable history, if any. `Err` when a run cannot
/// be evaluated or exceeds `limit` states.
pub fn check_pair(
    code: &Code,
    args: &[Value],
    others: &[Other],
    initial: &Shared,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    check_pair_assuming(code, args, None, others, initial, limit)
}

/// [`check_pair`] with A's unknown values decided by `facts` (`None`: the ordinary semantics):
/// an interleaving in which A observes an unknown value the facts leave open is not one the
/// facts describe and is left out; A's atomic runs take what the facts leave open both ways
/// (a history is linearizable if any of them fits).
pub fn check_pair_assuming(
    code: &Code,
    args: &[Value],
    facts: Option<&[Fact]>,
    others: &[Other],
    initial: &Shared,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    let seq_limit = 10_000;
    let mut a_start = start(code, args, 1);
    if let Some(facts) = facts {
        // The facts name A's objects as the bounded check does (thread 0); B's base
        // operations allocate none, so nothing else is named so.
        a_start.thread = 0;
        a_start.assumed = Some(facts.to_vec());
    }
    let a0 = Thread::Running(a_start.clone());
    let b0 = ThreadB {
        next: 0,
        running: None,
        outcomes: Vec::new(),
        after_a: Vec::new(),
    };
    let mut seen: FxHashSet<(Thread, ThreadB, Shared)> = FxHashSet::default();
    let mut stack = vec![(a0, b0, initial.clone())];
    while let Some((a, b, s)) = stack.pop() {
        if !seen.insert((a.clone(), b.clone(), s.clone())) {
            continue;
        }
        if seen.len() > limit {
            return Err(Stuck(format!("more than {limit} states")));
        }
        if let (Thread::Done(oa), true) = (&a, b.next == others.len()) {
            if !linearizable(code, &a_start, others, initial, oa, &b, &s, seq_limit)? {
                return Ok(Some(Violation {
                    other: others.to_vec(),
                    initial: initial.clone(),
                    outcome_a: oa.clone(),
                    outcome_b: b.outcomes.clone(),
                    last: s,
                }));
            }
            continue;
        }
        if let Thread::Running(l) = &a {
            let mut l = l.clone();
            let mut s2 = s.clone();
            match code.step_or_fork(&mut l, &mut s2) {
                Ok(Step::Done(o)) => stack.push((Thread::Done(o), b.clone(), s2)),
                Ok(_) => stack.push((Thread::Running(l), b.clone(), s2)),
                // Not an interleaving the facts describe.
                Err(Halt::Fork(_)) => {}
                Err(Halt::Stuck(e)) => return Err(e),
            }
        }
        if b.next < others.len() {
            let mut b2 = b.clone();
            let mut s2 = s.clone();
            if b2.running.is_none() {
                b2.after_a.push(matches!(a, Thread::Done(_)));
            }
            match &others[b.next] {
                Other::Operation(bargs) => {
                    let mut l = b2.running.take().unwrap_or_else(|| start(code, bargs, 2));
                    match code.step(&mut l, &mut s2)? {
                        Step::Done(o) => {
                            b2.outcomes.push(o);
                            b2.next += 1;
                        }
                        _ => b2.running = Some(l),
                    }
                }
                other @ Other::Base(..) => {
                    let (o, after) = run_other(code, other, s2, seq_limit)?;
                    s2 = after;
                    b2.outcomes.push(o);
                    b2.next += 1;
                }
            }
            stack.push((a.clone(), b2, s2));
        }
    }
    Ok(None)
}

/// Whether some placement of A among B's operations — not after one that began once A had
/// finished — replays every outcome and the final state.
#[allow(clippy::too_many_arguments)]
fn linearizable(
    code: &Code,
    a_start: &Local,
    others: &[Other],
    initial: &Shared,
    outcome_a: &Outcome,
    b: &ThreadB,
    last: &Shared,
    limit: usize,
) -> Result<bool, Stuck> {
    // Outcomes in the history's order (A's first: its place is not what is compared), then
    // the final state; fresh values are compared up to renaming.
    let mut observed = vec![outcome_a.clone()];
    observed.extend(b.outcomes.iter().cloned());
    for p in 0..=others.len() {
        if b.after_a[..p].iter().any(|&after| after) {
            break; // A must precede the operations B began after A finished
        }
        // B's operations before A, then every way A runs alone there, then the rest.
        let mut s = initial.clone();
        let mut before = Vec::new();
        for other in &others[..p] {
            let (o, after) = run_other(code, other, s, limit)?;
            before.push(o);
            s = after;
        }
        for (oa, mut s) in code.run_sequential_all(a_start.clone(), s, limit, 64)? {
            let mut results = vec![oa];
            results.extend(before.iter().cloned());
            for other in &others[p..] {
                let (o, after) = run_other(code, other, s, limit)?;
                results.push(o);
                s = after;
            }
            if same_up_to_fresh((&results, &s), (&observed, last)) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The small domain: each key of `keys` for the key parameter, values 500 (A) and 501 (B) for
/// the value parameter (and values of their own for any other), the maps `{}` and `{k->1000}`; B runs the operation (same or other
/// value) or up to three base operations among `put(k, 1000)`, `remove(k)`, `get(k)`.
/// Returns the first violation found.
pub fn brute_force(
    code: &Code,
    keys: &[Value],
    key: Option<usize>,
    value: Option<usize>,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    for k in keys {
        if let Some(v) = brute_force_key(code, k.clone(), key, value, limit)? {
            return Ok(Some(v));
        }
    }
    Ok(None)
}

fn brute_force_key(
    code: &Code,
    k: Value,
    key: Option<usize>,
    value: Option<usize>,
    limit: usize,
) -> Result<Option<Violation>, Stuck> {
    let args_with = |v: i64| {
        // Every other parameter: a value of its own (as the verifier gives inputs only passed
        // along); it stays `void` in an operation that has none.
        let mut a: Vec<Value> = (0..code.params)
            .map(|i| Value::Int(super::verify::extra_input(v, i)))
            .collect();
        if let Some(i) = key {
            a[i] = k.clone();
        }
        if let Some(i) = value {
            a[i] = Value::Int(v);
        }
        a
    };
    let env = Value::Int(super::verify::ENV_VALUE);
    let base = [
        Other::Base(MapMethod::Put, vec![k.clone(), env.clone()]),
        Other::Base(MapMethod::Remove, vec![k.clone()]),
        Other::Base(MapMethod::Get, vec![k.clone()]),
    ];
    let mut sequences: Vec<Vec<Other>> = vec![
        vec![Other::Operation(args_with(500))],
        vec![Other::Operation(args_with(501))],
    ];
    let mut layer: Vec<Vec<Other>> = vec![Vec::new()];
    for _ in 0..3 {
        layer = layer
            .iter()
            .flat_map(|seq| {
                base.iter().map(move |op| {
                    let mut s = seq.clone();
                    s.push(op.clone());
                    s
                })
            })
            .collect();
        sequences.extend(layer.iter().cloned());
    }
    for init in [
        BTreeMap::new(),
        BTreeMap::from([((0u8, k.clone()), env.clone())]),
    ] {
        let initial = code.shared(init);
        for others in &sequences {
            if let Some(v) = check_pair(code, &args_with(500), others, &initial, limit)? {
                return Ok(Some(v));
            }
        }
    }
    Ok(None)
}
