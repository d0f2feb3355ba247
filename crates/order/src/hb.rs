//! The happens-before pass, in FastTrack's style: a clock per thread, lock and message; a
//! thread's own component advances only after it makes its current epoch visible to others
//! (release, fork, send, and being joined), so that accesses between two such points share an
//! epoch.

use crate::clock::{Epoch, VectorClock, SHARE_DENSE_FROM};
use hindsight_trace::{Event, Op, ThreadId};

/// Streams events in trace order. For each event call [`HappensBefore::before`], read the
/// event's clock with [`HappensBefore::clock`], then call [`HappensBefore::after`].
///
/// The semantics is the usual one, applied literally to whatever the log says (RAPID's real
/// traces break the papers' models, and this keeps RAPID's answers on them):
/// - an acquire joins the clock of the lock's last release (a lock acquired while another thread
///   still holds it in an out-of-order log is ordered after that lock's last release only);
/// - a fork orders the parent's earlier events before the child's *later* events (the child's
///   events logged before the fork stay unordered with the parent);
/// - a join orders the child's earlier events before the parent's later ones (the child's events
///   logged after the join stay unordered with them);
/// - a receive joins the clock of the latest send of that message id;
/// - `req`, `begin`, `end`, reads, writes and calls order nothing.
///
/// [`HappensBefore::without_lock_edges`] leaves out release -> acquire: what remains orders
/// events in every schedule of the run, while a lock edge only records which critical section
/// happened to go first.
pub struct HappensBefore {
    threads: Vec<VectorClock>,
    locks: Vec<VectorClock>,
    messages: Vec<VectorClock>,
    /// Acquires and releases order nothing.
    skip_lock_edges: bool,
    /// A thread that forks a thread of this index or above keeps its clock's dense prefix in
    /// the shared tree ([`VectorClock::share_dense`]), and so do the clocks joined with it:
    /// in a trace of many threads a forked thread then shares its parent's knowledge of the
    /// first threads instead of copying it.
    share_dense_from: usize,
}

impl Default for HappensBefore {
    fn default() -> HappensBefore {
        HappensBefore {
            threads: Vec::new(),
            locks: Vec::new(),
            messages: Vec::new(),
            skip_lock_edges: false,
            share_dense_from: SHARE_DENSE_FROM,
        }
    }
}

fn slot(v: &mut Vec<VectorClock>, i: usize) -> &mut VectorClock {
    if i >= v.len() {
        v.resize_with(i + 1, VectorClock::new);
    }
    &mut v[i]
}

impl HappensBefore {
    pub fn new() -> HappensBefore {
        HappensBefore::default()
    }

    /// Happens-before over program order, fork, join and send -> receive only: acquires and
    /// releases are events like reads, neither joining nor publishing a clock.
    pub fn without_lock_edges() -> HappensBefore {
        HappensBefore {
            skip_lock_edges: true,
            ..HappensBefore::default()
        }
    }

    /// This pass's clocks as they are now, going on without lock edges: happens-before without
    /// lock edges is happens-before until the first acquire or release, so an analysis that
    /// needs the former can read the pass's own clocks until then and copy them there (a
    /// trace without locks then never costs a second set of clocks).
    pub fn without_lock_edges_from_here(&self) -> HappensBefore {
        HappensBefore {
            threads: self.threads.clone(),
            locks: Vec::new(),
            messages: self.messages.clone(),
            skip_lock_edges: true,
            share_dense_from: self.share_dense_from,
        }
    }

    /// The pass with clocks that share their dense prefix from the fork of thread `threads`
    /// on, rather than [`SHARE_DENSE_FROM`]: the answers are the same (tests hold the two
    /// representations to one another on traces of a few threads).
    pub fn sharing_dense_from(self, threads: usize) -> HappensBefore {
        HappensBefore {
            share_dense_from: threads,
            ..self
        }
    }

