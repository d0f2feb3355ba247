//! The verifier of Sections 3-4: every interleaving of one operation with environment
//! transitions (Section 3.1), each trace checked against Definition 3.1 (the linearizable
//! trace): at most one main transition updates the shared state — the linearization point —
//! and the sequential run started from the operation's initial local state and the state just
//! before that point ends with the same return value and the same state as just after it
//! (a read-only trace is linearizable if some state the operation saw works so).
//!
//! For SCM and VCM operations one key and two values suffice (Theorem 4.1 and its VCM
//! generalisation): the key `1`, the value `v` the operation writes (its own objects, its
//! value input, what it computes) and one environment value `v' = 1000`, starting from the
//! empty map and from `{1->v'}`. An environment transition `put(1, v')` or `remove(1)` is
//! enabled before a main transition only when it changes the map and changes that main
//! transition's result (Section 3.1). FCM operations are verified once per key of their fixed
//! input set. The search takes traces with the fewest environment transitions first, then the shortest.
//!
//! The exploration engine is shared with `bounded.rs`, which gives it a bigger environment.
//! It knows the instructions of `ir.rs` and nothing of syntax or classes beyond the inputs.

use super::arith::{self, Pins};
use super::ast::MapMethod;
use super::classify::{Class, Classification};
use super::ir::{
    self, apply_map, consistent, same_up_to_fresh_pinned, Code, Fact, FreshNames, Halt, Instr,
    Local, Outcome, PExpr, Relation, Shared, Step, Stuck, Value, DETERMINED,
};
use hindsight_budget::{Account, Budget, Meter, Spent};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The value the environment writes (`v'` of Definition 4.1).
pub const ENV_VALUE: i64 = 1000;
/// The value input of the operation (`v`).
pub const VALUE_INPUT: i64 = 500;

/// The value of the input at parameter `index` when it is an input only passed along (see
/// [`crate::composed::Classification::extra`]), for a run whose value input is `value`: one
/// of its own, different from every other input's and from the environment's. Distinct values
/// are the most telling instance: nothing compares them, so a run with some of them equal is
/// the image of this one under a renaming of values, and renaming preserves linearizability.
pub fn extra_input(value: i64, index: usize) -> i64 {
    value + 10 * (index as i64 + 1)
}

/// Bounds on the search.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Give up (not proved) after this many states.
    pub max_states: usize,
    /// Steps a sequential run may take before it counts as not terminating.
    pub max_sequential_steps: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_states: 500_000,
            max_sequential_steps: 100_000,
        }
    }
}

/// What the environment may do.
#[derive(Clone, Debug)]
pub struct EnvModel {
    /// The entries it may write or remove.
    pub keys: Vec<(u8, Value)>,
    /// The values it may write.
    pub values: Vec<Value>,
    /// For each global: the values it may set (empty: it leaves that global alone).
    pub globals: Vec<Vec<Value>>,
    /// Section 3.1's enabling condition: only before a main transition, and only when the
    /// transition's result changes. Without it, the environment may act before any
    /// instruction that touches shared state.
    pub influence: bool,
    /// Drop the paths on which the operation cannot be evaluated (an uninterpreted call used as
    /// a condition, ...) instead of giving up: the bounded check's choice.
    pub prune_stuck: bool,
    /// Report a violation of Definition 3.1 only if the trace's history — the operation's
    /// interval containing the environment's atomic operations — is not linearizable either
    /// (no place for the operation among them reproduces every result and the final state).
    /// Definition 3.1 fixes the linearization point at the update, with the globals as they
    /// are then; a bounded check that reports bugs must not count that strictness as one.
    pub confirm: bool,
    /// Take a step that observes an unknown value (an unknown call's result used as a
    /// condition or compared) both ways, each path keeping the fact it assumes
    /// ([`crate::composed::ir::Fact`]); sequential runs then follow the path's facts and take
    /// what they leave open both ways. Without it such a step is stuck.
    pub assume: bool,
}

/// How many ways a sequential run may go when it takes unknown values both ways.
const MAX_SEQUENTIAL_RUNS: usize = 64;

/// How many assumptions about unknown values one path of the bounded check may make: a loop
/// on unknown values (`while (it.hasNext())` over a collection of unknown size) would
/// otherwise give paths without end before the environment's first move is tried. A path
/// that would make one more is dropped, counted and named (never "no violation").
pub const MAX_ASSUMED_PER_PATH: usize = 8;

/// An environment transition, kept to replay the history.
#[derive(Clone, Debug)]
enum EnvOp {
    /// A map operation, its arguments and the result it had in the trace.
    Map(u8, MapMethod, Vec<Value>, Value),
    Global(usize, Value),
}

/// What an exploration covered.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    pub states: usize,
    /// Paths dropped because the operation could not be evaluated on them.
    pub pruned: usize,
    /// Why the first dropped path could not be followed.
    pub first_pruned: Option<String>,
}

/// One step of a counterexample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// `main`, `local` or `env`.
    pub kind: &'static str,
    /// Source line of the instruction (0 for the environment).
    pub line: u32,
    /// The state before the step: line, locals, map.
    pub before: String,
    /// What the step did, e.g. `val = m.get(K) -> null` or `m.put(1, 1000)`.
    pub action: String,
    /// The shared state after it.
    pub after: String,
    /// Whether this is the linearization point.
    pub lp: bool,
}

/// A trace violating Definition 3.1.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The inputs, e.g. `K=1`.
    pub inputs: String,
    pub initial: String,
    pub steps: Vec<TraceStep>,
    /// The outcome of the concurrent run.
    pub outcome: String,
    /// The sequential run(s) compared with it, described.
    pub sequential: Vec<String>,
    /// What differs.
    pub problem: String,
    /// The line to point at (the return, or the second update).
    pub line: u32,
    /// States explored before the violation was found.
    pub states: usize,
    /// What the path assumes about unknown values (empty when it observes none).
    pub facts: Vec<Fact>,
    /// The operation's arguments and the initial shared state.
    pub args: Vec<Value>,
    pub initial_state: Shared,
    /// The environment's map operations in order (map, method, arguments): with the facts, the
    /// history to replay.
    pub env_ops: Vec<(u8, MapMethod, Vec<Value>)>,
}

#[derive(Clone, Debug)]
pub enum VerifyResult {
    Linearizable { states: usize },
    Violation(Box<Counterexample>),
    NotProved(String),
}

