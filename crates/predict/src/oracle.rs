//! The brute-force reference: every correct reordering of a small trace, enumerated, and the
//! pairs of conflicting accesses some reordering enables together. It follows the definitions
//! literally and shares nothing with the models, so that tests can hold one against the other.
//!
//! A *correct reordering* of a trace σ is a sequence ρ of σ's events such that
//! - each thread's events in ρ are a prefix of its events in σ (and a thread's events come after
//!   the forks of it that σ has before them, a join after every event of the joined thread and
//!   every fork of it before the join);
//! - locks are well formed: a lock is acquired only when no other thread holds it (re-entrant
//!   acquires and releases, those that do not change whether the thread holds the lock, are
//!   no-ops, as RAPID treats them);
//! - every read in ρ sees the same write as in σ (the last write to its variable before it, or
//!   none), and every receive the same send. Atomic accesses are reads and writes here: an
//!   atomic load reads, an atomic store writes, and an RMW, one event, reads (the write it sees
//!   is kept) and then writes.
//!
//! ρ is *sync-preserving* when, moreover, the acquires of each lock in ρ are in their σ order.
//! Two events are *enabled* in ρ when neither is in ρ and every event before each in its
//! thread (and each fork of its thread before it in σ) is. A *predictable race* is a pair of conflicting
//! plain accesses (same variable, different threads, at least one a write; atomics never
//! race) enabled together in some
//! correct reordering; a *sync-preserving race*, in some sync-preserving one. A *predictable
//! deadlock* is a correct reordering in which threads wait for each other in a cycle, each's
//! next event the acquire of a lock the next thread holds.
//!
//! A fork orders the child's events after it in σ, and only those: a log that shows a child's
//! events before its fork (a reader's warning) or a thread forked twice is read as the models
//! and happens-before read it. On traces whose threads are forked before they act, this is
//! the papers' definition.
//!
//! Test support, not API: compiled only with the `oracle` feature.

use hindsight_trace::{Op, Trace};
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;

/// Which reorderings the enumeration explores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reorderings {
    Correct,
    SyncPreserving,
}

/// What the enumeration found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Truth {
    /// Every race, as (earlier, later) event indices in σ.
    pub races: BTreeSet<(u64, u64)>,
    /// Whether some explored reordering deadlocks.
    pub deadlock: bool,
}

impl Truth {
    /// The later event of every race: what a race report calls a racy event.
    pub fn racy_events(&self) -> BTreeSet<u64> {
        self.races.iter().map(|&(_, j)| j).collect()
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pos: Vec<u32>,
    last_write: Vec<Option<usize>>,
    last_send: Vec<Option<usize>>,
    holder: Vec<Option<u32>>,
    last_acquire: Vec<Option<usize>>,
}

struct Facts<'a> {
    trace: &'a Trace,
    by_thread: Vec<Vec<usize>>,
    rank: Vec<u32>,
    /// The write (send) a read (receive) sees in σ.
    sees: Vec<Option<usize>>,
    /// Whether a lock event changes whether its thread holds the lock.
    outer: Vec<bool>,
    /// Per thread, the forks of it, in σ's order.
    forks_of: Vec<Vec<usize>>,
}

