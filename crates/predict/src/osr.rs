//! Optimistic sync-reversal races (Shi, Mathur, Pavlogiannis, ICSE'24, "Optimistic Prediction
//! of Synchronization-Reversal Data Races", doi 10.1145/3597503.3639099): races that need the
//! order of two critical sections of one lock reversed, which sync-preserving races never do,
//! found in quadratic time.
//!
//! For a pair of conflicting accesses e1 before e2 (in the trace σ), the paper's *optimistic
//! lock closure* OLClosure(e1, e2) is the smallest set S of events that holds the events before
//! each access in its thread (and its thread's fork), is closed under thread order, fork, join
//! and reads-from (each read with the write it sees, each receive with its send), and holds the
//! release of every critical section whose acquire is in S, unless the closure of that release
//! would hold e1 or e2: optimistically, every section that can be closed without the accesses
//! is closed. Releases are taken from the prefix of σ that ends at e2: a section still open
//! when e2 happens counts as open. Every correct reordering of that prefix is one of σ, so
//! soundness is unchanged.
//!
//! The paper's text past its abstract was not available to us; these definitions are checked
//! line by line against its authors' engine in RAPID (`focs-lab/rapid`, read for the
//! definitions only), which agrees on each point: `OSREvent.calcOSR` starts from the
//! thread-local closures (thread order, fork, join, reads-from) before e1 and e2, and per lock
//! and thread closes the sections in S in order, stopping at the first whose release is not yet
//! in the trace or whose closure holds e1 or e2 (it runs online, so "not yet" is our prefix);
//! `checkOpenAcquires` refuses a lock with two open sections; `getAllBackwardEdges` draws one
//! edge per lock, from its latest release in S to its open acquire when that acquire is earlier;
//! the forward edges (`POBuild/POBuildReverse`: "write-write, read-write, write-read, rel-acq,
//! fork and join") are the σ order of conflicting accesses and of a lock's sections, followed
//! only through events of S (`POBuild/PartialOrder.queryForEvent`). So a race that needs two
//! writes swapped where no read observes them is not an OSR race (`tests/papers.rs`, the WDP
//! paper's Figure 3(a)).
//!
//! (e1, e2) is an *OSR race* when neither access is in S, at most one critical section of each
//! lock is open in S (acquired in S, released outside it), and S has the *optimistic
//! reordering*: S's events in an order that keeps thread order, fork and join, the σ order of
//! conflicting events (so every read sees its write), the σ order of the closed sections of
//! each lock, and puts each lock's open section after all of that lock's closed ones. Such an
//! order is a correct reordering after which e1 and e2 are both enabled, and it exists exactly
//! when the paper's *abstract optimistic reordering graph* is acyclic: all of those edges go
//! forward in σ except one per lock, from the last release in S of a lock to its open acquire
//! when that acquire is earlier (the reversal), so a cycle is a chain of reversals each of whose
//! open acquires reaches, forward, the release that the next reversal starts from. [`decide`]
//! computes S with per-event closures (a fixpoint over the sections open at S's frontier) and,
//! only when S reverses a section, tests that chain with one forward sweep of the σ window
//! between the earliest reversed acquire and the latest reversing release, a bit per reversal.
//!
//! The pass keeps the trace as [`Recording`] and, per variable and thread, every access as a
//! candidate, bucketed by the locks its thread held: two accesses holding a common lock both
//! leave that lock's sections open, so a bucket sharing a lock with the access at hand is
//! skipped whole; a candidate in the closure of the events before the access is skipped for
//! every later access of the thread too. Whether a candidate races otherwise is decided pair by
//! pair, latest candidate first, stopping at the first race. At worst that is quadratically
//! many closures, each a fixpoint over per-event clocks; the paper's algorithm bounds the whole
//! at Õ(N²) with closures computed incrementally, which this one does not attempt (on the
//! benchmark's traces the scan stays close to linear: BENCHMARKS.md).