/// A shared state's number in an exploration's [`States`].
type StateId = u32;

/// The shared states an exploration has met, each stored once: the linearization-point
/// bookkeeping names them by number, so that copying, hashing and comparing it (once per
/// state explored, in the visited set's key) costs a few integers, not a copy of maps.
#[derive(Default)]
struct States {
    ids: FxHashMap<Shared, StateId>,
    all: Vec<Shared>,
}

impl States {
    /// The number of `s`, and whether it is new.
    fn id(&mut self, s: &Shared) -> (StateId, bool) {
        if let Some(&id) = self.ids.get(s) {
            return (id, false);
        }
        let id = self.all.len() as StateId;
        self.all.push(s.clone());
        self.ids.insert(s.clone(), id);
        (id, true)
    }

    fn get(&self, id: StateId) -> &Shared {
        &self.all[id as usize]
    }

    /// The bookkeeping with its states spelled out.
    fn resolve(&self, lp: &Lp) -> LpStates {
        LpStates {
            update: lp
                .update
                .map(|(pre, post)| (self.get(pre).clone(), self.get(post).clone())),
            second: lp.second,
            seen: lp.seen.iter().map(|&id| self.get(id).clone()).collect(),
        }
    }
}

/// The linearization-point bookkeeping of a partial trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Lp {
    /// The update transition: the state before it and the state after it.
    update: Option<(StateId, StateId)>,
    /// Whether a second update happened (Definition 3.1 allows one).
    second: bool,
    /// States the operation stepped in before any update (the linearization point of a
    /// read-only trace may be any of them), sorted.
    seen: Vec<StateId>,
}

impl Lp {
    fn saw(&mut self, id: StateId) {
        if let Err(at) = self.seen.binary_search(&id) {
            self.seen.insert(at, id);
        }
    }
}

/// [`Lp`] on a complete trace, its states spelled out for Definition 3.1.
struct LpStates {
    update: Option<(Shared, Shared)>,
    second: bool,
    seen: Vec<Shared>,
}

struct Node {
    parent: Option<usize>,
    step: Option<TraceStep>,
    local: Local,
    shared: Shared,
    lp: Lp,
    second_node: Option<usize>,
    env_op: Option<EnvOp>,
    /// A trace kept for its history alone ([`explore`]'s visited set): the node whose key
    /// it shares with an earlier one, from which the operation runs on without the
    /// environment.
    tail: Option<usize>,
}

/// Heap bytes of a shared state (what its values point to through an `Rc` apart).
fn shared_heap(s: &Shared) -> usize {
    use std::mem::size_of;
    btree_bytes(s.map.len(), size_of::<((u8, Value), Value)>())
        + s.globals.capacity() * size_of::<Value>()
}

/// Bytes of a state stored once in [`States`]: two copies (the list and the index's key),
/// the index's slot.
fn interned_bytes(s: &Shared) -> u64 {
    use std::mem::size_of;
    (2 * (size_of::<Shared>() + shared_heap(s)) + size_of::<StateId>() + 1) as u64
}

/// Bytes of one more state: its node (with `text` bytes of step description), its key in the
/// visited set (a copy of its local state, the number of its shared state and the
/// linearization bookkeeping) and its entries in the queue and the costs. What values point
/// to through an `Rc` is shared and not counted; the states themselves are counted once, when
/// [`States`] first stores them ([`interned_bytes`]).
fn node_bytes(local: &Local, shared: &Shared, lp: &Lp, text: usize) -> u64 {
    use std::mem::size_of;
    let local_heap = local.slots.capacity() * size_of::<Value>()
        + local
            .assumed
            .as_ref()
            .map_or(0, |f| f.capacity() * size_of::<Fact>());
    let lp_heap = lp.seen.capacity() * size_of::<StateId>();
    let inline = size_of::<Node>()
        + size_of::<(Local, StateId, Lp)>()
        + 1
        + size_of::<(usize, usize, usize)>()
        + size_of::<(usize, usize)>();
    (inline + 2 * (local_heap + lp_heap) + shared_heap(shared) + text) as u64
}

/// Bytes of a B-tree of `len` entries of `entry` bytes: its nodes hold eleven entries, and a
/// tree of one entry already has a whole node.
fn btree_bytes(len: usize, entry: usize) -> usize {
    const NODE: usize = 11;
    // Nodes about two thirds full past the first, with their headers and edges.
    let nodes = if len <= NODE {
        usize::from(len > 0)
    } else {
        len.div_ceil(NODE * 2 / 3)
    };
    nodes * (NODE * entry + 16 + 12 * std::mem::size_of::<usize>())
}

/// What the tables hold beyond their entries: the spare room of the nodes' vector, and the
/// memo of sequential runs.
fn tables_bytes<K, V>(nodes: &Vec<Node>, sequential: &FxHashMap<K, V>) -> u64 {
    use std::mem::size_of;
    ((nodes.capacity() - nodes.len()) * size_of::<Node>()
        + sequential.capacity() * (size_of::<(K, V)>() + 1)) as u64
}

/// The nodes from the root to `end`, in the order they ran.
fn path_to(nodes: &[Node], end: usize) -> Vec<usize> {
    let mut path: Vec<usize> = std::iter::successors(Some(end), |&i| nodes[i].parent).collect();
    path.reverse();
    path
}

