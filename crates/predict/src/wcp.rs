//! Weak causal precedence (Kini, Mathur, Viswanathan, PLDI'17). WCP orders two critical
//! sections of a lock only when they must keep their order: the release of the earlier is
//! ordered before an event of the later that conflicts with an access in the earlier (rule a);
//! two releases are ordered when the sections' events are (rule b); and WCP is closed under
//! composition with happens-before on either side (rule c). Thread order, fork, join and
//! send → receive order events outright. Two conflicting accesses unordered by WCP (or thread
//! order) are a WCP race. WCP is weakly sound: if a trace has a WCP race, it has a predictable
//! race or a predictable deadlock (the paper's Theorem 1).
//!
//! The pass is the paper's Algorithm 1, streaming: per thread a happens-before clock `H` and a
//! WCP clock `P` of what is strictly WCP-before it (the thread's clock `C` being `P` with its
//! own component from `H`); per lock the clocks of its last release; for rule (b), each lock's
//! sections with their acquire's `C` clock and their release's `H` clock, which each thread
//! consumes in order at its releases (the paper's per-thread queues, held once per lock with a
//! cursor per thread). A thread's own earlier sections are among them: rule (b) orders one
//! when its acquire is WCP before the release through other threads, which `P`'s own
//! component says (thread order alone, which `C` holds, does not).
//!
//! Two facts of lock-valid traces (which the pass requires: no thread takes a lock another
//! holds) keep this small. The `H` clocks of a lock's releases grow along the lock's order, so
//! rule (a)'s join of the releases of the sections that read (wrote) a variable is the clock of
//! the latest: per (lock, variable) the pass keeps that section's number, and a thread skips a
//! release it has already joined. And once a section's release clock is below the lock's `P`
//! (the `P` of its last release, which only grows along the lock's order), it can order nothing
//! more: every later release of the lock, by any thread, forked already or not, comes after
//! that thread's acquire of the lock, which joined the lock's `P` into the thread's; there the
//! section's check passes (its acquire's `C` is below its release's `H`, since `P ⊑ H` always:
//! everything joined into a `P` is an `H` or `P` clock of an event happens-before the thread's)
//! and its join adds nothing. Such sections are dropped from the front of the queue as soon as
//! they are found (a lock has a few live sections at a time), and rule (a)'s numbers that
//! name them are below what every thread holding the lock has joined. What the pass holds
//! thus follows the sections still able to order something, not the trace's length (a
//! section that never becomes ordered before a later release stays, and so does every
//! section after it).
//!
//! **Many threads.** Every clock here, the sections' included, is a [`VectorClock`]: the
//! components past the first 64 threads live in a tree whose nodes the clocks copied from one
//! another share, a join copies only the paths where the two differ, and `⊑` skips the nodes
//! both share. A section's clocks are exactly the `C` and `H` the paper's queues hold, nothing
//! dropped or approximated; what changes is what they cost. A thread per request knows of
//! every request before it (through the lock and the joins), so a dense copy at every acquire
//! and release cost the thread count, and the trace's time the square of its length; with
//! shared clocks it costs the paths that differ, which follow the threads the section's
//! thread communicated with since the clock it was copied from.

