//! The checker: the Wing & Gong / Lowe (WGL) search over the history with a cache of
//! (set of linearized operations, state), as Porcupine does it, on each independent part of
//! the history (P-compositionality), in parallel.
//!
//! The history becomes a list of call and return entries in real-time order. The search walks
//! it: at a call it tries to linearize that operation next (the model accepts its output in the
//! current state, and the pair (linearized set, new state) has not been explored before), lifts
//! its two entries out of the list and starts again from the front; at a return entry of an
//! operation not yet linearized it is stuck and backtracks. Operations with an unknown outcome
//! return at infinity, so they may be linearized anywhere after their invocation, last of all
//! (where their effect is invisible, which covers "never took effect").
//!
//! What makes long histories tractable:
//!
//! - states are interned to small ids, and each (state, operation) transition is computed by
//!   the model once; the cache holds (bitset, state id) pairs, found by a hash of the bitset
//!   kept up to date by XOR as operations are linearized and undone (Zobrist hashing), so that
//!   a probe costs no walk over the bitset unless the hashes agree;
//! - operations that never change the state ([`Model::read_only`]) are linearized as soon as
//!   the model accepts them, before any other candidate, and never tried later: a linearization
//!   that places such an operation later can place it there instead (it changes nothing, and
//!   what had to come before it already has). If what follows fails, so does the point where it
//!   was placed, and the search backtracks past it at once.

use super::models::Model;
use super::parse::{History, Op, Val};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_rng::SplitMix64;
use rustc_hash::{FxHashMap, FxHasher};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// How to search. Time and memory are the [`Budget`]'s, which all parts share: the memory
/// limit is one total across the parts that run in parallel, not one per part.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Check independent parts on several threads.
    pub parallel: bool,
    /// Give up with [`Verdict::Unknown`] once a part has memoized this many states.
    pub max_states: usize,
    /// Check every part even once one is not linearizable (which decides the history): by
    /// default the parts not yet checked then are [`Verdict::NotChecked`], and those being
    /// checked stop.
    pub all_parts: bool,
    /// Steps of each part's first turn of search when there are several parts (see
    /// [`check`]); each turn of a part doubles it. Any value gives the same verdicts: tests
    /// make it 1, so that every search pauses and resumes many times.
    pub first_slice: u64,
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            parallel: true,
            max_states: 20_000_000,
            all_parts: false,
            first_slice: FIRST_SLICE,
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
    /// A part not checked, or not to the end: another part had decided the history (it is
    /// not linearizable). Never the verdict of a whole history.
    NotChecked,
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
    /// Why the search of an unknown part stopped: a limit of the budget (`None`: its own
    /// state limit, [`CheckOptions::max_states`]).
    pub spent: Option<Spent>,
}

impl PartitionResult {
    /// A part left unchecked (see [`Verdict::NotChecked`]).
    fn not_checked(ops: Vec<usize>) -> PartitionResult {
        PartitionResult {
            ops,
            verdict: Verdict::NotChecked,
            prefix: Vec::new(),
            state: None,
            stuck: Vec::new(),
            explored: 0,
            memory: 0,
            spent: None,
        }
    }
}

/// The answer for a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub partitions: Vec<PartitionResult>,
}

