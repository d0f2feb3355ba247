//! Predicting atomicity violations under nested locking: Farzan, Madhusudan and Sorrentino,
//! "Meta-analysis for Atomicity Violations under Nested Locking", CAV'09.
//!
//! Transactions are the `begin`/`end` blocks of each thread (nested blocks count as their
//! outermost one; an event outside any block is a transaction of its own). A violation of
//! *minimal serializability* (Definition 4) is a pair of threads `T`, `T'`, a variable `x`,
//! accesses `e1`, `e2` of `x` in one transaction of `T` and an access `f` of `x` by `T'` with
//! `e1 D f D e2`, such that some run inferred from the trace (each thread runs a prefix of what
//! it did, locks respected) executes `e1`, then `f`, then `e2` (Lemma 1). By Theorem 1 that is:
//! some event `e` of `T` with `e1 <= e < e2` and `f` have disjoint locksets and compatible
//! acquisition histories. The analysis is the paper's linear algorithm:
//!
//! - Phase I (`witness`, over `nesting`): one streaming pass, per thread and variable, witness
//!   sets keyed by profile (lockset, acquisition history), one representative per key;
//! - Phase II (`pairing`): pairs of witnesses of different threads with compatible profiles,
//!   one violation class per pair (the paper's "one representative violation").
//!
//! Beyond the paper: fork and join constrain inferred runs (see `pairing`), `schedule` builds
//! and replays a concrete inferred run for each violation, and `reference` is the brute-force
//! product search of Section 2.1 that the tests hold the linear algorithm against.
//!
//! Like the paper (Theorem 1), a violation is reported when a run reaches `e1` and `f` with `e2`
//! still to come; if every such run deadlocks before `e2` (the paper assumes deadlock-free
//! traces), the violation is still reported, and its schedule (with `--schedule`) stops after
//! `f` and says so.
//!
//! This module owns the `Analysis` glue; it does not parse or print.

pub mod nesting;
pub mod pairing;
#[cfg(feature = "oracle")]
pub mod reference;
pub mod schedule;
mod sets;
pub mod witness;

use crate::driver::{trace_warning, Analysis, AnalysisOutput, Observer};
use crate::groups::{count, Granularity, Group, Groups, Site};
use hindsight_budget::{Account, Budget, Spent};
use hindsight_order::HappensBefore;
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_trace::Position;
use hindsight_trace::{ErrorKind, Event, LockId, Names, Op, ThreadId, VarId};
use nesting::{NonNested, Pid, Profiles, Rest, ThreadLocks};
use pairing::{ForkJoin, Paired, Pairing, Violation};
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Instant;
use witness::{Marks, Occurrence, Recency, VarWitnesses, READ, WRITE};

/// What to compute beyond the violation classes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Report every violating triple `(e1, f, e2)`, not one per class (keeps the trace).
    pub all: bool,
    /// Build, check and show an inferred run for each finding (keeps the trace).
    pub schedule: bool,
    /// Accept non-nested releases with a warning instead of an error.
    pub ignore_non_nested: bool,
    /// One finding per violation shown (per class, or per triple with `all`), or those with
    /// the same variable, pattern and source locations of `e1`, `f` and `e2` as one (grouped).
    pub granularity: Granularity,
}

/// An event as kept for `--all` and `--schedule`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub index: u64,
    pub thread: ThreadId,
    pub op: KeptOp,
    pub loc: Option<hindsight_trace::LocId>,
    /// The thread's profile after the event.
    pub pid: Pid,
    /// The thread's transaction at the event (0: none).
    pub txn: u64,
}

/// The operations that matter to inferred runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptOp {
    Read(VarId),
    Write(VarId),
    Acquire(LockId),
    Release(LockId),
    Fork(ThreadId),
    Join(ThreadId),
    Other,
}

