//! The repair of out-of-order lock records, the one oddity of real logs that changes what a
//! trace means rather than only what it leaves unsaid.
//!
//! A logger that records a release after the real unlock can record it after the next thread's
//! acquire of the lock: `T1|acq(L)`, `T2|acq(L)`, `T1|rel(L)`. The acquire proves that the
//! release happened first. [`LockRepair`] hands out the log with that order restored: the
//! acquire that finds its lock held by another thread is held back, with every later event
//! that depends on it (its thread's later events, a receive of a message it sends, a join of
//! it, an acquire of a lock it takes, the events of a thread it forks), until the holder's
//! release arrives; the release is handed out, then the held events in their logged order. When
//! the holder logs nothing in between (the usual late release), that is the release moved to
//! just before the acquire. Every thread's own order, every message and every fork and join are
//! kept, so the repaired stream is a trace the program could have recorded, and it is
//! lock-valid where the log was lock-valid but for late releases.
//!
//! A held acquire whose lock is never released before the trace ends (or that waits for a
//! release which itself depends on a held event) cannot be repaired this way; it is then handed
//! out where it was logged, and the validator reports the lock violation as before. So does
//! everything held when more than [`MAX_HELD`] events wait, which bounds memory.
//!
//! Events keep their positions in the file; their indices are renumbered to count the repaired
//! stream (which every analysis takes as the trace's order). A stream that needs no repair is
//! handed out untouched: the wrapper then costs a look at each acquire and release.

use crate::error::{Position, TraceError, Warning, WarningKind};
use crate::event::{Event, Op, Value};
use crate::names::{LockId, Names, ThreadId};
use crate::source::{split_call, EventSource, Step};
use std::collections::VecDeque;

/// The most events held back at once; past it, they are handed out as logged.
pub const MAX_HELD: usize = 1 << 16;

/// An event held back or ready to be handed out.
struct Held {
    event: Event,
    pos: Position,
    /// For an acquire held because another thread held its lock: that thread.
    late: Option<ThreadId>,
}

/// Wraps an [`EventSource`], restoring the order of late lock releases (see the module
/// documentation). Disabled (under `--strict`), it hands out the stream as it is.
pub struct LockRepair<S> {
    inner: S,
    enabled: bool,
    /// Per lock, the threads holding it in the stream handed out, with their re-entrancy
    /// counts: one at most while the repair keeps the stream lock-valid.
    holders: Vec<Vec<(ThreadId, u32)>>,
    /// Events held back, in logged order.
    held: VecDeque<Held>,
    /// Events freed by the last release, to be handed out before reading on.
    ready: VecDeque<Held>,
    /// What depends on the held events: their threads, the messages they send, the locks they
    /// take or give back (counts per id, so that walks can recompute them).
    blocked_threads: Vec<u32>,
    pending_sends: Vec<u32>,
    pending_locks: Vec<u32>,
    /// The indices of the events read and not yet handed out, in logged order: the k-th event
    /// handed out gets the k-th index read.
    indices: VecDeque<u64>,
    /// The event handed out when it is not the inner source's own.
    slot: Option<Held>,
    repairs: Vec<Warning>,
    repaired: u64,
    /// The inner source has said it has no more events: it is not asked again.
    ended: bool,
}

impl<S: EventSource> LockRepair<S> {
    /// Repairs `inner` if `enabled`.
    pub fn new(inner: S, enabled: bool) -> LockRepair<S> {
        LockRepair {
            inner,
            enabled,
            holders: Vec::new(),
            held: VecDeque::new(),
            ready: VecDeque::new(),
            blocked_threads: Vec::new(),
            pending_sends: Vec::new(),
            pending_locks: Vec::new(),
            indices: VecDeque::new(),
            slot: None,
            repairs: Vec::new(),
            repaired: 0,
            ended: false,
        }
    }

