//! Recording atomics. Every atomic operation is one atomic event of the trace: a load is
//! `aload(x)`, a store `astore(x)`, a read-modify-write (a successful compare-exchange,
//! `fetch_*`, `swap`) ONE `rmw(x)` event, indivisible, and a failed compare-exchange a load.
//! Atomic events never take part in a data race (the memory model makes atomics race-free) and
//! order nothing by themselves; the ordering an operation has follows the Rust (C++20) memory
//! model and is written as messages around its event:
//! - `Relaxed` orders nothing: the atomic event alone.
//! - A release (a `Release`/`AcqRel`/`SeqCst` store or read-modify-write) is followed by
//!   `snd(x)`; an acquire (an `Acquire`/`AcqRel`/`SeqCst` load or read-modify-write) that reads
//!   a value written by a release or the read-modify-writes after it (its release sequence) is
//!   preceded by `rcv(x)`. So an acquiring RMW is `rcv(x) rmw(x) snd(x)`. A receive is ordered
//!   after the latest send of its message, which is the release it reads from because, while
//!   recording, each operation and its sequence number are taken under a per-atomic lock (so
//!   the trace order of operations on one atomic is their modification order). A relaxed
//!   store ends the release sequence, so acquires after it receive nothing.
//!
//! `SeqCst`'s single total order is not recorded beyond its release/acquire edges: the
//! analyses are happens-before based, and SC fences are not wrapped.
//!
//! With nothing recording, each operation is the std operation plus one relaxed load.

use super::recorder::{active, with_local, Local, ObjName};
use crate::Named;
use hindsight_trace::Op;
use std::panic::Location;
use std::sync::atomic::{self as std_atomic, Ordering};
use std::sync::{Mutex as StdMutex, PoisonError};

/// Per atomic, while recording: the session and whether the latest value heads or continues a
/// release sequence.
#[derive(Default)]
struct SyncState {
    gen: u32,
    released: bool,
}

/// The names and recording state shared by every atomic type.
struct Meta {
    var: ObjName,
    msg: ObjName,
    state: StdMutex<SyncState>,
}

impl Meta {
    const fn new(loc: &'static Location<'static>) -> Meta {
        Meta {
            var: ObjName::site(loc),
            msg: ObjName::site(loc),
            state: StdMutex::new(SyncState {
                gen: 0,
                released: false,
            }),
        }
    }

    fn rename(&mut self, name: &str) {
        self.var.rename(name);
        self.msg.rename(name);
    }

    /// Runs `op` and records it as one operation: `read`/`write` say what it did, `order`
    /// its ordering (for a compare-exchange, the one that applied).
    #[inline]
    fn run<R>(
        &self,
        loc: &'static Location<'static>,
        op: impl FnOnce() -> (R, Access, Ordering),
    ) -> R {
        if !active() {
            return op().0;
        }
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (r, access, order) = op();
        let recorded = with_local(|l| self.record(l, &mut s, access, order, loc));
        if recorded.is_none() {
            s.released = false;
        }
        r
    }

    fn record(
        &self,
        l: &mut Local,
        s: &mut SyncState,
        access: Access,
        order: Ordering,
        loc: &'static Location<'static>,
    ) {
        if s.gen != l.gen() {
            *s = SyncState {
                gen: l.gen(),
                released: false,
            };
        }
        let acquire = matches!(
            order,
            Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
        );
        let release = matches!(
            order,
            Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
        );
        let x = self.var.var(l);
        let op = match (access.read, access.write) {
            (true, false) => Op::AtomicLoad(x),
            (false, true) => Op::AtomicStore(x),
            _ => Op::AtomicRmw(x),
        };
        if order == Ordering::Relaxed {
            l.push(op, Some(loc));
            if access.write && !access.read {
                s.released = false;
            }
            return;
        }
        let m = self.msg.msg(l);
        if access.read && acquire && s.released {
            l.push(Op::Receive(m), Some(loc));
        }
        l.push(op, Some(loc));
        if access.write {
            if release {
                l.push(Op::Send(m), Some(loc));
                s.released = true;
            } else if !access.read {
                s.released = false;
            }
        }
    }
}

#[derive(Clone, Copy)]
struct Access {
    read: bool,
    write: bool,
}

const LOAD: Access = Access {
    read: true,
    write: false,
};
const STORE: Access = Access {
    read: false,
    write: true,
};
const RMW: Access = Access {
    read: true,
    write: true,
};