impl KeptOp {
    pub fn of(op: &Op) -> KeptOp {
        match op {
            Op::Read(x) | Op::AtomicLoad(x) => KeptOp::Read(*x),
            // An RMW is one event that conflicts with every access of its variable: a write.
            Op::Write(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => KeptOp::Write(*x),
            Op::Acquire(l) => KeptOp::Acquire(*l),
            Op::Release(l) => KeptOp::Release(*l),
            Op::Fork(u) => KeptOp::Fork(*u),
            Op::Join(u) => KeptOp::Join(*u),
            _ => KeptOp::Other,
        }
    }
}

/// The state of a thread that may still run.
#[derive(Default)]
struct ThreadState {
    locks: ThreadLocks,
    started: bool,
    block_depth: u32,
    txn: u64,
    recency: Recency,
    /// The slots whose `Marks` this thread holds.
    slots: Vec<u32>,
    /// Bytes its lock state and recency list hold, as last counted into `threads_heap`.
    heap: usize,
}

/// A thread's state: whole, or, once it has been joined holding no lock outside any block
/// (a thread per request, done), reduced to the few numbers its next events would depend on
/// (events after a join are accepted with a warning). What the reduction drops is either
/// empty at rest (held locks, histories, the transaction's profiles and marks) or a memo
/// rebuilt on demand (profile transitions, the marks' masks): the answers are the same.
enum ThreadSlot {
    Live(Box<ThreadState>),
    Resting { locks: Rest, started: bool },
}

impl Default for ThreadSlot {
    /// A thread not seen yet: a live thread's default state, reduced.
    fn default() -> ThreadSlot {
        ThreadSlot::Resting {
            locks: Rest::default(),
            started: false,
        }
    }
}

/// The live state of `t`, brought back from rest if need be.
#[inline]
fn live<'a>(
    threads: &'a mut Vec<ThreadSlot>,
    live_threads: &mut usize,
    t: ThreadId,
) -> &'a mut ThreadState {
    if t.index() >= threads.len() {
        threads.resize_with(t.index() + 1, ThreadSlot::default);
    }
    let slot = &mut threads[t.index()];
    if let ThreadSlot::Resting { locks, started } = *slot {
        *live_threads += 1;
        *slot = ThreadSlot::Live(Box::new(ThreadState {
            locks: ThreadLocks::from_rest(locks),
            started,
            ..ThreadState::default()
        }));
    }
    match slot {
        ThreadSlot::Live(s) => s,
        ThreadSlot::Resting { .. } => unreachable!("brought back above"),
    }
}

/// The `atomicity` analysis.
pub struct Atomicity {
    options: Options,
    threads: Vec<ThreadSlot>,
    /// How many of `threads` are `Live`.
    live_threads: usize,
    /// Bytes the live threads' lock states and recency lists hold (each counted after its
    /// thread's events): a thread deep in a nest of locks holds a frame per lock.
    threads_heap: usize,
    profiles: Profiles,
    fj: ForkJoin,
    /// Witness sets per (variable, thread): keys, hot marks and cold sets, by slot. The marks
    /// of a thread at rest are dropped (see `ThreadSlot`).
    keys: Vec<(VarId, ThreadId)>,
    marks: Vec<Option<Box<Marks>>>,
    live_marks: usize,
    sets: Vec<VarWitnesses>,
    /// Bytes the witness sets hold beyond their structs.
    sets_heap: usize,
    /// Per variable, the thread that accessed it last and its slot: most accesses hit it.
    last_slot: Vec<(ThreadId, u32)>,
    slots: FxHashMap<(VarId, ThreadId), u32>,
    next_txn: u64,
    transactions: u64,
    non_nested: Vec<(u64, NonNested)>,
    non_nested_count: u64,
    kept: Vec<Kept>,
    events: u64,
    /// Per lock, whether some thread acquired it: the summary counts the locks taken, not the
    /// names a trace mentions (a `req` names a lock and takes none).
    acquired: Vec<bool>,
    locks_acquired: u64,
    /// The budget of Phase II, `--all`'s triples, the findings and `--schedule`'s searches
    /// (none: unlimited, and not reported).
    budget: Option<Arc<Budget>>,
    /// Whether joined threads at rest are reduced (always, but for the tests that hold the
    /// reduction to the whole states).
    rests: bool,
}

/// How many non-nested releases are kept word for word under `--ignore-non-nested`.
const KEPT_WARNINGS: usize = 10;

impl Atomicity {
    pub fn new(options: Options) -> Atomicity {
        Atomicity {
            options,
            threads: Vec::new(),
            live_threads: 0,
            threads_heap: 0,
            profiles: Profiles::default(),
            fj: ForkJoin::default(),
            keys: Vec::new(),
            marks: Vec::new(),
            live_marks: 0,
            sets: Vec::new(),
            sets_heap: 0,
            last_slot: Vec::new(),
            slots: FxHashMap::default(),
            next_txn: 0,
            transactions: 0,
            non_nested: Vec::new(),
            non_nested_count: 0,
            kept: Vec::new(),
            events: 0,
            acquired: Vec::new(),
            locks_acquired: 0,
            budget: None,
            rests: true,
        }
    }

    /// The analysis keeping every thread's whole state to the end (for the oracle tests).
    #[cfg(feature = "oracle")]
    pub fn without_rest(self) -> Atomicity {
        Atomicity {
            rests: false,
            ..self
        }
    }

    /// How many threads are kept whole (for the tests of the reduction).
    #[cfg(feature = "oracle")]
    pub fn live_threads(&self) -> usize {
        self.live_threads
    }

    /// The analysis with what it does after the pass within `budget`: the pairing (and
    /// `Options::all`'s triples) stop once it is spent, with the violations found before,
    /// the findings left have no schedule (`Options::schedule`), and the report says which
    /// limit was reached.
    pub fn within(self, budget: Arc<Budget>) -> Atomicity {
        Atomicity {
            budget: Some(budget),
            ..self
        }
    }