    #[inline]
    fn ensure_thread(&mut self, t: ThreadId) {
        if t.index() >= self.threads.len() {
            self.add_threads(t);
        }
    }

    #[cold]
    fn add_threads(&mut self, t: ThreadId) {
        while self.threads.len() <= t.index() {
            let id = ThreadId(self.threads.len() as u32);
            self.threads.push(VectorClock::for_new_thread(id));
        }
    }

    /// Does for an event of `t` that orders nothing (see above) all that `before` and `after`
    /// would do: a driver that knows an event is such need not look at its operation twice.
    #[inline(always)]
    pub fn plain(&mut self, t: ThreadId) {
        self.ensure_thread(t);
    }

    /// Applies the edges that end at `e` (acquire, receive, join).
    #[inline(always)]
    pub fn before(&mut self, e: &Event) {
        self.ensure_thread(e.thread);
        if matches!(e.op, Op::Acquire(_) | Op::Receive(_) | Op::Join(_)) {
            self.before_sync(e);
        }
    }

    fn before_sync(&mut self, e: &Event) {
        let t = e.thread;
        match &e.op {
            Op::Acquire(_) if self.skip_lock_edges => {}
            Op::Acquire(l) => {
                if let Some(lc) = self.locks.get(l.index()) {
                    self.threads[t.index()].join(lc);
                }
            }
            Op::Receive(m) => {
                if let Some(mc) = self.messages.get(m.index()) {
                    self.threads[t.index()].join(mc);
                }
            }
            Op::Join(u) => {
                self.ensure_thread(*u);
                let (a, b) = two(&mut self.threads, t.index(), u.index());
                a.join(b);
            }
            _ => {}
        }
    }

    /// Publishes `e`'s clock along the edges that start at it (release, send, fork, join) and
    /// starts a new epoch of the thread that published it.
    #[inline(always)]
    pub fn after(&mut self, e: &Event) {
        if matches!(
            e.op,
            Op::Release(_) | Op::Send(_) | Op::Fork(_) | Op::Join(_)
        ) {
            self.after_sync(e);
        }
    }

    fn after_sync(&mut self, e: &Event) {
        let t = e.thread;
        match &e.op {
            Op::Release(_) if self.skip_lock_edges => {}
            Op::Release(l) => {
                slot(&mut self.locks, l.index()).copy_from(&self.threads[t.index()]);
                self.threads[t.index()].increment(t);
            }
            Op::Send(m) => {
                slot(&mut self.messages, m.index()).copy_from(&self.threads[t.index()]);
                self.threads[t.index()].increment(t);
            }
            Op::Fork(u) => {
                self.ensure_thread(*u);
                if u.index() >= self.share_dense_from {
                    self.threads[t.index()].share_dense();
                }
                let (child, parent) = two(&mut self.threads, u.index(), t.index());
                child.join(parent);
                self.threads[t.index()].increment(t);
            }
            Op::Join(u) => {
                // The child's events logged after the join must not look ordered before it.
                self.threads[u.index()].increment(*u);
            }
            _ => {}
        }
    }

    /// The clock of thread `t`'s current event (between `before` and `after`).
    #[inline]
    pub fn clock(&self, t: ThreadId) -> &VectorClock {
        &self.threads[t.index()]
    }

    /// The epoch of thread `t`'s current event.
    #[inline]
    pub fn epoch(&self, t: ThreadId) -> Epoch {
        Epoch {
            thread: t,
            clock: self.threads[t.index()].get(t),
        }
    }

    pub fn thread_count(&self) -> usize {
        self.threads.len()
    }
}

/// Two distinct elements of a slice, mutably.
fn two<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &T) {
    assert_ne!(
        a, b,
        "a thread cannot fork or join itself (the validator rejects it)"
    );
    if a < b {
        let (lo, hi) = v.split_at_mut(b);
        (&mut lo[a], &hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(a);
        (&mut hi[0], &lo[b])
    }
}
