//! `hindsight cuts`: predicate detection over the consistent global states (cuts) of the poset
//! of a run (Chang's thesis, chapters 2-4: the poset model, ParaMount, QuickLex).
//!
//! The poset ([`poset`]) comes from a trace or a poset file ([`poset_file`]); the enumerators
//! ([`bfs`], [`lex`], [`quicklex`], [`paramount`], and with the `oracle` feature the reference
//! `brute`) call a [`Visitor`] once per consistent global state and never store states
//! themselves (BFS apart, whose levels are its nature); predicates ([`predicate`]) look at a
//! frontier and the events of its elements. Some predicates are decided without enumeration:
//! [`race`] from a racy pair, conjunctive ones by Garg-Waldecker ([`conjunctive`]), which also
//! visits only the satisfying states of such a (regular) predicate, and regular predicates
//! with relations between threads by computation slicing ([`regular`]). [`detect()`] ties them into
//! the command, from input to report, choosing a detector when the predicate is recognised.
//! Nothing here reads files or prints.

pub mod bfs;
#[cfg(feature = "oracle")]
pub mod brute;
pub mod cluster;
pub mod conjunctive;
pub mod detect;
mod findings;
pub mod generate;
pub mod lex;
pub mod paramount;
pub mod poset;
pub mod poset_file;
pub mod predicate;
pub mod quicklex;
pub mod race;
pub mod regular;

pub use detect::{detect, Detection, Detector, Enumerator, Input, Options, PredicateText};
use poset::Poset;
use std::ops::ControlFlow;

/// Receives the consistent global states one at a time, as frontiers (one index per process,
/// 0 = no event of that process). Returning `Break` stops the enumeration.
pub trait Visitor {
    fn visit(&mut self, frontier: &[u32]) -> ControlFlow<()>;

    /// The enumerator now holds `bytes` of states or memo (BFS's levels, reach's memo of strong
    /// feasibility; the other enumerators hold a few frontiers and never call it). It is
    /// called as those grow, or after a unit of work that visits no state. Returning `Break`
    /// stops the enumeration: a budget is spent.
    #[inline(always)]
    fn hold(&mut self, bytes: u64) -> ControlFlow<()> {
        let _ = bytes;
        ControlFlow::Continue(())
    }

    /// The budget the visitor stops on, for an enumerator whose single steps can run long
    /// (reach's normalizations of sub-losets) and poll it themselves.
    fn budget(&self) -> Option<&hindsight_budget::Budget> {
        None
    }
}

impl<F: FnMut(&[u32]) -> ControlFlow<()>> Visitor for F {
    #[inline(always)]
    fn visit(&mut self, frontier: &[u32]) -> ControlFlow<()> {
        self(frontier)
    }
}

/// A visitor that counts the states.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counter(pub u64);

impl Visitor for Counter {
    #[inline(always)]
    fn visit(&mut self, _: &[u32]) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }
}

/// The sequential enumerators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Bfs,
    Lex,
    QuickLex,
    /// The reference: every index vector, checked by the definition.
    #[cfg(feature = "oracle")]
    Brute,
}

/// Visits every consistent global state `g` with `lo <= g <= hi` with `algorithm`.
pub fn bounded<V: Visitor + ?Sized>(
    poset: &Poset,
    algorithm: Algorithm,
    lo: &[u32],
    hi: &[u32],
    visit: &mut V,
) -> ControlFlow<()> {
    match algorithm {
        Algorithm::Bfs => bfs::bfs(poset, lo, hi, visit),
        Algorithm::Lex => lex::lex(poset, lo, hi, visit),
        Algorithm::QuickLex => quicklex::QuickLex::new(poset).enumerate(lo, hi, visit),
        #[cfg(feature = "oracle")]
        Algorithm::Brute => brute::brute(poset, lo, hi, visit),
    }
}

/// Visits every consistent global state of `poset` with `algorithm`.
pub fn enumerate<V: Visitor + ?Sized>(
    poset: &Poset,
    algorithm: Algorithm,
    visit: &mut V,
) -> ControlFlow<()> {
    let lo = vec![0; poset.processes()];
    bounded(poset, algorithm, &lo, &poset.final_state(), visit)
}

/// The number of consistent global states, counted with `algorithm`.
pub fn count(poset: &Poset, algorithm: Algorithm) -> u64 {
    let mut c = Counter(0);
    let _ = enumerate(poset, algorithm, &mut c);
    c.0
}

/// The number of consistent global states, counted by ParaMount with `threads` workers.
pub fn count_parallel(poset: &Poset, algorithm: Algorithm, threads: usize) -> u64 {
    paramount::paramount(poset, threads, algorithm, |_| Counter(0), |_, c, _| c.0)
        .into_iter()
        .sum()
}

/// A list of frontiers collects every state it visits (tests and small inputs only: the
/// enumerators themselves never store states).
impl Visitor for Vec<Vec<u32>> {
    fn visit(&mut self, frontier: &[u32]) -> ControlFlow<()> {
        self.push(frontier.to_vec());
        ControlFlow::Continue(())
    }
}
