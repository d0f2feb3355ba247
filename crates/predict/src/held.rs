//! Sets of held locks, interned as the paths of one trie: a set is a node, the set of its
//! parent with one lock added, its locks in increasing order of id along the path, so that a
//! set has exactly one node (an id names a set, however it was reached). Taking a lock of a
//! higher id than those held goes to a child and giving up the highest to the parent, so that a
//! thread nesting n locks makes n nodes, not n sets of up to n locks each (the square of the
//! depth in time and memory, #38's deep nesting). Locks are interned in the order the trace
//! first names them, so nested locks are mostly taken in increasing order of id; taking or
//! giving up a lock below others re-adds those above it: the cost of the locks of higher id.

use hindsight_trace::LockId;
use rustc_hash::{FxHashMap, FxHashSet};

/// One set: its parent's with `lock` added.
#[derive(Clone, Copy, Debug)]
struct Node {
    lock: LockId,
    parent: u32,
}

/// Bytes a node takes: itself and its entry in the children's map.
const NODE_BYTES: usize = std::mem::size_of::<Node>() + 24;

/// The interned sets of held locks (see the module comment).
#[derive(Clone, Debug)]
pub struct HeldLocks {
    /// Node 0 is the empty set (its lock and parent are never read).
    nodes: Vec<Node>,
    children: FxHashMap<(u32, LockId), u32>,
}

impl Default for HeldLocks {
    fn default() -> HeldLocks {
        HeldLocks {
            nodes: vec![Node {
                lock: LockId(0),
                parent: 0,
            }],
            children: FxHashMap::default(),
        }
    }
}

impl HeldLocks {
    /// The empty set.
    pub const NONE: u32 = 0;

    /// The set `set` with `l` added (itself when `l` is in it).
    pub fn with(&mut self, set: u32, l: LockId) -> u32 {
        let mut above = Vec::new();
        let mut at = set;
        while at != HeldLocks::NONE && self.nodes[at as usize].lock >= l {
            let node = self.nodes[at as usize];
            if node.lock == l {
                return set;
            }
            above.push(node.lock);
            at = node.parent;
        }
        let mut out = self.child(at, l);
        for &m in above.iter().rev() {
            out = self.child(out, m);
        }
        out
    }

    /// The node of `set` with `l` added on top (`l` above every lock of `set`).
    fn child(&mut self, set: u32, l: LockId) -> u32 {
        let next = self.nodes.len() as u32;
        let id = *self.children.entry((set, l)).or_insert(next);
        if id == next {
            self.nodes.push(Node {
                lock: l,
                parent: set,
            });
        }
        id
    }

    /// The set `set` without `l` (itself when `l` is not in it): the locks above `l` are
    /// added again, in their order, to the set below it.
    pub fn without(&mut self, set: u32, l: LockId) -> u32 {
        let mut above = Vec::new();
        let mut at = set;
        while at != HeldLocks::NONE {
            let node = self.nodes[at as usize];
            if node.lock == l {
                let mut out = node.parent;
                for &m in above.iter().rev() {
                    out = self.child(out, m);
                }
                return out;
            }
            above.push(node.lock);
            at = node.parent;
        }
        set
    }

    /// The locks of `set`, in decreasing order of id.
    pub fn locks(&self, set: u32) -> impl Iterator<Item = LockId> + '_ {
        let mut at = set;
        std::iter::from_fn(move || {
            (at != HeldLocks::NONE).then(|| {
                let node = self.nodes[at as usize];
                at = node.parent;
                node.lock
            })
        })
    }

    /// Whether `set` holds `l`.
    pub fn contains(&self, set: u32, l: LockId) -> bool {
        self.locks(set).any(|m| m == l)
    }

    /// The lock of lowest id in `set`, if any.
    pub fn first(&self, set: u32) -> Option<LockId> {
        self.locks(set).last()
    }

    /// Whether `a` and `b` share a lock.
    pub fn share(&self, a: u32, b: u32) -> bool {
        if a == HeldLocks::NONE || b == HeldLocks::NONE {
            return false;
        }
        if a == b {
            return true;
        }
        let theirs: FxHashSet<LockId> = self.locks(b).collect();
        self.locks(a).any(|l| theirs.contains(&l))
    }

    /// The locks `a` and `b` share, as a set.
    pub fn intersection(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        if a == HeldLocks::NONE || b == HeldLocks::NONE {
            return HeldLocks::NONE;
        }
        let theirs: FxHashSet<LockId> = self.locks(b).collect();
        let mut kept: Vec<LockId> = self.locks(a).filter(|l| theirs.contains(l)).collect();
        kept.reverse();
        kept.into_iter()
            .fold(HeldLocks::NONE, |set, l| self.child(set, l))
    }

    /// The bytes the sets take (two words a set: they are counted from the node count).
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * NODE_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Random takes and releases of eight locks by one holder against a plain set.
    #[test]
    fn agrees_with_a_plain_set() {
        let mut trie = HeldLocks::default();
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) as u32
        };
        let (mut set, mut plain) = (HeldLocks::NONE, BTreeSet::new());
        let mut others = Vec::new();
        for _ in 0..5000 {
            let l = LockId(next() % 8);
            if plain.contains(&l) {
                set = trie.without(set, l);
                plain.remove(&l);
            } else {
                set = trie.with(set, l);
                plain.insert(l);
            }
            let got: Vec<LockId> = trie.locks(set).collect();
            assert_eq!(got, plain.iter().rev().copied().collect::<Vec<_>>());
            let canonical = plain.iter().fold(HeldLocks::NONE, |s, &l| trie.with(s, l));
            assert_eq!(canonical, set, "a set has one node");
            for &(o, ref op) in &others {
                let op: &BTreeSet<LockId> = op;
                assert_eq!(trie.share(set, o), !plain.is_disjoint(op));
                let i = trie.intersection(set, o);
                let want: BTreeSet<LockId> = plain.intersection(op).copied().collect();
                assert_eq!(trie.locks(i).collect::<BTreeSet<_>>(), want);
            }
            if next() % 50 == 0 {
                others.push((set, plain.clone()));
                if others.len() > 6 {
                    others.remove(0);
                }
            }
        }
    }
}
