//! The checker as it was before issue #24 (commit b75fdba: `crates/history/src/check.rs`),
//! kept verbatim but for its imports so that the bench measures it in the same run.

use super::models::Model;
use hindsight_history::{History, Op, Val};
use rayon::prelude::*;
use rustc_hash::{FxHashSet, FxHasher};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to search.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Give up with [`Verdict::Unknown`] after this long (per call of [`check`]).
    pub timeout: Option<Duration>,
    /// Check independent parts on several threads.
    pub parallel: bool,
    /// Give up with [`Verdict::Unknown`] once a part has memoized this many states.
    pub max_states: usize,
    /// Give up with [`Verdict::Unknown`] once a part's memo is estimated to hold this many
    /// bytes (a memoized state costs about `48 + operations / 8` bytes plus its value), so
    /// that memory stays bounded on long histories.
    pub max_memory: usize,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            timeout: None,
            parallel: true,
            max_states: 20_000_000,
            max_memory: 2 << 30,
        }
    }
}

/// The answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Linearizable,
    NotLinearizable,
    /// The search stopped (timeout or state limit) before deciding.
    Unknown,
}

/// The answer for one independent part of the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionResult {
    /// The operations of this part (ids into the history).
    pub ops: Vec<usize>,
    pub verdict: Verdict,
    /// For a part that is not linearizable: the longest linearizable prefix the search found,
    /// in order (op ids).
    pub prefix: Vec<usize>,
    /// The model state after `prefix`.
    pub state: Option<Val>,
    /// The operations that could come next after `prefix` in real-time order but whose
    /// recorded output the model refuses in `state`.
    pub stuck: Vec<usize>,
    /// States memoized by the search.
    pub explored: u64,
    /// An estimate of the memo's memory, in bytes.
    pub memory: u64,
}

/// The answer for a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub partitions: Vec<PartitionResult>,
}

/// Checks `history` against `model`.
pub fn check(history: &History, model: &dyn Model, options: &CheckOptions) -> Outcome {
    let deadline = options.timeout.map(|t| Instant::now() + t);
    let parts = model.partition(history);
    let run = |ops: &Vec<usize>| {
        let part: Vec<&Op> = ops.iter().map(|&i| &history.ops[i]).collect();
        let per_state = 48 + part.len().div_ceil(64) * 8;
        let limit = options.max_states.min(options.max_memory / per_state);
        let mut r = search(&part, model, deadline, limit);
        r.memory = r.explored * per_state as u64;
        r
    };
    let partitions: Vec<PartitionResult> = if options.parallel && parts.len() > 1 {
        parts.par_iter().map(run).collect()
    } else {
        parts.iter().map(run).collect()
    };
    let verdict = if partitions
        .iter()
        .any(|p| p.verdict == Verdict::NotLinearizable)
    {
        Verdict::NotLinearizable
    } else if partitions.iter().any(|p| p.verdict == Verdict::Unknown) {
        Verdict::Unknown
    } else {
        Verdict::Linearizable
    };
    Outcome {
        verdict,
        partitions,
    }
}

const NONE: usize = usize::MAX;

/// A call or return entry of the list, by local operation index.
#[derive(Clone, Copy)]
struct Entry {
    op: usize,
    call: bool,
    /// For a call, the index of its return entry.
    partner: usize,
    prev: usize,
    next: usize,
}

/// The doubly linked list of entries, with a head sentinel at index `len`.
struct Entries {
    e: Vec<Entry>,
    head: usize,
}

impl Entries {
    fn new(ops: &[&Op]) -> Entries {
        // (time, is return, op): calls before returns at equal time cannot happen (positions
        // are distinct), and unknown outcomes return at infinity.
        let mut times: Vec<(usize, bool, usize)> = Vec::with_capacity(2 * ops.len());
        for (i, op) in ops.iter().enumerate() {
            times.push((op.invoke, false, i));
            times.push((op.ret.unwrap_or(usize::MAX), true, i));
        }
        times.sort_unstable();
        let n = times.len();
        let mut e: Vec<Entry> = times
            .iter()
            .enumerate()
            .map(|(k, &(_, ret, op))| Entry {
                op,
                call: !ret,
                partner: NONE,
                prev: if k == 0 { n } else { k - 1 },
                next: if k + 1 == n { NONE } else { k + 1 },
            })
            .collect();
        let mut ret_of = vec![NONE; ops.len()];
        for (k, x) in e.iter().enumerate() {
            if !x.call {
                ret_of[x.op] = k;
            }
        }
        for x in e.iter_mut() {
            if x.call {
                x.partner = ret_of[x.op];
            }
        }
        e.push(Entry {
            op: NONE,
            call: false,
            partner: NONE,
            prev: NONE,
            next: if n == 0 { NONE } else { 0 },
        });
        Entries { e, head: n }
    }

    fn first(&self) -> usize {
        self.e[self.head].next
    }

    fn unlink(&mut self, k: usize) {
        let Entry { prev, next, .. } = self.e[k];
        self.e[prev].next = next;
        if next != NONE {
            self.e[next].prev = prev;
        }
    }

