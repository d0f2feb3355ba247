//! The race predicate answered from a racy pair, without enumeration.
//!
//! `race` holds in a consistent state when two of its frontier elements (of different
//! processes) are concurrent and access one variable, one of them writing: it is the
//! disjunction, over such pairs `(a, b)`, of the conjunctive predicate "`a` and `b` are
//! frontier elements". Each disjunct's least state is the least consistent state holding
//! both, the join of their clocks, where both are maximal because they are concurrent. So a
//! state satisfies `race` iff some racy pair exists, and the state just holding the first pair
//! found is a satisfying one.
//!
//! Pairs are looked for in one pass over the elements in a topological order (by clock sum),
//! each access checked against the latest element of every other process that wrote the
//! variable (and, for a write, that read it): if `b` races with an earlier element `a` of `p`,
//! it races with `p`'s latest such element `a'` too, since `a' -> b` would give `a -> b`. The
//! pair reported is the first `b` in that order with any racy partner, with its partner of the
//! lowest-numbered process (its latest write, else its latest read). A disjunction has no
//! least state in general, so this state need not be the one enumeration finds first (the
//! lexically least), but one exists exactly when the other does.

use super::poset::Poset;
use super::predicate::{Bound, RaceOn};
use hindsight_trace::VarId;
use std::collections::HashMap;

/// An element, as `(process, index)` (1-based).
pub type Element = (usize, u32);

/// The latest elements of one process that read and wrote one variable.
#[derive(Clone, Copy)]
struct Latest {
    process: usize,
    read: u32,
    write: u32,
}

/// The first racy pair (in the order of the module documentation) for the race predicate
/// `bound` (which must be `race` or `race(x)`), and the least state holding both, or `None`.
pub fn first_racy_pair(poset: &Poset, bound: &Bound<'_>) -> Option<(Element, Element, Vec<u32>)> {
    let only = match bound.race_only_on()? {
        RaceOn::Nothing => return None,
        RaceOn::AnyVariable => None,
        RaceOn::Variable(x) => Some(x),
    };
    let mut latest: HashMap<VarId, Vec<Latest>> = HashMap::new();
    for (q, j) in poset.topological_order() {
        let accesses = bound.accesses(q, j);
        for &(x, write) in accesses {
            if only.is_some_and(|v| v != x) {
                continue;
            }
            let Some(others) = latest.get(&x) else {
                continue;
            };
            let partner = others
                .iter()
                .filter(|l| l.process != q)
                .filter_map(|l| {
                    if l.write > 0 && poset.concurrent(l.process, l.write, q, j) {
                        Some((l.process, l.write))
                    } else if write && l.read > 0 && poset.concurrent(l.process, l.read, q, j) {
                        Some((l.process, l.read))
                    } else {
                        None
                    }
                })
                .min();
            if let Some(a) = partner {
                let b = (q, j);
                return Some((a, b, join(poset, a, b)));
            }
        }
        for &(x, write) in accesses {
            let entries = latest.entry(x).or_default();
            let k = match entries.iter().position(|l| l.process == q) {
                Some(k) => k,
                None => {
                    entries.push(Latest {
                        process: q,
                        read: 0,
                        write: 0,
                    });
                    entries.len() - 1
                }
            };
            if write {
                entries[k].write = j;
            } else {
                entries[k].read = j;
            }
        }
    }
    None
}

/// The least consistent state holding elements `a` and `b`.
fn join(poset: &Poset, (p, i): Element, (q, j): Element) -> Vec<u32> {
    let (x, y) = (poset.clock(p, i), poset.clock(q, j));
    x.iter().zip(y).map(|(&u, &v)| u.max(v)).collect()
}
