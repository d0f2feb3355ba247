//! Vector clocks and epochs.
//!
//! Written by hand rather than taken from a crate: the crates that exist are built for
//! distributed-systems message stamping (string process ids, maps), while the analyses here need
//! dense `u32` components indexed by `ThreadId`, in-place joins without allocation, and
//! FastTrack's epoch comparisons.

use hindsight_trace::ThreadId;

/// A vector clock over the threads of a trace. Components past the end are zero, so a clock
/// need not know how many threads there will be.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VectorClock(Vec<u32>);

impl VectorClock {
    pub fn new() -> VectorClock {
        VectorClock(Vec::new())
    }

    /// The clock of a thread that has done nothing yet: its own component is 1, so that its
    /// first events are not mistaken for "nothing" (0).
    pub fn for_new_thread(t: ThreadId) -> VectorClock {
        let mut c = VectorClock::new();
        c.set(t, 1);
        c
    }

    #[inline]
    pub fn get(&self, t: ThreadId) -> u32 {
        self.0.get(t.index()).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set(&mut self, t: ThreadId, value: u32) {
        if t.index() >= self.0.len() {
            self.0.resize(t.index() + 1, 0);
        }
        self.0[t.index()] = value;
    }

    #[inline]
    pub fn increment(&mut self, t: ThreadId) {
        let v = self.get(t);
        self.set(t, v + 1);
    }

    /// Pointwise maximum, in place.
    #[inline]
    pub fn join(&mut self, other: &VectorClock) {
        join_into(&mut self.0, &other.0);
    }

    /// `self ⊑ other`: every component at most the other's.
    pub fn leq(&self, other: &VectorClock) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, &a)| a <= other.get(ThreadId(i as u32)))
    }

    /// Copies `other` into `self`, reusing the allocation.
    #[inline]
    pub fn copy_from(&mut self, other: &VectorClock) {
        self.0.clone_from(&other.0);
    }

    pub fn components(&self) -> &[u32] {
        &self.0
    }
}

/// Pointwise maximum of two clocks held as plain component vectors, in place: `into` grows to
/// `other`'s length, missing components being zero. The one join every clock of the workspace
/// uses, [`VectorClock`]s and the `Vec<u32>` clocks of callers that index them otherwise.
#[inline]
pub fn join_into(into: &mut Vec<u32>, other: &[u32]) {
    if other.len() > into.len() {
        into.resize(other.len(), 0);
    }
    for (a, &b) in into.iter_mut().zip(other) {
        *a = (*a).max(b);
    }
}

/// FastTrack's epoch `c@t`: the `c`-th epoch of thread `t`. An event in that epoch happens
/// before an event whose clock `C` has `C[t] >= c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Epoch {
    pub thread: ThreadId,
    pub clock: u32,
}

impl Epoch {
    /// Whether an event of this epoch happens before (or is) an event with clock `vc`.
    #[inline]
    pub fn happens_before(self, vc: &VectorClock) -> bool {
        self.clock <= vc.get(self.thread)
    }
}
