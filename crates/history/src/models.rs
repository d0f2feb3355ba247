//! Sequential specifications of the objects histories are checked against, named and defined
//! as the peers define them: Knossos (`jepsen-io/knossos`, `src/knossos/model.clj`: `register`,
//! `cas-register`, `mutex`, `multi-register`, `fifo-queue`, `unordered-queue`, `set`),
//! Porcupine (`anishathalye/porcupine`, `porcupine_test.go`: `kv`, the etcd register `etcd`),
//! Jepsen/Elle's `list-append`, and the models hindsight had before (`queue`, `counter`).
//!
//! A model's state is a [`Val`], so that the checker can memoize (set of linearized
//! operations, state) pairs for any model, including ones library users add: implement
//! [`Model`] and encode the state as a value (a register's value, a set as a sorted list, a
//! queue as a list, ...).
//!
//! One rule holds for every model, as in Jepsen: an operation whose outcome is unknown (`info`,
//! or no completion; `op.output == None`) may take effect at any point after its invocation, or
//! never. Knossos steps such an operation with its invocation's value; where that differs from
//! "whatever the object would have done", the model's documentation says so.

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use super::parse::{History, Op, Val};

/// A sequential specification.
pub trait Model: Send + Sync {
    fn name(&self) -> &'static str;

    /// Whether the model knows this operation (its function and the shape of its values); the
    /// message says what is wrong. Histories are checked before the search starts.
    fn validate(&self, op: &Op) -> Result<(), String>;

    /// Independent parts of the history (P-compositionality): operations in different parts
    /// never constrain each other, so each part is checked on its own. One part by default.
    fn partition(&self, history: &History) -> Vec<Vec<usize>> {
        vec![(0..history.ops.len()).collect()]
    }

    /// The state before any operation.
    fn init(&self) -> Val;

    /// The state after `op` in `state`, if the output recorded for `op` is what the object
    /// returns there; `None` if it is not. An operation whose outcome is unknown
    /// (`op.output == None`) is applied as the object would apply it and always accepted (it
    /// may also never take effect, which the search covers by placing it last).
    ///
    /// An operation that leaves the state as it is returns it borrowed: the checker then
    /// shares it instead of copying and rehashing it (states can be long lists).
    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>>;

    /// Whether `op` leaves every state as it is, wherever it is accepted (a read). The search
    /// linearizes such an operation as soon as the model accepts it and never tries it later:
    /// any linearization that places it later can place it there instead.
    fn read_only(&self, _op: &Op) -> bool {
        false
    }

    /// Whether `op`, recorded as `fail`ed, still constrains the history (Porcupine's etcd
    /// model: a failed `cas` found another value). By default a failed operation did not
    /// happen and is dropped.
    fn keeps_failed(&self, _op: &Op) -> bool {
        false
    }

    /// The functions the model knows, for choosing a model from a history (`--model auto`).
    fn functions(&self) -> &'static [&'static str];

    /// The state for people.
    fn describe(&self, state: &Val) -> String {
        state.to_string()
    }
}

/// The names `--model` accepts (besides `auto`).
pub const MODELS: &[&str] = &[
    "register",
    "cas-register",
    "etcd",
    "kv",
    "list-append",
    "multi-register",
    "set",
    "fifo-queue",
    "unordered-queue",
    "queue",
    "counter",
    "mutex",
];

