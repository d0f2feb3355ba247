//! The definitions of Chang's thesis applied literally, for oracles on small losets: every
//! index vector as a candidate state, relations as boolean matrices closed by Floyd-Warshall,
//! `|->` checked over every pair of events (Definition 15), strong feasibility (Definition 20)
//! by adding locking orders until nothing changes, and the runs to the final state counted
//! over every feasible state. Exponential; it shares no code with the fast algorithms beyond
//! the loset itself.

use super::loset::{Ev, Loset};
use rustc_hash::FxHashMap;

/// Every global state (index vector) of the loset, in lexical order.
pub fn all_states(loset: &Loset) -> Vec<Vec<u32>> {
    let n = loset.processes();
    let mut out = Vec::new();
    let mut g = vec![0u32; n];
    loop {
        out.push(g.clone());
        let mut p = n;
        loop {
            if p == 0 {
                return out;
            }
            p -= 1;
            if g[p] < loset.len(p) {
                g[p] += 1;
                for x in &mut g[p + 1..] {
                    *x = 0;
                }
                break;
            }
        }
    }
}

/// Whether event `(p, i)` holds `lock`'s interval `k` (Definition 8 for one interval).
fn in_interval(loset: &Loset, k: usize, (p, i): Ev) -> bool {
    let iv = loset.intervals[k];
    iv.process == p && iv.acq <= i && iv.rel.is_none_or(|r| i < r)
}

