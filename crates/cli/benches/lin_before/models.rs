//! The models as they were before issue #24 (commit b75fdba: `crates/history/src/models.rs`),
//! kept verbatim but for their imports; `register` is what `cas-register` and `etcd` replace
//! and `kv` what `list-append` replaces.

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use hindsight_history::{History, Op, Val};

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

    /// The state for people.
    fn describe(&self, state: &Val) -> String {
        state.to_string()
    }
}

/// A read/write/compare-and-set register: `read` → value, `write(v)`, `cas([from to])`.
pub struct Register {
    pub init: Val,
}

impl Model for Register {
    fn name(&self) -> &'static str {
        "register"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        match op.f.as_str() {
            "read" | "write" => Ok(()),
            "cas" => match &op.input {
                Val::List(v) if v.len() == 2 => Ok(()),
                other => Err(format!("cas takes [from to], got {other}")),
            },
            f => Err(format!(
                "the register model has read, write and cas, not `{f}`"
            )),
        }
    }

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "read" => read(state, op),
            "write" => Some(Cow::Owned(op.input.clone())),
            "cas" => {
                let Val::List(v) = &op.input else { return None };
                let succeeds = &v[0] == state;
                match op.output {
                    // `ok` means it succeeded; `fail`ed ones are not in the history.
                    Some(_) => succeeds.then(|| Cow::Owned(v[1].clone())),
                    None => Some(if succeeds {
                        Cow::Owned(v[1].clone())
                    } else {
                        Cow::Borrowed(state)
                    }),
                }
            }
            _ => None,
        }
    }
}

/// The names `--model` accepts.
pub const MODELS: &[&str] = &["register", "kv", "set", "queue", "counter", "mutex"];

/// The model called `name`, with `init` as its initial value where it has one.
pub fn model_by_name(name: &str, init: Option<Val>) -> Option<Box<dyn Model>> {
    match name {
        "register" => Some(Box::new(Register {
            init: init.unwrap_or(Val::Nil),
        })),
        _ => other_models(name, init),
    }
}

/// The models other than the register: `kv`, `set`, `queue`, `counter` and `mutex`, with
/// `init` as the initial value described on each (a wrong shape is reported by `validate`).
fn other_models(name: &str, init: Option<Val>) -> Option<Box<dyn Model>> {
    Some(match name {
        "kv" => Box::new(Kv {
            init: init.unwrap_or(Val::Nil),
        }),
        "set" => Box::new(Set {
            init: init.unwrap_or(Val::List(Vec::new())),
        }),
        "queue" => Box::new(Queue {
            init: init.unwrap_or(Val::List(Vec::new())),
        }),
        "counter" => Box::new(Counter {
            init: init.unwrap_or(Val::Int(0)),
        }),
        "mutex" => Box::new(Mutex {
            init: init.unwrap_or(Val::Bool(false)),
        }),
        _ => return None,
    })
}

/// Reads and writes of the register model, shared by `kv`.
const REGISTER: Register = Register { init: Val::Nil };

/// `state` if `op` is a read whose recorded output is `state` (or unknown).
fn read<'s>(state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
    match &op.output {
        Some(v) if v != state => None,
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

/// A map from keys to values; every operation names its key (`op.key`, required).
///
/// - `get` (alias `read`): output the key's value, `nil` if it has none.
/// - `put(v)` (alias `write`): the key's value becomes `v`.
/// - `append(v)`: the key's value becomes a list with `v` appended: `[v]` if it had none
///   (`nil`), the list with `v` at its end if it was a list. Appending to any other value is
///   refused: an `ok` one is not linearizable, one with an unknown outcome did not happen.
///   `get` after appends outputs the list of appended values in order.
/// - `cas([from to])`: the key's value becomes `to` if it is `from`; `ok` means it was.
///
/// Keys are independent, so each key is its own part (P-compositionality) and the state is
/// that key's value. `init` is every key's value before any operation (default `nil`).
pub struct Kv {
    pub init: Val,
}

impl Model for Kv {
    fn name(&self) -> &'static str {
        "kv"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if op.key.is_none() {
            return Err(format!(
                "the kv model needs a key on every operation; `{}` has none",
                op.f
            ));
        }
        match op.f.as_str() {
            "get" | "read" | "put" | "write" | "append" => Ok(()),
            "cas" => REGISTER.validate(op),
            f => Err(format!(
                "the kv model has get, put, append and cas (and read and write), not `{f}`"
            )),
        }
    }

    fn partition(&self, history: &History) -> Vec<Vec<usize>> {
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

    fn init(&self) -> Val {
        self.init.clone()
    }

    fn step<'s>(&self, state: &'s Val, op: &Op) -> Option<Cow<'s, Val>> {
        match op.f.as_str() {
            "get" | "read" => read(state, op),
            "put" | "write" => Some(Cow::Owned(op.input.clone())),
            "cas" => REGISTER.step(state, op),
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
}

/// A set of elements. The state is the sorted list of its elements, without repetitions.
///
/// - `add(e)`, `remove(e)`: add or remove `e`; their outputs are not checked.
/// - `read`: output every element once, as a list in any order.
/// - `contains(e)`: output `true` if `e` is in the set, `false` if not.
///
/// `init` is the list of the elements in the set before any operation (default `[]`).
pub struct Set {
    pub init: Val,
}

impl Model for Set {
    fn name(&self) -> &'static str {
        "set"
    }

    fn validate(&self, op: &Op) -> Result<(), String> {
        if !matches!(self.init, Val::List(_)) {
            return Err(format!(
                "the set model's initial value is the list of its elements, not {}",
                self.init
            ));
        }
        match (op.f.as_str(), &op.output) {
            ("add" | "remove", _) | ("read", None | Some(Val::List(_))) => Ok(()),
            ("contains", None | Some(Val::Bool(_))) => Ok(()),
            ("read", Some(v)) => Err(format!("a set's read outputs a list of elements, not {v}")),
            ("contains", Some(v)) => Err(format!("contains outputs true or false, not {v}")),
            (f, _) => Err(format!(
                "the set model has add, remove, read and contains, not `{f}`"
            )),
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

/// A FIFO queue. The state is the list of its elements, head first.
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
        if !matches!(self.init, Val::List(_)) {
            return Err(format!(
                "the queue model's initial value is the list of its elements, not {}",
                self.init
            ));
        }
        match op.f.as_str() {
            "enqueue" | "dequeue" => Ok(()),
            f => Err(format!(
                "the queue model has enqueue and dequeue, not `{f}`"
            )),
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
            (f, _, _) => Err(format!(
                "the counter model has add, increment and read, not `{f}`"
            )),
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
}

/// A lock. The state is `true` while it is held.
///
/// - `acquire`: completes only when the lock is free, which it takes.
/// - `release`: completes only when the lock is held, which it frees.
///
/// Outputs are not checked. An `acquire` or `release` whose outcome is unknown takes effect if
/// it can, and otherwise did not happen. The lock is not tied to a process: any process may
/// release it. `init` is whether the lock is held before any operation (default `false`).
pub struct Mutex {
    pub init: Val,
}

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
            f => Err(format!(
                "the mutex model has acquire and release, not `{f}`"
            )),
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

    fn describe(&self, state: &Val) -> String {
        match state {
            Val::Bool(true) => "held".to_string(),
            Val::Bool(false) => "free".to_string(),
            other => other.to_string(),
        }
    }
}
