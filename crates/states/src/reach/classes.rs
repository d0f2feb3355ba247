//! Classes of global states of a loset (Chang's thesis, Chapters 5 and 6): consistent,
//! compatible and feasible (Definitions 7-10), lock-free feasible and the greatest lock-free
//! feasible state below a state (Section 6.1), normalization with cycle detection
//! (Definitions 15-17, Algorithm 17), dynamic locking orders and strong feasibility
//! (Definitions 19-20), viability (Definition 22).
//!
//! Normalization works on the sub-loset of the events `lo < e <= hi` (Theorem 13's bound), with
//! two virtual nodes: `Start` stands for every event already executed (`<= lo`) and `End` for
//! every event beyond `hi`. An interval still held at `hi` releases at `End`, one held at `lo`
//! acquired at `Start`; an order into `Start` or out of `End` closes a cycle, which is how "this
//! interval would have to finish before a state it is still running in" is detected. It knows
//! nothing of enumeration or of searches.

use super::loset::{Ev, Loset};
use hindsight_budget::{Budget, Spent, CHECK_EVERY};
use hindsight_trace::LockId;
use rustc_hash::FxHashMap;

/// A node of a normalized sub-loset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The events executed before the sub-loset's lower bound.
    Start,
    Event(Ev),
    /// The events beyond the sub-loset's upper bound.
    End,
}

/// Why one node must come before another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Program order.
    Program,
    /// Happened-before across threads (fork, join, send -> receive).
    HappenedBefore,
    /// A locking order `I.rel -> J.acq` from `I |-> J` (Definitions 15-16).
    LockingOrder(LockId),
    /// A dynamic locking order of the upper bound (Definition 19): the lock is held there, so
    /// every interval released before must come first.
    Dynamic(LockId),
}

/// A cycle of the order: node `k` must precede node `k + 1` because of `steps[k].1`, and the
/// last node must precede the first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub steps: Vec<(Node, EdgeKind)>,
}

/// The outcome of normalizing a sub-loset.
#[derive(Clone, Debug)]
pub enum Normalization {
    Acyclic(Normalized),
    Cycle(Cycle),
}

/// A normalized sub-loset `(lo, hi]`: the closure of its order as a vector clock per node
/// (component `q` = the greatest event of `q` that precedes or is the node; at least `lo[q]`).
#[derive(Clone, Debug)]
pub struct Normalized {
    pub lo: Vec<u32>,
    pub hi: Vec<u32>,
    offsets: Vec<usize>,
    n: usize,
    vc: Vec<u32>,
    /// The locking orders added (static and dynamic), as `(from, to, why)`.
    pub added: Vec<(Node, Node, EdgeKind)>,
}

const START: usize = 0;
const END: usize = 1;

impl Normalized {
    fn id(&self, node: Node) -> usize {
        match node {
            Node::Start => START,
            Node::End => END,
            Node::Event((p, i)) => self.offsets[p] + (i - self.lo[p] - 1) as usize,
        }
    }

    fn clock(&self, id: usize) -> &[u32] {
        &self.vc[id * self.n..(id + 1) * self.n]
    }

    /// Whether `a` precedes or is `b` in the normalized order (`a` inside the sub-loset).
    pub fn precedes(&self, (q, j): Ev, b: Node) -> bool {
        if j <= self.lo[q] {
            return true;
        }
        self.clock(self.id(b))[q] >= j
    }

    /// The closure clock of an event inside the sub-loset.
    pub fn event_clock(&self, e: Ev) -> &[u32] {
        self.clock(self.id(Node::Event(e)))
    }

    /// Whether `g` (with `lo <= g <= hi`) is consistent with the normalized order.
    pub fn is_consistent(&self, g: &[u32]) -> bool {
        (0..self.n).all(|p| {
            g[p] <= self.lo[p] || {
                let c = self.event_clock((p, g[p]));
                c.iter().zip(g).all(|(&a, &b)| a <= b)
            }
        })
    }
}

impl Loset {
    /// Definition 7, on the loset's own order.
    pub fn is_consistent(&self, g: &[u32]) -> bool {
        self.hb.is_consistent(g)
    }

    /// Two frontier events holding a common lock (Definition 9), if any.
    pub fn incompatible_pair(&self, g: &[u32]) -> Option<(LockId, Ev, Ev)> {
        let n = self.processes();
        for p in 0..n {
            if g[p] == 0 {
                continue;
            }
            for &a in self.held(p, g[p]) {
                let l = self.intervals[a as usize].lock;
                for q in p + 1..n {
                    if g[q] > 0
                        && self
                            .held(q, g[q])
                            .iter()
                            .any(|&b| self.intervals[b as usize].lock == l)
                    {
                        return Some((l, (p, g[p]), (q, g[q])));
                    }
                }
            }
        }
        None
    }

