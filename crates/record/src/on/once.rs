//! Recording one-time initialisation (`Once`, `OnceLock`, `LazyLock`) and `Barrier`: the
//! happens-before edges std documents, as messages of the trace model (`snd`/`rcv`, a receive
//! being ordered after the latest send of its message), and nothing more.
//!
//! - `Once::call_once`: "there is a happens-before relation between the closure and code
//!   executing after the return" (std). The call that runs the closure sends the once's
//!   message at the end of the closure, before std marks it complete; every other call that
//!   returns receives it. `OnceLock` and `LazyLock` are the same through their initialising
//!   call; a `get` that finds a value receives too (reading the value needs its
//!   initialisation to happen before).
//! - `Barrier::wait`: everything each thread did before a generation's rendezvous happens
//!   before everything any of them does after it. Each arrival sends a message of its own
//!   and each departure receives every message of its generation: the arrivals are not
//!   ordered with each other, as std does not order them. This needs the generation an
//!   arrival belongs to, which std's `Barrier` does not tell, so the barrier is std's own
//!   algorithm (a mutex, a condition variable, a generation counter) with the recording done
//!   under its mutex.
//!
//! A message sent in an earlier recording (or before recording started) is never received:
//! the receive would have no send in the trace.

use super::recorder::{active, with_local, ObjName};
use crate::Named;
use hindsight_trace::{MsgId, Op};
use std::fmt;
use std::ops::Deref;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{self as std_sync, PoisonError};

pub use std::sync::OnceState;

/// The message that orders an initialisation before its observers, and the session that sent
/// it (0: none).
struct Published {
    name: ObjName,
    sent: AtomicU32,
}

impl Published {
    const fn new(loc: &'static Location<'static>) -> Published {
        Published {
            name: ObjName::site(loc),
            sent: AtomicU32::new(0),
        }
    }

    /// Called by the initialising closure, before std publishes its result.
    fn send(&self, loc: &'static Location<'static>) {
        if !active() {
            return;
        }
        with_local(|l| {
            let m = self.name.msg(l);
            l.push(Op::Send(m), Some(loc));
            self.sent.store(l.gen(), Ordering::Release);
        });
    }

    /// Called after std returned an initialised value that this call did not make.
    fn receive(&self, loc: &'static Location<'static>) {
        if !active() {
            return;
        }
        with_local(|l| {
            if self.sent.load(Ordering::Acquire) == l.gen() {
                let m = self.name.msg(l);
                l.push(Op::Receive(m), Some(loc));
            }
        });
    }
}

/// A recording [`std::sync::Once`].
pub struct Once {
    published: Published,
    inner: std_sync::Once,
}

impl Once {
    #[track_caller]
    pub const fn new() -> Once {
        Once {
            published: Published::new(Location::caller()),
            inner: std_sync::Once::new(),
        }
    }

    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        let loc = Location::caller();
        let mut ran = false;
        self.inner.call_once(|| {
            f();
            ran = true;
            self.published.send(loc);
        });
        if !ran {
            self.published.receive(loc);
        }
    }

    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        let loc = Location::caller();
        let mut ran = false;
        self.inner.call_once_force(|state| {
            f(state);
            ran = true;
            self.published.send(loc);
        });
        if !ran {
            self.published.receive(loc);
        }
    }

    pub fn is_completed(&self) -> bool {
        self.inner.is_completed()
    }
}

impl Default for Once {
    #[track_caller]
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl Named for Once {
    fn named(mut self, name: &str) -> Self {
        self.published.name.rename(name);
        self
    }
}

/// A recording [`std::sync::OnceLock`].
pub struct OnceLock<T> {
    published: Published,
    inner: std_sync::OnceLock<T>,
}

impl<T> OnceLock<T> {
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock {
            published: Published::new(Location::caller()),
            inner: std_sync::OnceLock::new(),
        }
    }

    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        let v = self.inner.get();
        if v.is_some() {
            self.published.receive(Location::caller());
        }
        v
    }

    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.inner.get_mut()
    }

    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let loc = Location::caller();
        let mut value = Some(value);
        self.inner.get_or_init(|| {
            let v = value.take().expect("taken once");
            self.published.send(loc);
            v
        });
        match value {
            None => Ok(()),
            Some(v) => Err(v),
        }
    }

    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        self.get_or_init_at(f, Location::caller())
    }

    fn get_or_init_at<F: FnOnce() -> T>(&self, f: F, loc: &'static Location<'static>) -> &T {
        let mut ran = false;
        let v = self.inner.get_or_init(|| {
            let v = f();
            ran = true;
            self.published.send(loc);
            v
        });
        if !ran {
            self.published.receive(loc);
        }
        v
    }

    /// Blocks until the value is set; ordered after its initialisation.
    #[track_caller]
    pub fn wait(&self) -> &T {
        let v = self.inner.wait();
        self.published.receive(Location::caller());
        v
    }

    pub fn into_inner(self) -> Option<T> {
        self.inner.into_inner()
    }

    pub fn take(&mut self) -> Option<T> {
        self.inner.take()
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> OnceLock<T> {
        OnceLock::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> From<T> for OnceLock<T> {
    /// Initialised by its owner before anyone else can see it: nothing to order.
    #[track_caller]
    fn from(value: T) -> OnceLock<T> {
        OnceLock {
            published: Published::new(Location::caller()),
            inner: std_sync::OnceLock::from(value),
        }
    }
}

impl<T> Named for OnceLock<T> {
    fn named(mut self, name: &str) -> Self {
        self.published.name.rename(name);
        self
    }
}

/// A recording [`std::sync::LazyLock`]: a [`OnceLock`] and the function that fills it.
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    init: std_sync::Mutex<Option<F>>,
}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    #[track_caller]
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock {
            cell: OnceLock::new(),
            init: std_sync::Mutex::new(Some(f)),
        }
    }

    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        this.force_at(Location::caller())
    }

    fn force_at(&self, loc: &'static Location<'static>) -> &T {
        self.cell.get_or_init_at(
            || {
                let f = self
                    .init
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                // std's words: the function ran once and panicked.
                f.expect("LazyLock instance has previously been poisoned")()
            },
            loc,
        )
    }
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;
    #[track_caller]
    fn deref(&self) -> &T {
        self.force_at(Location::caller())
    }
}