    /// The warnings about repairs made since the last call: one per acquire that waited for a
    /// late release, at the acquire's position.
    pub fn take_repairs(&mut self) -> impl Iterator<Item = Warning> + '_ {
        self.repairs.drain(..)
    }

    /// How many acquires waited for a late release so far.
    pub fn repaired(&self) -> u64 {
        self.repaired
    }

    /// Whether the next event can come straight from the inner source.
    #[inline]
    fn passing_through(&self) -> bool {
        self.held.is_empty() && self.ready.is_empty()
    }

    /// Looks at the event the inner source just moved to, with nothing held: `true` if it is
    /// handed out as it is, `false` if it was held back.
    #[inline]
    fn pass_inner(&mut self) -> bool {
        let e = self.inner.current();
        match e.op {
            Op::Acquire(l) => {
                if let Some(holder) = self.other_holder(l, e.thread) {
                    let held = Held {
                        event: e.clone(),
                        pos: self.inner.position(),
                        late: Some(holder),
                    };
                    self.indices.push_back(held.event.index);
                    self.hold(held);
                    return false;
                }
                let t = e.thread;
                self.take(l, t);
            }
            Op::Release(l) => {
                let t = e.thread;
                self.give_back(l, t);
            }
            _ => {}
        }
        self.slot = None;
        true
    }

    /// A thread other than `t` that holds `l` in the stream handed out.
    #[inline]
    fn other_holder(&self, l: LockId, t: ThreadId) -> Option<ThreadId> {
        self.holders
            .get(l.index())?
            .iter()
            .find(|&&(h, _)| h != t)
            .map(|&(h, _)| h)
    }

    fn take(&mut self, l: LockId, t: ThreadId) {
        if l.index() >= self.holders.len() {
            self.holders.resize_with(l.index() + 1, Vec::new);
        }
        let hs = &mut self.holders[l.index()];
        match hs.iter_mut().find(|(h, _)| *h == t) {
            Some(entry) => entry.1 += 1,
            None => hs.push((t, 1)),
        }
    }

    /// A release not held is the validator's to report; here it changes nothing.
    fn give_back(&mut self, l: LockId, t: ThreadId) {
        let Some(hs) = self.holders.get_mut(l.index()) else {
            return;
        };
        if let Some(i) = hs.iter().position(|&(h, _)| h == t) {
            hs[i].1 -= 1;
            if hs[i].1 == 0 {
                hs.swap_remove(i);
            }
        }
    }

    /// Holds `h` back and marks what depends on it.
    fn hold(&mut self, h: Held) {
        mark(
            &h.event,
            &mut self.blocked_threads,
            &mut self.pending_sends,
            &mut self.pending_locks,
        );
        self.held.push_back(h);
        if self.held.len() > MAX_HELD {
            self.flush();
        }
    }

    /// Whether `e`, read while events are held, must wait for them.
    fn must_wait(&self, e: &Event) -> bool {
        waits(
            e,
            &self.blocked_threads,
            &self.pending_sends,
            &self.pending_locks,
        ) || matches!(e.op, Op::Acquire(l) if self.other_holder(l, e.thread).is_some())
    }

    /// Takes in one event read while events are held.
    fn consider(&mut self, event: Event, pos: Position) {
        self.indices.push_back(event.index);
        if self.must_wait(&event) {
            let late = match event.op {
                Op::Acquire(l) => self
                    .other_holder(l, event.thread)
                    .filter(|_| !self.depends_on_held(&event)),
                _ => None,
            };
            self.hold(Held { event, pos, late });
            return;
        }
        let release = matches!(event.op, Op::Release(_));
        self.hand_out_later(Held {
            event,
            pos,
            late: None,
        });
        if release {
            self.walk();
        }
    }

    /// Whether `e` waits because of a held event (rather than only for its lock).
    fn depends_on_held(&self, e: &Event) -> bool {
        waits(
            e,
            &self.blocked_threads,
            &self.pending_sends,
            &self.pending_locks,
        )
    }

    /// Queues `h` to be handed out, keeping the lock holders of the stream handed out.
    fn hand_out_later(&mut self, h: Held) {
        match h.event.op {
            Op::Acquire(l) => {
                if let Some(holder) = h.late {
                    self.repaired += 1;
                    let names = self.inner.names();
                    self.repairs.push(Warning {
                        pos: h.pos,
                        kind: WarningKind::LateRelease {
                            thread: names.thread(h.event.thread).to_owned(),
                            lock: names.lock(l).to_owned(),
                            holder: names.thread(holder).to_owned(),
                        },
                    });
                }
                self.take(l, h.event.thread);
            }
            Op::Release(l) => self.give_back(l, h.event.thread),
            _ => {}
        }
        self.ready.push_back(h);
    }

    /// Hands out every held event whose dependencies are met, in logged order, until no more
    /// can go; then recomputes what the rest blocks.
    fn walk(&mut self) {
        loop {
            let mut threads = Vec::new();
            let mut sends = Vec::new();
            let mut locks = Vec::new();
            let mut stay = VecDeque::with_capacity(self.held.len());
            let mut moved = false;
            for h in std::mem::take(&mut self.held) {
                let blocked = waits(&h.event, &threads, &sends, &locks)
                    || matches!(h.event.op,
                        Op::Acquire(l) if self.other_holder(l, h.event.thread).is_some());
                if blocked {
                    mark(&h.event, &mut threads, &mut sends, &mut locks);
                    stay.push_back(h);
                } else {
                    moved = true;
                    self.hand_out_later(h);
                }
            }
            self.held = stay;
            self.blocked_threads = threads;
            self.pending_sends = sends;
            self.pending_locks = locks;
            if !moved || self.held.is_empty() {
                return;
            }
        }
    }

    /// Hands out everything held, as logged: the repair failed for them.
    fn flush(&mut self) {
        for h in std::mem::take(&mut self.held) {
            let h = Held { late: None, ..h };
            self.hand_out_later(h);
        }
        self.blocked_threads.clear();
        self.pending_sends.clear();
        self.pending_locks.clear();
    }

    /// Moves to the next event as `advance` does, when events are held or ready.
    fn advance_slow(&mut self) -> Result<bool, TraceError> {
        loop {
            if let Some(mut h) = self.ready.pop_front() {
                h.event.index = self.indices.pop_front().unwrap_or(h.event.index);
                self.slot = Some(h);
                return Ok(true);
            }
            if self.held.is_empty() {
                if self.ended || !self.inner.advance()? {
                    return Ok(false);
                }
                if self.pass_inner() {
                    return Ok(true);
                }
                continue;
            }
            if self.ended || !self.inner.advance()? {
                self.ended = true;
                self.walk();
                self.flush();
                continue;
            }
            let event = self.inner.current().clone();
            let pos = self.inner.position();
            self.consider(event, pos);
        }
    }
}

