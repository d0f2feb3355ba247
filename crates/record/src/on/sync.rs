//! Recording `Mutex`, `RwLock` and `Condvar`: the std types inside, with `acq`/`rel` (and, for
//! reader-writer locks, `snd`/`rcv`) recorded at the moments they take effect. Poisoning is
//! passed through unchanged: a poisoned lock still records its acquisition, and the guard
//! inside the `PoisonError` records its release.

use super::recorder::{active, with_local, ObjName};
use crate::Named;
use hindsight_trace::{MsgId, Op, ThreadId};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync as std_sync;
use std::time::Duration;

pub use std::sync::{
    Arc, Barrier, BarrierWaitResult, LazyLock, LockResult, Once, OnceLock, PoisonError,
    TryLockError, TryLockResult, WaitTimeoutResult, Weak,
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
fn record_release(name: &ObjName, gen: u32) {
    if gen == 0 {
        return;
    }
    record_release_slow(name, gen)
}

#[inline(never)]
fn record_release_slow(name: &ObjName, gen: u32) {
    with_local(|l| {
        if l.gen() == gen {
            let id = name.lock(l);
            l.push(Op::Release(id), None);
        }
    });
}

/// A mutual exclusion lock that records `acq(l)` and `rel(l)`.
pub struct Mutex<T: ?Sized> {
    name: ObjName,
    inner: std_sync::Mutex<T>,
}

/// Holds a [`Mutex`]; dropping it records `rel(l)` and then unlocks.
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    lock: &'a Mutex<T>,
    /// `None` only while a [`Condvar`] wait has taken the std guard.
    inner: Option<std_sync::MutexGuard<'a, T>>,
    gen: u32,
}

impl<T> Mutex<T> {
    #[track_caller]
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            name: ObjName::site(Location::caller()),
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

impl<T> Named for Mutex<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.inner.as_deref().expect("held")
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_deref_mut().expect("held")
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Runs before the std guard (a field) unlocks: the release draws first.
        if self.inner.is_some() {
            record_release(&self.lock.name, self.gen);
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
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

    /// Takes the std guard out of `guard`, recording the release.
    fn unwrap_guard<'a, T>(
        mut guard: MutexGuard<'a, T>,
    ) -> (&'a Mutex<T>, std_sync::MutexGuard<'a, T>) {
        let lock = guard.lock;
        record_release(&lock.name, guard.gen);
        let inner = guard.inner.take().expect("held");
        (lock, inner)
    }

    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let loc = Location::caller();
        let (lock, inner) = Condvar::unwrap_guard(guard);
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
        while condition(&mut *guard) {
            let (lock, inner) = Condvar::unwrap_guard(guard);
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
        let (lock, inner) = Condvar::unwrap_guard(guard);
        match self.inner.wait_timeout(inner, dur) {
            Ok((g, t)) => Ok((lock.guard(g, loc), t)),
            Err(p) => {
                let (g, t) = p.into_inner();
                Err(PoisonError::new((lock.guard(g, loc), t)))
            }
        }
    }

    pub fn notify_one(&self) {
        self.inner.notify_one()
    }

    pub fn notify_all(&self) {
        self.inner.notify_all()
    }
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
pub struct RwLock<T: ?Sized> {
    name: ObjName,
    state: std_sync::Mutex<RwState>,
    inner: std_sync::RwLock<T>,
}

pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: std_sync::RwLockReadGuard<'a, T>,
    gen: u32,
}

pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    inner: std_sync::RwLockWriteGuard<'a, T>,
    gen: u32,
}

fn state_lock(m: &std_sync::Mutex<RwState>) -> std_sync::MutexGuard<'_, RwState> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T> RwLock<T> {
    #[track_caller]
    pub fn new(value: T) -> RwLock<T> {
        RwLock {
            name: ObjName::site(Location::caller()),
            state: std_sync::Mutex::new(RwState::default()),
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

    fn record_read_release(&self, gen: u32) {
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
            l.push(Op::Send(m), None);
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

    fn record_write_release(&self, gen: u32) {
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
            l.push(Op::Send(m), None);
            let id = self.name.lock(l);
            l.push(Op::Release(id), None);
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

impl<T> Named for RwLock<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.record_read_release(self.gen);
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.record_write_release(self.gen);
    }
}
