//! Recording `Mutex`, `RwLock` and `Condvar`: the std types inside, with `acq`/`rel` (and, for
//! reader-writer locks, `snd`/`rcv`) recorded at the moments they take effect. Poisoning is
//! passed through unchanged: a poisoned lock still records its acquisition, and the guard
//! inside the `PoisonError` records its release. A release carries the location of the call
//! that acquired (a guard's drop has no call site of its own), or of the `Condvar` wait.
//!
//! # Guards are accesses
//!
//! The data inside a lock is one variable, named as the lock is (its creation site or
//! `named`). Dereferencing a guard records `r(x)` (`Deref`) or `w(x)` (`DerefMut`) at the
//! dereference, but not every dereference: a guard records a read only if it has not recorded
//! one since its last recorded write, and a write only once, so a critical section shows at
//! most `r w r` of its data, in the order of the first dereferences. That is all the trace
//! analyses can see:
//! - `races`: every access of the data is under the lock, so repeated accesses of one critical
//!   section have one clock and one lockset; the first of each kind stands for the others.
//! - `atomicity`: no other thread touches the data while the guard lives, so any conflict
//!   pattern that uses a later access of the same kind in the section uses the first one
//!   equally (nothing conflicting lies between them).
//! - `views`: a region's view keeps per variable whether it reads, writes fresh or after a
//!   read, and whether a read escapes (no write after it); `r w r` gives the same marks as
//!   any longer sequence with the same first read, first write and last read after it.
//!
//! `DerefMut` is a write without a read: `*g += 1` reads too, but so does `*g = v + 1`, and
//! only the first is safe to call fresh; recording `w` alone keeps the lost update of a value
//! read in an earlier critical section visible to `views`, at the price of a stale-value
//! warning when a read in one section is followed by `*g += 1` in another.

use super::recorder::{active, with_local, ObjName};
use crate::Named;
use hindsight_trace::{MsgId, Op, ThreadId};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync as std_sync;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

pub use super::once::{Barrier, BarrierWaitResult, LazyLock, Once, OnceLock, OnceState};
pub use std::sync::{
    Arc, LockResult, PoisonError, TryLockError, TryLockResult, WaitTimeoutResult, Weak,
};

pub mod atomic {
    //! Atomics that record their operations; see [`crate::sync::atomic`] in the crate docs.
    pub use super::super::atomic::*;
    pub use std::sync::atomic::{compiler_fence, fence, Ordering};
}

pub mod mpsc {
    //! Channels whose messages are recorded as `snd`/`rcv` pairs.
    pub use super::super::channel::*;
}

/// Records an acquire of `name` now; the session's generation, or 0 if nothing records.
#[inline(always)]
fn record_acquire(name: &ObjName, loc: &'static Location<'static>) -> u32 {
    if !active() {
        return 0;
    }
    record_acquire_slow(name, loc)
}

#[inline(never)]
fn record_acquire_slow(name: &ObjName, loc: &'static Location<'static>) -> u32 {
    with_local(|l| {
        let id = name.lock(l);
        l.push(Op::Acquire(id), Some(loc));
        l.gen()
    })
    .unwrap_or(0)
}

/// Records the release matching an acquire recorded in session `gen`.
#[inline(always)]
fn record_release(name: &ObjName, gen: u32, loc: &'static Location<'static>) {
    if gen == 0 {
        return;
    }
    record_release_slow(name, gen, loc)
}

#[inline(never)]
fn record_release_slow(name: &ObjName, gen: u32, loc: &'static Location<'static>) {
    with_local(|l| {
        if l.gen() == gen {
            let id = name.lock(l);
            l.push(Op::Release(id), Some(loc));
        }
    });
}

/// What a guard has recorded of its data: a read since its last recorded write, a write.
const READ: u8 = 1;
const WRITTEN: u8 = 2;