impl<T: Default> Default for LazyLock<T> {
    #[track_caller]
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("LazyLock");
        match self.cell.inner.get() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}

impl<T, F> Named for LazyLock<T, F> {
    fn named(mut self, name: &str) -> Self {
        self.cell.published.name.rename(name);
        self
    }
}

/// The recording state of a barrier: the messages of the arrivals of the open generation,
/// and those of closed generations whose threads have not all left.
struct Rendezvous {
    /// Arrivals of the open generation (std's `count`).
    count: usize,
    /// The open generation (std's `generation_id`).
    generation: u64,
    /// The session the messages belong to.
    gen: u32,
    arrivals: Vec<MsgId>,
    /// Per closed generation: its messages and how many threads have yet to receive them.
    closed: Vec<(u64, Vec<MsgId>, usize)>,
}

/// A recording [`std::sync::Barrier`].
pub struct Barrier {
    name: ObjName,
    n: usize,
    state: std_sync::Mutex<Rendezvous>,
    cvar: std_sync::Condvar,
}

/// Whether a thread was the barrier's leader (the last to arrive), as std's.
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl fmt::Debug for BarrierWaitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BarrierWaitResult")
            .field("is_leader", &self.0)
            .finish()
    }
}

impl Barrier {
    #[track_caller]
    pub const fn new(n: usize) -> Barrier {
        Barrier {
            name: ObjName::site(Location::caller()),
            n,
            state: std_sync::Mutex::new(Rendezvous {
                count: 0,
                generation: 0,
                gen: 0,
                arrivals: Vec::new(),
                closed: Vec::new(),
            }),
            cvar: std_sync::Condvar::new(),
        }
    }

    /// std's algorithm; a thread that arrives while recording sends, and receives the
    /// messages of its generation when it leaves.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        let loc = Location::caller();
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let generation = s.generation;
        let recording = active() && self.arrive(&mut s, loc);
        s.count += 1;
        let leader = s.count >= self.n;
        if leader {
            s.count = 0;
            s.generation = s.generation.wrapping_add(1);
            let arrivals = std::mem::take(&mut s.arrivals);
            let waiting = arrivals.len();
            if waiting > 0 {
                s.closed.push((generation, arrivals, waiting));
            }
            self.cvar.notify_all();
        } else {
            while generation == s.generation {
                s = self.cvar.wait(s).unwrap_or_else(PoisonError::into_inner);
            }
        }
        if recording {
            self.leave(&mut s, generation, loc);
        }
        BarrierWaitResult(leader)
    }

    /// Records this thread's arrival; whether it did.
    fn arrive(&self, s: &mut Rendezvous, loc: &'static Location<'static>) -> bool {
        with_local(|l| {
            if s.gen != l.gen() {
                // A new session: nothing of the old one will be received.
                s.gen = l.gen();
                s.arrivals.clear();
                s.closed.clear();
            }
            let m = l.message(&self.name.label());
            l.push(Op::Send(m), Some(loc));
            s.arrivals.push(m);
        })
        .is_some()
    }

    fn leave(&self, s: &mut Rendezvous, generation: u64, loc: &'static Location<'static>) {
        let Some(i) = s.closed.iter().position(|(g, _, _)| *g == generation) else {
            return;
        };
        with_local(|l| {
            if l.gen() == s.gen {
                for &m in &s.closed[i].1 {
                    l.push(Op::Receive(m), Some(loc));
                }
            }
        });
        s.closed[i].2 -= 1;
        if s.closed[i].2 == 0 {
            s.closed.swap_remove(i);
        }
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}

impl Named for Barrier {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}
