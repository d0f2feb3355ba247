//! Deterministic generation of histories, for tests and benchmarks of the checker.
//!
//! Clients run concurrently against one linearizable object. Each operation is invoked, takes
//! effect atomically at some moment between its invocation and its completion (its
//! linearization point), and then completes; the invocations, effects and completions of
//! different clients interleave at random, each client having at most one operation in
//! flight. Outputs are computed with the object's sequential semantics, so a history is
//! linearizable unless anomalies are injected:
//!
//! - `stale_reads`: a read returns a value the object (or, for `kv`, the key) held earlier;
//! - `lost_writes`: a write-like operation (`write`, successful `cas`, `put`, `append`, `add`,
//!   `remove`, `enqueue`) completes `ok` but never changes the state.
//!
//! With `info`, an operation's completion is unknown (`output: None`, `ret: None`); half of
//! those take effect (possibly after the client moved on), the others never do. As in Jepsen,
//! the process of an unknown completion issues nothing further: its client continues as a new
//! process, numbered `process + clients`.
//!
//! Per model ([`SIM_MODELS`]): `register` read/write, `cas-register` read/write/cas (`cas`
//! input `[from to]`; a `cas` whose `from` does not match fails and, as a `fail` would be, is
//! dropped from the history), `kv` get/put/append on keys `0..keys` (`Val::Str` keys `"0"`,
//! `"1"`, ... in `op.key`; strings as values, `append` concatenating, as Porcupine's
//! key-value histories; every value written is `x C N y` for the client `C` and a count `N`),
//! `list-append` get/put/append on keys `0..keys` (`Val::Int`; `put` on even keys, `append` on
//! odd ones, whose values are lists), `set` add/remove/read (read returns a sorted
//! list), `queue` enqueue/dequeue (`nil` from an empty queue), `counter` add/read, `mutex`
//! acquire/release (acquire is issued only by a client that does not hold the mutex and only
//! while it is free; its effect waits until the mutex is free; release only by the holding
//! client, which keeps holding across an `info`: for the mutex, an unknown outcome's effect, if
//! any, happens before it is recorded).
//! Values other than `kv`'s are `Val::Int` in `0..values` (counter increments in `1..=values`).
//!
//! Records are numbered in the order they happen (`invoke`, `ret`, and `line = position + 1`),
//! counting invocations and `ok` completions only; [`to_jsonl`] writes the `info` completions
//! after all other records, where an unknown outcome means the same thing.

use super::parse::{History, Op, Val};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_rng::SplitMix64;
use std::collections::{BTreeSet, VecDeque};

/// The models histories can be generated for.
pub const SIM_MODELS: &[&str] = &[
    "register",
    "cas-register",
    "kv",
    "list-append",
    "set",
    "queue",
    "counter",
    "mutex",
];

/// What to generate.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// One of [`SIM_MODELS`].
    pub model: String,
    pub clients: u32,
    /// Operations invoked in all (a failed `cas` is then dropped from the history).
    pub ops: u32,
    /// Number of keys, for `kv` and `list-append` only.
    pub keys: u32,
    /// Size of the value domain.
    pub values: u32,
    /// Probability that a read returns an older value.
    pub stale_reads: f64,
    /// Probability that a completed write never takes effect.
    pub lost_writes: f64,
    /// Probability that an operation's completion is `info` (unknown).
    pub info: f64,
    pub seed: u64,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            model: "register".to_string(),
            clients: 5,
            ops: 200,
            keys: 8,
            values: 5,
            stale_reads: 0.0,
            lost_writes: 0.0,
            info: 0.0,
            seed: 0,
        }
    }
}

/// A history generated from `config`. Panics on an unknown model name.
pub fn simulate(config: &SimConfig) -> History {
    simulate_with_witness(config).0
}

/// A history generated from `config`, with the ids of the operations that took effect in the
/// order they did. Without injected anomalies, replaying that order through the model accepts
/// every operation and respects real-time order: it proves the history linearizable.
/// Operations missing from it have an unknown outcome and never took effect.
pub fn simulate_with_witness(config: &SimConfig) -> (History, Vec<usize>) {
    let kind = Kind::parse(&config.model)
        .unwrap_or_else(|| panic!("simulate: unknown model `{}`", config.model));
    match Sim::new(config, kind).run(&Budget::unlimited()) {
        Ok(done) => done,
        Err(spent) => unreachable!("an unlimited budget ran out: {spent:?}"),
    }
}

