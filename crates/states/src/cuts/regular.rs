//! Regular predicates by computation slicing (Mittal and Garg, "Techniques and applications of
//! computation slicing", 2005; Garg's linear predicates, Chase and Garg 1998).
//!
//! A predicate is regular when the consistent states satisfying it are closed under meet and
//! join: they form a sublattice, so there is a least satisfying state above any bound (when
//! there is any satisfying one) and, for each event `e`, a least satisfying state `J(e)`
//! holding `e`. The *slice* is that map: a satisfying state is exactly a consistent state that
//! holds `J(e)` for each of its events and is above the least satisfying state, so the least
//! satisfying state above any `lo` is the join of the least one and of `J` of each frontier
//! event of `lo` (the join of satisfying states satisfies the predicate, and every satisfying
//! state above `lo` holds all of them). [`Slice::satisfying`] visits exactly the satisfying
//! states in lexical order from it, extending a prefix of processes' states only when the
//! least satisfying state above it keeps it (as [`super::conjunctive::satisfying`] does for
//! conjunctive predicates): each state costs `O(n^2)` joins per process, however many
//! consistent states do not satisfy the predicate.
//!
//! The predicates recognised ([`super::predicate::Bound::regular`]) are conjunctions of local
//! predicates (each process's candidate states) and of relations `F(g[i]) <= H(g[j])` between
//! two processes with `F` and `H` nondecreasing. [`Regular::least`] finds the least satisfying
//! state above a bound by advancing forbidden processes (Chase and Garg's linear predicate
//! detection): a process is advanced when its state is not a candidate, when another's
//! frontier event needs more of it (consistency), or when it is the right side of a relation
//! that fails (its `H` is too small for the other's `F`), each time to the least state any
//! satisfying state above must have. Each advance moves one process forward, so there are at
//! most as many as events, each followed by `O(n + relations)` work.

use super::poset::Poset;
use super::predicate::LocalStates;
use super::Visitor;
use hindsight_budget::{Account, Budget, Meter, Spent};
use std::ops::ControlFlow;

/// `left_value[g[left]] <= right_bound[g[right]]`, both nondecreasing, indexed by state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relation {
    pub left: usize,
    pub left_value: Vec<i128>,
    pub right: usize,
    pub right_bound: Vec<i128>,
}

/// A regular predicate as this module decides it: local candidate states and relations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regular {
    pub local: LocalStates,
    pub relations: Vec<Relation>,
    /// Per process, the relations whose left side it is.
    by_left: Vec<Vec<usize>>,
}

impl Regular {
    pub fn new(local: LocalStates, relations: Vec<Relation>) -> Regular {
        let mut by_left = vec![Vec::new(); local.states.len()];
        for (k, r) in relations.iter().enumerate() {
            by_left[r.left].push(k);
        }
        Regular {
            local,
            relations,
            by_left,
        }
    }

    /// Whether the predicate is conjunctive (no relation between processes).
    pub fn is_conjunctive(&self) -> bool {
        self.relations.is_empty()
    }

    /// Whether the consistent state `g` satisfies the predicate, by its parts.
    pub fn holds(&self, g: &[u32]) -> bool {
        !self.local.never
            && (0..g.len()).all(|p| self.local.states[p].binary_search(&g[p]).is_ok())
            && self
                .relations
                .iter()
                .all(|r| r.left_value[g[r.left] as usize] <= r.right_bound[g[r.right] as usize])
    }

    /// The least consistent state `g >= lo` satisfying the predicate, or `None` if there is
    /// none. `advances` counts the states skipped (each advance of a process).
    pub fn least(&self, poset: &Poset, lo: &[u32], advances: &mut u64) -> Option<Vec<u32>> {
        if self.local.never {
            return None;
        }
        let n = poset.processes();
        let mut g = lo.to_vec();
        let mut pending: Vec<usize> = (0..n).collect();
        let mut queued = vec![true; n];
        while let Some(p) = pending.pop() {
            queued[p] = false;
            let mut raise = |q: usize, to: u32, g: &mut [u32], advances: &mut u64| {
                g[q] = to;
                *advances += 1;
                if !queued[q] {
                    queued[q] = true;
                    pending.push(q);
                }
            };
            let s = &self.local.states[p];
            let candidate = *s.get(s.partition_point(|&x| x < g[p]))?;
            if candidate != g[p] {
                g[p] = candidate;
                *advances += 1;
            }
            if g[p] > 0 {
                let clock = poset.clock(p, g[p]);
                for q in 0..n {
                    if q != p && clock[q] > g[q] {
                        raise(q, clock[q], &mut g, advances);
                    }
                }
            }
            for &k in &self.by_left[p] {
                let r = &self.relations[k];
                let need = r.left_value[g[p] as usize];
                let j = r.right;
                let from = g[j] as usize;
                if r.right_bound[from] >= need {
                    continue;
                }
                // `right_bound` is nondecreasing: the first state of `j` that bounds `need`.
                let y = from + r.right_bound[from..].partition_point(|&b| b < need);
                if y >= r.right_bound.len() {
                    return None;
                }
                raise(j, y as u32, &mut g, advances);
            }
        }
        Some(g)
    }
}