/// Checks `history` against `model` within `budget`, whose meters count the states memoized
/// and the parts decided.
///
/// The parts take turns, as goroutines share a core in Porcupine: a part not yet decided
/// searches for a slice of steps, then pauses (keeping its cache and its path) and goes to
/// the back of a queue; each of its turns is twice as long as its last. So a part that
/// decides the history quickly is never stuck behind a part whose search is long
/// (Porcupine's `c50-bad` has keys that neither checker decides in minutes, beside keys that
/// fail in milliseconds), and no part does more than twice the work it needs before the
/// history is decided. The calling thread takes the turns alone until a part needs a
/// second: a history whose parts are all decided in their first turns (most recorded ones)
/// never waits for a thread to start; then one worker a core takes turns from the queue, the
/// calling thread among them, with no round to wait for the slowest turn of. A paused part
/// keeps its cache, still charged to the budget.
pub fn check<'a>(
    history: &'a History,
    model: &'a dyn Model,
    options: &CheckOptions,
    budget: &'a Budget,
) -> Outcome {
    if history.ops.is_empty() {
        // Nothing to order, so nothing to partition or schedule: one empty part, linearizable
        // (an empty log is a history Porcupine's tests check too, in microseconds).
        budget.add_total(1);
        budget.add_done(1);
        return Outcome {
            verdict: Verdict::Linearizable,
            partitions: vec![PartitionResult {
                verdict: Verdict::Linearizable,
                ..PartitionResult::not_checked(Vec::new())
            }],
        };
    }
    let parts = model.partition(history);
    budget.add_total(parts.len() as u64);
    // Set once a part is not linearizable: the history is decided.
    let decided = AtomicBool::new(false);
    let stop = (!options.all_parts).then_some(&decided);
    let runs: Vec<PartRun<'a>> = parts
        .into_iter()
        .map(|ops| PartRun {
            ops,
            search: None,
            result: None,
        })
        .collect();
    // One part has nothing to share its thread with: no slices.
    let slice = if runs.len() == 1 {
        u64::MAX
    } else {
        options.first_slice.max(1)
    };
    let queue: Mutex<VecDeque<(usize, u64)>> =
        Mutex::new((0..runs.len()).map(|i| (i, slice)).collect());
    let cells: Vec<Mutex<PartRun<'a>>> = runs.into_iter().map(Mutex::new).collect();
    // One turn: the part at the front of the queue searches for its slice and, undecided,
    // goes back at the end with its slice doubled (`Some(true)`); `None` once the queue is
    // empty. A part is in the queue or with one worker, never both, so its lock is never
    // waited for.
    let turn = || {
        let (i, slice) = lock(&queue).pop_front()?;
        let mut run = lock(&cells[i]);
        run.advance(history, model, options, budget, stop, slice);
        let again = run.result.is_none();
        if again {
            lock(&queue).push_back((i, slice.saturating_mul(2)));
        }
        Some(again)
    };
    std::thread::scope(|s| {
        // The calling thread alone until a part needs a second turn: a history whose parts
        // are all decided in their first turns never waits for a thread to start.
        let mut helped = !options.parallel || cells.len() == 1;
        while let Some(again) = turn() {
            if again && !helped {
                helped = true;
                // One worker a core (threads of their own: starting rayon's pool of
                // workers costs a fifth of a millisecond).
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                let workers = cores.min(cells.len());
                for _ in 1..workers {
                    s.spawn(|| while turn().is_some() {});
                }
            }
        }
    });
    let runs: Vec<PartRun<'a>> = cells
        .into_iter()
        .map(|c| c.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect();
    let partitions: Vec<PartitionResult> = runs
        .into_iter()
        .map(|r| {
            r.result
                .expect("every part is decided once the queue is empty")
        })
        .collect();
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

/// A lock whose holder cannot leave its data half changed: a panic in a search ends the run.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Steps of a part's first turn by default: about a third of a millisecond of search on
/// Porcupine's kv histories (whose states are long strings).
pub const FIRST_SLICE: u64 = 1 << 10;

/// One independent part between turns: not started (`search` and `result` empty), paused
/// (`search`), or decided (`result`).
struct PartRun<'a> {
    ops: Vec<usize>,
    search: Option<Box<Search<'a>>>,
    result: Option<PartitionResult>,
}

impl<'a> PartRun<'a> {
    /// Searches this part for up to `slice` steps, or decides it without searching (the
    /// history is decided, or the budget spent before it started).
    fn advance(
        &mut self,
        history: &'a History,
        model: &'a dyn Model,
        options: &CheckOptions,
        budget: &'a Budget,
        stop: Option<&AtomicBool>,
        slice: u64,
    ) {
        if stop.is_some_and(|d| d.load(Ordering::Relaxed)) {
            let r = match self.search.take() {
                Some(search) => search.result(Verdict::NotChecked),
                None => PartitionResult::not_checked(self.ops.clone()),
            };
            self.finish(r, budget);
            return;
        }
        if self.ops.is_empty() {
            // Nothing to search (an empty history is one empty part).
            let r = PartitionResult {
                verdict: Verdict::Linearizable,
                ..PartitionResult::not_checked(Vec::new())
            };
            self.finish(r, budget);
            return;
        }
        let search = match &mut self.search {
            Some(search) => search,
            None => match budget.check() {
                // A part that never started once the budget is spent costs no allocation.
                Err(spent) => {
                    let r = PartitionResult {
                        ops: self.ops.clone(),
                        verdict: Verdict::Unknown,
                        prefix: Vec::new(),
                        state: None,
                        stuck: Vec::new(),
                        explored: 0,
                        memory: 0,
                        spent: Some(spent),
                    };
                    self.finish(r, budget);
                    return;
                }
                Ok(()) => {
                    let part: Vec<&Op> = self.ops.iter().map(|&i| &history.ops[i]).collect();
                    self.search
                        .insert(Box::new(Search::new(part, model, budget)))
                }
            },
        };
        if let Some(mut r) = search.run(slice, options.max_states, stop) {
            if r.verdict == Verdict::NotLinearizable {
                if let Some(d) = stop {
                    d.store(true, Ordering::Relaxed);
                }
            }
            r.memory = r.explored * per_state(self.ops.len()) as u64;
            // The search, its cache and what it charged to the budget go now.
            self.search = None;
            self.finish(r, budget);
        }
    }

    fn finish(&mut self, r: PartitionResult, budget: &Budget) {
        self.result = Some(r);
        budget.add_done(1);
    }
}

/// How many entries a table may gain between two polls of a search's meter: one per step.
const SLACK: usize = hindsight_budget::CHECK_EVERY as usize;

/// Bytes of a vector's buffer, or, where it may fill before the next poll, of its buffer and
/// the doubled one it grows into.
fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    grown(v.len(), v.capacity(), std::mem::size_of::<T>())
}