/// [`simulate`] within `budget` (`gen-history --timeout/--memory-limit`): the simulation
/// polls its clock every step and charges the operations and records it keeps; once the
/// budget is spent it stops, with no history.
pub fn simulate_within(config: &SimConfig, budget: &Budget) -> Result<History, Spent> {
    let kind = Kind::parse(&config.model)
        .unwrap_or_else(|| panic!("simulate: unknown model `{}`", config.model));
    Sim::new(config, kind)
        .run(budget)
        .map(|(history, _)| history)
}

/// `history` as JSON Lines (`{"process":0,"type":"invoke","f":"write","value":3}`, with `"key"`
/// when the operation has one): invocations and `ok` completions in position order, so that
/// line numbers are positions + 1, then an `info` completion for every operation whose outcome
/// is unknown (`ret == None`). An unknown outcome is concurrent with everything after its
/// invocation, so placing its `info` last changes nothing.
pub fn to_jsonl(history: &History) -> String {
    let mut records: Vec<(usize, bool, &Op)> = Vec::with_capacity(2 * history.ops.len());
    for op in &history.ops {
        records.push((op.invoke, false, op));
        if let Some(r) = op.ret {
            records.push((r, true, op));
        }
    }
    records.sort_by_key(|&(pos, _, _)| pos);
    let mut out = String::new();
    for (_, ok, op) in records {
        if ok {
            record(&mut out, op, "ok", op.output.as_ref().unwrap_or(&Val::Nil));
        } else {
            record(&mut out, op, "invoke", &op.input);
        }
    }
    for op in history.ops.iter().filter(|op| op.ret.is_none()) {
        record(&mut out, op, "info", &op.input);
    }
    out
}

fn record(out: &mut String, op: &Op, ty: &str, value: &Val) {
    let mut m = serde_json::Map::new();
    m.insert("process".into(), op.process.into());
    m.insert("type".into(), ty.into());
    m.insert("f".into(), op.f.clone().into());
    if let Some(k) = &op.key {
        m.insert("key".into(), json(k));
    }
    m.insert("value".into(), json(value));
    out.push_str(&serde_json::Value::Object(m).to_string());
    out.push('\n');
}

fn json(v: &Val) -> serde_json::Value {
    match v {
        Val::Nil => serde_json::Value::Null,
        Val::Bool(b) => (*b).into(),
        Val::Int(i) => (*i).into(),
        Val::Str(s) => s.clone().into(),
        Val::List(vs) => vs.iter().map(json).collect(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Register,
    CasRegister,
    Kv,
    ListAppend,
    Set,
    Queue,
    Counter,
    Mutex,
}

impl Kind {
    fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "register" => Kind::Register,
            "cas-register" => Kind::CasRegister,
            "kv" => Kind::Kv,
            "list-append" => Kind::ListAppend,
            "set" => Kind::Set,
            "queue" => Kind::Queue,
            "counter" => Kind::Counter,
            "mutex" => Kind::Mutex,
            _ => return None,
        })
    }
}

/// The object's state, in the simulator's own representation.
#[derive(Clone, Debug)]
enum State {
    Register(Val),
    Kv(Vec<Val>),
    Set(BTreeSet<i64>),
    Queue(VecDeque<Val>),
    Counter(i64),
    /// The holding client (not process: a client that lost track of its acquire or release
    /// as `info` still holds the mutex, or not, under its next process).
    Mutex(Option<usize>),
}

impl State {
    fn init(kind: Kind, keys: usize) -> State {
        match kind {
            Kind::Register | Kind::CasRegister => State::Register(Val::Nil),
            Kind::Kv => State::Kv(vec![Val::Str(String::new()); keys]),
            Kind::ListAppend => State::Kv(vec![Val::Nil; keys]),
            Kind::Set => State::Set(BTreeSet::new()),
            Kind::Queue => State::Queue(VecDeque::new()),
            Kind::Counter => State::Counter(0),
            Kind::Mutex => State::Mutex(None),
        }
    }

