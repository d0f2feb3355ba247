//! `lin` against the definition of linearizability: a history is linearizable iff some total
//! order of a subset of its operations, containing every completed one, respects real-time
//! order and is legal for the sequential specification. The oracle enumerates such orders
//! literally (no memoization, no partitioning: key-value histories are replayed against the
//! whole map, so the checker's per-key partitioning is tested too). Random histories come from
//! an independent reference implementation of each object run under a random schedule, so they
//! are linearizable unless deliberately corrupted; hand-written histories pin each model down.

use hindsight_budget::Budget;
use hindsight_history::check::Verdict;
use hindsight_history::{check, model_by_name, CheckOptions, History, Model, Op, Val, MODELS};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

// ---------------------------------------------------------------------------------------------
// The oracle.

/// Sequential state for the oracle: one model state per key for `kv` (the whole map), a single
/// state (under `None`) for the other models. Absent keys hold `model.init()`.
type SeqState = BTreeMap<Option<Val>, Val>;

fn keyed(model: &dyn Model) -> bool {
    matches!(model.name(), "kv" | "list-append")
}

fn seq_step(model: &dyn Model, state: &SeqState, op: &Op) -> Option<SeqState> {
    let key = if keyed(model) { op.key.clone() } else { None };
    let current = state.get(&key).cloned().unwrap_or_else(|| model.init());
    let next = model.step(&current, op).map(Cow::into_owned);
    assert!(
        op.output.is_some() || next.is_some(),
        "{}: the unknown-outcome operation {op:?} is refused in {current} (trait contract)",
        model.name()
    );
    let mut state = state.clone();
    state.insert(key, next?);
    Some(state)
}

/// Whether some order of the unused operations, containing every completed one and
/// respecting real time, is legal from `state` under `step`.
fn search<S>(
    h: &History,
    step: &dyn Fn(&S, &Op) -> Option<S>,
    used: &mut [bool],
    state: &S,
) -> bool {
    // Every completed operation is in the order; the others may be left out.
    if h.ops
        .iter()
        .zip(used.iter())
        .all(|(op, &u)| u || op.ret.is_none())
    {
        return true;
    }
    for i in 0..h.ops.len() {
        if used[i] {
            continue;
        }
        let op = &h.ops[i];
        // Real-time order: whatever precedes `op` is already in the order.
        if h.ops
            .iter()
            .zip(used.iter())
            .any(|(p, &u)| !u && p.precedes(op))
        {
            continue;
        }
        if let Some(next) = step(state, op) {
            used[i] = true;
            if search(h, step, used, &next) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

/// Whether `h` is linearizable for `model`, by the definition.
fn oracle(h: &History, model: &dyn Model) -> bool {
    assert!(h.ops.len() <= 8, "the oracle is exponential");
    let step = |state: &SeqState, op: &Op| seq_step(model, state, op);
    search(h, &step, &mut vec![false; h.ops.len()], &SeqState::new())
}

// ---------------------------------------------------------------------------------------------
// Comparing the checker with the oracle.

fn show(h: &History) -> String {
    let mut out = String::new();
    for op in &h.ops {
        let key = op.key.as_ref().map(|k| format!(" {k}")).unwrap_or_default();
        let output = op.output.as_ref().map_or("?".to_string(), Val::to_string);
        let ret = op.ret.map_or("-".to_string(), |r| r.to_string());
        out += &format!(
            "  #{} p{} {}{} {} -> {}  [{}, {}]\n",
            op.id, op.process, op.f, key, op.input, output, op.invoke, ret
        );
    }
    out
}

/// Runs the checker on `h`, checks what it reports against the oracle and against itself, and
/// returns whether `h` is linearizable.
fn compare(h: &History, model: &dyn Model, parallel: bool) -> Result<bool, String> {
    for op in &h.ops {
        model
            .validate(op)
            .map_err(|e| format!("generated an invalid op {op:?}: {e}"))?;
    }
    let expected = oracle(h, model);
    // In parallel, every part's first turn is one step, and each of its turns twice its last:
    // it pauses after 1, 3, 7, ... steps and resumes at its next turn, on whichever thread;
    // the search must go on exactly where it stopped.
    let options = CheckOptions {
        parallel,
        first_slice: if parallel {
            1
        } else {
            CheckOptions::default().first_slice
        },
        ..CheckOptions::default()
    };
    let outcome = check(h, model, &options, &Budget::unlimited());
    let ctx = || {
        format!(
            "model {}, history:\n{}outcome: {outcome:#?}",
            model.name(),
            show(h)
        )
    };
    let want = if expected {
        Verdict::Linearizable
    } else {
        Verdict::NotLinearizable
    };
    if outcome.verdict != want {
        return Err(format!(
            "checker says {:?}, oracle {want:?}; {}",
            outcome.verdict,
            ctx()
        ));
    }

    // The parts cover the history, each operation once; kv parts are keys.
    let mut all: Vec<usize> = outcome
        .partitions
        .iter()
        .flat_map(|p| p.ops.clone())
        .collect();
    all.sort_unstable();
    if all != (0..h.ops.len()).collect::<Vec<_>>() {
        return Err(format!(
            "the parts do not cover the history once; {}",
            ctx()
        ));
    }
    let part_verdicts: Vec<Verdict> = outcome.partitions.iter().map(|p| p.verdict).collect();
    let any_not = part_verdicts.contains(&Verdict::NotLinearizable);
    if any_not == expected || part_verdicts.contains(&Verdict::Unknown) {
        return Err(format!(
            "the parts' verdicts disagree with the whole; {}",
            ctx()
        ));
    }

    for part in &outcome.partitions {
        if keyed(model)
            && part
                .ops
                .iter()
                .any(|&i| h.ops[i].key != h.ops[part.ops[0]].key)
        {
            return Err(format!("a kv part mixes keys; {}", ctx()));
        }
        if part.verdict != Verdict::NotLinearizable {
            continue;
        }
        // The prefix is a legal, real-time ordered sequence of distinct ops of the part.
        let mut state = model.init();
        for (j, &id) in part.prefix.iter().enumerate() {
            if !part.ops.contains(&id) || part.prefix[..j].contains(&id) {
                return Err(format!(
                    "prefix op #{id} is not a new op of its part; {}",
                    ctx()
                ));
            }
            let op = &h.ops[id];
            if let Some(&p) = part
                .ops
                .iter()
                .find(|&&p| h.ops[p].precedes(op) && !part.prefix[..j].contains(&p))
            {
                return Err(format!(
                    "prefix puts #{id} before #{p}, which precedes it; {}",
                    ctx()
                ));
            }
            state = model
                .step(&state, op)
                .map(Cow::into_owned)
                .ok_or_else(|| format!("prefix op #{id} is illegal in {state}; {}", ctx()))?;
        }
        if part.state.as_ref().is_some_and(|s| *s != state) {
            return Err(format!(
                "the prefix ends in {state}, not the reported state; {}",
                ctx()
            ));
        }
        for &id in &part.stuck {
            if !part.ops.contains(&id) || part.prefix.contains(&id) {
                return Err(format!(
                    "stuck op #{id} is not a pending op of its part; {}",
                    ctx()
                ));
            }
            if model.step(&state, &h.ops[id]).is_some() {
                return Err(format!("stuck op #{id} does extend the prefix; {}", ctx()));
            }
        }
    }
    Ok(expected)
}

// ---------------------------------------------------------------------------------------------
// Random histories.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Register,
    CasRegister,
    Etcd,
    Kv,
    ListAppend,
    MultiRegister,
    Set,
    FifoQueue,
    UnorderedQueue,
    Queue,
    Counter,
    Mutex,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Register => "register",
            Kind::CasRegister => "cas-register",
            Kind::Etcd => "etcd",
            Kind::Kv => "kv",
            Kind::ListAppend => "list-append",
            Kind::MultiRegister => "multi-register",
            Kind::Set => "set",
            Kind::FifoQueue => "fifo-queue",
            Kind::UnorderedQueue => "unordered-queue",
            Kind::Queue => "queue",
            Kind::Counter => "counter",
            Kind::Mutex => "mutex",
        }
    }
}

