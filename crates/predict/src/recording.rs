//! The trace as the sync-preserving closure needs it, recorded during the pass: each event's
//! thread and operation, and for each event the *downward closure* of it under thread order,
//! fork, join and reads-from (the events every correct reordering containing it must contain),
//! held as a vector clock (per-thread event counts). With each lock's critical sections per
//! thread, this is what [`Recording::close`] computes sync-preserving ideals from (POPL'21,
//! Section 4).
//!
//! **Sparse closures.** An event's closure is the closure of the event before it in its thread
//! with the event itself added, unless the event learns of another thread's events: a read or
//! receive that sees an event it did not know of, a join, the first event after a fork. Only
//! those events keep a clock; the closure of any other is the kept clock before it with its own
//! thread's count raised, found by a binary search. A clock is the order layer's persistent
//! [`VectorClock`], which shares its tree with the clocks it was joined from: a thread that
//! joins n workers one after the other keeps n clocks that differ by a path each, not n dense
//! vectors of up to n counts (the square of the thread count, #38). A frontier (a set closed
//! under thread order: a count per thread) is a clock too, and the closure walks only the
//! threads it holds events of, not every thread of the trace.
//!
//! Memory is a clock per event that learns of another thread, reported in summaries.

use crate::held::HeldLocks;
use hindsight_order::clock::SHARE_DENSE_FROM;
use hindsight_order::VectorClock;
use hindsight_trace::{Event, LocId, LockId, MsgId, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;

/// What the closure makes of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Read(VarId),
    Write(VarId),
    /// An atomic read-modify-write: one event that sees a write and is one.
    Rmw(VarId),
    /// An acquire or release that changes whether its thread holds the lock (re-entrant ones
    /// are [`Step::Other`]).
    Acquire(LockId),
    Release(LockId),
    Fork(ThreadId),
    Join(ThreadId),
    Send(MsgId),
    Receive(MsgId),
    /// Orders nothing: requests, blocks, calls, re-entrant lock operations.
    Other,
}

/// One recorded event, as the trace has it: its thread, the kind of its operation
/// ([`Op::kind`]) and the id it names (variable, lock, thread or message; 0 for others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    pub thread: ThreadId,
    pub kind: u8,
    pub target: u32,
    pub loc: Option<LocId>,
}

impl Recorded {
    pub fn of(e: &Event) -> Recorded {
        let target = match e.op {
            Op::Read(x)
            | Op::Write(x)
            | Op::AtomicLoad(x)
            | Op::AtomicStore(x)
            | Op::AtomicRmw(x) => x.0,
            Op::Acquire(l) | Op::Release(l) | Op::Request(l) => l.0,
            Op::Fork(u) | Op::Join(u) => u.0,
            Op::Send(m) | Op::Receive(m) => m.0,
            _ => 0,
        };
        Recorded {
            thread: e.thread,
            kind: e.op.kind() as u8,
            target,
            loc: e.loc,
        }
    }
}

/// The critical sections of one lock in one thread, in order: ranks (positions in the
/// thread) of each acquire and its release (`u32::MAX` while open), and the acquire's index.
#[derive(Clone, Debug, Default)]
struct Sections {
    acquire_rank: Vec<u32>,
    release_rank: Vec<u32>,
    acquire_index: Vec<u64>,
}

#[derive(Clone, Debug, Default)]
struct ThreadLog {
    /// Index in the trace of each event, by rank.
    index: Vec<u64>,
    /// The locks the thread holds after each event (a set of `Recording::locksets`), by rank.
    held: Vec<u32>,
    /// The ranks of the events whose closure is more than the closure of the event before
    /// them with themselves added (see the module comment), in order, and their closures.
    learned_at: Vec<u32>,
    closures: Vec<VectorClock>,
    /// The forks of the thread: the parent, the rank of the fork, and how many events the
    /// thread had already logged then (0 unless a logger wrote the child's first events before
    /// the fork; the fork then orders only the child's later events). One in a well-formed
    /// trace; a log that forks a thread again (a warning) has every fork order the child's
    /// later events, as happens-before has it.
    forks: Vec<Fork>,
}

