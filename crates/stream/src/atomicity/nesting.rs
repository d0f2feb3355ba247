//! Per-thread lock state under nested locking (Farzan, Madhusudan, Sorrentino, CAV'09,
//! Section 2 and Section 3 "Pairwise reachability"): the lockset, the acquisition history of
//! the prefix read so far, and their interning into *profiles*, the keys of Phase I.
//!
//! A profile is everything the pairwise-reachability check of Phase II needs to know about one
//! thread's prefix, and nothing that grows with the trace:
//!
//! - the held locks, outermost first (the lockset), each with the number of forks the thread
//!   had made when it last acquired it;
//! - the acquisition history, stored once for the whole stack: under nested locking the
//!   histories of the held locks form a chain, `AH(l_1) ⊇ AH(l_2) ⊇ ... ⊇ AH(l_k)`, so each lock
//!   `m` has `depth(m)`, the number of held locks whose history contains it
//!   (`m ∈ AH(l_a)` iff `a < depth(m)`, 0-based from the outermost), and is kept in the layer of
//!   the `depth(m)`-th held lock. Stacks with their layers are shared between profiles (see
//!   [`Profile`]): a profile costs a few nodes, not a copy of its stack;
//! - the fork/join epoch (how many fork/join edges touched the thread), which fixes its
//!   fork/join clock, and the number of forks it made;
//! - the *guarded* locks it ever acquired: locks that an ancestor held while forking towards
//!   this thread (see `pairing` for why they matter).
//!
//! Re-entrant acquisitions are ignored, as the paper's tool does. This module knows nothing of
//! variables, transactions or findings.

use hindsight_trace::{LockId, ThreadId};
use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap};

/// A profile id, global over all threads.
pub type Pid = u32;

/// One lock on the stack of held locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeldLock {
    pub lock: LockId,
    /// Forks the thread had made when it acquired this lock (last time).
    pub forks_at_acquire: u32,
}

/// No stack node or layer cell (the empty stack, the empty layer).
const NONE: u32 = u32::MAX;

/// The key of Phase I: what one thread's prefix looks like to the pairwise check.
///
/// The held locks and the acquisition history are one node of [`Profiles`]' shared tree of
/// stacks: a thread nesting n locks has about n profiles each holding up to n locks, and a
/// copy of its stack per profile would be quadratic in n. Each node is a held lock with its
/// *layer*, the locks of depth exactly its position + 1 (in its history and in no history of
/// a lock above it); nodes and layers are hash-consed, so a profile's `stack` names its held
/// locks and history exactly, and equal profiles are equal structs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    pub thread: ThreadId,
    pub epoch: u32,
    pub forks: u32,
    /// The innermost held lock's node (`NONE`: no lock held).
    stack: u32,
    /// The guarded locks the thread acquired, sorted.
    guarded_acquired: Box<[u32]>,
}

/// A held lock in the shared tree of stacks, keyed by everything in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Node {
    parent: u32,
    held: HeldLock,
    /// The first cell of its layer (sorted by lock), `NONE` if empty.
    layer: u32,
    /// Its position + 1 (the depth of a lock in its layer).
    depth: u32,
}

/// A profile with the shared tree it lives in, for its queries.
#[derive(Clone, Copy, Debug)]
pub struct ProfileRef<'a> {
    pub thread: ThreadId,
    pub epoch: u32,
    pub forks: u32,
    profile: &'a Profile,
    profiles: &'a Profiles,
}

impl<'a> ProfileRef<'a> {
    /// The nodes of the held locks, innermost first.
    fn nodes(&self) -> impl Iterator<Item = &'a Node> + 'a {
        let nodes = &self.profiles.nodes;
        std::iter::successors(
            (self.profile.stack != NONE).then(|| &nodes[self.profile.stack as usize]),
            move |n| (n.parent != NONE).then(|| &nodes[n.parent as usize]),
        )
    }

