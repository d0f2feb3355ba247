//! Exact reachability by simulation (Chang's thesis, Definitions 11-14 and Section 6.3.3): one
//! event at a time, through feasible global states only, memoizing the states seen, breadth- or
//! depth-first. Used to decide the states the polynomial classes leave open, restricted to the
//! events between a state and its greatest lock-free feasible predecessor (Theorem 13); to
//! enumerate every reachable state (the BFS/DFS columns of Table 6.1 and the oracle); and to
//! decide whether a loset is valid (Definition 14), pruning every state from which the
//! normalized rest of the loset has a cycle.
//!
//! Runs are lists of events `(process, index)`. It knows nothing of predicates or reports.

use super::classes::{Cycle, Normalization};
use super::loset::{Ev, Loset};
use hindsight_budget::{Account, Budget, Meter, Spent};
use rustc_hash::FxHashSet;
use std::collections::VecDeque;
use std::ops::ControlFlow;

/// Breadth- or depth-first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Bfs,
    Dfs,
}

/// Whether `g + (p, g[p] + 1)` is feasible, given that `g` is.
#[inline]
pub fn can_step(loset: &Loset, g: &[u32], p: usize) -> bool {
    let i = g[p] + 1;
    if i > loset.len(p) {
        return false;
    }
    let c = loset.hb.clock(p, i);
    for (q, &gq) in g.iter().enumerate() {
        if q != p && c[q] > gq {
            return false;
        }
    }
    let held = loset.held(p, i);
    if held.is_empty() {
        return true;
    }
    for &h in held {
        let l = loset.intervals[h as usize].lock;
        for (q, &gq) in g.iter().enumerate() {
            if q != p
                && gq > 0
                && loset
                    .held(q, gq)
                    .iter()
                    .any(|&k| loset.intervals[k as usize].lock == l)
            {
                return false;
            }
        }
    }
    true
}

/// Whether `seq` is a run from `from` (Definition 11): each event is the next of its thread
/// and every state it passes through is feasible. Returns the state reached.
pub fn replay(loset: &Loset, from: &[u32], seq: &[Ev]) -> Option<Vec<u32>> {
    if !loset.is_feasible(from) {
        return None;
    }
    let mut g = from.to_vec();
    for &(p, i) in seq {
        if p >= g.len() || g[p] + 1 != i || !can_step(loset, &g, p) {
            return None;
        }
        g[p] = i;
    }
    Some(g)
}

/// A packing of states into one `u128` when every index fits, for fast memo sets.
struct Packing {
    shifts: Vec<u32>,
}

impl Packing {
    fn new(loset: &Loset) -> Option<Packing> {
        let mut shifts = Vec::with_capacity(loset.processes());
        let mut total = 0u32;
        for p in 0..loset.processes() {
            shifts.push(total);
            total += 32 - loset.len(p).leading_zeros();
            if total > 128 {
                return None;
            }
        }
        Some(Packing { shifts })
    }

    #[inline]
    fn pack(&self, g: &[u32]) -> u128 {
        g.iter()
            .zip(&self.shifts)
            .fold(0u128, |k, (&x, &s)| k | (u128::from(x) << s))
    }
}

/// A set of states.
enum Seen {
    Packed(Packing, FxHashSet<u128>),
    Plain(FxHashSet<Box<[u32]>>),
}

impl Seen {
    fn new(loset: &Loset) -> Seen {
        match Packing::new(loset) {
            Some(p) => Seen::Packed(p, FxHashSet::default()),
            None => Seen::Plain(FxHashSet::default()),
        }
    }

    /// Inserts; `true` if the state was new.
    #[inline]
    fn insert(&mut self, g: &[u32]) -> bool {
        match self {
            Seen::Packed(p, s) => s.insert(p.pack(g)),
            Seen::Plain(s) => s.insert(g.to_vec().into_boxed_slice()),
        }
    }

    /// An estimate of the bytes held: the table's slots and, unpacked, each state's box.
    fn bytes(&self, processes: usize) -> u64 {
        let bytes = match self {
            Seen::Packed(_, s) => s.capacity() * (16 + 1),
            Seen::Plain(s) => s.capacity() * (16 + 1) + s.len() * (processes * 4 + 16),
        };
        bytes as u64
    }
}

/// Visits every state reachable from `from` without leaving `to` (`from <= g <= to`), once
/// each, breadth- or depth-first (the simulation of Section 6.3.3). `from` must be feasible.
/// Returns how many states were visited.
pub fn simulate<V: FnMut(&[u32]) -> ControlFlow<()>>(
    loset: &Loset,
    from: &[u32],
    to: &[u32],
    order: Order,
    mut visit: V,
) -> u64 {
    let n = loset.processes();
    let mut seen = Seen::new(loset);
    let mut work: VecDeque<Box<[u32]>> = VecDeque::new();
    seen.insert(from);
    work.push_back(from.to_vec().into_boxed_slice());
    let mut count = 0u64;
    let mut next = vec![0u32; n];
    while let Some(g) = match order {
        Order::Bfs => work.pop_front(),
        Order::Dfs => work.pop_back(),
    } {
        count += 1;
        if visit(&g).is_break() {
            break;
        }
        for p in 0..n {
            if g[p] < to[p] && can_step(loset, &g, p) {
                next.copy_from_slice(&g);
                next[p] += 1;
                if seen.insert(&next) {
                    work.push_back(next.clone().into_boxed_slice());
                }
            }
        }
    }
    count
}

/// The outcome of a search for a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOutcome {
    /// A run from the start to the goal, if there is one.
    pub run: Option<Vec<Ev>>,
    /// States explored.
    pub explored: u64,
    /// The search stopped, undecided, when this limit of its budget was reached.
    pub spent: Option<Spent>,
}