/// The model called `name`, with `init` as its initial value where it has one (a wrong shape is
/// reported by `validate`).
pub fn model_by_name(name: &str, init: Option<Val>) -> Option<Box<dyn Model>> {
    let or = |default: Val| init.clone().unwrap_or(default);
    Some(match name {
        "register" => Box::new(Register { init: or(Val::Nil) }),
        "cas-register" => Box::new(CasRegister { init: or(Val::Nil) }),
        "etcd" => Box::new(Etcd { init: or(Val::Nil) }),
        "kv" => Box::new(Kv {
            init: or(Val::Str(String::new())),
        }),
        "list-append" => Box::new(ListAppend { init: or(Val::Nil) }),
        "multi-register" => Box::new(MultiRegister { init: or(Val::Nil) }),
        "set" => Box::new(Set {
            init: or(Val::List(Vec::new())),
        }),
        "fifo-queue" => Box::new(FifoQueue {
            init: or(Val::List(Vec::new())),
        }),
        "unordered-queue" => Box::new(UnorderedQueue {
            init: or(Val::List(Vec::new())),
        }),
        "queue" => Box::new(Queue {
            init: or(Val::List(Vec::new())),
        }),
        "counter" => Box::new(Counter {
            init: or(Val::Int(0)),
        }),
        "mutex" => Box::new(Mutex {
            init: or(Val::Bool(false)),
        }),
        _ => return None,
    })
}

/// The model `--model auto` picks for `history`: among the models that accept every operation
/// (functions and the shapes of their values), the one with the fewest functions. `Err` lists
/// the candidates when several remain, or says that none fits.
pub fn choose_model(history: &History, init: Option<&Val>) -> Result<&'static str, String> {
    let mut fits: Vec<(&'static str, usize)> = Vec::new();
    for &name in MODELS {
        let Some(model) = model_by_name(name, init.cloned()) else {
            continue;
        };
        if history
            .ops
            .iter()
            .chain(history.failed.iter().filter(|op| model.keeps_failed(op)))
            .all(|op| model.validate(op).is_ok())
        {
            fits.push((name, model.functions().len()));
        }
    }
    let mut functions: Vec<&str> = history.ops.iter().map(|op| op.f.as_str()).collect();
    functions.sort_unstable();
    functions.dedup();
    let Some(fewest) = fits.iter().map(|&(_, n)| n).min() else {
        return Err(format!(
            "no model fits every operation of the history (functions: {}); choose one with \
             --model and it will say which operation it refuses",
            functions.join(", ")
        ));
    };
    let best: Vec<&str> = fits
        .iter()
        .filter(|&&(_, n)| n == fewest)
        .map(|&(name, _)| name)
        .collect();
    match best[..] {
        [one] => Ok(one),
        _ => Err(format!(
            "the history's operations ({}) fit several models: {}; choose one with --model",
            functions.join(", "),
            best.join(", ")
        )),
    }
}

// --- Helpers ---------------------------------------------------------------------------------

/// `state` if `op` is a read whose recorded output is `state` (or unknown).
fn read<'s>(state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
    match &op.output {
        Some(v) if v != state => None,
        _ => Some(Cow::Borrowed(state)),
    }
}

/// Knossos' read: a read of `nil` "does not know what it read" and fits every state.
fn knossos_read<'s>(state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
    match &op.output {
        Some(v) if *v != Val::Nil && v != state => None,
        _ => Some(Cow::Borrowed(state)),
    }
}

/// `list` with `v` at its end, allocated once at its final size.
fn appended(list: &[Val], v: &Val) -> Vec<Val> {
    let mut out = Vec::with_capacity(list.len() + 1);
    out.extend_from_slice(list);
    out.push(v.clone());
    out
}

/// The result of an operation that the object performs only in some states (`next` is `None`
/// in the others, where a real object refuses it and the client records a failure): a
/// completed operation must have been performed; one with an unknown outcome may not have
/// happened, and leaves the state as it is.
fn conditional<'s>(state: &'s Val, op: &Op, next: Option<Val>) -> Option<Cow<'s, Val>> {
    match (next, &op.output) {
        (Some(next), _) => Some(Cow::Owned(next)),
        (None, Some(_)) => None,
        (None, None) => Some(Cow::Borrowed(state)),
    }
}