use crate::accesses::Locksets;
use crate::found::{Access, Found, Race};
use crate::recording::{Frontier, Recording};
use crate::shb::{finish_with, Options};
use crate::touched::{Accessors, Go, Order, Touched};
use hindsight_order::HappensBefore;
use hindsight_report::Rule;
use hindsight_stream::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use hindsight_trace::{ErrorKind, Event, LocId, LockId, Names, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const READ: u8 = 0;
const WRITE: u8 = 1;
const ACQUIRE: u8 = 2;
const RELEASE: u8 = 3;
const FORK: u8 = 5;
const JOIN: u8 = 6;
const SEND: u8 = 9;
const RECEIVE: u8 = 10;
const ATOMIC_LOAD: u8 = 12;
const ATOMIC_STORE: u8 = 13;
const ATOMIC_RMW: u8 = 14;

/// The kind an event has for the closure and the graph: an atomic load sees a write as a read
/// does, an atomic store is a write; an RMW stays itself (a read and a write at one place).
fn plain_kind(kind: u8) -> u8 {
    match kind {
        ATOMIC_LOAD => READ,
        ATOMIC_STORE => WRITE,
        k => k,
    }
}

/// One access of a pair: its thread and its rank (position) in the thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub thread: ThreadId,
    pub rank: u32,
}

/// A critical section left open by the closure: its lock and its acquire's index; `reverser`,
/// the latest release in S of the lock's closed sections when that comes after the acquire.
#[derive(Clone, Copy, Debug)]
struct Open {
    lock: LockId,
    acquire: u64,
    reverser: Option<u64>,
}

/// Reused buffers of [`decide`].
#[derive(Default)]
pub struct Scratch {
    set: Frontier,
    opens: Vec<Open>,
    /// Sweep state, by thread met in the window: the reversals whose open acquire reaches the
    /// thread's latest event in the window, what reaches each thread's first event by its
    /// fork, and the rank of its next event.
    thread_mask: FxHashMap<u32, u64>,
    fork_mask: FxHashMap<u32, u64>,
    rank: FxHashMap<u32, u32>,
    /// Sweep state, per variable or message: the reversals reaching an earlier write (send)
    /// and an earlier access of it; per lock, an earlier release.
    writes: FxHashMap<(u8, u32), u64>,
    accesses: FxHashMap<(u8, u32), u64>,
    releases: FxHashMap<u32, u64>,
    /// What [`decide`] did: closures computed, and closures whose reversals were swept.
    pub closures: u64,
    pub sweeps: u64,
}

/// The optimistic lock closure of the pair (`e1` earlier in the trace, `e2` at trace index
/// `limit`), into `set`: `false` when it holds `e1` (it never holds `e2`).
///
/// Each round walks the threads the set holds events of (threads with none hold no lock), and
/// joins the closure of each release it adds: the set stays a union of closures, so closed
/// under thread order, fork, join and reads-from.
fn closure(rec: &Recording, e1: At, e2: At, limit: u64, set: &mut Frontier) -> bool {
    *set = Frontier::new();
    rec.join_predecessors(e1.thread, e1.rank, set);
    rec.join_predecessors(e2.thread, e2.rank, set);
    if set.get(e1.thread) > e1.rank {
        return false;
    }
    let mut support: Vec<(ThreadId, u32)> = Vec::new();
    loop {
        support.clear();
        set.for_each_nonzero(|v, n| support.push((v, n)));
        let mut changed = false;
        for &(vt, _) in &support {
            let n = set.get(vt);
            for l in rec.held_after(vt, n) {
                let Some((_, release)) = rec.section_within(vt, l, n) else {
                    continue;
                };
                if release == u32::MAX || rec.index_of(vt, release) >= limit {
                    continue;
                }
                if rec.closure_count(vt, release, e1.thread) > e1.rank
                    || rec.closure_count(vt, release, e2.thread) > e2.rank
                {
                    continue;
                }
                rec.join_closure_of(vt, release, set);
                changed = true;
            }
        }
        if !changed {
            return true;
        }
    }
}

/// The sections open in `set`, each with its reversing release; `false` when some lock has two.
fn open_sections(rec: &Recording, set: &Frontier, opens: &mut Vec<Open>) -> bool {
    opens.clear();
    let mut support: Vec<(ThreadId, u32)> = Vec::new();
    set.for_each_nonzero(|v, n| support.push((v, n)));
    for &(v, n) in &support {
        for lock in rec.held_after(v, n) {
            if opens.iter().any(|o| o.lock == lock) {
                return false;
            }
            let (acquire, _) = rec
                .section_within(v, lock, n)
                .expect("a held lock has a section");
            let last = rec
                .users_within(lock, &support)
                .filter_map(|w| rec.last_release_within(w, lock, set.get(w)))
                .max();
            opens.push(Open {
                lock,
                acquire,
                reverser: last.filter(|&r| r > acquire),
            });
        }
    }
    true
}