/// Searches a run from `from` to `to` (`from <= to`, `from` feasible) through feasible states
/// between them, depth-first with memo, within `budget` (its memo accounted to the memory
/// limit). `prune(g)` may cut states known to lead nowhere.
pub fn search_run(
    loset: &Loset,
    from: &[u32],
    to: &[u32],
    mut prune: impl FnMut(&[u32]) -> bool,
    budget: &Budget,
) -> SearchOutcome {
    let n = loset.processes();
    let mut seen = Seen::new(loset);
    let mut meter = Meter::new(budget);
    let mut account = Account::new(budget);
    let mut g = from.to_vec();
    seen.insert(&g);
    let mut explored = 1u64;
    if g == to {
        return SearchOutcome {
            run: Some(Vec::new()),
            explored,
            spent: None,
        };
    }
    // The path as (process stepped, next process to try at this depth).
    let mut path: Vec<(usize, usize)> = Vec::new();
    let mut next_p = 0usize;
    loop {
        let mut stepped = false;
        while next_p < n {
            let p = next_p;
            next_p += 1;
            if g[p] < to[p] && can_step(loset, &g, p) {
                g[p] += 1;
                if seen.insert(&g) {
                    explored += 1;
                    if g == to {
                        path.push((p, next_p));
                        return SearchOutcome {
                            run: Some(run_of(from, &path)),
                            explored,
                            spent: None,
                        };
                    }
                    // `prune` normalizes a sub-loset per state: each state is a heavy step.
                    let within = match meter.heavy_step() {
                        Ok(()) => account.hold(seen.bytes(n)),
                        other => other,
                    };
                    if let Err(spent) = within {
                        return SearchOutcome {
                            run: None,
                            explored,
                            spent: Some(spent),
                        };
                    }
                    if !prune(&g) {
                        path.push((p, next_p));
                        next_p = 0;
                        stepped = true;
                        break;
                    }
                }
                g[p] -= 1;
            }
        }
        if stepped {
            continue;
        }
        match path.pop() {
            Some((p, resume)) => {
                g[p] -= 1;
                next_p = resume;
            }
            None => {
                return SearchOutcome {
                    run: None,
                    explored,
                    spent: None,
                }
            }
        }
    }
}

fn run_of(from: &[u32], path: &[(usize, usize)]) -> Vec<Ev> {
    let mut g = from.to_vec();
    path.iter()
        .map(|&(p, _)| {
            g[p] += 1;
            (p, g[p])
        })
        .collect()
}

/// The projection `R |^ g` of a run onto the events of `g` (Theorems 11 and 18).
pub fn project(run: &[Ev], g: &[u32]) -> Vec<Ev> {
    run.iter().copied().filter(|&(p, i)| i <= g[p]).collect()
}

/// Whether a loset is valid (Definition 14).
#[derive(Clone, Debug)]
pub enum Validity {
    /// A run reaching the final state.
    Valid(Vec<Ev>),
    Invalid(Invalidity),
    /// The search for a run stopped undecided: the budget ran out after `explored` states.
    Unknown {
        explored: u64,
        spent: Spent,
    },
}

/// Why the final state is unreachable.
#[derive(Clone, Debug)]
pub enum Invalidity {
    /// Two threads end holding the same lock.
    FinalIncompatible(hindsight_trace::LockId, Ev, Ev),
    /// Normalizing the whole loset closes a cycle.
    Cycle(Cycle),
    /// No run reaches the final state (Fig. 5.3): the search, which cuts every state from which
    /// the normalized rest of the loset has a cycle, found none. `blocked` is the first state
    /// cut and its cycle.
    NoRun {
        explored: u64,
        blocked: Option<(Vec<u32>, Cycle)>,
    },
}

/// Decides validity: the trace order when it recorded its locks in order, otherwise a search
/// from the empty state to the final one, within `budget`.
pub fn check_valid(loset: &Loset, budget: &Budget) -> Validity {
    let e = loset.final_state();
    if let Some((l, a, b)) = loset.incompatible_pair(&e) {
        return Validity::Invalid(Invalidity::FinalIncompatible(l, a, b));
    }
    let zero = vec![0; loset.processes()];
    match loset.normalize_within(&zero, &e, Some(budget)) {
        Ok(Normalization::Cycle(c)) => return Validity::Invalid(Invalidity::Cycle(c)),
        Ok(Normalization::Acyclic(_)) => {}
        Err(spent) => return Validity::Unknown { explored: 0, spent },
    }
    if loset.lock_valid {
        let run = loset.trace_order();
        debug_assert!(replay(loset, &zero, &run).as_deref() == Some(&e[..]));
        return Validity::Valid(run);
    }
    let mut blocked = None;
    // A normalization stopped by the budget prunes: the search stops at its next poll.
    let prune = |g: &[u32]| match loset.normalize_within(g, &e, Some(budget)) {
        Ok(Normalization::Acyclic(_)) => false,
        Err(_) => true,
        Ok(Normalization::Cycle(c)) => {
            if blocked.is_none() {
                blocked = Some((g.to_vec(), c));
            }
            true
        }
    };
    let outcome = search_run(loset, &zero, &e, prune, budget);
    if let Some(spent) = outcome.spent {
        return Validity::Unknown {
            explored: outcome.explored,
            spent,
        };
    }
    match outcome.run {
        Some(run) => Validity::Valid(run),
        None => Validity::Invalid(Invalidity::NoRun {
            explored: outcome.explored,
            blocked,
        }),
    }
}

/// The number of reachable states, counted by simulation.
pub fn reachable_count(loset: &Loset, order: Order) -> u64 {
    let zero = vec![0; loset.processes()];
    simulate(loset, &zero, &loset.final_state(), order, |_| {
        ControlFlow::Continue(())
    })
}