/// Definitions 7, 9, 10 literally.
pub fn feasible(loset: &Loset, g: &[u32]) -> bool {
    let n = loset.processes();
    // Consistent: every event of g has every event that happens before it in g.
    for p in 0..n {
        for i in 1..=g[p] {
            for (q, &gq) in g.iter().enumerate() {
                for j in gq + 1..=loset.len(q) {
                    if loset.hb_leq((q, j), (p, i)) {
                        return false;
                    }
                }
            }
        }
    }
    for p in 0..n {
        for q in p + 1..n {
            if g[p] == 0 || g[q] == 0 {
                continue;
            }
            for a in 0..loset.intervals.len() {
                for b in 0..loset.intervals.len() {
                    if loset.intervals[a].lock == loset.intervals[b].lock
                        && in_interval(loset, a, (p, g[p]))
                        && in_interval(loset, b, (q, g[q]))
                    {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Lock-free feasible, literally.
pub fn lock_free_feasible(loset: &Loset, g: &[u32]) -> bool {
    feasible(loset, g)
        && (0..loset.processes()).all(|p| {
            g[p] == 0 || !(0..loset.intervals.len()).any(|k| in_interval(loset, k, (p, g[p])))
        })
}

/// The greatest lock-free feasible state below `g`: the join of all of them (Theorem 12).
pub fn greatest_lock_free_below(loset: &Loset, g: &[u32]) -> Vec<u32> {
    let mut best = vec![0u32; loset.processes()];
    for s in all_states(loset) {
        if s.iter().zip(g).all(|(a, b)| a <= b) && lock_free_feasible(loset, &s) {
            for (x, &y) in best.iter_mut().zip(&s) {
                *x = (*x).max(y);
            }
        }
    }
    best
}

/// Definition 20 literally, on the events `F < e <= G` with `F` the greatest lock-free
/// feasible state below `G`. An interval still held at `G` that would have to end before
/// another begins (`I |-> J`) cannot be ordered inside `G`: not strongly feasible.
pub fn strongly_feasible(loset: &Loset, g: &[u32]) -> bool {
    if !feasible(loset, g) {
        return false;
    }
    let f = greatest_lock_free_below(loset, g);
    let n = loset.processes();
    let mut events: Vec<Ev> = Vec::new();
    for p in 0..n {
        for i in f[p] + 1..=g[p] {
            events.push((p, i));
        }
    }
    let m = events.len();
    let index: FxHashMap<Ev, usize> = events.iter().enumerate().map(|(k, &e)| (e, k)).collect();
    let mut r = vec![vec![false; m]; m];
    for a in 0..m {
        for b in 0..m {
            if a != b && loset.hb_leq(events[a], events[b]) {
                r[a][b] = true;
            }
        }
    }
    // Intervals inside (F, G]: F is lock-free, so each starts after F.
    let inside: Vec<usize> = (0..loset.intervals.len())
        .filter(|&k| {
            let iv = loset.intervals[k];
            iv.acq > f[iv.process] && iv.acq <= g[iv.process]
        })
        .collect();
    let held_at_g = |k: usize| {
        let iv = loset.intervals[k];
        iv.rel.is_none_or(|x| x > g[iv.process])
    };
    // Dynamic locking orders (Definition 19).
    for &j in &inside {
        if !held_at_g(j) {
            continue;
        }
        let jv = loset.intervals[j];
        for i in 0..n {
            if i == jv.process {
                continue;
            }
            let recent = inside
                .iter()
                .copied()
                .filter(|&k| {
                    let iv = loset.intervals[k];
                    iv.process == i && iv.lock == jv.lock && !held_at_g(k)
                })
                .max_by_key(|&k| loset.intervals[k].acq);
            if let Some(k) = recent {
                let rel = loset.intervals[k].rel.expect("released");
                r[index[&(i, rel)]][index[&(jv.process, jv.acq)]] = true;
            }
        }
    }
    loop {
        close(&mut r);
        if (0..m).any(|a| r[a][a]) {
            return false;
        }
        let mut changed = false;
        for &a in &inside {
            for &b in &inside {
                let (iv, jv) = (loset.intervals[a], loset.intervals[b]);
                if iv.lock != jv.lock || iv.process == jv.process {
                    continue;
                }
                // I |-> J: some e with I.acq <= e (program order) precedes some f <= J.rel.
                let maps = events.iter().any(|&e| {
                    e.0 == iv.process
                        && e.1 >= iv.acq
                        && events.iter().any(|&fe| {
                            fe.0 == jv.process
                                && jv.rel.is_none_or(|x| fe.1 <= x)
                                && (e == fe || r[index[&e]][index[&fe]])
                        })
                });
                if !maps {
                    continue;
                }
                if held_at_g(a) {
                    return false;
                }
                let from = index[&(iv.process, iv.rel.expect("released"))];
                let to = index[&(jv.process, jv.acq)];
                if !r[from][to] {
                    r[from][to] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return true;
        }
    }
}

fn close(r: &mut [Vec<bool>]) {
    for k in 0..r.len() {
        let through = r[k].clone();
        for row in r.iter_mut() {
            if row[k] {
                for (x, &y) in row.iter_mut().zip(&through) {
                    *x |= y;
                }
            }
        }
    }
}

/// The reachable states (Definition 12): closure of the empty state under feasible steps.
pub fn reachable(loset: &Loset) -> Vec<Vec<u32>> {
    let n = loset.processes();
    let mut seen: Vec<Vec<u32>> = vec![vec![0; n]];
    let mut k = 0;
    let mut set: rustc_hash::FxHashSet<Vec<u32>> = seen.iter().cloned().collect();
    while k < seen.len() {
        let g = seen[k].clone();
        k += 1;
        for p in 0..n {
            if g[p] < loset.len(p) {
                let mut h = g.clone();
                h[p] += 1;
                if feasible(loset, &h) && set.insert(h.clone()) {
                    seen.push(h);
                }
            }
        }
    }
    seen.sort();
    seen
}

/// The number of runs from the empty state to the final one through states `ok` accepts
/// (Definition 18 with `ok` = feasibility of the loset in question).
pub fn count_runs(loset: &Loset, ok: &dyn Fn(&[u32]) -> bool) -> u128 {
    let n = loset.processes();
    let end = loset.final_state();
    let mut memo: FxHashMap<Vec<u32>, u128> = FxHashMap::default();
    fn go(
        g: &mut Vec<u32>,
        end: &[u32],
        ok: &dyn Fn(&[u32]) -> bool,
        memo: &mut FxHashMap<Vec<u32>, u128>,
    ) -> u128 {
        if g == end {
            return 1;
        }
        if let Some(&c) = memo.get(g.as_slice()) {
            return c;
        }
        let mut total = 0;
        for p in 0..g.len() {
            if g[p] < end[p] {
                g[p] += 1;
                if ok(g) {
                    total += go(g, end, ok, memo);
                }
                g[p] -= 1;
            }
        }
        memo.insert(g.clone(), total);
        total
    }
    let mut g = vec![0; n];
    if !ok(&g) {
        return 0;
    }
    go(&mut g, &end, ok, &mut memo)
}
