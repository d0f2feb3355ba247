//! Hash-consed sets of lock ids: little-endian Patricia tries (Okasaki and Gill, "Fast
//! Mergeable Integer Maps", 1998) whose nodes are interned, so that a set has exactly one id.
//!
//! The layers of the acquisition history (see `nesting`) change by one lock at a time, and a
//! release merges the innermost layer into the one below; a profile names its layers by id.
//! A sorted list, hash-consed from its tail, makes a set canonical too, but inserting a lock
//! rebuilds the list up to it: a deep stack released in an order that appends to the end of
//! the lists is quadratic. A Patricia trie is canonical (its shape is a function of the set
//! alone) and an insertion or a removal rebuilds one path, at most 33 nodes; a union inserts
//! the smaller set into the larger.

use rustc_hash::FxHashMap;

/// A set id. Equal sets have equal ids.
pub type SetId = u32;

/// The empty set.
pub const EMPTY: SetId = u32::MAX;

/// A trie node. A branch's keys agree with `prefix` on the bits below `bit` (a single bit),
/// those with `bit` clear are in `zero` and the others in `one`; neither child is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Trie {
    Leaf(u32),
    Branch {
        prefix: u32,
        bit: u32,
        zero: SetId,
        one: SetId,
    },
}

/// All sets made so far, sharing their nodes.
#[derive(Debug, Default)]
pub struct Sets {
    nodes: Vec<Trie>,
    /// Per node, the size of its set.
    sizes: Vec<u32>,
    ids: FxHashMap<Trie, SetId>,
}

/// Whether `k` agrees with `prefix` on the bits below `bit`.
#[inline]
fn matches(k: u32, prefix: u32, bit: u32) -> bool {
    k & (bit - 1) == prefix
}

impl Sets {
    fn make(&mut self, node: Trie) -> SetId {
        let size = match node {
            Trie::Leaf(_) => 1,
            Trie::Branch { zero, one, .. } => self.len(zero) + self.len(one),
        };
        let next = self.nodes.len() as SetId;
        let id = *self.ids.entry(node).or_insert(next);
        if id == next {
            self.nodes.push(node);
            self.sizes.push(size);
        }
        id
    }

    /// A branch, or its one non-empty child: the tries stay canonical.
    fn branch(&mut self, prefix: u32, bit: u32, zero: SetId, one: SetId) -> SetId {
        match (zero, one) {
            (EMPTY, t) | (t, EMPTY) => t,
            _ => self.make(Trie::Branch {
                prefix,
                bit,
                zero,
                one,
            }),
        }
    }

    /// The set of two non-empty sets whose keys agree with `p0` and `p1` respectively on
    /// all bits up to where `p0` and `p1` first differ.
    fn join(&mut self, p0: u32, t0: SetId, p1: u32, t1: SetId) -> SetId {
        let bit = 1 << (p0 ^ p1).trailing_zeros();
        let prefix = p0 & (bit - 1);
        if p0 & bit == 0 {
            self.branch(prefix, bit, t0, t1)
        } else {
            self.branch(prefix, bit, t1, t0)
        }
    }

    pub fn len(&self, s: SetId) -> u32 {
        if s == EMPTY {
            0
        } else {
            self.sizes[s as usize]
        }
    }

    pub fn contains(&self, mut s: SetId, k: u32) -> bool {
        while s != EMPTY {
            match self.nodes[s as usize] {
                Trie::Leaf(j) => return j == k,
                Trie::Branch {
                    prefix,
                    bit,
                    zero,
                    one,
                } => {
                    if !matches(k, prefix, bit) {
                        return false;
                    }
                    s = if k & bit == 0 { zero } else { one };
                }
            }
        }
        false
    }

    /// `s ∪ {k}`.
    pub fn insert(&mut self, s: SetId, k: u32) -> SetId {
        if s == EMPTY {
            return self.make(Trie::Leaf(k));
        }
        match self.nodes[s as usize] {
            Trie::Leaf(j) if j == k => s,
            Trie::Leaf(j) => {
                let leaf = self.make(Trie::Leaf(k));
                self.join(k, leaf, j, s)
            }
            Trie::Branch {
                prefix,
                bit,
                zero,
                one,
            } => {
                if !matches(k, prefix, bit) {
                    let leaf = self.make(Trie::Leaf(k));
                    self.join(k, leaf, prefix, s)
                } else if k & bit == 0 {
                    let zero = self.insert(zero, k);
                    self.branch(prefix, bit, zero, one)
                } else {
                    let one = self.insert(one, k);
                    self.branch(prefix, bit, zero, one)
                }
            }
        }
    }