/// Where a thread was forked: the parent's fork event and the child's first event after it.
#[derive(Clone, Copy, Debug)]
struct Fork {
    parent: ThreadId,
    parent_rank: u32,
    child_rank: u32,
}

/// The bytes a section takes in [`Sections`]: its acquire's and release's ranks and its
/// acquire's index.
const SECTION_BYTES: usize = 16;

impl ThreadLog {
    fn bytes(&self) -> usize {
        self.index.capacity() * 8
            + self.held.capacity() * 4
            + self.learned_at.capacity() * 4
            + self.closures.capacity() * std::mem::size_of::<VectorClock>()
            + self.forks.capacity() * std::mem::size_of::<Fork>()
    }
}

/// A frontier: for each thread, how many of its first events a set holds (a clock whose
/// component for a thread is that count).
pub type Frontier = VectorClock;

/// An event of the trace: its thread and its rank there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    thread: ThreadId,
    rank: u32,
}

/// The recorded trace (see the module comment).
#[derive(Default)]
pub struct Recording {
    pub events: Vec<Recorded>,
    threads: Vec<ThreadLog>,
    /// Per thread, the closure of its latest event (or of its fork, before its first).
    current: Vec<VectorClock>,
    /// Per thread, whether `current` learned of other threads' events since the thread's
    /// latest kept closure (its next event keeps one).
    learned: Vec<bool>,
    /// The latest write of each variable and send of each message: its closure is the event's.
    last_write: FxHashMap<VarId, At>,
    last_send: FxHashMap<MsgId, At>,
    depth: FxHashMap<(ThreadId, LockId), u32>,
    sections: FxHashMap<(ThreadId, LockId), Sections>,
    /// The threads that use each lock.
    users: Vec<Vec<ThreadId>>,
    /// The sets of held locks, so that the lock rule looks only at the sections open at a
    /// frontier, not at every lock.
    locksets: HeldLocks,
    /// Per thread, the set of the locks it holds now.
    holding: Vec<u32>,
    /// What the threads' logs, their kept closures and the sections have allocated, counted
    /// as they grow (see [`Recording::bytes`]).
    logged: usize,
}

impl Recording {
    pub fn new() -> Recording {
        Recording::default()
    }

    fn thread(&mut self, t: ThreadId) -> &mut ThreadLog {
        if t.index() >= self.threads.len() {
            self.threads.resize_with(t.index() + 1, ThreadLog::default);
            self.current.resize_with(t.index() + 1, VectorClock::new);
            self.learned.resize(t.index() + 1, false);
            self.holding.resize(t.index() + 1, HeldLocks::NONE);
        }
        &mut self.threads[t.index()]
    }

    /// Whether a lock operation of `t` on `l` changes whether `t` holds it, updating the depth.
    fn outer(&mut self, t: ThreadId, l: LockId, acquire: bool) -> bool {
        let d = self.depth.entry((t, l)).or_insert(0);
        if acquire {
            *d += 1;
            *d == 1
        } else {
            let outer = *d == 1;
            *d = d.saturating_sub(1);
            outer
        }
    }

    /// Joins into `clock`, the clock of thread `t`, the closure of the event `seen` (a write
    /// a read sees, a send a receive sees), unless `clock` holds that event already (and so,
    /// being closed, its closure).
    fn see(&mut self, t: ThreadId, clock: &mut VectorClock, seen: Option<At>) {
        let Some(seen) = seen else { return };
        if seen.thread == t || clock.get(seen.thread) > seen.rank {
            return;
        }
        // The event's closure is built apart and then joined: raising the seen thread's count
        // in `clock` after joining its kept closure would leave the two clocks' trees sharing
        // no nodes, and every later join with the clocks built from them would compare them
        // node by node (a join per request on a thread per request: the square of the threads).
        let mut closure = VectorClock::new();
        self.join_closure_of(seen.thread, seen.rank, &mut closure);
        clock.join(&closure);
        self.learned[t.index()] = true;
    }