/// Whether the event of `v` at `rank`, an acquire or release of `l`, takes or gives up the lock.
fn outer(rec: &Recording, v: ThreadId, rank: u32, l: LockId, acquire: bool) -> bool {
    let before = if acquire { rank } else { rank + 1 };
    !rec.holds_after(v, before, l)
}

/// Whether the reversals of `s.opens` (those with a reverser) close a cycle: one forward sweep
/// of the σ window between them, a bit per reversal, then a cycle search among them.
fn reversals_cycle(rec: &Recording, s: &mut Scratch) -> bool {
    let reversals: Vec<(u64, u64)> = s
        .opens
        .iter()
        .filter_map(|o| o.reverser.map(|r| (o.acquire, r)))
        .collect();
    if reversals.is_empty() {
        return false;
    }
    s.sweeps += 1;
    let n = reversals.len();
    // `reaches[i][j]`: reversal i's open acquire reaches, forward, reversal j's release.
    let mut reaches = vec![vec![false; n]; n];
    let hi = reversals.iter().map(|r| r.1).max().expect("not empty");
    for chunk_start in (0..n).step_by(64) {
        let chunk = &reversals[chunk_start..n.min(chunk_start + 64)];
        let lo = chunk.iter().map(|r| r.0).min().expect("not empty");
        s.thread_mask.clear();
        s.fork_mask.clear();
        s.rank.clear();
        s.writes.clear();
        s.accesses.clear();
        s.releases.clear();
        for i in lo..=hi {
            let e = rec.events[i as usize];
            let v = e.thread.0;
            let next = s
                .rank
                .entry(v)
                .or_insert_with(|| rec.count_before(e.thread, lo));
            let rank = *next;
            *next += 1;
            if rank >= s.set.get(e.thread) {
                continue;
            }
            let mut m = s.thread_mask.get(&v).copied().unwrap_or(0);
            if rank == 0 {
                m |= s.fork_mask.get(&v).copied().unwrap_or(0);
            }
            for (k, r) in chunk.iter().enumerate() {
                if r.0 == i {
                    m |= 1 << k;
                }
            }
            let kind = plain_kind(e.kind);
            match kind {
                READ | RECEIVE | ATOMIC_RMW => {
                    let key = (if kind == RECEIVE { SEND } else { WRITE }, e.target);
                    m |= s.writes.get(&key).copied().unwrap_or(0);
                    *s.accesses.entry(key).or_default() |= m;
                    if kind == ATOMIC_RMW {
                        m |= s.accesses.get(&key).copied().unwrap_or(0);
                        *s.accesses.entry(key).or_default() |= m;
                        *s.writes.entry(key).or_default() |= m;
                    }
                }
                WRITE | SEND => {
                    let key = (kind, e.target);
                    m |= s.accesses.get(&key).copied().unwrap_or(0);
                    *s.accesses.entry(key).or_default() |= m;
                    *s.writes.entry(key).or_default() |= m;
                }
                ACQUIRE if outer(rec, e.thread, rank, LockId(e.target), true) => {
                    m |= s.releases.get(&e.target).copied().unwrap_or(0);
                }
                RELEASE if outer(rec, e.thread, rank, LockId(e.target), false) => {
                    *s.releases.entry(e.target).or_default() |= m;
                }
                FORK => *s.fork_mask.entry(e.target).or_default() |= m,
                JOIN => m |= s.thread_mask.get(&e.target).copied().unwrap_or(0),
                _ => {}
            }
            s.thread_mask.insert(v, m);
            if m != 0 {
                for (j, r) in reversals.iter().enumerate() {
                    if r.1 == i {
                        for (k, row) in reaches[chunk_start..chunk_start + chunk.len()]
                            .iter_mut()
                            .enumerate()
                        {
                            row[j] |= m >> k & 1 == 1;
                        }
                    }
                }
            }
        }
    }
    // A cycle: reversal i reaches j's release, whose reversal leads to j's acquire, ... to i.
    fn visit(i: usize, reaches: &[Vec<bool>], state: &mut [u8]) -> bool {
        state[i] = 1;
        for j in 0..reaches.len() {
            if reaches[i][j] && (state[j] == 1 || (state[j] == 0 && visit(j, reaches, state))) {
                return true;
            }
        }
        state[i] = 2;
        false
    }
    let mut state = vec![0u8; n];
    (0..n).any(|i| state[i] == 0 && visit(i, &reaches, &mut state))
}