    /// The locks of the layer starting at `cell`, ascending.
    fn layer(&self, cell: u32) -> impl Iterator<Item = u32> + 'a {
        let cells = &self.profiles.cells;
        std::iter::successors((cell != NONE).then(|| cells[cell as usize]), move |c| {
            (c.1 != NONE).then(|| cells[c.1 as usize])
        })
        .map(|c| c.0)
    }

    /// The held locks, outermost first (the lockset).
    pub fn held(&self) -> std::vec::IntoIter<HeldLock> {
        let mut held: Vec<HeldLock> = self.nodes().map(|n| n.held).collect();
        held.reverse();
        held.into_iter()
    }

    pub fn holds(&self, l: LockId) -> bool {
        self.nodes().any(|n| n.held.lock == l)
    }

    /// `depth(m)`: in how many histories of held locks (outermost first) `m` is.
    pub fn depth_of(&self, m: LockId) -> u32 {
        self.nodes()
            .find(|n| {
                self.layer(n.layer)
                    .take_while(|&l| l <= m.0)
                    .any(|l| l == m.0)
            })
            .map_or(0, |n| n.depth)
    }

    /// The acquisition history as `(lock, depth)`, sorted by lock.
    pub fn history(&self) -> Vec<(LockId, u32)> {
        let mut history: Vec<(LockId, u32)> = self
            .nodes()
            .flat_map(|n| self.layer(n.layer).map(move |l| (LockId(l), n.depth)))
            .collect();
        history.sort_unstable();
        history
    }

    /// Whether the thread acquired `l`, a lock an ancestor held while forking towards it.
    pub fn acquired_guarded(&self, l: LockId) -> bool {
        self.profile.guarded_acquired.binary_search(&l.0).is_ok()
    }
}

/// A release that breaks nested locking: `released` is not the innermost held lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NonNested {
    pub thread: ThreadId,
    pub released: LockId,
    /// The locks acquired after `released` and still held, innermost first.
    pub still_held: Vec<LockId>,
}

/// The lock state of one thread as its events stream past.
#[derive(Clone, Debug, Default)]
pub struct ThreadLocks {
    /// Held locks with their re-entrancy counts, outermost first.
    stack: Vec<(HeldLock, u32)>,
    /// `lock -> depth`, unsorted; entries with depth 0 are dropped.
    history: Vec<(LockId, u32)>,
    epoch: u32,
    forks: u32,
    /// Locks an ancestor held while forking towards this thread.
    guards: Vec<LockId>,
    guarded_acquired: Vec<LockId>,
    /// The interned profile of the current state, if still valid.
    current: Option<Pid>,
    /// The profile before the one change since `current` was last valid, and that change: the
    /// next interning records the transition in `transitions`.
    missed: Option<(Pid, Step)>,
    /// Profile transitions seen so far: most lock events repeat one, and then the new profile
    /// is found without building and hashing it.
    transitions: FxHashMap<(Pid, Step), Pid>,
}

/// A change of a thread's profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Step {
    Acquire(LockId),
    Release(LockId),
    Fork,
    Epoch,
}

impl ThreadLocks {
    /// Acquires `l`; re-entrant acquisitions change nothing.
    pub fn acquire(&mut self, l: LockId) {
        if let Some(entry) = self.stack.iter_mut().find(|(h, _)| h.lock == l) {
            entry.1 += 1;
            return;
        }
        let depth = self.stack.len() as u32;
        match self.history.iter_mut().find(|(m, _)| *m == l) {
            Some(entry) => entry.1 = depth,
            None if depth > 0 => self.history.push((l, depth)),
            None => {}
        }
        self.history.retain(|&(_, d)| d > 0);
        self.stack.push((
            HeldLock {
                lock: l,
                forks_at_acquire: self.forks,
            },
            1,
        ));
        if self.guards.contains(&l) && !self.guarded_acquired.contains(&l) {
            self.guarded_acquired.push(l);
            self.guarded_acquired.sort_unstable();
        }
        self.changed(Step::Acquire(l));
    }

