//! What the vector-clock models keep per variable: each thread's last read and last write,
//! stamped with the thread's local time in the model's order and in happens-before. A later
//! access races with some earlier access of thread `u` exactly when it races with `u`'s last
//! one (an earlier access of `u` is ordered before that one by thread order). The last accesses
//! are kept in trace order, and the check walks them from the latest down to the first one
//! unordered with the access ([`hindsight_order::latest`]): concurrent threads are found at
//! once, and what the walk passes is remembered for the thread, so that many threads on one
//! variable cost no scan of them all at every access.

use crate::found::{Access, Race};
use crate::held::HeldLocks;
use hindsight_order::{Entry, HappensBefore, LatestPerThread};
use hindsight_trace::{Event, LocId, LockId, Op, ThreadId, VarId};
use rustc_hash::FxHashMap;

/// The last access of one thread to one variable (its thread and index are the entry's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Last {
    /// The thread's own component of its clock in the model's order.
    time: u32,
    /// The same in happens-before (FastTrack's epoch).
    hb: u32,
    loc: Option<LocId>,
}

/// The last reads and writes of every variable, per thread.
#[derive(Default)]
pub struct Accesses {
    reads: Vec<LatestPerThread<Last>>,
    writes: Vec<LatestPerThread<Last>>,
    /// What the sets hold, counted as they change.
    bytes: usize,
    #[cfg(feature = "oracle")]
    shadow: shadow::Shadow,
}

impl Accesses {
    fn ensure(&mut self, x: VarId) {
        if x.index() >= self.reads.len() {
            let before = self.reads.capacity() + self.writes.capacity();
            self.reads.resize_with(x.index() + 1, Default::default);
            self.writes.resize_with(x.index() + 1, Default::default);
            let after = self.reads.capacity() + self.writes.capacity();
            self.bytes += (after - before) * std::mem::size_of::<LatestPerThread<Last>>();
        }
    }

    /// Checks the access `e` (a write when `write`) of `x` against the earlier ones, `ordered(u)`
    /// being the component for thread `u` of the access's clock in the model's order (which
    /// only grows along a thread), and returns the race with the latest unordered earlier
    /// access, if any. The access must then be recorded ([`Accesses::record`]): the check
    /// drops the last accesses it passes that the access covers (ordered before it, and
    /// conflicting with all it conflicts with: a write covers reads and writes, a read
    /// reads), since the models' orders are transitive and agree with the trace's, whatever
    /// later races with a covered access races with the later access that covers it.
    pub fn check(
        &mut self,
        x: VarId,
        write: bool,
        e: &Event,
        hb: &HappensBefore,
        ordered: impl Fn(ThreadId) -> u32,
    ) -> Option<Race> {
        self.ensure(x);
        let t = e.thread;
        let before = |l: &Entry<Last>| l.value.time <= ordered(l.thread);
        #[cfg(feature = "oracle")]
        let expected = self.shadow.expected(x, write, t, &before);
        let writes = &mut self.writes[x.index()];
        let mut partner = counted(writes, &mut self.bytes, |w| {
            w.latest_unordered(t, &before, write)
        })
        .map(|w| (w, true));
        let reads = &mut self.reads[x.index()];
        let r = counted(reads, &mut self.bytes, |r| {
            r.latest_unordered(t, &before, true)
        });
        if write {
            if let Some(r) = r {
                if partner.is_none_or(|(w, _)| r.index > w.index) {
                    partner = Some((r, false));
                }
            }
        }
        #[cfg(feature = "oracle")]
        if let Some(expected) = expected {
            assert_eq!(
                partner.map(|(p, w)| (p.index, w)),
                expected,
                "the walk's partner is the scan's"
            );
        }
        let (p, partner_writes) = partner?;
        Some(Race {
            var: x,
            partner: Access {
                thread: p.thread,
                index: p.index,
                loc: p.value.loc,
                write: partner_writes,
            },
            racy: Access {
                thread: t,
                index: e.index,
                loc: e.loc,
                write,
            },
            hb_ordered: p.value.hb <= hb.clock(t).get(p.thread),
        })
    }

    /// Records the access `e` of `x` at local time `time` of its thread.
    pub fn record(&mut self, x: VarId, write: bool, e: &Event, hb: &HappensBefore, time: u32) {
        self.ensure(x);
        let lasts = if write {
            &mut self.writes[x.index()]
        } else {
            &mut self.reads[x.index()]
        };
        let entry = Entry {
            thread: e.thread,
            index: e.index,
            value: Last {
                time,
                hb: hb.epoch(e.thread).clock,
                loc: e.loc,
            },
        };
        #[cfg(feature = "oracle")]
        self.shadow.record(x, write, entry);
        counted(lasts, &mut self.bytes, |l| l.record(entry));
    }