struct Dice<'a> {
    xs: &'a [u32],
    at: usize,
}

impl Dice<'_> {
    fn roll(&mut self, n: u32) -> u32 {
        let x = self.xs.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        x % n
    }

    fn int(&mut self) -> Val {
        Val::Int(self.roll(3) as i64)
    }

    fn string(&mut self) -> Val {
        Val::Str(["a", "b", "ab"][self.roll(3) as usize].to_string())
    }
}

/// The objects themselves, written for this test from the peers' descriptions, independently
/// of `models.rs`: what each operation does and outputs.
#[derive(Clone)]
struct Reference {
    register: Val,
    map: BTreeMap<Val, Val>,
    set: BTreeSet<Val>,
    queue: VecDeque<Val>,
    /// The unordered queue, sorted, with repetitions.
    bag: Vec<Val>,
    count: i64,
    held: bool,
}

impl Reference {
    fn new() -> Reference {
        Reference {
            register: Val::Nil,
            map: BTreeMap::new(),
            set: BTreeSet::new(),
            queue: VecDeque::new(),
            bag: Vec::new(),
            count: 0,
            held: false,
        }
    }

    /// Performs the operation; its output, or `None` where the object refuses it (a cas that
    /// finds another value, a dequeue from an empty queue, ...).
    fn perform(
        &mut self,
        kind: Kind,
        f: &str,
        key: &Option<Val>,
        input: &Val,
        reversed: bool,
    ) -> Option<Val> {
        let cas = |cell: &mut Val| {
            let Val::List(v) = input else { unreachable!() };
            (*cell == v[0]).then(|| {
                *cell = v[1].clone();
                input.clone()
            })
        };
        match (kind, f) {
            (Kind::Register | Kind::CasRegister | Kind::Etcd, "read") => {
                Some(self.register.clone())
            }
            (Kind::Register | Kind::CasRegister | Kind::Etcd, "write") => {
                self.register = input.clone();
                Some(input.clone())
            }
            (Kind::CasRegister | Kind::Etcd, "cas") => cas(&mut self.register),
            (Kind::Kv, _) => {
                let cell = self
                    .map
                    .entry(key.clone().unwrap())
                    .or_insert(Val::Str(String::new()));
                match (f, &*cell, input) {
                    ("get", _, _) => Some(cell.clone()),
                    ("put", _, _) => {
                        *cell = input.clone();
                        Some(input.clone())
                    }
                    ("append", Val::Str(a), Val::Str(b)) => {
                        *cell = Val::Str(format!("{a}{b}"));
                        Some(input.clone())
                    }
                    _ => unreachable!(),
                }
            }
            (Kind::ListAppend, _) => {
                let cell = self.map.entry(key.clone().unwrap()).or_insert(Val::Nil);
                match f {
                    "get" => Some(cell.clone()),
                    "put" => {
                        *cell = input.clone();
                        Some(input.clone())
                    }
                    "cas" => cas(cell),
                    "append" => match cell {
                        Val::Nil => {
                            *cell = Val::List(vec![input.clone()]);
                            Some(input.clone())
                        }
                        Val::List(vs) => {
                            vs.push(input.clone());
                            Some(input.clone())
                        }
                        _ => None,
                    },
                    _ => unreachable!(),
                }
            }
            (Kind::MultiRegister, "txn") => {
                let Val::List(micro) = input else {
                    unreachable!()
                };
                let mut done = Vec::new();
                for m in micro {
                    let Val::List(fkv) = m else { unreachable!() };
                    let (k, v) = (&fkv[1], &fkv[2]);
                    if fkv[0] == Val::Str("read".into()) {
                        let now = self.map.get(k).cloned().unwrap_or(Val::Nil);
                        done.push(Val::List(vec![fkv[0].clone(), k.clone(), now]));
                    } else {
                        self.map.insert(k.clone(), v.clone());
                        done.push(m.clone());
                    }
                }
                Some(Val::List(done))
            }
            (Kind::Set, "add") => {
                self.set.insert(input.clone());
                Some(input.clone())
            }
            (Kind::Set, "remove") => {
                self.set.remove(input);
                Some(input.clone())
            }
            (Kind::Set, "read") => {
                let mut all: Vec<Val> = self.set.iter().cloned().collect();
                if reversed {
                    all.reverse();
                }
                Some(Val::List(all))
            }
            (Kind::Set, "contains") => Some(Val::Bool(self.set.contains(input))),
            (Kind::FifoQueue | Kind::Queue, "enqueue") => {
                self.queue.push_back(input.clone());
                Some(input.clone())
            }
            (Kind::FifoQueue, "dequeue") => self.queue.pop_front(),
            (Kind::Queue, "dequeue") => Some(self.queue.pop_front().unwrap_or(Val::Nil)),
            (Kind::UnorderedQueue, "enqueue") => {
                self.bag.push(input.clone());
                self.bag.sort();
                Some(input.clone())
            }
            (Kind::UnorderedQueue, "dequeue") if self.bag.is_empty() => None,
            (Kind::UnorderedQueue, "dequeue") => {
                let at = if reversed { self.bag.len() - 1 } else { 0 };
                Some(self.bag.remove(at))
            }
            (Kind::Counter, "add") => {
                let Val::Int(d) = input else { unreachable!() };
                self.count += d;
                Some(input.clone())
            }
            (Kind::Counter, "increment") => {
                self.count += 1;
                Some(Val::Nil)
            }
            (Kind::Counter, "read") => Some(Val::Int(self.count)),
            (Kind::Mutex, "acquire") => (!self.held).then(|| {
                self.held = true;
                Val::Nil
            }),
            (Kind::Mutex, "release") => self.held.then(|| {
                self.held = false;
                Val::Nil
            }),
            _ => unreachable!("{kind:?} {f}"),
        }
    }
}