/// The accesses of the data behind one guard (see the module doc). An atomic only so that the
/// guard stays `Sync` as std's is; it is touched by the guard's holder.
struct Accesses(AtomicU8);

impl Accesses {
    const fn new() -> Accesses {
        Accesses(AtomicU8::new(0))
    }

    /// Records a read (`write` false) or write of the data `name` of a lock held in session
    /// `gen`, unless this guard's earlier record stands for it.
    #[inline(always)]
    fn record(&self, name: &ObjName, gen: u32, write: bool, loc: &'static Location<'static>) {
        if gen == 0 {
            return;
        }
        let seen = self.0.load(Ordering::Relaxed);
        let covered = if write {
            seen & WRITTEN != 0
        } else {
            seen & READ != 0
        };
        if !covered {
            self.record_slow(name, gen, write, seen, loc);
        }
    }

    #[inline(never)]
    fn record_slow(
        &self,
        name: &ObjName,
        gen: u32,
        write: bool,
        seen: u8,
        loc: &'static Location<'static>,
    ) {
        with_local(|l| {
            if l.gen() == gen {
                let x = name.var(l);
                l.push(if write { Op::Write(x) } else { Op::Read(x) }, Some(loc));
            }
        });
        let seen = if write { WRITTEN } else { seen | READ };
        self.0.store(seen, Ordering::Relaxed);
    }
}

/// A mutual exclusion lock that records `acq(l)` and `rel(l)`, and the accesses of its data
/// through its guards as `r(l)`/`w(l)`.
pub struct Mutex<T: ?Sized> {
    name: ObjName,
    /// The data's variable: an `ObjName` caches one id, and the lock's is of another kind.
    data: ObjName,
    inner: std_sync::Mutex<T>,
}

/// Holds a [`Mutex`]; dropping it records `rel(l)` and then unlocks.
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    lock: &'a Mutex<T>,
    /// `None` only while a [`Condvar`] wait has taken the std guard.
    inner: Option<std_sync::MutexGuard<'a, T>>,
    gen: u32,
    /// Where the lock was taken: the release's location too.
    loc: &'static Location<'static>,
    accesses: Accesses,
}