    /// The bytes held, counted as the sets changed (no walk: budgets poll it).
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// `change(set)`, with `bytes` following what the set holds.
fn counted<R>(
    set: &mut LatestPerThread<Last>,
    bytes: &mut usize,
    change: impl FnOnce(&mut LatestPerThread<Last>) -> R,
) -> R {
    let before = set.bytes();
    let r = change(set);
    *bytes = *bytes + set.bytes() - before;
    r
}

/// Lock depths per thread: which acquires and releases change whether a thread holds a lock.
/// Re-entrant ones order nothing in any model, as in RAPID. The depth of each lock a thread
/// holds, by (thread, lock): a scan of the thread's held locks at every acquire and release
/// was the square of the nesting depth on a thread that nests thousands of locks.
#[derive(Default)]
pub struct Nesting(FxHashMap<(ThreadId, LockId), u32>);

impl Nesting {
    /// Whether this acquire takes the lock (rather than re-entering it).
    pub fn acquire(&mut self, t: ThreadId, l: LockId) -> bool {
        let depth = self.0.entry((t, l)).or_insert(0);
        *depth += 1;
        *depth == 1
    }

    /// Whether this release gives the lock up (a release of a lock not held does not).
    pub fn release(&mut self, t: ThreadId, l: LockId) -> bool {
        let Some(depth) = self.0.get_mut(&(t, l)) else {
            return false;
        };
        *depth -= 1;
        if *depth > 0 {
            return false;
        }
        self.0.remove(&(t, l));
        true
    }
}

/// The locks each thread holds, each distinct set interned as an id ([`HeldLocks`]): a
/// candidate access keeps a `u32`, and two accesses made holding a common lock are never a race
/// (the earlier's section is released before the later's is acquired in every correct
/// reordering), which spares the closure for most protected accesses (syncp, osr).
#[derive(Default)]
pub struct Locksets {
    held: Vec<u32>,
    sets: HeldLocks,
    nesting: Nesting,
}

impl Locksets {
    /// Follows an acquire or release that takes or gives up its lock (re-entrant ones change
    /// nothing); other events are ignored.
    pub fn observe(&mut self, e: &Event) {
        let t = e.thread;
        match e.op {
            Op::Acquire(l) if self.nesting.acquire(t, l) => {
                let next = self.sets.with(self.held(t), l);
                self.set_held(t, next);
            }
            Op::Release(l) if self.nesting.release(t, l) => {
                let next = self.sets.without(self.held(t), l);
                self.set_held(t, next);
            }
            _ => {}
        }
    }

    fn set_held(&mut self, t: ThreadId, set: u32) {
        if self.held.len() <= t.index() {
            self.held.resize(t.index() + 1, HeldLocks::NONE);
        }
        self.held[t.index()] = set;
    }

    /// The id of the locks `t` holds now (0: none).
    pub fn held(&self, t: ThreadId) -> u32 {
        self.held.get(t.index()).copied().unwrap_or(HeldLocks::NONE)
    }

    /// Whether the locksets `a` and `b` share a lock.
    pub fn share(&self, a: u32, b: u32) -> bool {
        self.sets.share(a, b)
    }

    /// Whether the lockset `set` holds `l`.
    pub fn contains(&self, set: u32, l: LockId) -> bool {
        self.sets.contains(set, l)
    }

    /// The lock of lowest id in `set`, if any.
    pub fn first(&self, set: u32) -> Option<LockId> {
        self.sets.first(set)
    }

    /// The locks `a` and `b` share.
    pub fn intersection(&mut self, a: u32, b: u32) -> u32 {
        self.sets.intersection(a, b)
    }

    /// The bytes the interned sets take (counted: budgets poll it).
    pub fn bytes(&self) -> usize {
        self.sets.bytes() + self.held.capacity() * 4
    }
}

/// The scan the walk replaced, kept beside it in the test builds (feature `oracle`) while a
/// trace has few threads: every check asserts that both find the same partner.
#[cfg(feature = "oracle")]
mod shadow {
    use super::Last;
    use hindsight_order::Entry;
    use hindsight_trace::{ThreadId, VarId};
    use rustc_hash::FxHashMap;

    /// Past this many threads the scan is given up (it would make the tests quadratic).
    const THREADS: usize = 64;

    #[derive(Default)]
    pub struct Shadow {
        lasts: FxHashMap<(VarId, bool), Vec<Option<Entry<Last>>>>,
        off: bool,
    }

    impl Shadow {
        /// The partner of the scan of every thread's last access, unless the shadow is off.
        pub fn expected(
            &mut self,
            x: VarId,
            write: bool,
            t: ThreadId,
            before: &impl Fn(&Entry<Last>) -> bool,
        ) -> Option<Option<(u64, bool)>> {
            if self.off {
                return None;
            }
            let latest = |writes: bool| {
                self.lasts
                    .get(&(x, writes))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|l| l.thread != t && !before(l))
                    .max_by_key(|l| l.index)
                    .map(|l| (l.index, writes))
            };
            let w = latest(true);
            let r = if write { latest(false) } else { None };
            Some(match (w, r) {
                (Some(w), Some(r)) => Some(if r.0 > w.0 { r } else { w }),
                (w, r) => w.or(r),
            })
        }

        pub fn record(&mut self, x: VarId, write: bool, entry: Entry<Last>) {
            if entry.thread.index() >= THREADS {
                self.off = true;
                self.lasts.clear();
            }
            if self.off {
                return;
            }
            let lasts = self.lasts.entry((x, write)).or_default();
            if lasts.len() <= entry.thread.index() {
                lasts.resize(entry.thread.index() + 1, None);
            }
            lasts[entry.thread.index()] = Some(entry);
        }
    }
}