fn unknown_function(model: &str, functions: &[&str], f: &str) -> String {
    format!(
        "the {model} model has {}, not `{f}`",
        functions
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `[from to]`, the value of a compare-and-set.
fn cas_pair(v: &Val) -> Result<(&Val, &Val), String> {
    match v {
        Val::List(v) if v.len() == 2 => Ok((&v[0], &v[1])),
        other => Err(format!("cas takes a pair [from to], got {other}")),
    }
}

/// Operations are grouped by `op.key` (one part per key, in order of first appearance).
fn partition_by_key(history: &History) -> Vec<Vec<usize>> {
    let mut index: FxHashMap<Option<&Val>, usize> = FxHashMap::default();
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for (i, op) in history.ops.iter().enumerate() {
        let part = *index.entry(op.key.as_ref()).or_insert_with(|| {
            parts.push(Vec::new());
            parts.len() - 1
        });
        parts[part].push(i);
    }
    parts
}

fn needs_key(model: &str, op: &Op) -> Result<(), String> {
    match op.key {
        Some(_) => Ok(()),
        None => Err(format!(
            "the {model} model needs a key on every operation; `{}` has none",
            op.f
        )),
    }
}

fn needs_list(model: &str, what: &str, init: &Val) -> Result<(), String> {
    match init {
        Val::List(_) => Ok(()),
        other => Err(format!(
            "the {model} model's initial value is the list of its {what}, not {other}"
        )),
    }
}

// --- Registers -------------------------------------------------------------------------------

/// Knossos' `register`: `write(v)` makes the value `v`; `read` outputs it. A read that outputs
/// `nil` fits every state (Knossos: "we don't know what the read was"), so a register whose
/// initial value is `nil` cannot be caught returning it late. Initial value `nil` (`--init`).
pub struct Register {
    pub init: Val,
}

const REGISTER_FS: &[&str] = &["read", "write"];

impl Model for Register {
    fn name(&self) -> &'static str {
        "register"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        match op.f.as_str() {
            "read" | "write" => Ok(()),
            f => Err(unknown_function("register", REGISTER_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "read" => knossos_read(state, op),
            "write" => Some(Cow::Owned(op.input.clone())),
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        op.f == "read"
    }

    fn functions(&self) -> &'static [&'static str] {
        REGISTER_FS
    }
}

/// Knossos' `cas-register`: `register` plus `cas([from to])`, which makes the value `to` if it
/// is `from`. A completed `cas` must have found `from`; a `fail`ed one did not happen; one with
/// an unknown outcome takes effect only where it finds `from` (as Knossos, which steps it with
/// its invocation's value). Reads of `nil` fit every state. Initial value `nil` (`--init`).
pub struct CasRegister {
    pub init: Val,
}

const CAS_REGISTER_FS: &[&str] = &["read", "write", "cas"];

impl Model for CasRegister {
    fn name(&self) -> &'static str {
        "cas-register"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        match op.f.as_str() {
            "read" | "write" => Ok(()),
            "cas" => cas_pair(&op.input).map(|_| ()),
            f => Err(unknown_function("cas-register", CAS_REGISTER_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "read" => knossos_read(state, op),
            "write" => Some(Cow::Owned(op.input.clone())),
            "cas" => {
                let (from, to) = cas_pair(&op.input).ok()?;
                conditional(state, op, (from == state).then(|| to.clone()))
            }
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        op.f == "read"
    }

    fn functions(&self) -> &'static [&'static str] {
        CAS_REGISTER_FS
    }
}

/// Porcupine's etcd register (`etcdModel` of `porcupine_test.go`), for Jepsen's etcd logs:
/// `read` outputs the value, `nil` when the key does not exist (the initial state; `nil` is
/// checked like any value); `write(v)`; `cas([from to])` sets `to` and succeeds if the value is
/// `from`. Unlike Jepsen's reading, a `fail`ed `cas` is kept: it must have found another value
/// than `from`, and changed nothing. A read whose outcome is unknown (`info`, or `fail` with
/// `:timed-out`, which Jepsen drops) fits every state. Initial value `nil` (`--init`).
pub struct Etcd {
    pub init: Val,
}

impl Model for Etcd {
    fn name(&self) -> &'static str {
        "etcd"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        CasRegister { init: Val::Nil }
            .validate(op)
            .map_err(|m| m.replace("cas-register", "etcd"))
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "read" => read(state, op),
            "write" => Some(Cow::Owned(op.input.clone())),
            "cas" => {
                let (from, to) = cas_pair(&op.input).ok()?;
                let found = from == state;
                if op.failed {
                    return (!found).then_some(Cow::Borrowed(state));
                }
                conditional(state, op, found.then(|| to.clone()))
            }
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        op.f == "read" || (op.f == "cas" && op.failed)
    }

    fn keeps_failed(&self, op: &Op) -> bool {
        op.f == "cas"
    }

    fn functions(&self) -> &'static [&'static str] {
        CAS_REGISTER_FS
    }
}

// --- Keyed models ----------------------------------------------------------------------------

/// Porcupine's key-value store (`kvModel` of `porcupine_test.go`, the model of its
/// `test_data/kv` histories): every key holds a string, `""` until written. `put(v)` makes it
/// `v`, `append(v)` concatenates `v` to it, `get` outputs it; what `put` and `append` output is
/// not checked. Every operation names its key (`op.key`), and keys are independent parts.
/// `--init` sets every key's initial string.
pub struct Kv {
    pub init: Val,
}

const KV_FS: &[&str] = &["get", "put", "append"];

impl Model for Kv {
    fn name(&self) -> &'static str {
        "kv"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if !matches!(self.init, Val::Str(_)) {
            return Err(format!(
                "the kv model's keys hold strings, so its initial value is a string, not {}",
                self.init
            ));
        }
        needs_key("kv", op)?;
        match (op.f.as_str(), &op.input, &op.output) {
            ("get", _, None | Some(Val::Str(_))) => Ok(()),
            ("get", _, Some(v)) => Err(format!("a kv get outputs a string, not {v}")),
            ("put" | "append", Val::Str(_), _) => Ok(()),
            ("put" | "append", v, _) => Err(format!("a kv {} takes a string, not {v}", op.f)),
            (f, _, _) => Err(unknown_function("kv", KV_FS, f)),
        }
    }

    fn partition(&self, history: &History) -> Vec<Vec<usize>> {
        partition_by_key(history)
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "get" => read(state, op),
            "put" => Some(Cow::Owned(op.input.clone())),
            "append" => {
                let (Val::Str(s), Val::Str(v)) = (state, &op.input) else {
                    return None;
                };
                let mut out = String::with_capacity(s.len() + v.len());
                out.push_str(s);
                out.push_str(v);
                Some(Cow::Owned(Val::Str(out)))
            }
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        op.f == "get"
    }

    fn functions(&self) -> &'static [&'static str] {
        KV_FS
    }
}