    /// Releases `l` (which the validator has checked is held). Returns the violation if `l`
    /// is not the innermost held lock; the lock is released anyway, and the histories of the
    /// locks above it are kept as if it had been released in order.
    pub fn release(&mut self, thread: ThreadId, l: LockId) -> Option<NonNested> {
        let pos = self.stack.iter().position(|(h, _)| h.lock == l)?;
        self.stack[pos].1 -= 1;
        if self.stack[pos].1 > 0 {
            return None;
        }
        let top = self.stack.len() - 1;
        let violation = (pos != top).then(|| NonNested {
            thread,
            released: l,
            still_held: self.stack[pos + 1..]
                .iter()
                .rev()
                .map(|(h, _)| h.lock)
                .collect(),
        });
        self.stack.remove(pos);
        // `m ∈ AH(l_a)` iff `a < depth(m)`: removing index `pos` shifts the locks above it down.
        for (_, d) in self.history.iter_mut() {
            if *d > pos as u32 {
                *d -= 1;
            }
        }
        if self.stack.is_empty() {
            self.history.clear();
        } else {
            self.history.retain(|&(_, d)| d > 0);
        }
        if violation.is_some() {
            // Not a function of the profile alone: never memoised.
            self.current = None;
            self.missed = None;
        } else {
            self.changed(Step::Release(l));
        }
        violation
    }

    /// The thread forks another.
    pub fn fork(&mut self) {
        self.forks += 1;
        self.epoch += 1;
        self.changed(Step::Fork);
    }

    /// A fork/join edge reaches the thread (it joins a thread, or is forked).
    pub fn new_epoch(&mut self) {
        self.epoch += 1;
        self.changed(Step::Epoch);
    }

    #[inline]
    fn changed(&mut self, step: Step) {
        match self.current {
            Some(p) => match self.transitions.get(&(p, step)) {
                Some(&q) => self.current = Some(q),
                None => {
                    self.current = None;
                    self.missed = Some((p, step));
                }
            },
            None => self.missed = None,
        }
    }

    /// The locks held now, outermost first.
    pub fn held(&self) -> impl Iterator<Item = LockId> + '_ {
        self.stack.iter().map(|(h, _)| h.lock)
    }

    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    pub fn forks(&self) -> u32 {
        self.forks
    }

    pub fn guards(&self) -> &[LockId] {
        &self.guards
    }

    /// Sets the locks guarded by the ancestors (at the fork that creates the thread).
    pub fn set_guards(&mut self, mut guards: Vec<LockId>) {
        guards.sort_unstable();
        guards.dedup();
        self.guards = guards;
        // Transitions depend on the guards.
        self.transitions.clear();
        self.current = None;
        self.missed = None;
    }

    /// The profile id of the current state, interning it if it changed.
    #[inline]
    pub fn pid(&mut self, thread: ThreadId, profiles: &mut Profiles) -> (Pid, bool) {
        match self.current {
            Some(p) => (p, false),
            None => {
                let profile = self.snapshot(thread, profiles);
                let p = profiles.intern(profile);
                self.current = Some(p);
                if let Some(from) = self.missed.take() {
                    self.transitions.insert(from, p);
                }
                (p, true)
            }
        }
    }

    fn snapshot(&self, thread: ThreadId, profiles: &mut Profiles) -> Profile {
        let mut history = self.history.clone();
        history.sort_unstable();
        let held: Vec<HeldLock> = self.stack.iter().map(|(h, _)| *h).collect();
        Profile {
            thread,
            epoch: self.epoch,
            forks: self.forks,
            stack: profiles.stack_node(&held, &history),
            guarded_acquired: self.guarded_acquired.iter().map(|l| l.0).collect(),
        }
    }

    /// The state of a thread that holds no lock and was forked under no guarded lock,
    /// reduced to what its next events depend on; `None` for any other state.
    pub fn at_rest(&self) -> Option<Rest> {
        (self.stack.is_empty()
            && self.history.is_empty()
            && self.guards.is_empty()
            && self.guarded_acquired.is_empty())
        .then_some(Rest {
            epoch: self.epoch,
            forks: self.forks,
        })
    }

    /// The state [`ThreadLocks::at_rest`] reduced to `rest` (without the memo of transitions,
    /// which is rebuilt as profiles are met again).
    pub fn from_rest(rest: Rest) -> ThreadLocks {
        ThreadLocks {
            epoch: rest.epoch,
            forks: rest.forks,
            ..ThreadLocks::default()
        }
    }
}