impl<T> Mutex<T> {
    #[track_caller]
    pub const fn new(value: T) -> Mutex<T> {
        let site = Location::caller();
        Mutex {
            name: ObjName::site(site),
            data: ObjName::site(site),
            inner: std_sync::Mutex::new(value),
        }
    }

    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    #[inline(always)]
    fn guard<'a>(
        &'a self,
        g: std_sync::MutexGuard<'a, T>,
        loc: &'static Location<'static>,
    ) -> MutexGuard<'a, T> {
        // The real lock is held: the acquire draws its sequence number after it.
        let gen = record_acquire(&self.name, loc);
        MutexGuard {
            lock: self,
            inner: Some(g),
            gen,
            loc,
            accesses: Accesses::new(),
        }
    }

    #[track_caller]
    #[inline]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.lock() {
            Ok(g) => Ok(self.guard(g, loc)),
            Err(p) => Err(PoisonError::new(self.guard(p.into_inner(), loc))),
        }
    }

    /// A failed attempt records nothing: it orders nothing.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.try_lock() {
            Ok(g) => Ok(self.guard(g, loc)),
            Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(
                self.guard(p.into_inner(), loc),
            ))),
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }

    /// Exclusive access through `&mut` needs no lock and records nothing.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T> Named for Mutex<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self.data.rename(name);
        self
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    #[track_caller]
    #[inline]
    fn deref(&self) -> &T {
        self.accesses
            .record(&self.lock.data, self.gen, false, Location::caller());
        self.inner.as_deref().expect("held")
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    #[track_caller]
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.accesses
            .record(&self.lock.data, self.gen, true, Location::caller());
        self.inner.as_deref_mut().expect("held")
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Runs before the std guard (a field) unlocks: the release draws first.
        if self.inner.is_some() {
            record_release(&self.lock.name, self.gen, self.loc);
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Formatting has no call site of its own to record: a read only `Deref` records.
        self.inner.as_deref().expect("held").fmt(f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.as_deref().expect("held").fmt(f)
    }
}

/// A condition variable for [`Mutex`]. A wait records the release of the mutex before it
/// blocks and its re-acquisition after it wakes; notifications order nothing by themselves
/// (the waiter's re-acquisition is ordered after the notifier's release of the mutex).
#[derive(Debug, Default)]
pub struct Condvar {
    inner: std_sync::Condvar,
}

impl Condvar {
    pub const fn new() -> Condvar {
        Condvar {
            inner: std_sync::Condvar::new(),
        }
    }

    /// Takes the std guard out of `guard`, recording the release at the wait `loc`.
    fn unwrap_guard<'a, T>(
        mut guard: MutexGuard<'a, T>,
        loc: &'static Location<'static>,
    ) -> (&'a Mutex<T>, std_sync::MutexGuard<'a, T>) {
        let lock = guard.lock;
        record_release(&lock.name, guard.gen, loc);
        let inner = guard.inner.take().expect("held");
        (lock, inner)
    }

    /// Evaluates a wait's condition on the data of `guard`. std lends it `&mut T`, but it is
    /// a predicate: recorded as the read it is meant to be, at the wait `loc`.
    fn test<T, F>(
        guard: &mut MutexGuard<'_, T>,
        condition: &mut F,
        loc: &'static Location<'static>,
    ) -> bool
    where
        F: FnMut(&mut T) -> bool,
    {
        guard
            .accesses
            .record(&guard.lock.data, guard.gen, false, loc);
        condition(guard.inner.as_deref_mut().expect("held"))
    }

    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let loc = Location::caller();
        let (lock, inner) = Condvar::unwrap_guard(guard, loc);
        match self.inner.wait(inner) {
            Ok(g) => Ok(lock.guard(g, loc)),
            Err(p) => Err(PoisonError::new(lock.guard(p.into_inner(), loc))),
        }
    }

    #[track_caller]
    pub fn wait_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        let loc = Location::caller();
        while Condvar::test(&mut guard, &mut condition, loc) {
            let (lock, inner) = Condvar::unwrap_guard(guard, loc);
            guard = match self.inner.wait(inner) {
                Ok(g) => lock.guard(g, loc),
                Err(p) => return Err(PoisonError::new(lock.guard(p.into_inner(), loc))),
            };
        }
        Ok(guard)
    }

    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        let loc = Location::caller();
        let (lock, inner) = Condvar::unwrap_guard(guard, loc);
        match self.inner.wait_timeout(inner, dur) {
            Ok((g, t)) => Ok((lock.guard(g, loc), t)),
            Err(p) => {
                let (g, t) = p.into_inner();
                Err(PoisonError::new((lock.guard(g, loc), t)))
            }
        }
    }

    /// std's `wait_timeout_while`: waits until `condition` is false or `dur` has passed,
    /// recording each wait as [`Condvar::wait_timeout`] does.
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        let loc = Location::caller();
        let start = std::time::Instant::now();
        loop {
            if !Condvar::test(&mut guard, &mut condition, loc) {
                return Ok((guard, timed_out(false)));
            }
            let left = match dur.checked_sub(start.elapsed()) {
                Some(left) if !left.is_zero() => left,
                _ => return Ok((guard, timed_out(true))),
            };
            let (lock, inner) = Condvar::unwrap_guard(guard, loc);
            guard = match self.inner.wait_timeout(inner, left) {
                Ok((g, _)) => lock.guard(g, loc),
                Err(p) => {
                    let (g, t) = p.into_inner();
                    return Err(PoisonError::new((lock.guard(g, loc), t)));
                }
            };
        }
    }

    pub fn notify_one(&self) {
        self.inner.notify_one()
    }

    pub fn notify_all(&self) {
        self.inner.notify_all()
    }
}