    fn keeps_trace(&self) -> bool {
        self.options.all || self.options.schedule
    }

    fn thread(&mut self, t: ThreadId) -> &mut ThreadState {
        live(&mut self.threads, &mut self.live_threads, t)
    }

    /// Reduces `u`'s state (it was joined) if it is at rest, and drops its marks.
    fn rest(&mut self, u: ThreadId) {
        let Some(ThreadSlot::Live(s)) = self.threads.get(u.index()) else {
            return;
        };
        if !self.rests {
            return;
        }
        let Some(locks) = s.locks.at_rest().filter(|_| s.block_depth == 0) else {
            return;
        };
        let started = s.started;
        let ThreadSlot::Live(s) = std::mem::replace(
            &mut self.threads[u.index()],
            ThreadSlot::Resting { locks, started },
        ) else {
            unreachable!("live above")
        };
        self.live_threads -= 1;
        self.threads_heap -= s.heap;
        for &slot in &s.slots {
            self.marks[slot as usize] = None;
            self.live_marks -= 1;
            self.sets_heap -= self.sets[slot as usize].shrink_to_fit();
        }
    }

    /// Feeds one event; an error for a non-nested release (unless ignored).
    pub fn step(&mut self, e: &Event, names: &Names) -> Result<(), ErrorKind> {
        let stepped = self.step_uncounted(e, names);
        self.count_heap(e.thread);
        stepped
    }

    /// Counts the bytes `t`'s state holds now into `threads_heap`.
    #[inline]
    fn count_heap(&mut self, t: ThreadId) {
        if let Some(ThreadSlot::Live(s)) = self.threads.get_mut(t.index()) {
            let now = s.locks.held_bytes() + s.recency.held_bytes();
            self.threads_heap = self.threads_heap + now - s.heap;
            s.heap = now;
        }
    }

