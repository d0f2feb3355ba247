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
use rayon::prelude::*;
use std::ops::ControlFlow;

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

/// Runs ParaMount over `poset` with `threads` workers, each interval enumerated by `algorithm`
/// (bounded), the intervals those of [`Poset::priority_order`]. For interval `i`, `make(i)` gives its visitor and `finish(i, visitor, flow)` turns
/// it into the interval's result; the results come back in interval order. A poset without
/// events has one interval holding the empty state.
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
    run_intervals(poset, &ivs, threads, algorithm, &make, &finish)
}

fn run_intervals<V, R, M, F>(
    poset: &Poset,
    ivs: &[Interval],
    threads: usize,
    algorithm: Algorithm,
    make: &M,
    finish: &F,
) -> Vec<R>
where
    V: Visitor,
    R: Send,
    M: Fn(usize) -> V + Sync,
    F: Fn(usize, V, ControlFlow<()>) -> R + Sync,
{
    let quick = matches!(algorithm, Algorithm::QuickLex).then(|| QuickLex::new(poset));
    let work = |i: usize| {
        let iv = &ivs[i];
        let mut v = make(i);
        let flow = match &quick {
            Some(q) => q.enumerate(&iv.lo, &iv.hi, &mut v),
            None => bounded(poset, algorithm, &iv.lo, &iv.hi, &mut v),
        };
        finish(i, v, flow)
    };
    if threads <= 1 {
        return (0..ivs.len()).map(work).collect();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool of the requested size");
    // One interval per task: rayon's work stealing balances the very unequal interval sizes.
    pool.install(|| {
        (0..ivs.len())
            .into_par_iter()
            .with_max_len(1)
            .map(work)
            .collect()
    })
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

/// Intervals taken from an [`Online`] enumerator, to enumerate with [`Online::run`].
#[derive(Debug, Default)]
pub struct Batch {
    intervals: Vec<Interval>,
    /// The number of the first interval, counting from the first insertion.
    first: usize,
}

impl Batch {
    pub fn len(&self) -> usize {
        self.intervals.len()
    }
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
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
    /// as for [`paramount`], with interval numbers counting from the first insertion.
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
        Batch {
            first: self.inserted as usize - intervals.len(),
            intervals,
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
        let first = batch.first;
        run_intervals(
            self.store.poset(),
            &batch.intervals,
            self.threads,
            self.algorithm,
            &|i| make(first + i),
            &|i, v, f| finish(first + i, v, f),
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
