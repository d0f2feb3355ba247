//! Tracked variables, atomic blocks and traced collections.
//!
//! `Shared<T>` is a value whose reads and writes are recorded as `r(x)`/`w(x)`. It adds no
//! synchronization: Rust's borrow rules already require it to sit behind a lock (or to be
//! owned by one thread), so the trace shows exactly the accesses the lock protects.
//!
//! `Map` and `Set` are concurrent collections (std collections behind an internal lock) whose
//! operations are recorded as `call(..)` events in the vocabulary of the builtin `map` and
//! `set` specs of `hindsight commute`. The internal lock is *not* recorded: it makes each
//! operation linearizable, it is not synchronization the program relies on, and recording it
//! would order every pair of operations and hide every commutativity race. The call is
//! recorded while the internal lock is held, so the trace order of calls on one collection is
//! their real order and each recorded result is the one that order produces.

use super::recorder::{active, record_call, with_local, ObjName};
use crate::value::{ToValue, TraceValue};
use crate::Named;
use hindsight_trace::Op;
use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::Hash;
use std::panic::Location;
use std::sync::{Mutex as StdMutex, MutexGuard as StdMutexGuard, PoisonError};

/// A variable whose reads and writes are recorded.
pub struct Shared<T> {
    name: ObjName,
    value: T,
}

impl<T> Shared<T> {
    #[track_caller]
    pub const fn new(value: T) -> Shared<T> {
        Shared {
            name: ObjName::site(Location::caller()),
            value,
        }
    }

    #[inline(always)]
    fn access(&self, write: bool, loc: &'static Location<'static>) {
        if active() {
            self.record_access(write, loc);
        }
    }

    /// Out of line, so that the accessors stay small enough to inline when nothing records.
    #[inline(never)]
    fn record_access(&self, write: bool, loc: &'static Location<'static>) {
        with_local(|l| {
            let x = self.name.var(l);
            l.push(if write { Op::Write(x) } else { Op::Read(x) }, Some(loc));
        });
    }

    /// Records a read and lends the value.
    #[track_caller]
    #[inline]
    pub fn read(&self) -> &T {
        self.access(false, Location::caller());
        &self.value
    }

    /// Records a write and lends the value for it.
    #[track_caller]
    #[inline]
    pub fn write(&mut self) -> &mut T {
        self.access(true, Location::caller());
        &mut self.value
    }

    /// Records a read and returns a copy.
    #[track_caller]
    #[inline]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        self.access(false, Location::caller());
        self.value
    }

    /// Records a write of `value`.
    #[track_caller]
    #[inline]
    pub fn set(&mut self, value: T) {
        self.access(true, Location::caller());
        self.value = value;
    }

    /// Records a read, then a write: a read-modify-write such as `x += 1`.
    #[track_caller]
    #[inline]
    pub fn update<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        let loc = Location::caller();
        self.access(false, loc);
        self.access(true, loc);
        f(&mut self.value)
    }

    /// The value, without recording (the variable is consumed, nobody else can access it).
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Default> Default for Shared<T> {
    #[track_caller]
    fn default() -> Shared<T> {
        Shared::new(T::default())
    }
}