/// The slice of a poset for a regular predicate: the least satisfying state, and `J(e)` for
/// every event `e` that some satisfying state holds.
#[derive(Clone, Debug)]
pub struct Slice {
    /// The least satisfying state; `None`: nothing satisfies the predicate.
    pub bottom: Option<Vec<u32>>,
    /// Per process `p`, the last state of `p` that some satisfying state has.
    pub top: Vec<u32>,
    /// Per process `p`, `J((p, i))` for `bottom[p] < i <= top[p]`, `n` components each (for
    /// `i <= bottom[p]`, `J` is `bottom`).
    least: Vec<Vec<u32>>,
    /// Advances of [`Regular::least`] while computing it.
    pub advances: u64,
}

impl Slice {
    /// Computes the slice of `poset` for `regular` within `budget`: each event's `J` starts
    /// from the one before it on its process (the least satisfying state holding `(p, i + 1)`
    /// holds `(p, i)`), so each process's search only moves forward. The table is accounted
    /// to the budget's memory limit.
    pub fn compute(poset: &Poset, regular: &Regular, budget: &Budget) -> Result<Slice, Spent> {
        let n = poset.processes();
        let mut meter = Meter::new(budget);
        let mut account = Account::new(budget);
        let mut advances = 0;
        let bottom = regular.least(poset, &vec![0; n], &mut advances);
        let Some(b) = &bottom else {
            return Ok(Slice {
                bottom,
                top: vec![0; n],
                least: vec![Vec::new(); n],
                advances,
            });
        };
        let mut top = b.clone();
        let mut least = Vec::with_capacity(n);
        let mut held = 0u64;
        for p in 0..n {
            let mut rows: Vec<u32> = Vec::new();
            let mut previous = b.clone();
            for i in b[p] + 1..=poset.len(p) {
                meter.heavy_step()?;
                let clock = poset.clock(p, i);
                let lo: Vec<u32> = previous
                    .iter()
                    .zip(clock)
                    .map(|(&a, &c)| a.max(c))
                    .collect();
                let Some(j) = regular.least(poset, &lo, &mut advances) else {
                    break;
                };
                rows.extend_from_slice(&j);
                held += 4 * n as u64;
                account.hold(held)?;
                top[p] = i;
                previous = j;
            }
            least.push(rows);
        }
        // The table's memory goes back to the budget with the account; the slice is small
        // next to the states the enumeration it replaces would have visited.
        drop(account);
        Ok(Slice {
            bottom,
            top,
            least,
            advances,
        })
    }

    /// `J((p, i))` for `bottom[p] < i <= top[p]`.
    fn row(&self, p: usize, i: u32, bottom: &[u32]) -> &[u32] {
        let n = bottom.len();
        let k = (i - bottom[p] - 1) as usize;
        &self.least[p][k * n..(k + 1) * n]
    }

    /// The least satisfying state `g >= lo`, if any: the join of the least satisfying state
    /// and of `J` of each process's state in `lo`.
    pub fn least_above(&self, lo: &[u32]) -> Option<Vec<u32>> {
        let bottom = self.bottom.as_ref()?;
        let mut g = bottom.clone();
        for (p, &i) in lo.iter().enumerate() {
            if i <= bottom[p] {
                continue;
            }
            if i > self.top[p] {
                return None;
            }
            for (x, &y) in g.iter_mut().zip(self.row(p, i, bottom)) {
                *x = (*x).max(y);
            }
        }
        Some(g)
    }

    /// Visits every satisfying state, in lexical order, and no other.
    pub fn satisfying<V: Visitor + ?Sized>(&self, visit: &mut V) -> ControlFlow<()> {
        let Some(first) = self.bottom.clone() else {
            return ControlFlow::Continue(());
        };
        let n = first.len();
        // `levels[k]`: the least satisfying state with the states of processes `0..k` fixed
        // as they are in it; its own state of `k` is the one being tried.
        let mut levels = vec![first];
        let mut lo = vec![0u32; n];
        loop {
            let k = levels.len() - 1;
            if k < n {
                let g = levels[k].clone();
                levels.push(g);
                continue;
            }
            visit.visit(&levels[n])?;
            levels.pop();
            // The next state of the deepest process that has one, keeping the prefix before
            // it: the least satisfying state above (prefix, g[k] + 1, 0, ...), if it keeps
            // the prefix. A later state of `k` needs at least as much of every process, so
            // once the prefix is pushed up no later state of `k` keeps it.
            loop {
                let Some(g) = levels.pop() else {
                    return ControlFlow::Continue(());
                };
                let k = levels.len();
                if g[k] >= self.top[k] {
                    continue;
                }
                lo[..k].copy_from_slice(&g[..k]);
                lo[k] = g[k] + 1;
                lo[k + 1..].fill(0);
                if let Some(h) = self.least_above(&lo).filter(|h| h[..k] == g[..k]) {
                    levels.push(h);
                    break;
                }
            }
        }
    }
}
