//! Phase II of the CAV'09 algorithm (Section 4, Fig. 1) and the pairwise-reachability test of
//! Lemma 3 (Kahlon et al.), extended to fork and join.
//!
//! For every variable `x` and ordered pair of threads `(T, T')`, each sandwiched witness of `T`
//! is paired with each read (for `WW`) or write (for all four sandwiched sets) of `T'`; a pair
//! whose profiles are *compatible* is one violation class.
//!
//! **Why the check is fast.** The paper's tool compared acquisition histories pairwise, lock set
//! against lock set (quadratic in their sizes), and that dominated its 50-lock `elevator` run.
//! Two things make it cheap here:
//!
//! 1. Under nested locking the histories of the held locks `l_1..l_k` (outermost first) form a
//!    chain `AH(l_1) ⊇ ... ⊇ AH(l_k)`, so a profile stores each lock `m` once with
//!    `depth(m)` (`m ∈ AH(l_a)` iff `a < depth(m)`). Incompatibility, "some `l_a` of `T` and
//!    `m_b` of `T'` with `m_b ∈ AH(l_a)` and `l_a ∈ AH'(m_b)`", is "some `a < depth(m_b)` and
//!    `b < depth'(l_a)`": with `x_b = depth(m_b)` and its prefix maxima `PM`, it holds iff some
//!    `a` has `PM(depth'(l_a)) > a`. That is `O(k + k')` binary searches, where `k, k'` are the
//!    nesting depths, whatever the number of locks in the histories.
//! 2. Profiles are interned (`nesting::Profiles`), so each distinct pair of profiles is checked
//!    once for the whole trace (a memo), however many variables share them.
//!
//! **Fork and join.** The paper's model has locks only. Here an inferred run also never runs an
//! event before the fork of its thread, nor a join before the joined thread's last event. For
//! two threads this gives precedence constraints between their events (the fork/join order:
//! program order, fork and join edges, through any threads). The pairwise test adds:
//!
//! - at the endpoints, `T`'s prefix must not need an event of `T'` after `f`, and `T'`'s prefix
//!   must not need an event of `T` after `e` (clocks counted in forks, see `ForkJoin`);
//! - if `T'` can only start after a fork made by `T`, that fork behaves as a lock `V` that `T`
//!   takes and drops at the fork and that `T'` holds from its first event on. Adding `V` to the
//!   histories keeps locking nested, so Lemma 3 still applies: the extra incompatibility is "a
//!   lock `T` has held since before that fork was acquired by `T'`" (`guarded_acquired`).
//!
//! This is exact when the constraints between `T` and `T'` are of the two kinds "`T'` starts
//! after a point of `T`" and "`T` goes on after `T'` has finished" (direct forks and joins, or
//! through a common ancestor). A constraint between the middles of both threads (through a third
//! thread forked by one and joined by the other) is checked at the endpoints only.
//!
//! This module knows nothing of the trace or of output.

use super::nesting::{Pid, ProfileRef, Profiles};
use super::witness::{Occurrence, VarWitnesses, READ, WRITE};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_order::clock::SHARE_DENSE_FROM;
use hindsight_order::VectorClock;
use hindsight_trace::{LockId, ThreadId, VarId};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// A fork/join clock component for a thread that has finished (it was joined).
pub const COMPLETE: u32 = u32::MAX;

/// Fork/join clocks per thread and epoch. Component `u` of a thread's clock is the number of
/// forks of `u` that the thread's current events come after (in the fork/join order), or
/// [`COMPLETE`] if they come after all of `u`.
///
/// Phase II reads the clock of a thread's epoch only through a profile of that epoch, so a
/// thread keeps its current clock, and the clock of an earlier epoch lives on only if some
/// profile was interned in it ([`ForkJoin::pin`]): a main thread forking and joining a thread
/// per request goes through two epochs per request and keeps none of them. Clocks are shared
/// (`Rc`), so a thread forked before its first event holds its parent's clock itself, and
/// [`VectorClock`]s share the components they have in common: memory is a few words per
/// thread and per pinned epoch.
#[derive(Clone, Debug, Default)]
pub struct ForkJoin {
    /// Per thread, its current epoch and clock.
    current: Vec<Current>,
    /// The clocks of earlier epochs some profile was interned in, by thread and epoch.
    pinned: FxHashMap<(ThreadId, u32), Rc<VectorClock>>,
    /// How many epochs are pinned (current ones included).
    pins: usize,
    /// Past [`SHARE_DENSE_FROM`] threads, forking threads keep their clocks' dense prefix in
    /// the shared tree (see `hindsight_order::clock`).
    share_dense: bool,
}