/// The sequential specification as the peers write it, on the reference object: the state
/// after `op`, if the object can output what was recorded.
fn reference_step(kind: Kind, state: &Reference, op: &Op) -> Option<Reference> {
    let mut next = state.clone();
    let f = op.f.as_str();
    let Some(recorded) = &op.output else {
        // Unknown outcome: it took effect where the object performs it, or never.
        let input = match (kind, f) {
            // Knossos steps an unknown dequeue with its invocation's value, which must be in
            // the queue.
            (Kind::UnorderedQueue, "dequeue") => {
                let at = state.bag.binary_search(&op.input).ok();
                return Some(match at {
                    Some(i) => {
                        next.bag.remove(i);
                        next
                    }
                    None => state.clone(),
                });
            }
            // Knossos steps an unknown transaction with its invocation, whose reads of values
            // must find them.
            (Kind::MultiRegister, _) => {
                let Val::List(micro) = &op.input else {
                    unreachable!()
                };
                for m in micro {
                    let Val::List(fkv) = m else { unreachable!() };
                    let now = state.map.get(&fkv[1]).cloned().unwrap_or(Val::Nil);
                    if fkv[0] == Val::Str("read".into()) && fkv[2] != Val::Nil && fkv[2] != now {
                        return Some(state.clone());
                    }
                }
                &op.input
            }
            _ => &op.input,
        };
        let out = next.perform(kind, f, &op.key, input, false);
        return Some(if out.is_some() { next } else { state.clone() });
    };
    if op.failed {
        // Porcupine's etcd: a failed cas found another value.
        assert!(kind == Kind::Etcd && f == "cas");
        return next
            .perform(kind, f, &op.key, &op.input, false)
            .is_none()
            .then(|| state.clone());
    }
    if kind == Kind::MultiRegister {
        // The completion's reads say what they found; nil: anything.
        let Val::List(micro) = recorded else {
            unreachable!()
        };
        for m in micro {
            let Val::List(fkv) = m else { unreachable!() };
            if fkv[0] == Val::Str("read".into()) {
                let now = next.map.get(&fkv[1]).cloned().unwrap_or(Val::Nil);
                if fkv[2] != Val::Nil && fkv[2] != now {
                    return None;
                }
            } else {
                next.map.insert(fkv[1].clone(), fkv[2].clone());
            }
        }
        return Some(next);
    }
    if kind == Kind::UnorderedQueue && f == "dequeue" {
        let i = next.bag.binary_search(recorded).ok()?;
        next.bag.remove(i);
        return Some(next);
    }
    let out = next.perform(kind, f, &op.key, &op.input, false)?;
    let checked = matches!(
        (kind, f),
        (
            Kind::Register | Kind::CasRegister | Kind::Etcd | Kind::Counter | Kind::Set,
            "read"
        ) | (Kind::Kv | Kind::ListAppend, "get")
            | (Kind::Set, "contains")
            | (Kind::FifoQueue | Kind::Queue, "dequeue")
    );
    let matches = match (kind, recorded) {
        (Kind::Set, Val::List(vs)) if f == "read" => {
            let mut vs = vs.clone();
            vs.sort();
            Val::List(vs) == out
        }
        // Knossos: a read of nil does not know what it read.
        (Kind::Register | Kind::CasRegister, Val::Nil) => true,
        _ => *recorded == out,
    };
    (!checked || matches).then_some(next)
}

fn reference_oracle(kind: Kind, h: &History) -> bool {
    let step = |state: &Reference, op: &Op| reference_step(kind, state, op);
    search(h, &step, &mut vec![false; h.ops.len()], &Reference::new())
}