    fn step_uncounted(&mut self, e: &Event, names: &Names) -> Result<(), ErrorKind> {
        let t = e.thread;
        self.events += 1;
        if let Op::Request(_) = e.op {
            // A request orders nothing and touches no variable: it neither starts its thread
            // nor gives it a lock profile, nor stands in a transaction's recent events.
            return Ok(());
        }
        self.thread(t).started = true;
        match &e.op {
            Op::Acquire(l) => {
                if l.index() >= self.acquired.len() {
                    self.acquired.resize(l.index() + 1, false);
                }
                if !std::mem::replace(&mut self.acquired[l.index()], true) {
                    self.locks_acquired += 1;
                }
                live(&mut self.threads, &mut self.live_threads, t)
                    .locks
                    .acquire(*l, &mut self.profiles)
            }
            Op::Release(l) => {
                let s = live(&mut self.threads, &mut self.live_threads, t);
                if let Some(v) = s.locks.release(t, *l, &mut self.profiles) {
                    if !self.options.ignore_non_nested {
                        return Err(ErrorKind::Analysis(format!(
                            "{} (nested locking is required; --ignore-non-nested accepts the trace with a warning)",
                            describe_non_nested(&v, names)
                        )));
                    }
                    self.non_nested_count += 1;
                    if self.non_nested.len() < KEPT_WARNINGS {
                        self.non_nested.push((e.index, v));
                    }
                }
            }
            Op::Fork(u) => self.fork(t, *u),
            Op::Join(u) => self.join(t, *u),
            Op::Begin(_) => {
                let s = live(&mut self.threads, &mut self.live_threads, t);
                s.block_depth += 1;
                if s.block_depth == 1 {
                    self.next_txn += 1;
                    self.transactions += 1;
                    s.txn = self.next_txn;
                    s.recency.clear();
                }
            }
            Op::End => {
                let s = self.thread(t);
                if s.block_depth > 0 {
                    s.block_depth -= 1;
                    if s.block_depth == 0 {
                        s.txn = 0;
                    }
                }
            }
            _ => {}
        }
        let keep = self.keeps_trace();
        let s = live(&mut self.threads, &mut self.live_threads, t);
        let access = match e.op {
            Op::Read(x) | Op::AtomicLoad(x) => Some((x, READ)),
            // An RMW is one access (no event can come between its read and its write) that
            // conflicts with every access of its variable, as a write does.
            Op::Write(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => Some((x, WRITE)),
            _ => None,
        };
        if s.txn == 0 && access.is_none() && !keep {
            return Ok(());
        }
        let (pid, fresh) = s.locks.pid(t, &mut self.profiles);
        if fresh {
            self.fj.pin(t, s.locks.epoch());
        }
        if let Some((x, kind)) = access {
            if s.txn == 0 {
                self.transactions += 1;
            }
            let at = Occurrence {
                index: e.index,
                loc: e.loc,
            };
            let slot = slot_of(
                &mut self.last_slot,
                &mut self.slots,
                &mut self.keys,
                &mut self.marks,
                &mut self.sets,
                x,
                t,
            );
            let local = self.profiles.local(pid);
            let marks = match &mut self.marks[slot] {
                Some(m) => m,
                none => {
                    s.slots.push(slot as u32);
                    self.live_marks += 1;
                    none.insert(Box::default())
                }
            };
            self.sets_heap += marks.access(
                kind,
                at,
                (pid, local),
                s.txn,
                &s.recency,
                &mut self.sets[slot],
            );
        }
        if s.txn != 0 {
            s.recency.current((pid, self.profiles.local(pid)), e.index);
        }
        if keep {
            let txn = s.txn;
            self.kept.push(Kept {
                index: e.index,
                thread: t,
                op: KeptOp::of(&e.op),
                loc: e.loc,
                pid,
                txn,
            });
        }
        Ok(())
    }

    fn fork(&mut self, t: ThreadId, u: ThreadId) {
        let parent = self.thread(t);
        parent.locks.fork();
        let forks = parent.locks.forks();
        let mut guards: Vec<LockId> = parent.locks.held().collect();
        guards.extend_from_slice(parent.locks.guards());
        self.fj.own(t, forks);
        let clock = self.fj.current(t);
        let child = self.thread(u);
        let started = child.started;
        guards.extend_from_slice(child.locks.guards());
        child.locks.set_guards(guards);
        if started {
            child.locks.new_epoch();
        }
        self.fj.merge(u, &clock, started);
        self.count_heap(u);
    }

    fn join(&mut self, t: ThreadId, u: ThreadId) {
        self.fj.join(t, u);
        self.thread(t).locks.new_epoch();
        self.rest(u);
    }

    /// Phase II: the violation classes, in a deterministic order.
    pub fn violations(&self) -> Vec<Violation> {
        self.violations_counted().0
    }

    /// The violation classes, and how many distinct pairs of profiles were checked.
    pub fn violations_counted(&self) -> (Vec<Violation>, u64) {
        let paired = self.pair_within(&Budget::unlimited());
        (paired.classes, paired.checks)
    }

    /// Phase II within `budget`: the violation classes in a deterministic order (those found
    /// before the budget was spent, if it was).
    pub fn pair_within(&self, budget: &Budget) -> Paired {
        let mut pairing = Pairing::new(budget);
        let mut classes = Vec::new();
        let mut sets: Vec<((VarId, ThreadId), &VarWitnesses)> = Vec::new();
        let mut stopped = pairing.reserve_exact(&mut sets, self.keys.len()).err();
        if stopped.is_none() {
            sets.extend(self.keys.iter().copied().zip(self.sets.iter()));
            sets.sort_unstable_by_key(|s| s.0);
            stopped = pairing
                .pair(&sets, &self.profiles, &self.fj, &mut classes)
                .err();
        }
        let key = |v: &Violation| (v.thread, v.other, v.var, v.pattern, v.e1.index, v.f.index);
        // The stable sort borrows up to the vector's size again: charged first, and where it
        // cannot be, the classes found are put in an order as fixed by an in-place sort.
        match pairing.hold(2 * pairing::vec_bytes(&classes)) {
            Ok(()) => classes.sort_by_key(key),
            Err(spent) => {
                stopped = stopped.or(Some(spent));
                classes.sort_unstable_by_key(|v| (key(v), v.e2.index, v.e, v.class));
            }
        }
        Paired {
            classes,
            checks: pairing.checks,
            stopped,
        }
    }

    /// Phase II by the literal double loop over pairs of threads, in the order of
    /// [`Atomicity::violations`] (for the oracle tests).
    #[cfg(feature = "oracle")]
    pub fn violations_literal(&self) -> Vec<Violation> {
        let mut sets: Vec<((VarId, ThreadId), &VarWitnesses)> =
            self.keys.iter().copied().zip(self.sets.iter()).collect();
        sets.sort_by_key(|s| s.0);
        let mut v = pairing::pair_literal(&sets, &self.profiles, &self.fj);
        v.sort_by_key(|v| (v.thread, v.other, v.var, v.pattern, v.e1.index, v.f.index));
        v
    }

    /// Every violating triple (needs `Options::all` or `Options::schedule`): for each class
    /// pair of threads and variable, every `e1 < e2` of one transaction of `T` and `f` of `T'`
    /// with the pattern's kinds, such that some event in `[e1, e2)` has a profile compatible
    /// with `f`'s.
    pub fn all_triples(&self, classes: &[Violation]) -> Vec<Violation> {
        let mut out = Vec::new();
        self.all_triples_within(classes, &Budget::unlimited(), &mut out)
            .expect("an unlimited budget is never spent");
        out
    }

    /// [`Atomicity::all_triples`] within `budget`, into `out`: an error once it is spent, `out`
    /// holding the triples found before.
    pub fn all_triples_within(
        &self,
        classes: &[Violation],
        budget: &Budget,
        out: &mut Vec<Violation>,
    ) -> Result<(), Spent> {
        let mut pairing = Pairing::new(budget);
        let mut wanted: Vec<(ThreadId, ThreadId, VarId)> = Vec::new();
        pairing.reserve_exact(&mut wanted, classes.len())?;
        wanted.extend(classes.iter().map(|v| (v.thread, v.other, v.var)));
        wanted.sort_unstable();
        wanted.dedup();
        // The kept events by thread: a reference per event, and a few words per thread.
        let threads = self.threads.len() as u64;
        let by_thread_bytes = 2 * (self.kept.len() as u64 * 8 + threads * 48);
        let mut others = pairing::vec_bytes(&wanted) + by_thread_bytes;
        pairing.hold(others)?;
        let mut by_thread: FxHashMap<ThreadId, Vec<&Kept>> = FxHashMap::default();
        for k in &self.kept {
            by_thread.entry(k.thread).or_default().push(k);
        }
        let mut fs: Vec<(&Kept, bool)> = Vec::new();
        let mut seen: Vec<Pid> = Vec::new();
        for (t, u, x) in wanted.iter().copied() {
            let mine = &by_thread[&t];
            fs.clear();
            for k in &by_thread[&u] {
                if let Some(w) = access_of(k, x) {
                    pairing.reserve(&mut fs, others + pairing::vec_bytes(out))?;
                    fs.push((*k, w));
                }
            }
            others = pairing::vec_bytes(&wanted) + by_thread_bytes + pairing::vec_bytes(&fs);
            let mut i = 0;
            while i < mine.len() {
                let txn = mine[i].txn;
                let mut j = i + 1;
                if txn != 0 {
                    while j < mine.len() && mine[j].txn == txn {
                        j += 1;
                    }
                }
                let block = &mine[i..j];
                for (a, e1) in block.iter().enumerate() {
                    let Some(w1) = access_of(e1, x) else { continue };
                    // Profiles seen in [e1, e2), grown as e2 moves right.
                    seen.clear();
                    for e in &block[a..] {
                        pairing.step()?;
                        if let Some(w2) = access_of(e, x) {
                            if e.index != e1.index {
                                for &(f, wf) in &fs {
                                    if !(wf || (w1 && w2)) {
                                        continue;
                                    }
                                    let mut compatible = None;
                                    for &pe in &seen {
                                        if pairing.compatible(
                                            pe,
                                            f.pid,
                                            &self.profiles,
                                            &self.fj,
                                        )? {
                                            compatible = Some(pe);
                                            break;
                                        }
                                    }
                                    if let Some(pe) = compatible {
                                        let at = |k: &Kept| Occurrence {
                                            index: k.index,
                                            loc: k.loc,
                                        };
                                        let witness = block[a..]
                                            .iter()
                                            .find(|k| k.pid == pe)
                                            .map_or(e1.index, |k| k.index);
                                        pairing.reserve(out, others + pairing::vec_bytes(&seen))?;
                                        out.push(Violation {
                                            thread: t,
                                            other: u,
                                            var: x,
                                            pattern: pairing::Pattern([w1, wf, w2]),
                                            e1: at(e1),
                                            f: at(f),
                                            e2: at(e),
                                            e: witness,
                                            class: (pe, f.pid),
                                        });
                                    }
                                }
                            }
                        }
                        if !seen.contains(&e.pid) {
                            pairing.reserve(&mut seen, others + pairing::vec_bytes(out))?;
                            seen.push(e.pid);
                        }
                    }
                }
                i = j;
            }
        }
        Ok(())
    }

    /// The kept trace (with `Options::all` or `Options::schedule`).
    pub fn kept(&self) -> &[Kept] {
        &self.kept
    }

    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }
}