use crate::accesses::{Accesses, Nesting};
use crate::found::{Found, Race};
use crate::recording::Recording;
use crate::shb::{clock_bytes, finish_model, Options};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::Rule;
use hindsight_stream::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use hindsight_trace::{ErrorKind, Event, LockId, Names, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::mem::size_of;

/// A live section of a lock, as rule (b) needs it. Its clocks are [`VectorClock`]s, which
/// share with the threads' clocks every part they have in common: a copy costs what the
/// clock holds in its plain array (at most the first 64 threads), not a component per thread
/// of the trace. Dense copies made each acquire and release cost the thread count, which a
/// thread-per-request trace makes the square of its length (and 50,000 threads holding a
/// lock each, gigabytes).
#[derive(Debug)]
struct Section {
    thread: ThreadId,
    /// `C` at the acquire.
    acquired: VectorClock,
    /// `H` at the release (`None` while the section is open).
    released: Option<VectorClock>,
}

/// What a clock the queues store holds of its own, in bytes: its shared tree aside, as every
/// clock of the models is counted (see [`clock_bytes`]).
fn stored_bytes(c: &VectorClock) -> usize {
    size_of::<VectorClock>() + c.own_heap_bytes()
}

#[derive(Default)]
struct LockState {
    h: VectorClock,
    p: VectorClock,
    /// The live sections (see the module comment), numbered `first..`, in order: a dead
    /// section is dropped from the front as soon as it is found dead.
    sections: VecDeque<Section>,
    first: u64,
    /// What the live sections' clocks hold of their own, in bytes.
    clock_bytes: usize,
    /// Per thread, the number of the next section its releases look at. A thread with no
    /// entry, or one at or below `first`, starts at the first live section: entries below it
    /// say nothing more and are dropped (see [`LockState::set_cursor`]), so that the map
    /// follows the threads that released the lock lately, not every thread that ever did
    /// (50,000 threads each holding a lock of its own would otherwise give each lock a slot
    /// per thread).
    cursor: FxHashMap<ThreadId, u64>,
    /// The entries `cursor` kept when it was last pruned.
    cursor_kept: usize,
}

impl LockState {
    /// The release clock of section `number`, if it is still held (a section rule (a)
    /// names is, unless it was dead: see the module comment) and released.
    fn released(&self, number: u64) -> Option<&VectorClock> {
        let i = usize::try_from(number.checked_sub(self.first)?).ok()?;
        self.sections.get(i)?.released.as_ref()
    }

    /// The bytes its queue holds (what it has allocated).
    fn queue_bytes(&self) -> usize {
        self.sections.capacity() * size_of::<Section>()
            + self.clock_bytes
            + self.cursor.capacity() * (size_of::<(ThreadId, u64)>() + 1)
    }

    /// The number of the next section `t`'s releases look at.
    fn cursor(&self, t: ThreadId) -> u64 {
        self.cursor
            .get(&t)
            .map_or(self.first, |&c| c.max(self.first))
    }

    /// Sets `t`'s cursor; once the map has doubled since it was last pruned, drops the
    /// entries at or below `first` (read as `first` all the same), so that pruning costs a
    /// constant per release.
    fn set_cursor(&mut self, t: ThreadId, next: u64) {
        self.cursor.insert(t, next);
        if self.cursor.len() > 2 * self.cursor_kept.max(8) {
            let first = self.first;
            self.cursor.retain(|_, c| *c > first);
            self.cursor_kept = self.cursor.len();
            if self.cursor.capacity() > 4 * self.cursor_kept.max(8) {
                self.cursor.shrink_to(2 * self.cursor_kept.max(8));
            }
        }
    }

    /// Drops the dead section at the front, its clocks back to `spare`.
    fn drop_front(&mut self, spare: &mut Vec<VectorClock>) {
        if let Some(s) = self.sections.pop_front() {
            self.clock_bytes -= stored_bytes(&s.acquired);
            give_back(spare, s.acquired);
            if let Some(r) = s.released {
                self.clock_bytes -= stored_bytes(&r);
                give_back(spare, r);
            }
            self.first += 1;
        }
        // A burst of live sections leaves a long buffer behind; give most of it back (a
        // section is a hundred bytes or so: past a few hundred, the buffer is worth it).
        if self.sections.capacity() >= 256 && 4 * self.sections.len() < self.sections.capacity() {
            self.sections.shrink_to(2 * self.sections.len().max(64));
        }
    }
}

/// Clocks of dead sections kept for the next sections (their plain arrays reused): at most
/// this many.
const SPARE_CLOCKS: usize = 64;

fn give_back(spare: &mut Vec<VectorClock>, c: VectorClock) {
    if spare.len() < SPARE_CLOCKS {
        spare.push(c);
    }
}

/// A copy of `c` in a spare clock.
fn stored(spare: &mut Vec<VectorClock>, c: &VectorClock) -> VectorClock {
    let mut s = spare.pop().unwrap_or_default();
    s.copy_from(c);
    s
}

/// Rule (a)'s memory of one (lock, variable): `1 +` the number of the latest released section
/// of the lock that read (wrote) the variable (0: none); and `listed`, `1 +` the number of the
/// open section that last listed the variable, shifted left by two, with bit 0 set once it
/// listed it among its reads and bit 1 among its writes (one word: the table is probed at
/// every access, and a smaller slot is fewer cache misses).
#[derive(Clone, Copy, Debug, Default)]
struct Guard {
    read: u64,
    written: u64,
    listed: u64,
}

const LISTED_READ: u64 = 1;
const LISTED_WRITTEN: u64 = 2;

/// A guard of a variable's table: its lock (`EMPTY`: a free slot) and its guard.
#[derive(Clone, Copy, Debug)]
struct Slot {
    lock: u32,
    guard: Guard,
}

const EMPTY: u32 = u32::MAX;

/// The guards of one variable, by lock: an open-addressing table (a lock's slot found by a
/// multiplicative hash of its id, then the next ones), at most half full. Every access looks
/// up its variable's guard for each lock held, so the table is kept per variable (one probe
/// into memory the variable's accesses share) rather than in one map keyed by both.
#[derive(Default)]
struct Guards {
    slots: Vec<Slot>,
    len: usize,
}

impl Guards {
    fn home(&self, l: LockId) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (l.0.wrapping_mul(0x9E37_79B9) >> (32 - bits)) as usize
    }

    /// The guard of `l`, added if new; `grown` counts the bytes a new table takes.
    #[inline]
    fn of(&mut self, l: LockId, grown: &mut usize) -> &mut Guard {
        if !self.slots.is_empty() {
            let i = self.find(l);
            if self.slots[i].lock == l.0 {
                return &mut self.slots[i].guard;
            }
        }
        self.insert(l, grown)
    }

    /// Adds `l`'s guard. Only a new lock may grow the table (looking one up never does): at
    /// most half full, it takes twice its locks' slots, rounded up to a power of two.
    #[cold]
    #[inline(never)]
    fn insert(&mut self, l: LockId, grown: &mut usize) -> &mut Guard {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow(grown);
        }
        let i = self.find(l);
        self.slots[i].lock = l.0;
        self.len += 1;
        &mut self.slots[i].guard
    }

    /// The slot of `l`, or the free slot where it would go (the table is never full).
    #[inline]
    fn find(&self, l: LockId) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(l);
        while self.slots[i].lock != l.0 && self.slots[i].lock != EMPTY {
            i = (i + 1) & mask;
        }
        i
    }

    #[cold]
    fn grow(&mut self, grown: &mut usize) {
        let size = (2 * self.slots.len()).max(4);
        let old = std::mem::replace(
            &mut self.slots,
            vec![
                Slot {
                    lock: EMPTY,
                    guard: Guard::default(),
                };
                size
            ],
        );
        *grown += (size - old.len()) * size_of::<Slot>();
        let mask = size - 1;
        for slot in old.into_iter().filter(|s| s.lock != EMPTY) {
            let mut i = self.home(LockId(slot.lock));
            while self.slots[i].lock != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}

/// A lock a thread holds: its open section, how much of rule (a) its thread has already
/// joined, and the variables its section read and wrote (each once).
#[derive(Default)]
struct Held {
    lock: LockId,
    section: u64,
    /// The releases of the lock's sections numbered below this are below the thread's `P`.
    seen: u64,
    reads: Vec<VarId>,
    writes: Vec<VarId>,
}

/// The WCP analysis.
pub struct Wcp {
    h: Vec<VectorClock>,
    p: Vec<VectorClock>,
    /// Per thread, the locks it holds (the first `depth` entries; the others are kept for
    /// their buffers).
    held: Vec<Vec<Held>>,
    depth: Vec<usize>,
    /// Scratch for `C_t` at a release.
    scratch: VectorClock,
    /// Clocks of dead sections, for the next ones (see [`SPARE_CLOCKS`]).
    spare: Vec<VectorClock>,
    locks: Vec<LockState>,
    /// Rule (a): per variable, the guard of each lock whose sections accessed it, and the
    /// bytes the tables take.
    guards: Vec<Guards>,
    guard_bytes: usize,
    messages: Vec<VectorClock>,
    /// Per variable, the `H` and `C` clocks of its latest atomic access (see `atomic_order`).
    atomics: Vec<(VectorClock, VectorClock)>,
    accesses: Accesses,
    nesting: Nesting,
    found: Found,
    recording: Option<Recording>,
    /// The bytes the locks' queues hold now, and the most they held before one gave some back.
    queue_bytes: usize,
    peak_bytes: usize,
}

impl Wcp {
    pub fn new(options: Options) -> Wcp {
        Wcp {
            h: Vec::new(),
            p: Vec::new(),
            held: Vec::new(),
            depth: Vec::new(),
            scratch: VectorClock::new(),
            spare: Vec::new(),
            locks: Vec::new(),
            guards: Vec::new(),
            guard_bytes: 0,
            messages: Vec::new(),
            atomics: Vec::new(),
            accesses: Accesses::default(),
            nesting: Nesting::default(),
            found: Found::new("wcp", options.granularity, options.witnesses)
                .only_beyond_hb(options.beyond_hb),
            recording: options.witnesses.then(Recording::new),
            queue_bytes: 0,
            peak_bytes: 0,
        }
    }

    /// The races kept so far (see [`Found::races`]).
    pub fn races(&self) -> &[Race] {
        self.found.races()
    }

    /// The sections the locks' queues hold now: what tests of the pruning look at.
    pub fn queued_sections(&self) -> usize {
        self.locks.iter().map(|l| l.sections.len()).sum()
    }

    /// What the model holds now, in bytes (its races and the recording for witnesses
    /// aside): counters kept as it goes, so that polling it costs nothing (the per-thread and
    /// per-lock clocks are a few words per thread each).
    fn bytes(&self) -> usize {
        let threads = self.h.len();
        let clock = clock_bytes(threads);
        let guards = self.guards.capacity() * size_of::<Guards>() + self.guard_bytes;
        self.queue_bytes
            + guards
            + (2 * threads + 2 * self.locks.len()) * clock
            + self.locks.len() * size_of::<LockState>()
            + (self.messages.len() + 2 * self.atomics.len()) * clock
            + self.accesses.bytes()
    }

    /// Follows a lock's queue going from `before` bytes to `after`: what is held only shrinks
    /// when a queue does, so the peak is the most held before that.
    fn requeued(&mut self, before: usize, after: usize) {
        if after < before {
            self.peak_bytes = self.peak_bytes.max(self.bytes());
        }
        self.queue_bytes = self.queue_bytes - before + after;
    }

    fn thread(&mut self, t: ThreadId) {
        while self.h.len() <= t.index() {
            let id = ThreadId(self.h.len() as u32);
            self.h.push(VectorClock::for_new_thread(id));
            self.p.push(VectorClock::new());
            self.held.push(Vec::new());
            self.depth.push(0);
        }
    }

    /// `C_t`, into `into`.
    fn c_into(&self, t: ThreadId, into: &mut VectorClock) {
        into.copy_from(&self.p[t.index()]);
        into.set(t, self.h[t.index()].get(t));
    }

    fn lock(&mut self, l: LockId) -> &mut LockState {
        if l.index() >= self.locks.len() {
            self.locks.resize_with(l.index() + 1, LockState::default);
        }
        &mut self.locks[l.index()]
    }

    /// A plain access, or with `atomic` an atomic one: it conflicts (rule (a) orders the
    /// sections around it, as the value it reads or writes must be kept) but never races. An
    /// RMW comes here as a write: it conflicts with every access of its variable.
    fn access(&mut self, e: &Event, x: VarId, write: bool, atomic: bool, hb: &HappensBefore) {
        let t = e.thread;
        // Rule (a): the release of an earlier section of a held lock that conflicts with this
        // access is ordered before it; the latest such release's clock holds the others'.
        let depth = self.depth[t.index()];
        if depth > 0 && x.index() >= self.guards.len() {
            self.guards.resize_with(x.index() + 1, Guards::default);
        }
        for held in &mut self.held[t.index()][..depth] {
            let guard = self.guards[x.index()].of(held.lock, &mut self.guard_bytes);
            let latest = if write {
                guard.written.max(guard.read)
            } else {
                guard.written
            };
            if latest > held.seen {
                if let Some(released) = self.locks[held.lock.index()].released(latest - 1) {
                    self.p[t.index()].join(released);
                }
                held.seen = latest;
            }
            let mark = (held.section + 1) << 2;
            if guard.listed & !(LISTED_READ | LISTED_WRITTEN) != mark {
                guard.listed = mark;
            }
            let (bit, list) = if write {
                (LISTED_WRITTEN, &mut held.writes)
            } else {
                (LISTED_READ, &mut held.reads)
            };
            if guard.listed & bit == 0 {
                guard.listed |= bit;
                list.push(x);
            }
        }
        if atomic {
            self.atomic_order(t, x);
            return;
        }
        let (h, p) = (&self.h[t.index()], &self.p[t.index()]);
        let own = h.get(t);
        let ordered = |u: ThreadId| if u == t { own } else { p.get(u) };
        if let Some(race) = self.accesses.check(x, write, e, hb, ordered) {
            self.found.found(race);
        }
        self.accesses.record(x, write, e, hb, own);
    }

    /// Orders every atomic access of `x` after the previous one, in `H` and in WCP. Atomics
    /// never race, and WCP has no reads-from edge: without this, plain data published through
    /// an atomic would be reported although no correct reordering separates it (the write an
    /// atomic load sees is kept). A trace whose atomic accesses are each a one-event critical
    /// section of a lock of their variable is one where they cannot race, and has the same
    /// correct reorderings; WCP on it orders at most what this orders, so a pair left unordered
    /// here is a WCP race of that trace, and weak soundness carries over.
    fn atomic_order(&mut self, t: ThreadId, x: VarId) {
        if x.index() >= self.atomics.len() {
            self.atomics.resize_with(x.index() + 1, Default::default);
        }
        let (h, c) = &mut self.atomics[x.index()];
        let (ht, pt) = (&mut self.h[t.index()], &mut self.p[t.index()]);
        ht.join(h);
        pt.join(c);
        h.copy_from(ht);
        c.copy_from(pt);
        c.set(t, ht.get(t));
        ht.increment(t);
    }

    fn acquire(&mut self, t: ThreadId, l: LockId) {
        self.lock(l);
        let state = &self.locks[l.index()];
        self.h[t.index()].join(&state.h);
        self.p[t.index()].join(&state.p);
        let mut acquired = self.spare.pop().unwrap_or_default();
        self.c_into(t, &mut acquired);
        let state = &mut self.locks[l.index()];
        let before = state.queue_bytes();
        state.clock_bytes += stored_bytes(&acquired);
        let section = state.first + state.sections.len() as u64;
        state.sections.push_back(Section {
            thread: t,
            acquired,
            released: None,
        });
        let seen = state.first;
        let after = state.queue_bytes();
        self.requeued(before, after);
        let (held, depth) = (&mut self.held[t.index()], &mut self.depth[t.index()]);
        if *depth == held.len() {
            held.push(Held::default());
        }
        let h = &mut held[*depth];
        h.lock = l;
        h.section = section;
        h.seen = seen;
        h.reads.clear();
        h.writes.clear();
        *depth += 1;
    }

    fn release(&mut self, t: ThreadId, l: LockId) {
        let mut c = std::mem::take(&mut self.scratch);
        self.c_into(t, &mut c);
        let p = &mut self.p[t.index()];
        let state = &mut self.locks[l.index()];
        let before = state.queue_bytes();
        // Rule (b): an earlier section whose acquire is ordered before this release has its
        // release ordered before this one; the sections are consumed in order, as the
        // paper's queues are, from the first live one (the dead before it add nothing).
        let mut next = state.cursor(t);
        while let Some(s) = state.sections.get((next - state.first) as usize) {
            let ordered = if s.thread == t {
                // This thread's own open section: the one being released.
                if s.released.is_none() {
                    break;
                }
                // Its own earlier section, whose acquire thread order puts below `C_t`:
                // rule (b) asks whether the acquire is WCP before this release, which `P_t`
                // says (every edge's source ends its epoch, so an own component of `P_t` at
                // the acquire's epoch is an event at or after the acquire).
                s.acquired.get(t) <= p.get(t)
            } else {
                s.acquired.leq(&c)
            };
            if !ordered {
                break;
            }
            if let Some(r) = &s.released {
                // `C_t` grows with `P_t`: later sections are checked against both.
                p.join(r);
                c.join(r);
            }
            next += 1;
        }
        self.scratch = c;
        state.set_cursor(t, next);
        let after = state.queue_bytes();
        self.requeued(before, after);
        let depth = self.depth[t.index()];
        let Some(i) = self.held[t.index()][..depth]
            .iter()
            .rposition(|h| h.lock == l)
        else {
            return;
        };
        // Keep the buffers of the popped entry at the end of the stack.
        self.held[t.index()][i..depth].rotate_left(1);
        self.depth[t.index()] = depth - 1;
        let held = &self.held[t.index()][depth - 1];
        let number = held.section + 1;
        for &x in &held.reads {
            self.guards[x.index()].of(l, &mut self.guard_bytes).read = number;
        }
        for &x in &held.writes {
            self.guards[x.index()].of(l, &mut self.guard_bytes).written = number;
        }
        let (h, p) = (&self.h[t.index()], &self.p[t.index()]);
        let state = &mut self.locks[l.index()];
        let before = state.queue_bytes();
        state.h.copy_from(h);
        state.p.copy_from(p);
        let released = stored(&mut self.spare, h);
        if let Some(open) = state
            .sections
            .iter_mut()
            .rev()
            .find(|s| s.thread == t && s.released.is_none())
        {
            state.clock_bytes += stored_bytes(&released);
            open.released = Some(released);
        }
        // The sections whose release is now below the lock's `P` are dead: dropped at once.
        while let Some(s) = state.sections.front() {
            match &s.released {
                Some(r) if r.leq(p) => state.drop_front(&mut self.spare),
                _ => break,
            }
        }
        let after = state.queue_bytes();
        self.requeued(before, after);
        self.h[t.index()].increment(t);
    }
}

impl Observer for Wcp {
    fn name(&self) -> &'static str {
        "races"
    }

    fn needs_lock_valid(&self) -> bool {
        true
    }

    fn on_event(&mut self, e: &Event, hb: &HappensBefore, _: &Names) -> Result<(), ErrorKind> {
        let t = e.thread;
        self.thread(t);
        if let Some(r) = &mut self.recording {
            r.record(e);
        }
        match e.op {
            Op::Read(x) => self.access(e, x, false, false, hb),
            Op::Write(x) => self.access(e, x, true, false, hb),
            Op::AtomicLoad(x) => self.access(e, x, false, true, hb),
            Op::AtomicStore(x) | Op::AtomicRmw(x) => self.access(e, x, true, true, hb),
            Op::Acquire(l) if self.nesting.acquire(t, l) => self.acquire(t, l),
            Op::Release(l) if self.nesting.release(t, l) => self.release(t, l),
            // Fork, join and send → receive order outright: each edge is a WCP edge, so
            // (rule (c)) everything happens-before its source is WCP before its target, and
            // the target's `P` takes the source's `H` (which holds its `C`: `P ⊑ H`).
            Op::Fork(u) => {
                self.thread(u);
                let h = self.h[t.index()].clone();
                self.h[u.index()].join(&h);
                self.p[u.index()].join(&h);
                self.h[t.index()].increment(t);
            }
            Op::Join(u) => {
                self.thread(u);
                let h = self.h[u.index()].clone();
                self.h[t.index()].join(&h);
                self.p[t.index()].join(&h);
                self.h[u.index()].increment(u);
            }
            Op::Send(m) => {
                let h = self.h[t.index()].clone();
                if m.index() >= self.messages.len() {
                    self.messages.resize_with(m.index() + 1, Default::default);
                }
                self.messages[m.index()] = h;
                self.h[t.index()].increment(t);
            }
            Op::Receive(m) => {
                if let Some(h) = self.messages.get(m.index()) {
                    self.h[t.index()].join(h);
                    self.p[t.index()].join(h);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        _: &HappensBefore,
        _: &Names,
    ) -> Result<(), ErrorKind> {
        if let Some(r) = &mut self.recording {
            r.record(call.at);
        }
        Ok(())
    }

    fn findings_job(&mut self) -> Option<FindingsJob> {
        self.found.job()
    }

    fn held_bytes(&self) -> u64 {
        (self.bytes() + self.found.bytes() + self.recording.as_ref().map_or(0, Recording::bytes))
            as u64
    }
}

impl Analysis for Wcp {
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let bytes = self.peak_bytes.max(self.bytes());
        finish_model(
            self.found,
            self.recording,
            bytes,
            names,
            Rule {
                id: "data-race",
                description: "Two conflicting accesses unordered by weak causal precedence (PLDI'17): a predictable race, or a predictable deadlock, exists",
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table holds its locks' guards apart, and takes the fewest slots that keep it at most
    /// half full however often its guards are looked up.
    #[test]
    fn guards_take_twice_their_locks_slots() {
        for locks in [1u32, 2, 3, 5, 16, 17, 64, 100] {
            let (mut guards, mut grown) = (Guards::default(), 0);
            for round in 0..3u64 {
                for l in 0..locks {
                    let guard = guards.of(LockId(l * 7919), &mut grown);
                    if round == 0 {
                        guard.read = u64::from(l) + 1;
                    }
                    assert_eq!(guard.read, u64::from(l) + 1, "lock {l}");
                }
            }
            let slots = (2 * locks as usize).next_power_of_two().max(4);
            assert_eq!((guards.len, guards.slots.len()), (locks as usize, slots));
            assert_eq!(grown, slots * size_of::<Slot>());
        }
    }
}