    /// Definition 9.
    pub fn is_compatible(&self, g: &[u32]) -> bool {
        self.incompatible_pair(g).is_none()
    }

    /// Definition 10.
    pub fn is_feasible(&self, g: &[u32]) -> bool {
        self.is_consistent(g) && self.is_compatible(g)
    }

    /// No frontier event holds a lock.
    pub fn is_lock_free(&self, g: &[u32]) -> bool {
        g.iter()
            .enumerate()
            .all(|(p, &i)| self.held(p, i).is_empty())
    }

    /// Lock-free and consistent (hence feasible).
    pub fn is_lock_free_feasible(&self, g: &[u32]) -> bool {
        self.is_lock_free(g) && self.is_consistent(g)
    }

    /// The greatest lock-free feasible state `F <= g` (well defined by Theorem 12; the empty
    /// state is one): lower each thread to a lock-free event, then to what the others allow,
    /// until nothing moves (the backward conjunctive-predicate detection of Theorem 16).
    pub fn greatest_lock_free_below(&self, g: &[u32]) -> Vec<u32> {
        let n = self.processes();
        let mut f: Vec<u32> = (0..n).map(|p| self.free_below(p, g[p])).collect();
        loop {
            let mut changed = false;
            for p in 0..n {
                while f[p] > 0 {
                    let c = self.hb.clock(p, f[p]);
                    if (0..n).all(|q| c[q] <= f[q]) {
                        break;
                    }
                    f[p] = self.free_below(p, f[p] - 1);
                    changed = true;
                }
            }
            if !changed {
                return f;
            }
        }
    }

    /// Normalizes the sub-loset `(lo, hi]` (Algorithm 17 seeded with happened-before and the
    /// dynamic locking orders of `hi`, Definition 19). `lo <= hi` must both be consistent.
    pub fn normalize(&self, lo: &[u32], hi: &[u32]) -> Normalization {
        match self.normalize_within(lo, hi, None) {
            Ok(n) => n,
            Err(_) => unreachable!("a normalization without a budget is never stopped"),
        }
    }

    /// [`Loset::normalize`] polling `budget` as it goes (a normalization of the whole loset
    /// of a large trace takes seconds): the limit reached if it was, before the order was
    /// closed.
    pub fn normalize_within(
        &self,
        lo: &[u32],
        hi: &[u32],
        budget: Option<&Budget>,
    ) -> Result<Normalization, Spent> {
        Normalizer::new(self, lo, hi, budget)?.run()
    }

    /// Definition 20: `g` is feasible and normalizing the sub-loset between its greatest
    /// lock-free feasible predecessor and `g`, with `g`'s dynamic locking orders, closes no
    /// cycle. Returns the cycle when there is one; `Err(None)` when `g` is not feasible.
    pub fn strong_feasibility(&self, g: &[u32]) -> Result<(), Option<Cycle>> {
        if !self.is_feasible(g) {
            return Err(None);
        }
        self.strong_feasibility_of_feasible(g).map_err(Some)
    }

    /// [`Loset::strong_feasibility`] for a state already known to be feasible.
    pub fn strong_feasibility_of_feasible(&self, g: &[u32]) -> Result<(), Cycle> {
        if self.is_lock_free(g) {
            return Ok(());
        }
        let f = self.greatest_lock_free_below(g);
        if self.locks_on_one_thread_each(&f, g) {
            return Ok(());
        }
        match self.normalize(&f, g) {
            Normalization::Acyclic(_) => Ok(()),
            Normalization::Cycle(c) => Err(c),
        }
    }

    /// Whether every lock with an interval starting in `(lo, hi]` has them all on one thread:
    /// then neither `|->` (Definition 15) nor a dynamic locking order (Definition 19) relates
    /// two intervals, normalization adds nothing to an acyclic order, and `hi` is strongly
    /// feasible without building the sub-loset (`lo` must be lock-free).
    pub fn locks_on_one_thread_each(&self, lo: &[u32], hi: &[u32]) -> bool {
        let mut seen: [(u32, u32); 32] = [(0, 0); 32];
        let mut k = 0;
        for (p, list) in self.by_process.iter().enumerate() {
            let from = list.partition_point(|&(acq, _)| acq <= lo[p]);
            for &(acq, lock) in &list[from..] {
                if acq > hi[p] {
                    break;
                }
                match seen[..k].iter().find(|&&(l, _)| l == lock) {
                    Some(&(_, q)) if q as usize != p => return false,
                    Some(_) => {}
                    None if k == seen.len() => return false,
                    None => {
                        seen[k] = (lock, p as u32);
                        k += 1;
                    }
                }
            }
        }
        true
    }