/// A `WaitTimeoutResult` saying `timed_out`: std makes them only from a real wait, so a zero
/// wait on a private condition variable makes one of each kind.
fn timed_out(timed_out: bool) -> WaitTimeoutResult {
    let m = std_sync::Mutex::new(());
    let c = std_sync::Condvar::new();
    let g = m.lock().unwrap_or_else(PoisonError::into_inner);
    let (_guard, r) = c
        .wait_timeout_while(g, Duration::ZERO, |_| timed_out)
        .unwrap_or_else(PoisonError::into_inner);
    r
}

/// What a reader-writer lock needs beyond `acq`/`rel`: readers do not exclude each other, so
/// they cannot be `acq`/`rel` of one lock (the trace would not be lock-valid). Writers are
/// `acq(l)`/`rel(l)`; each writer sends `l.w` before it releases and each reader receives it
/// after it acquires, ordering it after the last writer; each reader thread `T` sends `l.r.T`
/// when it releases and each writer receives every such message after it acquires, ordering
/// it after every earlier reader. Readers stay unordered with each other.
#[derive(Default)]
struct RwState {
    gen: u32,
    write_msg: Option<MsgId>,
    written: bool,
    readers: Vec<(ThreadId, MsgId)>,
}

impl RwState {
    const EMPTY: RwState = RwState {
        gen: 0,
        write_msg: None,
        written: false,
        readers: Vec::new(),
    };

    fn reset_for(&mut self, gen: u32) {
        if self.gen != gen {
            *self = RwState {
                gen,
                ..RwState::default()
            };
        }
    }
}

/// A reader-writer lock. Writers record `acq(l)`/`rel(l)`; readers cannot (they do not exclude
/// each other, and the trace must stay lock-valid), so each reader receives the message the
/// last writer sent before releasing, and each writer receives the message every earlier
/// reader thread sent when it released: readers are ordered with writers, not with each other.
/// The data behind it is one variable, read through read guards and read or written through
/// write guards, as a [`Mutex`]'s is.
pub struct RwLock<T: ?Sized> {
    name: ObjName,
    data: ObjName,
    state: std_sync::Mutex<RwState>,
    inner: std_sync::RwLock<T>,
}

pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: std_sync::RwLockReadGuard<'a, T>,
    gen: u32,
    loc: &'static Location<'static>,
    accesses: Accesses,
}

pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: std_sync::RwLockWriteGuard<'a, T>,
    gen: u32,
    loc: &'static Location<'static>,
    accesses: Accesses,
}

