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

/// The witness sets of one thread for one variable.
#[derive(Clone, Debug, Default)]
pub struct VarWitnesses {
    /// `[R, W]`: profile -> the earliest access under it.
    pub single: [Vec<(Pid, Occurrence)>; 2],
    /// `[k1][k2]`: profile -> the first sandwich found for it.
    pub sandwiched: [[Vec<(Pid, Sandwich)>; 2]; 2],
    /// The transaction the marks below belong to.
    txn: u64,
    /// First access of each kind in that transaction.
    first: [Option<Occurrence>; 2],
    /// `[k1][k2]`: the `e2` of the last validation of these kinds in that transaction.
    validated: [[u64; 2]; 2],
}

/// Profiles a thread went through in its current transaction, most recent first, with the
/// last event index at which each was current.
#[derive(Clone, Debug, Default)]
pub struct Recency {
    list: Vec<(Pid, u64)>,
}

impl Recency {
    pub fn clear(&mut self) {
        self.list.clear();
    }

    /// The thread's profile is `pid` at event `index`.
    #[inline]
    pub fn current(&mut self, pid: Pid, index: u64) {
        match self.list.first_mut() {
            Some(front) if front.0 == pid => front.1 = index,
            _ => {
                if let Some(i) = self.list.iter().position(|&(p, _)| p == pid) {
                    self.list.remove(i);
                }
                self.list.insert(0, (pid, index));
            }
        }
    }

    fn since(&self, threshold: u64) -> impl Iterator<Item = (Pid, u64)> + '_ {
        self.list
            .iter()
            .take_while(move |&&(_, at)| at >= threshold)
            .copied()
    }
}

fn add<T>(set: &mut Vec<(Pid, T)>, pid: Pid, what: T) {
    // The last entry is the most likely repeat.
    if set.last().is_some_and(|&(p, _)| p == pid) || set.iter().any(|&(p, _)| p == pid) {
        return;
    }
    set.push((pid, what));
}

impl VarWitnesses {
    /// An access of kind `kind` at `at`, under profile `pid`, in transaction `txn` (0: outside
    /// any transaction). `recency` is the thread's history *before* this event.
    #[inline]
    pub fn access(&mut self, kind: usize, at: Occurrence, pid: Pid, txn: u64, recency: &Recency) {
        add(&mut self.single[kind], pid, at);
        if txn == 0 {
            return;
        }
        if self.txn != txn {
            self.txn = txn;
            self.first = [None, None];
            self.validated = [[0; 2]; 2];
        }
        for k1 in [READ, WRITE] {
            let Some(e1) = self.first[k1] else { continue };
            let threshold = e1.index.max(self.validated[k1][kind]);
            let set = &mut self.sandwiched[k1][kind];
            for (p, e) in recency.since(threshold) {
                add(set, p, Sandwich { e1, e, e2: at });
            }
            self.validated[k1][kind] = at.index;
        }
        if self.first[kind].is_none() {
            self.first[kind] = Some(at);
        }
    }
}
