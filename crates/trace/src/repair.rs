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
//! everything held when more than [`MAX_HELD`] events wait, which bounds memory. Requests
//! (`req`) are counted apart, against a bound of their own: they order nothing, and a log with
//! or without them must be repaired alike (in RAPID's logs each acquire follows its request, so
//! the other events reach the bound first).
//!
//! Events keep their positions in the file; their indices are renumbered to count the repaired
//! stream (which every analysis takes as the trace's order). A stream that needs no repair is
//! handed out untouched: the wrapper then costs a look at each acquire and release.
//!
//! ## Tolerance
//!
//! What the repair cannot put back is *tolerated*, so that every analysis answers on every
//! log (see `docs/lock-records.md` for why each analysis keeps its claims on the rest):
//!
//! - an acquire of a lock another thread still holds in the stream handed out opens an
//!   **unprotected section**: that acquire, the thread's nested acquires of the lock inside
//!   it and the release that closes it are handed out as requests (`req`), which order
//!   nothing, so the section is read as not protected by that lock;
//! - a release by a thread that does not hold the lock (a log that starts while a lock is
//!   held, a lost acquire, a release by the wrong thread) is handed out as a request too:
//!   ignored.
//!
//! Each tolerated record keeps its position and its index; the stream handed out is then
//! lock-valid whatever the log. A warning names each unprotected section and each ignored
//! release; [`LockRepair::tolerated`] counts the records.

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

/// What [`LockRepair`] does with a log's lock records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockHandling {
    /// Restore the order of late releases (the module documentation).
    pub repair: bool,
    /// Tolerate what is left (the module documentation's "Tolerance").
    pub tolerate: bool,
}

impl LockHandling {
    /// Both: the default of every pass.
    pub const ALL: LockHandling = LockHandling {
        repair: true,
        tolerate: true,
    };
    /// Neither: the stream as logged (under `--strict`, or for an observer that keeps the
    /// logged lock order).
    pub const NONE: LockHandling = LockHandling {
        repair: false,
        tolerate: false,
    };
}

/// What [`LockRepair`] did to a log's lock records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockRecordCounts {
    /// Acquires that waited for a late release.
    pub repaired: u64,
    /// Acquires handed out as requests (unprotected sections, and acquires nested in them).
    pub tolerated_acquires: u64,
    /// Releases handed out as requests (closing unprotected sections, or without an acquire).
    pub tolerated_releases: u64,
}

impl LockRecordCounts {
    /// The records tolerated, acquires and releases.
    pub fn tolerated(&self) -> u64 {
        self.tolerated_acquires + self.tolerated_releases
    }
}

/// How a pass reads a log's lock records (`--lock-records`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockRecords {
    /// Late releases put back ([`LockRepair`]), what cannot be put back tolerated.
    #[default]
    Repair,
    /// In logged order, as RAPID reads them, for side-by-side comparisons: nothing repaired,
    /// and nothing tolerated either unless an analysis of the pass needs lock-valid traces
    /// (its theory has no reading of a log that is not).
    AsLogged,
}

impl LockRecords {
    /// What a pass does with lock records: `strict` passes and passes that keep the logged
    /// lock order (they consider every lock order themselves) take them as they are;
    /// `needs_lock_valid` says whether an analysis of the pass needs lock-valid traces.
    pub fn handling(self, strict: bool, keeps_order: bool, needs_lock_valid: bool) -> LockHandling {
        if strict || keeps_order {
            return LockHandling::NONE;
        }
        match self {
            LockRecords::Repair => LockHandling::ALL,
            LockRecords::AsLogged => LockHandling {
                repair: false,
                tolerate: needs_lock_valid,
            },
        }
    }
}

/// Wraps an [`EventSource`], restoring the order of late lock releases and tolerating what
/// cannot be restored (see the module documentation). With neither (under `--strict`), it
/// hands out the stream as it is.
pub struct LockRepair<S> {
    inner: S,
    repair: bool,
    tolerate: bool,
    /// The unprotected sections open in the stream handed out: thread, lock, nesting depth.
    /// Rare: a list.
    unprotected: Vec<(ThreadId, LockId, u32)>,
    tolerated_acquires: u64,
    tolerated_releases: u64,
    /// Per lock, the threads holding it in the stream handed out, with their re-entrancy
    /// counts: one at most while the repair keeps the stream lock-valid.
    holders: Vec<Vec<(ThreadId, u32)>>,
    /// Events held back, in logged order.
    held: VecDeque<Held>,
    /// How many of `held` are requests.
    held_requests: usize,
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
    /// Repairs and tolerates `inner` if `enabled`.
    pub fn new(inner: S, enabled: bool) -> LockRepair<S> {
        let handling = if enabled {
            LockHandling::ALL
        } else {
            LockHandling::NONE
        };
        LockRepair::with(inner, handling)
    }