/// Bytes of a hash map's table (an entry and a control byte a slot, an eighth of the slots
/// kept free), counted as [`vec_bytes`] counts a vector.
fn map_bytes<K, V>(m: &FxHashMap<K, V>) -> u64 {
    let slot = (std::mem::size_of::<(K, V)>() + 1) as u64;
    // Entries, in units of which a table of `slots` slots holds 7/8.
    grown(m.len(), m.capacity(), 1) * 8 / 7 * slot
}

fn grown(len: usize, capacity: usize, size: usize) -> u64 {
    // Doubling from `capacity` until `SLACK` more entries fit: the largest buffer the next
    // steps may allocate, while the old one is still held.
    let mut target = capacity;
    while target < len.saturating_add(SLACK) {
        target = (target * 2).max(4);
    }
    let growing = if target > capacity { target } else { 0 };
    ((capacity + growing) * size) as u64
}

/// Estimated bytes of one cache entry of a part of `n` operations: its bitset, its slot in the
/// chain and its share of the hash table.
fn per_state(n: usize) -> usize {
    48 + n.div_ceil(64) * 8
}

const NONE: usize = usize::MAX;
const NO_STATE: u32 = u32::MAX;

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

fn hash_of<T: Hash + ?Sized>(x: &T) -> u64 {
    let mut h = FxHasher::default();
    x.hash(&mut h);
    h.finish()
}

/// Model states by id: each distinct value is stored and hashed once.
#[derive(Default)]
struct Interner {
    vals: Vec<Val>,
    /// Bytes the values hold on the heap.
    heap: u64,
    /// Hash → the last id with that hash; earlier ones follow `same_hash`.
    by_hash: FxHashMap<u64, u32>,
    same_hash: Vec<u32>,
}

