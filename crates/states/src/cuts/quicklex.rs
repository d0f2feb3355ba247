//! QuickLex (thesis Chapter 4, Algorithms 11-16): lexical enumeration in O(n * Delta(P)) per
//! state. Remote events, located once from the clocks (Algorithm 12), decide whether the next
//! event of a process is enabled in O(Delta) (Theorem 4, Algorithm 13); per-process stacks of
//! prefix maxima give each reset value in amortised constant time (Theorem 5, Algorithms 14-16).
//! The bounds `lo`/`hi` make it the bounded subroutine of ParaMount (Section 3.2).
//!
//! [`QuickLex`] holds what depends only on the poset (remote events), so one preprocessing
//! serves every interval and every thread; each run keeps its own stacks. It knows nothing of
//! predicates: a visitor sees each state once, in lexical order.

use super::poset::Poset;
use super::Visitor;
use std::ops::ControlFlow;

/// A poset preprocessed for QuickLex.
pub struct QuickLex<'p> {
    poset: &'p Poset,
    /// Per process: `starts[i]..starts[i + 1]` index the remote events of event `i`
    /// (1-based; `starts` has `len + 2` entries, slot 0 unused).
    starts: Vec<Vec<u32>>,
    /// Per process: remote events as `(process, index)`.
    remote: Vec<Vec<(u32, u32)>>,
}

impl<'p> QuickLex<'p> {
    /// Locates the remote events of every event (Algorithm 12): among the components where an
    /// event's clock grew over its predecessor's, the events that do not happen before another
    /// such candidate.
    pub fn new(poset: &'p Poset) -> QuickLex<'p> {
        let n = poset.processes();
        let mut starts = Vec::with_capacity(n);
        let mut remote = Vec::with_capacity(n);
        let mut candidates: Vec<(u32, u32)> = Vec::new();
        for p in 0..n {
            let mut s = vec![0u32, 0u32];
            let mut r = Vec::new();
            for i in 1..=poset.len(p) {
                let d = poset.clock(p, i - 1);
                let e = poset.clock(p, i);
                candidates.clear();
                for q in 0..n {
                    if q != p && d[q] != e[q] {
                        candidates.push((q as u32, e[q]));
                    }
                }
                for &(q, j) in &candidates {
                    // `(q, j)` is direct unless it happens before another candidate.
                    let implied = candidates
                        .iter()
                        .any(|&(q2, j2)| q2 != q && poset.clock(q2 as usize, j2)[q as usize] >= j);
                    if !implied {
                        r.push((q, j));
                    }
                }
                s.push(r.len() as u32);
            }
            starts.push(s);
            remote.push(r);
        }
        QuickLex {
            poset,
            starts,
            remote,
        }
    }

    /// The remote events of event `i` of process `p`.
    pub fn remote_events(&self, p: usize, i: u32) -> &[(u32, u32)] {
        let s = &self.starts[p];
        &self.remote[p][s[i as usize] as usize..s[i as usize + 1] as usize]
    }

    /// The largest number of remote events of any event, `Delta(P)`.
    pub fn max_in_degree(&self) -> usize {
        (0..self.poset.processes())
            .flat_map(|p| self.starts[p].windows(2).map(|w| (w[1] - w[0]) as usize))
            .max()
            .unwrap_or(0)
    }

    /// Visits every consistent `g` with `lo <= g <= hi` exactly once, in lexical order
    /// (Algorithm 11 with Algorithm 3's bounds). `lo` and `hi` must be consistent, `lo <= hi`.
    pub fn enumerate<V: Visitor + ?Sized>(
        &self,
        lo: &[u32],
        hi: &[u32],
        visit: &mut V,
    ) -> ControlFlow<()> {
        let poset = self.poset;
        let n = poset.processes();
        let mut g = lo.to_vec();
        if n == 0 {
            return visit.visit(&g);
        }
        let rows: Vec<&[u32]> = (0..n).map(|p| poset.rows(p)).collect();
        // stack_l (Algorithm 15): entries `(process, value)` at `l * n ..`, values strictly
        // increasing upwards; `top[l]` entries. Process 0's entry at the bottom is never popped.
        let mut pid = vec![0u32; n * n];
        let mut val = vec![0u32; n * n];
        let mut top = vec![0usize; n];
        for l in 1..n {
            let base = l * n;
            pid[base] = 0;
            val[base] = rows[0][g[0] as usize * n + l];
            top[l] = 1;
            for j in 1..l {
                let v = rows[j][g[j] as usize * n + l];
                if val[base + top[l] - 1] < v {
                    pid[base + top[l]] = j as u32;
                    val[base + top[l]] = v;
                    top[l] += 1;
                }
            }
        }
        let last = n - 1;
        let (last_starts, last_remote) = (&self.starts[last][..], &self.remote[last][..]);
        let last_hi = hi[last];
        loop {
            visit.visit(&g)?;
            // PROPAGATE (Algorithm 13). The least significant process first, in a tight loop:
            // it is the answer for most states, and needs no RESET.
            let next = g[last] + 1;
            if next <= last_hi && {
                let (a, b) = (last_starts[next as usize], last_starts[next as usize + 1]);
                last_remote[a as usize..b as usize]
                    .iter()
                    .all(|&(q, j)| g[q as usize] >= j)
            } {
                g[last] = next;
                continue;
            }
            let mut k = last;
            loop {
                if k == 0 {
                    return ControlFlow::Continue(());
                }
                k -= 1;
                let next = g[k] + 1;
                if next <= hi[k] && self.enabled(k, next, &g) {
                    break;
                }
            }
            g[k] += 1;
            // RESET (Algorithm 16).
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
                g[l] = val[base + t - 1].max(lo[l]);
            }
        }
    }

    /// ISENABLED: the predecessor is in `g` by construction, so the remote events decide.
    #[inline(always)]
    fn enabled(&self, p: usize, i: u32, g: &[u32]) -> bool {
        let s = &self.starts[p];
        let (a, b) = (s[i as usize] as usize, s[i as usize + 1] as usize);
        self.remote[p][a..b]
            .iter()
            .all(|&(q, j)| g[q as usize] >= j)
    }
}