/// The slot of `(x, t)`, created on first use.
#[inline]
fn slot_of(
    last_slot: &mut Vec<(ThreadId, u32)>,
    slots: &mut FxHashMap<(VarId, ThreadId), u32>,
    keys: &mut Vec<(VarId, ThreadId)>,
    marks: &mut Vec<Option<Box<Marks>>>,
    sets: &mut Vec<VarWitnesses>,
    x: VarId,
    t: ThreadId,
) -> usize {
    if x.index() >= last_slot.len() {
        last_slot.resize(x.index() + 1, (ThreadId(u32::MAX), 0));
    }
    let hot = &mut last_slot[x.index()];
    if hot.0 == t {
        return hot.1 as usize;
    }
    let slot = *slots.entry((x, t)).or_insert_with(|| {
        keys.push((x, t));
        marks.push(None);
        sets.push(VarWitnesses::default());
        keys.len() as u32 - 1
    });
    *hot = (t, slot);
    slot as usize
}

fn access_of(k: &Kept, x: VarId) -> Option<bool> {
    match k.op {
        KeptOp::Read(y) if y == x => Some(false),
        KeptOp::Write(y) if y == x => Some(true),
        _ => None,
    }
}

fn describe_non_nested(v: &NonNested, names: &Names) -> String {
    let held: Vec<String> = v
        .still_held
        .iter()
        .map(|l| format!("`{}`", names.lock(*l)))
        .collect();
    format!(
        "{} releases lock `{}` while still holding {}, acquired after it",
        names.thread(v.thread),
        names.lock(v.released),
        held.join(", ")
    )
}