/// Formatting records nothing: std's formatting machinery calls it from no site of the
/// program's (`get` or `read` first where the read matters).
impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: fmt::Display> fmt::Display for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T> From<T> for Shared<T> {
    #[track_caller]
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

/// Comparisons read both sides (a comparison with a plain value reads one).
impl<T: PartialEq> PartialEq for Shared<T> {
    #[track_caller]
    fn eq(&self, other: &Shared<T>) -> bool {
        let loc = Location::caller();
        self.access(false, loc);
        other.access(false, loc);
        self.value == other.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<T: PartialEq> PartialEq<T> for Shared<T> {
    #[track_caller]
    fn eq(&self, other: &T) -> bool {
        self.access(false, Location::caller());
        self.value == *other
    }
}

impl<T: PartialOrd> PartialOrd for Shared<T> {
    #[track_caller]
    fn partial_cmp(&self, other: &Shared<T>) -> Option<std::cmp::Ordering> {
        let loc = Location::caller();
        self.access(false, loc);
        other.access(false, loc);
        self.value.partial_cmp(&other.value)
    }
}

impl<T: PartialOrd> PartialOrd<T> for Shared<T> {
    #[track_caller]
    fn partial_cmp(&self, other: &T) -> Option<std::cmp::Ordering> {
        self.access(false, Location::caller());
        self.value.partial_cmp(other)
    }
}

impl<T: Ord> Ord for Shared<T> {
    #[track_caller]
    fn cmp(&self, other: &Shared<T>) -> std::cmp::Ordering {
        let loc = Location::caller();
        self.access(false, loc);
        other.access(false, loc);
        self.value.cmp(&other.value)
    }
}

/// `x op= v` reads and writes `x`: recorded as [`Shared::update`] records.
macro_rules! compound_assignment {
    ($($trait:ident $method:ident),*) => {$(
        impl<T: std::ops::$trait<R>, R> std::ops::$trait<R> for Shared<T> {
            #[track_caller]
            #[inline]
            fn $method(&mut self, rhs: R) {
                let loc = Location::caller();
                self.access(false, loc);
                self.access(true, loc);
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

impl<T> Named for Shared<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}

/// Records `begin(name)` now and `end` when dropped (also when unwinding); the `end` carries
/// the location of the `begin`, a drop having no call site of its own.
pub struct AtomicBlock {
    gen: u32,
    loc: &'static Location<'static>,
}

#[track_caller]
pub fn atomic_begin(name: &str) -> AtomicBlock {
    let loc = Location::caller();
    let gen = if active() {
        with_local(|l| {
            let label = l.names().symbol(name);
            l.push(Op::Begin(Some(label)), Some(loc));
            l.gen()
        })
        .unwrap_or(0)
    } else {
        0
    };
    AtomicBlock { gen, loc }
}

impl Drop for AtomicBlock {
    fn drop(&mut self) {
        if self.gen != 0 {
            with_local(|l| {
                if l.gen() == self.gen {
                    l.push(Op::End, Some(self.loc));
                }
            });
        }
    }
}

/// Runs `f` as the atomic block `name`: `begin(name)` .. `end` in the trace, the region that
/// `hindsight atomicity` checks for serializability and `hindsight views` takes as a view.
#[track_caller]
pub fn atomic_block<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let _block = atomic_begin(name);
    f()
}

fn lock<T>(m: &StdMutex<T>) -> StdMutexGuard<'_, T> {
    // The collections' invariants hold between std calls, so a panic elsewhere cannot leave
    // them broken: poisoning carries no information here.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn record_collection_call(
    name: &ObjName,
    method: &str,
    args: &[TraceValue<'_>],
    results: &[TraceValue<'_>],
    loc: &'static Location<'static>,
) {
    with_local(|l| record_call(l, name, method, args, results, loc));
}

/// A concurrent map whose operations are recorded as calls of the `map` spec:
/// `put(k, v) -> previous`, `get(k) -> value`, `size() -> n`, with `nil` for "no value".
/// `remove(k)` is recorded as `put(k, nil) -> previous` and `put_if_absent` as the `put` or
/// the `get` it turned out to be, so that the builtin spec covers every operation.
pub struct Map<K, V> {
    name: ObjName,
    inner: StdMutex<HashMap<K, V>>,
}

impl<K, V> Map<K, V> {
    #[track_caller]
    pub fn new() -> Map<K, V> {
        Map {
            name: ObjName::site(Location::caller()),
            inner: StdMutex::new(HashMap::new()),
        }
    }

    /// The entries, without recording (the map is consumed).
    pub fn into_inner(self) -> HashMap<K, V> {
        self.inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<K, V> Default for Map<K, V> {
    #[track_caller]
    fn default() -> Map<K, V> {
        Map::new()
    }
}

impl<K, V> Named for Map<K, V> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for Map<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        lock(&self.inner).fmt(f)
    }
}

impl<K: Hash + Eq + ToValue, V: ToValue> Map<K, V> {
    /// Sets the value of `key`, returning the previous one: `put(k, v) -> p`.
    #[track_caller]
    pub fn insert(&self, key: K, value: V) -> Option<V> {
        let loc = Location::caller();
        let mut m = lock(&self.inner);
        if !active() {
            return m.insert(key, value);
        }
        let (k, v) = (key.to_value().into_owned(), value.to_value().into_owned());
        let prev = m.insert(key, value);
        record_collection_call(&self.name, "put", &[k, v], &[prev.to_value()], loc);
        prev
    }

    /// The value of `key`: `get(k) -> v`.
    #[track_caller]
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
        V: Clone,
    {
        let loc = Location::caller();
        let m = lock(&self.inner);
        let v = m.get(key).cloned();
        if active() {
            record_collection_call(&self.name, "get", &[key.to_value()], &[v.to_value()], loc);
        }
        v
    }

    /// Whether `key` has a value: recorded as the `get(k) -> v` it performs.
    #[track_caller]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        let loc = Location::caller();
        let m = lock(&self.inner);
        let v = m.get(key);
        if active() {
            record_collection_call(&self.name, "get", &[key.to_value()], &[v.to_value()], loc);
        }
        v.is_some()
    }

    /// Removes `key`, returning its value: `put(k, nil) -> p`.
    #[track_caller]
    pub fn remove<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        let loc = Location::caller();
        let mut m = lock(&self.inner);
        let prev = m.remove(key);
        if active() {
            record_collection_call(
                &self.name,
                "put",
                &[key.to_value(), TraceValue::Nil],
                &[prev.to_value()],
                loc,
            );
        }
        prev
    }

    /// Inserts `value` unless `key` has a value, in one atomic step; returns the value that
    /// was there. Recorded as `put(k, v) -> nil` when it inserted, `get(k) -> p` when not.
    #[track_caller]
    pub fn put_if_absent(&self, key: K, value: V) -> Option<V>
    where
        V: Clone,
    {
        let loc = Location::caller();
        let mut m = lock(&self.inner);
        if let Some(existing) = m.get(&key) {
            let existing = existing.clone();
            if active() {
                record_collection_call(
                    &self.name,
                    "get",
                    &[key.to_value()],
                    &[existing.to_value()],
                    loc,
                );
            }
            return Some(existing);
        }
        if active() {
            record_collection_call(
                &self.name,
                "put",
                &[key.to_value(), value.to_value()],
                &[TraceValue::Nil],
                loc,
            );
        }
        m.insert(key, value);
        None
    }

    /// The number of keys with a value: `size() -> n`.
    #[track_caller]
    pub fn len(&self) -> usize {
        let loc = Location::caller();
        let m = lock(&self.inner);
        let n = m.len();
        if active() {
            record_collection_call(&self.name, "size", &[], &[n.to_value()], loc);
        }
        n
    }

    /// Recorded as the `size() -> n` it performs.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A concurrent set whose operations are recorded as calls of the `set` spec:
/// `add(x) -> changed`, `remove(x) -> changed`, `contains(x) -> r`, `size() -> n`.
pub struct Set<T> {
    name: ObjName,
    inner: StdMutex<HashSet<T>>,
}

impl<T> Set<T> {
    #[track_caller]
    pub fn new() -> Set<T> {
        Set {
            name: ObjName::site(Location::caller()),
            inner: StdMutex::new(HashSet::new()),
        }
    }

    pub fn into_inner(self) -> HashSet<T> {
        self.inner
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Default for Set<T> {
    #[track_caller]
    fn default() -> Set<T> {
        Set::new()
    }
}

impl<T> Named for Set<T> {
    fn named(mut self, name: &str) -> Self {
        self.name.rename(name);
        self
    }
}

impl<T: fmt::Debug> fmt::Debug for Set<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        lock(&self.inner).fmt(f)
    }
}

impl<T: Hash + Eq + ToValue> Set<T> {
    /// Adds `x`; whether the set changed: `add(x) -> r`.
    #[track_caller]
    pub fn insert(&self, x: T) -> bool {
        let loc = Location::caller();
        let mut s = lock(&self.inner);
        if !active() {
            return s.insert(x);
        }
        let v = x.to_value().into_owned();
        let changed = s.insert(x);
        record_collection_call(&self.name, "add", &[v], &[changed.to_value()], loc);
        changed
    }

    /// Removes `x`; whether the set changed: `remove(x) -> r`.
    #[track_caller]
    pub fn remove<Q>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        let loc = Location::caller();
        let mut s = lock(&self.inner);
        let changed = s.remove(x);
        if active() {
            record_collection_call(
                &self.name,
                "remove",
                &[x.to_value()],
                &[changed.to_value()],
                loc,
            );
        }
        changed
    }

    /// Whether `x` is in the set: `contains(x) -> r`.
    #[track_caller]
    pub fn contains<Q>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ToValue + ?Sized,
    {
        let loc = Location::caller();
        let s = lock(&self.inner);
        let r = s.contains(x);
        if active() {
            record_collection_call(
                &self.name,
                "contains",
                &[x.to_value()],
                &[r.to_value()],
                loc,
            );
        }
        r
    }

    /// The number of elements: `size() -> n`.
    #[track_caller]
    pub fn len(&self) -> usize {
        let loc = Location::caller();
        let s = lock(&self.inner);
        let n = s.len();
        if active() {
            record_collection_call(&self.name, "size", &[], &[n.to_value()], loc);
        }
        n
    }

    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