impl Interner {
    fn intern(&mut self, val: Val) -> u32 {
        let h = hash_of(&val);
        let head = self.by_hash.get(&h).copied().unwrap_or(NO_STATE);
        let mut at = head;
        while at != NO_STATE {
            if self.vals[at as usize] == val {
                return at;
            }
            at = self.same_hash[at as usize];
        }
        let id = self.vals.len() as u32;
        self.heap += heap_bytes(&val);
        self.vals.push(val);
        self.same_hash.push(head);
        self.by_hash.insert(h, id);
        id
    }
}

/// Bytes a model's value holds on the heap (its strings and lists).
fn heap_bytes(v: &Val) -> u64 {
    match v {
        Val::Str(s) => s.capacity() as u64,
        Val::List(items) => {
            (items.capacity() * std::mem::size_of::<Val>()) as u64
                + items.iter().map(heap_bytes).sum::<u64>()
        }
        Val::Nil | Val::Bool(_) | Val::Int(_) => 0,
    }
}

/// The cache of explored (linearized set, state) pairs. Bitsets live end to end in `arena`.
struct Memo {
    words: usize,
    /// Hash of (bitset, state) → the last entry with that hash; earlier ones follow `next`.
    table: FxHashMap<u64, u32>,
    states: Vec<u32>,
    next: Vec<u32>,
    arena: Vec<u64>,
}

impl Memo {
    fn new(ops: usize) -> Memo {
        // A search that goes straight through explores about two entries per operation; room
        // for them up front spares the rehashing of a growing table on short histories.
        let expected = (2 * ops).min(1 << 20);
        let words = ops.div_ceil(64);
        Memo {
            words,
            table: FxHashMap::with_capacity_and_hasher(expected, Default::default()),
            states: Vec::with_capacity(expected),
            next: Vec::with_capacity(expected),
            arena: Vec::with_capacity(expected.saturating_mul(words).min(1 << 22)),
        }
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    /// Records (bits, state); false if it was there already. `bits_hash` is the XOR of the
    /// keys of the operations in `bits`.
    fn insert(&mut self, bits: &[u64], bits_hash: u64, state: u32) -> bool {
        let key = bits_hash
            ^ u64::from(state)
                .wrapping_add(1)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let head = self.table.get(&key).copied().unwrap_or(NO_STATE);
        let mut at = head;
        while at != NO_STATE {
            let i = at as usize;
            if self.states[i] == state && self.arena[i * self.words..(i + 1) * self.words] == *bits
            {
                return false;
            }
            at = self.next[i];
        }
        let id = self.states.len() as u32;
        self.states.push(state);
        self.next.push(head);
        self.arena.extend_from_slice(bits);
        self.table.insert(key, id);
        true
    }
}

/// One linearized operation on the search's path.
struct Frame {
    /// Its call entry.
    entry: usize,
    /// The state before it.
    before: u32,
    /// Linearized first as a read-only operation: the point before it fails with it.
    forced: bool,
}

/// A point of the search whose candidates are being tried: they are
/// `candidates[start..]`, the next at `next`; `depth` operations are linearized there.
struct Point {
    start: usize,
    next: usize,
    depth: usize,
}

enum Opened {
    Forced,
    Fails,
    Candidates,
}

enum Tried {
    Pushed,
    Seen,
    Refused,
}

struct Search<'a> {
    ops: Vec<&'a Op>,
    model: &'a dyn Model,
    meter: Meter<'a>,
    /// What the search holds, charged to the budget (given back when it is dropped).
    account: Account<'a>,
    /// At a point of the search not visited before (where read-only operations go first).
    fresh: bool,
    read_only: Vec<bool>,
    list: Entries,
    states: Interner,
    /// (state, op) → the state after it, or `NO_STATE` where the model refuses it.
    transitions: FxHashMap<(u32, u32), u32>,
    memo: Memo,
    /// A random key per operation, XORed into `bits_hash`.
    keys: Vec<u64>,
    bits: Vec<u64>,
    bits_hash: u64,
    state: u32,
    stack: Vec<Frame>,
    /// The points of the path that try candidates (those where a read-only operation was
    /// linearized first have none), and their candidates end to end.
    points: Vec<Point>,
    candidates: Vec<usize>,
    /// The longest path seen where the search got stuck: its operations, then its state.
    best: (Vec<usize>, u32),
}