impl Observer for Atomicity {
    /// The threads (the live ones whole, with their lock states and recency lists), the
    /// profiles, the fork/join clocks, the witness sets (by variable and thread) with the live
    /// threads' marks, and the transactions kept for schedules. Roughly: a live thread's list
    /// of slots and the clocks' shared trees are not counted.
    fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.threads.capacity() * size_of::<ThreadSlot>()
            + self.live_threads * size_of::<ThreadState>()
            + self.threads_heap
            + self.profiles.held_bytes()
            + self.fj.held_bytes()
            + self.keys.capacity() * size_of::<(VarId, ThreadId)>()
            + self.marks.capacity() * size_of::<Option<Box<Marks>>>()
            + self.live_marks * size_of::<Marks>()
            + self.sets.capacity() * size_of::<VarWitnesses>()
            + self.sets_heap
            + self.last_slot.capacity() * 8
            + self.slots.capacity() * (size_of::<((VarId, ThreadId), u32)>() + 1)
            + self.kept.capacity() * size_of::<Kept>()) as u64
    }

    /// Atomicity keeps its own fork/join order and never reads the pass's happens-before.
    fn reads_happens_before(&self) -> bool {
        false
    }

    fn name(&self) -> &'static str {
        "atomicity"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    #[inline]
    fn on_event(&mut self, e: &Event, _: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        self.step(e, names)
    }
}