fn template(kind: Kind, d: &mut Dice) -> (&'static str, Option<Val>, Val) {
    let pick = |d: &mut Dice, fs: &[&'static str]| fs[d.roll(fs.len() as u32) as usize];
    let cas = |d: &mut Dice| Val::List(vec![d.int(), d.int()]);
    let key = |d: &mut Dice| Some(Val::Str(["a", "b"][d.roll(2) as usize].to_string()));
    match kind {
        Kind::Register => match pick(d, &["read", "read", "write", "write"]) {
            "write" => ("write", None, d.int()),
            f => (f, None, Val::Nil),
        },
        Kind::CasRegister | Kind::Etcd => {
            match pick(d, &["read", "read", "write", "write", "cas"]) {
                "cas" => ("cas", None, cas(d)),
                "write" => ("write", None, d.int()),
                f => (f, None, Val::Nil),
            }
        }
        Kind::Kv => match pick(d, &["get", "get", "put", "append", "append"]) {
            "get" => ("get", key(d), Val::Nil),
            f => (f, key(d), d.string()),
        },
        Kind::ListAppend => match pick(d, &["get", "get", "put", "append", "append", "cas"]) {
            "cas" => ("cas", key(d), cas(d)),
            "get" => ("get", key(d), Val::Nil),
            f => (f, key(d), d.int()),
        },
        Kind::MultiRegister => {
            let n = 1 + d.roll(2);
            let micro = (0..n)
                .map(|_| {
                    let k = Val::Str(["x", "y"][d.roll(2) as usize].to_string());
                    match d.roll(2) {
                        0 => Val::List(vec![Val::Str("read".into()), k, Val::Nil]),
                        _ => Val::List(vec![Val::Str("write".into()), k, d.int()]),
                    }
                })
                .collect();
            ("txn", None, Val::List(micro))
        }
        Kind::Set => match pick(d, &["add", "add", "remove", "read", "read", "contains"]) {
            "read" => ("read", None, Val::Nil),
            f => (f, None, d.int()),
        },
        Kind::FifoQueue | Kind::UnorderedQueue | Kind::Queue => {
            match pick(d, &["enqueue", "enqueue", "dequeue", "dequeue"]) {
                "enqueue" => ("enqueue", None, d.int()),
                f => (f, None, Val::Nil),
            }
        }
        Kind::Counter => match pick(d, &["add", "add", "increment", "read", "read"]) {
            "add" => ("add", None, Val::Int(d.roll(4) as i64 - 1)),
            f => (f, None, Val::Nil),
        },
        Kind::Mutex => (pick(d, &["acquire", "release"]), None, Val::Nil),
    }
}

/// A wrong output of the right shape for the model (a corruption).
fn random_output(kind: Kind, f: &str, input: &Val, d: &mut Dice) -> Val {
    let small_list = |d: &mut Dice| {
        let n = d.roll(3);
        Val::List((0..n).map(|_| d.int()).collect())
    };
    match (kind, f) {
        (Kind::Set, "read") => {
            let mut vs: Vec<Val> = (0..3)
                .filter(|_| d.roll(2) == 0)
                .map(|i| Val::Int(i as i64))
                .collect();
            if d.roll(2) == 0 {
                vs.reverse();
            }
            Val::List(vs)
        }
        (Kind::Set, "contains") => Val::Bool(d.roll(2) == 0),
        (Kind::Counter, _) => Val::Int(d.roll(5) as i64 - 1),
        (Kind::Kv, "get") => Val::Str(["", "a", "b", "ab", "ba", "aab"][d.roll(6) as usize].into()),
        (Kind::Kv, _) => d.string(),
        (Kind::ListAppend, _) if d.roll(3) == 0 => small_list(d),
        (Kind::MultiRegister, _) => {
            let Val::List(micro) = input else {
                unreachable!()
            };
            Val::List(
                micro
                    .iter()
                    .map(|m| {
                        let Val::List(fkv) = m else { unreachable!() };
                        let mut fkv = fkv.clone();
                        if fkv[0] == Val::Str("read".into()) {
                            fkv[2] = d.int();
                        }
                        Val::List(fkv)
                    })
                    .collect(),
            )
        }
        _ => match d.roll(4) {
            0 => Val::Nil,
            n => Val::Int(n as i64 - 1),
        },
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Ok,
    Fail,
    Info,
    Pending,
}

struct Rec {
    process: i64,
    f: &'static str,
    key: Option<Val>,
    input: Val,
    fate: Fate,
    effect: bool,
    output: Option<Val>,
    invoke: usize,
    ret: Option<usize>,
}

fn random_history(kind: Kind, d: &mut Dice) -> (History, bool) {
    let workers = 1 + d.roll(4) as usize;
    let n = 2 + d.roll(6) as usize;
    let mut todo: Vec<VecDeque<usize>> = vec![VecDeque::new(); workers];
    let mut recs: Vec<Rec> = Vec::new();
    let mut templates = Vec::new();
    for t in 0..n {
        let (f, key, input) = template(kind, d);
        let fate = match d.roll(20) {
            0..=13 => Fate::Ok,
            14..=15 => Fate::Fail,
            16..=17 => Fate::Info,
            _ => Fate::Pending,
        };
        let effect = d.roll(2) == 0;
        templates.push((f, key, input, fate, effect));
        todo[d.roll(workers as u32) as usize].push_back(t);
    }
    let mut reference = Reference::new();
    let mut process: Vec<i64> = (0..workers as i64).collect();
    let mut current: Vec<Option<(usize, bool)>> = vec![None; workers];
    let mut floating: Vec<usize> = Vec::new();
    let mut position = 0;
    #[derive(Clone, Copy)]
    enum Event {
        Invoke(usize),
        TakeEffect(usize),
        Complete(usize),
        Float(usize),
    }
    loop {
        let mut enabled = Vec::new();
        for w in 0..workers {
            match current[w] {
                None if !todo[w].is_empty() => enabled.push(Event::Invoke(w)),
                None => {}
                Some((r, false)) if recs[r].effect || recs[r].fate == Fate::Ok => {
                    enabled.push(Event::TakeEffect(w))
                }
                Some(_) => enabled.push(Event::Complete(w)),
            }
        }
        enabled.extend((0..floating.len()).map(Event::Float));
        if enabled.is_empty() {
            break;
        }
        let reversed = d.roll(2) == 0;
        let mut perform = |rec: &mut Rec| {
            rec.output = reference.perform(kind, rec.f, &rec.key, &rec.input, reversed);
        };
        match enabled[d.roll(enabled.len() as u32) as usize] {
            Event::Invoke(w) => {
                let t = todo[w].pop_front().unwrap();
                let (f, key, input, fate, effect) = templates[t].clone();
                let effect = effect && fate != Fate::Fail;
                recs.push(Rec {
                    process: process[w],
                    f,
                    key,
                    input,
                    fate,
                    effect,
                    output: None,
                    invoke: position,
                    ret: None,
                });
                position += 1;
                let r = recs.len() - 1;
                if fate == Fate::Pending {
                    if effect {
                        floating.push(r);
                    }
                    process[w] += workers as i64;
                } else {
                    current[w] = Some((r, false));
                }
            }
            Event::TakeEffect(w) => {
                let (r, _) = current[w].unwrap();
                perform(&mut recs[r]);
                current[w] = Some((r, true));
            }
            Event::Float(k) => perform(&mut recs[floating.swap_remove(k)]),
            Event::Complete(w) => {
                let (r, _) = current[w].take().unwrap();
                if recs[r].fate == Fate::Info {
                    process[w] += workers as i64;
                } else {
                    recs[r].ret = Some(position);
                }
                position += 1;
            }
        }
    }

    let mut corrupted = false;
    if d.roll(10) < 4 && !recs.is_empty() {
        let r = d.roll(recs.len() as u32) as usize;
        let rec = &mut recs[r];
        if rec.fate == Fate::Ok || rec.fate == Fate::Fail {
            corrupted = true;
            match (rec.fate, rec.output.is_some()) {
                (Fate::Ok, true) if d.roll(3) > 0 => {
                    rec.output = Some(random_output(kind, rec.f, &rec.input, d));
                }
                (Fate::Ok, true) => rec.output = None,
                _ => {
                    rec.fate = Fate::Ok;
                    rec.output = Some(random_output(kind, rec.f, &rec.input, d));
                }
            }
        }
    }

    let mut history = History::default();
    for rec in recs {
        // Porcupine's etcd keeps the cas that found another value, recorded as `fail`.
        let failed_cas = kind == Kind::Etcd && rec.f == "cas" && rec.output.is_none();
        let (output, ret, failed) = match rec.fate {
            Fate::Ok if rec.output.is_some() => (rec.output, rec.ret, false),
            Fate::Ok if failed_cas => (Some(rec.input.clone()), rec.ret, true),
            Fate::Ok | Fate::Fail => continue,
            Fate::Info | Fate::Pending => (None, None, false),
        };
        let id = history.ops.len();
        history.ops.push(Op {
            id,
            process: rec.process,
            f: rec.f.to_string(),
            key: rec.key,
            input: rec.input,
            output,
            invoke: rec.invoke,
            ret,
            invoke_line: rec.invoke as u64 + 1,
            ret_line: ret.map(|r| r as u64 + 1),
            failed,
        });
    }
    (history, corrupted)
}

fn against_oracle(kind: Kind, cases: u32) {
    let model = model_by_name(kind.name(), None).expect("a model");
    let linearizable = Cell::new(0u32);
    let not = Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&proptest::collection::vec(any::<u32>(), 1..160), |xs| {
        let mut d = Dice { xs: &xs, at: 0 };
        let (h, corrupted) = random_history(kind, &mut d);
        let parallel = d.roll(2) == 0;
        let lin = compare(&h, &*model, parallel).map_err(TestCaseError::fail)?;
        prop_assert_eq!(
            lin,
            reference_oracle(kind, &h),
            "model {} and the reference implementation disagree on\n{}",
            kind.name(),
            show(&h)
        );
        prop_assert!(
            lin || corrupted,
            "a history of the reference implementation is not linearizable for model {}:\n{}",
            kind.name(),
            show(&h)
        );
        let counter = if lin { &linearizable } else { &not };
        counter.set(counter.get() + 1);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (yes, no) = (linearizable.get(), not.get());
    assert!(
        yes >= cases / 10 && no >= cases / 20,
        "{}: {yes} linearizable and {no} not: both verdicts should be common",
        kind.name()
    );
}

#[test]
fn register_against_oracle() {
    against_oracle(Kind::Register, 1000);
}

#[test]
fn cas_register_against_oracle() {
    against_oracle(Kind::CasRegister, 1000);
}

#[test]
fn etcd_against_oracle() {
    against_oracle(Kind::Etcd, 1000);
}

#[test]
fn kv_against_oracle() {
    against_oracle(Kind::Kv, 1000);
}

#[test]
fn list_append_against_oracle() {
    against_oracle(Kind::ListAppend, 1000);
}

#[test]
fn multi_register_against_oracle() {
    against_oracle(Kind::MultiRegister, 1000);
}

#[test]
fn set_against_oracle() {
    against_oracle(Kind::Set, 1000);
}

#[test]
fn fifo_queue_against_oracle() {
    against_oracle(Kind::FifoQueue, 1000);
}

#[test]
fn unordered_queue_against_oracle() {
    against_oracle(Kind::UnorderedQueue, 1000);
}

#[test]
fn queue_against_oracle() {
    against_oracle(Kind::Queue, 1000);
}

#[test]
fn counter_against_oracle() {
    against_oracle(Kind::Counter, 1000);
}

#[test]
fn mutex_against_oracle() {
    against_oracle(Kind::Mutex, 1000);
}

// ---------------------------------------------------------------------------------------------
// Hand-written histories.

/// A history record, Jepsen style: a process invokes, then completes `ok`, `fail` or `info`
/// (or never).
enum Ev {
    Call(i64, &'static str, Option<Val>, Val),
    Ok(i64, Val),
    Info(i64),
    Fail(i64),
    /// A `fail` that Porcupine's etcd model keeps (a cas that found another value).
    FailKept(i64),
}

fn call(p: i64, f: &'static str, input: Val) -> Ev {
    Ev::Call(p, f, None, input)
}

fn kcall(p: i64, key: &str, f: &'static str, input: Val) -> Ev {
    Ev::Call(p, f, Some(Val::Str(key.to_string())), input)
}

fn ok(p: i64, output: Val) -> Ev {
    Ev::Ok(p, output)
}

/// `ok` with an output the model does not look at.
fn done(p: i64) -> Ev {
    Ev::Ok(p, Val::Nil)
}

fn info(p: i64) -> Ev {
    Ev::Info(p)
}

fn fail(p: i64) -> Ev {
    Ev::Fail(p)
}

const NIL: Val = Val::Nil;

fn i(n: i64) -> Val {
    Val::Int(n)
}

fn l(ns: &[i64]) -> Val {
    Val::List(ns.iter().map(|&n| Val::Int(n)).collect())
}

fn b(x: bool) -> Val {
    Val::Bool(x)
}

/// The history the records describe (`fail`ed operations dropped).
fn history(evs: &[Ev]) -> History {
    let mut ops: Vec<Option<Op>> = Vec::new();
    let mut pending: BTreeMap<i64, usize> = BTreeMap::new();
    for (at, ev) in evs.iter().enumerate() {
        match ev {
            Ev::Call(p, f, key, input) => {
                assert!(!pending.contains_key(p), "p{p} has an operation pending");
                pending.insert(*p, ops.len());
                ops.push(Some(Op {
                    id: 0,
                    process: *p,
                    f: f.to_string(),
                    key: key.clone(),
                    input: input.clone(),
                    output: None,
                    invoke: at,
                    ret: None,
                    invoke_line: at as u64 + 1,
                    ret_line: None,
                    failed: false,
                }));
            }
            Ev::Ok(p, output) => {
                let op = ops[pending.remove(p).expect("pending")].as_mut().unwrap();
                op.output = Some(output.clone());
                op.ret = Some(at);
                op.ret_line = Some(at as u64 + 1);
            }
            Ev::Info(p) => {
                pending.remove(p).expect("pending");
            }
            Ev::Fail(p) => ops[pending.remove(p).expect("pending")] = None,
            Ev::FailKept(p) => {
                let op = ops[pending.remove(p).expect("pending")].as_mut().unwrap();
                op.output = Some(op.input.clone());
                op.ret = Some(at);
                op.ret_line = Some(at as u64 + 1);
                op.failed = true;
            }
        }
    }
    let mut ops: Vec<Op> = ops.into_iter().flatten().collect();
    for (id, op) in ops.iter_mut().enumerate() {
        op.id = id;
    }
    History {
        ops,
        failed: Vec::new(),
    }
}

/// Whether the history is linearizable for the model, per the checker (which must agree with
/// the oracle and report a consistent counterexample).
fn lin(model: &str, init: Option<Val>, evs: &[Ev]) -> bool {
    let model = model_by_name(model, init).expect("a model");
    let h = history(evs);
    let sequential = compare(&h, &*model, false).unwrap_or_else(|e| panic!("{e}"));
    let parallel = compare(&h, &*model, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sequential, parallel);
    sequential
}

#[test]
fn every_model_name_resolves() {
    for &name in MODELS {
        let model = model_by_name(name, None).unwrap_or_else(|| panic!("no model `{name}`"));
        assert_eq!(model.name(), name);
    }
    assert!(model_by_name("stack", None).is_none());
}

#[test]
fn etcd() {
    // The register hindsight had before Knossos' names: nil reads are checked like any value.
    // A read overlapping a write may see either value.
    let overlapping = [
        call(0, "write", i(1)),
        call(1, "read", NIL),
        ok(1, i(1)),
        call(1, "read", NIL),
        ok(1, NIL),
        done(0),
    ];
    assert!(!lin("etcd", None, &overlapping));
    assert!(lin("etcd", None, &overlapping[..3]));
    // A stale read after the write completed.
    assert!(!lin(
        "etcd",
        None,
        &[
            call(0, "write", i(1)),
            done(0),
            call(1, "read", NIL),
            ok(1, NIL)
        ]
    ));
    // An `info` write may take effect late, but only once.
    let late = [
        call(0, "write", i(1)),
        info(0),
        call(1, "read", NIL),
        ok(1, NIL),
        call(1, "read", NIL),
        ok(1, i(1)),
    ];
    assert!(lin("etcd", None, &late));
    let mut flapping = late.to_vec_evs();
    flapping.extend([call(1, "read", NIL), ok(1, NIL)]);
    assert!(!lin("etcd", None, &flapping));
    // A failed write did not happen.
    assert!(!lin(
        "etcd",
        None,
        &[
            call(0, "write", i(1)),
            fail(0),
            call(1, "read", NIL),
            ok(1, i(1))
        ]
    ));
    // Two sequential cas from the same value cannot both succeed; a pending one may.
    let cas = |p| call(p, "cas", l(&[0, 1]));
    assert!(!lin(
        "etcd",
        Some(i(0)),
        &[cas(0), done(0), cas(1), done(1)]
    ));
    assert!(lin(
        "etcd",
        Some(i(0)),
        &[cas(0), cas(1), done(1), call(2, "read", NIL), ok(2, i(1))]
    ));
    // Porcupine keeps a failed cas: it found another value. Here the value is 0 throughout,
    // so a cas from 0 cannot have failed; a cas from 5 can.
    assert!(!lin(
        "etcd",
        Some(i(0)),
        &[cas(0), Ev::FailKept(0), call(1, "read", NIL), ok(1, i(0))]
    ));
    assert!(lin(
        "etcd",
        Some(i(0)),
        &[
            call(0, "cas", l(&[5, 1])),
            Ev::FailKept(0),
            call(1, "read", NIL),
            ok(1, i(0))
        ]
    ));
    // A failed cas concurrent with the write that made the value other than `from`.
    assert!(lin(
        "etcd",
        Some(i(0)),
        &[call(1, "write", i(2)), cas(0), Ev::FailKept(0), done(1),]
    ));
}

#[test]
fn knossos_registers() {
    // Knossos: a read of nil "does not know what it read", so a stale nil goes unnoticed,
    // where etcd catches it.
    let stale_nil = [
        call(0, "write", i(1)),
        done(0),
        call(1, "read", NIL),
        ok(1, NIL),
    ];
    assert!(lin("register", None, &stale_nil));
    assert!(lin("cas-register", None, &stale_nil));
    assert!(!lin("etcd", None, &stale_nil));
    // Any other stale value is caught.
    let stale = [
        call(0, "write", i(1)),
        done(0),
        call(0, "write", i(2)),
        done(0),
        call(1, "read", NIL),
        ok(1, i(1)),
    ];
    assert!(!lin("register", None, &stale));
    assert!(!lin("cas-register", None, &stale));
    // A completed cas found `from`; an `info` one takes effect only where it does.
    assert!(!lin(
        "cas-register",
        Some(i(3)),
        &[call(0, "cas", l(&[0, 1])), done(0)]
    ));
    assert!(lin(
        "cas-register",
        Some(i(3)),
        &[
            call(0, "cas", l(&[0, 1])),
            info(0),
            call(1, "read", NIL),
            ok(1, i(3))
        ]
    ));
    let register = model_by_name("register", None).unwrap();
    let h = history(&[call(0, "cas", l(&[0, 1])), done(0)]);
    assert!(register.validate(&h.ops[0]).unwrap_err().contains("cas"));
    let cas_register = model_by_name("cas-register", None).unwrap();
    let h = history(&[call(0, "cas", i(1)), done(0)]);
    assert!(cas_register
        .validate(&h.ops[0])
        .unwrap_err()
        .contains("pair"));
}

/// Cloning records (they hold values), for extending a history.
trait ToVecEvs {
    fn to_vec_evs(&self) -> Vec<Ev>;
}

impl ToVecEvs for [Ev] {
    fn to_vec_evs(&self) -> Vec<Ev> {
        self.iter()
            .map(|ev| match ev {
                Ev::Call(p, f, k, v) => Ev::Call(*p, f, k.clone(), v.clone()),
                Ev::Ok(p, v) => Ev::Ok(*p, v.clone()),
                Ev::Info(p) => Ev::Info(*p),
                Ev::Fail(p) => Ev::Fail(*p),
                Ev::FailKept(p) => Ev::FailKept(*p),
            })
            .collect()
    }
}

#[test]
fn kv() {
    let s = |x: &str| Val::Str(x.to_string());
    // Porcupine's store: strings, "" until written; append concatenates; get sees the whole.
    assert!(lin(
        "kv",
        None,
        &[
            kcall(0, "a", "get", NIL),
            ok(0, s("")),
            kcall(0, "a", "append", s("x")),
            ok(0, s("x")),
            kcall(0, "a", "append", s("y")),
            ok(0, s("y")),
            kcall(1, "a", "get", NIL),
            ok(1, s("xy")),
            kcall(1, "b", "get", NIL),
            ok(1, s("")),
        ]
    ));
    // Concurrent appends in either order, sequential ones in theirs.
    let appends = |sequential: bool, read: &str| {
        let mut evs = vec![kcall(0, "a", "append", s("x"))];
        if sequential {
            evs.push(ok(0, s("x")));
        }
        evs.push(kcall(1, "a", "append", s("y")));
        evs.push(ok(1, s("y")));
        if !sequential {
            evs.push(ok(0, s("x")));
        }
        evs.extend([kcall(2, "a", "get", NIL), ok(2, s(read))]);
        evs
    };
    assert!(lin("kv", None, &appends(false, "yx")));
    assert!(lin("kv", None, &appends(false, "xy")));
    assert!(!lin("kv", None, &appends(true, "yx")));
    // put replaces; what put and append output is not checked.
    assert!(lin(
        "kv",
        None,
        &[
            kcall(0, "a", "append", s("x")),
            ok(0, s("whatever")),
            kcall(0, "a", "put", s("p")),
            ok(0, NIL),
            kcall(0, "a", "append", s("q")),
            ok(0, s("q")),
            kcall(1, "a", "get", NIL),
            ok(1, s("pq")),
        ]
    ));
    // A key never written reads as "", not nil... and nil is no string.
    let model = model_by_name("kv", None).unwrap();
    let h = history(&[kcall(0, "a", "get", NIL), ok(0, NIL)]);
    assert!(model.validate(&h.ops[0]).unwrap_err().contains("string"));
    let h = history(&[kcall(0, "a", "append", i(1)), ok(0, i(1))]);
    assert!(model.validate(&h.ops[0]).unwrap_err().contains("string"));
    let h = history(&[call(0, "get", NIL), ok(0, s(""))]);
    assert!(model.validate(&h.ops[0]).unwrap_err().contains("key"));
    // --init sets every key's initial string.
    assert!(lin(
        "kv",
        Some(s("i")),
        &[kcall(0, "z", "get", NIL), ok(0, s("i"))]
    ));
}

#[test]
fn multi_register() {
    let txn = |ms: &[(&str, &str, Val)]| {
        Val::List(
            ms.iter()
                .map(|(f, k, v)| {
                    Val::List(vec![
                        Val::Str(f.to_string()),
                        Val::Str(k.to_string()),
                        v.clone(),
                    ])
                })
                .collect(),
        )
    };
    // A transaction's reads see its own writes and the earlier transactions'.
    let h = |seen: Val| {
        [
            call(0, "txn", txn(&[("write", "x", i(1)), ("write", "y", i(2))])),
            ok(0, txn(&[("write", "x", i(1)), ("write", "y", i(2))])),
            call(1, "txn", txn(&[("read", "x", NIL), ("read", "y", NIL)])),
            ok(1, txn(&[("read", "x", i(1)), ("read", "y", seen)])),
        ]
    };
    assert!(lin("multi-register", None, &h(i(2))));
    assert!(!lin("multi-register", None, &h(i(3))));
    // A read of nil fits anything (Knossos).
    assert!(lin("multi-register", None, &h(NIL)));
    // Reads inside one transaction see one state.
    assert!(!lin(
        "multi-register",
        None,
        &[
            call(0, "txn", txn(&[("write", "x", i(1))])),
            call(1, "txn", txn(&[("read", "x", NIL), ("read", "x", NIL)])),
            ok(1, txn(&[("read", "x", i(1)), ("read", "x", i(0))])),
            ok(0, txn(&[("write", "x", i(1))])),
        ]
    ));
    let model = model_by_name("multi-register", None).unwrap();
    let bad = history(&[call(0, "txn", l(&[1, 2])), done(0)]);
    assert!(model.validate(&bad.ops[0]).unwrap_err().contains("[f k v]"));
    let bad = history(&[call(0, "txn", txn(&[("cas", "x", i(1))])), info(0)]);
    assert!(model
        .validate(&bad.ops[0])
        .unwrap_err()
        .contains("read or write"));
    let bad = history(&[call(0, "read", NIL), done(0)]);
    assert!(model.validate(&bad.ops[0]).unwrap_err().contains("`read`"));
}

#[test]
fn knossos_queues() {
    // fifo-queue: a dequeue from an empty queue is refused, nil or not (queue accepts nil).
    let empty = [call(0, "dequeue", NIL), ok(0, NIL)];
    assert!(!lin("fifo-queue", None, &empty));
    assert!(lin("queue", None, &empty));
    let fifo = |first: i64| {
        [
            call(0, "enqueue", i(1)),
            done(0),
            call(0, "enqueue", i(2)),
            done(0),
            call(1, "dequeue", NIL),
            ok(1, i(first)),
        ]
    };
    assert!(lin("fifo-queue", None, &fifo(1)));
    assert!(!lin("fifo-queue", None, &fifo(2)));
    // unordered-queue: any element queued, each as often as queued.
    assert!(lin("unordered-queue", None, &fifo(1)));
    assert!(lin("unordered-queue", None, &fifo(2)));
    assert!(!lin("unordered-queue", None, &fifo(3)));
    assert!(!lin(
        "unordered-queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            done(0),
            call(0, "dequeue", NIL),
            ok(0, i(1)),
            call(0, "dequeue", NIL),
            ok(0, i(1)),
        ]
    ));
    // An unknown dequeue: fifo-queue may remove the head; unordered-queue steps it with its
    // invocation's value (Knossos), nil, which is not queued, so it never takes effect.
    let lost = [
        call(0, "enqueue", i(1)),
        done(0),
        call(0, "enqueue", i(2)),
        done(0),
        call(1, "dequeue", NIL),
        info(1),
        call(0, "dequeue", NIL),
        ok(0, i(2)),
    ];
    assert!(lin("fifo-queue", None, &lost));
    assert!(lin("unordered-queue", None, &lost));
}

#[test]
fn list_append() {
    // Keys are independent.
    assert!(lin(
        "list-append",
        None,
        &[
            kcall(0, "a", "put", i(1)),
            kcall(1, "b", "get", NIL),
            ok(1, NIL),
            done(0),
            kcall(1, "a", "get", NIL),
            ok(1, i(1)),
            kcall(1, "b", "get", NIL),
            ok(1, NIL),
        ]
    ));
    // A stale read of one key.
    assert!(!lin(
        "list-append",
        None,
        &[
            kcall(0, "a", "put", i(1)),
            done(0),
            kcall(0, "b", "put", i(2)),
            done(0),
            kcall(1, "b", "get", NIL),
            ok(1, i(2)),
            kcall(1, "a", "get", NIL),
            ok(1, NIL),
        ]
    ));
    // Concurrent appends land in either order; sequential ones in theirs.
    let appends = |sequential: bool| {
        let mut evs = vec![kcall(0, "a", "append", i(1))];
        if sequential {
            evs.push(done(0));
        }
        evs.push(kcall(1, "a", "append", i(2)));
        evs.push(done(1));
        if !sequential {
            evs.push(done(0));
        }
        evs.extend([kcall(2, "a", "get", NIL), ok(2, l(&[2, 1]))]);
        evs
    };
    assert!(lin("list-append", None, &appends(false)));
    assert!(!lin("list-append", None, &appends(true)));
    // Appending to a value that is not a list is refused; an `info` one did not happen.
    assert!(!lin(
        "list-append",
        None,
        &[
            kcall(0, "a", "put", i(5)),
            done(0),
            kcall(0, "a", "append", i(1)),
            done(0)
        ]
    ));
    assert!(lin(
        "list-append",
        None,
        &[
            kcall(0, "a", "put", i(5)),
            done(0),
            kcall(0, "a", "append", i(1)),
            info(0),
            kcall(1, "a", "get", NIL),
            ok(1, i(5)),
        ]
    ));
    // A failed put is invisible; cas per key; `init` is every key's initial value.
    assert!(!lin(
        "list-append",
        Some(i(0)),
        &[
            kcall(0, "a", "put", i(1)),
            fail(0),
            kcall(1, "a", "get", NIL),
            ok(1, i(1))
        ]
    ));
    assert!(lin(
        "list-append",
        Some(i(0)),
        &[
            kcall(0, "a", "cas", l(&[0, 1])),
            done(0),
            kcall(0, "b", "cas", l(&[0, 2])),
            done(0),
            kcall(1, "b", "get", NIL),
            ok(1, i(2)),
        ]
    ));
    assert!(!lin(
        "list-append",
        Some(i(0)),
        &[kcall(1, "z", "get", NIL), ok(1, NIL)]
    ));

    let model = model_by_name("list-append", None).unwrap();
    let h = history(&[
        kcall(0, "a", "put", i(1)),
        done(0),
        kcall(0, "b", "get", NIL),
        ok(0, NIL),
        kcall(0, "a", "get", NIL),
        ok(0, i(1)),
    ]);
    assert_eq!(model.partition(&h), vec![vec![0, 2], vec![1]]);
    let mut keyless = h.ops[0].clone();
    keyless.key = None;
    let e = model.validate(&keyless).unwrap_err();
    assert!(e.contains("key"), "{e}");
    let mut bad = h.ops[0].clone();
    bad.f = "delete".into();
    assert!(model.validate(&bad).unwrap_err().contains("delete"));
}

#[test]
fn set() {
    // A read concurrent with an add may or may not see it, in any order, each element once.
    let reads = |out: Val| {
        [
            call(0, "add", i(1)),
            done(0),
            call(0, "add", i(2)),
            call(1, "read", NIL),
            ok(1, out),
            done(0),
        ]
    };
    assert!(lin("set", None, &reads(l(&[1]))));
    assert!(lin("set", None, &reads(l(&[2, 1]))));
    assert!(!lin("set", None, &reads(l(&[]))));
    assert!(!lin("set", None, &reads(l(&[1, 1]))));
    assert!(!lin("set", None, &reads(l(&[1, 2, 3]))));
    // contains after remove.
    let removed = |out: bool| {
        [
            call(0, "add", i(1)),
            done(0),
            call(0, "remove", i(1)),
            done(0),
            call(1, "contains", i(1)),
            ok(1, b(out)),
        ]
    };
    assert!(lin("set", None, &removed(false)));
    assert!(!lin("set", None, &removed(true)));
    // An `info` add shows up late, then stays; a failed one never does.
    let late = |second: Val| {
        [
            call(0, "add", i(1)),
            info(0),
            call(1, "read", NIL),
            ok(1, l(&[])),
            call(1, "read", NIL),
            ok(1, second),
        ]
    };
    assert!(lin("set", None, &late(l(&[1]))));
    assert!(lin("set", None, &late(l(&[]))));
    assert!(!lin(
        "set",
        None,
        &[
            call(0, "add", i(1)),
            info(0),
            call(1, "contains", i(1)),
            ok(1, b(true)),
            call(1, "contains", i(1)),
            ok(1, b(false)),
        ]
    ));
    assert!(!lin(
        "set",
        None,
        &[
            call(0, "add", i(1)),
            fail(0),
            call(1, "contains", i(1)),
            ok(1, b(true))
        ]
    ));
    // `init` is the initial elements.
    assert!(lin(
        "set",
        Some(l(&[3, 2, 3])),
        &[call(0, "read", NIL), ok(0, l(&[3, 2]))]
    ));

    let model = model_by_name("set", None).unwrap();
    let h = history(&[call(0, "contains", i(1)), ok(0, i(1))]);
    assert!(model
        .validate(&h.ops[0])
        .unwrap_err()
        .contains("true or false"));
    assert_eq!(model.describe(&l(&[1, 2])), "#{1 2}");
    let odd = model_by_name("set", Some(i(1))).unwrap();
    assert!(odd
        .validate(&history(&[call(0, "read", NIL)]).ops[0])
        .is_err());
}

#[test]
fn queue() {
    let fifo = |first: i64| {
        [
            call(0, "enqueue", i(1)),
            done(0),
            call(0, "enqueue", i(2)),
            done(0),
            call(1, "dequeue", NIL),
            ok(1, i(first)),
        ]
    };
    assert!(lin("queue", None, &fifo(1)));
    assert!(!lin("queue", None, &fifo(2)));
    // Overlapping enqueues are ordered either way.
    assert!(lin(
        "queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            call(1, "enqueue", i(2)),
            done(0),
            done(1),
            call(2, "dequeue", NIL),
            ok(2, i(2)),
            call(2, "dequeue", NIL),
            ok(2, i(1)),
        ]
    ));
    // Empty dequeues output nil.
    assert!(lin("queue", None, &[call(0, "dequeue", NIL), ok(0, NIL)]));
    assert!(!lin(
        "queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            done(0),
            call(1, "dequeue", NIL),
            ok(1, NIL)
        ]
    ));
    // An `info` dequeue may have taken the element.
    assert!(lin(
        "queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            done(0),
            call(1, "dequeue", NIL),
            info(1),
            call(2, "dequeue", NIL),
            ok(2, NIL),
        ]
    ));
    // No element twice; a failed enqueue is never dequeued.
    assert!(!lin(
        "queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            done(0),
            call(1, "dequeue", NIL),
            call(2, "dequeue", NIL),
            ok(1, i(1)),
            ok(2, i(1)),
        ]
    ));
    assert!(!lin(
        "queue",
        None,
        &[
            call(0, "enqueue", i(1)),
            fail(0),
            call(1, "dequeue", NIL),
            ok(1, i(1))
        ]
    ));
    assert!(lin(
        "queue",
        Some(l(&[7])),
        &[call(0, "dequeue", NIL), ok(0, i(7))]
    ));
}