/// Explores every interleaving of `code` run on `args` from `init` with the environment
/// `env`; returns the first violation of Definition 3.1 or the number of states. Stops when
/// `budget` is spent, its nodes and visited set accounted to the memory limit.
pub fn explore(
    code: &Code,
    args: &[Value],
    init: Shared,
    env: &EnvModel,
    limits: &Limits,
    budget: &Budget,
) -> Result<Coverage, Explored> {
    let mut meter = Meter::new(budget);
    let mut account = Account::new(budget);
    // Bytes of the nodes, the visited set and the queue, added up as each node is pushed (and
    // charged then, before the next one), with what their states and steps hold on the heap.
    let mut held: u64 = 0;
    // Small explorations never reach a poll of the meter: one here, so that a spent budget
    // stops every later one.
    budget.check().map_err(|spent| Explored::Budget(spent, 0))?;
    let mut start = code.start(args);
    if env.assume {
        start.assumed = Some(Vec::new());
    }
    let mut pruned = 0;
    let mut first_pruned: Option<String> = None;
    // Sequential runs from a state under a path's facts.
    type Runs = Result<Vec<(Outcome, Shared)>, Stuck>;
    let mut sequential: FxHashMap<(Option<Vec<Fact>>, Shared), Runs> = FxHashMap::default();
    let mut states = States::default();
    held += interned_bytes(&init);
    states.id(&init);
    let mut nodes: Vec<Node> = vec![Node {
        parent: None,
        step: None,
        local: start.clone(),
        shared: init,
        lp: Lp {
            update: None,
            second: false,
            seen: Vec::new(),
        },
        second_node: None,
        env_op: None,
        tail: None,
    }];
    // A state is explored once per local state, shared state and linearization point: the
    // verdict of Definition 3.1 is the state's alone. Not that of a check that confirms a
    // violation by its history (`EnvModel::confirm`): two traces that reach the same state
    // after a second update (the last value written over the environment's, or not) may have
    // histories of which one is linearizable and the other not. There, a trace whose second
    // update reaches a state explored already is kept as a tail of its own (the last part of
    // the key): the operation runs on from it alone, without the environment, so that its
    // history is judged too at a cost of one run per such trace.
    let mut visited: FxHashSet<(Local, StateId, Lp, Option<usize>)> = FxHashSet::default();
    // Fewest environment transitions first, then shortest: the counterexample shown is the
    // simplest interference that breaks the operation (Fig. 4a needs a single one).
    let mut queue: BinaryHeap<Reverse<(usize, usize, usize)>> = BinaryHeap::new();
    queue.push(Reverse((0, 0, 0)));
    let mut cost: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some(Reverse((_, _, at))) = queue.pop() {
        if nodes.len() > limits.max_states {
            return Err(Explored::Limit(nodes.len()));
        }
        let within = match meter.step() {
            Ok(()) if meter.polled() => account.hold(held + tables_bytes(&nodes, &sequential)),
            other => other,
        };
        if let Err(spent) = within {
            return Err(Explored::Budget(spent, nodes.len()));
        }
        let (local, shared, lp) = {
            let n = &nodes[at];
            (n.local.clone(), n.shared.clone(), n.lp.clone())
        };
        let instr = &code.instrs[local.pc];
        let before = describe_state(code, &local, &shared);
        // Environment transitions.
        let env_may_act = nodes[at].tail.is_none()
            && if env.influence {
                matches!(instr, Instr::Map { .. })
            } else {
                instr.touches_shared()
            };
        if env_may_act {
            for (action, op, next) in env_moves(code, &local, &shared, env) {
                let (next_id, new) = states.id(&next);
                if new {
                    held += interned_bytes(&next);
                }
                let key = (local.clone(), next_id, lp.clone(), None);
                if visited.insert(key) {
                    let after = code.show_shared(&next);
                    held += node_bytes(
                        &local,
                        &next,
                        &lp,
                        before.len() + action.len() + after.len(),
                    );
                    account
                        .hold(held)
                        .map_err(|spent| Explored::Budget(spent, nodes.len()))?;
                    nodes.push(Node {
                        parent: Some(at),
                        step: Some(TraceStep {
                            kind: "env",
                            line: 0,
                            before: before.clone(),
                            action,
                            after,
                            lp: false,
                        }),
                        local: local.clone(),
                        shared: next,
                        lp: lp.clone(),
                        second_node: nodes[at].second_node,
                        env_op: Some(op),
                        tail: None,
                    });
                    let (e, d) = cost[at];
                    cost.push((e + 1, d + 1));
                    queue.push(Reverse((e + 1, d + 1, nodes.len() - 1)));
                }
            }
        }
        // The operation's own step.
        let mut l2 = local.clone();
        let mut s2 = shared.clone();
        let step = match code.step_or_fork(&mut l2, &mut s2) {
            Ok(s) => s,
            Err(Halt::Fork(q)) if env.assume => {
                let assumed = local.assumed.as_ref().map_or(0, Vec::len);
                if env.prune_stuck && assumed >= MAX_ASSUMED_PER_PATH {
                    pruned += 1;
                    first_pruned.get_or_insert(format!(
                        "line {}: a path making more than {MAX_ASSUMED_PER_PATH} assumptions about unknown values (a loop on them, cut there)",
                        code.line(local.pc)
                    ));
                    continue;
                }
                // The same step again, once under each answer: a local step that only adds
                // the fact.
                for holds in [true, false] {
                    let assumed = code.assume(&local, &q, holds);
                    let fact = assumed
                        .assumed
                        .as_ref()
                        .and_then(|f| f.last())
                        .expect("the fact just assumed");
                    let (here, _) = states.id(&shared);
                    let key = (assumed.clone(), here, lp.clone(), nodes[at].tail);
                    if visited.insert(key) {
                        held += node_bytes(&assumed, &shared, &lp, 2 * before.len());
                        account
                            .hold(held)
                            .map_err(|spent| Explored::Budget(spent, nodes.len()))?;
                        nodes.push(Node {
                            parent: Some(at),
                            step: Some(TraceStep {
                                kind: "assume",
                                line: code.line(local.pc),
                                before: before.clone(),
                                action: format!("assume {}", fact.claim()),
                                after: code.show_shared(&shared),
                                lp: false,
                            }),
                            local: assumed,
                            shared: shared.clone(),
                            lp: lp.clone(),
                            second_node: nodes[at].second_node,
                            env_op: None,
                            tail: nodes[at].tail,
                        });
                        let (e, d) = cost[at];
                        cost.push((e, d + 1));
                        queue.push(Reverse((e, d + 1, nodes.len() - 1)));
                    }
                }
                continue;
            }
            Err(Halt::Fork(q)) => {
                let e = Stuck(format!(
                    "line {}: cannot evaluate: it depends on whether the value returned by `{}` is `{}`",
                    code.line(local.pc),
                    q.call,
                    q.comparand
                ));
                if env.prune_stuck {
                    pruned += 1;
                    first_pruned.get_or_insert(e.0);
                    continue;
                }
                return Err(Explored::Stuck(e));
            }
            Err(Halt::Stuck(e)) if env.prune_stuck => {
                pruned += 1;
                first_pruned.get_or_insert(e.0);
                continue;
            }
            Err(Halt::Stuck(e)) => return Err(Explored::Stuck(e)),
        };
        let mut lp2 = lp.clone();
        let mut second_node = nodes[at].second_node;
        let updated = s2 != shared;
        let (here, _) = states.id(&shared);
        let (next_id, new) = states.id(&s2);
        if new {
            held += interned_bytes(&s2);
        }
        if lp2.update.is_none() {
            lp2.saw(here);
        }
        let this = nodes.len();
        let mut is_lp = false;
        if updated {
            if lp2.update.is_none() {
                lp2.update = Some((here, next_id));
                lp2.seen.clear();
                is_lp = true;
            } else if !lp2.second {
                lp2.second = true;
                second_node = Some(this);
            }
        }
        let action = describe_step(code, local.pc, &step);
        let trace_step = TraceStep {
            kind: if matches!(step, Step::Main { .. }) {
                "main"
            } else {
                "local"
            },
            line: code.line(local.pc),
            before,
            action,
            after: code.show_shared(&s2),
            lp: is_lp,
        };
        if let Step::Done(outcome) = step {
            let path_facts = l2.assumed.clone();
            let resolved = states.resolve(&lp2);
            nodes.push(Node {
                parent: Some(at),
                step: Some(trace_step),
                local: l2,
                shared: s2.clone(),
                lp: lp2.clone(),
                second_node,
                env_op: None,
                tail: nodes[at].tail,
            });
            cost.push(cost[at]);
            let end = nodes.len() - 1;
            let path = path_to(&nodes, end);
            let ops: Vec<_> = path
                .iter()
                .filter_map(|&i| nodes[i].env_op.clone())
                .collect();
            // The facts the trace is judged under: the path's own; then, with unknown values
            // taken both ways, the path's with each answer to the questions only the atomic
            // runs ask (the unknown code may answer them either way, and one way may leave no
            // atomic run that explains the trace).
            let mut candidates = vec![path_facts.clone()];
            if env.assume {
                candidates.extend(extensions(
                    code,
                    &start,
                    path_facts,
                    &resolved,
                    &nodes[0].shared,
                    &ops,
                    limits.max_sequential_steps,
                ));
            }
            let mut found = None;
            let mut path_start = start.clone();
            for (i, facts) in candidates.into_iter().enumerate() {
                // Each fact set reruns the operation alone: charged between them.
                if i > 0 {
                    budget
                        .check()
                        .map_err(|spent| Explored::Budget(spent, nodes.len()))?;
                }
                // Facts about integers describe a program only with a model (`arith.rs`):
                // its values join the facts, and observations are compared with them in
                // place of the unknowns; a path whose map calls met such an unknown as it was
                // (a key compared by value) is not that program's.
                let (facts, pins) = match facts {
                    Some(f) => match with_model(code, &nodes, &path, f) {
                        Ok((f, pins)) => (Some(f), pins),
                        Err(why) => {
                            if i == 0 {
                                pruned += 1;
                                first_pruned.get_or_insert(format!(
                                    "line {}: {why}",
                                    code.line(nodes[at].local.pc)
                                ));
                            }
                            continue;
                        }
                    },
                    None => (None, Pins::new()),
                };
                // The sequential runs start from the operation's initial local state under
                // the facts: the unknown code behaves alike in both runs.
                let mut candidate_start = start.clone();
                candidate_start.assumed = facts;
                let mut seq = |c: &Shared| -> Runs {
                    sequential
                        .entry((candidate_start.assumed.clone(), c.clone()))
                        .or_insert_with(|| {
                            code.run_sequential_all(
                                candidate_start.clone(),
                                c.clone(),
                                limits.max_sequential_steps,
                                MAX_SEQUENTIAL_RUNS,
                            )
                        })
                        .clone()
                };
                let judged = match check_trace(code, &resolved, &outcome, &pins, &mut seq) {
                    Ok(f) => f,
                    Err(e) if env.prune_stuck => {
                        if i == 0 {
                            pruned += 1;
                            first_pruned.get_or_insert(e.0);
                        }
                        continue;
                    }
                    Err(e) => return Err(Explored::Stuck(e)),
                };
                if judged.is_none()
                    || (env.confirm
                        && history_linearizable(
                            code,
                            &candidate_start,
                            &nodes[0].shared,
                            &ops,
                            Ending {
                                outcome: &outcome,
                                last: &s2,
                                pins: &pins,
                            },
                            limits.max_sequential_steps,
                        ))
                {
                    continue;
                }
                found = judged;
                path_start = candidate_start;
                break;
            }
            if let Some((problem, sequential_runs)) = found {
                let line = match second_node {
                    Some(n) => nodes[n].step.as_ref().map_or(0, |s| s.line),
                    None => code.line(nodes[at].local.pc),
                };
                let steps: Vec<_> = path.iter().filter_map(|&i| nodes[i].step.clone()).collect();
                let initial = describe_state(code, &start, &nodes[0].shared);
                let env_ops: Vec<_> = path
                    .iter()
                    .filter_map(|&i| match &nodes[i].env_op {
                        Some(EnvOp::Map(m, method, args, _)) => Some((*m, *method, args.clone())),
                        _ => None,
                    })
                    .collect();
                return Err(Explored::Violation(Box::new(Counterexample {
                    inputs: code.show_locals(&start),
                    initial,
                    steps,
                    outcome: outcome.to_string(),
                    sequential: sequential_runs,
                    problem,
                    line,
                    states: nodes.len(),
                    facts: {
                        let mut facts = path_start.assumed.clone().unwrap_or_default();
                        facts.extend(functions_used(code, &nodes, &path));
                        facts
                    },
                    args: args.to_vec(),
                    initial_state: nodes[0].shared.clone(),
                    env_ops,
                })));
            }
            continue;
        }
        let mut key = (l2.clone(), next_id, lp2.clone(), nodes[at].tail);
        let mut tail = nodes[at].tail;
        if env.confirm && lp2.second && tail.is_none() && visited.contains(&key) {
            tail = Some(this);
            key.3 = tail;
        }
        if visited.insert(key) {
            let text = &trace_step;
            held += node_bytes(
                &l2,
                &s2,
                &lp2,
                text.before.len() + text.action.len() + text.after.len(),
            );
            account
                .hold(held)
                .map_err(|spent| Explored::Budget(spent, nodes.len()))?;
            nodes.push(Node {
                parent: Some(at),
                step: Some(trace_step),
                local: l2,
                shared: s2,
                lp: lp2,
                second_node,
                env_op: None,
                tail,
            });
            let (e, d) = cost[at];
            cost.push((e, d + 1));
            queue.push(Reverse((e, d + 1, nodes.len() - 1)));
        }
    }
    Ok(Coverage {
        states: nodes.len(),
        pruned,
        first_pruned,
    })
}

