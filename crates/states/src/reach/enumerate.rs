//! Enumeration of the strongly feasible global states of a loset with QuickLex modified as in
//! Chang's thesis, Section 6.3.3.1 (Algorithms 18-21): lexical order over the consistent states,
//! skipping every state whose high-order part is already incompatible (the forbidden maximal
//! event, Definition 21), with the union of effective locks of the high-order frontier kept
//! incrementally, and strong feasibility decided per state (Lex1) or only when the previous
//! state does not imply it (Lex2: `G = F + e` with `F` strongly feasible and `G` feasible).
//!
//! The consistent-state walk is QuickLex's (its RESET keeps the per-process stacks of prefix
//! maxima, Algorithms 14-16); PROPAGATE may add several events of one thread to get past a lock
//! conflict (Algorithm 20). Unlike Algorithm 18 the walk runs over the loset's own order rather
//! than a normalized one: normalizing first would also drop reachable states from which no run
//! reaches the end (deadlocks, Fig. 6.5 (a) and (b)), which a bug hunt wants to see. It knows
//! nothing of predicates: a visitor sees each strongly feasible state once.

use super::classes::StrongFeasibility;
use super::loset::Loset;
use crate::cuts::Visitor;

/// Which strong-feasibility check the walk makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lex {
    /// On every feasible state.
    Lex1,
    /// Only when the previous state was not strongly feasible or differs by more than one event.
    Lex2,
}

/// What one enumeration did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LexStats {
    /// Strongly feasible states visited.
    pub states: u64,
    /// Feasible states whose strong feasibility was computed.
    pub checks: u64,
    /// Feasible states found not strongly feasible.
    pub pruned: u64,
    /// Sub-losets normalized (the other checks were answered by a fast path or the memo).
    pub normalizations: u64,
}

/// Per-event effective locks as bitsets, `words` words per event.
struct LockBits {
    words: usize,
    /// Per process, `(len + 1) * words`.
    bits: Vec<Vec<u64>>,
}

impl LockBits {
    fn new(loset: &Loset) -> LockBits {
        let words = loset.locks().div_ceil(64).max(1);
        let bits = (0..loset.processes())
            .map(|p| {
                let mut v = vec![0u64; (loset.len(p) as usize + 1) * words];
                for i in 1..=loset.len(p) {
                    for l in loset.effective_locks(p, i) {
                        v[i as usize * words + l.index() / 64] |= 1 << (l.index() % 64);
                    }
                }
                v
            })
            .collect();
        LockBits { words, bits }
    }

    #[inline]
    fn of(&self, p: usize, i: u32) -> &[u64] {
        let s = i as usize * self.words;
        &self.bits[p][s..s + self.words]
    }
}