    /// What a read of `key` returns now (`None` for models without reads).
    fn read_value(&self, key: usize) -> Option<Val> {
        match self {
            State::Register(v) => Some(v.clone()),
            State::Kv(vs) => Some(vs[key].clone()),
            State::Set(s) => Some(set_val(s)),
            State::Counter(n) => Some(Val::Int(*n)),
            State::Queue(_) | State::Mutex(_) => None,
        }
    }
}

fn set_val(s: &BTreeSet<i64>) -> Val {
    Val::List(s.iter().map(|&x| Val::Int(x)).collect())
}

/// `append`: `kv` concatenates strings; `list-append`'s key holds a list (`nil` before the
/// first append; appends go only to odd keys and puts only to even ones, so a list is never
/// overwritten by a single value).
fn kv_append(old: &Val, v: &Val) -> Val {
    if let (Val::Str(old), Val::Str(v)) = (old, v) {
        return Val::Str(format!("{old}{v}"));
    }
    let mut xs = match old {
        Val::List(xs) => xs.clone(),
        _ => Vec::new(),
    };
    xs.push(v.clone());
    Val::List(xs)
}

/// Applies `f(input)` (on `key` for kv, by client `client` for mutex) to `state` with the sequential
/// semantics; returns the output, or `None` for a `cas` that fails. `lost`: a write-like
/// operation returns as usual but leaves the state as it was.
fn apply(
    state: &mut State,
    f: &str,
    key: usize,
    input: &Val,
    client: usize,
    lost: bool,
) -> Option<Val> {
    let before = if lost { Some(state.clone()) } else { None };
    let out = match (&mut *state, f) {
        (State::Register(v), "read") => Some(v.clone()),
        (State::Register(v), "write") => {
            *v = input.clone();
            Some(input.clone())
        }
        (State::Register(v), "cas") => {
            let Val::List(ft) = input else { return None };
            if *v == ft[0] {
                *v = ft[1].clone();
                Some(input.clone())
            } else {
                None
            }
        }
        (State::Kv(vs), "get") => Some(vs[key].clone()),
        (State::Kv(vs), "put") => {
            vs[key] = input.clone();
            Some(input.clone())
        }
        (State::Kv(vs), "append") => {
            vs[key] = kv_append(&vs[key], input);
            Some(input.clone())
        }
        (State::Set(s), "read") => Some(set_val(s)),
        (State::Set(s), "add") => {
            if let Val::Int(x) = input {
                s.insert(*x);
            }
            Some(input.clone())
        }
        (State::Set(s), "remove") => {
            if let Val::Int(x) = input {
                s.remove(x);
            }
            Some(input.clone())
        }
        (State::Queue(q), "enqueue") => {
            q.push_back(input.clone());
            Some(input.clone())
        }
        (State::Queue(q), "dequeue") => Some(q.pop_front().unwrap_or(Val::Nil)),
        (State::Counter(n), "read") => Some(Val::Int(*n)),
        (State::Counter(n), "add") => {
            if let Val::Int(d) = input {
                *n += d;
            }
            Some(input.clone())
        }
        (State::Mutex(h), "acquire") => {
            *h = Some(client);
            Some(Val::Nil)
        }
        (State::Mutex(h), "release") => {
            *h = None;
            Some(Val::Nil)
        }
        (_, f) => panic!("simulate: no function `{f}` here"),
    };
    if let Some(b) = before {
        *state = b;
    }
    out
}

/// An operation being generated, by invocation order.
struct Draft {
    process: i64,
    client: usize,
    f: &'static str,
    key: usize,
    input: Val,
    output: Option<Val>,
    /// Its completion will be `info`.
    info: bool,
    /// It takes effect at some point (every operation but half of the `info` ones).
    takes_effect: bool,
    effect_done: bool,
    /// A failed `cas`: dropped from the history.
    failed: bool,
    completed: bool,
}

#[derive(Clone, Copy)]
enum Rec {
    Invoke(usize),
    Ok(usize),
}

#[derive(Clone, Copy)]
enum Action {
    Invoke(usize),
    Effect(usize),
    Complete(usize),
}

struct Sim<'a> {
    config: &'a SimConfig,
    kind: Kind,
    rng: SplitMix64,
    state: State,
    /// For stale reads: the values reads of each key (one key but for kv) returned over time,
    /// consecutive duplicates removed.
    past: Vec<Vec<Val>>,
    drafts: Vec<Draft>,
    records: Vec<Rec>,
    witness: Vec<usize>,
    /// Per client: its process and its operation in flight.
    clients: Vec<(i64, Option<usize>)>,
    /// Operations with an `info` completion already recorded that will still take effect.
    zombies: Vec<usize>,
    keys: usize,
    values: u64,
    /// Values written so far by `kv` (which makes each one distinct).
    written: u64,
}