/// Whether (`e1`, `e2`) is an OSR race, `e2` being the event at trace index `limit` (releases
/// from there on are not looked at); `s.set` is left holding the closure.
pub fn decide(rec: &Recording, e1: At, e2: At, limit: u64, s: &mut Scratch) -> bool {
    s.closures += 1;
    let mut set = std::mem::take(&mut s.set);
    let outside = closure(rec, e1, e2, limit, &mut set);
    s.set = set;
    if !outside {
        return false;
    }
    let mut opens = std::mem::take(&mut s.opens);
    let single = open_sections(rec, &s.set, &mut opens);
    s.opens = opens;
    single && !reversals_cycle(rec, s)
}

/// The optimistic reordering of the race (`first`, `second`) (trace indices, `first` earlier):
/// the closure's events in an order of the abstract graph (Kahn's, earliest trace index
/// first), or `None` when the pair is not an OSR race.
pub fn reordering(rec: &Recording, first: u64, second: u64) -> Option<Vec<u64>> {
    let at = |i: u64| At {
        thread: rec.events[i as usize].thread,
        rank: rec.rank(i),
    };
    let mut s = Scratch::default();
    if !decide(rec, at(first), at(second), second, &mut s) {
        return None;
    }
    let events = rec.schedule(&s.set);
    let position: FxHashMap<u64, usize> = events.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
    let mut indegree = vec![0u32; events.len()];
    let mut edge = |from: usize, to: usize, successors: &mut Vec<Vec<usize>>| {
        successors[from].push(to);
        indegree[to] += 1;
    };
    let mut last_of_thread: FxHashMap<u32, usize> = FxHashMap::default();
    let mut forks: FxHashMap<u32, usize> = FxHashMap::default();
    let mut last_write: FxHashMap<(u8, u32), usize> = FxHashMap::default();
    let mut reads_since: FxHashMap<(u8, u32), Vec<usize>> = FxHashMap::default();
    let mut last_release: FxHashMap<u32, usize> = FxHashMap::default();
    let mut ranks: FxHashMap<u32, u32> = FxHashMap::default();
    for (p, &i) in events.iter().enumerate() {
        let e = rec.events[i as usize];
        let rank = *ranks.entry(e.thread.0).and_modify(|r| *r += 1).or_insert(0);
        if let Some(&q) = last_of_thread.get(&e.thread.0) {
            edge(q, p, &mut successors);
        } else if let Some(&f) = forks.get(&e.thread.0) {
            edge(f, p, &mut successors);
        }
        last_of_thread.insert(e.thread.0, p);
        let kind = plain_kind(e.kind);
        match kind {
            READ | RECEIVE => {
                let key = (if kind == READ { WRITE } else { SEND }, e.target);
                if let Some(&w) = last_write.get(&key) {
                    edge(w, p, &mut successors);
                }
                reads_since.entry(key).or_default().push(p);
            }
            WRITE | SEND | ATOMIC_RMW => {
                let key = (if kind == SEND { SEND } else { WRITE }, e.target);
                if let Some(&w) = last_write.get(&key) {
                    edge(w, p, &mut successors);
                }
                for r in reads_since.remove(&key).unwrap_or_default() {
                    edge(r, p, &mut successors);
                }
                last_write.insert(key, p);
            }
            ACQUIRE if outer(rec, e.thread, rank, LockId(e.target), true) => {
                if let Some(&r) = last_release.get(&e.target) {
                    edge(r, p, &mut successors);
                }
            }
            RELEASE if outer(rec, e.thread, rank, LockId(e.target), false) => {
                last_release.insert(e.target, p);
            }
            FORK => {
                forks.insert(e.target, p);
            }
            JOIN => {
                if let Some(&q) = last_of_thread.get(&e.target) {
                    edge(q, p, &mut successors);
                }
            }
            _ => {}
        }
    }
    for o in &s.opens {
        if let Some(r) = o.reverser {
            edge(position[&r], position[&o.acquire], &mut successors);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..events.len())
        .filter(|&p| indegree[p] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(events.len());
    while let Some(Reverse(p)) = ready.pop() {
        order.push(events[p]);
        for &q in &successors[p] {
            indegree[q] -= 1;
            if indegree[q] == 0 {
                ready.push(Reverse(q));
            }
        }
    }
    (order.len() == events.len()).then_some(order)
}

/// A candidate partner: an access kept for later accesses of the variable.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    rank: u32,
    index: u64,
    /// Its thread's happens-before epoch.
    hb: u32,
    loc: Option<LocId>,
}

/// The accesses of one thread to one variable made holding one set of locks, and, per thread
/// `t` and kind (a write: `true`), how many of them are in the closure of the events before
/// `t`'s latest access (only for the threads whose scans met them).
#[derive(Default)]
struct Bucket {
    lockset: u32,
    reads: Vec<Candidate>,
    writes: Vec<Candidate>,
    cursors: FxHashMap<(ThreadId, bool), usize>,
}

/// The accesses of one thread to one variable, in buckets, and the buckets most recently
/// added to first: a scan stops at the first bucket whose latest access is already in the
/// closure before the access at hand, since every later bucket's are too.
#[derive(Default)]
struct Buckets {
    buckets: Vec<Bucket>,
    recent: Vec<u32>,
}

impl Buckets {
    /// What the two lists have allocated (not the buckets' own lists: see [`Bucket::bytes`]).
    fn bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>() + self.recent.capacity() * 4
    }
}

