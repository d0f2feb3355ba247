//! The bounded check for data-dependent operations (`--bounded`): the exploration of
//! `verify.rs` over a small domain — every parameter drawn from a few values (the program's
//! constants, `null`, two others), the environment free to write or remove every key those
//! values give in every map, with two values of its own and each value the operation stores
//! that another thread can hold too (an argument, a constant: another thread registering the
//! same object under another key is a move of the environment), and to change every global
//! between any two steps that touch shared state — checked against Definition 3.1, each violation confirmed by the literal
//! linearizability of the trace's history (so a reported bug is a real one). Finding
//! none proves nothing beyond the domain (the reduction of Theorem 4.1 needs data
//! independence), so the report labels it "not proved" and states the bounds.
//!
//! An unknown value the operation observes — an unknown call's result used as a condition
//! (`t.isDone()`), compared (`t.state() == FINISHED`, `"x".equals(f.name())`, `!= null`) —
//! is taken both ways, each path keeping the fact it assumes (`ir::Fact`); unknown calls are
//! functions of their receiver and arguments, so the sequential runs a trace is compared with
//! follow the same facts and take both ways what they leave open. A violation is then one of
//! every program whose unknown code behaves as its facts say, and is reported with them.
//!
//! It knows the instructions and the classification, not the syntax.

use super::ir::{Code, Halt, Instr, PExpr, Shared, Step, Value, DETERMINED};
use super::verify::{explore, stopped, EnvModel, Explored, Limits, VerifyResult};
use hindsight_budget::Budget;
use std::collections::BTreeMap;

/// The size of the domain.
#[derive(Clone, Debug)]
pub struct Domain {
    /// How many combinations of parameter values to try at most.
    pub max_runs: usize,
    pub limits: Limits,
    /// The states all the explorations of one operation may visit together: past it the
    /// check stops, not proved, and says where (so that a whole project finishes).
    pub max_states_per_operation: usize,
}

/// The default of [`Domain::max_states_per_operation`].
pub const STATES_PER_OPERATION: usize = 1_000_000;

impl Default for Domain {
    fn default() -> Domain {
        Domain {
            max_runs: 64,
            limits: Limits {
                max_states: 200_000,
                max_sequential_steps: 10_000,
            },
            max_states_per_operation: STATES_PER_OPERATION,
        }
    }
}

pub struct BoundedResult {
    pub result: VerifyResult,
    pub states: usize,
    /// The domain, described for the report.
    pub domain: String,
}

fn constants(e: &PExpr, out: &mut Vec<Value>) {
    e.walk(&mut |x| {
        if let PExpr::Const(v @ (Value::Int(_) | Value::Str(_))) = x {
            if !out.contains(v) {
                out.push(v.clone())
            }
        }
    });
}