/// What the lock state of a thread at rest (no lock held, no guarded lock) comes down to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rest {
    pub epoch: u32,
    pub forks: u32,
}

/// The interned profiles of all threads, each stored once (its index in the set is its id),
/// and the shared tree of held-lock stacks they point into.
#[derive(Debug, Default)]
pub struct Profiles {
    all: IndexSet<Profile, FxBuildHasher>,
    /// Per profile, its number among the profiles of its thread (dense from 0): witness sets
    /// keep small per-thread numbers in bit masks.
    local: Vec<u32>,
    per_thread: Vec<u32>,
    /// Bytes of the profiles' guarded-lock lists.
    list_bytes: usize,
    /// Stack nodes, hash-consed: a profile shares the nodes of the locks held since its
    /// thread's previous profile.
    nodes: Vec<Node>,
    node_ids: FxHashMap<Node, u32>,
    /// Layer cells `(lock, next cell)`, layers sorted by lock and hash-consed: layers share
    /// their tails (under nested locking, a release merges the top layer into the one below,
    /// which mostly holds fewer and older, so smaller, locks).
    cells: Vec<(u32, u32)>,
    cell_ids: FxHashMap<(u32, u32), u32>,
}

impl Profiles {
    pub fn intern(&mut self, p: Profile) -> Pid {
        let t = p.thread.index();
        let lists = std::mem::size_of_val(&*p.guarded_acquired);
        let (id, new) = self.all.insert_full(p);
        if new {
            self.list_bytes += lists;
            if t >= self.per_thread.len() {
                self.per_thread.resize(t + 1, 0);
            }
            self.local.push(self.per_thread[t]);
            self.per_thread[t] += 1;
        }
        id as Pid
    }

    /// The node of the stack `held` (outermost first) with the acquisition history `history`
    /// (`(lock, depth)`, sorted by lock, `1 <= depth <= held.len()`), made if new.
    fn stack_node(&mut self, held: &[HeldLock], history: &[(LockId, u32)]) -> u32 {
        let mut layers = vec![NONE; held.len()];
        // From the largest lock down, so that each layer is built from its tail.
        for &(m, depth) in history.iter().rev() {
            let layer = &mut layers[depth as usize - 1];
            let key = (m.0, *layer);
            *layer = match self.cell_ids.get(&key) {
                Some(&c) => c,
                None => {
                    let c = self.cells.len() as u32;
                    self.cells.push(key);
                    self.cell_ids.insert(key, c);
                    c
                }
            };
        }
        let mut parent = NONE;
        for (a, (h, layer)) in held.iter().zip(layers).enumerate() {
            let node = Node {
                parent,
                held: *h,
                layer,
                depth: a as u32 + 1,
            };
            parent = match self.node_ids.get(&node) {
                Some(&n) => n,
                None => {
                    let n = self.nodes.len() as u32;
                    self.nodes.push(node);
                    self.node_ids.insert(node, n);
                    n
                }
            };
        }
        parent
    }

