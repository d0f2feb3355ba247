//! The threads that accessed one variable (with one kind of access), grouped by a lock that
//! every one of their accesses held, and the walk the sync-preserving and OSR models make of
//! them at each access: the threads not in a group whose lock the access holds, in the order
//! the model asks (latest access first, or by thread).
//!
//! Two accesses made holding a common lock never race in either model (the earlier's section
//! is released, within the pair's closure, before the later's is acquired: `syncp.rs`,
//! `osr.rs`), so a thread all of whose accesses held a lock the access at hand holds gives the
//! models nothing, and the walk does not visit it. That is what keeps a server that starts a
//! thread per request, each updating a counter under one lock, from walking every earlier
//! request at each update (#38). A thread's group is a lock of the intersection of the locksets
//! of its accesses, kept as they come (the intersection only shrinks, so a thread changes group
//! at most as many times as it held locks at its first access).
//!
//! A variable of a few threads keeps them in a vector walked whole; past [`SMALL`], in maps.

use crate::accesses::Locksets;
use hindsight_trace::{LockId, ThreadId};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The threads a group keeps in a vector before the variable switches to maps.
const SMALL: usize = 8;

/// One thread's accesses, as the walk sees them.
#[derive(Clone, Copy, Debug)]
pub struct Toucher {
    thread: ThreadId,
    /// The locks every one of its accesses held (a set of [`Locksets`]).
    protect: u32,
    /// Its group: a lock of `protect`, or none.
    group: Option<LockId>,
    /// Its place in the walk's order (the caller's: its latest access's index, or its id).
    key: u64,
}

/// The threads of one variable (see the module comment).
#[derive(Clone, Debug)]
pub enum Touched {
    Small(Vec<Toucher>),
    Large(Box<Large>),
}

impl Default for Touched {
    fn default() -> Touched {
        Touched::Small(Vec::new())
    }
}

#[derive(Clone, Debug, Default)]
pub struct Large {
    of: FxHashMap<ThreadId, Toucher>,
    groups: FxHashMap<Option<LockId>, BTreeMap<u64, ThreadId>>,
}

/// What a large set holds per thread (its entry in both maps), besides the entry.
const LARGE_OVERHEAD: usize = 64;

/// The threads that read and that wrote one variable.
#[derive(Default)]
pub struct Accessors {
    pub readers: Touched,
    pub writers: Touched,
}

impl Accessors {
    /// Notes an access of `t` (a write if `write`) made holding `held`, at `key` in the
    /// order; returns the bytes the sets grew by.
    pub fn touch(
        &mut self,
        write: bool,
        t: ThreadId,
        held: u32,
        key: u64,
        locksets: &mut Locksets,
    ) -> usize {
        let touched = if write {
            &mut self.writers
        } else {
            &mut self.readers
        };
        let before = touched.bytes();
        touched.touch(t, held, key, locksets);
        touched.bytes() - before
    }
}

/// Whether a walk goes on to the next thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    On,
    Stop,
}

/// The order of a walk: by key, from the highest down or from the lowest up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Descending,
    Ascending,
}

