//! The latest access of each thread to one variable, kept in trace order, and the query every
//! race check asks of them: the latest access of another thread that is *not* ordered before
//! the access at hand.
//!
//! Scanning every thread's access at every access is quadratic when many threads touch one
//! variable (a server's thread per request, a fork of n workers that each write one counter).
//! The query walks the accesses from the latest down and stops at the first unordered one: when
//! threads are concurrent that is the first it looks at. What the walk passes over is ordered
//! before the asking thread, and stays so for its later accesses (a thread's clock only grows),
//! so the set remembers the range it passed for that thread and jumps over it next time: a
//! thread that reads, again and again, a variable every other thread wrote before it joined
//! them walks the writes once. A caller whose access *covers* the ones it passes (it conflicts
//! with everything they conflict with, and they are ordered before it) may drop them as it
//! goes: each access is then passed over at most once.
//!
//! Most variables are touched by a few threads: up to [`SMALL`] accesses live in a vector
//! scanned whole; past that, a map in trace order and one from thread to trace index.

use hindsight_trace::ThreadId;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// The accesses a set keeps in a plain vector before it switches to maps.
pub const SMALL: usize = 8;

/// One thread's latest access: its thread, its index in the trace and what the caller keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<T> {
    pub thread: ThreadId,
    pub index: u64,
    pub value: T,
}

/// The latest access of each thread, in trace order.
#[derive(Clone, Debug)]
pub enum LatestPerThread<T> {
    /// At most [`SMALL`] entries, in trace order.
    Small(Vec<Entry<T>>),
    Large(Box<Large<T>>),
}

impl<T> Default for LatestPerThread<T> {
    fn default() -> Self {
        LatestPerThread::Small(Vec::new())
    }
}

/// The entries of a set past [`SMALL`].
#[derive(Clone, Debug)]
pub struct Large<T> {
    by_index: BTreeMap<u64, (ThreadId, T)>,
    index_of: FxHashMap<ThreadId, u64>,
    /// Every entry with an index in `lo..=hi` is ordered before every later access of `thread`.
    passed: Option<Passed>,
}

#[derive(Clone, Copy, Debug)]
struct Passed {
    thread: ThreadId,
    lo: u64,
    hi: u64,
}

/// What a set holds per entry, besides the entry, in the large form (two map entries).
const LARGE_OVERHEAD: usize = 48;