/// `facts` with the values of a model of their facts about integers (`arith::pins`), and the
/// unknowns those fix; `Err` when no model is found, or when a map call of the trace ending at
/// `path`'s last node met a fixed unknown as it was (a key or value the map compares by
/// value: in the program the model describes it is the integer, and the map call may have
/// answered otherwise).
fn with_model(
    code: &Code,
    nodes: &[Node],
    path: &[usize],
    facts: Vec<Fact>,
) -> Result<(Vec<Fact>, Pins), String> {
    let Some(extra) = arith::pins(&facts) else {
        return Err(
            "the path's assumptions about numbers have no model found (they may contradict one another)"
                .into(),
        );
    };
    let mut facts = facts;
    facts.extend(extra);
    let pins = arith::pinned(&facts);
    // The calls the facts say are a known value or another call: a key made of one before the
    // fact was assumed is not the key of the program the facts describe.
    let equated: Vec<Value> = facts
        .iter()
        .filter_map(ir::equated)
        .map(|(call, _)| call)
        .chain(facts.iter().filter_map(|f| {
            ir::equated(f).and_then(|_| f.comparand.is_fresh().then(|| f.comparand.clone()))
        }))
        .collect();
    if pins.is_empty() && equated.is_empty() {
        return Ok((facts, pins));
    }
    for &i in path.iter().skip(1) {
        let (Some(step), Some(parent)) = (&nodes[i].step, nodes[i].parent) else {
            continue;
        };
        if step.kind != "main" {
            continue;
        }
        let mut l = nodes[parent].local.clone();
        let mut s = nodes[parent].shared.clone();
        if let Ok(Step::Main { args, method, .. }) = code.step_or_fork(&mut l, &mut s) {
            let mut in_key = Vec::new();
            if let (true, Some(k)) = (method.keyed(), args.first()) {
                determined_calls(k, &mut in_key);
            }
            if args.iter().any(|a| arith::mentions(a, &pins))
                || in_key.iter().any(|c| equated.contains(c))
            {
                return Err(format!(
                    "line {}: a map call takes an unknown number the path's assumptions fix, before they fix it",
                    step.line
                ));
            }
        }
    }
    Ok((facts, pins))
}