/// A thread's current epoch.
#[derive(Clone, Debug, Default)]
struct Current {
    epoch: u32,
    /// Whether a profile was interned in it (its clock goes to `pinned` when the epoch ends).
    pinned: bool,
    /// `None`: the empty clock.
    clock: Option<Rc<VectorClock>>,
}

impl Current {
    fn clock(&mut self) -> &mut Rc<VectorClock> {
        self.clock
            .get_or_insert_with(|| Rc::new(VectorClock::new()))
    }
}

impl ForkJoin {
    fn slot(&mut self, t: ThreadId) -> &mut Current {
        if t.index() >= self.current.len() {
            self.current.resize(t.index() + 1, Current::default());
            if t.index() >= SHARE_DENSE_FROM {
                self.share_dense = true;
            }
        }
        &mut self.current[t.index()]
    }

    /// Starts `t`'s next epoch, keeping the clock of the one that ends if it is pinned.
    fn next_epoch(&mut self, t: ThreadId) -> &mut Current {
        let c = self.slot(t);
        let ended = (c.pinned, c.epoch, c.clock.clone());
        c.epoch += 1;
        c.pinned = false;
        if let (true, epoch, Some(clock)) = ended {
            self.pinned.insert((t, epoch), clock);
        }
        &mut self.current[t.index()]
    }

    /// The current clock of `t` (shared: cloning it costs a count).
    pub fn current(&mut self, t: ThreadId) -> Rc<VectorClock> {
        self.slot(t).clock().clone()
    }

    /// The current epoch of `t`.
    pub fn epoch(&self, t: ThreadId) -> u32 {
        self.current.get(t.index()).map_or(0, |c| c.epoch)
    }

    /// Keeps the clock of `t`'s `epoch` (its current one) for Phase II: a profile of it was
    /// interned.
    pub fn pin(&mut self, t: ThreadId, epoch: u32) {
        debug_assert_eq!(epoch, self.epoch(t), "a profile of another epoch");
        let c = self.slot(t);
        if !c.pinned {
            c.pinned = true;
            c.clock();
            self.pins += 1;
        }
    }

    /// The component `u` of the clock of `t` during `epoch`, which must be pinned.
    pub fn component(&self, t: ThreadId, epoch: u32, u: ThreadId) -> u32 {
        match self.current.get(t.index()) {
            Some(Current {
                epoch: e,
                clock: Some(c),
                ..
            }) if *e == epoch => c.get(u),
            _ => self.pinned.get(&(t, epoch)).map_or(0, |c| c.get(u)),
        }
    }

    /// Joins `other` into `t`'s clock; a new epoch if `new_epoch`, else in place (a thread
    /// forked before its first event starts with its parent's clock).
    pub fn merge(&mut self, t: ThreadId, other: &Rc<VectorClock>, new_epoch: bool) {
        let share = self.share_dense;
        let current = if new_epoch {
            self.next_epoch(t)
        } else {
            self.slot(t)
        };
        match &mut current.clock {
            // The join of the empty clock and `other` is `other`.
            None => current.clock = Some(other.clone()),
            Some(c) => {
                // Cloned only if a pinned epoch or another thread shares it.
                let c = Rc::make_mut(c);
                if share {
                    c.share_dense();
                }
                c.join(other);
            }
        }
    }

    /// `t` joins `u`: a new epoch of `t` after all of `u`.
    pub fn join(&mut self, t: ThreadId, u: ThreadId) {
        // `u`'s clock, complete in `u`, is joined whole: setting `u` in `t`'s own clock
        // instead, before or after the join, made 200,000 forked and joined threads take
        // 10 MB (after: the set doubles the list of pending components) to 300 MB (before)
        // more.
        let mut theirs = self.current(u);
        Rc::make_mut(&mut theirs).set(u, COMPLETE);
        self.merge(t, &theirs, true);
    }

