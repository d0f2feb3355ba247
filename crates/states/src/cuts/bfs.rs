//! Breadth-first enumeration (Cooper and Marzullo [CM91]) level by level through the lattice, a
//! level being the states with the same number of events, with the duplicate elimination of
//! [Gar03] the thesis uses (Section 4.5.1): a state is generated only from its canonical
//! predecessor, the one without the removable event of the highest process. Its memory is a
//! level of the lattice, which can be exponential in the number of processes: it is here as the
//! thesis's baseline.
//!
//! It knows nothing of predicates; a visitor sees each state once, and is told how many bytes
//! the levels hold as they grow (`Visitor::hold`), so that a memory budget can stop it.

use super::poset::Poset;
use super::Visitor;
use std::ops::ControlFlow;

/// Visits every consistent `g` with `lo <= g <= hi` exactly once, level by level.
pub fn bfs<V: Visitor + ?Sized>(
    poset: &Poset,
    lo: &[u32],
    hi: &[u32],
    visit: &mut V,
) -> ControlFlow<()> {
    let n = poset.processes();
    if n == 0 {
        return visit.visit(&[]);
    }
    let mut level: Vec<u32> = lo.to_vec();
    let mut next: Vec<u32> = Vec::new();
    let mut h = vec![0u32; n];
    while !level.is_empty() {
        for g in level.chunks_exact(n) {
            visit.visit(g)?;
            for k in 0..n {
                if g[k] >= hi[k] {
                    continue;
                }
                let c = poset.clock(k, g[k] + 1);
                if !(0..n).all(|j| j == k || c[j] <= g[j]) {
                    continue;
                }
                h.copy_from_slice(g);
                h[k] += 1;
                // Canonical predecessor: no higher process may have a removable event.
                let removable = |j: usize| {
                    h[j] > lo[j] && (0..n).all(|m| m == j || poset.clock(m, h[m])[j] < h[j])
                };
                if (k + 1..n).any(removable) {
                    continue;
                }
                next.extend_from_slice(&h);
                let held = (level.capacity() + next.capacity()) * std::mem::size_of::<u32>();
                visit.hold(held as u64)?;
            }
        }
        std::mem::swap(&mut level, &mut next);
        next.clear();
    }
    ControlFlow::Continue(())
}