impl<'a> Sim<'a> {
    fn new(config: &'a SimConfig, kind: Kind) -> Sim<'a> {
        let keys = if matches!(kind, Kind::Kv | Kind::ListAppend) {
            config.keys.max(1) as usize
        } else {
            1
        };
        let state = State::init(kind, keys);
        let past = (0..keys)
            .map(|k| state.read_value(k).into_iter().collect())
            .collect();
        Sim {
            config,
            kind,
            rng: SplitMix64::new(config.seed),
            state,
            past,
            drafts: Vec::new(),
            records: Vec::new(),
            witness: Vec::new(),
            clients: (0..config.clients).map(|c| (i64::from(c), None)).collect(),
            zombies: Vec::new(),
            keys,
            values: u64::from(config.values.max(1)),
            written: 0,
        }
    }

    fn value(&mut self) -> Val {
        Val::Int(self.rng.below(self.values) as i64)
    }

    /// The operation client `c` issues next, if it can issue one now.
    fn next_op(&mut self, client: usize) -> Option<(&'static str, usize, Val)> {
        let r = self.rng.below(6);
        Some(match self.kind {
            Kind::Register => match r {
                0..=2 => ("read", 0, Val::Nil),
                _ => ("write", 0, self.value()),
            },
            Kind::CasRegister => match r {
                0..=2 => ("read", 0, Val::Nil),
                3 | 4 => ("write", 0, self.value()),
                _ => ("cas", 0, Val::List(vec![self.value(), self.value()])),
            },
            Kind::Kv => {
                let key = self.rng.below(self.keys as u64) as usize;
                self.written += 1;
                let value = Val::Str(format!("x {client} {} y", self.written));
                match r {
                    0..=2 => ("get", key, Val::Nil),
                    3 | 4 => ("append", key, value),
                    _ => ("put", key, value),
                }
            }
            Kind::ListAppend => {
                let key = self.rng.below(self.keys as u64) as usize;
                match r {
                    0..=2 => ("get", key, Val::Nil),
                    _ if key % 2 == 1 => ("append", key, self.value()),
                    _ => ("put", key, self.value()),
                }
            }
            Kind::Set => match r {
                0 | 1 => ("read", 0, Val::Nil),
                2..=4 => ("add", 0, self.value()),
                _ => ("remove", 0, self.value()),
            },
            Kind::Queue => match r {
                0..=2 => ("enqueue", 0, self.value()),
                _ => ("dequeue", 0, Val::Nil),
            },
            Kind::Counter => match r {
                0..=2 => ("read", 0, Val::Nil),
                _ => ("add", 0, Val::Int(1 + self.rng.below(self.values) as i64)),
            },
            Kind::Mutex => match self.state {
                State::Mutex(Some(h)) if h == client => ("release", 0, Val::Nil),
                State::Mutex(None) => ("acquire", 0, Val::Nil),
                _ => return None,
            },
        })
    }

    fn can_issue(&self, client: usize) -> bool {
        match (self.kind, &self.state) {
            (Kind::Mutex, State::Mutex(Some(h))) => *h == client,
            _ => true,
        }
    }

    /// Whether the effect of `d` can happen now (an acquire waits for a free mutex).
    fn effect_enabled(&self, d: usize) -> bool {
        !(self.drafts[d].f == "acquire" && matches!(self.state, State::Mutex(Some(_))))
    }

    fn run(mut self, budget: &Budget) -> Result<(History, Vec<usize>), Spent> {
        let mut issued: u32 = 0;
        let mut actions: Vec<Action> = Vec::new();
        let mut meter = Meter::new(budget);
        let mut account = Account::new(budget);
        loop {
            meter.step()?;
            // What grows: the drafts and records (the history is built from them at the end,
            // about as large again).
            account.hold(
                2 * (self.drafts.capacity() * std::mem::size_of::<Draft>()
                    + self.records.capacity() * std::mem::size_of::<Rec>())
                    as u64,
            )?;
            actions.clear();
            for (c, &(_, flight)) in self.clients.iter().enumerate() {
                match flight {
                    None => {
                        if issued < self.config.ops && self.can_issue(c) {
                            actions.push(Action::Invoke(c));
                        }
                    }
                    Some(d) => {
                        let dr = &self.drafts[d];
                        if dr.takes_effect && !dr.effect_done && self.effect_enabled(d) {
                            actions.push(Action::Effect(d));
                        }
                        // An unknown outcome may be recorded before its effect, which then
                        // happens later or never; not for the mutex, where the client's next
                        // operation depends on whether it holds it.
                        let pending = dr.takes_effect && !dr.effect_done;
                        if dr.effect_done || (dr.info && !(pending && self.kind == Kind::Mutex)) {
                            actions.push(Action::Complete(c));
                        }
                    }
                }
            }
            for &d in &self.zombies {
                if self.effect_enabled(d) {
                    actions.push(Action::Effect(d));
                }
            }
            if actions.is_empty() {
                break;
            }
            match *self.rng.pick(&actions) {
                Action::Invoke(c) => {
                    let process = self.clients[c].0;
                    let Some((f, key, input)) = self.next_op(c) else {
                        continue;
                    };
                    issued += 1;
                    let info = self.rng.chance(self.config.info);
                    let takes_effect = !info || self.rng.below(2) == 0;
                    let d = self.drafts.len();
                    self.drafts.push(Draft {
                        process,
                        client: c,
                        f,
                        key,
                        input,
                        output: None,
                        info,
                        takes_effect,
                        effect_done: false,
                        failed: false,
                        completed: false,
                    });
                    self.records.push(Rec::Invoke(d));
                    self.clients[c].1 = Some(d);
                }
                Action::Effect(d) => self.effect(d),
                Action::Complete(c) => {
                    let (process, Some(d)) = self.clients[c] else {
                        unreachable!()
                    };
                    let dr = &mut self.drafts[d];
                    dr.completed = true;
                    if dr.info {
                        if dr.takes_effect && !dr.effect_done {
                            self.zombies.push(d);
                        }
                        self.clients[c].0 = process + i64::from(self.config.clients);
                    } else if !dr.failed {
                        self.records.push(Rec::Ok(d));
                    }
                    self.clients[c].1 = None;
                }
            }
        }
        Ok(self.finish())
    }

    fn effect(&mut self, d: usize) {
        self.zombies.retain(|&z| z != d);
        let dr = &self.drafts[d];
        let (f, key, client, info) = (dr.f, dr.key, dr.client, dr.info);
        let input = dr.input.clone();
        let is_read = matches!(f, "read" | "get");
        let is_write = matches!(
            f,
            "write" | "cas" | "put" | "append" | "add" | "remove" | "enqueue"
        );
        let lost = is_write && !info && self.rng.chance(self.config.lost_writes);
        let mut out = apply(&mut self.state, f, key, &input, client, lost);
        if is_read && !info && self.rng.chance(self.config.stale_reads) {
            // A value the key held earlier, other than the current one, if there is any.
            let older: Vec<&Val> = self.past[key]
                .iter()
                .filter(|&v| Some(v) != out.as_ref())
                .collect();
            if !older.is_empty() {
                out = Some((*self.rng.pick(&older)).clone());
            }
        }
        // The values reads may return later as stale ones (kept only when they are wanted).
        let now = (self.config.stale_reads > 0.0)
            .then(|| self.state.read_value(key))
            .flatten();
        if let Some(now) = now {
            let past = &mut self.past[key];
            if past.last() != Some(&now) {
                past.push(now);
            }
        }
        let dr = &mut self.drafts[d];
        dr.effect_done = true;
        match out {
            Some(v) => dr.output = (!info).then_some(v),
            // A failed cas: not in the history, and it changed nothing.
            None => dr.failed = !info,
        }
        if !dr.failed {
            self.witness.push(d);
        }
    }

    fn finish(self) -> (History, Vec<usize>) {
        let mut id: Vec<usize> = vec![usize::MAX; self.drafts.len()];
        let mut ops: Vec<Op> = Vec::new();
        for (d, dr) in self.drafts.iter().enumerate() {
            if dr.failed {
                continue;
            }
            id[d] = ops.len();
            ops.push(Op {
                id: ops.len(),
                process: dr.process,
                f: dr.f.to_string(),
                key: match self.kind {
                    Kind::Kv => Some(Val::Str(dr.key.to_string())),
                    Kind::ListAppend => Some(Val::Int(dr.key as i64)),
                    _ => None,
                },
                input: dr.input.clone(),
                output: if dr.info || !dr.completed {
                    None
                } else {
                    dr.output.clone()
                },
                invoke: 0,
                ret: None,
                invoke_line: 0,
                ret_line: None,
                failed: false,
            });
        }
        let mut pos = 0;
        for &r in &self.records {
            let (d, invoke) = match r {
                Rec::Invoke(d) => (d, true),
                Rec::Ok(d) => (d, false),
            };
            if self.drafts[d].failed {
                continue;
            }
            let op = &mut ops[id[d]];
            if invoke {
                op.invoke = pos;
                op.invoke_line = pos as u64 + 1;
            } else {
                op.ret = Some(pos);
                op.ret_line = Some(pos as u64 + 1);
            }
            pos += 1;
        }
        let witness = self.witness.iter().map(|&d| id[d]).collect();
        (
            History {
                ops,
                failed: Vec::new(),
            },
            witness,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, CheckOptions, Verdict};
    use crate::models::model_by_name;
    use hindsight_budget::Budget;
    use std::collections::HashMap;

    fn config(model: &str, seed: u64) -> SimConfig {
        SimConfig {
            model: model.to_string(),
            seed,
            ..SimConfig::default()
        }
    }

    /// Replays `witness` through the model: every operation in it is accepted in order, the
    /// order respects real time, and the operations left out have unknown outcomes. `Err`
    /// says what is wrong.
    fn replay(model_name: &str, h: &History, witness: &[usize]) -> Result<(), String> {
        let model = model_by_name(model_name, None).expect("model");
        let mut at = vec![usize::MAX; h.ops.len()];
        for (i, &id) in witness.iter().enumerate() {
            if at[id] != usize::MAX {
                return Err(format!("op {id} twice in the witness"));
            }
            at[id] = i;
        }
        // Each independent part (a kv key) has its own state.
        let mut part = vec![0; h.ops.len()];
        let parts = model.partition(h);
        for (p, ids) in parts.iter().enumerate() {
            for &id in ids {
                part[id] = p;
            }
        }
        let mut states = vec![model.init(); parts.len()];
        for &id in witness {
            let op = &h.ops[id];
            model.validate(op)?;
            let state = &mut states[part[id]];
            *state = model
                .step(state, op)
                .map(std::borrow::Cow::into_owned)
                .ok_or_else(|| format!("{model_name}: step refuses op {op:?} in {state}"))?;
        }
        for a in &h.ops {
            if at[a.id] == usize::MAX && a.output.is_some() {
                return Err(format!("completed op {} did not take effect", a.id));
            }
            for b in &h.ops {
                if a.precedes(b) && at[b.id] != usize::MAX && at[a.id] > at[b.id] {
                    return Err(format!("witness puts {} before {}", b.id, a.id));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn deterministic() {
        for model in SIM_MODELS {
            let c = SimConfig {
                info: 0.1,
                stale_reads: 0.1,
                lost_writes: 0.1,
                ..config(model, 42)
            };
            assert_eq!(
                simulate_with_witness(&c),
                simulate_with_witness(&c),
                "{model}"
            );
            let other = SimConfig {
                seed: 43,
                ..c.clone()
            };
            assert_ne!(simulate(&c), simulate(&other), "{model}");
        }
    }

    #[test]
    fn histories_are_well_formed() {
        for model in SIM_MODELS {
            for seed in 0..20 {
                let c = SimConfig {
                    info: if seed % 2 == 0 { 0.0 } else { 0.15 },
                    ..config(model, seed)
                };
                let h = simulate(&c);
                let mut positions: Vec<usize> = Vec::new();
                for (i, op) in h.ops.iter().enumerate() {
                    assert_eq!(op.id, i);
                    if i > 0 {
                        assert!(h.ops[i - 1].invoke < op.invoke, "ids follow invocations");
                    }
                    assert_eq!(op.invoke_line, op.invoke as u64 + 1);
                    assert_eq!(op.ret_line, op.ret.map(|r| r as u64 + 1));
                    assert_eq!(op.ret.is_some(), op.output.is_some());
                    assert!(op.ret.is_none_or(|r| r > op.invoke));
                    assert_eq!(op.key.is_some(), matches!(*model, "kv" | "list-append"));
                    positions.push(op.invoke);
                    positions.extend(op.ret);
                }
                positions.sort_unstable();
                assert!(
                    positions.iter().copied().eq(0..positions.len()),
                    "{model} positions"
                );
                // At most one operation in flight per process.
                let mut by_process: HashMap<i64, Vec<&Op>> = HashMap::new();
                for op in &h.ops {
                    by_process.entry(op.process).or_default().push(op);
                }
                for ops in by_process.values() {
                    for w in ops.windows(2) {
                        assert!(w[0].precedes(w[1]), "{model} seed {seed}: overlapping ops");
                    }
                }
                if c.info == 0.0 {
                    let processes = by_process.keys().copied().collect::<BTreeSet<_>>();
                    assert!(processes.iter().all(|&p| (0..5).contains(&p)));
                }
            }
        }
    }

    #[test]
    fn op_counts() {
        for model in SIM_MODELS {
            for (clients, ops) in [(1, 1), (5, 200), (50, 2000), (3, 0)] {
                let c = SimConfig {
                    clients,
                    ops,
                    ..config(model, 7)
                };
                let h = simulate(&c);
                if *model == "cas-register" {
                    // Failed cas operations are dropped.
                    let n = h.ops.len() as u32;
                    assert!(n <= ops && n >= ops * 7 / 10, "{n} of {ops}");
                } else {
                    assert_eq!(h.ops.len() as u32, ops, "{model}");
                }
            }
            let none = SimConfig {
                clients: 0,
                ..config(model, 7)
            };
            assert!(simulate(&none).ops.is_empty());
        }
        let kv = SimConfig {
            keys: 3,
            ..config("kv", 1)
        };
        let keys: BTreeSet<Val> = simulate(&kv)
            .ops
            .iter()
            .filter_map(|o| o.key.clone())
            .collect();
        assert_eq!(keys, (0..3).map(|k| Val::Str(k.to_string())).collect());
    }

    #[test]
    fn witness_proves_anomaly_free_histories_linearizable() {
        for model in SIM_MODELS {
            for seed in 0..30 {
                for info in [0.0, 0.2] {
                    let c = SimConfig {
                        info,
                        clients: 1 + (seed as u32 % 7),
                        ..config(model, seed)
                    };
                    let (h, w) = simulate_with_witness(&c);
                    if let Err(e) = replay(model, &h, &w) {
                        panic!("{model} seed {seed} info {info}: {e}");
                    }
                }
            }
        }
    }

    #[test]
    fn register_histories_have_every_function() {
        let h = simulate(&config("cas-register", 3));
        let fs: BTreeSet<&str> = h.ops.iter().map(|o| o.f.as_str()).collect();
        assert_eq!(fs, BTreeSet::from(["cas", "read", "write"]));
        assert!(h
            .ops
            .iter()
            .filter(|o| o.f == "cas")
            .all(|o| o.output.as_ref() == Some(&o.input)));
    }

    #[test]
    fn info_semantics() {
        for model in SIM_MODELS {
            let c = SimConfig {
                info: 0.2,
                ..config(model, 5)
            };
            let (h, w) = simulate_with_witness(&c);
            let unknown: Vec<&Op> = h.ops.iter().filter(|o| o.ret.is_none()).collect();
            assert!(!unknown.is_empty(), "{model}");
            for op in &unknown {
                assert_eq!((op.output.as_ref(), op.ret_line), (None, None));
                // Its process issues nothing further.
                assert!(
                    !h.ops
                        .iter()
                        .any(|o| o.process == op.process && o.invoke > op.invoke),
                    "{model}: process {} continues after an info",
                    op.process
                );
            }
            {
                // Clients continue as new processes; about a fifth of the operations are info.
                if *model != "cas-register" {
                    assert_eq!(h.ops.len(), 200);
                }
                assert!(
                    (20..=60).contains(&unknown.len()),
                    "{model}: {}",
                    unknown.len()
                );
                assert!(h.ops.iter().any(|o| o.process >= 5));
                // Some unknown outcomes took effect, some did not.
                let took = unknown.iter().filter(|o| w.contains(&o.id)).count();
                assert!(took > 0 && took < unknown.len(), "{model}: {took}");
            }
        }
    }

    #[test]
    fn anomalies_break_the_witness_and_the_checker_finds_them() {
        for (model, stale, lost) in [
            ("register", 0.2, 0.0),
            ("cas-register", 0.0, 0.3),
            ("kv", 0.2, 0.0),
            ("kv", 0.0, 0.3),
            ("list-append", 0.2, 0.0),
            ("set", 0.2, 0.0),
            ("counter", 0.2, 0.0),
            ("counter", 0.0, 0.3),
            ("queue", 0.0, 0.3),
        ] {
            let mut broken = 0;
            let mut found = 0;
            for seed in 0..20 {
                let c = SimConfig {
                    stale_reads: stale,
                    lost_writes: lost,
                    ops: 60,
                    ..config(model, seed)
                };
                let (h, w) = simulate_with_witness(&c);
                if replay(model, &h, &w).is_err() {
                    broken += 1;
                }
                let m = model_by_name(model, None).expect("model");
                let o = check(
                    &h,
                    m.as_ref(),
                    &CheckOptions::default(),
                    &Budget::unlimited(),
                );
                if o.verdict == Verdict::NotLinearizable {
                    found += 1;
                }
            }
            assert!(broken >= 10, "{model} {stale} {lost}: {broken}");
            assert!(found >= 5, "{model} {stale} {lost}: {found}");
        }
    }

    #[test]
    fn checker_accepts_anomaly_free_histories() {
        for model in SIM_MODELS {
            for seed in 0..10 {
                // Unknown outcomes make the search expensive (a queue of 100 operations with
                // 10% of them unknown can take seconds), hence shorter histories with them.
                let c = SimConfig {
                    ops: if seed % 2 == 0 { 100 } else { 40 },
                    info: if seed % 2 == 0 { 0.0 } else { 0.1 },
                    ..config(model, seed)
                };
                let h = simulate(&c);
                let m = model_by_name(model, None).expect("model");
                let o = check(
                    &h,
                    m.as_ref(),
                    &CheckOptions::default(),
                    &Budget::unlimited(),
                );
                assert_eq!(o.verdict, Verdict::Linearizable, "{model} seed {seed}");
            }
        }
    }

    #[test]
    fn jsonl_is_one_object_per_line() {
        for model in SIM_MODELS {
            let c = SimConfig {
                info: 0.1,
                ..config(model, 9)
            };
            let h = simulate(&c);
            let text = to_jsonl(&h);
            assert!(text.ends_with('\n'));
            let lines: Vec<&str> = text.lines().collect();
            let completions = h.ops.len();
            assert_eq!(lines.len(), h.ops.len() + completions);
            for (i, line) in lines.iter().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
                let o = v.as_object().expect("an object");
                assert!(o["process"].is_i64(), "{line}");
                assert!(o["f"].is_string(), "{line}");
                assert!(o.contains_key("value"), "{line}");
                assert_eq!(
                    o.contains_key("key"),
                    matches!(*model, "kv" | "list-append"),
                    "{line}"
                );
                let ty = o["type"].as_str().expect("type");
                // Positions are line numbers; info completions come last.
                match h.ops.iter().find(|op| op.invoke == i || op.ret == Some(i)) {
                    Some(op) if op.invoke == i => {
                        assert_eq!(ty, "invoke");
                        assert_eq!(v["value"], json(&op.input));
                        assert_eq!(o["process"].as_i64(), Some(op.process));
                    }
                    Some(op) => {
                        assert_eq!(ty, "ok");
                        assert_eq!(Some(&v["value"]), op.output.as_ref().map(json).as_ref());
                    }
                    None => assert_eq!(ty, "info"),
                }
            }
        }
        let one = History {
            ops: vec![Op {
                id: 0,
                process: 0,
                f: "write".into(),
                key: None,
                input: Val::Int(3),
                output: Some(Val::Int(3)),
                invoke: 0,
                ret: Some(1),
                invoke_line: 1,
                ret_line: Some(2),
                failed: false,
            }],
            failed: Vec::new(),
        };
        assert_eq!(
            to_jsonl(&one),
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"write\",\"value\":3}\n\
             {\"process\":0,\"type\":\"ok\",\"f\":\"write\",\"value\":3}\n"
        );
    }
}
