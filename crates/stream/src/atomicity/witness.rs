//! Phase I of the CAV'09 algorithm (Section 4): per thread `T` and variable `x`, the witness
//! sets `R[T, x]` and `W[T, x]` (reads and writes of `x`, candidates for the event `f` of the
//! other thread) and the sandwiched sets (candidates for the event `e` with `e1 <= e < e2`,
//! `e1`, `e2` accesses of `x` in one transaction of `T`), each keeping one representative per
//! profile (lockset and acquisition history, see `nesting`).
//!
//! The paper's `WW[T, x]` and `AA[T, x]` are kept split by the kinds of `e1` and `e2`
//! (`RR`, `RW`, `WR`, `WW`), so that Phase II can name the pattern of each violation: `WW`
//! paired with a read of `T'` is Write-Read-Write, each of the four paired with a write of `T'`
//! gives RWR, RWW, WWR, WWW.
//!
//! Streaming: within a transaction each thread keeps the profiles it went through, most recent
//! first, with the last event at which each was current. When an access `e2` of `x` comes, the
//! profiles current at some event at or after the first access `e1` of the right kind, and not
//! already looked at by an earlier `e2` of the same kinds, are the new witnesses. Each profile
//! is examined once per `(variable, kinds)` and each time it became current again, so Phase I is
//! linear in the trace for a bounded number of profiles per transaction.
//!
//! This module knows nothing of pairing, findings or output.

use super::nesting::Pid;
use hindsight_trace::LocId;
use rustc_hash::FxHashMap;

/// An event a finding can point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub index: u64,
    pub loc: Option<LocId>,
}

/// A representative of a sandwiched witness class: `e1 <= e < e2`, `e` current under the
/// class's profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sandwich {
    pub e1: Occurrence,
    pub e: u64,
    pub e2: Occurrence,
}

/// Access kinds, as indices.
pub const READ: usize = 0;
pub const WRITE: usize = 1;

/// The witness sets of one thread for one variable (touched only when they grow). There is
/// one per thread and variable it accessed, kept to the end for Phase II, most of them with
/// one or two entries (a thread per request): the four sandwiched sets share one list, and
/// a list is allocated at its exact size until it has a second entry.
#[derive(Clone, Debug, Default)]
pub struct VarWitnesses {
    /// `[R, W]`: profile -> the earliest access under it.
    pub single: [Vec<(Pid, Occurrence)>; 2],
    /// `(k1, k2)` and profile -> the first sandwich found for it.
    sandwiched: Vec<((u8, u8), Pid, Sandwich)>,
}

impl VarWitnesses {
    /// Whether some transaction of the thread holds two accesses around a witness: without
    /// one, the thread is never the `T` of a violation on this variable.
    pub fn has_sandwiched(&self) -> bool {
        !self.sandwiched.is_empty()
    }

    /// The sandwiched set of kinds `k1`, `k2`, in the order found.
    pub fn sandwiched(&self, k1: usize, k2: usize) -> impl Iterator<Item = (Pid, Sandwich)> + '_ {
        let kinds = (k1 as u8, k2 as u8);
        self.sandwiched
            .iter()
            .filter(move |s| s.0 == kinds)
            .map(|&(_, p, s)| (p, s))
    }

    /// Adds the sandwich `s` of kinds `k1`, `k2` under `pid` unless the set has one; returns
    /// the bytes the list grew by.
    fn add_sandwich(&mut self, k1: usize, k2: usize, pid: Pid, s: Sandwich) -> usize {
        let kinds = (k1 as u8, k2 as u8);
        if self
            .sandwiched
            .iter()
            .any(|&(k, p, _)| p == pid && k == kinds)
        {
            return 0;
        }
        push_counted(&mut self.sandwiched, (kinds, pid, s))
    }

    /// Gives back the room the sets grew into and will not need (their thread has ended);
    /// returns the bytes given back.
    pub fn shrink_to_fit(&mut self) -> usize {
        let before = self.heap_bytes();
        for s in &mut self.single {
            s.shrink_to_fit();
        }
        self.sandwiched.shrink_to_fit();
        before - self.heap_bytes()
    }

    /// Bytes held outside the struct itself.
    fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.single.iter().map(Vec::capacity).sum::<usize>() * size_of::<(Pid, Occurrence)>()
            + self.sandwiched.capacity() * size_of::<((u8, u8), Pid, Sandwich)>()
    }
}

/// Pushes `x`, allocating a list's first entry at its exact size; returns the bytes the list
/// grew by.
fn push_counted<T>(list: &mut Vec<T>, x: T) -> usize {
    let before = list.capacity();
    if before == 0 {
        list.reserve_exact(1);
    }
    list.push(x);
    (list.capacity() - before) * std::mem::size_of::<T>()
}

const NO_INDEX: u64 = u64::MAX;

/// What every access of one thread to one variable reads and writes: the transaction marks,
/// and the profiles last added to each set, so that the common access (same profile as last
/// time) is decided in one cache line without touching the sets.
#[derive(Clone, Copy, Debug)]
pub struct Marks {
    /// The transaction the marks below belong to.
    txn: u64,
    /// First access of each kind in that transaction.
    first: [u64; 2],
    /// `[k1][k2]`: the `e2` of the last validation of these kinds in that transaction.
    validated: [[u64; 2]; 2],
    /// Profiles (by per-thread number, below 64) already in each set: the common access
    /// finds its profile there and touches nothing else.
    single_mask: [u64; 2],
    sandwiched_mask: [[u64; 2]; 2],
    /// The first access of each kind in that transaction, for reports.
    first_loc: [Option<LocId>; 2],
}

