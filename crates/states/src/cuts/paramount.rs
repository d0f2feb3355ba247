//! ParaMount (thesis Chapter 3, Algorithms 2, 3 and 6): the consistent global states split into
//! disjoint intervals `I(e) = [G_min(e), G_bnd(e)]`, one per event `e` of a topological order
//! `->_p` (Definitions 1 and 2; Lemmas 2 and 3), each enumerated by a bounded sequential
//! enumerator, the intervals in parallel on a rayon pool of `--threads` workers.
//!
//! The online form (Algorithm 6) is [`Online`]: events inserted one at a time in an order that
//! respects happened-before (a trace's order does), each insertion fixing its interval from the
//! event's clock and a snapshot of the maximal events so far.
//!
//! It owns the partition and the scheduling; it knows nothing of what visitors do, and the
//! bounded enumerators know nothing of it.

use super::poset::{Poset, TracePoset};
use super::quicklex::QuickLex;
use super::{bounded, Algorithm, Visitor};
use std::collections::BinaryHeap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The interval of one event: the states `g` with `lo <= g <= hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The event `(process, index)` whose interval this is.
    pub event: (usize, u32),
    /// `G_min(e)`: the event's clock (all zeros for the first event, which also takes the
    /// empty state, as Fig. 3.4(a) says).
    pub lo: Vec<u32>,
    /// `G_bnd(e)`: the events up to and including `e` in the total order (Definition 1).
    pub hi: Vec<u32>,
}

/// The intervals of the events of `order`, a topological order of all events of `poset`.
pub fn intervals(poset: &Poset, order: &[(usize, u32)]) -> Vec<Interval> {
    let n = poset.processes();
    let mut bnd = vec![0u32; n];
    order
        .iter()
        .enumerate()
        .map(|(i, &(p, idx))| {
            bnd[p] = idx;
            Interval {
                event: (p, idx),
                lo: if i == 0 {
                    vec![0; n]
                } else {
                    poset.clock(p, idx).to_vec()
                },
                hi: bnd.clone(),
            }
        })
        .collect()
}

/// A part of an interval: the states `g` of interval `interval` with `lo <= g <= hi`, both
/// consistent. The parts of an interval are disjoint, cover it, and hold its states in lexical
/// order part after part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub interval: usize,
    pub lo: Vec<u32>,
    pub hi: Vec<u32>,
}

impl Part {
    /// `log2` of the product of the ranges `hi[q] - lo[q] + 1`: a bound on the states of the
    /// part, the only size known before enumerating it.
    fn log_bound(&self) -> f64 {
        self.lo
            .iter()
            .zip(&self.hi)
            .map(|(&l, &h)| f64::from(h - l + 1).log2())
            .sum()
    }
}

/// How many parts per worker [`Plan::new`] aims at: enough that the largest part is a small
/// share of a worker's work, few enough that their setup (`O(n^2)` each) stays negligible.
pub const PARTS_PER_WORKER: usize = 64;

/// Parts whose bound is below this many states are never split.
const SPLIT_MIN_LOG2: f64 = 12.0;

/// ParaMount's intervals split into parts for `workers` workers, in enumeration order (interval
/// by interval, each in lexical order), with the order workers take them in.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The number of intervals split.
    pub intervals: usize,
    pub parts: Vec<Part>,
    /// Part numbers, the largest bound first: workers take them in this order (greedy list
    /// scheduling, largest first), so the last parts taken are small ones.
    pub schedule: Vec<usize>,
}

impl Plan {
    /// The intervals of [`Poset::priority_order`] (a poset without events has one interval
    /// holding the empty state), split for `workers` workers.
    pub fn new(poset: &Poset, workers: usize) -> Plan {
        let order = poset.priority_order();
        let mut ivs = intervals(poset, &order);
        if ivs.is_empty() {
            let n = poset.processes();
            ivs.push(Interval {
                event: (0, 0),
                lo: vec![0; n],
                hi: vec![0; n],
            });
        }
        Plan::of(poset, ivs, workers)
    }

    /// `intervals` (their numbers their places in it) split for `workers` workers: the part
    /// with the largest bound is split until there are [`PARTS_PER_WORKER`] parts per worker
    /// or no part is worth splitting. One worker gets the intervals unsplit.
    pub fn of(poset: &Poset, intervals: Vec<Interval>, workers: usize) -> Plan {
        let target = if workers > 1 {
            workers.saturating_mul(PARTS_PER_WORKER)
        } else {
            0
        };
        Plan::split(poset, intervals, target, SPLIT_MIN_LOG2)
    }

    /// `intervals` split until there are `target` parts or every part's bound is below
    /// `2^min_log2` states, the part with the largest bound first ([`Plan::of`] with the
    /// thresholds chosen).
    pub fn split(poset: &Poset, intervals: Vec<Interval>, target: usize, min_log2: f64) -> Plan {
        let count = intervals.len();
        let mut parts: Vec<Part> = intervals
            .into_iter()
            .enumerate()
            .map(|(interval, iv)| Part {
                interval,
                lo: iv.lo,
                hi: iv.hi,
            })
            .collect();
        parts = split_largest(poset, parts, target, min_log2);
        let bounds: Vec<f64> = parts.iter().map(Part::log_bound).collect();
        let mut schedule: Vec<usize> = (0..parts.len()).collect();
        schedule.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]).then(a.cmp(&b)));
        Plan {
            intervals: count,
            parts,
            schedule,
        }
    }

    /// Enumerates every part with `threads` workers, each part by `algorithm` (bounded). For
    /// part `i`, `make(i)` gives its visitor and `finish(i, visitor, flow)` turns it into the
    /// part's result; the results come back in part order.
    pub fn run<V, R, M, F>(
        &self,
        poset: &Poset,
        threads: usize,
        algorithm: Algorithm,
        make: M,
        finish: F,
    ) -> Vec<R>
    where
        V: Visitor,
        R: Send,
        M: Fn(usize) -> V + Sync,
        F: Fn(usize, V, ControlFlow<()>) -> R + Sync,
    {
        let quick = matches!(algorithm, Algorithm::QuickLex).then(|| QuickLex::new(poset));
        let work = |i: usize| {
            let part = &self.parts[i];
            let mut v = make(i);
            let flow = match &quick {
                Some(q) => q.enumerate(&part.lo, &part.hi, &mut v),
                None => bounded(poset, algorithm, &part.lo, &part.hi, &mut v),
            };
            finish(i, v, flow)
        };
        if threads <= 1 {
            return (0..self.parts.len()).map(work).collect();
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool of the requested size");
        // Every worker takes the next part of the schedule, largest first, until none is
        // left: the parts are unequal, and a worker that drew small ones takes more.
        let next = AtomicUsize::new(0);
        let done: Vec<Mutex<Vec<(usize, R)>>> = (0..threads).map(|_| Mutex::default()).collect();
        pool.scope(|s| {
            for slot in &done {
                let (next, work) = (&next, &work);
                s.spawn(move |_| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = self.schedule.get(k) else {
                            break;
                        };
                        mine.push((i, work(i)));
                    }
                    *slot.lock().expect("no worker panicked") = mine;
                });
            }
        });
        let mut all: Vec<(usize, R)> = done
            .into_iter()
            .flat_map(|m| m.into_inner().expect("no worker panicked"))
            .collect();
        all.sort_by_key(|&(i, _)| i);
        all.into_iter().map(|(_, r)| r).collect()
    }
}

/// Splits the part with the largest bound into its [`children`] until there are `target`
/// parts or every bound is below `2^min_log2`; the parts come back in enumeration order.
fn split_largest(poset: &Poset, parts: Vec<Part>, target: usize, min_log2: f64) -> Vec<Part> {
    let mut heap: BinaryHeap<Sized> = BinaryHeap::new();
    let mut kept = Vec::new();
    for part in parts {
        heap.push(Sized::new(part));
    }
    while heap.len() + kept.len() < target {
        let Some(top) = heap.pop() else {
            break;
        };
        if top.log_bound < min_log2 {
            kept.push(top.part);
            break;
        }
        match children(poset, &top.part) {
            Some(children) => heap.extend(children.into_iter().map(Sized::new)),
            None => kept.push(top.part),
        }
    }
    kept.extend(heap.into_iter().map(|s| s.part));
    kept.sort_by(|a, b| a.interval.cmp(&b.interval).then_with(|| a.lo.cmp(&b.lo)));
    kept
}

/// A part ordered by its bound, for the heap of [`split_largest`].
struct Sized {
    log_bound: f64,
    part: Part,
}

impl Sized {
    fn new(part: Part) -> Sized {
        Sized {
            log_bound: part.log_bound(),
            part,
        }
    }
}

impl PartialEq for Sized {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Sized {}
impl PartialOrd for Sized {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Sized {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.log_bound.total_cmp(&other.log_bound)
    }
}

/// The part split by the value of its first process `p` that is not fixed (`lo[p] < hi[p]`),
/// in lexical order: for each `v`, the consistent `g` of the part with `g[p] = v` are those
/// between `lo` joined with the clock of event `v` of `p` (the least consistent state that
/// holds it) and the greatest consistent state under `hi` with `hi[p] = v`; empty children are
/// left out. Every state of the part is in exactly one child, since it has one value at `p`.
/// `None` when every process is fixed (the part holds one state).
pub fn children(poset: &Poset, part: &Part) -> Option<Vec<Part>> {
    let p = (0..part.lo.len()).find(|&q| part.lo[q] < part.hi[q])?;
    let mut out = Vec::new();
    for v in part.lo[p]..=part.hi[p] {
        let clock = poset.clock(p, v);
        let lo: Vec<u32> = part.lo.iter().zip(clock).map(|(&a, &b)| a.max(b)).collect();
        let mut hi = part.hi.clone();
        hi[p] = v;
        greatest_consistent_below(poset, &mut hi);
        if lo.iter().zip(&hi).all(|(l, h)| l <= h) {
            out.push(Part {
                interval: part.interval,
                lo,
                hi,
            });
        }
    }
    Some(out)
}

/// Lowers `g` to the greatest consistent state `<= g`: an event stays only if every event that
/// happens before it stays, which may remove events of other processes in turn.
fn greatest_consistent_below(poset: &Poset, g: &mut [u32]) {
    let n = g.len();
    loop {
        let mut changed = false;
        for q in 0..n {
            while g[q] > 0 && (0..n).any(|r| poset.clock(q, g[q])[r] > g[r]) {
                g[q] -= 1;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Runs ParaMount over `poset` with `threads` workers: the intervals of [`Poset::priority_order`]
/// split into parts for `threads` workers ([`Plan::new`]), each part enumerated by `algorithm`
/// (bounded). For part `i`, `make(i)` gives its visitor and `finish(i, visitor, flow)` turns it
/// into the part's result; the results come back in part order (interval by interval, each in
/// lexical order). With one thread the parts are the intervals.
pub fn paramount<V, R, M, F>(
    poset: &Poset,
    threads: usize,
    algorithm: Algorithm,
    make: M,
    finish: F,
) -> Vec<R>
where
    V: Visitor,
    R: Send,
    M: Fn(usize) -> V + Sync,
    F: Fn(usize, V, ControlFlow<()>) -> R + Sync,
{
    Plan::new(poset, threads).run(poset, threads, algorithm, make, finish)
}

/// Where [`Online`] keeps the events inserted so far: a bare [`Poset`], or a [`TracePoset`]
/// whose elements carry no trace events (a poset file read online), so a predicate can bind to
/// it between flushes.
pub trait PosetStore {
    fn poset(&self) -> &Poset;
    /// Appends the next event of process `p` with its clock (see [`Poset::push`]).
    fn push(&mut self, p: usize, clock: &[u32]);
}

impl PosetStore for Poset {
    fn poset(&self) -> &Poset {
        self
    }
    fn push(&mut self, p: usize, clock: &[u32]) {
        Poset::push(self, p, clock);
    }
}

impl PosetStore for TracePoset {
    fn poset(&self) -> &Poset {
        &self.poset
    }
    /// The new element has no trace events.
    fn push(&mut self, p: usize, clock: &[u32]) {
        self.poset.push(p, clock);
        let end = self.members[p].len() as u32;
        self.starts[p].push(end);
    }
}

/// Intervals taken from an [`Online`] enumerator, split into parts, to enumerate with
/// [`Online::run`].
#[derive(Debug)]
pub struct Batch {
    /// The batch's intervals and parts, numbered from 0.
    pub plan: Plan,
    /// The number of the first interval, counting from the first insertion.
    pub first_interval: usize,
    /// The number of the first part, counting the parts of every batch taken before.
    pub first_part: usize,
}

impl Batch {
    /// The number of intervals.
    pub fn len(&self) -> usize {
        self.plan.intervals
    }
    pub fn is_empty(&self) -> bool {
        self.plan.intervals == 0
    }
}

/// The online form of ParaMount (Algorithm 6): events arrive one at a time, in an order that
/// respects happened-before; each arrival fixes the interval `[e.vc, snapshot of maximal
/// events]`, which is enumerated as soon as the arrivals are handed over with [`Online::flush`]
/// (in parallel, against a snapshot of the poset that holds every event the intervals need:
/// Theorem 3's argument that an interval needs nothing inserted after it).
pub struct Online<S = Poset> {
    store: S,
    pending: Vec<Interval>,
    inserted: u64,
    /// Parts in the batches taken so far.
    parts: usize,
    threads: usize,
    algorithm: Algorithm,
}

impl Online<Poset> {
    /// An online enumerator over `n` processes.
    pub fn new(n: usize, threads: usize, algorithm: Algorithm) -> Online {
        Online::with_store(Poset::new(n), threads, algorithm)
    }
}

impl<S: PosetStore> Online<S> {
    /// An online enumerator that keeps its events in `store`, which must hold none yet.
    pub fn with_store(store: S, threads: usize, algorithm: Algorithm) -> Online<S> {
        debug_assert!(store.poset().is_empty());
        Online {
            store,
            pending: Vec::new(),
            inserted: 0,
            parts: 0,
            threads,
            algorithm,
        }
    }

    /// Inserts the next event of process `p` with its clock (lines 1-5 of Algorithm 6).
    pub fn insert(&mut self, p: usize, clock: &[u32]) {
        self.store.push(p, clock);
        let poset = self.store.poset();
        let idx = poset.len(p);
        let lo = if self.inserted == 0 {
            vec![0; poset.processes()]
        } else {
            clock.to_vec()
        };
        self.inserted += 1;
        self.pending.push(Interval {
            event: (p, idx),
            lo,
            hi: poset.final_state(),
        });
    }

    /// The number of intervals waiting for [`Online::flush`].
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// The number of events inserted.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// Enumerates the pending intervals (line 6 of Algorithm 6), in parallel; `make`/`finish`
    /// as for [`paramount`], with part numbers counting the parts of every batch before.
    pub fn flush<V, R, M, F>(&mut self, make: M, finish: F) -> Vec<R>
    where
        V: Visitor,
        R: Send,
        M: Fn(usize) -> V + Sync,
        F: Fn(usize, V, ControlFlow<()>) -> R + Sync,
    {
        let batch = self.take();
        self.run(&batch, make, finish)
    }

    /// Takes the pending intervals, so the store can be read (e.g. bound to a predicate)
    /// while [`Online::run`] enumerates them: [`Online::flush`] in two steps.
    pub fn take(&mut self) -> Batch {
        let intervals = std::mem::take(&mut self.pending);
        let first_interval = self.inserted as usize - intervals.len();
        let plan = Plan::of(self.store.poset(), intervals, self.threads);
        let first_part = self.parts;
        self.parts += plan.parts.len();
        Batch {
            plan,
            first_interval,
            first_part,
        }
    }

    /// Enumerates `batch`, taken from this enumerator with no insertion since.
    pub fn run<V, R, M, F>(&self, batch: &Batch, make: M, finish: F) -> Vec<R>
    where
        V: Visitor,
        R: Send,
        M: Fn(usize) -> V + Sync,
        F: Fn(usize, V, ControlFlow<()>) -> R + Sync,
    {
        let first = batch.first_part;
        batch.plan.run(
            self.store.poset(),
            self.threads,
            self.algorithm,
            |i| make(first + i),
            |i, v, f| finish(first + i, v, f),
        )
    }

    /// The poset inserted so far.
    pub fn poset(&self) -> &Poset {
        self.store.poset()
    }

    /// Where the events are kept.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The store, with every event inserted.
    pub fn into_store(self) -> S {
        self.store
    }
}
