//! Extended views (MoTH, PADTAD'11, Section 2.1): a view is the set of accesses
//! `(α, variable, mark)` made inside one atomic region, `α ∈ {r, w}`. The mark keeps the
//! use-define relation: a read is marked `•` when its value is overwritten later in the same
//! region (`∘` otherwise), a write is marked `•` when the variable was read before it in the same
//! region (`∘` otherwise). Views are built only through [`add`] (Definition 1) and [`merge_p`]
//! (Definition 2).
//!
//! A view is stored per variable as four bits, one per possible access of that variable, because
//! `add` only ever looks at the accesses of the variable it adds: the definitions become bit
//! operations and a view is a short sorted list. This module knows nothing of traces, programs,
//! threads or sensors.

use rustc_hash::FxHashMap;

/// `(r, v, ∘)`: the value read escapes the region (not overwritten after the read).
pub const READ_OPEN: u8 = 1;
/// `(r, v, •)`: the value read is overwritten later in the region.
pub const READ_OVERWRITTEN: u8 = 2;
/// `(w, v, ∘)`: a write not preceded by a read of the variable in the region.
pub const WRITE_FRESH: u8 = 4;
/// `(w, v, •)`: a write preceded by a read of the variable in the region.
pub const WRITE_AFTER_READ: u8 = 8;
const READS: u8 = READ_OPEN | READ_OVERWRITTEN;
/// The bits of the writes of a variable, either mark.
pub const WRITES: u8 = WRITE_FRESH | WRITE_AFTER_READ;

/// `r` or `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Read,
    Write,
}

/// The paper's `∘` and `•`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// `∘`
    Open,
    /// `•`
    Closed,
}

/// One access `(α, v, b)`; variables are dense ids whose names the caller keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Access {
    pub kind: Kind,
    pub var: u32,
    pub mark: Mark,
}

impl Access {
    pub fn new(kind: Kind, var: u32, mark: Mark) -> Access {
        Access { kind, var, mark }
    }

    /// The bit of this access in a variable's set.
    pub fn bit(self) -> u8 {
        match (self.kind, self.mark) {
            (Kind::Read, Mark::Open) => READ_OPEN,
            (Kind::Read, Mark::Closed) => READ_OVERWRITTEN,
            (Kind::Write, Mark::Open) => WRITE_FRESH,
            (Kind::Write, Mark::Closed) => WRITE_AFTER_READ,
        }
    }
}

/// The accesses of one variable in a view after `add((kind, v, mark), ·)`, given the accesses of
/// that variable before (`bits`). Definition 1, one branch per line:
/// 1. a read whose opposite-marked read is present replaces it;
/// 2. a write after a read turns the read into `•` and is itself added as `•`;
/// 3. otherwise the access is added.
///
/// Branch 2 reads "the existing read access" of `v`; a view can hold both `(r, v, ∘)` and
/// `(r, v, •)` only after the union of two branches (CONDITIONAL, LOOP), and then both reads are
/// overwritten by the write, so both become `(r, v, •)`.
#[inline]
pub fn add_bits(bits: u8, kind: Kind, mark: Mark) -> u8 {
    match kind {
        Kind::Read => {
            let (mine, other) = match mark {
                Mark::Open => (READ_OPEN, READ_OVERWRITTEN),
                Mark::Closed => (READ_OVERWRITTEN, READ_OPEN),
            };
            if bits & other != 0 {
                (bits & !other) | mine
            } else {
                bits | mine
            }
        }
        Kind::Write => {
            if bits & READS != 0 {
                (bits & !READS) | READ_OVERWRITTEN | WRITE_AFTER_READ
            } else {
                bits | match mark {
                    Mark::Open => WRITE_FRESH,
                    Mark::Closed => WRITE_AFTER_READ,
                }
            }
        }
    }
}

/// The accesses of one variable after `merge_p` of a callee's accesses `callee` into the
/// caller's `caller` (Definition 2): the callee's writes first, then its reads. Both writes of one
/// variable give the same result in either order. Two reads of one variable (`∘` and `•`, only
/// after a union of branches in the callee) replace each other, so the definition leaves the
/// result to the order it picks; the `∘` read is inserted last, keeping the possibility that the
/// callee's read escapes (the stale-value sensor's conservative side).
#[inline]
pub fn merge_bits(callee: u8, caller: u8) -> u8 {
    let mut bits = caller;
    for (bit, kind, mark) in [
        (WRITE_FRESH, Kind::Write, Mark::Open),
        (WRITE_AFTER_READ, Kind::Write, Mark::Closed),
        (READ_OVERWRITTEN, Kind::Read, Mark::Closed),
        (READ_OPEN, Kind::Read, Mark::Open),
    ] {
        if callee & bit != 0 {
            bits = add_bits(bits, kind, mark);
        }
    }
    bits
}

/// A view: for each variable it accesses (sorted by id), the set of its accesses as bits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct View {
    entries: Vec<(u32, u8)>,
}

impl View {
    pub fn new() -> View {
        View::default()
    }