fn state_lock(m: &std_sync::Mutex<RwState>) -> std_sync::MutexGuard<'_, RwState> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> RwLock<T> {
    #[track_caller]
    pub const fn new(value: T) -> RwLock<T> {
        let site = Location::caller();
        RwLock {
            name: ObjName::site(site),
            data: ObjName::site(site),
            state: std_sync::Mutex::new(RwState::EMPTY),
            inner: std_sync::RwLock::new(value),
        }
    }

    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    fn record_read(&self, loc: &'static Location<'static>) -> u32 {
        if !active() {
            return 0;
        }
        with_local(|l| {
            let mut s = state_lock(&self.state);
            s.reset_for(l.gen());
            if s.written {
                let m = s.write_msg.expect("set by the writer");
                l.push(Op::Receive(m), Some(loc));
            }
            l.gen()
        })
        .unwrap_or(0)
    }

    fn record_read_release(&self, gen: u32, loc: &'static Location<'static>) {
        if gen == 0 {
            return;
        }
        with_local(|l| {
            if l.gen() != gen {
                return;
            }
            let mut s = state_lock(&self.state);
            s.reset_for(gen);
            let me = l.thread();
            let m = match s.readers.iter().find(|(t, _)| *t == me) {
                Some(&(_, m)) => m,
                None => {
                    let label = format!("{}.r", self.name.label());
                    let m = l.message(&label);
                    s.readers.push((me, m));
                    m
                }
            };
            l.push(Op::Send(m), Some(loc));
        });
    }

    fn record_write(&self, loc: &'static Location<'static>) -> u32 {
        if !active() {
            return 0;
        }
        with_local(|l| {
            let id = self.name.lock(l);
            l.push(Op::Acquire(id), Some(loc));
            let mut s = state_lock(&self.state);
            s.reset_for(l.gen());
            for &(_, m) in &s.readers {
                l.push(Op::Receive(m), Some(loc));
            }
            l.gen()
        })
        .unwrap_or(0)
    }

    fn record_write_release(&self, gen: u32, loc: &'static Location<'static>) {
        if gen == 0 {
            return;
        }
        with_local(|l| {
            if l.gen() != gen {
                return;
            }
            let mut s = state_lock(&self.state);
            s.reset_for(gen);
            let m = match s.write_msg {
                Some(m) => m,
                None => {
                    let label = format!("{}.w", self.name.label());
                    let m = l.message(&label);
                    s.write_msg = Some(m);
                    m
                }
            };
            s.written = true;
            l.push(Op::Send(m), Some(loc));
            let id = self.name.lock(l);
            l.push(Op::Release(id), Some(loc));
        });
    }

    fn read_guard<'a>(
        &'a self,
        g: std_sync::RwLockReadGuard<'a, T>,
        loc: &'static Location<'static>,
    ) -> RwLockReadGuard<'a, T> {
        let gen = self.record_read(loc);
        RwLockReadGuard {
            lock: self,
            inner: g,
            gen,
            loc,
            accesses: Accesses::new(),
        }
    }

    fn write_guard<'a>(
        &'a self,
        g: std_sync::RwLockWriteGuard<'a, T>,
        loc: &'static Location<'static>,
    ) -> RwLockWriteGuard<'a, T> {
        let gen = self.record_write(loc);
        RwLockWriteGuard {
            lock: self,
            inner: g,
            gen,
            loc,
            accesses: Accesses::new(),
        }
    }

    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.read() {
            Ok(g) => Ok(self.read_guard(g, loc)),
            Err(p) => Err(PoisonError::new(self.read_guard(p.into_inner(), loc))),
        }
    }

    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.try_read() {
            Ok(g) => Ok(self.read_guard(g, loc)),
            Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(
                self.read_guard(p.into_inner(), loc),
            ))),
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.write() {
            Ok(g) => Ok(self.write_guard(g, loc)),
            Err(p) => Err(PoisonError::new(self.write_guard(p.into_inner(), loc))),
        }
    }

    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let loc = Location::caller();
        match self.inner.try_write() {
            Ok(g) => Ok(self.write_guard(g, loc)),
            Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(
                self.write_guard(p.into_inner(), loc),
            ))),
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        }
    }

    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    pub fn clear_poison(&self) {
        self.inner.clear_poison()
    }

    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> RwLock<T> {
        RwLock::new(T::default())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> From<T> for RwLock<T> {
    #[track_caller]
    fn from(value: T) -> RwLock<T> {
        RwLock::new(value)
    }
}

impl<T> Named for RwLock<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self.data.rename(name);
        self
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    #[track_caller]
    #[inline]
    fn deref(&self) -> &T {
        self.accesses
            .record(&self.lock.data, self.gen, false, Location::caller());
        &self.inner
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.record_read_release(self.gen, self.loc);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    #[track_caller]
    #[inline]
    fn deref(&self) -> &T {
        self.accesses
            .record(&self.lock.data, self.gen, false, Location::caller());
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    #[track_caller]
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        self.accesses
            .record(&self.lock.data, self.gen, true, Location::caller());
        &mut self.inner
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.record_write_release(self.gen, self.loc);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