impl Facts<'_> {
    fn done(&self, s: &State, i: usize) -> bool {
        let t = self.trace.events[i].thread.index();
        self.rank[i] < s.pos[t]
    }

    /// The forks of `t` before `i` in σ: those that order event `i` of `t`.
    fn forks_before(&self, t: usize, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.forks_of[t].iter().copied().take_while(move |&f| f < i)
    }

    fn enabled(&self, s: &State, t: usize) -> Option<usize> {
        let next = self.by_thread[t].get(s.pos[t] as usize).copied()?;
        self.forks_before(t, next)
            .all(|f| self.done(s, f))
            .then_some(next)
    }

    fn executable(&self, s: &State, i: usize, which: Reorderings) -> bool {
        let e = &self.trace.events[i];
        match e.op {
            Op::Read(x) | Op::AtomicLoad(x) | Op::AtomicRmw(x) => {
                s.last_write[x.index()] == self.sees[i]
            }
            Op::Receive(m) => s.last_send[m.index()] == self.sees[i],
            Op::Acquire(l) if self.outer[i] => {
                s.holder[l.index()].is_none()
                    && (which == Reorderings::Correct
                        || s.last_acquire[l.index()].is_none_or(|a| a < i))
            }
            // A thread is joined once it has ended, which is after it was forked (even when
            // the log shows none of its events after the fork).
            Op::Join(u) => {
                s.pos[u.index()] as usize == self.by_thread[u.index()].len()
                    && self.forks_before(u.index(), i).all(|f| self.done(s, f))
            }
            _ => true,
        }
    }

    fn execute(&self, s: &State, i: usize) -> State {
        let e = &self.trace.events[i];
        let mut n = s.clone();
        n.pos[e.thread.index()] += 1;
        match e.op {
            Op::Write(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => {
                n.last_write[x.index()] = Some(i)
            }
            Op::Send(m) => n.last_send[m.index()] = Some(i),
            Op::Acquire(l) if self.outer[i] => {
                n.holder[l.index()] = Some(e.thread.0);
                n.last_acquire[l.index()] = Some(i);
            }
            Op::Release(l) if self.outer[i] => n.holder[l.index()] = None,
            _ => {}
        }
        n
    }
}

/// A plain access: the only ones that race.
fn access(op: &Op) -> Option<(u32, bool)> {
    match op {
        Op::Read(x) => Some((x.0, false)),
        Op::Write(x) => Some((x.0, true)),
        _ => None,
    }
}

fn facts(trace: &Trace) -> Facts<'_> {
    let names = &trace.names;
    let mut by_thread = vec![Vec::new(); names.threads.len()];
    let mut rank = Vec::with_capacity(trace.events.len());
    let mut sees = vec![None; trace.events.len()];
    let mut outer = vec![false; trace.events.len()];
    let mut forks_of = vec![Vec::new(); names.threads.len()];
    let mut last_write = vec![None; names.vars.len()];
    let mut last_send = vec![None; names.msgs.len()];
    let mut depth = vec![vec![0u32; names.locks.len()]; names.threads.len()];
    for (i, e) in trace.events.iter().enumerate() {
        let t = e.thread.index();
        rank.push(by_thread[t].len() as u32);
        by_thread[t].push(i);
        match e.op {
            Op::Read(x) | Op::AtomicLoad(x) => sees[i] = last_write[x.index()],
            Op::Write(x) | Op::AtomicStore(x) => last_write[x.index()] = Some(i),
            Op::AtomicRmw(x) => {
                sees[i] = last_write[x.index()];
                last_write[x.index()] = Some(i);
            }
            Op::Receive(m) => sees[i] = last_send[m.index()],
            Op::Send(m) => last_send[m.index()] = Some(i),
            Op::Acquire(l) => {
                depth[t][l.index()] += 1;
                outer[i] = depth[t][l.index()] == 1;
            }
            Op::Release(l) => {
                outer[i] = depth[t][l.index()] == 1;
                depth[t][l.index()] = depth[t][l.index()].saturating_sub(1);
            }
            Op::Fork(u) => {
                forks_of[u.index()].push(i);
            }
            _ => {}
        }
    }
    Facts {
        trace,
        by_thread,
        rank,
        sees,
        outer,
        forks_of,
    }
}

/// Enumerates the reorderings `which` names of `trace` (a trace in the papers' model: locks
/// well formed, threads forked before they act) and collects their races and deadlocks.
/// Exponential: for traces of a dozen events.
pub fn explore(trace: &Trace, which: Reorderings) -> Truth {
    let f = facts(trace);
    let names = &trace.names;
    let threads = names.threads.len();
    let start = State {
        pos: vec![0; threads],
        last_write: vec![None; names.vars.len()],
        last_send: vec![None; names.msgs.len()],
        holder: vec![None; names.locks.len()],
        last_acquire: vec![None; names.locks.len()],
    };
    let mut truth = Truth::default();
    let mut seen = FxHashSet::default();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let enabled: Vec<Option<usize>> = (0..threads).map(|t| f.enabled(&s, t)).collect();
        for (t, &a) in enabled.iter().enumerate() {
            for &b in &enabled[t + 1..] {
                let (Some(a), Some(b)) = (a, b) else { continue };
                let (ea, eb) = (&trace.events[a], &trace.events[b]);
                if let (Some((x, wa)), Some((y, wb))) = (access(&ea.op), access(&eb.op)) {
                    if x == y && (wa || wb) {
                        truth.races.insert((a.min(b) as u64, a.max(b) as u64));
                    }
                }
            }
        }
        truth.deadlock |= deadlocked(&f, &s, &enabled);
        for &i in enabled.iter().flatten() {
            if f.executable(&s, i, which) {
                stack.push(f.execute(&s, i));
            }
        }
    }
    truth
}