    #[inline]
    pub fn get(&self, id: Pid) -> ProfileRef<'_> {
        let profile = &self.all[id as usize];
        ProfileRef {
            thread: profile.thread,
            epoch: profile.epoch,
            forks: profile.forks,
            profile,
            profiles: self,
        }
    }

    /// Bytes held, roughly: each profile once with its index entry, the guarded locks it
    /// lists, and the shared stack nodes and layer cells with their indexes.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.all.capacity() * (size_of::<Profile>() + 2 * size_of::<usize>())
            + self.list_bytes
            + (self.local.capacity() + self.per_thread.capacity()) * 4
            + self.nodes.capacity() * size_of::<Node>()
            + self.node_ids.capacity() * (size_of::<(Node, u32)>() + 1)
            + self.cells.capacity() * size_of::<(u32, u32)>()
            + self.cell_ids.capacity() * (size_of::<((u32, u32), u32)>() + 1)
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    /// The number of profile `id` among its thread's profiles.
    #[inline]
    pub fn local(&self, id: Pid) -> u32 {
        self.local[id as usize]
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: ThreadId = ThreadId(0);

    #[test]
    fn histories_follow_the_definition() {
        // acq(A) acq(B) rel(B) acq(C): held A, C; AH(A) = {B, C}, AH(C) = {}.
        let (a, b, c) = (LockId(0), LockId(1), LockId(2));
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        s.acquire(a);
        s.acquire(b);
        assert_eq!(s.release(T, b), None);
        s.acquire(c);
        let (id, _) = s.pid(T, &mut ps);
        let p = ps.get(id);
        assert_eq!(p.held().map(|h| h.lock).collect::<Vec<_>>(), vec![a, c]);
        assert_eq!(p.depth_of(b), 1);
        assert_eq!(p.depth_of(c), 1);
        assert_eq!(p.depth_of(a), 0);
        // Releasing everything forgets the history.
        s.release(T, c);
        s.release(T, a);
        let (id, _) = s.pid(T, &mut ps);
        assert!(ps.get(id).history().is_empty());
    }

    #[test]
    fn reentrant_acquisitions_are_ignored() {
        let a = LockId(0);
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        s.acquire(a);
        let (p1, _) = s.pid(T, &mut ps);
        s.acquire(a);
        assert_eq!(s.pid(T, &mut ps), (p1, false));
        assert_eq!(s.release(T, a), None);
        assert_eq!(s.held().count(), 1);
    }

    proptest::proptest! {
        /// The shared tree of stacks against the thread's flat state: each interned profile
        /// reads back the held locks and history it was made from, and two states get one
        /// profile id exactly when they are equal (the ids the flat profiles had). Lock events
        /// re-enter, re-acquire, release out of order and fork.
        #[test]
        fn shared_stacks_read_back_the_flat_state(
            ops in proptest::collection::vec((0u8..4, 0u32..6), 0..80),
        ) {
            type Flat = (Vec<HeldLock>, Vec<(LockId, u32)>, u32, u32);
            let mut threads = [ThreadLocks::default(), ThreadLocks::default()];
            let mut ps = Profiles::default();
            let mut seen: Vec<(ThreadId, Flat, Pid)> = Vec::new();
            for (i, &(kind, l)) in ops.iter().enumerate() {
                let t = ThreadId(i as u32 % 2);
                let s = &mut threads[t.index()];
                let l = LockId(l);
                match kind {
                    0 | 1 => s.acquire(l),
                    2 => {
                        if s.held().any(|h| h == l) {
                            s.release(t, l);
                        }
                    }
                    _ => s.fork(),
                }
                let mut history = s.history.clone();
                history.sort_unstable();
                let flat: Flat = (
                    s.stack.iter().map(|(h, _)| *h).collect(),
                    history,
                    s.epoch,
                    s.forks,
                );
                let (id, _) = s.pid(t, &mut ps);
                let p = ps.get(id);
                proptest::prop_assert_eq!(p.held().collect::<Vec<_>>(), flat.0.clone());
                proptest::prop_assert_eq!(p.history(), flat.1.clone());
                for m in 0..6 {
                    let m = LockId(m);
                    let depth = flat.1.iter().find(|(l, _)| *l == m).map_or(0, |e| e.1);
                    proptest::prop_assert_eq!(p.depth_of(m), depth);
                    proptest::prop_assert_eq!(p.holds(m), flat.0.iter().any(|h| h.lock == m));
                }
                for (u, other, q) in &seen {
                    proptest::prop_assert_eq!(*u == t && *other == flat, *q == id);
                }
                seen.push((t, flat, id));
            }
        }
    }

    #[test]
    fn out_of_order_releases_are_reported() {
        let (a, b) = (LockId(0), LockId(1));
        let mut s = ThreadLocks::default();
        s.acquire(a);
        s.acquire(b);
        let v = s.release(T, a).expect("not nested");
        assert_eq!(v.released, a);
        assert_eq!(v.still_held, vec![b]);
    }
}