/// The unknown calls the keys of a trace's map calls are made of ([`ir::as_key`]): the trace
/// assumes each is a function of its receiver and arguments, which the violation states.
fn functions_used(code: &Code, nodes: &[Node], path: &[usize]) -> Vec<Fact> {
    let mut out: Vec<Fact> = Vec::new();
    let mut add = |key: &Value, line: u32| {
        let mut calls = Vec::new();
        determined_calls(key, &mut calls);
        for call in calls {
            if !out.iter().any(|f| f.call == call) {
                out.push(Fact {
                    call,
                    comparand: Value::Void,
                    relation: Relation::Function,
                    holds: true,
                    line,
                    source: None,
                });
            }
        }
    };
    for &i in path.iter().skip(1) {
        let (Some(step), Some(parent)) = (&nodes[i].step, nodes[i].parent) else {
            continue;
        };
        if let Some(EnvOp::Map(_, _, args, _)) = &nodes[i].env_op {
            if let Some(k) = args.first() {
                add(k, code.line(nodes[parent].local.pc));
            }
        }
        if step.kind != "main" {
            continue;
        }
        let mut l = nodes[parent].local.clone();
        let mut s = nodes[parent].shared.clone();
        if let Ok(Step::Main { args, method, .. }) = code.step_or_fork(&mut l, &mut s) {
            if let (true, Some(k)) = (method.keyed(), args.first()) {
                add(k, step.line);
            }
        }
    }
    out
}

/// The outermost unknown calls in a key made by [`ir::as_key`] (each named by its identity).
fn determined_calls(v: &Value, out: &mut Vec<Value>) {
    let Value::Obj(o) = v else {
        return;
    };
    if o.serial == DETERMINED {
        out.push(ir::call_identity(v));
        return;
    }
    for a in o
        .args
        .iter()
        .chain(o.calls.iter().flat_map(|(_, a)| a.iter()))
    {
        determined_calls(a, out);
    }
}

/// Why an exploration stopped early.
#[derive(Debug)]
pub enum Explored {
    Violation(Box<Counterexample>),
    Stuck(Stuck),
    Limit(usize),
    /// The budget ran out after this many states.
    Budget(Spent, usize),
}

/// Every way the operation runs alone from a state (one way unless unknown values are taken
/// both ways).
type SeqRun<'a> = dyn FnMut(&Shared) -> Result<Vec<(Outcome, Shared)>, Stuck> + 'a;

/// Definition 3.1 on a complete trace: `None` if it holds, else what is wrong and the
/// sequential runs compared.
fn check_trace(
    code: &Code,
    lp: &LpStates,
    outcome: &Outcome,
    pins: &Pins,
    seq: &mut SeqRun,
) -> Result<Option<(String, Vec<String>)>, Stuck> {
    let same =
        |a: (&[Outcome], &Shared), b: (&[Outcome], &Shared)| same_up_to_fresh_pinned(pins, a, b);
    let describe = |c: &Shared, r: &(Outcome, Shared)| {
        format!(
            "sequential run from <line {}, {}>: {}, {}",
            code.entry_line,
            code.show_shared(c),
            r.0,
            code.show_shared(&r.1)
        )
    };
    if lp.second {
        return Ok(Some((
            "two main transitions update the map: Definition 3.1 allows a single linearization point"
                .into(),
            Vec::new(),
        )));
    }
    match &lp.update {
        Some((pre, post)) => {
            let runs = seq(pre)?;
            // Fresh values are compared up to renaming: the sequential run may draw the very
            // values the concurrent one drew.
            if runs.iter().any(|r| {
                same(
                    (std::slice::from_ref(&r.0), &r.1),
                    (std::slice::from_ref(outcome), post),
                )
            }) {
                return Ok(None);
            }
            let Some(r) = runs.first() else {
                return Ok(None);
            };
            let text = describe(pre, r);
            if FreshNames::pinned(pins).shared(&r.1) != FreshNames::pinned(pins).shared(post) {
                return Ok(Some((
                    format!(
                        "the map after the linearization point is {} but the sequential run from the state before it leaves {}",
                        code.show_shared(post),
                        code.show_shared(&r.1)
                    ),
                    vec![text],
                )));
            }
            Ok(Some((
                format!(
                    "the operation {outcome} but the sequential run from the linearization point's state {}",
                    r.0
                ),
                vec![text],
            )))
        }
        None => {
            let mut runs = Vec::new();
            for c in &lp.seen {
                for r in seq(c)? {
                    if same(
                        (std::slice::from_ref(&r.0), &r.1),
                        (std::slice::from_ref(outcome), c),
                    ) {
                        return Ok(None);
                    }
                    runs.push(describe(c, &r));
                }
            }
            Ok(Some((
                format!(
                    "the operation {outcome} without updating the map, and no state it saw gives that result when run alone"
                ),
                runs,
            )))
        }
    }
}