impl Analysis for Atomicity {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let unlimited = Budget::unlimited();
        let budget = self.budget.as_deref().unwrap_or(&unlimited);
        // The analysis' tables live on through the finish, and the pass that charged them is
        // over: charged again here, with everything the finish builds on top.
        let mut own = Account::new(budget);
        let base = self.held_bytes();
        // Spent already (the pass stopped): what the pass saw is still paired, within the
        // grace every loop has (see `Pairing`).
        let grace = budget.spent().is_some();
        let refused = |held: Result<(), Spent>| held.err().filter(|_| !grace);
        let mut stopped = refused(own.hold_within(base));
        let Paired {
            classes,
            checks,
            stopped: pairing_stopped,
        } = match stopped {
            None => self.pair_within(budget),
            Some(spent) => Paired {
                classes: Vec::new(),
                checks: 0,
                stopped: Some(spent),
            },
        };
        stopped = stopped.or(pairing_stopped);
        let mut held = base + pairing::vec_bytes(&classes);
        stopped = stopped.or(refused(own.hold(held)));
        let mut wrw = 0u64;
        let mut others = 0u64;
        let mut per_pattern: std::collections::BTreeMap<String, u64> = Default::default();
        for v in &classes {
            let name = v.pattern.name();
            if name == "WRW" {
                wrw += 1;
            } else {
                others += 1;
            }
            *per_pattern.entry(name).or_default() += 1;
        }
        // With the pairing stopped short, `--all` shows the classes found: each is one of the
        // triples, whose search needs every class.
        let shown = if self.options.all && stopped.is_none() {
            let mut triples = Vec::new();
            stopped = self
                .all_triples_within(&classes, budget, &mut triples)
                .err();
            held += pairing::vec_bytes(&triples);
            stopped = stopped.or(refused(own.hold(held)));
            triples
        } else {
            classes
        };
        let schedules = self
            .options
            .schedule
            .then(|| schedule::Scheduler::new(&self.kept, budget));
        let mut out = AnalysisOutput::default();
        // Each finding kept for the report is charged as it is made; past the limit the rest
        // are left out.
        let mut fin = Finishing {
            own,
            held,
            steps: 0,
        };
        let mut groups = 0;
        match self.options.granularity {
            Granularity::EveryEvent => {
                for v in &shown {
                    let f = finding(v, names, schedules.as_ref(), &self.profiles);
                    if let Err(spent) = fin.keep(f.heap_bytes()) {
                        stopped = stopped.or(Some(spent));
                        break;
                    }
                    out.findings.push(f);
                }
            }
            Granularity::Grouped => {
                let mut by_sites: Groups<ViolationKey, &Violation> = Groups::default();
                for v in &shown {
                    let [w1, wf, w2] = v.pattern.0;
                    let key = (
                        v.var,
                        v.pattern.0,
                        Site::of(v.e1.loc, u32::from(w1), v.thread),
                        Site::of(v.f.loc, u32::from(wf), v.other),
                        Site::of(v.e2.loc, u32::from(w2), v.thread),
                    );
                    by_sites.add(key, &[v.thread, v.other], v);
                    if let Err(spent) = fin.room(by_sites.bytes()) {
                        stopped = stopped.or(Some(spent));
                        break;
                    }
                }
                groups = by_sites.len();
                fin.steps = 0;
                for g in by_sites.into_sorted() {
                    let f = grouped(
                        finding(g.first, names, schedules.as_ref(), &self.profiles),
                        &g,
                        names,
                    );
                    if let Err(spent) = fin.keep(f.heap_bytes()) {
                        stopped = stopped.or(Some(spent));
                        break;
                    }
                    out.findings.push(f);
                }
            }
        }
        // The findings live on in the report until it is rendered: their bytes stay charged.
        std::mem::forget(fin.own);
        let s = &mut out.summary;
        s.insert("threads".into(), Value::from(names.threads.len()));
        // Per variable, how many threads accessed it (up to two): a byte per variable, where
        // sorting a copy of the keys took a copy of the largest table.
        let mut accessors = vec![0u8; self.last_slot.len()];
        for (x, _) in &self.keys {
            let n = &mut accessors[x.index()];
            *n = (*n + 1).min(2);
        }
        let entities = accessors.iter().filter(|&&n| n == 2).count();
        s.insert("entities".into(), Value::from(entities));
        s.insert("locks".into(), Value::from(self.locks_acquired));
        s.insert("events".into(), Value::from(self.events));
        s.insert("transactions".into(), Value::from(self.transactions));
        s.insert("profiles".into(), Value::from(self.profiles.len()));
        s.insert("profile_pairs_checked".into(), Value::from(checks));
        s.insert("WRW".into(), Value::from(wrw));
        s.insert("others".into(), Value::from(others));
        for (k, n) in per_pattern {
            if k != "WRW" {
                s.insert(k, Value::from(n));
            }
        }
        if self.options.all {
            s.insert("triples".into(), Value::from(shown.len()));
        }
        if let Some(budget) = &self.budget {
            // A run within its budget says nothing of it, but with schedules (whose searches
            // it bounds).
            if self.options.schedule || stopped.is_some() {
                out.unknown = hindsight_report::note_budget(s, budget);
            }
        }
        if stopped.is_some() {
            // The pairing, the triples or the findings stopped short: what is shown is what
            // was found before.
            s.insert("complete".into(), Value::from(false));
        }
        if self.options.granularity == Granularity::Grouped {
            s.insert("groups".into(), Value::from(groups));
        }
        if self.non_nested_count > 0 {
            s.insert(
                "non_nested_releases".into(),
                Value::from(self.non_nested_count),
            );
        }
        let (kept, count) = self.non_nested_warnings(names);
        for (index, what) in &kept {
            out.warnings.push(trace_warning(
                Position::Event(*index),
                format!("{what} (accepted: --ignore-non-nested)"),
            ));
        }
        if count > kept.len() as u64 {
            out.warnings.push(trace_warning(
                Position::File,
                format!(
                    "{} more non-nested release(s) not shown",
                    count - kept.len() as u64
                ),
            ));
        }
        out.rules.push(Rule {
            id: "atomicity-violation",
            description: "Two accesses in one transaction of a thread and a conflicting access of another thread that some inferred run (locks and fork/join respected) executes between them (CAV'09 minimal serializability)",
        });
        out
    }
}

/// What the finish holds beside the analysis' tables (the violations, the groups, the
/// findings), charged as it grows. Once the budget is spent (by the pass, the pairing or
/// another analysis) what was found is still shown, as far as the memory limit allows and,
/// after [`hindsight_budget::CHECK_EVERY`] more steps, the deadline: a finding made before
/// the budget ran out is still a finding.
struct Finishing<'b> {
    own: Account<'b>,
    held: u64,
    steps: u64,
}

impl Finishing<'_> {
    /// One more step, the finish holding `held` and `extra` bytes: an error once it may not
    /// go on.
    fn room(&mut self, extra: u64) -> Result<(), Spent> {
        self.steps += 1;
        let bytes = self.held + extra;
        let mut result = self.own.hold(bytes);
        if self.steps % hindsight_budget::CHECK_EVERY == 0 {
            result = result.and(self.own.budget().check());
        }
        let Err(spent) = result else {
            return Ok(());
        };
        let budget = self.own.budget();
        let late = self.steps >= hindsight_budget::CHECK_EVERY
            && budget.deadline().is_some_and(|d| Instant::now() >= d);
        match bytes <= budget.limits().memory && !late {
            true => Ok(()),
            false => Err(spent),
        }
    }

    /// Keeps `bytes` more (a finding) if there is room.
    fn keep(&mut self, bytes: u64) -> Result<(), Spent> {
        self.held += bytes;
        self.room(0)
    }
}