/// Keys holding lists, as Jepsen/Elle's list-append workload (and hindsight's `kv` before it
/// took Porcupine's meaning). Every operation names its key (`op.key`); keys are independent.
///
/// - `get` (alias `read`): output the key's value, `nil` if it has none.
/// - `put(v)` (alias `write`): the key's value becomes `v`.
/// - `append(v)`: the key's value becomes a list with `v` appended: `[v]` if it had none
///   (`nil`), the list with `v` at its end if it was a list. Appending to any other value is
///   refused: an `ok` one is not linearizable, one with an unknown outcome did not happen.
/// - `cas([from to])`: the key's value becomes `to` if it is `from`; `ok` means it was.
///
/// `init` is every key's value before any operation (default `nil`).
pub struct ListAppend {
    pub init: Val,
}

const LIST_APPEND_FS: &[&str] = &["get", "put", "append", "cas", "read", "write"];

impl Model for ListAppend {
    fn name(&self) -> &'static str {
        "list-append"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        needs_key("list-append", op)?;
        match (op.f.as_str(), &op.output) {
            ("get" | "read" | "put" | "write" | "append", _) => Ok(()),
            ("cas", _) => cas_pair(&op.input).map(|_| ()),
            (f, _) => Err(unknown_function("list-append", LIST_APPEND_FS, f)),
        }
    }

    fn partition(&self, history: &History) -> Vec<Vec<usize>> {
        partition_by_key(history)
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "get" | "read" => read(state, op),
            "put" | "write" => Some(Cow::Owned(op.input.clone())),
            "cas" => {
                let (from, to) = cas_pair(&op.input).ok()?;
                conditional(state, op, (from == state).then(|| to.clone()))
            }
            "append" => {
                let next = match state {
                    Val::Nil => Some(Val::List(vec![op.input.clone()])),
                    Val::List(vs) => Some(Val::List(appended(vs, &op.input))),
                    _ => None,
                };
                conditional(state, op, next)
            }
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        matches!(op.f.as_str(), "get" | "read")
    }

    fn functions(&self) -> &'static [&'static str] {
        LIST_APPEND_FS
    }
}