    pub fn is_strongly_feasible(&self, g: &[u32]) -> bool {
        self.strong_feasibility(g).is_ok()
    }

    /// Definition 22, given `normal` = the whole loset normalized with happened-before (and the
    /// dynamic locking orders of the final state): `g` is feasible there, and every interval held
    /// at `g` is preceded (`|->`) by every interval of its lock released by `g` on other threads.
    pub fn is_viable(&self, normal: &Normalized, g: &[u32]) -> bool {
        if !self.is_compatible(g) || !normal.is_consistent(g) {
            return false;
        }
        let n = self.processes();
        for i in 0..n {
            for &h in self.held(i, g[i]) {
                let held = self.intervals[h as usize];
                let f0 = held.rel.map_or(normal.hi[i], |r| r.min(normal.hi[i]));
                for &k in &self.by_lock[held.lock.index()] {
                    let j = self.intervals[k];
                    if j.process == i || j.rel.is_none_or(|r| r > g[j.process]) {
                        continue;
                    }
                    if !normal.precedes((j.process, j.acq), Node::Event((i, f0))) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// The working state of one normalization.
struct Normalizer<'a> {
    loset: &'a Loset,
    lo: Vec<u32>,
    hi: Vec<u32>,
    n: usize,
    offsets: Vec<usize>,
    nodes: usize,
    preds: Vec<Vec<(u32, EdgeKind)>>,
    vc: Vec<u32>,
    added: Vec<(Node, Node, EdgeKind)>,
    /// Intervals with a part inside the sub-loset.
    present: Vec<Vec<usize>>,
    poll: Poll<'a>,
}

/// Polls a budget every [`CHECK_EVERY`] units of work (an event placed, a node closed, a pair
/// of intervals compared), each costing about as much as a step of an enumeration.
struct Poll<'a> {
    budget: Option<&'a Budget>,
    work: u64,
}

impl Poll<'_> {
    #[inline]
    fn work(&mut self, units: u64) -> Result<(), Spent> {
        self.work += units;
        if self.work < CHECK_EVERY {
            return Ok(());
        }
        self.work = 0;
        match self.budget {
            Some(b) => b.check(),
            None => Ok(()),
        }
    }
}

impl<'a> Normalizer<'a> {
    fn new(
        loset: &'a Loset,
        lo: &[u32],
        hi: &[u32],
        budget: Option<&'a Budget>,
    ) -> Result<Normalizer<'a>, Spent> {
        let mut poll = Poll { budget, work: 0 };
        poll.work(CHECK_EVERY)?;
        let n = loset.processes();
        let mut offsets = Vec::with_capacity(n);
        let mut nodes = 2;
        for p in 0..n {
            offsets.push(nodes);
            nodes += (hi[p] - lo[p]) as usize;
        }
        let mut preds: Vec<Vec<(u32, EdgeKind)>> = vec![Vec::new(); nodes];
        for p in 0..n {
            if hi[p] == lo[p] {
                continue;
            }
            let first = offsets[p];
            preds[first].push((START as u32, EdgeKind::Program));
            let last = offsets[p] + (hi[p] - lo[p]) as usize - 1;
            preds[END].push((last as u32, EdgeKind::Program));
            for i in lo[p] + 1..=hi[p] {
                poll.work(1 + n as u64 / 16)?;
                let id = offsets[p] + (i - lo[p] - 1) as usize;
                if i > lo[p] + 1 {
                    preds[id].push(((id - 1) as u32, EdgeKind::Program));
                }
                let c = loset.hb.clock(p, i);
                let d = loset.hb.clock(p, i - 1);
                for q in 0..n {
                    if q != p && c[q] > d[q] && c[q] > lo[q] {
                        debug_assert!(c[q] <= hi[q], "upper bound inconsistent");
                        let from = offsets[q] + (c[q].min(hi[q]) - lo[q] - 1) as usize;
                        preds[id].push((from as u32, EdgeKind::HappenedBefore));
                    }
                }
            }
        }
        let present = loset
            .by_lock
            .iter()
            .map(|ids| {
                ids.iter()
                    .copied()
                    .filter(|&k| {
                        let iv = loset.intervals[k];
                        iv.acq <= hi[iv.process] && iv.rel.is_none_or(|r| r > lo[iv.process])
                    })
                    .collect()
            })
            .collect();
        Ok(Normalizer {
            loset,
            lo: lo.to_vec(),
            hi: hi.to_vec(),
            n,
            offsets,
            nodes,
            preds,
            vc: vec![0; nodes * n],
            added: Vec::new(),
            present,
            poll,
        })
    }

    fn id(&self, node: Node) -> usize {
        match node {
            Node::Start => START,
            Node::End => END,
            Node::Event((p, i)) => self.offsets[p] + (i - self.lo[p] - 1) as usize,
        }
    }

    fn node(&self, id: usize) -> Node {
        match id {
            START => Node::Start,
            END => Node::End,
            _ => {
                let p = self.offsets.partition_point(|&o| o <= id) - 1;
                Node::Event((p, self.lo[p] + 1 + (id - self.offsets[p]) as u32))
            }
        }
    }

    fn acq_node(&self, k: usize) -> Node {
        let iv = self.loset.intervals[k];
        if iv.acq > self.lo[iv.process] {
            Node::Event((iv.process, iv.acq))
        } else {
            Node::Start
        }
    }

    fn rel_node(&self, k: usize) -> Node {
        let iv = self.loset.intervals[k];
        match iv.rel {
            Some(r) if r <= self.hi[iv.process] => Node::Event((iv.process, r)),
            _ => Node::End,
        }
    }

    fn add(&mut self, from: Node, to: Node, kind: EdgeKind) {
        let (a, b) = (self.id(from), self.id(to));
        self.preds[b].push((a as u32, kind));
        self.added.push((from, to, kind));
    }

    /// The dynamic locking orders of `hi` (Definition 19).
    fn dynamic_orders(&mut self) {
        for l in 0..self.present.len() {
            let ids = self.present[l].clone();
            for &held in &ids {
                if self.rel_node(held) != Node::End {
                    continue;
                }
                let j = self.loset.intervals[held].process;
                let to = self.acq_node(held);
                for i in (0..self.n).filter(|&i| i != j) {
                    let recent = ids.iter().rev().copied().find(|&k| {
                        let iv = self.loset.intervals[k];
                        iv.process == i && iv.rel.is_some_and(|r| r > self.lo[i] && r <= self.hi[i])
                    });
                    if let Some(k) = recent {
                        let from = self.rel_node(k);
                        self.add(from, to, EdgeKind::Dynamic(LockId(l as u32)));
                    }
                }
            }
        }
    }

    /// Recomputes the closure clocks; `Err` with the cycle if the order has one, or the limit
    /// of the budget reached meanwhile.
    fn closure(&mut self) -> Result<Result<(), Cycle>, Spent> {
        let n = self.n;
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); self.nodes];
        let mut indeg = vec![0u32; self.nodes];
        for (b, ps) in self.preds.iter().enumerate() {
            for &(a, _) in ps {
                succs[a as usize].push(b as u32);
                indeg[b] += 1;
            }
        }
        let mut queue: Vec<usize> = (0..self.nodes).filter(|&v| indeg[v] == 0).collect();
        let mut done = 0;
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            done += 1;
            self.poll.work(1 + (self.preds[v].len() * n) as u64 / 16)?;
            let base = v * n;
            if v == START {
                self.vc[base..base + n].copy_from_slice(&self.lo);
            } else {
                for q in 0..n {
                    self.vc[base + q] = self.lo[q];
                }
                for &(a, _) in &self.preds[v] {
                    let ab = a as usize * n;
                    for q in 0..n {
                        let x = self.vc[ab + q];
                        if x > self.vc[base + q] {
                            self.vc[base + q] = x;
                        }
                    }
                }
                if let Node::Event((p, i)) = self.node(v) {
                    self.vc[base + p] = self.vc[base + p].max(i);
                }
            }
            for &s in &succs[v] {
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    queue.push(s as usize);
                }
            }
        }
        if done == self.nodes {
            return Ok(Ok(()));
        }
        // Every node left has a predecessor left: walk back until a node repeats.
        let left: Vec<bool> = indeg.iter().map(|&d| d > 0).collect();
        let mut v = (0..self.nodes).find(|&v| left[v]).expect("a node is left");
        let mut seen = vec![usize::MAX; self.nodes];
        let mut path: Vec<(usize, EdgeKind)> = Vec::new();
        while seen[v] == usize::MAX {
            seen[v] = path.len();
            let &(a, kind) = self.preds[v]
                .iter()
                .find(|&&(a, _)| left[a as usize])
                .expect("a predecessor is left");
            path.push((a as usize, kind));
            v = a as usize;
        }
        // path[k] = (pred of the k-th node visited, edge pred -> that node); the cycle is the
        // part from the first visit of `v`, read backwards.
        let start = seen[v];
        let mut cyc: Vec<(usize, EdgeKind)> = path[start..].to_vec();
        cyc.reverse();
        Ok(Err(Cycle {
            steps: cyc.into_iter().map(|(a, k)| (self.node(a), k)).collect(),
        }))
    }

    fn run(mut self) -> Result<Normalization, Spent> {
        self.dynamic_orders();
        loop {
            if let Err(c) = self.closure()? {
                return Ok(Normalization::Cycle(c));
            }
            let mut new: Vec<(Node, Node, EdgeKind)> = Vec::new();
            for l in 0..self.present.len() {
                let ids = &self.present[l];
                for &a in ids {
                    self.poll.work(ids.len() as u64 / 4)?;
                    let ia = self.loset.intervals[a];
                    let ti = ia.process;
                    for &b in ids {
                        let jb = self.loset.intervals[b];
                        let tj = jb.process;
                        if ti == tj {
                            continue;
                        }
                        let f0 = jb.rel.map_or(self.hi[tj], |r| r.min(self.hi[tj]));
                        if f0 <= self.lo[tj] {
                            continue;
                        }
                        let f0_id = self.offsets[tj] + (f0 - self.lo[tj] - 1) as usize;
                        let maps = ia.acq <= self.lo[ti] || self.vc[f0_id * self.n + ti] >= ia.acq;
                        if !maps {
                            continue;
                        }
                        let from = self.rel_node(a);
                        let to = self.acq_node(b);
                        let implied = match (from, to) {
                            (Node::Event((p, r)), Node::Event(_)) => {
                                self.vc[self.id(to) * self.n + p] >= r
                            }
                            _ => false,
                        };
                        if !implied {
                            new.push((from, to, EdgeKind::LockingOrder(LockId(l as u32))));
                        }
                    }
                }
            }
            if new.is_empty() {
                break;
            }
            for (a, b, k) in new {
                self.add(a, b, k);
            }
        }
        Ok(Normalization::Acyclic(Normalized {
            lo: self.lo,
            hi: self.hi,
            offsets: self.offsets,
            n: self.n,
            vc: self.vc,
            added: self.added,
        }))
    }
}

