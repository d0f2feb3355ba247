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
//!   `m` is stored with `depth(m)`, the number of held locks whose history contains it
//!   (`m ∈ AH(l_a)` iff `a < depth(m)`, 0-based from the outermost);
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

/// The key of Phase I: what one thread's prefix looks like to the pairwise check.
///
/// A trace of a thread per request has a few profiles per thread, hundreds of thousands in
/// all, so the three lock lists share one allocation (none when all are empty): `locks` is
/// `[k, h, (lock, forks at acquire) x k, (lock, depth) x h, guarded acquired...]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    pub thread: ThreadId,
    pub epoch: u32,
    pub forks: u32,
    locks: Box<[u32]>,
}

impl Profile {
    /// The profile of `thread` holding `held` (outermost first), with the acquisition history
    /// `history` (`(lock, depth)`, sorted by lock, `depth >= 1`: `lock` is in the history of
    /// the `depth` outermost held locks) and the guarded locks `guarded_acquired` (sorted).
    pub fn new(
        thread: ThreadId,
        held: &[HeldLock],
        history: &[(LockId, u32)],
        epoch: u32,
        forks: u32,
        guarded_acquired: &[LockId],
    ) -> Profile {
        let locks: Box<[u32]> =
            if held.is_empty() && history.is_empty() && guarded_acquired.is_empty() {
                Box::default()
            } else {
                [held.len() as u32, history.len() as u32]
                    .into_iter()
                    .chain(held.iter().flat_map(|h| [h.lock.0, h.forks_at_acquire]))
                    .chain(history.iter().flat_map(|&(l, d)| [l.0, d]))
                    .chain(guarded_acquired.iter().map(|l| l.0))
                    .collect()
            };
        Profile {
            thread,
            epoch,
            forks,
            locks,
        }
    }

    fn lengths(&self) -> (usize, usize) {
        match *self.locks {
            [k, h, ..] => (k as usize, h as usize),
            _ => (0, 0),
        }
    }

    /// The held locks, outermost first (the lockset).
    #[inline]
    pub fn held(&self) -> impl ExactSizeIterator<Item = HeldLock> + Clone + '_ {
        let (k, _) = self.lengths();
        self.locks
            .get(2..2 + 2 * k)
            .unwrap_or(&[])
            .chunks_exact(2)
            .map(|c| HeldLock {
                lock: LockId(c[0]),
                forks_at_acquire: c[1],
            })
    }

    /// The acquisition history as `(lock, depth)`, sorted by lock.
    fn history(&self) -> &[u32] {
        let (k, h) = self.lengths();
        self.locks.get(2 + 2 * k..2 + 2 * k + 2 * h).unwrap_or(&[])
    }

    /// Whether the thread acquired `l`, a lock an ancestor held while forking towards it.
    pub fn acquired_guarded(&self, l: LockId) -> bool {
        let (k, h) = self.lengths();
        self.locks
            .get(2 + 2 * k + 2 * h..)
            .unwrap_or(&[])
            .binary_search(&l.0)
            .is_ok()
    }

    /// `depth(m)`: in how many histories of held locks (outermost first) `m` is.
    #[inline]
    pub fn depth_of(&self, m: LockId) -> u32 {
        let history = self.history();
        let (mut lo, mut hi) = (0, history.len() / 2);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match history[2 * mid].cmp(&m.0) {
                std::cmp::Ordering::Equal => return history[2 * mid + 1],
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        0
    }

    pub fn holds(&self, l: LockId) -> bool {
        self.held().any(|h| h.lock == l)
    }

    /// Bytes of the lock lists.
    fn list_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.locks)
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
                let p = profiles.intern(self.snapshot(thread));
                self.current = Some(p);
                if let Some(from) = self.missed.take() {
                    self.transitions.insert(from, p);
                }
                (p, true)
            }
        }
    }

    fn snapshot(&self, thread: ThreadId) -> Profile {
        let mut history = self.history.clone();
        history.sort_unstable();
        let held: Vec<HeldLock> = self.stack.iter().map(|(h, _)| *h).collect();
        Profile::new(
            thread,
            &held,
            &history,
            self.epoch,
            self.forks,
            &self.guarded_acquired,
        )
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

/// The interned profiles of all threads, each stored once (its index in the set is its id).
#[derive(Debug, Default)]
pub struct Profiles {
    all: IndexSet<Profile, FxBuildHasher>,
    /// Per profile, its number among the profiles of its thread (dense from 0): witness sets
    /// keep small per-thread numbers in bit masks.
    local: Vec<u32>,
    per_thread: Vec<u32>,
    /// Bytes of the profiles' lock lists.
    list_bytes: usize,
}

impl Profiles {
    pub fn intern(&mut self, p: Profile) -> Pid {
        let t = p.thread.index();
        let lists = p.list_bytes();
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

    #[inline]
    pub fn get(&self, id: Pid) -> &Profile {
        &self.all[id as usize]
    }

    /// Bytes held, roughly: each profile once with its index entry, and the locks it lists.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.all.capacity() * (size_of::<Profile>() + 2 * size_of::<usize>())
            + self.list_bytes
            + (self.local.capacity() + self.per_thread.capacity()) * 4
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
