//! The plain build (`feature = "record"` off): every synchronization type *is* the std type
//! (re-exported, so there is nothing to optimize away), and the few types std lacks are
//! `#[repr(transparent)]` newtypes or plain wrappers whose methods are `#[inline]` one-liners.
//! `tests/plain.rs`, compiled only in this build, checks the type identities and sizes.

use crate::value::ToValue;
use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex as StdMutex, PoisonError};

pub mod sync {
    //! `std::sync`, unchanged.
    pub use std::sync::*;
}

pub mod thread {
    //! `std::thread`, unchanged.
    pub use std::thread::*;
}

/// A variable whose accesses a recording build records; here, just the value.
#[repr(transparent)]
#[derive(Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shared<T> {
    value: T,
}

impl<T> Shared<T> {
    #[inline(always)]
    pub const fn new(value: T) -> Shared<T> {
        Shared { value }
    }
    #[inline(always)]
    pub fn read(&self) -> &T {
        &self.value
    }
    #[inline(always)]
    pub fn write(&mut self) -> &mut T {
        &mut self.value
    }
    #[inline(always)]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        self.value
    }
    #[inline(always)]
    pub fn set(&mut self, value: T) {
        self.value = value;
    }
    #[inline(always)]
    pub fn update<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.value)
    }
    #[inline(always)]
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: std::fmt::Display> std::fmt::Display for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

impl<T> From<T> for Shared<T> {
    #[inline(always)]
    fn from(value: T) -> Shared<T> {
        Shared { value }
    }
}

impl<T: PartialEq> PartialEq<T> for Shared<T> {
    #[inline(always)]
    fn eq(&self, other: &T) -> bool {
        self.value == *other
    }
}

impl<T: PartialOrd> PartialOrd<T> for Shared<T> {
    #[inline(always)]
    fn partial_cmp(&self, other: &T) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(other)
    }
}

macro_rules! compound_assignment {
    ($($trait:ident $method:ident),*) => {$(
        impl<T: std::ops::$trait<R>, R> std::ops::$trait<R> for Shared<T> {
            #[inline(always)]
            fn $method(&mut self, rhs: R) {
                self.value.$method(rhs);
            }
        }
    )*};
}

compound_assignment!(
    AddAssign add_assign,
    SubAssign sub_assign,
    MulAssign mul_assign,
    DivAssign div_assign,
    RemAssign rem_assign,
    BitAndAssign bitand_assign,
    BitOrAssign bitor_assign,
    BitXorAssign bitxor_assign,
    ShlAssign shl_assign,
    ShrAssign shr_assign
);

/// An atomic block a recording build records; here, nothing.
pub struct AtomicBlock;

#[inline(always)]
pub fn atomic_begin(_name: &str) -> AtomicBlock {
    AtomicBlock
}

#[inline(always)]
pub fn atomic_block<R>(_name: &str, f: impl FnOnce() -> R) -> R {
    f()
}

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A concurrent map: a `HashMap` behind a `Mutex`, with the recording build's methods.
#[derive(Debug, Default)]
pub struct Map<K, V> {
    inner: StdMutex<HashMap<K, V>>,
}

impl<K, V> Map<K, V> {
    pub fn new() -> Map<K, V> {
        Map {
            inner: StdMutex::new(HashMap::new()),
        }
    }
    pub fn into_inner(self) -> HashMap<K, V> {
        self.inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K: Hash + Eq + ToValue, V: ToValue> Map<K, V> {
    #[inline]
    pub fn insert(&self, key: K, value: V) -> Option<V> {
        lock(&self.inner).insert(key, value)
    }
    #[inline]
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
        V: Clone,
    {
        lock(&self.inner).get(key).cloned()
    }
    #[inline]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        lock(&self.inner).contains_key(key)
    }
    #[inline]
    pub fn remove<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        lock(&self.inner).remove(key)
    }
    #[inline]
    pub fn put_if_absent(&self, key: K, value: V) -> Option<V>
    where
        V: Clone,
    {
        let mut m = lock(&self.inner);
        if let Some(v) = m.get(&key) {
            return Some(v.clone());
        }
        m.insert(key, value);
        None
    }
    #[inline]
    pub fn len(&self) -> usize {
        lock(&self.inner).len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        lock(&self.inner).is_empty()
    }
}

/// A concurrent set: a `HashSet` behind a `Mutex`, with the recording build's methods.
#[derive(Debug, Default)]
pub struct Set<T> {
    inner: StdMutex<HashSet<T>>,
}

impl<T> Set<T> {
    pub fn new() -> Set<T> {
        Set {
            inner: StdMutex::new(HashSet::new()),
        }
    }
    pub fn into_inner(self) -> HashSet<T> {
        self.inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Hash + Eq + ToValue> Set<T> {
    #[inline]
    pub fn insert(&self, x: T) -> bool {
        lock(&self.inner).insert(x)
    }
    #[inline]
    pub fn remove<Q>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        lock(&self.inner).remove(x)
    }
    #[inline]
    pub fn contains<Q>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        lock(&self.inner).contains(x)
    }
    #[inline]
    pub fn len(&self) -> usize {
        lock(&self.inner).len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        lock(&self.inner).is_empty()
    }
}

/// What a recording wrote; never produced by this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub path: PathBuf,
    pub events: u64,
    pub threads: usize,
}

/// A recording cannot be started in this build.
pub struct Recorder {
    never: std::convert::Infallible,
}

impl Recorder {
    pub fn start(_path: impl AsRef<Path>) -> io::Result<Recorder> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "hindsight-record was built without its `record` feature",
        ))
    }
    pub fn from_env() -> io::Result<Option<Recorder>> {
        Ok(None)
    }
    pub fn finish(self) -> io::Result<Summary> {
        match self.never {}
    }
}

/// Nothing to write.
pub struct TraceGuard;

impl TraceGuard {
    pub fn finish(self) -> Option<io::Result<Summary>> {
        None
    }
}

#[inline(always)]
pub fn init() -> TraceGuard {
    TraceGuard
}