#[test]
fn counter() {
    let adds = |read: i64| {
        [
            call(0, "add", i(1)),
            call(1, "add", i(2)),
            call(2, "read", NIL),
            ok(2, i(read)),
            done(0),
            done(1),
        ]
    };
    for read in [0, 1, 2, 3] {
        assert!(lin("counter", None, &adds(read)));
    }
    assert!(!lin("counter", None, &adds(4)));
    let after = |read: i64| {
        [
            call(0, "add", i(1)),
            call(1, "increment", NIL),
            done(0),
            done(1),
            call(2, "read", NIL),
            ok(2, i(read)),
        ]
    };
    assert!(lin("counter", None, &after(2)));
    assert!(!lin("counter", None, &after(1)));
    // An `info` add counts once or never; a failed one never; negative deltas.
    let late = |reads: [i64; 2]| {
        [
            call(0, "add", i(5)),
            info(0),
            call(1, "read", NIL),
            ok(1, i(reads[0])),
            call(1, "read", NIL),
            ok(1, i(reads[1])),
        ]
    };
    assert!(lin("counter", None, &late([0, 5])));
    assert!(lin("counter", None, &late([0, 0])));
    assert!(!lin("counter", None, &late([5, 0])));
    assert!(!lin("counter", None, &late([5, 10])));
    assert!(!lin(
        "counter",
        None,
        &[
            call(0, "add", i(5)),
            fail(0),
            call(1, "read", NIL),
            ok(1, i(5))
        ]
    ));
    assert!(lin(
        "counter",
        Some(i(10)),
        &[
            call(0, "add", i(-3)),
            done(0),
            call(1, "read", NIL),
            ok(1, i(7))
        ]
    ));

    let model = model_by_name("counter", None).unwrap();
    let h = history(&[call(0, "add", Val::Str("x".into())), done(0)]);
    assert!(model.validate(&h.ops[0]).unwrap_err().contains("integer"));
    let odd = model_by_name("counter", Some(Val::Str("x".into()))).unwrap();
    assert!(odd
        .validate(&history(&[call(0, "read", NIL)]).ops[0])
        .is_err());
}

