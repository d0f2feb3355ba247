//! The lexical enumeration of consistent global states (Garg [Gar03]; Algorithm 3 as the bounded
//! form ParaMount uses), with the improvement of Section 4.5.1: the reset after adding `e_k`
//! takes the maximum over processes `1..=k` only (Theorem 5), not over all `n`.
//!
//! It owns the order in which states come (lexical, process 0 the most significant digit); it
//! knows nothing of what a visitor does with a state.

use super::poset::Poset;
use super::Visitor;
use std::ops::ControlFlow;

/// Visits every consistent global state `g` with `lo <= g <= hi` exactly once, in lexical order.
/// `lo` and `hi` must be consistent and `lo <= hi`. Stops early when the visitor breaks.
pub fn lex<V: Visitor + ?Sized>(
    poset: &Poset,
    lo: &[u32],
    hi: &[u32],
    visit: &mut V,
) -> ControlFlow<()> {
    let n = poset.processes();
    let mut g = lo.to_vec();
    loop {
        visit.visit(&g)?;
        // The least significant process whose next event fits under `hi` and is enabled: all
        // events that happen before it are in `g` (O(n) on its clock).
        let mut found = None;
        for k in (0..n).rev() {
            if g[k] < hi[k] {
                let c = poset.clock(k, g[k] + 1);
                if (0..n).all(|j| j == k || c[j] <= g[j]) {
                    found = Some(k);
                    break;
                }
            }
        }
        let Some(k) = found else {
            return ControlFlow::Continue(());
        };
        g[k] += 1;
        // The least consistent state with this prefix: what `g[0..=k]` needs, and `lo`.
        for i in k + 1..n {
            let mut v = lo[i];
            for (j, &gj) in g.iter().enumerate().take(k + 1) {
                v = v.max(poset.clock(j, gj)[i]);
            }
            g[i] = v;
        }
    }
}