/// Visits every strongly feasible global state of `loset` once, in lexical order.
pub fn enumerate<V: Visitor + ?Sized>(loset: &Loset, lex: Lex, visit: &mut V) -> LexStats {
    let n = loset.processes();
    let mut stats = LexStats::default();
    let mut g = vec![0u32; n];
    if n == 0 {
        stats.states = 1;
        let _ = visit.visit(&g);
        return stats;
    }
    let locks = LockBits::new(loset);
    let w = locks.words;
    // EL[i] = union of EL(G[j]) for j <= i, `w` words each.
    let mut el = vec![0u64; n * w];
    let rows: Vec<&[u32]> = (0..n).map(|p| loset.hb.rows(p)).collect();
    let len: Vec<u32> = (0..n).map(|p| loset.len(p)).collect();
    // QuickLex's stacks (Algorithm 15) of prefix maxima `(process, value)` for each process.
    let mut pid = vec![0u32; n * n];
    let mut val = vec![0u32; n * n];
    let mut top = vec![0usize; n];
    for l in 1..n {
        pid[l * n] = 0;
        val[l * n] = 0;
        top[l] = 1;
    }
    let mut strong_feasibility = StrongFeasibility::new();
    let mut compatible_until = n; // 0-based: first forbidden process, `n` when compatible
    let mut sum: u32 = 0;
    let mut prev_strong = true;
    loop {
        // Lines 5-10 of Algorithm 18.
        if compatible_until == n {
            let strong = match lex {
                Lex::Lex2 if prev_strong && sum <= 1 => true,
                _ => {
                    stats.checks += 1;
                    let checked = strong_feasibility.check_within(loset, &g, visit.budget());
                    // A check may prune: the visitor hears of the work (and the memo's
                    // growth) even when no state is visited for a long while; a check the
                    // budget stopped is heard as such, and the visitor stops.
                    let held = visit.hold(strong_feasibility.bytes);
                    let Ok(strong) = checked else {
                        stats.normalizations = strong_feasibility.normalizations;
                        return stats;
                    };
                    if held.is_break() {
                        stats.normalizations = strong_feasibility.normalizations;
                        return stats;
                    }
                    strong
                }
            };
            prev_strong = strong;
            if strong {
                stats.states += 1;
                if visit.visit(&g).is_break() {
                    stats.normalizations = strong_feasibility.normalizations;
                    return stats;
                }
            } else {
                stats.pruned += 1;
            }
        } else {
            prev_strong = false;
        }
        // PROPAGATE (Algorithm 20).
        let start = compatible_until.min(n - 1);
        let mut found = None;
        let mut k = start + 1;
        while k > 0 {
            k -= 1;
            sum = 0;
            let original = g[k];
            let (below, _) = el.split_at(k * w);
            let prefix = if k == 0 {
                &[][..]
            } else {
                &below[(k - 1) * w..]
            };
            while g[k] < len[k] {
                let i = g[k] + 1;
                let c = &rows[k][i as usize * n..(i as usize + 1) * n];
                if (0..k).any(|q| c[q] > g[q]) {
                    break;
                }
                g[k] = i;
                sum += 1;
                let mine = locks.of(k, i);
                if prefix.iter().zip(mine).all(|(a, b)| a & b == 0) {
                    found = Some(k);
                    break;
                }
            }
            if found.is_some() {
                break;
            }
            g[k] = original;
        }
        let Some(k) = found else {
            stats.normalizations = strong_feasibility.normalizations;
            return stats;
        };
        update_el(&mut el, &locks, k, g[k], w);
        // RESET (Algorithm 21 with Algorithm 16's stacks).
        compatible_until = n;
        let gk = g[k] as usize * n;
        for l in k + 1..n {
            let base = l * n;
            let mut t = top[l];
            while pid[base + t - 1] as usize > k {
                t -= 1;
            }
            let v = rows[k][gk + l];
            if val[base + t - 1] < v {
                if pid[base + t - 1] as usize == k {
                    val[base + t - 1] = v;
                } else {
                    pid[base + t] = k as u32;
                    val[base + t] = v;
                    t += 1;
                }
            }
            top[l] = t;
            let least = val[base + t - 1];
            sum += g[l].abs_diff(least);
            g[l] = least;
            let mine = locks.of(l, least);
            if compatible_until == n {
                let prefix = &el[(l - 1) * w..l * w];
                if prefix.iter().zip(mine).any(|(a, b)| a & b != 0) {
                    compatible_until = l;
                }
            }
            update_el(&mut el, &locks, l, least, w);
        }
    }
}

#[inline]
fn update_el(el: &mut [u64], locks: &LockBits, k: usize, i: u32, w: usize) {
    let mine = locks.of(k, i);
    for x in 0..w {
        let before = if k == 0 { 0 } else { el[(k - 1) * w + x] };
        el[k * w + x] = before | mine[x];
    }
}

/// The number of strongly feasible states, with Lex2.
pub fn count(loset: &Loset) -> u64 {
    let mut c = crate::cuts::Counter(0);
    enumerate(loset, Lex::Lex2, &mut c);
    c.0
}