/// What a map entry of [`Osr::buckets`] or of a bucket's cursors takes besides its value.
const ENTRY_BYTES: usize = 24;

/// The OSR analysis.
pub struct Osr {
    recording: Recording,
    vars: Vec<Accessors>,
    /// Per variable and thread, the buckets of its accesses.
    buckets: FxHashMap<(VarId, ThreadId), Buckets>,
    found: Found,
    scratch: Scratch,
    before: Frontier,
    locksets: Locksets,
    /// What the per-variable tables, the buckets and their lists and cursors have allocated,
    /// counted as they grow (see [`Osr::bytes`]).
    bucket_bytes: usize,
}

impl Bucket {
    fn bytes(&self) -> usize {
        (self.reads.capacity() + self.writes.capacity()) * std::mem::size_of::<Candidate>()
            + self.cursors.capacity() * ENTRY_BYTES
    }
}

impl Osr {
    pub fn new(options: Options) -> Osr {
        Osr {
            recording: Recording::new(),
            vars: Vec::new(),
            buckets: FxHashMap::default(),
            found: Found::new("osr", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            scratch: Scratch::default(),
            before: Frontier::new(),
            locksets: Locksets::default(),
            bucket_bytes: 0,
        }
    }

    /// The races kept so far (see [`Found::races`]).
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    /// Checks the access `e` against the accesses of the other threads, in order of thread,
    /// and reports the first race found. A thread is looked at only when it accessed the
    /// variable (a write for a read; either for a write), and not when every one of those
    /// accesses held a lock the access holds ([`Touched`]): such a pair leaves both sections
    /// of that lock open in the closure, never an OSR race, so the thread's buckets would all
    /// be skipped.
    fn access(&mut self, e: &Event, x: VarId, write: bool, hb: &HappensBefore) {
        let t = e.thread;
        let rank = self.recording.rank_of_next(t);
        if let Some(current) = self.recording.before_next(t) {
            self.before.copy_from(current);
        }
        let lockset = self.locksets.held(t);
        if x.index() >= self.vars.len() {
            let before = self.vars.capacity();
            self.vars.resize_with(x.index() + 1, Accessors::default);
            self.bucket_bytes += (self.vars.capacity() - before) * std::mem::size_of::<Accessors>();
        }
        let e2 = At { thread: t, rank };
        let mut partner: Option<(ThreadId, Candidate, bool)> = None;
        let var = &self.vars[x.index()];
        let both = [&var.writers, &var.readers];
        let sets: &[&Touched] = if write { &both } else { &both[..1] };
        let kinds: &[bool] = if write { &[true, false] } else { &[true] };
        let mut grown = 0usize;
        Touched::walk(sets, lockset, &self.locksets, Order::Ascending, |u, _| {
            if u == t {
                return Go::On;
            }
            let Some(of_u) = self.buckets.get_mut(&(x, u)) else {
                return Go::On;
            };
            let seen = self.before.get(u);
            for &bi in &of_u.recent {
                let b = &mut of_u.buckets[bi as usize];
                let latest = b.reads.last().map_or(0, |c| c.rank + 1);
                if latest.max(b.writes.last().map_or(0, |c| c.rank + 1)) <= seen {
                    break;
                }
                if self.locksets.share(b.lockset, lockset) {
                    continue;
                }
                let before = b.cursors.capacity();
                for &writes in kinds {
                    let list = if writes { &b.writes } else { &b.reads };
                    let cursor = b.cursors.entry((t, writes)).or_insert(0);
                    while list.get(*cursor).is_some_and(|c| c.rank < seen) {
                        *cursor += 1;
                    }
                    for c in list[*cursor..].iter().rev() {
                        let e1 = At {
                            thread: u,
                            rank: c.rank,
                        };
                        if decide(&self.recording, e1, e2, e.index, &mut self.scratch) {
                            partner = Some((u, *c, writes));
                            grown += (b.cursors.capacity() - before) * ENTRY_BYTES;
                            return Go::Stop;
                        }
                    }
                }
                grown += (b.cursors.capacity() - before) * ENTRY_BYTES;
            }
            Go::On
        });
        self.bucket_bytes += grown;
        if let Some((u, c, partner_writes)) = partner {
            self.found.found(Race {
                var: x,
                partner: Access {
                    thread: u,
                    index: c.index,
                    loc: c.loc,
                    write: partner_writes,
                },
                racy: Access {
                    thread: t,
                    index: e.index,
                    loc: e.loc,
                    write,
                },
                hb_ordered: c.hb <= hb.clock(t).get(u),
            });
        }
        let me = Candidate {
            rank,
            index: e.index,
            hb: hb.epoch(t).clock,
            loc: e.loc,
        };
        let map_before = self.buckets.capacity();
        let mine = self.buckets.entry((x, t)).or_default();
        let bi = match mine.buckets.iter().position(|b| b.lockset == lockset) {
            Some(p) => p,
            None => {
                // The bucket itself and its place in `recent`, besides what its lists will
                // hold (counted as they grow).
                let before = mine.bytes();
                mine.buckets.push(Bucket {
                    lockset,
                    ..Bucket::default()
                });
                mine.recent.push(mine.buckets.len() as u32 - 1);
                self.bucket_bytes += mine.bytes() - before;
                mine.buckets.len() - 1
            }
        };
        let b = &mut mine.buckets[bi];
        let before = b.bytes();
        if write {
            b.writes.push(me);
        } else {
            b.reads.push(me);
        }
        self.bucket_bytes += b.bytes() - before;
        let at = mine
            .recent
            .iter()
            .position(|&r| r as usize == bi)
            .expect("every bucket is listed");
        mine.recent[..=at].rotate_right(1);
        self.bucket_bytes +=
            (self.buckets.capacity() - map_before) * (ENTRY_BYTES + std::mem::size_of::<Buckets>());
        self.bucket_bytes +=
            self.vars[x.index()].touch(write, t, lockset, u64::from(t.0), &mut self.locksets);
    }

    /// What the analysis holds besides its recording and races: counted as it grows, so that
    /// a budget may poll it.
    fn bytes(&self) -> usize {
        self.bucket_bytes + self.locksets.bytes()
    }
}

impl Observer for Osr {
    fn name(&self) -> &'static str {
        "races"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        match e.op {
            Op::Read(x) => self.access(e, x, false, hb),
            Op::Write(x) => self.access(e, x, true, hb),
            _ => self.locksets.observe(e),
        }
        self.recording.record(e);
        Ok(())
    }

    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        _: &HappensBefore,
        _: &Names,
    ) -> Result<(), ErrorKind> {
        self.recording.record(call.at);
        Ok(())
    }

    fn findings_job(&mut self) -> Option<FindingsJob> {
        self.found.job()
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes() + self.recording.bytes() + self.found.bytes()) as u64
    }
}

impl Analysis for Osr {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let bytes = self.bytes();
        let (closures, sweeps) = (self.scratch.closures, self.scratch.sweeps);
        let mut out = finish_with(
            self.found,
            Some(self.recording),
            bytes,
            names,
            Rule {
                id: "data-race",
                description: "Two conflicting accesses that the optimistic reordering of their lock closure enables together, critical sections reversed where needed (ICSE'24)",
            },
            reordering_mut,
        );
        out.summary
            .insert("closures".into(), serde_json::Value::from(closures));
        out.summary
            .insert("reversal_sweeps".into(), serde_json::Value::from(sweeps));
        out
    }
}

fn reordering_mut(rec: &mut Recording, first: u64, second: u64) -> Option<Vec<u64>> {
    reordering(rec, first, second)
}