/// At most this many questions only the atomic runs ask are decided each way (2^n fact sets).
const MAX_OPEN_QUESTIONS: usize = 5;

/// The fact sets that extend `facts` with every answer to the questions the atomic runs of a
/// trace ask that the trace itself does not decide: runs from the states Definition 3.1 and
/// the history check start them at. Contradictory sets (a call being two known values) are
/// left out.
fn extensions(
    code: &Code,
    start: &Local,
    facts: Option<Vec<Fact>>,
    lp: &LpStates,
    initial: &Shared,
    ops: &[EnvOp],
    limit: usize,
) -> Vec<Option<Vec<Fact>>> {
    let Some(base) = facts else {
        return Vec::new();
    };
    let mut states: Vec<Shared> = match &lp.update {
        Some((pre, _)) => vec![pre.clone()],
        None => lp.seen.to_vec(),
    };
    let mut s = initial.clone();
    states.push(s.clone());
    for op in ops {
        match op {
            EnvOp::Map(m, method, args, _) => {
                let _ = apply_map(&mut s, *m, *method, args);
            }
            EnvOp::Global(g, v) => s.globals[*g] = v.clone(),
        }
        states.push(s.clone());
    }
    let mut from = start.clone();
    from.assumed = Some(base.clone());
    let mut open: Vec<Fact> = Vec::new();
    for state in states {
        let Ok(ways) = code.sequential_ways(from.clone(), state, limit, MAX_SEQUENTIAL_RUNS) else {
            continue;
        };
        for (_, _, facts) in ways {
            for f in facts.into_iter().skip(base.len()) {
                if !open.iter().any(|o| {
                    o.call == f.call && o.comparand == f.comparand && o.relation == f.relation
                }) {
                    open.push(f);
                }
            }
        }
    }
    open.truncate(MAX_OPEN_QUESTIONS);
    if open.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for mask in 0..(1u32 << open.len()) {
        let mut set = base.clone();
        for (i, f) in open.iter().enumerate() {
            let mut f = f.clone();
            f.holds = mask & (1 << i) != 0;
            set.push(f);
        }
        // Contradictory sets (a call being two known values, or no integer) are left out.
        let contradictory = !consistent(&set);
        if !contradictory {
            out.push(Some(set));
        }
    }
    out
}

/// Whether the history of a trace is linearizable: the environment's operations, atomic and in
/// their order, all inside the operation's interval; the operation may take effect before any
/// of them. Every environment result (the previous value for put and remove) and the
/// operation's outcome and the final state must be reproduced.
/// How a trace ended: the operation's outcome and the final state, compared with the unknowns
/// `pins` fixes as their values.
struct Ending<'a> {
    outcome: &'a Outcome,
    last: &'a Shared,
    pins: &'a Pins,
}

fn history_linearizable(
    code: &Code,
    start: &Local,
    initial: &Shared,
    ops: &[EnvOp],
    ending: Ending,
    limit: usize,
) -> bool {
    let Ending {
        outcome,
        last,
        pins,
    } = ending;
    // What the trace observed: every environment result in order, the operation's outcome
    // (placed last: its position is not what is compared), and the final state.
    let mut observed: Vec<Outcome> = ops
        .iter()
        .filter_map(|op| match op {
            EnvOp::Map(_, _, _, seen) => Some(Outcome::Returned(seen.clone())),
            EnvOp::Global(..) => None,
        })
        .collect();
    observed.push(outcome.clone());
    let replay = |s: &mut Shared, op: &EnvOp, out: &mut Vec<Outcome>| match op {
        EnvOp::Map(m, method, args, _) => out.push(match apply_map(s, *m, *method, args) {
            Ok(v) => Outcome::Returned(v),
            Err(e) => Outcome::Threw(e),
        }),
        EnvOp::Global(g, v) => s.globals[*g] = v.clone(),
    };
    (0..=ops.len()).any(|p| {
        let mut s = initial.clone();
        let mut results = Vec::new();
        for op in &ops[..p] {
            replay(&mut s, op, &mut results);
        }
        // Any way the operation may run under the path's facts will do; a run that cannot be
        // followed counts as linearizable, so that no violation rests on it.
        let Ok(ways) = code.run_sequential_all(start.clone(), s, limit, MAX_SEQUENTIAL_RUNS) else {
            return true;
        };
        ways.into_iter().any(|(o, mut s)| {
            let mut results = results.clone();
            for op in &ops[p..] {
                replay(&mut s, op, &mut results);
            }
            results.push(o);
            same_up_to_fresh_pinned(pins, (&results, &s), (&observed, last))
        })
    })
}