    /// Sets `t`'s own component (its fork count) in a new epoch.
    pub fn own(&mut self, t: ThreadId, forks: u32) {
        let share = self.share_dense;
        let c = Rc::make_mut(self.next_epoch(t).clock());
        if share {
            c.share_dense();
        }
        c.set(t, forks);
    }

    /// Bytes held, roughly: the per-thread table, the table of earlier pinned epochs, and a
    /// clock struct per pinned epoch (the shared trees are not counted).
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.current.capacity() * size_of::<Current>()
            + self.pinned.capacity() * (size_of::<((ThreadId, u32), Rc<VectorClock>)>() + 1)
            + self.pins * size_of::<VectorClock>()
    }
}

/// Whether `p` (of thread `T`) and `q` (of thread `T'`) can be the ends of the two threads'
/// prefixes in one inferred run: Lemma 3, plus the fork/join order.
pub fn compatible(p: &ProfileRef, q: &ProfileRef, fj: &ForkJoin) -> bool {
    let (t, u) = (p.thread, q.thread);
    let q_needs = fj.component(u, q.epoch, t);
    let p_needs = fj.component(t, p.epoch, u);
    if q_needs > p.forks || p_needs > q.forks {
        return false;
    }
    if p.held().any(|h| q.holds(h.lock)) {
        return false;
    }
    histories_compatible(p, q)
        && !held_across_fork(p, q_needs, q)
        && !held_across_fork(q, p_needs, p)
}

/// No `l_a` of `p` and `m_b` of `q` with `m_b ∈ AH_p(l_a)` and `l_a ∈ AH_q(m_b)`.
pub fn histories_compatible(p: &ProfileRef, q: &ProfileRef) -> bool {
    let (p_held, q_held) = (p.held(), q.held());
    if p_held.len() == 0 || q_held.len() == 0 {
        return true;
    }
    let q_len = q_held.len();
    // The histories once, each a walk of the shared stack: one lookup per held lock after.
    let (p_history, q_history) = (p.history(), q.history());
    let depth = |history: &[(LockId, u32)], m: LockId| {
        history
            .binary_search_by_key(&m, |&(l, _)| l)
            .map_or(0, |i| history[i].1)
    };
    // prefix_max[y] = max over b < y of depth_p(m_b).
    let mut prefix_max = Vec::with_capacity(q_len + 1);
    prefix_max.push(0u32);
    for h in q_held {
        let last = *prefix_max.last().expect("non-empty");
        prefix_max.push(last.max(depth(&p_history, h.lock)));
    }
    p_held.enumerate().all(|(a, h)| {
        let y = (depth(&q_history, h.lock) as usize).min(q_len);
        prefix_max[y] <= a as u32
    })
}

/// Whether `parent` holds, since before its `rank`-th fork (which `child`'s thread needs to have
/// started), a lock that the child's thread has acquired.
fn held_across_fork(parent: &ProfileRef, rank: u32, child: &ProfileRef) -> bool {
    rank != 0
        && rank != COMPLETE
        && parent
            .held()
            .any(|h| h.forks_at_acquire < rank && child.acquired_guarded(h.lock))
}

/// The pattern of a violation: the kinds of `e1`, `f`, `e2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern(pub [bool; 3]);

impl Pattern {
    pub fn name(self) -> String {
        self.0.iter().map(|&w| if w { 'W' } else { 'R' }).collect()
    }
}

/// One violation class: a compatible pair of witnesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation {
    pub thread: ThreadId,
    pub other: ThreadId,
    pub var: VarId,
    pub pattern: Pattern,
    pub e1: Occurrence,
    pub f: Occurrence,
    pub e2: Occurrence,
    /// The event of `T` at which `f` can run (`e1 <= e < e2`).
    pub e: u64,
    pub class: (Pid, Pid),
}