#[test]
fn mutex() {
    // Two overlapping acquires cannot both succeed without a release.
    assert!(!lin(
        "mutex",
        None,
        &[
            call(0, "acquire", NIL),
            call(1, "acquire", NIL),
            done(0),
            done(1)
        ]
    ));
    assert!(lin(
        "mutex",
        None,
        &[
            call(0, "acquire", NIL),
            done(0),
            call(1, "acquire", NIL),
            call(0, "release", NIL),
            done(0),
            done(1),
        ]
    ));
    // Releasing a free lock.
    assert!(!lin("mutex", None, &[call(0, "release", NIL), done(0)]));
    assert!(lin(
        "mutex",
        Some(b(true)),
        &[call(0, "release", NIL), done(0)]
    ));
    // An `info` acquire may not have happened, or may have.
    let after_info = |f: &'static str| [call(0, "acquire", NIL), info(0), call(1, f, NIL), done(1)];
    assert!(lin("mutex", None, &after_info("acquire")));
    assert!(lin("mutex", None, &after_info("release")));
    // But not both: the lock is held by p0 or free, so p1 cannot acquire it and then release
    // it twice.
    assert!(!lin(
        "mutex",
        None,
        &[
            call(0, "acquire", NIL),
            info(0),
            call(1, "release", NIL),
            done(1),
            call(1, "release", NIL),
            done(1),
        ]
    ));
    // A failed acquire did not take the lock.
    assert!(!lin(
        "mutex",
        None,
        &[
            call(0, "acquire", NIL),
            fail(0),
            call(1, "release", NIL),
            done(1)
        ]
    ));
    let model = model_by_name("mutex", None).unwrap();
    assert_eq!(model.describe(&b(true)), "held");
    assert!(model
        .validate(&history(&[call(0, "lock", NIL)]).ops[0])
        .unwrap_err()
        .contains("lock"));
}