impl Touched {
    /// The bytes the set holds.
    pub fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<Toucher>();
        match self {
            Touched::Small(v) => v.capacity() * entry,
            Touched::Large(l) => {
                std::mem::size_of::<Large>() + l.of.len() * (entry + LARGE_OVERHEAD)
            }
        }
    }

    /// Notes an access of `t` made holding the locks `held`, moving `t` to `key` in the order.
    pub fn touch(&mut self, t: ThreadId, held: u32, key: u64, locksets: &mut Locksets) {
        let old = match self {
            Touched::Small(v) => v.iter().find(|e| e.thread == t).copied(),
            Touched::Large(l) => l.of.get(&t).copied(),
        };
        let entry = match old {
            None => Toucher {
                thread: t,
                protect: held,
                group: locksets.first(held),
                key,
            },
            Some(old) => {
                let protect = locksets.intersection(old.protect, held);
                let group = if protect == old.protect {
                    old.group
                } else {
                    old.group
                        .filter(|&l| locksets.contains(protect, l))
                        .or_else(|| locksets.first(protect))
                };
                Toucher {
                    thread: t,
                    protect,
                    group,
                    key,
                }
            }
        };
        match self {
            Touched::Small(v) => {
                match v.iter_mut().find(|e| e.thread == t) {
                    Some(e) => *e = entry,
                    None => v.push(entry),
                }
                if v.len() > SMALL {
                    let mut large = Large::default();
                    for e in v.drain(..) {
                        large.insert(e);
                    }
                    *self = Touched::Large(Box::new(large));
                }
            }
            Touched::Large(l) => {
                if let Some(old) = old {
                    l.remove(old);
                }
                l.insert(entry);
            }
        }
    }

    /// Calls `visit` with each thread of `sets` (several: merged, a thread in two visited once
    /// where the keys are its id) that is in no group of a lock of `mine`, with its key, in
    /// `order`, until it says stop.
    pub fn walk(
        sets: &[&Touched],
        mine: u32,
        locksets: &Locksets,
        order: Order,
        mut visit: impl FnMut(ThreadId, u64) -> Go,
    ) {
        let eligible = |group: Option<LockId>| group.is_none_or(|l| !locksets.contains(mine, l));
        if sets.iter().all(|s| matches!(s, Touched::Small(_))) {
            let mut all: Vec<(u64, ThreadId)> = sets
                .iter()
                .flat_map(|s| match s {
                    Touched::Small(v) => v.as_slice(),
                    Touched::Large(_) => &[],
                })
                .filter(|e| eligible(e.group))
                .map(|e| (e.key, e.thread))
                .collect();
            all.sort_unstable();
            if order == Order::Descending {
                all.reverse();
            }
            all.dedup();
            for (key, t) in all {
                if visit(t, key) == Go::Stop {
                    return;
                }
            }
            return;
        }
        // A merge of the eligible groups' threads, each group in key order.
        type Run<'a> = Box<dyn Iterator<Item = (u64, ThreadId)> + 'a>;
        let mut runs: Vec<Run<'_>> = Vec::new();
        for s in sets {
            match s {
                Touched::Small(v) => {
                    let mut mine: Vec<(u64, ThreadId)> = v
                        .iter()
                        .filter(|e| eligible(e.group))
                        .map(|e| (e.key, e.thread))
                        .collect();
                    mine.sort_unstable();
                    if order == Order::Descending {
                        mine.reverse();
                    }
                    runs.push(Box::new(mine.into_iter()));
                }
                Touched::Large(l) => {
                    for (&group, threads) in &l.groups {
                        if !eligible(group) {
                            continue;
                        }
                        let run = threads.iter().map(|(&k, &t)| (k, t));
                        match order {
                            Order::Ascending => runs.push(Box::new(run)),
                            Order::Descending => runs.push(Box::new(run.rev())),
                        }
                    }
                }
            }
        }
        // Heap entries ordered so that the next in `order` comes out first.
        let key_of = |k: u64| match order {
            Order::Descending => k,
            Order::Ascending => u64::MAX - k,
        };
        let mut heap: BinaryHeap<(u64, Reverse<usize>, ThreadId)> = BinaryHeap::new();
        for (i, run) in runs.iter_mut().enumerate() {
            if let Some((k, t)) = run.next() {
                heap.push((key_of(k), Reverse(i), t));
            }
        }
        let mut last: Option<(u64, ThreadId)> = None;
        while let Some((k, Reverse(i), t)) = heap.pop() {
            if let Some((nk, nt)) = runs[i].next() {
                heap.push((key_of(nk), Reverse(i), nt));
            }
            let key = match order {
                Order::Descending => k,
                Order::Ascending => u64::MAX - k,
            };
            if last == Some((key, t)) {
                continue;
            }
            last = Some((key, t));
            if visit(t, key) == Go::Stop {
                return;
            }
        }
    }
}

impl Large {
    fn insert(&mut self, e: Toucher) {
        self.of.insert(e.thread, e);
        self.groups
            .entry(e.group)
            .or_default()
            .insert(e.key, e.thread);
    }

    fn remove(&mut self, e: Toucher) {
        self.of.remove(&e.thread);
        if let Some(g) = self.groups.get_mut(&e.group) {
            g.remove(&e.key);
            if g.is_empty() {
                self.groups.remove(&e.group);
            }
        }
    }
}