    /// `s \ {k}`.
    pub fn remove(&mut self, s: SetId, k: u32) -> SetId {
        if s == EMPTY {
            return s;
        }
        match self.nodes[s as usize] {
            Trie::Leaf(j) => {
                if j == k {
                    EMPTY
                } else {
                    s
                }
            }
            Trie::Branch {
                prefix,
                bit,
                zero,
                one,
            } => {
                if !matches(k, prefix, bit) {
                    s
                } else if k & bit == 0 {
                    let zero = self.remove(zero, k);
                    self.branch(prefix, bit, zero, one)
                } else {
                    let one = self.remove(one, k);
                    self.branch(prefix, bit, zero, one)
                }
            }
        }
    }

    /// `a ∪ b`, inserting the smaller set's keys into the larger: a key that moves from set
    /// to set this way lands in a set at least twice the size of the one it left.
    pub fn union(&mut self, a: SetId, b: SetId) -> SetId {
        let (small, large) = if self.len(a) <= self.len(b) {
            (a, b)
        } else {
            (b, a)
        };
        let mut union = large;
        for k in self.keys(small) {
            union = self.insert(union, k);
        }
        union
    }

    /// The keys of `s`, in no particular order.
    pub fn keys(&self, s: SetId) -> Vec<u32> {
        let mut keys = Vec::with_capacity(self.len(s) as usize);
        let mut pending = vec![s];
        while let Some(s) = pending.pop() {
            if s == EMPTY {
                continue;
            }
            match self.nodes[s as usize] {
                Trie::Leaf(k) => keys.push(k),
                Trie::Branch { zero, one, .. } => {
                    pending.push(one);
                    pending.push(zero);
                }
            }
        }
        keys
    }

    /// Bytes held, roughly: the nodes, their sizes and their index.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.nodes.capacity() * size_of::<Trie>()
            + self.sizes.capacity() * 4
            + self.ids.capacity() * (size_of::<(Trie, SetId)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    proptest::proptest! {
        /// Against `BTreeSet`: the same keys, and one id per set whatever the order of the
        /// operations that built it.
        #[test]
        fn tries_are_sets_with_one_id_each(
            ops in proptest::collection::vec((0u8..3, 0u32..40, 0usize..4), 0..200),
        ) {
            let mut sets = Sets::default();
            let mut ids = [EMPTY; 4];
            let mut reference: [BTreeSet<u32>; 4] = Default::default();
            let mut seen: Vec<(BTreeSet<u32>, SetId)> = Vec::new();
            for &(op, k, i) in &ops {
                // Keys spread over the whole range too, not only the low bits.
                let k = if k % 2 == 0 { k } else { k.wrapping_mul(0x9E37_79B9) };
                let j = (i + 1) % 4;
                match op {
                    0 => {
                        ids[i] = sets.insert(ids[i], k);
                        reference[i].insert(k);
                    }
                    1 => {
                        ids[i] = sets.remove(ids[i], k);
                        reference[i].remove(&k);
                    }
                    _ => {
                        ids[i] = sets.union(ids[i], ids[j]);
                        let other = reference[j].clone();
                        reference[i].extend(other);
                    }
                }
                let mut keys = sets.keys(ids[i]);
                keys.sort_unstable();
                proptest::prop_assert_eq!(&keys, &reference[i].iter().copied().collect::<Vec<_>>());
                proptest::prop_assert_eq!(sets.len(ids[i]) as usize, reference[i].len());
                proptest::prop_assert!(sets.contains(ids[i], k) == reference[i].contains(&k));
                for (set, id) in &seen {
                    proptest::prop_assert_eq!(*set == reference[i], *id == ids[i]);
                }
                seen.push((reference[i].clone(), ids[i]));
            }
        }
    }

    #[test]
    fn extreme_keys() {
        let mut sets = Sets::default();
        let mut s = EMPTY;
        for k in [u32::MAX - 1, 0, 1 << 31, 7] {
            s = sets.insert(s, k);
        }
        assert!(sets.contains(s, 1 << 31) && sets.contains(s, 0) && !sets.contains(s, 1));
        let t = sets.remove(s, 0);
        assert_eq!(sets.len(t), 3);
        assert_eq!(sets.insert(t, 0), s);
    }
}
