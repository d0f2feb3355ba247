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
//! transitions, no linearization points, no renaming (each thread's objects differ). A
//! traversal of the map (`MapMethod::Next`) is the exception: it takes every step that weakly
//! consistent iteration allows, as the JDK documents it, in a fixed traversal order (the order
//! of the keys): each key present for the whole traversal is reached, each key at most once,
//! and a key present only for part of it may or may not be; run alone, a traversal reaches
//! every key present when it gets there (`ConcurrentHashMap`'s, reading each bin in turn).
//! `ir.rs` gives a traversal one of these behaviours; this is written apart from it.
//!
//! It is the literal reference the property tests (`tests/composed_oracle.rs`) hold the fast
//! code (classifier and verifier) against. Test support, not API: compiled only with the
//! `oracle` feature, which this crate's tests enable through a dev-dependency on the crate
//! itself.

use super::ast::MapMethod;
use super::ir::{
    apply_map, same_up_to_fresh_pinned, Code, Fact, Halt, Instr, Local, Outcome, PExpr, Relation,
    Shared, Step, Stuck, Value,
};
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, BTreeSet};

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

/// A thread running the composed operation: its local state and the traversals it is in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Runner {
    local: Local,
    traversals: Vec<Traversal>,
}

/// A traversal under way: the slot holding its cursor (the entry it is at), its map, and the
/// keys present since it began (those it must reach).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Traversal {
    cursor: u16,
    map: u8,
    present_throughout: BTreeSet<Value>,
}

impl Runner {
    fn new(local: Local) -> Runner {
        Runner {
            local,
            traversals: Vec::new(),
        }
    }

    /// Keys removed from the map stop being present for the whole traversal.
    fn settle(&mut self, shared: &Shared) {
        for t in &mut self.traversals {
            t.present_throughout
                .retain(|k| shared.map.contains_key(&(t.map, k.clone())));
        }
    }
}

/// The instruction at `pc` if it is a traversal's step: its map and cursor slot.
fn traversal_step(code: &Code, pc: usize) -> Option<(u8, u16)> {
    match code.instrs.get(pc)? {
        Instr::Map {
            dst: Some(d),
            map,
            method: MapMethod::Next,
            args,
        } if matches!(args.as_slice(), [PExpr::Slot(c)] if c == d) => Some((*map, *d)),
        _ => None,
    }
}

/// The keys of map `map` in the traversal order.
fn keys_of(shared: &Shared, map: u8) -> Vec<(Value, Value)> {
    shared
        .map
        .iter()
        .filter(|((m, _), _)| *m == map)
        .map(|((_, k), v)| (k.clone(), v.clone()))
        .collect()
}