/// The memoised compatibility of profile pairs, and what Phase II spends: every check is a
/// step of the run's budget, polled for its deadline, and the memo, the lockset index and
/// the violations found are charged to its memory limit before they grow.
pub struct Pairing<'b> {
    memo: FxHashMap<(Pid, Pid), bool>,
    pub checks: u64,
    meter: Meter<'b>,
    account: Account<'b>,
    /// Bytes held beside the memo (the violations, the index), as last charged.
    beside_memo: u64,
    /// The budget was spent before the pairing began (by the pass): it still pairs until its
    /// meter's first poll, as every loop of a run sees a spent budget at most
    /// [`hindsight_budget::CHECK_EVERY`] steps late, so that a short trace is paired whole.
    grace: bool,
}

/// Bytes of a memo of `capacity` entries: an entry and a control byte each.
fn memo_bytes(capacity: usize) -> u64 {
    (capacity * (std::mem::size_of::<((Pid, Pid), bool)>() + 1)) as u64
}

/// Bytes of a vector's buffer.
pub(crate) fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

impl<'b> Pairing<'b> {
    pub fn new(budget: &'b Budget) -> Pairing<'b> {
        Pairing {
            memo: FxHashMap::default(),
            checks: 0,
            meter: Meter::new(budget),
            account: Account::new(budget),
            beside_memo: 0,
            grace: budget.spent().is_some(),
        }
    }

    /// `charged`, the outcome of a charge, as the pairing takes it: refused only outside its
    /// grace.
    fn charged(&self, charged: Result<(), Spent>) -> Result<(), Spent> {
        match charged {
            Err(_) if self.grace => Ok(()),
            charged => charged,
        }
    }

    /// Whether profiles `p` and `q` are compatible, checked once per pair: an error once the
    /// budget is spent.
    pub fn compatible(
        &mut self,
        p: Pid,
        q: Pid,
        profiles: &Profiles,
        fj: &ForkJoin,
    ) -> Result<bool, Spent> {
        self.meter.step()?;
        if let Some(&c) = self.memo.get(&(p, q)) {
            return Ok(c);
        }
        if self.memo.len() == self.memo.capacity() {
            // The memo doubles on its next insert: charged first.
            let grown = (self.memo.capacity() * 2).max(16);
            let held = self.account.hold(memo_bytes(grown) + self.beside_memo);
            self.charged(held)?;
            // Refused in grace: the insert below allocates it.
            if held.is_ok() {
                self.memo
                    .try_reserve(grown - self.memo.len())
                    .map_err(|_| self.account.out_of_memory())?;
            }
        }
        self.checks += 1;
        let c = compatible(&profiles.get(p), &profiles.get(q), fj);
        self.memo.insert((p, q), c);
        Ok(c)
    }

    /// Room for one more element in `v`, a vector Phase II keeps beside `others` bytes
    /// (besides the memo), charged before it grows.
    pub fn reserve<T>(&mut self, v: &mut Vec<T>, others: u64) -> Result<(), Spent> {
        if v.len() < v.capacity() {
            return Ok(());
        }
        let memo = memo_bytes(self.memo.capacity());
        let reserved = self.account.reserve(v, 1, memo + others);
        self.charged(reserved)?;
        self.beside_memo = others + vec_bytes(v);
        Ok(())
    }

    /// Room for exactly `more` elements in `v`, an empty vector about to be filled whole,
    /// charged before it is allocated.
    pub fn reserve_exact<T>(&mut self, v: &mut Vec<T>, more: usize) -> Result<(), Spent> {
        let bytes = (more as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        let held = self
            .account
            .hold_within(memo_bytes(self.memo.capacity()).saturating_add(bytes));
        self.charged(held)?;
        match held {
            Ok(()) => v
                .try_reserve_exact(more)
                .map_err(|_| self.account.out_of_memory()),
            // In grace: the vector grows as it is filled.
            Err(_) => Ok(()),
        }
    }

    /// One step of a loop that may check no pair for long: an error once the budget is spent.
    #[inline]
    pub fn step(&mut self) -> Result<(), Spent> {
        self.meter.step()
    }

    /// Holds `bytes` beside the memo (a structure built whole, or one that shrank).
    pub fn hold(&mut self, bytes: u64) -> Result<(), Spent> {
        self.beside_memo = bytes;
        let held = self
            .account
            .hold_within(memo_bytes(self.memo.capacity()) + bytes);
        self.charged(held)
    }

    /// Phase II over the witness sets, grouped by variable: `sets` is sorted by variable. The
    /// violations go to `out`; an error once the budget is spent, `out` holding the violations
    /// of the threads paired before.
    ///
    /// Per variable, the accesses of the other threads (the `f` side) are indexed by the set
    /// of locks held at them, so a sandwiched witness meets only the classes whose locks it
    /// does not hold (Theorem 1 needs disjoint locksets): a thread per request that updates a
    /// shared variable under one lock costs a lookup per witness, not a pass over every other
    /// thread. Threads without sandwiched witnesses of a variable, like every one-access thread,
    /// cost nothing. The violations come out in the order of the plain double loop over pairs
    /// of threads.
    pub fn pair(
        &mut self,
        sets: &[((VarId, ThreadId), &VarWitnesses)],
        profiles: &Profiles,
        fj: &ForkJoin,
        out: &mut Vec<Violation>,
    ) -> Result<(), Spent> {
        // Write-Read-Write, then the four patterns with a write in the middle.
        const COMBOS: [(usize, usize, usize); 5] = [
            (WRITE, READ, WRITE),
            (READ, WRITE, READ),
            (READ, WRITE, WRITE),
            (WRITE, WRITE, READ),
            (WRITE, WRITE, WRITE),
        ];
        let mut found: Vec<(Order, Violation)> = Vec::new();
        let mut start = 0;
        while start < sets.len() {
            let var = sets[start].0 .0;
            let end = start + sets[start..].iter().take_while(|s| s.0 .0 == var).count();
            let group = &sets[start..end];
            start = end;
            if !group.iter().any(|(_, w)| w.has_sandwiched()) {
                continue;
            }
            let index = [
                LocksetIndex::new(group, READ, profiles),
                LocksetIndex::new(group, WRITE, profiles),
            ];
            let index_bytes = index[0].bytes() + index[1].bytes();
            self.hold(vec_bytes(out) + vec_bytes(&found) + index_bytes)?;
            for (i, ((_, t), mine)) in group.iter().enumerate() {
                found.clear();
                for (c, &(k1, kf, k2)) in COMBOS.iter().enumerate() {
                    for (si, (pe, s)) in mine.sandwiched(k1, k2).enumerate() {
                        let held = profiles.get(pe).held();
                        for class in &index[kf].classes {
                            if held
                                .clone()
                                .any(|h| class.locks.binary_search(&h.lock).is_ok())
                            {
                                continue;
                            }
                            for &(j, fi) in &class.members {
                                if j as usize == i {
                                    continue;
                                }
                                let ((_, u), theirs) = group[j as usize];
                                let (pf, f) = theirs.single[kf][fi as usize];
                                if self.compatible(pe, pf, profiles, fj)? {
                                    self.reserve(&mut found, vec_bytes(out) + index_bytes)?;
                                    found.push((
                                        (j, c as u32, si as u32, fi),
                                        Violation {
                                            thread: *t,
                                            other: u,
                                            var,
                                            pattern: Pattern([
                                                k1 == WRITE,
                                                kf == WRITE,
                                                k2 == WRITE,
                                            ]),
                                            e1: s.e1,
                                            f,
                                            e2: s.e2,
                                            e: s.e,
                                            class: (pe, pf),
                                        },
                                    ));
                                }
                            }
                        }
                    }
                }
                found.sort_unstable_by_key(|x| x.0);
                if out.capacity() - out.len() < found.len() {
                    let others = vec_bytes(&found) + index_bytes;
                    let reserved = self.account.reserve(
                        out,
                        found.len(),
                        memo_bytes(self.memo.capacity()) + others,
                    );
                    self.charged(reserved)?;
                    self.beside_memo = others + vec_bytes(out);
                }
                out.extend(found.drain(..).map(|x| x.1));
            }
        }
        self.hold(vec_bytes(out))
    }
}

/// Phase II's violation classes within a budget.
#[derive(Debug)]
pub struct Paired {
    /// The classes found, in the order of [`crate::atomicity::Atomicity::violations`].
    pub classes: Vec<Violation>,
    /// How many distinct pairs of profiles were checked.
    pub checks: u64,
    /// The limit that stopped the pairing before every class was found, if one did.
    pub stopped: Option<Spent>,
}

/// Phase II as the paper's Fig. 1 loops: every ordered pair of threads of every variable, every
/// sandwiched witness of the first with every access of the second. The oracle `pair` answers
/// as, violation for violation and in the same order.
#[cfg(feature = "oracle")]
pub fn pair_literal(
    sets: &[((VarId, ThreadId), &VarWitnesses)],
    profiles: &Profiles,
    fj: &ForkJoin,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < sets.len() {
        let var = sets[start].0 .0;
        let end = start + sets[start..].iter().take_while(|s| s.0 .0 == var).count();
        let group = &sets[start..end];
        for (i, ((_, t), mine)) in group.iter().enumerate() {
            for (j, ((_, u), theirs)) in group.iter().enumerate() {
                if i == j {
                    continue;
                }
                let combos = [
                    (WRITE, READ, WRITE),
                    (READ, WRITE, READ),
                    (READ, WRITE, WRITE),
                    (WRITE, WRITE, READ),
                    (WRITE, WRITE, WRITE),
                ];
                for (k1, kf, k2) in combos {
                    for (pe, s) in mine.sandwiched(k1, k2) {
                        for &(pf, f) in &theirs.single[kf] {
                            if compatible(&profiles.get(pe), &profiles.get(pf), fj) {
                                out.push(Violation {
                                    thread: *t,
                                    other: *u,
                                    var,
                                    pattern: Pattern([k1 == WRITE, kf == WRITE, k2 == WRITE]),
                                    e1: s.e1,
                                    f,
                                    e2: s.e2,
                                    e: s.e,
                                    class: (pe, pf),
                                });
                            }
                        }
                    }
                }
            }
        }
        start = end;
    }
    out
}

/// Where the plain double loop meets a violation of a thread: the other thread's place in the
/// variable's group, the pattern's place, the sandwich's and the access's.
type Order = (u32, u32, u32, u32);

/// One lockset class: the accesses of one kind, by place in the group and in the thread's set,
/// made while holding exactly `locks` (sorted).
struct LocksetClass {
    locks: Vec<LockId>,
    members: Vec<(u32, u32)>,
}

/// The accesses of one kind to one variable by every thread of its group, by lockset class.
struct LocksetIndex {
    classes: Vec<LocksetClass>,
}

impl LocksetIndex {
    /// Bytes held, roughly: the classes with their locks and members (the lookup table built
    /// with them is gone).
    fn bytes(&self) -> u64 {
        (vec_bytes(&self.classes)
            + self
                .classes
                .iter()
                .map(|c| vec_bytes(&c.locks) + vec_bytes(&c.members))
                .sum::<u64>())
            * 2
    }

    fn new(
        group: &[((VarId, ThreadId), &VarWitnesses)],
        kind: usize,
        profiles: &Profiles,
    ) -> LocksetIndex {
        let mut classes: Vec<LocksetClass> = Vec::new();
        let mut of: FxHashMap<Vec<LockId>, usize> = FxHashMap::default();
        let mut key = Vec::new();
        for (j, (_, w)) in group.iter().enumerate() {
            for (fi, &(pf, _)) in w.single[kind].iter().enumerate() {
                key.clear();
                key.extend(profiles.get(pf).held().map(|h| h.lock));
                key.sort_unstable();
                let c = match of.get(&key) {
                    Some(&c) => c,
                    None => {
                        of.insert(key.clone(), classes.len());
                        classes.push(LocksetClass {
                            locks: key.clone(),
                            members: Vec::new(),
                        });
                        classes.len() - 1
                    }
                };
                classes[c].members.push((j as u32, fi as u32));
            }
        }
        LocksetIndex { classes }
    }
}