impl Default for Marks {
    fn default() -> Marks {
        Marks {
            txn: 0,
            first: [NO_INDEX; 2],
            validated: [[0; 2]; 2],
            single_mask: [0; 2],
            sandwiched_mask: [[0; 2]; 2],
            first_loc: [None; 2],
        }
    }
}

/// Profiles a thread went through in its current transaction, most recent first, with the
/// last event index at which each was current.
///
/// Kept as a log in the order the profiles became current, a profile's earlier entry dead
/// once it is current again: the live entries read from the end are the list most recent
/// first, and a profile that becomes current costs an append, not a move to the front of the
/// list (a deep nest goes through a profile per lock event in one transaction: moving each
/// to the front was quadratic in the depth). The log is compacted once its dead entries
/// outnumber the live ones, so it holds at most twice the profiles a list would.
#[derive(Clone, Debug, Default)]
pub struct Recency {
    log: Vec<Current>,
    /// Per profile in the log, its live entry.
    live: FxHashMap<Pid, u32>,
}

/// A profile that became current, and the last event at which it was.
#[derive(Clone, Copy, Debug)]
struct Current {
    pid: Pid,
    /// Its number among its thread's profiles; `DEAD` once it became current again later.
    local: u32,
    /// The last event at which it was current (then).
    at: u64,
}

const DEAD: u32 = u32::MAX;

impl Recency {
    pub fn clear(&mut self) {
        self.log.clear();
        self.live.clear();
    }

    /// The thread's profile is `pid` at event `index`.
    #[inline]
    pub fn current(&mut self, (pid, local): (Pid, u32), index: u64) {
        if let Some(last) = self.log.last_mut() {
            if last.pid == pid {
                last.at = index;
                return;
            }
        }
        if let Some(earlier) = self.live.insert(pid, self.log.len() as u32) {
            self.log[earlier as usize].local = DEAD;
        }
        self.log.push(Current {
            pid,
            local,
            at: index,
        });
        if self.log.len() > 2 * self.live.len() + 8 {
            self.compact();
        }
    }

    /// Drops the dead entries.
    fn compact(&mut self) {
        self.log.retain(|c| c.local != DEAD);
        for (i, c) in self.log.iter().enumerate() {
            self.live.insert(c.pid, i as u32);
        }
    }

    /// The profiles current at some event at or after `threshold`, most recent first.
    fn since(&self, threshold: u64) -> impl Iterator<Item = (Pid, u32, u64)> + '_ {
        // The log is in the order of the events at which its profiles became current, so an
        // entry's `at` is below the next entry's: the walk stops at the first entry before
        // `threshold`, and passes over the dead entries after it only.
        self.log
            .iter()
            .rev()
            .take_while(move |c| c.at >= threshold)
            .filter(|c| c.local != DEAD)
            .map(|c| (c.pid, c.local, c.at))
    }

    /// Bytes held outside the struct.
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        self.log.capacity() * size_of::<Current>()
            + self.live.capacity() * (size_of::<(Pid, u32)>() + 1)
    }
}

/// Whether the profile numbered `local` is known to be in the set, marking it if it can be.
/// `false` means "add it" (`add` still checks for profiles numbered 64 or more).
#[inline(always)]
fn seen(mask: &mut u64, local: u32) -> bool {
    if local >= 64 {
        return false;
    }
    let bit = 1u64 << local;
    let was = *mask & bit != 0;
    *mask |= bit;
    was
}

/// Adds `pid`'s representative unless the set has one; returns the bytes the set grew by.
fn add<T>(set: &mut Vec<(Pid, T)>, pid: Pid, what: T) -> usize {
    // The last entry is the most likely repeat.
    if set.last().is_some_and(|&(p, _)| p == pid) || set.iter().any(|&(p, _)| p == pid) {
        return 0;
    }
    push_counted(set, (pid, what))
}

impl Marks {
    /// An access of kind `kind` at `at`, under profile `pid`, in transaction `txn` (0: outside
    /// any transaction). `recency` is the thread's history *before* this event; `sets` are
    /// touched only if a set grows. Returns the bytes the sets grew by.
    #[inline]
    pub fn access(
        &mut self,
        kind: usize,
        at: Occurrence,
        (pid, local): (Pid, u32),
        txn: u64,
        recency: &Recency,
        sets: &mut VarWitnesses,
    ) -> usize {
        let mut grown = 0;
        if !seen(&mut self.single_mask[kind], local) {
            grown += add(&mut sets.single[kind], pid, at);
        }
        if txn == 0 {
            return grown;
        }
        if self.txn != txn {
            self.txn = txn;
            self.first = [NO_INDEX; 2];
            self.validated = [[0; 2]; 2];
        }
        for k1 in [READ, WRITE] {
            let first = self.first[k1];
            if first == NO_INDEX {
                continue;
            }
            let threshold = first.max(self.validated[k1][kind]);
            for (p, l, e) in recency.since(threshold) {
                if !seen(&mut self.sandwiched_mask[k1][kind], l) {
                    let e1 = Occurrence {
                        index: first,
                        loc: self.first_loc[k1],
                    };
                    grown += sets.add_sandwich(k1, kind, p, Sandwich { e1, e, e2: at });
                }
            }
            self.validated[k1][kind] = at.index;
        }
        if self.first[kind] == NO_INDEX {
            self.first[kind] = at.index;
            self.first_loc[kind] = at.loc;
        }
        grown
    }
}
