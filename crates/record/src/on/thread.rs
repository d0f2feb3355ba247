//! Recording threads: `spawn` and `scope` record `fork(child)` in the parent before the child
//! starts and `join(child)` after it is joined (explicitly, or implicitly at the end of a
//! scope). A child is named after its parent and its rank among the parent's children
//! (`main.1`, `main.1.2`), which is stable across runs of a program whatever the schedule.
//! `park`, `park_timeout`, `current` and `Thread::unpark` record the edges of `park.rs`.

use super::park::{adopt, Parker};
use super::recorder::{enter_child, fork, join, ChildId};
use std::any::Any;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::thread as std_thread;

use std::io;

pub use super::park::{current, park, park_timeout, Thread};
pub use std::thread::{
    available_parallelism, panicking, sleep, yield_now, AccessError, LocalKey, Result, ThreadId,
};

/// Owns a spawned thread; `join` records `join(child)`.
pub struct JoinHandle<T> {
    inner: std_thread::JoinHandle<T>,
    child: Option<ChildId>,
    thread: Thread,
}

#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (start, child) = fork(Location::caller(), None).unzip();
    let parker = Arc::new(Parker::default());
    let theirs = parker.clone();
    let inner = std_thread::spawn(move || {
        adopt(theirs);
        let _events = enter_child(start);
        f()
    });
    let thread = Thread::new(inner.thread().clone(), parker);
    JoinHandle {
        inner,
        child,
        thread,
    }
}

impl<T> JoinHandle<T> {
    #[track_caller]
    pub fn join(self) -> Result<T> {
        let loc = Location::caller();
        let r = self.inner.join();
        join(self.child, loc);
        r
    }

    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

impl<T> std::fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// The children of a scope and whether each was joined explicitly.
type Children = Arc<StdMutex<Vec<(ChildId, Arc<AtomicBool>)>>>;

/// A scope for spawning threads that borrow from the enclosing function; see [`scope`].
pub struct Scope<'scope, 'env: 'scope> {
    inner: &'scope std_thread::Scope<'scope, 'env>,
    children: Children,
}

/// Owns a scoped thread; `join` records `join(child)`.
pub struct ScopedJoinHandle<'scope, T> {
    inner: std_thread::ScopedJoinHandle<'scope, T>,
    child: Option<ChildId>,
    joined: Arc<AtomicBool>,
    thread: Thread,
}

/// std's `scope`, recording a `join` for every thread the scope joins implicitly at its end
/// (after the real joins, also when a thread panicked).
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&Scope<'scope, 'env>) -> T,
{
    let loc = Location::caller();
    let children: Children = Arc::default();
    let ours = children.clone();
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        std_thread::scope(|s| {
            let scope = Scope {
                inner: s,
                children: ours,
            };
            f(&scope)
        })
    }));
    let children = std::mem::take(&mut *children.lock().unwrap_or_else(PoisonError::into_inner));
    for (child, joined) in children {
        if !joined.load(Ordering::Relaxed) {
            join(Some(child), loc);
        }
    }
    match result {
        Ok(t) => t,
        Err(payload) => panic::resume_unwind(payload),
    }
}

impl<'scope> Scope<'scope, '_> {
    #[track_caller]
    pub fn spawn<F, T>(&self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let (start, child) = fork(Location::caller(), None).unzip();
        let joined = Arc::new(AtomicBool::new(false));
        if let Some(c) = child {
            self.children
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((c, joined.clone()));
        }
        let parker = Arc::new(Parker::default());
        let theirs = parker.clone();
        let inner = self.inner.spawn(move || {
            adopt(theirs);
            let _events = enter_child(start);
            f()
        });
        let thread = Thread::new(inner.thread().clone(), parker);
        ScopedJoinHandle {
            inner,
            child,
            joined,
            thread,
        }
    }
}

impl<T> ScopedJoinHandle<'_, T> {
    #[track_caller]
    pub fn join(self) -> std::result::Result<T, Box<dyn Any + Send + 'static>> {
        let loc = Location::caller();
        let r = self.inner.join();
        self.joined.store(true, Ordering::Relaxed);
        join(self.child, loc);
        r
    }

    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

/// std's thread `Builder`; a thread given a `name` is called that in the trace (made unique
/// with a `#k` suffix if needed) instead of `parent.k`.
#[derive(Debug)]
pub struct Builder {
    inner: std_thread::Builder,
    name: Option<String>,
}

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            inner: std_thread::Builder::new(),
            name: None,
        }
    }

    pub fn name(self, name: String) -> Builder {
        Builder {
            inner: self.inner.name(name.clone()),
            name: Some(name),
        }
    }

    pub fn stack_size(self, size: usize) -> Builder {
        Builder {
            inner: self.inner.stack_size(size),
            name: self.name,
        }
    }

    /// If the thread cannot be created, its `fork` is in the trace with no event after it.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let (start, child) = fork(Location::caller(), self.name.as_deref()).unzip();
        let parker = Arc::new(Parker::default());
        let theirs = parker.clone();
        let inner = self.inner.spawn(move || {
            adopt(theirs);
            let _events = enter_child(start);
            f()
        })?;
        let thread = Thread::new(inner.thread().clone(), parker);
        Ok(JoinHandle {
            inner,
            child,
            thread,
        })
    }

    #[track_caller]
    pub fn spawn_scoped<'scope, 'env, F, T>(
        self,
        scope: &Scope<'scope, 'env>,
        f: F,
    ) -> io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let (start, child) = fork(Location::caller(), self.name.as_deref()).unzip();
        let joined = Arc::new(AtomicBool::new(false));
        if let Some(c) = child {
            scope
                .children
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((c, joined.clone()));
        }
        let parker = Arc::new(Parker::default());
        let theirs = parker.clone();
        let inner = self.inner.spawn_scoped(scope.inner, move || {
            adopt(theirs);
            let _events = enter_child(start);
            f()
        })?;
        let thread = Thread::new(inner.thread().clone(), parker);
        Ok(ScopedJoinHandle {
            inner,
            child,
            joined,
            thread,
        })
    }
}