/// Knossos' `multi-register`: registers named by keys, read and written by transactions. The
/// one function is `txn`, whose value is a list of micro-operations `[f k v]`, `f` being `read`
/// or `write`: a `write` sets key `k` to `v`; a `read` of `v` must find `v` at `k`, except
/// that a read of `nil` fits anything. A completed transaction is checked with its completion's
/// value (where the reads are filled in), one with an unknown outcome with its invocation's.
/// Every key starts `nil` (`--init` sets another value for all). The state is the list of
/// `[k v]` pairs of the keys written, sorted by key.
pub struct MultiRegister {
    pub init: Val,
}

const MULTI_REGISTER_FS: &[&str] = &["txn"];

impl MultiRegister {
    fn micro_ops(op: &Op) -> Result<Vec<(&str, &Val, &Val)>, String> {
        let value = op.output.as_ref().unwrap_or(&op.input);
        let Val::List(micro) = value else {
            return Err(format!(
                "a txn's value is a list of [f k v] micro-operations, not {value}"
            ));
        };
        micro
            .iter()
            .map(|m| match m {
                Val::List(fkv) if fkv.len() == 3 => match &fkv[0] {
                    Val::Str(f) if f == "read" || f == "write" => {
                        Ok((f.as_str(), &fkv[1], &fkv[2]))
                    }
                    f => Err(format!("a txn's micro-operation is read or write, not {f}")),
                },
                other => Err(format!(
                    "a txn's micro-operation is a triple [f k v], not {other}"
                )),
            })
            .collect()
    }
}

impl Model for MultiRegister {
    fn name(&self) -> &'static str {
        "multi-register"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if op.f != "txn" {
            return Err(unknown_function("multi-register", MULTI_REGISTER_FS, &op.f));
        }
        Self::micro_ops(op)?;
        if op.output.is_some() {
            // The invocation's micro-operations must be well formed too.
            let invocation = Op {
                output: None,
                ..op.clone()
            };
            Self::micro_ops(&invocation)?;
        }
        Ok(())
    }

    fn init(&self) -> Val {
        Val::List(Vec::new())
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::List(pairs) = state else { return None };
        let micro = Self::micro_ops(op).ok()?;
        let find = |pairs: &[Val], k: &Val| {
            pairs.binary_search_by(|p| match p {
                Val::List(kv) => kv[0].cmp(k),
                _ => std::cmp::Ordering::Less,
            })
        };
        let mut next: Option<Vec<Val>> = None;
        for (f, k, v) in micro {
            let current = next.as_deref().unwrap_or(pairs);
            let at = find(current, k);
            if f == "read" {
                let held = match at {
                    Ok(i) => match &current[i] {
                        Val::List(kv) => &kv[1],
                        _ => return None,
                    },
                    Err(_) => &self.init,
                };
                if *v != Val::Nil && v != held {
                    // One whose outcome is unknown did not happen here, rather than never.
                    return op.output.is_none().then_some(Cow::Borrowed(state));
                }
                continue;
            }
            let pairs = next.get_or_insert_with(|| pairs.clone());
            let pair = Val::List(vec![k.clone(), v.clone()]);
            match at {
                Ok(i) => pairs[i] = pair,
                Err(i) => pairs.insert(i, pair),
            }
        }
        Some(match next {
            Some(pairs) => Cow::Owned(Val::List(pairs)),
            None => Cow::Borrowed(state),
        })
    }

    fn read_only(&self, op: &Op) -> bool {
        // Checked on the invocation too, which a completion could contradict.
        let reads = |v: &Val| match v {
            Val::List(micro) => micro.iter().all(
                |m| matches!(m, Val::List(fkv) if fkv.first() == Some(&Val::Str("read".into()))),
            ),
            _ => false,
        };
        reads(&op.input) && op.output.as_ref().is_none_or(reads)
    }

    fn functions(&self) -> &'static [&'static str] {
        MULTI_REGISTER_FS
    }
}

