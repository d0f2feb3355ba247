//! Detection without enumeration for conjunctive predicates (Garg and Waldecker, "Detection
//! of weak unstable predicates in distributed programs", 1994), and the enumeration of exactly
//! their satisfying states (the states of the predicate's slice, Mittal and Garg).
//!
//! A conjunctive predicate holds in a consistent state when each process's state is one where
//! its local predicate holds: its *candidates*. The satisfying states are closed under meet
//! and join (the predicate is regular), so there is a least one above any bound when there is
//! any. Garg and Waldecker find it in one pass over each process's candidates: if the
//! candidate of `q` has `c` events of `p` before it, no consistent state holding it (or a later
//! candidate of `q`) has fewer than `c` events of `p`, so `p`'s candidates below `c` are
//! eliminated for good; when nothing is eliminated the candidates form a consistent state,
//! and it is the least satisfying one. Each candidate is eliminated once and each elimination
//! costs a look at one clock: O(n * |E|).
//!
//! The least satisfying state is below every other one componentwise, so it is also the first
//! in lexical order (what Lex and QuickLex find first) and the only one at its level (what BFS
//! finds first): the answers of the detector and of enumeration are the same state.
//!
//! [`satisfying`] visits every satisfying state in lexical order, and no other: a prefix of
//! processes' states is extended only when the least satisfying state above it keeps it.

use super::poset::Poset;
use super::predicate::LocalStates;
use super::Visitor;
use std::ops::ControlFlow;

/// The least consistent state `g >= lo` whose every process's state is one of its candidates
/// (`local.states`), or `None` if there is none. `advances` counts the candidates eliminated.
pub fn least(
    poset: &Poset,
    local: &LocalStates,
    lo: &[u32],
    advances: &mut u64,
) -> Option<Vec<u32>> {
    if local.never {
        return None;
    }
    let n = poset.processes();
    let states = &local.states;
    // `at[p]` indexes `p`'s current candidate in `states[p]`.
    let mut at = vec![0usize; n];
    let mut g = vec![0u32; n];
    for p in 0..n {
        at[p] = states[p].partition_point(|&i| i < lo[p]);
        g[p] = *states[p].get(at[p])?;
    }
    // Processes whose candidate changed since their clock was last compared with the others'.
    let mut pending: Vec<usize> = (0..n).collect();
    let mut queued = vec![true; n];
    while let Some(q) = pending.pop() {
        queued[q] = false;
        let clock = poset.clock(q, g[q]);
        for p in 0..n {
            if clock[p] <= g[p] {
                continue;
            }
            // Every candidate of `p` below `clock[p]` is eliminated.
            let s = &states[p];
            while at[p] < s.len() && s[at[p]] < clock[p] {
                at[p] += 1;
                *advances += 1;
            }
            g[p] = *s.get(at[p])?;
            if !queued[p] {
                queued[p] = true;
                pending.push(p);
            }
        }
    }
    Some(g)
}

/// Visits every consistent state where the conjunctive predicate holds, in lexical order.
pub fn satisfying<V: Visitor + ?Sized>(
    poset: &Poset,
    local: &LocalStates,
    visit: &mut V,
    advances: &mut u64,
) -> ControlFlow<()> {
    let n = poset.processes();
    let Some(first) = least(poset, local, &vec![0; n], advances) else {
        return ControlFlow::Continue(());
    };
    // `levels[k]`: the least satisfying state with the states of processes `0..k` fixed as
    // they are in it; its own state of `k` is the one being tried.
    let mut levels = vec![first];
    loop {
        let k = levels.len() - 1;
        if k < n {
            let g = levels[k].clone();
            levels.push(g);
            continue;
        }
        visit.visit(&levels[n])?;
        levels.pop();
        // The next state of the deepest process that has one, keeping the prefix before it.
        loop {
            let Some(g) = levels.pop() else {
                return ControlFlow::Continue(());
            };
            let k = levels.len();
            if let Some(next) = next_with_prefix(poset, local, &g, k, advances) {
                levels.push(next);
                break;
            }
        }
    }
}

/// The least satisfying state whose processes `0..k` are as in `g` and whose process `k` is
/// past `g[k]`, if any.
fn next_with_prefix(
    poset: &Poset,
    local: &LocalStates,
    g: &[u32],
    k: usize,
    advances: &mut u64,
) -> Option<Vec<u32>> {
    let s = &local.states[k];
    let next = s[s.partition_point(|&i| i <= g[k])..].first()?;
    let mut lo = vec![0; g.len()];
    lo[..k].copy_from_slice(&g[..k]);
    lo[k] = *next;
    let h = least(poset, local, &lo, advances)?;
    // A later state of `k` needs at least as much of every other process, so once the prefix
    // is pushed up no later state of `k` keeps it.
    (h[..k] == g[..k]).then_some(h)
}