/// Whether `e` depends on a held event, given what the held events block.
fn waits(e: &Event, threads: &[u32], sends: &[u32], locks: &[u32]) -> bool {
    let set = |v: &[u32], i: usize| v.get(i).is_some_and(|&n| n > 0);
    set(threads, e.thread.index())
        || match e.op {
            Op::Receive(m) => set(sends, m.index()),
            Op::Join(u) => set(threads, u.index()),
            Op::Acquire(l) => set(locks, l.index()),
            _ => false,
        }
}

/// Marks what a held event blocks: its thread, a message it sends, a lock it takes or gives
/// back, a thread it forks.
fn mark(e: &Event, threads: &mut Vec<u32>, sends: &mut Vec<u32>, locks: &mut Vec<u32>) {
    fn bump(v: &mut Vec<u32>, i: usize) {
        if i >= v.len() {
            v.resize(i + 1, 0);
        }
        v[i] += 1;
    }
    bump(threads, e.thread.index());
    match e.op {
        Op::Send(m) => bump(sends, m.index()),
        Op::Acquire(l) | Op::Release(l) => bump(locks, l.index()),
        Op::Fork(u) => bump(threads, u.index()),
        _ => {}
    }
}

impl<S: EventSource> EventSource for LockRepair<S> {
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        if !self.enabled {
            return self.inner.advance();
        }
        if self.passing_through() {
            if !self.inner.advance()? {
                return Ok(false);
            }
            if self.pass_inner() {
                return Ok(true);
            }
        }
        self.advance_slow()
    }

    #[inline]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        if !self.enabled {
            return self.inner.advance_splitting_calls(values);
        }
        if self.passing_through() {
            match self.inner.advance_splitting_calls(values)? {
                Step::End => return Ok(Step::End),
                // A call takes no lock, and nothing is held for it to wait for.
                step @ Step::Call(_) => {
                    self.slot = None;
                    return Ok(step);
                }
                Step::Event => {
                    if self.pass_inner() {
                        return Ok(Step::Event);
                    }
                }
            }
        }
        Ok(if self.advance_slow()? {
            split_call(self.current(), values)
        } else {
            Step::End
        })
    }

    #[inline]
    fn current(&self) -> &Event {
        match &self.slot {
            Some(h) => &h.event,
            None => self.inner.current(),
        }
    }

    fn position(&self) -> Position {
        match &self.slot {
            Some(h) => h.pos,
            None => self.inner.position(),
        }
    }

    fn names(&self) -> &Names {
        self.inner.names()
    }

    fn names_defined(&self) -> usize {
        self.inner.names_defined()
    }

    fn take_names(&mut self) -> Names {
        self.inner.take_names()
    }
}