// --- Collections -----------------------------------------------------------------------------

/// Knossos' `set`: `add(e)` adds `e`; `read` outputs the whole set, which must be exactly the
/// set's elements (as Knossos compares sets: each once, in any order). hindsight adds
/// `remove(e)` and `contains(e)` (`true` or `false`). The state is the sorted list of the
/// elements. `init` is the list of the elements before any operation (default `[]`).
pub struct Set {
    pub init: Val,
}

const SET_FS: &[&str] = &["add", "read", "remove", "contains"];

impl Model for Set {
    fn name(&self) -> &'static str {
        "set"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        needs_list("set", "elements", &self.init)?;
        match (op.f.as_str(), &op.output) {
            ("add" | "remove", _) | ("read", None | Some(Val::List(_))) => Ok(()),
            ("contains", None | Some(Val::Bool(_))) => Ok(()),
            ("read", Some(v)) => Err(format!("a set's read outputs a list of elements, not {v}")),
            ("contains", Some(v)) => Err(format!("contains outputs true or false, not {v}")),
            (f, _) => Err(unknown_function("set", SET_FS, f)),
        }
    }

    fn init(&self) -> Val {
        match &self.init {
            Val::List(vs) => {
                let mut vs = vs.clone();
                vs.sort();
                vs.dedup();
                Val::List(vs)
            }
            other => other.clone(),
        }
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::List(elements) = state else {
            return None;
        };
        let at = elements.binary_search(&op.input);
        match op.f.as_str() {
            "add" => Some(match at {
                Ok(_) => Cow::Borrowed(state),
                Err(i) => {
                    let mut elements = elements.clone();
                    elements.insert(i, op.input.clone());
                    Cow::Owned(Val::List(elements))
                }
            }),
            "remove" => Some(match at {
                Ok(i) => {
                    let mut elements = elements.clone();
                    elements.remove(i);
                    Cow::Owned(Val::List(elements))
                }
                Err(_) => Cow::Borrowed(state),
            }),
            "read" => match &op.output {
                None => Some(Cow::Borrowed(state)),
                Some(Val::List(read)) => {
                    let mut read = read.clone();
                    read.sort();
                    (&read == elements).then_some(Cow::Borrowed(state))
                }
                Some(_) => None,
            },
            "contains" => match &op.output {
                None => Some(Cow::Borrowed(state)),
                Some(v) => (*v == Val::Bool(at.is_ok())).then_some(Cow::Borrowed(state)),
            },
            _ => None,
        }
    }

    fn read_only(&self, op: &Op) -> bool {
        matches!(op.f.as_str(), "read" | "contains")
    }

    fn functions(&self) -> &'static [&'static str] {
        SET_FS
    }

    fn describe(&self, state: &Val) -> String {
        match state {
            Val::List(vs) => {
                let elements: Vec<String> = vs.iter().map(Val::to_string).collect();
                format!("#{{{}}}", elements.join(" "))
            }
            other => other.to_string(),
        }
    }
}