/// Runs the bounded check within `budget`.
pub fn check(code: &Code, domain: &Domain, budget: &Budget) -> BoundedResult {
    let mut consts = Vec::new();
    for i in &code.instrs {
        match i {
            Instr::Let(_, e) | Instr::SetGlobal(_, e) | Instr::Branch(e, _) | Instr::Throw(e) => {
                constants(e, &mut consts)
            }
            Instr::Return(Some(e)) => constants(e, &mut consts),
            Instr::Map { args, .. } | Instr::ObjCall(_, _, args) => {
                args.iter().for_each(|a| constants(a, &mut consts))
            }
            _ => {}
        }
    }
    let mut inputs = vec![Value::Int(1), Value::Int(2)];
    for c in consts.iter().take(6) {
        if !inputs.contains(c) {
            inputs.push(c.clone());
        }
    }
    let env_value = Value::Int(super::verify::ENV_VALUE);
    // Keys the environment touches: every non-null input value, in every map.
    let maps = code.maps.len().max(1) as u8;
    let keys: Vec<(u8, Value)> = (0..maps)
        .flat_map(|m| inputs.iter().map(move |k| (m, k.clone())))
        .collect();
    let mut per_param = inputs.clone();
    per_param.push(Value::Null);
    let global_values: Vec<Vec<Value>> = code
        .globals
        .iter()
        .enumerate()
        .map(|(g, name)| {
            if code.global_final[g] || !code.global_used[g] {
                Vec::new()
            } else {
                // Values of the global's type, its default first.
                match code.global_ty[g].as_str() {
                    "int" | "long" | "short" | "byte" => vec![Value::Int(0), Value::Int(1)],
                    "Integer" | "Long" => vec![Value::Null, Value::Int(1)],
                    "boolean" => vec![Value::Bool(false), Value::Bool(true)],
                    "Boolean" => vec![Value::Null, Value::Bool(true)],
                    "String" => vec![Value::Null, Value::str(&format!("{name}#1"))],
                    _ => vec![Value::Null, Value::exception(&format!("{name}#1"))],
                }
            }
        })
        .collect();
    // Two values of the environment's own: it can replace an entry the operation read with
    // another one (a stored object the operation judged is not the one it then acts on).
    let env_values = vec![env_value.clone(), Value::Int(super::verify::ENV_VALUE + 1)];
    let env = EnvModel {
        keys: keys.clone(),
        values: env_values.clone(),
        globals: global_values.clone(),
        influence: false,
        prune_stuck: true,
        confirm: true,
        assume: true,
    };
    // Parameter combinations, in order, up to the bound.
    let mut combos: Vec<Vec<Value>> = vec![Vec::new()];
    for p in 0..code.params {
        let values = match code.param_ty[p].as_str() {
            "boolean" => vec![Value::Bool(false), Value::Bool(true)],
            "Boolean" => vec![Value::Null, Value::Bool(false), Value::Bool(true)],
            _ => per_param.clone(),
        };
        let mut next = Vec::new();
        for c in &combos {
            for v in &values {
                let mut c = c.clone();
                c.push(v.clone());
                next.push(c);
            }
        }
        combos = next;
        combos.truncate(domain.max_runs);
    }
    // Initial states: empty or full maps, globals all null or all set.
    let full: BTreeMap<(u8, Value), Value> = keys
        .iter()
        .map(|k| (k.clone(), env_value.clone()))
        .collect();
    let mut inits = Vec::new();
    for map in [BTreeMap::new(), full] {
        for set in [false, true] {
            let mut s = code.shared(map.clone());
            if set {
                for (g, vs) in global_values.iter().enumerate() {
                    if let Some(v) = vs.last() {
                        s.globals[g] = v.clone();
                    }
                }
            }
            if !inits.contains(&s) {
                inits.push(s);
            }
        }
    }
    // The bounds, all of them: what "nothing found" covers.
    let domain_text = format!(
        "bounds: one thread running the operation once, the environment's put of {} (and of the values the operation stores that another thread can hold too) or remove on {} key(s) between any two of its steps; {} parameter combination(s) from {{{}}}; {} initial state(s); {} global(s) the environment may change; unknown values taken both ways; at most {} states per exploration",
        env_values
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(" or "),
        keys.len(),
        combos.len(),
        per_param.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
        inits.len(),
        global_values.iter().filter(|v| !v.is_empty()).count(),
        domain.limits.max_states
    );
    let mut states = 0;
    let mut pruned = 0;
    let mut first_pruned = None;
    let explorations = combos.len() * inits.len();
    let mut explored = 0;
    for args in &combos {
        // The keys the operation really uses (a key computed from the parameters, a constant
        // key), as its runs alone from each initial state reach them: the environment writes
        // and removes those too.
        let mut env = env.clone();
        for init in &inits {
            let used = used(code, args, init, domain.limits.max_sequential_steps);
            for key in used.keys {
                if !env.keys.contains(&key) {
                    env.keys.push(key);
                }
            }
            // The values it stores that another thread can hold too (an argument, a
            // constant): the environment writes them as well, so that another thread doing
            // what this one does (registering the same object under another key) is among
            // its moves.
            for value in used.values {
                if !env.values.contains(&value) {
                    env.values.push(value);
                }
            }
        }
        for init in &inits {
            // The operation's bound: what is left of it caps this exploration.
            let left = domain.max_states_per_operation.saturating_sub(states);
            let capped = left < domain.limits.max_states;
            let limits = Limits {
                max_states: left.min(domain.limits.max_states),
                ..domain.limits
            };
            let per_operation = |explored: usize| {
                VerifyResult::NotProved(format!(
                    "stopped at the bound of {} states per operation, in exploration {explored} of {explorations} (parameter combinations times initial states), with no violation found; this is not a proof",
                    domain.max_states_per_operation
                ))
            };
            explored += 1;
            if left == 0 {
                return BoundedResult {
                    result: per_operation(explored),
                    states,
                    domain: domain_text,
                };
            }
            match explore(code, args, init.clone(), &env, &limits, budget) {
                Ok(c) => {
                    states += c.states;
                    pruned += c.pruned;
                    if first_pruned.is_none() {
                        first_pruned = c.first_pruned;
                    }
                }
                Err(Explored::Violation(c)) => {
                    states += c.states;
                    return BoundedResult {
                        result: VerifyResult::Violation(c),
                        states,
                        domain: domain_text,
                    };
                }
                Err(Explored::Stuck(s)) => {
                    return BoundedResult {
                        result: VerifyResult::NotProved(s.0),
                        states,
                        domain: domain_text,
                    }
                }
                Err(Explored::Limit(n)) if capped => {
                    return BoundedResult {
                        result: per_operation(explored),
                        states: states + n,
                        domain: domain_text,
                    };
                }
                Err(Explored::Limit(n)) => {
                    return BoundedResult {
                        result: VerifyResult::NotProved(format!("gave up after {n} states")),
                        states: states + n,
                        domain: domain_text,
                    }
                }
                Err(Explored::Budget(spent, n)) => {
                    return BoundedResult {
                        result: VerifyResult::NotProved(stopped(spent, states + n)),
                        states: states + n,
                        domain: domain_text,
                    }
                }
            }
        }
    }
    if pruned > 0 {
        // Never "no violation" with paths left out.
        return BoundedResult {
            result: VerifyResult::NotProved(format!(
                "{pruned} path(s) could not be followed and were dropped (first: {}); no violation on the {states} states explored on the small domain ({domain_text})",
                first_pruned.unwrap_or_default()
            )),
            states,
            domain: domain_text,
        };
    }
    BoundedResult {
        result: VerifyResult::Linearizable { states },
        states,
        domain: domain_text,
    }
}

