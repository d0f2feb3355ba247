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
    /// Sweep state, by thread: the reversals whose open acquire reaches the thread's latest
    /// event in the window, and what reaches each thread's first event by its fork.
    thread_mask: Vec<u64>,
    fork_mask: Vec<u64>,
    rank: Vec<u32>,
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
fn closure(rec: &Recording, e1: At, e2: At, limit: u64, set: &mut Frontier) -> bool {
    set.clear();
    set.resize(rec.thread_count(), 0);
    rec.join_predecessors(e1.thread, e1.rank, set);
    rec.join_predecessors(e2.thread, e2.rank, set);
    if set[e1.thread.index()] > e1.rank {
        return false;
    }
    loop {
        let mut changed = false;
        for v in 0..set.len() {
            let vt = ThreadId(v as u32);
            let n = set[v];
            for &l in rec.held_after(vt, n) {
                let Some((_, release)) = rec.section_within(vt, l, n) else {
                    continue;
                };
                if release == u32::MAX || rec.index_of(vt, release) >= limit {
                    continue;
                }
                let clock = rec.closure(vt, release);
                if clock.get(e1.thread.index()).copied().unwrap_or(0) > e1.rank
                    || clock.get(e2.thread.index()).copied().unwrap_or(0) > e2.rank
                {
                    continue;
                }
                for (a, &b) in set.iter_mut().zip(clock) {
                    *a = (*a).max(b);
                }
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
    for (v, &n) in set.iter().enumerate() {
        for &lock in rec.held_after(ThreadId(v as u32), n) {
            if opens.iter().any(|o| o.lock == lock) {
                return false;
            }
            let (acquire, _) = rec
                .section_within(ThreadId(v as u32), lock, n)
                .expect("a held lock has a section");
            let last = rec
                .users(lock)
                .iter()
                .filter_map(|&w| rec.last_release_within(w, lock, set[w.index()]))
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
    !rec.held_after(v, before).contains(&l)
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
    let threads = rec.thread_count();
    for chunk_start in (0..n).step_by(64) {
        let chunk = &reversals[chunk_start..n.min(chunk_start + 64)];
        let lo = chunk.iter().map(|r| r.0).min().expect("not empty");
        s.thread_mask.clear();
        s.thread_mask.resize(threads, 0);
        s.fork_mask.clear();
        s.fork_mask.resize(threads, 0);
        s.rank.clear();
        s.rank
            .extend((0..threads).map(|v| rec.count_before(ThreadId(v as u32), lo)));
        s.writes.clear();
        s.accesses.clear();
        s.releases.clear();
        for i in lo..=hi {
            let e = rec.events[i as usize];
            let v = e.thread.index();
            let rank = s.rank[v];
            s.rank[v] += 1;
            if rank >= s.set[v] {
                continue;
            }
            let mut m = s.thread_mask[v];
            if rank == 0 {
                m |= s.fork_mask[v];
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
                FORK => s.fork_mask[e.target as usize] |= m,
                JOIN => m |= s.thread_mask[e.target as usize],
                _ => {}
            }
            s.thread_mask[v] = m;
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
/// `t`, how many of them are in the closure of the events before `t`'s latest access.
#[derive(Default)]
struct Bucket {
    lockset: u32,
    reads: Vec<Candidate>,
    writes: Vec<Candidate>,
    read_cursor: Vec<usize>,
    write_cursor: Vec<usize>,
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

/// The OSR analysis.
pub struct Osr {
    recording: Recording,
    /// Per variable, per thread, the buckets of its accesses.
    vars: Vec<Vec<Buckets>>,
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
            + (self.read_cursor.capacity() + self.write_cursor.capacity()) * 8
    }
}

impl Osr {
    pub fn new(options: Options) -> Osr {
        Osr {
            recording: Recording::new(),
            vars: Vec::new(),
            found: Found::new("osr", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            scratch: Scratch::default(),
            before: Vec::new(),
            locksets: Locksets::default(),
            bucket_bytes: 0,
        }
    }

    /// The races kept so far (see [`Found::races`]).
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    fn access(&mut self, e: &Event, x: VarId, write: bool, hb: &HappensBefore) {
        let t = e.thread;
        let rank = self.recording.rank_of_next(t);
        let threads = self.recording.thread_count();
        self.before.clear();
        self.before.resize(threads, 0);
        self.recording.join_predecessors(t, rank, &mut self.before);
        let lockset = self.locksets.held(t);
        if x.index() >= self.vars.len() {
            let before = self.vars.capacity();
            self.vars.resize_with(x.index() + 1, Vec::new);
            self.bucket_bytes +=
                (self.vars.capacity() - before) * std::mem::size_of::<Vec<Buckets>>();
        }
        let var = &mut self.vars[x.index()];
        if var.len() < threads {
            let before = var.capacity();
            var.resize_with(threads, Buckets::default);
            self.bucket_bytes += (var.capacity() - before) * std::mem::size_of::<Buckets>();
        }
        let e2 = At { thread: t, rank };
        let mut partner: Option<(ThreadId, Candidate, bool)> = None;
        'threads: for (u, of_u) in var.iter_mut().enumerate() {
            if u == t.index() {
                continue;
            }
            let ut = ThreadId(u as u32);
            let seen = self.before.get(u).copied().unwrap_or(0);
            for &bi in &of_u.recent {
                let b = &mut of_u.buckets[bi as usize];
                let latest = b.reads.last().map_or(0, |c| c.rank + 1);
                if latest.max(b.writes.last().map_or(0, |c| c.rank + 1)) <= seen {
                    break;
                }
                if self.locksets.share(b.lockset, lockset) {
                    continue;
                }
                if b.read_cursor.len() < threads {
                    let before = b.bytes();
                    b.read_cursor.resize(threads, 0);
                    b.write_cursor.resize(threads, 0);
                    self.bucket_bytes += b.bytes() - before;
                }
                let kinds: &[bool] = if write { &[true, false] } else { &[true] };
                for &writes in kinds {
                    let (list, cursor) = if writes {
                        (&b.writes, &mut b.write_cursor[t.index()])
                    } else {
                        (&b.reads, &mut b.read_cursor[t.index()])
                    };
                    while list.get(*cursor).is_some_and(|c| c.rank < seen) {
                        *cursor += 1;
                    }
                    for c in list[*cursor..].iter().rev() {
                        let e1 = At {
                            thread: ut,
                            rank: c.rank,
                        };
                        if decide(&self.recording, e1, e2, e.index, &mut self.scratch) {
                            partner = Some((ut, *c, writes));
                            break 'threads;
                        }
                    }
                }
            }
        }
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
        let mine = &mut self.vars[x.index()][t.index()];
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