const QUEUE_FS: &[&str] = &["enqueue", "dequeue"];

/// Knossos' `fifo-queue`: `enqueue(v)` joins the tail; `dequeue` outputs the head, which
/// leaves. A dequeue from an empty queue is refused whatever it output (Knossos: "can't dequeue
/// from empty queue"; Jepsen records those as `fail`). A dequeue whose outcome is unknown
/// removes the head if there is one (Knossos steps it with its invocation's value, `nil`, which
/// matches no head, so there it never takes effect). The state is the list of elements, head
/// first; `init` that list before any operation (default `[]`).
pub struct FifoQueue {
    pub init: Val,
}

impl Model for FifoQueue {
    fn name(&self) -> &'static str {
        "fifo-queue"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        needs_list("fifo-queue", "elements", &self.init)?;
        match op.f.as_str() {
            "enqueue" | "dequeue" => Ok(()),
            f => Err(unknown_function("fifo-queue", QUEUE_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::List(elements) = state else {
            return None;
        };
        match op.f.as_str() {
            "enqueue" => Some(Cow::Owned(Val::List(appended(elements, &op.input)))),
            "dequeue" => {
                let next = match (elements.first(), &op.output) {
                    (Some(head), Some(v)) if head != v => None,
                    (Some(_), _) => Some(Val::List(elements[1..].to_vec())),
                    (None, _) => None,
                };
                conditional(state, op, next)
            }
            _ => None,
        }
    }

    fn functions(&self) -> &'static [&'static str] {
        QUEUE_FS
    }
}

/// Knossos' `unordered-queue`: a multiset. `enqueue(v)` adds `v`; `dequeue` outputs some
/// element, which leaves; an output not in the queue is refused (an empty queue included). As
/// in Knossos, a dequeue whose outcome is unknown is stepped with its invocation's value, so it
/// takes effect only if that value is in the queue (a `nil` invocation: never). The state is
/// the sorted list of elements, repeated as often as they are queued; `init` the elements
/// queued before any operation (default `[]`).
pub struct UnorderedQueue {
    pub init: Val,
}

impl Model for UnorderedQueue {
    fn name(&self) -> &'static str {
        "unordered-queue"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        needs_list("unordered-queue", "elements", &self.init)?;
        match op.f.as_str() {
            "enqueue" | "dequeue" => Ok(()),
            f => Err(unknown_function("unordered-queue", QUEUE_FS, f)),
        }
    }

    fn init(&self) -> Val {
        match &self.init {
            Val::List(vs) => {
                let mut vs = vs.clone();
                vs.sort();
                Val::List(vs)
            }
            other => other.clone(),
        }
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::List(elements) = state else {
            return None;
        };
        match op.f.as_str() {
            "enqueue" => {
                let i = elements.binary_search(&op.input).unwrap_or_else(|i| i);
                let mut elements = elements.clone();
                elements.insert(i, op.input.clone());
                Some(Cow::Owned(Val::List(elements)))
            }
            "dequeue" => {
                let v = op.output.as_ref().unwrap_or(&op.input);
                let next = elements.binary_search(v).ok().map(|i| {
                    let mut elements = elements.clone();
                    elements.remove(i);
                    Val::List(elements)
                });
                conditional(state, op, next)
            }
            _ => None,
        }
    }

    fn functions(&self) -> &'static [&'static str] {
        QUEUE_FS
    }
}

/// hindsight's `queue` (before Knossos' names): a FIFO queue like `fifo-queue`, except that a
/// dequeue from an empty queue outputs `nil` instead of being refused.
///
/// - `enqueue(v)`: `v` joins the tail.
/// - `dequeue`: output the head, which leaves; `nil` when the queue is empty.
///
/// `init` is the list of the elements queued before any operation, head first (default `[]`).
pub struct Queue {
    pub init: Val,
}