/// Whether some threads of state `s` wait for each other in a cycle of lock acquires.
fn deadlocked(f: &Facts<'_>, s: &State, enabled: &[Option<usize>]) -> bool {
    let waits_for: Vec<Option<usize>> = enabled
        .iter()
        .enumerate()
        .map(|(t, &e)| {
            let i = e?;
            match f.trace.events[i].op {
                Op::Acquire(l) if f.outer[i] => {
                    s.holder[l.index()].map(|h| h as usize).filter(|&h| h != t)
                }
                _ => None,
            }
        })
        .collect();
    (0..waits_for.len()).any(|start| {
        let mut at = start;
        for _ in 0..waits_for.len() {
            match waits_for[at] {
                Some(next) if next == start => return true,
                Some(next) => at = next,
                None => return false,
            }
        }
        false
    })
}

/// The optimistic sync-reversal races of `trace` (ICSE'24), by the definitions taken
/// literally on sets of events, as the paper's authors' engine in RAPID implements them (see
/// the `osr` module's comment for the words and that comparison): for each pair of
/// conflicting accesses e1 before e2, the optimistic lock closure S in the prefix ending at e2,
/// then whether neither access is in S, no lock has two sections open in S, and the abstract
/// graph on S (thread order, fork, join, the trace order of conflicting events and of closed
/// sections of a lock, every closed section's release before its lock's open acquire) has no
/// cycle. Quadratic sets and a graph per pair: for traces of a dozen events.
pub fn osr_races(trace: &Trace) -> BTreeSet<(u64, u64)> {
    let f = facts(trace);
    let n = trace.events.len();
    let mut races = BTreeSet::new();
    for j in 0..n {
        for i in 0..j {
            let (ei, ej) = (&trace.events[i], &trace.events[j]);
            let conflict = matches!((access(&ei.op), access(&ej.op)),
                (Some((x, wa)), Some((y, wb))) if x == y && (wa || wb));
            if conflict && ei.thread != ej.thread && osr_race(&f, i, j) {
                races.insert((i as u64, j as u64));
            }
        }
    }
    races
}