impl Atomicity {
    /// The non-nested releases accepted under `--ignore-non-nested` (first few), with the event
    /// index of each, worded for a warning; and how many there were in all.
    fn non_nested_warnings(&self, names: &Names) -> (Vec<(u64, String)>, u64) {
        (
            self.non_nested
                .iter()
                .map(|(i, v)| (*i, describe_non_nested(v, names)))
                .collect(),
            self.non_nested_count,
        )
    }
}

/// What groups violations: the variable, the pattern, and where `e1`, `f` and `e2` stand.
type ViolationKey = (VarId, [bool; 3], Site, Site, Site);

/// The finding of a group of violations, from the finding of its first.
fn grouped(mut f: Finding, g: &Group<ViolationKey, &Violation>, names: &Names) -> Finding {
    let threads: Vec<&str> = g.threads.iter().map(|&t| names.thread(t)).collect();
    if g.occurrences > 1 {
        f.message.push_str(&format!(
            "; {} at these source locations (threads {})",
            count(g.occurrences, "violation", "violations"),
            threads.join(", ")
        ));
    }
    if let Some(v) = g.last {
        let r = |o: &Occurrence, t: ThreadId, w: bool| EventRef {
            index: o.index,
            thread: names.thread(t).to_owned(),
            op: format!("{}({})", access_name(w), names.var(v.var)),
            location: o.loc.map(|l| names.location(l).to_owned()),
        };
        let [w1, wf, w2] = v.pattern.0;
        let last = [
            r(&v.e1, v.thread, w1),
            r(&v.f, v.other, wf),
            r(&v.e2, v.thread, w2),
        ];
        f.fields.insert(
            "last".into(),
            serde_json::to_value(last).expect("event references serialize"),
        );
    }
    f.fields.insert("threads".into(), Value::from(threads));
    f.occurrences = Some(g.occurrences);
    f.group = None;
    f
}

fn access_name(write: bool) -> &'static str {
    if write {
        "w"
    } else {
        "r"
    }
}

fn finding(
    v: &Violation,
    names: &Names,
    schedules: Option<&schedule::Scheduler>,
    profiles: &Profiles,
) -> Finding {
    let [w1, wf, w2] = v.pattern.0;
    let var = names.var(v.var);
    let (t, u) = (names.thread(v.thread), names.thread(v.other));
    let r = |o: &Occurrence, thread: &str, w: bool| EventRef {
        index: o.index,
        thread: thread.to_owned(),
        op: format!("{}({var})", access_name(w)),
        location: o.loc.map(|l| names.location(l).to_owned()),
    };
    let lockset = |p: Pid| -> Vec<Value> {
        profiles
            .get(p)
            .held()
            .map(|h| Value::from(names.lock(h.lock)))
            .collect()
    };
    let mut message = format!(
        "{} (#{}) of `{var}` by {u} can run between {} (#{}) and {} (#{}) of one transaction of {t} ({}), with {t} at #{} holding {{{}}}",
        if wf { "write" } else { "read" },
        v.f.index,
        if w1 { "write" } else { "read" },
        v.e1.index,
        if w2 { "write" } else { "read" },
        v.e2.index,
        v.pattern.name(),
        v.e,
        profiles
            .get(v.class.0)
            .held()
            .map(|h| names.lock(h.lock))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut fields = Map::new();
    fields.insert("variable".into(), Value::from(var));
    fields.insert("pattern".into(), Value::from(v.pattern.name()));
    fields.insert("threads".into(), Value::from(vec![t, u]));
    fields.insert("witness".into(), Value::from(v.e));
    fields.insert(
        "locksets".into(),
        Value::from(vec![lockset(v.class.0), lockset(v.class.1)]),
    );
    if let Some(s) = schedules {
        match s.build(v) {
            Ok(run) => {
                message.push_str(&format!("; schedule: {}", run.describe(names)));
                fields.insert("schedule".into(), run.to_json(names));
            }
            Err(why) => {
                message.push_str(&format!("; no schedule: {why}"));
                fields.insert("schedule".into(), Value::Null);
            }
        }
    }
    Finding {
        occurrences: None,
        kind: "atomicity-violation".into(),
        message,
        events: vec![r(&v.e1, t, w1), r(&v.f, u, wf), r(&v.e2, t, w2)],
        fields,
        group: Some(var.to_owned()),
    }
}
