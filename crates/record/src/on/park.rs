//! Recording `park`/`unpark`. std: "calls to `unpark` synchronize-with calls to `park`,
//! meaning that memory operations performed before a call to `unpark` are made visible to the
//! thread that consumes the token and returns from `park`". std does not say whether a
//! `park` returned with the token or spuriously, so while recording each thread has a token
//! of its own, beside std's: `unpark` sends a message and sets it under the thread's lock,
//! `park` consumes it under the same lock and receives every message sent since it was last
//! consumed (several `unpark`s before one `park` set one token, and each is made visible).
//! A `park` that finds the token set returns at once, without std's `park`, which may then
//! return at once the next time: a spurious wakeup, which std allows and programs handle.
//! While nothing records, both are std's plus one relaxed load.

use super::recorder::{active, with_local};
use hindsight_trace::{MsgId, Op};
use std::cell::RefCell;
use std::fmt;
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::thread as std_thread;
use std::time::Duration;

/// A thread's recorded token: the session, and the messages of the `unpark`s since the last
/// consumption (set: non-empty).
#[derive(Default)]
pub(crate) struct Parker {
    state: StdMutex<(u32, Vec<MsgId>)>,
}

impl Parker {
    fn unpark(&self, loc: &'static Location<'static>) {
        if !active() {
            return;
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        with_local(|l| {
            if s.0 != l.gen() {
                *s = (l.gen(), Vec::new());
            }
            let m = l.message("unpark");
            l.push(Op::Send(m), Some(loc));
            s.1.push(m);
        });
    }

    /// Consumes the token if it is set, receiving its messages; whether it was.
    fn consume(&self, loc: &'static Location<'static>) -> bool {
        if !active() {
            return false;
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if s.1.is_empty() {
            return false;
        }
        let messages = std::mem::take(&mut s.1);
        with_local(|l| {
            if l.gen() == s.0 {
                for m in messages {
                    l.push(Op::Receive(m), Some(loc));
                }
            }
        });
        true
    }
}

thread_local! {
    static PARKER: RefCell<Option<Arc<Parker>>> = const { RefCell::new(None) };
}

/// This thread's parker, made on first use.
fn my_parker() -> Arc<Parker> {
    PARKER
        .try_with(|p| p.borrow_mut().get_or_insert_with(Arc::default).clone())
        .unwrap_or_default()
}

/// Installs `parker` as the parker of the calling thread (a thread spawned with it).
pub(crate) fn adopt(parker: Arc<Parker>) {
    let _ = PARKER.try_with(|p| *p.borrow_mut() = Some(parker));
}

/// A handle to a thread, as std's [`std::thread::Thread`], whose `unpark` is recorded.
#[derive(Clone)]
pub struct Thread {
    inner: std_thread::Thread,
    parker: Arc<Parker>,
}

impl Thread {
    pub(crate) fn new(inner: std_thread::Thread, parker: Arc<Parker>) -> Thread {
        Thread { inner, parker }
    }

    #[track_caller]
    pub fn unpark(&self) {
        self.parker.unpark(Location::caller());
        self.inner.unpark();
    }

    pub fn id(&self) -> std_thread::ThreadId {
        self.inner.id()
    }

    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }
}

impl fmt::Debug for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The calling thread.
pub fn current() -> Thread {
    Thread::new(std_thread::current(), my_parker())
}

/// std's `park`, ordered after the `unpark`s whose token it consumes.
#[track_caller]
pub fn park() {
    let loc = Location::caller();
    let parker = my_parker();
    if parker.consume(loc) {
        return;
    }
    std_thread::park();
    parker.consume(loc);
}

/// std's `park_timeout`, recorded as [`park`].
#[track_caller]
pub fn park_timeout(dur: Duration) {
    let loc = Location::caller();
    let parker = my_parker();
    if parker.consume(loc) {
        return;
    }
    std_thread::park_timeout(dur);
    parker.consume(loc);
}