/// The enabled environment transitions before the instruction at `local.pc`.
fn env_moves(
    code: &Code,
    local: &Local,
    shared: &Shared,
    env: &EnvModel,
) -> Vec<(String, EnvOp, Shared)> {
    let mut out = Vec::new();
    let map_name = |m: u8| code.maps.get(m as usize).cloned().unwrap_or_default();
    for (m, k) in &env.keys {
        let entry = (*m, k.clone());
        let current = shared.map.get(&entry);
        for v in &env.values {
            if current != Some(v) {
                let mut next = shared.clone();
                next.map.insert(entry.clone(), v.clone());
                let prev = current.cloned().unwrap_or(Value::Null);
                let op = EnvOp::Map(*m, MapMethod::Put, vec![k.clone(), v.clone()], prev);
                out.push((format!("{}.put({k}, {v})", map_name(*m)), op, next));
            }
        }
        if current.is_some() {
            let mut next = shared.clone();
            next.map.remove(&entry);
            let prev = current.cloned().unwrap_or(Value::Null);
            let op = EnvOp::Map(*m, MapMethod::Remove, vec![k.clone()], prev);
            out.push((format!("{}.remove({k})", map_name(*m)), op, next));
        }
    }
    for (g, values) in env.globals.iter().enumerate() {
        for v in values {
            if shared.globals[g] != *v {
                let mut next = shared.clone();
                next.globals[g] = v.clone();
                let op = EnvOp::Global(g, v.clone());
                out.push((format!("{} = {v}", code.globals[g]), op, next));
            }
        }
    }
    if env.influence {
        // Section 3.1: enabled only if the next main transition's result differs. For the
        // base methods the result says whether the transition updates the map; for
        // computeIfAbsent it does not (it returns the value either way, found or computed), so
        // whether it updates is compared too.
        let result = |s: &Shared| {
            let mut l = local.clone();
            let before = s.clone();
            let mut s = s.clone();
            match code.step(&mut l, &mut s) {
                Ok(Step::Main { result, .. }) => Some(Ok((result, s != before))),
                Ok(Step::Done(o)) => Some(Err(o)),
                _ => None,
            }
        };
        let here = result(shared);
        out.retain(|(_, _, next)| result(next) != here);
    }
    out
}

fn describe_state(code: &Code, local: &Local, shared: &Shared) -> String {
    let locals = code.show_locals(local);
    let sep = if locals.is_empty() { "" } else { ", " };
    format!(
        "<line {}{sep}{locals}, {}>",
        code.line(local.pc),
        code.show_shared(shared)
    )
}

fn describe_step(code: &Code, pc: usize, step: &Step) -> String {
    let text = &code.text[pc];
    match step {
        Step::Main { result, method, .. } => {
            let shown = if *method == MapMethod::Size || result != &Value::Void {
                result.to_string()
            } else {
                "void".into()
            };
            format!("{text} -> {shown}")
        }
        Step::Done(o) => format!("{text}: {o}"),
        Step::Local => match &code.instrs[pc] {
            Instr::Branch(..) => text.to_string(),
            _ if text.is_empty() => "(jump)".into(),
            _ => text.clone(),
        },
    }
}

/// Verifies a data-independent operation: Definition 3.1 on every trace over the reduced
/// domain of its class.
///
/// An unknown call's result is a fresh object, distinct from every other value; one used as a
/// condition (`if (JRE.isJava8())`) cannot be evaluated so. Then the traces are explored
/// again with each such condition taken both ways (and each comparison of an unknown value
/// both ways), which covers whatever the unknown code returns, provided each path observes
/// each unknown call at most once: facts name a call by its receiver and arguments, so two
/// evaluations of one call would be forced to agree. That holds when the operation has no
/// loop and no two unknown calls of one name ([`observes_each_call_once`]). The operation run
/// alone, against which a trace is judged, follows the trace's answers: one sequential run
/// the unknown code allows, enough for Definition 3.1. A trace breaking it there is not
/// reported as a violation (its assumptions may contradict each other or the map's
/// contract, which only `--bounded`'s confirmation rules out): the operation is then
/// not proved, as without the second exploration.
pub fn verify(
    code: &Code,
    class: &Classification,
    limits: &Limits,
    budget: &Budget,
) -> VerifyResult {
    if class.class == Class::DataDependent {
        return VerifyResult::NotProved("data-dependent".into());
    }
    let stop = match explore_reduced(code, class, limits, budget, false) {
        Ok(states) => return VerifyResult::Linearizable { states },
        Err(stop) => stop,
    };
    match stop {
        Stopped(Explored::Stuck(Stuck(why)), _) if observes_each_call_once(code) => {
            match explore_reduced(code, class, limits, budget, true) {
                Ok(states) => VerifyResult::Linearizable { states },
                Err(Stopped(Explored::Violation(c), _)) => VerifyResult::NotProved(format!(
                    "{why}; taken both ways, the unknown values give a trace that breaks Definition 3.1 at line {} (try --bounded)",
                    c.line
                )),
                Err(Stopped(Explored::Stuck(_), _)) => VerifyResult::NotProved(why),
                Err(other) => other.into_result(),
            }
        }
        other => other.into_result(),
    }
}

/// Why [`explore_reduced`] stopped, with the states explored before the exploration that
/// stopped.
struct Stopped(Explored, usize);

impl Stopped {
    fn into_result(self) -> VerifyResult {
        let Stopped(e, before) = self;
        match e {
            Explored::Violation(c) => VerifyResult::Violation(c),
            Explored::Stuck(Stuck(why)) => VerifyResult::NotProved(why),
            Explored::Limit(n) => {
                VerifyResult::NotProved(format!("gave up after {n} states (raise the limit)"))
            }
            Explored::Budget(spent, n) => VerifyResult::NotProved(stopped(spent, before + n)),
        }
    }
}

/// Whether every path of `code` observes each unknown call at most once: no instruction
/// runs twice (no jump backwards) and no two unknown calls share a name.
fn observes_each_call_once(code: &Code) -> bool {
    let calls = |e: &PExpr, out: &mut Vec<std::rc::Rc<str>>| {
        e.walk(&mut |x| {
            if let PExpr::Call(name, ..) = x {
                out.push(name.clone());
            }
        })
    };
    let mut names = Vec::new();
    for (pc, instr) in code.instrs.iter().enumerate() {
        match instr {
            Instr::Jump(to) | Instr::Branch(_, to) if *to <= pc => return false,
            _ => {}
        }
        match instr {
            Instr::Let(_, e) | Instr::SetGlobal(_, e) | Instr::Branch(e, _) | Instr::Throw(e) => {
                calls(e, &mut names)
            }
            Instr::Map { args, .. } | Instr::ObjCall(_, _, args) => {
                args.iter().for_each(|a| calls(a, &mut names))
            }
            Instr::Return(e) => e.iter().for_each(|e| calls(e, &mut names)),
            Instr::Jump(_) => {}
        }
    }
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    names.len() == count
}

