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

use super::sets::{SetId, Sets, EMPTY};
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

/// No stack node (the empty stack).
const NONE: u32 = u32::MAX;

/// The key of Phase I: what one thread's prefix looks like to the pairwise check.
///
/// The held locks and the acquisition history are one node of [`Profiles`]' shared tree of
/// stacks: a thread nesting n locks has about n profiles each holding up to n locks, and a
/// copy of its stack per profile would be quadratic in n. Each node is a held lock with its
/// *layer*, the locks of depth exactly its position + 1 (in its history and in no history of
/// a lock above it), a set of `sets`; nodes and layers are hash-consed, so a profile's
/// `stack` names its held locks and history exactly, and equal profiles are equal structs.
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
    /// Its layer.
    layer: SetId,
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
        let sets = &self.profiles.sets;
        self.nodes()
            .find(|n| sets.contains(n.layer, m.0))
            .map_or(0, |n| n.depth)
    }

    /// The acquisition history as `(lock, depth)`, sorted by lock.
    pub fn history(&self) -> Vec<(LockId, u32)> {
        let mut history: Vec<(LockId, u32)> = self
            .nodes()
            .flat_map(|n| {
                let sets = &self.profiles.sets;
                sets.keys(n.layer)
                    .into_iter()
                    .map(move |l| (LockId(l), n.depth))
            })
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
///
/// The acquisition history is kept as the profiles name it, one layer per held lock (see
/// [`Profile`]), and each lock event changes a layer or two by one lock, or merges one layer
/// into the next: a profile is made from the previous one's nodes, not from a copy of the
/// stack. That the node so made is the one a profile built from scratch would have, and so
/// that a state gets the same [`Pid`] as before, follows from two facts. (1) The layers are
/// the history: layer `a` is `{m : depth(m) = a + 1}` after every event, because each event
/// changes the depths as the definition does (see [`ThreadLocks::acquire`] and
/// [`ThreadLocks::release`]) and moves the locks between layers exactly so. (2) Layers and
/// nodes are hash-consed: a set has one trie (`sets`), and a node is keyed by its parent,
/// its lock, its layer and its depth, so equal stacks with equal histories are one node
/// whatever the order in which their nodes were made. A profile is then equal to another
/// exactly when their threads' states are, as it was when each profile was built from the
/// thread's flat state (the tests below hold the two to each other).
#[derive(Clone, Debug, Default)]
pub struct ThreadLocks {
    /// The held locks, outermost first.
    frames: Vec<Frame>,
    /// The frames from this one up have stale nodes (`frames.len()`: none).
    stale_from: usize,
    /// When each lock was last acquired, for the locks acquired since the thread last held
    /// none: `depth(m)` is the number of frames acquired before `m` was (a lock acquired
    /// while `l` is held is in `AH(l)`), which finds a lock's layer without a search.
    last_acquired: FxHashMap<LockId, u64>,
    /// Lock acquisitions so far (re-entrant ones aside): the times of `last_acquired`.
    clock: u64,
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

/// One held lock of a thread.
#[derive(Clone, Copy, Debug)]
struct Frame {
    held: HeldLock,
    /// Re-entrant acquisitions not released yet, this one included.
    count: u32,
    /// The thread's `clock` when it acquired the lock.
    acquired_at: u64,
    /// The locks of depth exactly this frame's position + 1.
    layer: SetId,
    /// The stack node of the frames up to this one (valid below `stale_from`).
    node: u32,
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
    /// The position of `l` among the held frames, if held.
    fn position(&self, l: LockId) -> Option<usize> {
        let at = *self.last_acquired.get(&l)?;
        // A held lock's frame is the one of its last acquisition.
        self.frames
            .binary_search_by_key(&at, |f| f.acquired_at)
            .ok()
    }

    /// Acquires `l`; re-entrant acquisitions change nothing.
    ///
    /// `l` enters the history of every held lock: its depth becomes the number of held locks,
    /// so it leaves its layer for the innermost one.
    pub fn acquire(&mut self, l: LockId, profiles: &mut Profiles) {
        if let Some(pos) = self.position(l) {
            self.frames[pos].count += 1;
            return;
        }
        let depth = self.frames.len();
        let old = self
            .last_acquired
            .get(&l)
            .map_or(0, |&at| self.frames.partition_point(|f| f.acquired_at < at));
        if old != depth {
            if old > 0 {
                let layer = &mut self.frames[old - 1].layer;
                *layer = profiles.sets.remove(*layer, l.0);
                self.stale_from = self.stale_from.min(old - 1);
            }
            if depth > 0 {
                let layer = &mut self.frames[depth - 1].layer;
                *layer = profiles.sets.insert(*layer, l.0);
                self.stale_from = self.stale_from.min(depth - 1);
            }
        }
        self.clock += 1;
        self.last_acquired.insert(l, self.clock);
        self.frames.push(Frame {
            held: HeldLock {
                lock: l,
                forks_at_acquire: self.forks,
            },
            count: 1,
            acquired_at: self.clock,
            layer: EMPTY,
            node: NONE,
        });
        self.stale_from = self.stale_from.min(depth);
        if self.guards.contains(&l) && !self.guarded_acquired.contains(&l) {
            self.guarded_acquired.push(l);
            self.guarded_acquired.sort_unstable();
        }
        self.changed(Step::Acquire(l));
    }

    /// Releases `l` (which the validator has checked is held). Returns the violation if `l`
    /// is not the innermost held lock; the lock is released anyway, and the histories of the
    /// locks above it are kept as if it had been released in order.
    ///
    /// `m ∈ AH(l_a)` iff `a < depth(m)`: removing the frame at `pos` lowers by one the depth
    /// of every lock deeper than `pos`. The layers above `pos` move down with their frames,
    /// and `pos`'s own layer joins the one below (or leaves the history, at depth 0).
    pub fn release(
        &mut self,
        thread: ThreadId,
        l: LockId,
        profiles: &mut Profiles,
    ) -> Option<NonNested> {
        let pos = self.position(l)?;
        self.frames[pos].count -= 1;
        if self.frames[pos].count > 0 {
            return None;
        }
        let top = self.frames.len() - 1;
        let violation = (pos != top).then(|| NonNested {
            thread,
            released: l,
            still_held: self.frames[pos + 1..]
                .iter()
                .rev()
                .map(|f| f.held.lock)
                .collect(),
        });
        let frame = self.frames.remove(pos);
        if pos > 0 {
            let below = &mut self.frames[pos - 1].layer;
            *below = profiles.sets.union(*below, frame.layer);
            self.stale_from = self.stale_from.min(pos - 1);
        } else {
            self.stale_from = self.stale_from.min(pos);
        }
        self.stale_from = self.stale_from.min(self.frames.len());
        if self.frames.is_empty() {
            // Every depth is 0: the history is empty.
            self.last_acquired.clear();
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
        self.frames.iter().map(|f| f.held.lock)
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

    /// The profile of the current state: the stale nodes made again from the lowest one up
    /// (each event since the last profile made at most the frames it pushed or changed
    /// stale, but for a lock that moves up from a lower layer, or a non-nested release).
    fn snapshot(&mut self, thread: ThreadId, profiles: &mut Profiles) -> Profile {
        let mut parent = match self.stale_from {
            0 => NONE,
            a => self.frames[a - 1].node,
        };
        for (a, frame) in self.frames.iter_mut().enumerate().skip(self.stale_from) {
            parent = profiles.node(Node {
                parent,
                held: frame.held,
                layer: frame.layer,
                depth: a as u32 + 1,
            });
            frame.node = parent;
        }
        self.stale_from = self.frames.len();
        Profile {
            thread,
            epoch: self.epoch,
            forks: self.forks,
            stack: parent,
            guarded_acquired: self.guarded_acquired.iter().map(|l| l.0).collect(),
        }
    }

    /// Bytes held beside the struct, roughly: the frames, the acquisition times and the
    /// memo of transitions.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.frames.capacity() * size_of::<Frame>()
            + self.last_acquired.capacity() * (size_of::<(LockId, u64)>() + 1)
            + self.transitions.capacity() * (size_of::<((Pid, Step), Pid)>() + 1)
            + (self.guards.capacity() + self.guarded_acquired.capacity()) * size_of::<LockId>()
    }

    /// The state of a thread that holds no lock and was forked under no guarded lock,
    /// reduced to what its next events depend on; `None` for any other state.
    pub fn at_rest(&self) -> Option<Rest> {
        (self.frames.is_empty() && self.guards.is_empty() && self.guarded_acquired.is_empty())
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
    /// The layers, hash-consed sets of locks.
    sets: Sets,
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

    /// The stack node `node`, made if new.
    fn node(&mut self, node: Node) -> u32 {
        let next = self.nodes.len() as u32;
        let n = *self.node_ids.entry(node).or_insert(next);
        if n == next {
            self.nodes.push(node);
        }
        n
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
    /// lists, and the shared stack nodes and layers with their indexes.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.all.capacity() * (size_of::<Profile>() + 2 * size_of::<usize>())
            + self.list_bytes
            + (self.local.capacity() + self.per_thread.capacity()) * 4
            + self.nodes.capacity() * size_of::<Node>()
            + self.node_ids.capacity() * (size_of::<(Node, u32)>() + 1)
            + self.sets.held_bytes()
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

    /// A thread's lock state as the definition reads, flat: the held locks with their
    /// re-entrancy counts, and `lock -> depth` for the locks of depth at least 1, changed as
    /// each event changes them (the representation profiles were once built from).
    #[derive(Clone, Debug, Default)]
    struct Flat {
        stack: Vec<(HeldLock, u32)>,
        history: Vec<(LockId, u32)>,
        forks: u32,
    }

    impl Flat {
        fn acquire(&mut self, l: LockId) {
            if let Some(entry) = self.stack.iter_mut().find(|(h, _)| h.lock == l) {
                entry.1 += 1;
                return;
            }
            // Every held lock gets `l` in its history.
            let depth = self.stack.len() as u32;
            self.history.retain(|&(m, _)| m != l);
            if depth > 0 {
                self.history.push((l, depth));
            }
            let forks_at_acquire = self.forks;
            self.stack.push((
                HeldLock {
                    lock: l,
                    forks_at_acquire,
                },
                1,
            ));
        }

        fn release(&mut self, l: LockId) {
            let Some(pos) = self.stack.iter().position(|(h, _)| h.lock == l) else {
                return;
            };
            self.stack[pos].1 -= 1;
            if self.stack[pos].1 > 0 {
                return;
            }
            self.stack.remove(pos);
            // `l_pos`'s history goes with it: the locks in it are in one history fewer.
            for (_, d) in self.history.iter_mut() {
                if *d > pos as u32 {
                    *d -= 1;
                }
            }
            self.history.retain(|&(_, d)| d > 0);
        }

        fn held(&self) -> Vec<HeldLock> {
            self.stack.iter().map(|(h, _)| *h).collect()
        }

        fn history(&self) -> Vec<(LockId, u32)> {
            let mut history = self.history.clone();
            history.sort_unstable();
            history
        }
    }

    #[test]
    fn histories_follow_the_definition() {
        // acq(A) acq(B) rel(B) acq(C): held A, C; AH(A) = {B, C}, AH(C) = {}.
        let (a, b, c) = (LockId(0), LockId(1), LockId(2));
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        s.acquire(a, &mut ps);
        s.acquire(b, &mut ps);
        assert_eq!(s.release(T, b, &mut ps), None);
        s.acquire(c, &mut ps);
        let (id, _) = s.pid(T, &mut ps);
        let p = ps.get(id);
        assert_eq!(p.held().map(|h| h.lock).collect::<Vec<_>>(), vec![a, c]);
        assert_eq!(p.depth_of(b), 1);
        assert_eq!(p.depth_of(c), 1);
        assert_eq!(p.depth_of(a), 0);
        // Releasing everything forgets the history.
        s.release(T, c, &mut ps);
        s.release(T, a, &mut ps);
        let (id, _) = s.pid(T, &mut ps);
        assert!(ps.get(id).history().is_empty());
    }

    #[test]
    fn reentrant_acquisitions_are_ignored() {
        let a = LockId(0);
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        s.acquire(a, &mut ps);
        let (p1, _) = s.pid(T, &mut ps);
        s.acquire(a, &mut ps);
        assert_eq!(s.pid(T, &mut ps), (p1, false));
        assert_eq!(s.release(T, a, &mut ps), None);
        assert_eq!(s.held().count(), 1);
    }

    #[test]
    fn a_lock_taken_again_deeper_moves_to_the_innermost_layer() {
        // acq(A) acq(B) rel(B) acq(C) acq(D) acq(B): B leaves AH(A) only for AH(A), AH(C),
        // AH(D): depth 1 -> 3.
        let [a, b, c, d] = [0, 1, 2, 3].map(LockId);
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        for (l, acquire) in [(a, true), (b, true), (b, false), (c, true), (d, true)] {
            if acquire {
                s.acquire(l, &mut ps);
            } else {
                s.release(T, l, &mut ps);
            }
        }
        let (id, _) = s.pid(T, &mut ps);
        assert_eq!(ps.get(id).depth_of(b), 1);
        s.acquire(b, &mut ps);
        let (id, _) = s.pid(T, &mut ps);
        let p = ps.get(id);
        assert_eq!(p.history(), vec![(b, 3), (c, 1), (d, 2)]);
        // Released in order, B stays in the histories of the locks still held.
        s.release(T, b, &mut ps);
        s.release(T, d, &mut ps);
        let (id, _) = s.pid(T, &mut ps);
        assert_eq!(ps.get(id).history(), vec![(b, 2), (c, 1), (d, 2)]);
    }

    proptest::proptest! {
        /// The profiles made event by event against the thread's flat state: each interned
        /// profile reads back the held locks and history of the definition, and two states
        /// get one profile id exactly when they are equal. Lock events re-enter, re-acquire,
        /// release out of order and fork, and a profile is taken after some events only (the
        /// nodes made stale in between are made again at once).
        #[test]
        fn profiles_read_back_the_flat_state(
            ops in proptest::collection::vec((0u8..4, 0u32..6, proptest::bool::ANY), 0..120),
        ) {
            type State = (Vec<HeldLock>, Vec<(LockId, u32)>, u32, u32);
            let mut threads = [ThreadLocks::default(), ThreadLocks::default()];
            let mut flats = [Flat::default(), Flat::default()];
            let mut ps = Profiles::default();
            let mut seen: Vec<(ThreadId, State, Pid)> = Vec::new();
            for (i, &(kind, l, look)) in ops.iter().enumerate() {
                let t = ThreadId(i as u32 % 2);
                let (s, flat) = (&mut threads[t.index()], &mut flats[t.index()]);
                let l = LockId(l);
                match kind {
                    0 | 1 => {
                        s.acquire(l, &mut ps);
                        flat.acquire(l);
                    }
                    2 => {
                        if s.held().any(|h| h == l) {
                            let nested = s.held().last() == Some(l);
                            proptest::prop_assert_eq!(
                                s.release(t, l, &mut ps).is_none(),
                                nested || flat.stack.iter().any(|(h, n)| h.lock == l && *n > 1)
                            );
                            flat.release(l);
                        }
                    }
                    _ => {
                        s.fork();
                        flat.forks += 1;
                    }
                }
                proptest::prop_assert_eq!(
                    s.held().collect::<Vec<_>>(),
                    flat.stack.iter().map(|(h, _)| h.lock).collect::<Vec<_>>()
                );
                if !look {
                    continue;
                }
                let state: State = (flat.held(), flat.history(), s.epoch, s.forks);
                let (id, _) = s.pid(t, &mut ps);
                let p = ps.get(id);
                proptest::prop_assert_eq!(p.held().collect::<Vec<_>>(), state.0.clone());
                proptest::prop_assert_eq!(p.history(), state.1.clone());
                for m in 0..6 {
                    let m = LockId(m);
                    let depth = state.1.iter().find(|(l, _)| *l == m).map_or(0, |e| e.1);
                    proptest::prop_assert_eq!(p.depth_of(m), depth);
                    proptest::prop_assert_eq!(p.holds(m), state.0.iter().any(|h| h.lock == m));
                }
                for (u, other, q) in &seen {
                    proptest::prop_assert_eq!(*u == t && *other == state, *q == id);
                }
                seen.push((t, state, id));
            }
        }
    }

    #[test]
    fn out_of_order_releases_are_reported() {
        let (a, b) = (LockId(0), LockId(1));
        let mut s = ThreadLocks::default();
        let mut ps = Profiles::default();
        s.acquire(a, &mut ps);
        s.acquire(b, &mut ps);
        let v = s.release(T, a, &mut ps).expect("not nested");
        assert_eq!(v.released, a);
        assert_eq!(v.still_held, vec![b]);
    }
}
