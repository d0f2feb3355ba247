//! Occurrences folded into groups, the way ThreadSanitizer reports each distinct pair of racing
//! source locations once: an analysis keys each occurrence (say, by the two source locations
//! and the variable) and keeps, per key, only how many occurrences there were, the threads
//! involved and the first and last occurrence. Memory follows the number of distinct keys, not
//! of occurrences.

use hindsight_trace::{LocId, ThreadId};
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// How an analysis reports what it finds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Granularity {
    /// One finding per group of like occurrences (see [`Groups`]).
    #[default]
    Grouped,
    /// One finding per occurrence (per racy event, say), as found.
    EveryEvent,
}

/// Where an event of an occurrence stands, as its group sees it: its source location, or, for
/// an event that has none, what it does (an analysis' own code: read or write, a method) and
/// its thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    At(LocId),
    Unlocated { op: u32, thread: ThreadId },
}

impl Site {
    pub fn of(loc: Option<LocId>, op: u32, thread: ThreadId) -> Site {
        match loc {
            Some(l) => Site::At(l),
            None => Site::Unlocated { op, thread },
        }
    }
}

/// `n` and the noun that fits it: `1 racy access`, `3 racy accesses`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The occurrences of one key.
#[derive(Clone, Debug)]
pub struct Group<K, P> {
    pub key: K,
    pub occurrences: u64,
    /// The threads of every occurrence, sorted, each once.
    pub threads: Vec<ThreadId>,
    pub first: P,
    /// The last occurrence, where the analysis keeps it ([`Groups::add`]) and there were
    /// several.
    pub last: Option<P>,
}

/// Groups in the order of their first occurrence.
#[derive(Clone, Debug)]
pub struct Groups<K, P> {
    index: FxHashMap<K, usize>,
    groups: Vec<Group<K, P>>,
}

impl<K, P> Default for Groups<K, P> {
    fn default() -> Self {
        Groups {
            index: FxHashMap::default(),
            groups: Vec::new(),
        }
    }
}

impl<K: Copy + Eq + Hash, P> Groups<K, P> {
    /// Counts an occurrence of `key` by `threads`, keeping it as the first or the last.
    pub fn add(&mut self, key: K, threads: &[ThreadId], occurrence: P) {
        let mut occurrence = Some(occurrence);
        let g = self.group(key, threads, || occurrence.take().expect("taken once"));
        if let Some(o) = occurrence {
            g.last = Some(o);
        }
    }

    /// Counts an occurrence of `key` by `threads`, building it with `make` only if it is the
    /// first: for occurrences that cost more to build than to count.
    pub fn count_with(&mut self, key: K, threads: &[ThreadId], make: impl FnOnce() -> P) {
        self.group(key, threads, make);
    }

    /// The group of `key`, counting one more occurrence by `threads`; new, with its first
    /// occurrence from `first`.
    fn group(
        &mut self,
        key: K,
        threads: &[ThreadId],
        first: impl FnOnce() -> P,
    ) -> &mut Group<K, P> {
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.groups.push(Group {
                    key,
                    occurrences: 0,
                    threads: Vec::new(),
                    first: first(),
                    last: None,
                });
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[i];
        g.occurrences += 1;
        for &t in threads {
            if let Err(at) = g.threads.binary_search(&t) {
                g.threads.insert(at, t);
            }
        }
        g
    }

    /// The groups, in the order of their first occurrence.
    pub fn iter(&self) -> impl Iterator<Item = &Group<K, P>> {
        self.groups.iter()
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// An estimate of the bytes the groups hold (their table and index, and a few threads
    /// each), for a budget's account: constant time, not a walk over the groups.
    pub fn bytes(&self) -> u64 {
        let group = std::mem::size_of::<Group<K, P>>() + 4 * std::mem::size_of::<ThreadId>();
        let entry = std::mem::size_of::<(K, usize)>() + 1;
        (self.groups.capacity() * group + self.index.capacity() * entry) as u64
    }

    /// The groups, most occurrences first, ties in the order of their first occurrence: the
    /// order reports show them in.
    pub fn into_sorted(self) -> Vec<Group<K, P>> {
        let mut groups = self.groups;
        // A stable sort keeps first-occurrence order among equals.
        groups.sort_by_key(|g| std::cmp::Reverse(g.occurrences));
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occurrences_fold_into_their_key_s_group() {
        let mut g: Groups<u8, u32> = Groups::default();
        g.add(1, &[ThreadId(2), ThreadId(1)], 10);
        g.add(2, &[ThreadId(0)], 20);
        g.add(1, &[ThreadId(3), ThreadId(1)], 11);
        g.add(2, &[ThreadId(0)], 21);
        g.add(1, &[ThreadId(1)], 12);
        assert_eq!(g.len(), 2);
        let sorted = g.into_sorted();
        assert_eq!(sorted[0].key, 1);
        assert_eq!(sorted[0].occurrences, 3);
        assert_eq!(sorted[0].threads, [ThreadId(1), ThreadId(2), ThreadId(3)]);
        assert_eq!((sorted[0].first, sorted[0].last), (10, Some(12)));
        assert_eq!((sorted[1].key, sorted[1].occurrences), (2, 2));
    }

    #[test]
    fn counting_builds_only_the_first_occurrence() {
        let mut g: Groups<u8, u32> = Groups::default();
        let mut built = 0;
        for (k, v) in [(1, 10), (1, 11), (2, 20), (1, 12)] {
            g.count_with(k, &[ThreadId(0)], || {
                built += 1;
                v
            });
        }
        assert_eq!(built, 2);
        let sorted = g.into_sorted();
        assert_eq!(
            (sorted[0].occurrences, sorted[0].first, sorted[0].last),
            (3, 10, None)
        );
    }

    #[test]
    fn ties_keep_the_order_of_first_occurrence() {
        let mut g: Groups<u8, ()> = Groups::default();
        for k in [5, 3, 9, 3, 5, 9] {
            g.add(k, &[], ());
        }
        let keys: Vec<u8> = g.into_sorted().iter().map(|g| g.key).collect();
        assert_eq!(keys, [5, 3, 9]);
    }
}