impl Model for Queue {
    fn name(&self) -> &'static str {
        "queue"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        needs_list("queue", "elements", &self.init)?;
        match op.f.as_str() {
            "enqueue" | "dequeue" => Ok(()),
            f => Err(unknown_function("queue", QUEUE_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::List(elements) = state else {
            return None;
        };
        match op.f.as_str() {
            "enqueue" => Some(Cow::Owned(Val::List(appended(elements, &op.input)))),
            "dequeue" => match (elements.first(), &op.output) {
                (None, None | Some(Val::Nil)) => Some(Cow::Borrowed(state)),
                (None, Some(_)) => None,
                (Some(head), Some(v)) if head != v => None,
                (Some(_), _) => Some(Cow::Owned(Val::List(elements[1..].to_vec()))),
            },
            _ => None,
        }
    }

    fn functions(&self) -> &'static [&'static str] {
        QUEUE_FS
    }
}

/// A counter of integers.
///
/// - `add(d)`: add the integer `d` (which may be negative); `increment` adds 1, its input is
///   ignored. An addition that overflows 64 bits is refused (`ok` is not linearizable, one with
///   an unknown outcome did not happen).
/// - `read`: output the count, an integer.
///
/// `init` is the count before any operation, an integer (default 0).
pub struct Counter {
    pub init: Val,
}

const COUNTER_FS: &[&str] = &["add", "increment", "read"];

impl Model for Counter {
    fn name(&self) -> &'static str {
        "counter"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if !matches!(self.init, Val::Int(_)) {
            return Err(format!(
                "the counter model's initial value is an integer, not {}",
                self.init
            ));
        }
        match (op.f.as_str(), &op.input, &op.output) {
            ("add", Val::Int(_), _) | ("increment", _, _) => Ok(()),
            ("read", _, None | Some(Val::Int(_))) => Ok(()),
            ("add", v, _) => Err(format!("a counter's add takes an integer, not {v}")),
            ("read", _, Some(v)) => Err(format!("a counter's read outputs an integer, not {v}")),
            (f, _, _) => Err(unknown_function("counter", COUNTER_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::Int(count) = *state else { return None };
        let delta = match (op.f.as_str(), &op.input) {
            ("add", Val::Int(d)) => *d,
            ("increment", _) => 1,
            ("read", _) => return read(state, op),
            _ => return None,
        };
        conditional(state, op, count.checked_add(delta).map(Val::Int))
    }

    fn read_only(&self, op: &Op) -> bool {
        op.f == "read"
    }

    fn functions(&self) -> &'static [&'static str] {
        COUNTER_FS
    }
}

/// Knossos' `mutex`: `acquire` completes only when the lock is free, which it takes; `release`
/// only when it is held, which it frees. Outputs are not checked. An `acquire` or `release`
/// whose outcome is unknown takes effect if it can, and otherwise did not happen. The lock is
/// not tied to a process: any process may release it. `init` is whether the lock is held
/// before any operation (default `false`, as Knossos).
pub struct Mutex {
    pub init: Val,
}

const MUTEX_FS: &[&str] = &["acquire", "release"];

impl Model for Mutex {
    fn name(&self) -> &'static str {
        "mutex"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if !matches!(self.init, Val::Bool(_)) {
            return Err(format!(
                "the mutex model's initial value is whether it is held, true or false, not {}",
                self.init
            ));
        }
        match op.f.as_str() {
            "acquire" | "release" => Ok(()),
            f => Err(unknown_function("mutex", MUTEX_FS, f)),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        let Val::Bool(held) = *state else { return None };
        let wants = match op.f.as_str() {
            "acquire" => false,
            "release" => true,
            _ => return None,
        };
        conditional(state, op, (held == wants).then_some(Val::Bool(!held)))
    }

    fn functions(&self) -> &'static [&'static str] {
        MUTEX_FS
    }

    fn describe(&self, state: &Val) -> String {
        match state {
            Val::Bool(true) => "held".to_string(),
            Val::Bool(false) => "free".to_string(),
            other => other.to_string(),
        }
    }
}
