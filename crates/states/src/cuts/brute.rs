//! The reference enumerator: every vector of per-process indices between two bounds, kept when
//! it is consistent by the definition of Section 2.4 checked literally on the events (for every
//! event in the state, every event that happens before it is in the state). Exponential in the
//! number of events; for tests only.
//!
//! It must not share code with the fast enumerators beyond reading the poset's clocks.

use super::poset::Poset;
use super::Visitor;
use std::ops::ControlFlow;

/// Whether `g` is consistent, by the definition: for all events `f` in `g` and all events `e`
/// with `e -> f`, `e` is in `g`.
pub fn consistent_by_definition(poset: &Poset, g: &[u32]) -> bool {
    let n = poset.processes();
    for q in 0..n {
        for j in 1..=g[q] {
            for (p, &gp) in g.iter().enumerate() {
                for i in 1..=poset.len(p) {
                    if poset.happens_before(p, i, q, j) && i > gp {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Visits every consistent `g` with `lo <= g <= hi`, in lexical order.
pub fn brute<V: Visitor + ?Sized>(
    poset: &Poset,
    lo: &[u32],
    hi: &[u32],
    visit: &mut V,
) -> ControlFlow<()> {
    let n = poset.processes();
    let mut g = lo.to_vec();
    loop {
        if consistent_by_definition(poset, &g) {
            visit.visit(&g)?;
        }
        // Odometer step, the last process the least significant digit.
        let mut k = n;
        loop {
            if k == 0 {
                return ControlFlow::Continue(());
            }
            k -= 1;
            if g[k] < hi[k] {
                g[k] += 1;
                break;
            }
            g[k] = lo[k];
        }
    }
}
