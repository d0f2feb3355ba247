//! The trace as the sync-preserving closure needs it, recorded during the pass: each event's
//! thread and operation, and for each event the *downward closure* of it under thread order,
//! fork, join and reads-from (the events every correct reordering containing it must contain),
//! held as a vector of per-thread event counts. With each lock's critical sections per thread,
//! this is what [`Recording::close`] computes sync-preserving ideals from (POPL'21, Section 4).
//!
//! Memory is a clock per event: the price the algorithm's closure pays, reported in summaries.

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
    /// Where each event's closure lies in `arena` (start, length), by rank.
    clock: Vec<(u64, u32)>,
    /// The locks the thread holds after each event (an id of `Recording::locksets`), by rank.
    held: Vec<u32>,
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
        self.index.capacity() * 8 + self.clock.capacity() * 16 + self.held.capacity() * 4
    }
}

/// A frontier: for each thread, how many of its first events a set holds.
pub type Frontier = Vec<u32>;

/// The recorded trace (see the module comment).
#[derive(Default)]
pub struct Recording {
    pub events: Vec<Recorded>,
    threads: Vec<ThreadLog>,
    arena: Vec<u32>,
    /// Per thread, the closure of its latest event (or of its fork, before its first).
    current: Vec<VectorClock>,
    last_write: FxHashMap<VarId, VectorClock>,
    last_send: FxHashMap<MsgId, VectorClock>,
    depth: FxHashMap<(ThreadId, LockId), u32>,
    sections: FxHashMap<(ThreadId, LockId), Sections>,
    /// The threads that use each lock.
    users: Vec<Vec<ThreadId>>,
    /// Distinct sets of held locks (sorted), so that the lock rule looks only at the sections
    /// open at a frontier, not at every lock.
    locksets: Vec<Vec<LockId>>,
    lockset_ids: FxHashMap<Vec<LockId>, u32>,
    /// Per thread, the id of the locks it holds now.
    holding: Vec<u32>,
    /// Reused for the components of each event's clock (one per event: no allocation each).
    components: Vec<u32>,
    /// What the threads' logs and the sections have allocated, counted as they grow (see
    /// [`Recording::bytes`]).
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
            self.holding.resize(t.index() + 1, 0);
        }
        if self.locksets.is_empty() {
            self.locksets.push(Vec::new());
            self.lockset_ids.insert(Vec::new(), 0);
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
                if let Some(w) = self.last_write.get(&x) {
                    clock.join(w);
                }
            }
            Step::Receive(m) => {
                if let Some(s) = self.last_send.get(&m) {
                    clock.join(s);
                }
            }
            Step::Join(u) => clock.join(&self.current[u.index()]),
            _ => {}
        }
        let rank = self.threads[t.index()].index.len() as u32;
        clock.set(t, rank + 1);
        match step {
            Step::Write(x) | Step::Rmw(x) => {
                self.last_write.entry(x).or_default().copy_from(&clock);
            }
            Step::Send(m) => self.last_send.entry(m).or_default().copy_from(&clock),
            Step::Fork(u) => {
                self.current[u.index()].join(&clock);
                let child_rank = self.threads[u.index()].index.len() as u32;
                self.threads[u.index()].forks.push(Fork {
                    parent: t,
                    parent_rank: rank,
                    child_rank,
                });
            }
            Step::Acquire(l) => {
                if l.index() >= self.users.len() {
                    self.users.resize_with(l.index() + 1, Vec::new);
                }
                if !self.users[l.index()].contains(&t) {
                    self.users[l.index()].push(t);
                }
                let s = self.sections.entry((t, l)).or_default();
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
        if let Step::Acquire(l) | Step::Release(l) = step {
            let mut set = self.locksets[self.holding[t.index()] as usize].clone();
            if matches!(step, Step::Acquire(_)) {
                set.push(l);
                set.sort_unstable();
            } else {
                set.retain(|&m| m != l);
            }
            let next = self.locksets.len() as u32;
            let id = *self.lockset_ids.entry(set.clone()).or_insert(next);
            if id == next {
                self.locksets.push(set);
            }
            self.holding[t.index()] = id;
        }
        let log = &mut self.threads[t.index()];
        let before = log.bytes();
        log.held.push(self.holding[t.index()]);
        log.index.push(e.index);
        clock.copy_components_into(&mut self.components);
        log.clock
            .push((self.arena.len() as u64, self.components.len() as u32));
        self.logged += log.bytes() - before;
        self.arena.extend_from_slice(&self.components);
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

    /// The closure of the event of `t` at `rank`, joined into `into`.
    fn join_closure_of(&self, t: ThreadId, rank: u32, into: &mut Frontier) {
        let log = &self.threads[t.index()];
        let (from, len) = log.clock[rank as usize];
        let clock = &self.arena[from as usize..from as usize + len as usize];
        if clock.len() > into.len() {
            into.resize(clock.len(), 0);
        }
        for (a, &b) in into.iter_mut().zip(clock) {
            *a = (*a).max(b);
        }
    }

    /// The closure of the event of `t` at `rank` (it included), as per-thread counts; threads
    /// past the end of the slice have none of their events in it.
    pub(crate) fn closure(&self, t: ThreadId, rank: u32) -> &[u32] {
        let (from, len) = self.threads[t.index()].clock[rank as usize];
        &self.arena[from as usize..from as usize + len as usize]
    }

    /// The outer locks thread `t` holds after its first `n` events (none when `n == 0`).
    pub(crate) fn held_after(&self, t: ThreadId, n: u32) -> &[LockId] {
        match n {
            0 => &[],
            n => &self.locksets[self.threads[t.index()].held[n as usize - 1] as usize],
        }
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

    /// The threads that take `l`.
    pub(crate) fn users(&self, l: LockId) -> &[ThreadId] {
        self.users.get(l.index()).map_or(&[], Vec::as_slice)
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

    /// Closes `f` in place into the smallest set containing it that is closed under thread
    /// order, fork, join and reads-from, and that holds the release of every critical section
    /// whose lock is acquired again later within the set: the sync-preserving ideal.
    pub fn close(&mut self, f: &mut Frontier) {
        if f.len() < self.threads.len() {
            f.resize(self.threads.len(), 0);
        }
        let mut g = f.clone();
        loop {
            for (u, &n) in f.iter().enumerate() {
                if n > 0 {
                    self.join_closure_of(ThreadId(u as u32), n - 1, &mut g);
                }
            }
            f.copy_from_slice(&g);
            if !self.close_sections(f) {
                return;
            }
            g.copy_from_slice(f);
        }
    }

    /// One round of the lock rule: every section of the set but the latest acquired of its
    /// lock gets its release. Only sections open at the frontier can lack it (a thread's
    /// earlier sections end before its later ones start). Whether anything was added.
    fn close_sections(&mut self, f: &mut Frontier) -> bool {
        let mut changed = false;
        for u in 0..f.len() {
            let n = f[u];
            if n == 0 {
                continue;
            }
            let ut = ThreadId(u as u32);
            let id = self.threads[u].held[n as usize - 1];
            for &l in &self.locksets[id as usize] {
                let s = &self.sections[&(ut, l)];
                let k = s.acquire_rank.partition_point(|&r| r < n);
                let (acquired, release) = (s.acquire_index[k - 1], s.release_rank[k - 1]);
                let later = self.users[l.index()].iter().any(|&v| {
                    let sv = &self.sections[&(v, l)];
                    let kv = sv.acquire_rank.partition_point(|&r| r < f[v.index()]);
                    v != ut && kv > 0 && sv.acquire_index[kv - 1] > acquired
                });
                // An open section with no release cannot precede a later one in a lock-valid
                // trace; the set keeps it as it is.
                if later && release != u32::MAX && f[u] <= release {
                    f[u] = release + 1;
                    changed = true;
                }
            }
        }
        changed
    }

    /// The events of the set `f`, in trace order.
    pub fn schedule(&self, f: &Frontier) -> Vec<u64> {
        let mut all: Vec<u64> = f
            .iter()
            .enumerate()
            .flat_map(|(u, &n)| self.threads[u].index[..n as usize].iter().copied())
            .collect();
        all.sort_unstable();
        all
    }

    /// Bytes held, roughly: what the summaries report as the model's memory, and what a
    /// budget is charged (counted as the recording grows: polling it costs nothing).
    pub fn bytes(&self) -> usize {
        self.events.capacity() * std::mem::size_of::<Recorded>()
            + self.arena.capacity() * 4
            + self.logged
    }
}