impl<'a> Search<'a> {
    fn new(ops: Vec<&'a Op>, model: &'a dyn Model, budget: &'a Budget) -> Search<'a> {
        let mut states = Interner::default();
        let state = states.intern(model.init());
        let mut rng = SplitMix64::new(0x6c69_6e65_6172);
        Search {
            model,
            meter: Meter::new(budget),
            account: Account::new(budget),
            fresh: true,
            read_only: ops.iter().map(|op| model.read_only(op)).collect(),
            list: Entries::new(&ops),
            states,
            transitions: FxHashMap::with_capacity_and_hasher(
                ops.len().min(1 << 20),
                Default::default(),
            ),
            memo: Memo::new(ops.len()),
            keys: (0..ops.len()).map(|_| rng.next_u64()).collect(),
            bits: vec![0; ops.len().div_ceil(64)],
            bits_hash: 0,
            state,
            stack: Vec::new(),
            points: Vec::new(),
            candidates: Vec::new(),
            best: (Vec::new(), state),
            ops,
        }
    }

    fn after(&mut self, state: u32, op: usize) -> Option<u32> {
        if self.read_only[op] {
            // Its step only compares: cheaper than a probe of the transitions.
            let val = &self.states.vals[state as usize];
            return self.model.step(val, self.ops[op]).map(|_| state);
        }
        if let Some(&next) = self.transitions.get(&(state, op as u32)) {
            return (next != NO_STATE).then_some(next);
        }
        let next = match self
            .model
            .step(&self.states.vals[state as usize], self.ops[op])
        {
            None => NO_STATE,
            Some(Cow::Borrowed(_)) => state,
            Some(Cow::Owned(val)) => self.states.intern(val),
        };
        self.transitions.insert((state, op as u32), next);
        (next != NO_STATE).then_some(next)
    }

    fn flip(&mut self, op: usize) {
        self.bits[op / 64] ^= 1 << (op % 64);
        self.bits_hash ^= self.keys[op];
    }

    /// Tries to linearize the call at `entry` next.
    fn try_push(&mut self, entry: usize) -> Tried {
        let op = self.list.e[entry].op;
        let Some(next) = self.after(self.state, op) else {
            return Tried::Refused;
        };
        self.flip(op);
        if !self.memo.insert(&self.bits, self.bits_hash, next) {
            self.flip(op);
            return Tried::Seen;
        }
        self.stack.push(Frame {
            entry,
            before: self.state,
            forced: self.read_only[op],
        });
        self.state = next;
        self.list.lift(entry);
        Tried::Pushed
    }

    /// The point the search is at fails: undoes linearized operations up to and including the
    /// last one that was a choice, whose point then tries its next candidate. False when no
    /// choice is left.
    fn fail(&mut self) -> bool {
        if self.stack.len() > self.best.0.len() {
            let path = self.stack.iter().map(|f| self.list.e[f.entry].op).collect();
            self.best = (path, self.state);
        }
        if self
            .points
            .last()
            .is_some_and(|p| p.depth == self.stack.len())
        {
            let point = self.points.pop().expect("a point");
            self.candidates.truncate(point.start);
        }
        loop {
            let Some(frame) = self.stack.pop() else {
                return false;
            };
            self.flip(self.list.e[frame.entry].op);
            self.state = frame.before;
            self.list.unlift(frame.entry);
            if !frame.forced {
                return true;
            }
        }
    }

    /// At a new point of the search, one pass over the calls before the first pending return:
    /// linearizes the first read-only operation the model accepts (`Opened::Forced`), or finds
    /// that the point fails (`Opened::Fails`: such an operation leads to an explored pair), or
    /// else opens the point with the other calls as its candidates, in invocation order.
    /// (Earliest return first, tried too, explored many times more states on simulated
    /// key-value histories.)
    fn open_point(&mut self) -> Opened {
        let start = self.candidates.len();
        let mut k = self.list.first();
        while k != NONE && self.list.e[k].call {
            if !self.read_only[self.list.e[k].op] {
                self.candidates.push(k);
            } else {
                match self.try_push(k) {
                    Tried::Pushed => {
                        self.candidates.truncate(start);
                        return Opened::Forced;
                    }
                    Tried::Seen => {
                        self.candidates.truncate(start);
                        return Opened::Fails;
                    }
                    Tried::Refused => {}
                }
            }
            k = self.list.e[k].next;
        }
        self.points.push(Point {
            start,
            next: start,
            depth: self.stack.len(),
        });
        Opened::Candidates
    }

    /// The memory the search holds, from what grows: the memo, the transitions, the
    /// interned states (their values' heap too: a key-value store's strings grow with every
    /// append) and the path, by their tables' capacities. A table that may fill before the
    /// next poll (each step adds at most one entry to each) is counted as it will be while
    /// it grows, old and new buffers together: the charge comes before the allocation.
    fn memory(&self) -> u64 {
        let m = &self.memo;
        let memo =
            map_bytes(&m.table) + vec_bytes(&m.states) + vec_bytes(&m.next) + vec_bytes(&m.arena);
        let states = vec_bytes(&self.states.vals)
            + self.states.heap
            + map_bytes(&self.states.by_hash)
            + vec_bytes(&self.states.same_hash);
        let path = vec_bytes(&self.stack)
            + vec_bytes(&self.points)
            + vec_bytes(&self.candidates)
            + vec_bytes(&self.best.0);
        memo + map_bytes(&self.transitions) + states + path
    }

    /// Searches for up to `slice` steps, or until the part is decided, the budget is spent or
    /// `decided` (another part decided the history) is set: `None` if it paused after
    /// `slice` steps, to go on where it stopped at the next call.
    fn run(
        &mut self,
        slice: u64,
        max_states: usize,
        decided: Option<&AtomicBool>,
    ) -> Option<PartitionResult> {
        let mut left = slice;
        loop {
            if left == 0 {
                return None;
            }
            left -= 1;
            if let Err(spent) = self.meter.step() {
                return Some(self.stopped(Some(spent)));
            }
            if self.meter.polled() {
                let held = self.memory();
                if let Err(spent) = self.account.hold(held) {
                    return Some(self.stopped(Some(spent)));
                }
                if self.memo.len() >= max_states {
                    return Some(self.stopped(None));
                }
                if decided.is_some_and(|d| d.load(Ordering::Relaxed)) {
                    return Some(self.result(Verdict::NotChecked));
                }
            }
            if self.fresh {
                self.fresh = false;
                if self.list.first() == NONE {
                    return Some(self.result(Verdict::Linearizable));
                }
                match self.open_point() {
                    Opened::Forced => {
                        self.fresh = true;
                        continue;
                    }
                    Opened::Fails => {
                        if !self.fail() {
                            return Some(self.result(Verdict::NotLinearizable));
                        }
                        continue;
                    }
                    Opened::Candidates => {}
                }
            }
            let point = self.points.last_mut().expect("an open point");
            if point.next == self.candidates.len() {
                if !self.fail() {
                    return Some(self.result(Verdict::NotLinearizable));
                }
                continue;
            }
            let entry = self.candidates[point.next];
            point.next += 1;
            if let Tried::Pushed = self.try_push(entry) {
                self.fresh = true;
            }
        }
    }

    fn stopped(&self, spent: Option<Spent>) -> PartitionResult {
        let mut r = self.result(Verdict::Unknown);
        r.spent = spent;
        r
    }

    fn result(&self, verdict: Verdict) -> PartitionResult {
        let failed = verdict == Verdict::NotLinearizable;
        let (prefix, state) = if failed {
            let state = self.states.vals[self.best.1 as usize].clone();
            (self.best.0.clone(), Some(state))
        } else {
            (Vec::new(), None)
        };
        let stuck = match &state {
            Some(s) => stuck_after(&self.ops, self.model, &prefix, s),
            None => Vec::new(),
        };
        PartitionResult {
            ops: self.ops.iter().map(|o| o.id).collect(),
            verdict,
            prefix: prefix.iter().map(|&i| self.ops[i].id).collect(),
            state,
            stuck,
            explored: self.memo.len() as u64,
            memory: 0,
            spent: None,
        }
    }
}

/// The operations that could follow `prefix` in real-time order but that the model refuses
/// in `state`, the state after it (ids into the history).
fn stuck_after(ops: &[&Op], model: &dyn Model, prefix: &[usize], state: &Val) -> Vec<usize> {
    let mut done = vec![false; ops.len()];
    for &i in prefix {
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
        .filter(|&i| model.step(state, ops[i]).is_none())
        .map(|i| ops[i].id)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model_by_name;
    use crate::parse::parse_history;

    const C50_BAD: &str = include_str!("../tests/fixtures/lin/porcupine/c50-bad.txt");

    /// What the charge must cover at least: every buffer at its capacity, and the values'
    /// strings (Porcupine's kv values are appended to and grow long).
    fn allocated(s: &Search<'_>) -> u64 {
        fn buffer<T>(v: &Vec<T>) -> u64 {
            (v.capacity() * std::mem::size_of::<T>()) as u64
        }
        fn table<K, V>(m: &FxHashMap<K, V>) -> u64 {
            (m.capacity() * (std::mem::size_of::<(K, V)>() + 1)) as u64
        }
        let values: u64 = s.states.vals.iter().map(heap_bytes).sum();
        buffer(&s.memo.states)
            + buffer(&s.memo.next)
            + buffer(&s.memo.arena)
            + table(&s.memo.table)
            + table(&s.transitions)
            + buffer(&s.states.vals)
            + values
            + table(&s.states.by_hash)
            + buffer(&s.states.same_hash)
    }

    /// Key "0" of c50-bad, which no checker decides in minutes: however far its search goes,
    /// what it charges covers what it has allocated (#39: at `--memory-limit 300M` the parts
    /// reached 476 MB, the memo counted by its entries and the values by their handles).
    #[test]
    fn the_charge_covers_what_the_search_allocated() {
        let history = parse_history(C50_BAD).expect("Porcupine's history parses");
        let model = model_by_name("kv", None).expect("kv is a model");
        let parts = model.partition(&history);
        let part = parts.iter().max_by_key(|p| p.len()).expect("parts");
        let ops: Vec<&Op> = part.iter().map(|&i| &history.ops[i]).collect();
        let budget = Budget::unlimited();
        let mut search = Search::new(ops, model.as_ref(), &budget);
        let mut values = 0;
        for _ in 0..40 {
            let decided = search.run(5_000, usize::MAX, None);
            assert!(
                decided.is_none(),
                "key \"0\" is not decided in 200,000 steps"
            );
            let (charged, allocated) = (search.memory(), allocated(&search));
            assert!(
                charged >= allocated,
                "charged {charged} < allocated {allocated}"
            );
            values = search.states.heap;
        }
        assert!(values > 0, "the values hold strings");
        assert_eq!(
            values,
            search.states.vals.iter().map(heap_bytes).sum::<u64>()
        );
    }
}