    /// Wraps `inner`, doing what `handling` says.
    pub fn with(inner: S, handling: LockHandling) -> LockRepair<S> {
        LockRepair {
            inner,
            repair: handling.repair,
            tolerate: handling.tolerate,
            unprotected: Vec::new(),
            tolerated_acquires: 0,
            tolerated_releases: 0,
            holders: Vec::new(),
            held: VecDeque::new(),
            held_requests: 0,
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

    /// The warnings about repairs and tolerated records since the last call: one per acquire
    /// that waited for a late release, per unprotected section and per release ignored, at
    /// the record's position.
    pub fn take_repairs(&mut self) -> impl Iterator<Item = Warning> + '_ {
        self.repairs.drain(..)
    }

    /// Whether [`Self::take_repairs`] has anything to take. A pass asks after every event,
    /// and there nearly never is: building and dropping an empty `Drain` cost more than the
    /// rest of a read's lock repair (`BENCHMARKS.md`, #43).
    #[inline]
    pub fn has_repairs(&self) -> bool {
        !self.repairs.is_empty()
    }

    /// How many acquires waited for a late release so far.
    pub fn repaired(&self) -> u64 {
        self.repaired
    }

    /// How many lock records were tolerated so far (handed out as requests).
    pub fn tolerated(&self) -> u64 {
        self.tolerated_acquires + self.tolerated_releases
    }

    /// What was done to lock records so far.
    pub fn counts(&self) -> LockRecordCounts {
        LockRecordCounts {
            repaired: self.repaired,
            tolerated_acquires: self.tolerated_acquires,
            tolerated_releases: self.tolerated_releases,
        }
    }

    /// How deep `t` is in an unprotected section of `l`.
    #[inline]
    fn unprotected_depth(&mut self, t: ThreadId, l: LockId) -> Option<&mut u32> {
        self.unprotected
            .iter_mut()
            .find(|(u, m, _)| *u == t && *m == l)
            .map(|(_, _, d)| d)
    }

    fn holds(&self, l: LockId, t: ThreadId) -> bool {
        self.holders
            .get(l.index())
            .is_some_and(|hs| hs.iter().any(|&(h, _)| h == t))
    }

    /// Tolerates `e`, handed out next at `pos`, if it must be: `true` if it was rewritten
    /// into a request. Keeps the lock holders of the stream handed out for the records it
    /// lets through.
    fn tolerate_or_pass(&mut self, e: &mut Event, pos: Position) -> bool {
        let t = e.thread;
        match e.op {
            Op::Acquire(l) => {
                if self.tolerate {
                    if let Some(d) = self.unprotected_depth(t, l) {
                        *d += 1;
                        return self.tolerated_record(e, l);
                    }
                    if let Some(holder) = self.other_holder(l, t) {
                        self.unprotected.push((t, l, 1));
                        let names = self.inner.names();
                        self.repairs.push(Warning {
                            pos,
                            kind: WarningKind::UnprotectedSection {
                                thread: names.thread(t).to_owned(),
                                lock: names.lock(l).to_owned(),
                                holder: names.thread(holder).to_owned(),
                            },
                        });
                        return self.tolerated_record(e, l);
                    }
                }
                self.take(l, t);
                false
            }
            Op::Release(l) => {
                if self.tolerate {
                    if let Some(i) = self
                        .unprotected
                        .iter()
                        .position(|&(u, m, _)| u == t && m == l)
                    {
                        self.unprotected[i].2 -= 1;
                        if self.unprotected[i].2 == 0 {
                            self.unprotected.swap_remove(i);
                        }
                        return self.tolerated_record(e, l);
                    }
                    if !self.holds(l, t) {
                        let names = self.inner.names();
                        self.repairs.push(Warning {
                            pos,
                            kind: WarningKind::ReleaseWithoutAcquire {
                                thread: names.thread(t).to_owned(),
                                lock: names.lock(l).to_owned(),
                                treatment: "ignored (it orders nothing)",
                            },
                        });
                        return self.tolerated_record(e, l);
                    }
                }
                self.give_back(l, t);
                false
            }
            _ => false,
        }
    }

    /// Rewrites a tolerated record of `l` into a request, which orders nothing.
    fn tolerated_record(&mut self, e: &mut Event, l: LockId) -> bool {
        match e.op {
            Op::Acquire(_) => self.tolerated_acquires += 1,
            _ => self.tolerated_releases += 1,
        }
        e.op = Op::Request(l);
        true
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
        // Most events are no lock record: decided here, inlined, rather than in a call.
        if !matches!(self.inner.current().op, Op::Acquire(_) | Op::Release(_)) {
            self.slot = None;
            return true;
        }
        self.pass_lock_record()
    }

    /// [`Self::pass_inner`] of an acquire or a release.
    #[inline(never)]
    fn pass_lock_record(&mut self) -> bool {
        let e = self.inner.current();
        let (l, t, acquire) = match e.op {
            Op::Acquire(l) => (l, e.thread, true),
            Op::Release(l) => (l, e.thread, false),
            _ => {
                self.slot = None;
                return true;
            }
        };
        if acquire && self.repair && !self.in_unprotected(t, l) {
            if let Some(holder) = self.other_holder(l, t) {
                let held = Held {
                    event: e.clone(),
                    pos: self.inner.position(),
                    late: Some(holder),
                };
                self.indices.push_back(held.event.index);
                self.hold(held);
                return false;
            }
        }
        if !self.is_tolerated(l, t, acquire) {
            // Kept as logged; without tolerance two threads may hold a lock, as the
            // validator also keeps them.
            if acquire {
                self.take(l, t);
            } else {
                self.give_back(l, t);
            }
            self.slot = None;
            return true;
        }
        let pos = self.inner.position();
        let mut event = e.clone();
        self.tolerate_or_pass(&mut event, pos);
        self.slot = Some(Held {
            event,
            pos,
            late: None,
        });
        true
    }

    /// Whether `t` is in an unprotected section of `l`.
    #[inline]
    fn in_unprotected(&self, t: ThreadId, l: LockId) -> bool {
        !self.unprotected.is_empty() && self.unprotected.iter().any(|&(u, m, _)| u == t && m == l)
    }

    /// Whether an acquire (or release) of `l` by `t`, handed out next, is tolerated.
    #[inline]
    fn is_tolerated(&self, l: LockId, t: ThreadId, acquire: bool) -> bool {
        self.tolerate
            && (self.in_unprotected(t, l)
                || if acquire {
                    self.other_holder(l, t).is_some()
                } else {
                    !self.holds(l, t)
                })
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
        self.held_requests += matches!(h.event.op, Op::Request(_)) as usize;
        self.held.push_back(h);
        if self.held.len() - self.held_requests > MAX_HELD || self.held_requests > MAX_HELD {
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
        ) || matches!(e.op, Op::Acquire(l) if self.waits_for_lock(l, e.thread))
    }

    /// Whether an acquire of `l` by `t` waits for another thread's release: not if it is
    /// nested in an unprotected section of `t`, which tolerance hands out as it comes.
    #[inline]
    fn waits_for_lock(&self, l: LockId, t: ThreadId) -> bool {
        self.other_holder(l, t).is_some() && !self.in_unprotected(t, l)
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
    fn hand_out_later(&mut self, mut h: Held) {
        let l = match h.event.op {
            Op::Acquire(l) | Op::Release(l) => l,
            _ => {
                self.ready.push_back(h);
                return;
            }
        };
        let acquire = matches!(h.event.op, Op::Acquire(_));
        if self.is_tolerated(l, h.event.thread, acquire) {
            self.tolerate_or_pass(&mut h.event, h.pos);
            self.ready.push_back(h);
            return;
        }
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
                        Op::Acquire(l) if self.waits_for_lock(l, h.event.thread));
                if blocked {
                    mark(&h.event, &mut threads, &mut sends, &mut locks);
                    stay.push_back(h);
                } else {
                    moved = true;
                    self.hand_out_later(h);
                }
            }
            self.held_requests = stay
                .iter()
                .filter(|h| matches!(h.event.op, Op::Request(_)))
                .count();
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
        self.held_requests = 0;
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
        if !self.repair && !self.tolerate {
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
        if !self.repair && !self.tolerate {
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