    /// A view from `(variable, bits)` entries in any order; entries with no bits are dropped,
    /// repeated variables are united.
    pub fn from_entries(mut entries: Vec<(u32, u8)>) -> View {
        entries.sort_unstable_by_key(|e| e.0);
        let mut out: Vec<(u32, u8)> = Vec::with_capacity(entries.len());
        for (v, b) in entries {
            match out.last_mut() {
                Some(last) if last.0 == v => last.1 |= b,
                _ if b != 0 => out.push((v, b)),
                _ => {}
            }
        }
        out.retain(|e| e.1 != 0);
        View { entries: out }
    }

    /// The view as a set of accesses, sorted.
    pub fn from_accesses(accesses: impl IntoIterator<Item = Access>) -> View {
        View::from_entries(accesses.into_iter().map(|a| (a.var, a.bit())).collect())
    }

    pub fn entries(&self) -> &[(u32, u8)] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn bits_mut(&mut self, var: u32) -> &mut u8 {
        let i = match self.entries.binary_search_by_key(&var, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.entries.insert(i, (var, 0));
                i
            }
        };
        &mut self.entries[i].1
    }

    /// The bits of `var` (0 when the view does not access it).
    pub fn bits(&self, var: u32) -> u8 {
        self.entries
            .binary_search_by_key(&var, |e| e.0)
            .map_or(0, |i| self.entries[i].1)
    }

    pub fn contains(&self, a: Access) -> bool {
        self.bits(a.var) & a.bit() != 0
    }

    /// Every access, sorted by variable, then reads before writes, `∘` before `•`.
    pub fn accesses(&self) -> impl Iterator<Item = Access> + '_ {
        self.entries.iter().flat_map(|&(var, bits)| {
            [
                (READ_OPEN, Kind::Read, Mark::Open),
                (READ_OVERWRITTEN, Kind::Read, Mark::Closed),
                (WRITE_FRESH, Kind::Write, Mark::Open),
                (WRITE_AFTER_READ, Kind::Write, Mark::Closed),
            ]
            .into_iter()
            .filter(move |(bit, _, _)| bits & bit != 0)
            .map(move |(_, kind, mark)| Access { kind, var, mark })
        })
    }

    /// `add(a, self)` (Definition 1), in place.
    pub fn add(&mut self, a: Access) {
        let b = self.bits_mut(a.var);
        *b = add_bits(*b, a.kind, a.mark);
    }

    /// `merge_p(callee, self)` (Definition 2), in place.
    pub fn merge_p(&mut self, callee: &View) {
        for &(var, bits) in &callee.entries {
            let b = self.bits_mut(var);
            *b = merge_bits(bits, *b);
        }
    }

    /// `self ∪ other`, the CONDITIONAL and LOOP rules' union of views.
    pub fn union(&mut self, other: &View) {
        for &(var, bits) in &other.entries {
            *self.bits_mut(var) |= bits;
        }
    }

    /// The variables of the read view (`α = r`) or the write view (`α = w`), sorted. The view
    /// consistency sensor compares these sets: marks do not take part (Table 1 lists variables).
    pub fn vars(&self, kind: Kind) -> Vec<u32> {
        let mask = match kind {
            Kind::Read => READS,
            Kind::Write => WRITES,
        };
        self.entries
            .iter()
            .filter(|e| e.1 & mask != 0)
            .map(|e| e.0)
            .collect()
    }

    /// Whether the two views *conflict*: some variable is accessed by both and written by one
    /// of them. Every pair of views a sensor's witness puts side by side (an intruder's view
    /// and a view of the split thread) conflicts: view consistency overlaps a maximal read
    /// view with write views, or a maximal write view with read or write views, on a
    /// variable of the overlap; a stale value pairs a view writing the variable with views
    /// reading or writing it.
    pub fn conflicts_with(&self, other: &View) -> bool {
        let (a, b) = (&self.entries, &other.entries);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    // Entries hold no empty bit sets: both access the variable.
                    if (a[i].1 | b[j].1) & WRITES != 0 {
                        return true;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        false
    }

    /// Renders the view with variable names, e.g. `{r(x)•, w(x)•, r(y)∘}`.
    pub fn render(&self, name: &dyn Fn(u32) -> String) -> String {
        let parts: Vec<String> = self
            .accesses()
            .map(|a| display_access(a, &name(a.var)))
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

/// `r(x)∘`, `w(x)•`, ...
pub fn display_access(a: Access, name: &str) -> String {
    let k = match a.kind {
        Kind::Read => 'r',
        Kind::Write => 'w',
    };
    let m = match a.mark {
        Mark::Open => '∘',
        Mark::Closed => '•',
    };
    format!("{k}({name}){m}")
}

/// Whether sorted set `a` is a subset of sorted set `b`.
pub fn is_subset(a: &[u32], b: &[u32]) -> bool {
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// The intersection of two sorted sets.
pub fn intersection(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The maximal sets among `sets` (Section 2.3.1's `M_α`): those not strictly contained in
/// another. Duplicates are kept once; the empty set is never maximal unless it is alone, and
/// callers drop empty sets before asking.
///
/// A set can only be contained in sets that hold each of its variables, so each is compared
/// with the sets holding its rarest variable only: a thread with a region per lock (thousands
/// of disjoint views) costs a look-up per view, not a comparison with every other.
pub fn maximal(sets: &[Vec<u32>]) -> Vec<usize> {
    let held = holding(sets.iter().map(Vec::as_slice));
    maximal_among(sets.len(), |i| &sets[i], &held)
}

/// Per variable, the places of the sets holding it, in increasing order.
pub fn holding<'a>(sets: impl IntoIterator<Item = &'a [u32]>) -> FxHashMap<u32, Vec<usize>> {
    let mut out: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (j, o) in sets.into_iter().enumerate() {
        for &v in o {
            out.entry(v).or_default().push(j);
        }
    }
    out
}

/// [`maximal`] of the `n` sets `set(0..n)`, whose [`holding`] index is `held`.
pub fn maximal_among<'a>(
    n: usize,
    set: impl Fn(usize) -> &'a [u32],
    held: &FxHashMap<u32, Vec<usize>>,
) -> Vec<usize> {
    let dominates = |i: usize, s: &[u32], j: usize| {
        let o = set(j);
        (o.len() > s.len() && is_subset(s, o)) || (o == s && j < i)
    };
    (0..n)
        .filter(|&i| {
            let s = set(i);
            let rarest = s.iter().map(|v| &held[v]).min_by_key(|h| h.len());
            let dominated = match rarest {
                Some(candidates) => candidates.iter().any(|&j| dominates(i, s, j)),
                // Every set contains the empty one.
                None => (0..n).any(|j| dominates(i, s, j)),
            };
            !dominated
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Section 2.3.1's definition, every set against every other.
    fn literal_maximal(sets: &[Vec<u32>]) -> Vec<usize> {
        (0..sets.len())
            .filter(|&i| {
                let s = &sets[i];
                !sets
                    .iter()
                    .enumerate()
                    .any(|(j, o)| (o.len() > s.len() && is_subset(s, o)) || (o == s && j < i))
            })
            .collect()
    }

    proptest! {
        #[test]
        fn maximal_is_the_literal_definition(
            sets in proptest::collection::vec(proptest::collection::btree_set(0u32..6, 0..4), 0..12)
        ) {
            let sets: Vec<Vec<u32>> = sets.into_iter().map(|s| s.into_iter().collect()).collect();
            prop_assert_eq!(maximal(&sets), literal_maximal(&sets));
        }
    }

    proptest! {
        /// Two views conflict when some access of one and some access of the other are to
        /// one variable and one of the two is a write, read off their accesses.
        #[test]
        fn conflicts_are_a_write_and_an_access_of_one_variable(
            a in proptest::collection::vec((0u32..5, any::<bool>(), any::<bool>()), 0..5),
            b in proptest::collection::vec((0u32..5, any::<bool>(), any::<bool>()), 0..5),
        ) {
            let view = |accesses: &[(u32, bool, bool)]| {
                let mut v = View::new();
                for &(var, write, open) in accesses {
                    let kind = if write { Kind::Write } else { Kind::Read };
                    let mark = if open { Mark::Open } else { Mark::Closed };
                    v.add(Access::new(kind, var, mark));
                }
                v
            };
            let (va, vb) = (view(&a), view(&b));
            let literal = va.accesses().any(|x| {
                vb.accesses()
                    .any(|y| x.var == y.var && (x.kind == Kind::Write || y.kind == Kind::Write))
            });
            prop_assert_eq!(va.conflicts_with(&vb), literal);
            prop_assert_eq!(vb.conflicts_with(&va), literal);
        }
    }

    fn r(v: u32) -> Access {
        Access::new(Kind::Read, v, Mark::Open)
    }
    fn w(v: u32) -> Access {
        Access::new(Kind::Write, v, Mark::Open)
    }

    #[test]
    fn swap_marks_reads_and_writes_as_the_paper_says() {
        // oldX = c.x; c.x = c.y; c.y = oldX (Fig. 6)
        let mut v = View::new();
        for a in [r(0), r(1), w(0), w(1)] {
            v.add(a);
        }
        let all: Vec<Access> = v.accesses().collect();
        assert_eq!(
            all,
            vec![
                Access::new(Kind::Read, 0, Mark::Closed),
                Access::new(Kind::Write, 0, Mark::Closed),
                Access::new(Kind::Read, 1, Mark::Closed),
                Access::new(Kind::Write, 1, Mark::Closed),
            ]
        );
    }

    #[test]
    fn a_read_after_the_write_escapes_again() {
        let mut v = View::new();
        for a in [r(0), w(0), r(0)] {
            v.add(a);
        }
        assert!(v.contains(Access::new(Kind::Read, 0, Mark::Open)));
        assert!(!v.contains(Access::new(Kind::Read, 0, Mark::Closed)));
        assert!(v.contains(Access::new(Kind::Write, 0, Mark::Closed)));
    }

    #[test]
    fn maximal_sets() {
        let sets = vec![vec![0], vec![0, 1], vec![1], vec![2], vec![0, 1]];
        assert_eq!(maximal(&sets), vec![1, 3]);
    }
}