/// Every step weakly consistent iteration allows a traversal of `map` whose cursor is in slot
/// `cursor` of `r`: the entry of any key after the cursor's (in the traversal order) present
/// now, when no key present since the traversal began lies between; or the end, when none
/// lies after the cursor. The traversal begins at its first step (`ConcurrentHashMap`'s
/// iterator finds its first entry when it is made).
fn traversal_choices(r: &Runner, shared: &Shared, map: u8, cursor: u16) -> Vec<Runner> {
    let at = &r.local.slots[cursor as usize];
    let mut r = r.clone();
    let last: Option<Value> = match at {
        Value::Obj(o) if o.args.len() == 2 => Some(o.args[0].clone()),
        _ => {
            // Before the first entry: a traversal begins.
            r.traversals.retain(|t| t.cursor != cursor);
            r.traversals.push(Traversal {
                cursor,
                map,
                present_throughout: keys_of(shared, map).into_iter().map(|(k, _)| k).collect(),
            });
            None
        }
    };
    let after = |k: &Value| last.as_ref().is_none_or(|l| k > l);
    let must: Vec<Value> = r
        .traversals
        .iter()
        .find(|t| t.cursor == cursor)
        .map(|t| {
            t.present_throughout
                .iter()
                .filter(|k| after(k))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut advance = |r: &Runner, result: Value| {
        let mut r = r.clone();
        if result == Value::Null {
            r.traversals.retain(|t| t.cursor != cursor);
        }
        r.local.slots[cursor as usize] = result;
        r.local.pc += 1;
        out.push(r);
    };
    for (k, v) in keys_of(shared, map) {
        let skips_a_must = must.iter().any(|m| *m < k);
        if after(&k) && !skips_a_must {
            advance(&r, Value::entry(k, v));
        }
    }
    if must.is_empty() {
        advance(&r, Value::Null);
    }
    out
}

/// The steps thread `r` can take from `shared`: one, or every choice of a traversal's step.
/// `Ok(None)` when it ends with this step.
#[allow(clippy::type_complexity)]
fn successors(
    code: &Code,
    r: &Runner,
    shared: &Shared,
) -> Result<Vec<(Runner, Shared, Option<Outcome>)>, Halt> {
    if let Some((map, cursor)) = traversal_step(code, r.local.pc) {
        return Ok(traversal_choices(r, shared, map, cursor)
            .into_iter()
            .map(|r| (r, shared.clone(), None))
            .collect());
    }
    let mut r = r.clone();
    let mut s = shared.clone();
    match code.step_or_fork(&mut r.local, &mut s)? {
        Step::Done(o) => Ok(vec![(r, s, Some(o))]),
        _ => Ok(vec![(r, s, None)]),
    }
}

/// Every way the operation runs alone from `local` (unknown values its facts leave open taken
/// both ways when it keeps facts), each traversal reaching every key present when it gets
/// there: at most `max_runs` runs of at most `limit` steps each.
fn alone(
    code: &Code,
    local: Local,
    shared: Shared,
    limit: usize,
    max_runs: usize,
) -> Result<Vec<(Outcome, Shared)>, Stuck> {
    let mut out = Vec::new();
    let mut pending = vec![(local, shared, 0usize)];
    while let Some((mut l, mut s, mut steps)) = pending.pop() {
        loop {
            if steps >= limit {
                return Err(Stuck(format!(
                    "the operation does not finish within {limit} steps when run alone"
                )));
            }
            steps += 1;
            if let Some((map, cursor)) = traversal_step(code, l.pc) {
                let last = match &l.slots[cursor as usize] {
                    Value::Obj(o) if o.args.len() == 2 => Some(o.args[0].clone()),
                    _ => None,
                };
                let next = keys_of(&s, map)
                    .into_iter()
                    .find(|(k, _)| last.as_ref().is_none_or(|l| k > l));
                l.slots[cursor as usize] = match next {
                    Some((k, v)) => Value::entry(k, v),
                    None => Value::Null,
                };
                l.pc += 1;
                continue;
            }
            match code.step_or_fork(&mut l, &mut s) {
                Ok(Step::Done(o)) => {
                    out.push((o, s));
                    break;
                }
                Ok(_) => {}
                Err(Halt::Stuck(e)) => return Err(e),
                Err(Halt::Fork(q)) => {
                    if out.len() + pending.len() + 2 > max_runs {
                        return Err(Stuck(format!(
                            "more than {max_runs} ways to run alone (unknown values taken both ways)"
                        )));
                    }
                    pending.push((code.assume(&l, &q, false), s.clone(), steps));
                    l = code.assume(&l, &q, true);
                }
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Thread {
    Running(Runner),
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
            alone(code, l, shared, limit, 1)?
                .pop()
                .ok_or_else(|| Stuck("no run".into()))
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
    running: Option<Runner>,
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
    let a0 = Thread::Running(Runner::new(a_start.clone()));
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
        // Keys removed by the step just taken are no longer present for the whole of the
        // traversals under way.
        let settle = |a: &mut Thread, b: &mut ThreadB, s: &Shared| {
            if let Thread::Running(r) = a {
                r.settle(s);
            }
            if let Some(r) = &mut b.running {
                r.settle(s);
            }
        };
        if let Thread::Running(r) = &a {
            match successors(code, r, &s) {
                Ok(next) => {
                    for (r, s2, done) in next {
                        let mut a2 = match done {
                            Some(o) => Thread::Done(o),
                            None => Thread::Running(r),
                        };
                        let mut b2 = b.clone();
                        settle(&mut a2, &mut b2, &s2);
                        stack.push((a2, b2, s2));
                    }
                }
                // Not an interleaving the facts describe.
                Err(Halt::Fork(_)) => {}
                Err(Halt::Stuck(e)) => return Err(e),
            }
        }
        if b.next < others.len() {
            let mut b2 = b.clone();
            if b2.running.is_none() {
                b2.after_a.push(matches!(a, Thread::Done(_)));
            }
            let mut next = Vec::new();
            match &others[b.next] {
                Other::Operation(bargs) => {
                    let r = b2
                        .running
                        .take()
                        .unwrap_or_else(|| Runner::new(start(code, bargs, 2)));
                    let steps = successors(code, &r, &s).map_err(|h| match h {
                        Halt::Stuck(e) => e,
                        Halt::Fork(q) => Stuck(format!(
                            "thread B observes an unknown value: whether `{}` is `{}`",
                            q.call, q.comparand
                        )),
                    })?;
                    for (r, s2, done) in steps {
                        let mut b3 = b2.clone();
                        match done {
                            Some(o) => {
                                b3.outcomes.push(o);
                                b3.next += 1;
                            }
                            None => b3.running = Some(r),
                        }
                        next.push((b3, s2));
                    }
                }
                other @ Other::Base(..) => {
                    let (o, after) = run_other(code, other, s.clone(), seq_limit)?;
                    b2.outcomes.push(o);
                    b2.next += 1;
                    next.push((b2, after));
                }
            }
            for (mut b2, s2) in next {
                let mut a2 = a.clone();
                settle(&mut a2, &mut b2, &s2);
                stack.push((a2, b2, s2));
            }
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
    // the final state; fresh values are compared up to renaming, an unknown the facts fix to
    // an integer (and arithmetic on such) as that integer.
    let pins = fixed(a_start.assumed.as_deref().unwrap_or_default());
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
        for (oa, mut s) in alone(code, a_start.clone(), s, limit, 64)? {
            let mut results = vec![oa];
            results.extend(before.iter().cloned());
            for other in &others[p..] {
                let (o, after) = run_other(code, other, s, limit)?;
                results.push(o);
                s = after;
            }
            if same_up_to_fresh_pinned(&pins, (&results, &s), (&observed, last)) {
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
    let mut sequences: Vec<Vec<Other>> = vec![
        vec![Other::Operation(args_with(500))],
        vec![Other::Operation(args_with(501))],
    ];
    sequences.extend(base_sequences(&k, &env));
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

/// Every sequence of one to three base operations on the key `k` another thread may run:
/// `put(k, env)`, `remove(k)`, `get(k)`.
pub fn base_sequences(k: &Value, env: &Value) -> Vec<Vec<Other>> {
    let base = [
        Other::Base(MapMethod::Put, vec![k.clone(), env.clone()]),
        Other::Base(MapMethod::Remove, vec![k.clone()]),
        Other::Base(MapMethod::Get, vec![k.clone()]),
    ];
    let mut sequences = Vec::new();
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
    sequences
}

/// The unknowns `facts` fix to an integer: the fact that the value returned by a call is an
/// integer, as it reads.
fn fixed(facts: &[Fact]) -> BTreeMap<Value, i64> {
    facts
        .iter()
        .filter(|f| f.relation == Relation::Is && f.holds && f.source.is_none())
        .filter_map(|f| match (&f.comparand, &f.call) {
            (Value::Int(c), Value::Obj(o)) if o.site == 0 => Some((f.call.clone(), *c)),
            _ => None,
        })
        .collect()
}

/// Every fact about numbers in `facts` holds in the program whose unknown calls return what
/// the facts fix them to: each comparison evaluated as Java evaluates it from the terms it
/// was written with (`x.count() + 1 > 4`, `Math.max(a, b) / 1000`), with `long` arithmetic
/// that must not overflow `int`. A literal check, apart from the rewriting and the model
/// search of `arith.rs`: a witness whose assumptions contradict one another fails it. `Err`
/// says which fact fails or cannot be evaluated.
pub fn facts_hold(facts: &[Fact]) -> Result<(), String> {
    let values = fixed(facts);
    for f in facts {
        let holds = match &f.source {
            Some(c) => {
                let x = literal(&c.left, &values)
                    .ok_or_else(|| format!("{f}: {} has no value", c.left))?;
                let y = literal(&c.right, &values)
                    .ok_or_else(|| format!("{f}: {} has no value", c.right))?;
                let r = match c.op {
                    "<" => x < y,
                    "<=" => x <= y,
                    ">" => x > y,
                    ">=" => x >= y,
                    "==" => x == y,
                    "!=" => x != y,
                    op => return Err(format!("{f}: the comparison `{op}`")),
                };
                // The fact's answer is its question's; the comparison's is that, or its
                // negation.
                r == c.holds(f.holds)
            }
            None => {
                let Value::Int(c) = f.comparand else {
                    continue;
                };
                let x = literal(&f.call, &values).ok_or_else(|| format!("{f}: no value"))?;
                let r = match f.relation {
                    Relation::Below => x < c,
                    Relation::Is => x == c,
                    Relation::Function => continue,
                };
                r == f.holds
            }
        };
        if !holds {
            return Err(format!("{f} does not hold where {values:?}"));
        }
    }
    Ok(())
}

/// The value of a number the operation computed, from what it is made of.
fn literal(v: &Value, values: &BTreeMap<Value, i64>) -> Option<i64> {
    let n: i64 = match v {
        Value::Int(n) => *n,
        Value::Obj(o) if o.site == 0 && o.serial == 0 && o.calls.is_empty() => {
            let arg = |i: usize| o.args.get(i).and_then(|a| literal(a, values));
            match (&*o.class, o.args.len()) {
                ("+", 2) => arg(0)?.checked_add(arg(1)?)?,
                ("-", 2) => arg(0)?.checked_sub(arg(1)?)?,
                ("*", 2) => arg(0)?.checked_mul(arg(1)?)?,
                ("/", 2) => arg(0)?.checked_div(arg(1)?)?,
                ("%", 2) => arg(0)?.checked_rem(arg(1)?)?,
                ("neg", 1) => arg(0)?.checked_neg()?,
                ("Math.max", 2) => arg(0)?.max(arg(1)?),
                ("Math.min", 2) => arg(0)?.min(arg(1)?),
                ("Math.abs", 1) => arg(0)?.checked_abs()?,
                _ => *values.get(v)?,
            }
        }
        _ => return None,
    };
    i32::try_from(n).ok().map(i64::from)
}