/// Definition 3.1 on every trace over the reduced domain of `class`: the states explored, or
/// why it stopped.
fn explore_reduced(
    code: &Code,
    class: &Classification,
    limits: &Limits,
    budget: &Budget,
    assume: bool,
) -> Result<usize, Stopped> {
    let mut total = 0;
    let env_value = Value::Int(ENV_VALUE);
    for key in class.inputs() {
        let mut args = vec![Value::Void; code.params];
        if let Some(k) = class.key {
            args[k] = key.clone();
        }
        if let Some(v) = class.value {
            args[v] = Value::Int(VALUE_INPUT);
        }
        for &i in &class.extra {
            args[i] = Value::Int(extra_input(VALUE_INPUT, i));
        }
        // `ConcurrentHashMap` holds no null key: with the key null (an FCM constant) the map
        // stays empty and the environment has nothing to write.
        let env_keys = if key == Value::Null {
            Vec::new()
        } else {
            vec![(0, key.clone())]
        };
        let env = EnvModel {
            keys: env_keys,
            values: vec![env_value.clone()],
            globals: vec![Vec::new(); code.globals.len()],
            influence: true,
            prune_stuck: false,
            confirm: false,
            assume,
        };
        let mut inits = vec![BTreeMap::new()];
        if key != Value::Null {
            inits.push(BTreeMap::from([((0u8, key.clone()), env_value.clone())]));
        }
        for init in inits {
            match explore(code, &args, code.shared(init), &env, limits, budget) {
                Ok(c) => total += c.states,
                Err(e) => return Err(Stopped(e, total)),
            }
        }
    }
    Ok(total)
}

/// Why a search stopped by its budget proved nothing.
pub fn stopped(spent: Spent, states: usize) -> String {
    format!(
        "stopped after {states} states: the budget ran out (--{})",
        spent.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::composed::{bounded, ir, parse};
    use hindsight_budget::Limits as BudgetLimits;

    /// An operation whose bounded check explores a long local loop, thirteen integer locals
    /// described at every step (#39: `composed --bounded` at `--memory-limit 50M` took 285 MB,
    /// each state charged at its inline size while its locals and step descriptions lie on
    /// the heap).
    const WIDE: &str = include_str!("../../tests/fixtures/composed_wide_locals.java");

    #[test]
    fn the_bounded_check_charges_what_its_states_hold() {
        let programs = parse(WIDE).expect("parses");
        let program = &programs[0];
        let op = &program.operations[0];
        let code = ir::lower(program, op);
        let limit = 4 << 20;
        let budget = Budget::new(BudgetLimits {
            timeout: None,
            memory: limit,
        });
        let r = bounded::check(&code, &bounded::Domain::default(), &budget);
        assert_eq!(budget.spent(), Some(Spent::Memory));
        assert!(matches!(r.result, VerifyResult::NotProved(_)));
        // Each state holds at least: its node and its key inline, the thirteen locals and the
        // loop's counter twice (node and key), and its step's three descriptions of them.
        let start = code.start(&[Value::Int(1), Value::Int(2)]);
        let slots = start.slots.len() * std::mem::size_of::<Value>();
        let text = 3 * describe_state(&code, &start, &code.shared(Default::default())).len();
        let least = std::mem::size_of::<Node>()
            + std::mem::size_of::<(Local, Shared, Lp)>()
            + 2 * slots
            + text;
        assert!(
            (r.states * least) as u64 <= limit,
            "{} states of at least {least} bytes under {limit}",
            r.states
        );
    }

    /// A loop over a collection of unknown size, a racy remove in its body: each round's
    /// `hasNext()` is a question of its own (taken both ways), and the paths are cut at
    /// `MAX_ASSUMED_PER_PATH` assumptions, so the bounded search reaches another thread's
    /// moves and finds the race (before, the first round's answer held for every round: the
    /// loop went round without end and the search gave up at its bound of states).
    #[test]
    fn the_bounded_check_finds_a_race_inside_a_loop_over_a_collection() {
        let source = "class C {\n  final ConcurrentHashMap<String, Object> m = new ConcurrentHashMap<>();\n  void drop(String k, java.util.Set<String> names) {\n    Object w = m.get(k);\n    for (String n : names) {\n      if (w != null) m.remove(k);\n    }\n  }\n}\n";
        let programs = parse(source).expect("parses");
        let code = ir::lower(&programs[0], &programs[0].operations[0]);
        let r = bounded::check(&code, &bounded::Domain::default(), &Budget::unlimited());
        assert!(
            matches!(r.result, VerifyResult::Violation(_)),
            "{:?}",
            r.result
        );
    }

    fn proof(source: &str) -> VerifyResult {
        let programs = parse(source).expect("parses");
        let (program, op) = (&programs[0], &programs[0].operations[0]);
        let class = crate::composed::classify(program, op);
        let code = ir::lower(program, op);
        verify(&code, &class, &Limits::default(), &Budget::unlimited())
    }

    /// A flag of no input decides between two correct ways (dubbo's
    /// `ConcurrentHashMapUtils.computeIfAbsent`, Java 8 or not): proved, both ways taken. The
    /// same flag tested again in a loop could answer differently each round, which the facts
    /// (one answer per call) cannot follow: not proved. Two ways of which one breaks
    /// Definition 3.1: not proved either (a violation found under assumptions is left to
    /// `--bounded`).
    #[test]
    fn a_flag_of_no_input_is_taken_both_ways_when_observed_once() {
        let both = "class C {\n  final ConcurrentHashMap<String, Object> m = new ConcurrentHashMap<>();\n  Object get(String k) {\n    if (JRE.JAVA_8.isCurrentVersion()) {\n      Object v = m.get(k);\n      if (v == null) {\n        v = new Object();\n        Object res = m.putIfAbsent(k, v);\n        if (res != null) return res;\n      }\n      return v;\n    }\n    return m.computeIfAbsent(k, x -> new Object());\n  }\n}\n";
        assert!(
            matches!(proof(both), VerifyResult::Linearizable { .. }),
            "{:?}",
            proof(both)
        );
        let looped = both.replace(
            "if (JRE.JAVA_8.isCurrentVersion())",
            "while (JRE.JAVA_8.isCurrentVersion())",
        );
        match proof(&looped) {
            VerifyResult::NotProved(why) => assert!(why.contains("not a boolean"), "{why}"),
            other => panic!("{other:?}"),
        }
        let racy = both.replace("if (res != null) return res;", "m.put(k, v);");
        match proof(&racy) {
            VerifyResult::NotProved(why) => {
                assert!(why.contains("breaks Definition 3.1"), "{why}")
            }
            other => panic!("{other:?}"),
        }
    }
}