macro_rules! atomic_common {
    ($name:ident, $std:ident, $t:ty) => {
        #[doc = concat!("A recording [`std::sync::atomic::", stringify!($std), "`].")]
        pub struct $name {
            meta: Meta,
            inner: std_atomic::$std,
        }

        impl $name {
            #[track_caller]
            pub const fn new(v: $t) -> $name {
                $name {
                    meta: Meta::new(Location::caller()),
                    inner: std_atomic::$std::new(v),
                }
            }

            pub fn into_inner(self) -> $t {
                self.inner.into_inner()
            }

            pub fn get_mut(&mut self) -> &mut $t {
                self.inner.get_mut()
            }

            #[track_caller]
            pub fn load(&self, order: Ordering) -> $t {
                self.meta
                    .run(Location::caller(), || (self.inner.load(order), LOAD, order))
            }

            #[track_caller]
            pub fn store(&self, v: $t, order: Ordering) {
                self.meta.run(Location::caller(), || {
                    (self.inner.store(v, order), STORE, order)
                })
            }

            #[track_caller]
            pub fn swap(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.swap(v, order), RMW, order)
                })
            }

            /// A success is a read-modify-write with `success`, a failure a load with
            /// `failure`.
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                self.meta.run(Location::caller(), || {
                    let r = self.inner.compare_exchange(current, new, success, failure);
                    match r {
                        Ok(_) => (r, RMW, success),
                        Err(_) => (r, LOAD, failure),
                    }
                })
            }

            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $t,
                new: $t,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$t, $t> {
                self.meta.run(Location::caller(), || {
                    let r = self
                        .inner
                        .compare_exchange_weak(current, new, success, failure);
                    match r {
                        Ok(_) => (r, RMW, success),
                        Err(_) => (r, LOAD, failure),
                    }
                })
            }

            #[track_caller]
            pub fn fetch_update<F>(
                &self,
                set_order: Ordering,
                fetch_order: Ordering,
                mut f: F,
            ) -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                let loc = Location::caller();
                let mut prev = self.load_at(fetch_order, loc);
                while let Some(next) = f(prev) {
                    match self.meta.run(loc, || {
                        let r =
                            self.inner
                                .compare_exchange_weak(prev, next, set_order, fetch_order);
                        match r {
                            Ok(_) => (r, RMW, set_order),
                            Err(_) => (r, LOAD, fetch_order),
                        }
                    }) {
                        Ok(x) => return Ok(x),
                        Err(x) => prev = x,
                    }
                }
                Err(prev)
            }

            fn load_at(&self, order: Ordering, loc: &'static Location<'static>) -> $t {
                self.meta.run(loc, || (self.inner.load(order), LOAD, order))
            }

            #[track_caller]
            pub fn fetch_and(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_and(v, order), RMW, order)
                })
            }

            #[track_caller]
            pub fn fetch_or(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_or(v, order), RMW, order)
                })
            }

            #[track_caller]
            pub fn fetch_xor(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_xor(v, order), RMW, order)
                })
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(Default::default())
            }
        }

        impl From<$t> for $name {
            #[track_caller]
            fn from(v: $t) -> $name {
                $name::new(v)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.inner.fmt(f)
            }
        }

        impl Named for $name {
            fn named(mut self, name: &str) -> Self {
                self.meta.rename(name);
                self
            }
        }
    };
}

macro_rules! atomic_int {
    ($name:ident, $std:ident, $t:ty) => {
        atomic_common!($name, $std, $t);

        impl $name {
            #[track_caller]
            pub fn fetch_add(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_add(v, order), RMW, order)
                })
            }

            #[track_caller]
            pub fn fetch_sub(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_sub(v, order), RMW, order)
                })
            }

            #[track_caller]
            pub fn fetch_max(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_max(v, order), RMW, order)
                })
            }

            #[track_caller]
            pub fn fetch_min(&self, v: $t, order: Ordering) -> $t {
                self.meta.run(Location::caller(), || {
                    (self.inner.fetch_min(v, order), RMW, order)
                })
            }
        }
    };
}

atomic_common!(AtomicBool, AtomicBool, bool);
atomic_int!(AtomicI8, AtomicI8, i8);
atomic_int!(AtomicI16, AtomicI16, i16);
atomic_int!(AtomicI32, AtomicI32, i32);
atomic_int!(AtomicI64, AtomicI64, i64);
atomic_int!(AtomicIsize, AtomicIsize, isize);
atomic_int!(AtomicU8, AtomicU8, u8);
atomic_int!(AtomicU16, AtomicU16, u16);
atomic_int!(AtomicU32, AtomicU32, u32);
atomic_int!(AtomicU64, AtomicU64, u64);
atomic_int!(AtomicUsize, AtomicUsize, usize);

/// A recording [`std::sync::atomic::AtomicPtr`]: loads, stores, swaps and compare-exchanges
/// recorded as the integer atomics' are.
pub struct AtomicPtr<T> {
    meta: Meta,
    inner: std_atomic::AtomicPtr<T>,
}

impl<T> AtomicPtr<T> {
    #[track_caller]
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr {
            meta: Meta::new(Location::caller()),
            inner: std_atomic::AtomicPtr::new(p),
        }
    }

    pub fn into_inner(self) -> *mut T {
        self.inner.into_inner()
    }

    pub fn get_mut(&mut self) -> &mut *mut T {
        self.inner.get_mut()
    }

    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        self.meta
            .run(Location::caller(), || (self.inner.load(order), LOAD, order))
    }

    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        self.meta.run(Location::caller(), || {
            (self.inner.store(p, order), STORE, order)
        })
    }

    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        self.meta.run(Location::caller(), || {
            (self.inner.swap(p, order), RMW, order)
        })
    }

    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.meta.run(Location::caller(), || {
            let r = self.inner.compare_exchange(current, new, success, failure);
            match r {
                Ok(_) => (r, RMW, success),
                Err(_) => (r, LOAD, failure),
            }
        })
    }

    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.meta.run(Location::caller(), || {
            let r = self
                .inner
                .compare_exchange_weak(current, new, success, failure);
            match r {
                Ok(_) => (r, RMW, success),
                Err(_) => (r, LOAD, failure),
            }
        })
    }

    #[track_caller]
    pub fn fetch_update<F>(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: F,
    ) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        let loc = Location::caller();
        let mut prev = self
            .meta
            .run(loc, || (self.inner.load(fetch_order), LOAD, fetch_order));
        while let Some(next) = f(prev) {
            match self.meta.run(loc, || {
                let r = self
                    .inner
                    .compare_exchange_weak(prev, next, set_order, fetch_order);
                match r {
                    Ok(_) => (r, RMW, set_order),
                    Err(_) => (r, LOAD, fetch_order),
                }
            }) {
                Ok(x) => return Ok(x),
                Err(x) => prev = x,
            }
        }
        Err(prev)
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> std::fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(p)
    }
}

impl<T> Named for AtomicPtr<T> {
    fn named(mut self, name: &str) -> Self {
        self.meta.rename(name);
        self
    }
}