/// Strong feasibility of feasible states, remembered by sub-loset. Whether `g` is strongly
/// feasible depends only on the events between its greatest lock-free feasible predecessor `f`
/// and `g` (a thread with `f[p] = g[p]` adds no event, interval or order), so states that differ
/// only in threads outside critical sections share one answer. An enumeration meets the same
/// few sub-losets over and over.
#[derive(Default)]
pub struct StrongFeasibility {
    memo: FxHashMap<Box<[u32]>, bool>,
    key: Vec<u32>,
    /// Normalizations actually run.
    pub normalizations: u64,
    /// An estimate of the bytes the memo holds (its keys' boxes and its slots).
    pub bytes: u64,
}

/// Entries kept before the memo starts over (bounds its memory).
const MEMO_LIMIT: usize = 1 << 20;

impl StrongFeasibility {
    pub fn new() -> StrongFeasibility {
        StrongFeasibility::default()
    }

    /// [`Loset::strong_feasibility_of_feasible`], memoized.
    pub fn check(&mut self, loset: &Loset, g: &[u32]) -> bool {
        match self.check_within(loset, g, None) {
            Ok(v) => v,
            Err(_) => unreachable!("a check without a budget is never stopped"),
        }
    }

    /// [`StrongFeasibility::check`] polling `budget` during the normalization it may run:
    /// the limit reached if it was, before the answer was known (nothing is remembered then).
    pub fn check_within(
        &mut self,
        loset: &Loset,
        g: &[u32],
        budget: Option<&Budget>,
    ) -> Result<bool, Spent> {
        if loset.is_lock_free(g) {
            return Ok(true);
        }
        let f = loset.greatest_lock_free_below(g);
        if loset.locks_on_one_thread_each(&f, g) {
            return Ok(true);
        }
        self.key.clear();
        for (p, (&a, &b)) in f.iter().zip(g).enumerate() {
            if a < b {
                self.key.extend_from_slice(&[p as u32, a, b]);
            }
        }
        if let Some(&v) = self.memo.get(self.key.as_slice()) {
            return Ok(v);
        }
        self.normalizations += 1;
        let v = matches!(
            loset.normalize_within(&f, g, budget)?,
            Normalization::Acyclic(_)
        );
        if self.memo.len() >= MEMO_LIMIT {
            self.memo.clear();
            self.bytes = 0;
        }
        self.bytes += (self.key.len() * 4 + 16 + 24) as u64;
        self.memo.insert(self.key.clone().into_boxed_slice(), v);
        Ok(v)
    }
}