    /// Records the next event of the trace (events arrive in trace order).
    pub fn record(&mut self, e: &Event) {
        let t = e.thread;
        self.thread(t);
        let step = match e.op {
            // Atomics never race, but the writes they see are kept by every correct
            // reordering as plain reads' are, so they close the ideal the same way.
            Op::Read(x) | Op::AtomicLoad(x) => Step::Read(x),
            Op::Write(x) | Op::AtomicStore(x) => Step::Write(x),
            Op::AtomicRmw(x) => Step::Rmw(x),
            Op::Acquire(l) if self.outer(t, l, true) => Step::Acquire(l),
            Op::Release(l) if self.outer(t, l, false) => Step::Release(l),
            Op::Fork(u) => Step::Fork(u),
            Op::Join(u) => Step::Join(u),
            Op::Send(m) => Step::Send(m),
            Op::Receive(m) => Step::Receive(m),
            _ => Step::Other,
        };
        if let Step::Fork(u) | Step::Join(u) = step {
            self.thread(u);
        }
        let mut clock = std::mem::take(&mut self.current[t.index()]);
        match step {
            Step::Read(x) | Step::Rmw(x) => {
                let seen = self.last_write.get(&x).copied();
                self.see(t, &mut clock, seen);
            }
            Step::Receive(m) => {
                let seen = self.last_send.get(&m).copied();
                self.see(t, &mut clock, seen);
            }
            Step::Join(u) => {
                // The joined thread's clock is the closure of its latest event unless a fork
                // taught it more since: a clock holding that event holds the closure.
                let done = self.threads[u.index()].index.len() as u32;
                let known = done > 0 && !self.learned[u.index()] && clock.get(u) >= done;
                if !known && u != t {
                    clock.join(&self.current[u.index()]);
                    self.learned[t.index()] = true;
                }
            }
            _ => {}
        }
        let rank = self.threads[t.index()].index.len() as u32;
        clock.set(t, rank + 1);
        match step {
            Step::Write(x) | Step::Rmw(x) => {
                self.last_write.insert(x, At { thread: t, rank });
            }
            Step::Send(m) => {
                self.last_send.insert(m, At { thread: t, rank });
            }
            Step::Fork(u) => {
                // Past a few hundred threads the clock's first components go into the shared
                // tree, so that each child shares them instead of copying them (as the
                // happens-before pass does).
                if self.threads.len() > SHARE_DENSE_FROM {
                    clock.share_dense();
                }
                self.current[u.index()].join(&clock);
                self.learned[u.index()] = true;
                let child_rank = self.threads[u.index()].index.len() as u32;
                let before = self.threads[u.index()].bytes();
                self.threads[u.index()].forks.push(Fork {
                    parent: t,
                    parent_rank: rank,
                    child_rank,
                });
                self.logged += self.threads[u.index()].bytes() - before;
            }
            Step::Acquire(l) => {
                if l.index() >= self.users.len() {
                    let before = self.users.capacity();
                    self.users.resize_with(l.index() + 1, Vec::new);
                    self.logged += (self.users.capacity() - before) * 24;
                }
                let s = match self.sections.entry((t, l)) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        let users = &mut self.users[l.index()];
                        let before = users.capacity();
                        users.push(t);
                        self.logged += (users.capacity() - before) * 4 + SECTION_BYTES * 3;
                        v.insert(Sections::default())
                    }
                };
                let before = s.acquire_rank.capacity();
                s.acquire_rank.push(rank);
                self.logged += (s.acquire_rank.capacity() - before) * SECTION_BYTES;
                s.release_rank.push(u32::MAX);
                s.acquire_index.push(e.index);
            }
            Step::Release(l) => {
                if let Some(r) = self
                    .sections
                    .get_mut(&(t, l))
                    .and_then(|s| s.release_rank.last_mut())
                {
                    *r = rank;
                }
            }
            _ => {}
        }
        match step {
            Step::Acquire(l) => {
                let before = self.locksets.bytes();
                self.holding[t.index()] = self.locksets.with(self.holding[t.index()], l);
                self.logged += self.locksets.bytes() - before;
            }
            Step::Release(l) => {
                let before = self.locksets.bytes();
                self.holding[t.index()] = self.locksets.without(self.holding[t.index()], l);
                self.logged += self.locksets.bytes() - before;
            }
            _ => {}
        }
        let learned = std::mem::replace(&mut self.learned[t.index()], false);
        let log = &mut self.threads[t.index()];
        let before = log.bytes();
        log.held.push(self.holding[t.index()]);
        log.index.push(e.index);
        if learned {
            log.learned_at.push(rank);
            self.logged += clock.held_bytes();
            log.closures.push(clock.clone());
        }
        self.logged += log.bytes() - before;
        self.current[t.index()] = clock;
        self.events.push(Recorded::of(e));
    }

    /// The rank the next event of `t` will have: how many events of `t` are recorded.
    pub fn rank_of_next(&mut self, t: ThreadId) -> u32 {
        self.thread(t).index.len() as u32
    }

    /// How many threads have appeared.
    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }

    /// The rank of event `index` in its thread (its position among the thread's events).
    pub fn rank(&self, index: u64) -> u32 {
        let t = self.events[index as usize].thread;
        self.threads[t.index()]
            .index
            .partition_point(|&i| i < index) as u32
    }

    /// The kept closure at or before the event of `t` at `rank`: the closure of that event but
    /// for `t`'s own count.
    fn kept_before(&self, t: ThreadId, rank: u32) -> Option<&VectorClock> {
        let log = &self.threads[t.index()];
        let k = log.learned_at.partition_point(|&r| r <= rank);
        (k > 0).then(|| &log.closures[k - 1])
    }

    /// The closure of the event of `t` at `rank`, joined into `into`.
    pub(crate) fn join_closure_of(&self, t: ThreadId, rank: u32, into: &mut Frontier) {
        if let Some(kept) = self.kept_before(t, rank) {
            into.join(kept);
        }
        if into.get(t) <= rank {
            into.set(t, rank + 1);
        }
    }

    /// How many events of `u` the closure of the event of `t` at `rank` (it included) holds.
    pub(crate) fn closure_count(&self, t: ThreadId, rank: u32, u: ThreadId) -> u32 {
        if u == t {
            return rank + 1;
        }
        self.kept_before(t, rank).map_or(0, |c| c.get(u))
    }

    /// The closure of the latest event of `t` (or of its fork, before its first event): what
    /// precedes the next event of `t` in every reordering that holds it.
    pub(crate) fn before_next(&self, t: ThreadId) -> Option<&VectorClock> {
        self.current.get(t.index())
    }

    /// The outer locks thread `t` holds after its first `n` events (none when `n == 0`).
    pub(crate) fn held_after(&self, t: ThreadId, n: u32) -> impl Iterator<Item = LockId> + '_ {
        let set = match n {
            0 => HeldLocks::NONE,
            n => self.threads[t.index()].held[n as usize - 1],
        };
        self.locksets.locks(set)
    }

    /// Whether thread `t` holds `l` after its first `n` events.
    pub(crate) fn holds_after(&self, t: ThreadId, n: u32, l: LockId) -> bool {
        self.held_after(t, n).any(|m| m == l)
    }

    /// The critical section of `l` that thread `t` entered last within its first `n` events:
    /// its acquire's index and its release's rank (`u32::MAX` while it has none).
    pub(crate) fn section_within(&self, t: ThreadId, l: LockId, n: u32) -> Option<(u64, u32)> {
        let s = self.sections.get(&(t, l))?;
        let k = s.acquire_rank.partition_point(|&r| r < n);
        (k > 0).then(|| (s.acquire_index[k - 1], s.release_rank[k - 1]))
    }

    /// The index of the release of the last critical section of `l` that thread `t` both
    /// entered and left within its first `n` events.
    pub(crate) fn last_release_within(&self, t: ThreadId, l: LockId, n: u32) -> Option<u64> {
        let s = self.sections.get(&(t, l))?;
        let k = s.release_rank.partition_point(|&r| r < n);
        (k > 0).then(|| self.threads[t.index()].index[s.release_rank[k - 1] as usize])
    }

    /// The threads of `f` (those it holds events of) that may hold sections of `l`: the lock's
    /// users or `f`'s threads, whichever are fewer (`support` lists `f`'s threads).
    pub(crate) fn users_within<'a>(
        &'a self,
        l: LockId,
        support: &'a [(ThreadId, u32)],
    ) -> impl Iterator<Item = ThreadId> + 'a {
        let users = self.users.get(l.index()).map_or(&[][..], Vec::as_slice);
        let (few, many) = if users.len() <= support.len() {
            (Some(users), None)
        } else {
            (None, Some(support))
        };
        few.into_iter()
            .flatten()
            .copied()
            .chain(many.into_iter().flatten().map(|&(v, _)| v))
    }

    /// The trace index of the event of `t` at `rank`.
    pub(crate) fn index_of(&self, t: ThreadId, rank: u32) -> u64 {
        self.threads[t.index()].index[rank as usize]
    }

    /// How many events of `t` come before trace index `index`.
    pub(crate) fn count_before(&self, t: ThreadId, index: u64) -> u32 {
        self.threads[t.index()]
            .index
            .partition_point(|&i| i < index) as u32
    }

    /// Joins into `into` what every reordering in which the event of `t` at `rank` is enabled
    /// must hold: the closures of the events before it in its thread, and of its thread's forks.
    pub fn join_predecessors(&self, t: ThreadId, rank: u32, into: &mut Frontier) {
        if rank > 0 {
            self.join_closure_of(t, rank - 1, into);
        }
        // The fork precedes the child's first event after it: its first event, or a later one
        // where the log shows the child running before its fork (the earlier events' closures
        // do not hold the fork then).
        for fork in &self.threads[t.index()].forks {
            if fork.child_rank == rank {
                self.join_closure_of(fork.parent, fork.parent_rank, into);
            }
        }
    }

    /// Closes `f`, a union of closures (of events: such a set is already closed under thread
    /// order, fork, join and reads-from), in place into the smallest set containing it that is
    /// also closed under the lock rule: it holds the release of every critical section whose
    /// lock is acquired again later within the set. That is the sync-preserving ideal. The
    /// rule only asks for the release of a section open at the frontier (a thread's earlier
    /// sections end before its later ones start), and the release's closure keeps the set a
    /// union of closures; the rounds go on until no section is added. Each round walks the
    /// threads `f` holds events of, not every thread.
    pub fn close(&self, f: &mut Frontier) {
        let mut support: Vec<(ThreadId, u32)> = Vec::new();
        loop {
            support.clear();
            f.for_each_nonzero(|u, n| support.push((u, n)));
            let mut changed = false;
            for &(u, _) in &support {
                let n = f.get(u);
                for l in self.held_after(u, n) {
                    let s = &self.sections[&(u, l)];
                    let k = s.acquire_rank.partition_point(|&r| r < n);
                    let (acquired, release) = (s.acquire_index[k - 1], s.release_rank[k - 1]);
                    // An open section with no release cannot precede a later one in a
                    // lock-valid trace; the set keeps it as it is.
                    if release == u32::MAX || f.get(u) > release {
                        continue;
                    }
                    let later = self.users_within(l, &support).any(|v| {
                        v != u
                            && self
                                .section_within(v, l, f.get(v))
                                .is_some_and(|(a, _)| a > acquired)
                    });
                    if later {
                        self.join_closure_of(u, release, f);
                        changed = true;
                    }
                }
            }
            // A round that added nothing saw every thread of the set (threads joined in
            // during a round are seen by the next).
            if !changed {
                return;
            }
        }
    }

    /// The events of the set `f`, in trace order.
    pub fn schedule(&self, f: &Frontier) -> Vec<u64> {
        let mut all: Vec<u64> = Vec::new();
        f.for_each_nonzero(|u, n| {
            all.extend_from_slice(&self.threads[u.index()].index[..n as usize]);
        });
        all.sort_unstable();
        all
    }

    /// Bytes held, roughly: what the summaries report as the model's memory, and what a
    /// budget is charged (counted as the recording grows: polling it costs nothing).
    pub fn bytes(&self) -> usize {
        self.events.capacity() * std::mem::size_of::<Recorded>()
            + self.threads.capacity()
                * (std::mem::size_of::<ThreadLog>() + std::mem::size_of::<VectorClock>() + 5)
            + (self.last_write.capacity() + self.last_send.capacity()) * 16
            + self.depth.capacity() * 16
            + self.logged
    }
}