/// What the operation's map calls touch when it runs alone.
struct Used {
    /// The entries (map, key).
    keys: Vec<(u8, Value)>,
    /// The values it stores that another thread can hold too ([`shareable`]).
    values: Vec<Value>,
}

/// The entries the operation's map calls touch when it runs alone on `args` from `init`, and
/// the shareable values it stores.
fn used(code: &Code, args: &[Value], init: &Shared, limit: usize) -> Used {
    let mut start = code.start(args);
    // Keeping facts, as the exploration does: a key made of unknown calls' results is the
    // calls' (`ir::as_key`), one the environment can write too; an unknown value observed is
    // taken both ways (up to `USED_WAYS` runs), so that keys behind such a test are found.
    start.assumed = Some(Vec::new());
    let mut out = Vec::new();
    let mut values: Vec<Value> = Vec::new();
    let mut pending = vec![(start, init.clone(), 0usize)];
    let mut ways = 1;
    while let Some((mut local, mut shared, mut steps)) = pending.pop() {
        while steps < limit {
            steps += 1;
            let before = shared.clone();
            let step = match code.step_or_fork(&mut local, &mut shared) {
                Ok(step) => step,
                Err(Halt::Fork(q)) if ways < USED_WAYS => {
                    ways += 1;
                    pending.push((code.assume(&local, &q, false), shared.clone(), steps));
                    local = code.assume(&local, &q, true);
                    continue;
                }
                Err(_) => break,
            };
            for (entry, v) in &shared.map {
                if before.map.get(entry) != Some(v) && shareable(v) && !values.contains(v) {
                    values.push(v.clone());
                }
            }
            match step {
                Step::Main {
                    map, method, args, ..
                } => {
                    if method.keyed() {
                        if let Some(k) = args.first() {
                            // A key made of unknown calls' results stands for the calls (the
                            // same calls give the same key in every run: `ir::as_key`), so
                            // the environment writes it as the operation computes it. A fresh
                            // value left in a key (none, where facts are kept) would differ
                            // in each run, and is not written.
                            if *k != Value::Null
                                && !holds_fresh(k)
                                && !out.contains(&(map, k.clone()))
                            {
                                out.push((map, k.clone()));
                            }
                        }
                    }
                }
                Step::Local => {}
                Step::Done(_) => break,
            }
        }
    }
    Used { keys: out, values }
}

/// At most this many ways of running alone are followed to find the keys an operation uses.
const USED_WAYS: usize = 16;

/// Whether another thread can hold `v` as well as the operation: a number, a string, a
/// boolean, or an object named by a constant of another class; not an object it allocated
/// (no other thread has it before the operation publishes it) nor one built from an unknown
/// call's result (fresh in each run: a sequential run would store another one).
fn shareable(v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Str(_) | Value::Bool(_) => true,
        Value::Obj(o) => o.site == 0 && o.serial == 0 && o.args.is_empty() && o.calls.is_empty(),
        Value::Void | Value::Null => false,
    }
}

/// Whether `v` is, or is built from, the result of an unknown call.
fn holds_fresh(v: &Value) -> bool {
    match v {
        Value::Obj(o) => {
            (o.serial > 0 && o.serial != DETERMINED)
                || o.args.iter().any(holds_fresh)
                || o.calls.iter().any(|(_, args)| args.iter().any(holds_fresh))
        }
        _ => false,
    }
}