impl<T: Copy> LatestPerThread<T> {
    /// How many threads have an entry.
    pub fn len(&self) -> usize {
        match self {
            LatestPerThread::Small(v) => v.len(),
            LatestPerThread::Large(l) => l.by_index.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the set holds (an estimate for the large form, counted from its length).
    pub fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<Entry<T>>();
        match self {
            LatestPerThread::Small(v) => v.capacity() * entry,
            LatestPerThread::Large(l) => {
                std::mem::size_of::<Large<T>>() + l.by_index.len() * (entry + LARGE_OVERHEAD)
            }
        }
    }

    /// The entries, in trace order.
    pub fn entries(&self) -> Vec<Entry<T>> {
        match self {
            LatestPerThread::Small(v) => v.clone(),
            LatestPerThread::Large(l) => l
                .by_index
                .iter()
                .map(|(&index, &(thread, value))| Entry {
                    thread,
                    index,
                    value,
                })
                .collect(),
        }
    }

    /// The latest entry, if any.
    pub fn last(&self) -> Option<Entry<T>> {
        match self {
            LatestPerThread::Small(v) => v.last().copied(),
            LatestPerThread::Large(l) => {
                l.by_index
                    .iter()
                    .next_back()
                    .map(|(&index, &(thread, value))| Entry {
                        thread,
                        index,
                        value,
                    })
            }
        }
    }

    /// Makes `entry` its thread's entry, replacing the one before. Its index must be later
    /// than every index in the set (the trace is read in order).
    pub fn record(&mut self, entry: Entry<T>) {
        match self {
            LatestPerThread::Small(v) => {
                if let Some(i) = v.iter().position(|e| e.thread == entry.thread) {
                    v.remove(i);
                }
                debug_assert!(v.last().is_none_or(|l| l.index < entry.index));
                if v.len() < SMALL {
                    v.push(entry);
                    return;
                }
                let mut large = Large {
                    by_index: BTreeMap::new(),
                    index_of: FxHashMap::default(),
                    passed: None,
                };
                for e in v.drain(..).chain([entry]) {
                    large.by_index.insert(e.index, (e.thread, e.value));
                    large.index_of.insert(e.thread, e.index);
                }
                *self = LatestPerThread::Large(Box::new(large));
            }
            LatestPerThread::Large(l) => {
                if let Some(old) = l.index_of.insert(entry.thread, entry.index) {
                    l.by_index.remove(&old);
                }
                l.by_index.insert(entry.index, (entry.thread, entry.value));
            }
        }
    }

    /// Removes `thread`'s entry, if it has one.
    pub fn remove(&mut self, thread: ThreadId) {
        match self {
            LatestPerThread::Small(v) => v.retain(|e| e.thread != thread),
            LatestPerThread::Large(l) => {
                if let Some(old) = l.index_of.remove(&thread) {
                    l.by_index.remove(&old);
                }
                if l.by_index.len() <= SMALL / 2 {
                    let v = self.entries();
                    *self = LatestPerThread::Small(v);
                }
            }
        }
    }

    /// The latest entry of a thread other than `t` that is not ordered before `t`'s access at
    /// hand (`ordered(entry)`, which must stay true for `t`'s later accesses once it is true).
    /// With `drop_passed`, the entries passed over on the way (ordered before the access, or
    /// `t`'s own) are removed: the caller's access covers them.
    pub fn latest_unordered(
        &mut self,
        t: ThreadId,
        mut ordered: impl FnMut(&Entry<T>) -> bool,
        drop_passed: bool,
    ) -> Option<Entry<T>> {
        let l = match self {
            LatestPerThread::Small(v) => {
                let found = v
                    .iter()
                    .rev()
                    .find(|e| e.thread != t && !ordered(e))
                    .copied();
                if drop_passed {
                    let from = found.map_or(0, |f| f.index + 1);
                    v.retain(|e| e.index < from);
                }
                return found;
            }
            LatestPerThread::Large(l) => l,
        };
        let passed = l.passed.filter(|p| p.thread == t);
        let top = l.by_index.keys().next_back().copied();
        let mut below = u64::MAX;
        let mut dropped = Vec::new();
        let mut found = None;
        while let Some((&index, &(thread, value))) = l.by_index.range(..below).next_back() {
            if let Some(p) = passed.filter(|p| p.lo <= index && index <= p.hi) {
                below = p.lo;
                continue;
            }
            let e = Entry {
                thread,
                index,
                value,
            };
            if thread != t && !ordered(&e) {
                found = Some(e);
                break;
            }
            if drop_passed {
                dropped.push((index, thread));
            }
            below = index;
        }
        for (index, thread) in dropped {
            l.by_index.remove(&index);
            l.index_of.remove(&thread);
        }
        // Everything from just above the answer (or the bottom) to the top was passed over.
        l.passed = top.map(|hi| Passed {
            thread: t,
            lo: found.map_or(0, |f| f.index + 1),
            hi,
        });
        if l.by_index.len() <= SMALL / 2 {
            *self = LatestPerThread::Small(self.entries());
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, for sets of any size: the latest entry of another thread not ordered.
    fn reference(entries: &[Entry<u32>], t: ThreadId, limit: u32) -> Option<Entry<u32>> {
        entries
            .iter()
            .filter(|e| e.thread != t && e.value > limit)
            .max_by_key(|e| e.index)
            .copied()
    }

    #[test]
    fn answers_as_the_definition_through_growth_and_memo() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let mut set = LatestPerThread::default();
        // "Ordered before `t`" here: the value is at most `t`'s limit, which only grows.
        let mut limits = [0u32; 40];
        for index in 0..4000u64 {
            let t = ThreadId(next() % 40);
            limits[t.index()] += next() % 3;
            let limit = limits[t.index()];
            let want = reference(&set.entries(), t, limit);
            let got = set.latest_unordered(t, |e| e.value <= limit, false);
            assert_eq!(got, want, "at {index}");
            set.record(Entry {
                thread: t,
                index,
                value: limit + 1 + next() % 4,
            });
        }
    }
}