/// The smallest superset of `set` within the first `limit` events closed under thread order,
/// fork, join and reads-from.
fn tr_close(f: &Facts<'_>, set: &mut [bool], limit: usize) {
    let events = &f.trace.events;
    loop {
        let mut changed = false;
        for k in 0..limit {
            if !set[k] {
                continue;
            }
            let t = events[k].thread.index();
            let mut needs: Vec<usize> = f.by_thread[t][..f.rank[k] as usize].to_vec();
            needs.extend(f.forks_before(t, k));
            needs.extend(f.sees[k]);
            if let Op::Join(u) = events[k].op {
                needs.extend(f.by_thread[u.index()].iter().filter(|&&q| q < limit));
                needs.extend(f.forks_before(u.index(), k));
            }
            for q in needs {
                if !set[q] {
                    set[q] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// The outer release that ends the section an outer acquire `a` begins, if the trace has it.
fn matching_release(f: &Facts<'_>, a: usize) -> Option<usize> {
    let e = &f.trace.events[a];
    let Op::Acquire(l) = e.op else { return None };
    f.by_thread[e.thread.index()][f.rank[a] as usize + 1..]
        .iter()
        .copied()
        .find(|&q| f.outer[q] && f.trace.events[q].op == Op::Release(l))
}

fn osr_race(f: &Facts<'_>, i: usize, j: usize) -> bool {
    let events = &f.trace.events;
    let limit = j + 1;
    let n = events.len();
    let before = |e: usize, set: &mut Vec<bool>| {
        let t = events[e].thread.index();
        for &q in &f.by_thread[t][..f.rank[e] as usize] {
            set[q] = true;
        }
        for fork in f.forks_before(t, e) {
            set[fork] = true;
        }
    };
    let mut s = vec![false; n];
    before(i, &mut s);
    before(j, &mut s);
    tr_close(f, &mut s, limit);
    // The optimistic lock rule, to a fixpoint.
    loop {
        let mut changed = false;
        for a in 0..limit {
            let Op::Acquire(_) = events[a].op else {
                continue;
            };
            if !s[a] || !f.outer[a] {
                continue;
            }
            let Some(r) = matching_release(f, a).filter(|&r| r < j) else {
                continue;
            };
            if s[r] {
                continue;
            }
            let mut of_r = vec![false; n];
            of_r[r] = true;
            tr_close(f, &mut of_r, limit);
            if of_r[i] || of_r[j] {
                continue;
            }
            for q in 0..n {
                if of_r[q] && !s[q] {
                    s[q] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    if s[i] || s[j] {
        return false;
    }
    // Sections of S: (lock, acquire, release if in S).
    let sections: Vec<(u32, usize, Option<usize>)> = (0..limit)
        .filter(|&a| s[a] && f.outer[a])
        .filter_map(|a| match events[a].op {
            Op::Acquire(l) => Some((l.0, a, matching_release(f, a).filter(|&r| s[r]))),
            _ => None,
        })
        .collect();
    let mut open_locks = BTreeSet::new();
    for &(l, _, r) in &sections {
        if r.is_none() && !open_locks.insert(l) {
            return false;
        }
    }
    // The abstract graph on S, every edge listed.
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for t in &f.by_thread {
        for w in t.windows(2) {
            if s[w[1]] {
                edges.push((w[0], w[1]));
            }
        }
    }
    for (u, forks) in f.forks_of.iter().enumerate() {
        for &fork in forks {
            // The fork orders the child's first event after it (and so the rest).
            if let Some(&first) = f.by_thread[u].iter().find(|&&q| q > fork) {
                if s[first] {
                    edges.push((fork, first));
                }
            }
        }
    }
    for k in (0..limit).filter(|&k| s[k]) {
        if let Op::Join(u) = events[k].op {
            for &q in &f.by_thread[u.index()] {
                edges.push((q, k));
            }
            for fork in f.forks_before(u.index(), k) {
                edges.push((fork, k));
            }
        }
    }
    let touches = |op: &Op| -> Option<(u8, u32, bool)> {
        match *op {
            Op::Read(x) | Op::AtomicLoad(x) => Some((0, x.0, false)),
            Op::Write(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => Some((0, x.0, true)),
            Op::Receive(m) => Some((1, m.0, false)),
            Op::Send(m) => Some((1, m.0, true)),
            _ => None,
        }
    };
    for b in (0..limit).filter(|&b| s[b]) {
        for a in (0..b).filter(|&a| s[a]) {
            if let (Some((ka, xa, wa)), Some((kb, xb, wb))) =
                (touches(&events[a].op), touches(&events[b].op))
            {
                if ka == kb && xa == xb && (wa || wb) {
                    edges.push((a, b));
                }
            }
        }
    }
    for &(l, a, ra) in &sections {
        for &(m, b, rb) in &sections {
            if l != m || a == b {
                continue;
            }
            match (ra, rb) {
                (Some(ra), Some(_)) if a < b => edges.push((ra, b)),
                (Some(ra), None) => edges.push((ra, b)),
                _ => {}
            }
        }
    }
    // Acyclic: repeatedly remove events with no incoming edge from the rest.
    let mut alive: Vec<bool> = s.clone();
    loop {
        let mut removed = false;
        for k in 0..n {
            if alive[k] && !edges.iter().any(|&(a, b)| b == k && alive[a]) {
                alive[k] = false;
                removed = true;
            }
        }
        if !removed {
            return !alive.iter().any(|&x| x);
        }
    }
}