    fn relink(&mut self, k: usize) {
        let Entry { prev, next, .. } = self.e[k];
        self.e[prev].next = k;
        if next != NONE {
            self.e[next].prev = k;
        }
    }

    /// Removes a call and its return (return first, so that relinking in reverse order
    /// restores the list exactly).
    fn lift(&mut self, call: usize) {
        self.unlink(call);
        self.unlink(self.e[call].partner);
    }

    fn unlift(&mut self, call: usize) {
        self.relink(self.e[call].partner);
        self.relink(call);
    }
}

/// A set of local operation indices.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Bits(Box<[u64]>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)].into_boxed_slice())
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
}

/// A model state as the search keeps it: shared between the memo and the stack rather than
/// copied (a state can be a long list, e.g. a key appended to many times), with its hash
/// computed once, so that memo probes of an unchanged state cost nothing per element.
#[derive(Clone)]
struct State {
    hash: u64,
    val: Arc<Val>,
}

impl State {
    fn new(val: Val) -> State {
        let mut h = FxHasher::default();
        val.hash(&mut h);
        State {
            hash: h.finish(),
            val: Arc::new(val),
        }
    }
}

impl PartialEq for State {
    fn eq(&self, other: &State) -> bool {
        self.hash == other.hash && (Arc::ptr_eq(&self.val, &other.val) || self.val == other.val)
    }
}

impl Eq for State {}

impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.hash);
    }
}

fn search(
    ops: &[&Op],
    model: &dyn Model,
    deadline: Option<Instant>,
    max_states: usize,
) -> PartitionResult {
    let mut list = Entries::new(ops);
    let mut linearized = Bits::new(ops.len());
    let mut cache: FxHashSet<(Bits, State)> = FxHashSet::default();
    let mut stack: Vec<(usize, State)> = Vec::new();
    let mut state = State::new(model.init());
    let mut best: (Vec<usize>, State) = (Vec::new(), state.clone());
    let mut entry = list.first();
    let mut steps: u64 = 0;
    let result = |verdict, best: (Vec<usize>, State), stuck, explored| PartitionResult {
        ops: ops.iter().map(|o| o.id).collect(),
        verdict,
        prefix: best.0,
        state: (verdict == Verdict::NotLinearizable).then(|| Val::clone(&best.1.val)),
        stuck,
        explored,
        memory: 0,
    };
    loop {
        steps += 1;
        if steps % 1024 == 0
            && (deadline.is_some_and(|d| Instant::now() >= d) || cache.len() >= max_states)
        {
            return result(
                Verdict::Unknown,
                (Vec::new(), state),
                Vec::new(),
                cache.len() as u64,
            );
        }
        if entry == NONE {
            // Only possible with an empty list: every operation is linearized.
            return result(
                Verdict::Linearizable,
                (Vec::new(), state),
                Vec::new(),
                cache.len() as u64,
            );
        }
        let Entry { op, call, next, .. } = list.e[entry];
        if call {
            if let Some(next) = model.step(&state.val, ops[op]) {
                let new_state = match next {
                    Cow::Borrowed(_) => state.clone(),
                    Cow::Owned(val) => State::new(val),
                };
                linearized.set(op);
                if cache.insert((linearized.clone(), new_state.clone())) {
                    stack.push((entry, std::mem::replace(&mut state, new_state)));
                    if stack.len() > best.0.len() {
                        best = (
                            stack.iter().map(|&(c, _)| list.e[c].op).collect(),
                            state.clone(),
                        );
                    }
                    list.lift(entry);
                    entry = list.first();
                    continue;
                }
                linearized.clear(op);
            }
            entry = next;
        } else {
            // The earliest pending return: the operations called so far cannot be ordered.
            let Some((call_entry, prev)) = stack.pop() else {
                let stuck = stuck_after(ops, model, &best);
                let best_ids = (best.0.iter().map(|&i| ops[i].id).collect(), best.1);
                return result(
                    Verdict::NotLinearizable,
                    best_ids,
                    stuck,
                    cache.len() as u64,
                );
            };
            linearized.clear(list.e[call_entry].op);
            state = prev;
            list.unlift(call_entry);
            entry = list.e[call_entry].next;
        }
    }
}

/// The operations that could follow `prefix` in real-time order but that the model refuses
/// in the state after it (ids into the history).
fn stuck_after(ops: &[&Op], model: &dyn Model, best: &(Vec<usize>, State)) -> Vec<usize> {
    let mut done = vec![false; ops.len()];
    for &i in &best.0 {
        done[i] = true;
    }
    // An operation can come next iff no remaining operation returned before it was invoked
    // (its own return is after its invocation, so it need not be excluded).
    let first_return = (0..ops.len())
        .filter(|&j| !done[j])
        .filter_map(|j| ops[j].ret)
        .min()
        .unwrap_or(usize::MAX);
    (0..ops.len())
        .filter(|&i| !done[i] && ops[i].invoke < first_return)
        .filter(|&i| model.step(&best.1.val, ops[i]).is_none())
        .map(|i| ops[i].id)
        .collect()
}
