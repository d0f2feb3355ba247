//! `hindsight reach`: predicate detection under locking constraints, on the loset of a run
//! (Chang's thesis, Sections 1.4, 5 and 6).
//!
//! [`loset`] builds the model from a trace, [`classes`] decides the classes of global states
//! (feasible, lock-free feasible, strongly feasible, viable) and normalizes, [`search`] decides
//! reachability exactly by simulation, [`enumerate`] walks the strongly feasible states with the
//! modified QuickLex (Lex1/Lex2), `brute` (with the `oracle` feature) holds the definitions
//! applied literally for the oracles. [`Reach`] ties them into the decision flow of Fig. 6.12;
//! [`analyse()`] runs the command from trace to report, asking predicates of `hindsight cuts`
//! through a projection of the loset. Nothing here reads files or prints.

pub mod analyse;
#[cfg(feature = "oracle")]
pub mod brute;
pub mod classes;
pub mod enumerate;
mod findings;
pub mod loset;
pub mod search;

pub use analyse::{analyse, Options};

use crate::cuts::Visitor;
use classes::{Cycle, Normalization, Normalized};
use hindsight_budget::{Account, Budget, Meter, Spent};
use hindsight_trace::LockId;
use loset::{Ev, Loset};
use search::{check_valid, project, replay, search_run, Validity};
use std::ops::ControlFlow;

/// Sub-losets with at most this many candidate states are searched even without `exact`.
pub const SMALL_SEARCH: u64 = 1 << 12;

/// How a state was shown reachable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proof {
    /// Lock-free feasible in a valid loset (Corollary 1).
    LockFree,
    /// Viable in a valid loset (Theorem 18).
    Viable,
    /// Found by search (from the greatest lock-free feasible state below it, Theorem 13; with
    /// two threads it always succeeds, Theorem 17).
    Search,
}

/// How a state was shown unreachable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refutation {
    /// The second event happens before the first, which the state has without it.
    Inconsistent { missing: Ev, needed_by: Ev },
    /// Two frontier events hold the same lock.
    Incompatible(LockId, Ev, Ev),
    /// Not strongly feasible: the normalization closes this cycle.
    NotStronglyFeasible(Cycle),
    /// Strongly feasible, but the search found no run.
    NoRun { explored: u64 },
}

/// The answer of the decision flow (Fig. 6.12).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// With a run from the empty state that reaches it.
    Reachable {
        proof: Proof,
        run: Vec<Ev>,
    },
    Unreachable(Refutation),
    /// Strongly feasible, neither lock-free nor viable, and too large to search without
    /// `exact`, or the search for a run stopped when the budget ran out.
    Unknown,
}

impl Verdict {
    pub fn is_reachable(&self) -> bool {
        matches!(self, Verdict::Reachable { .. })
    }
}

/// A loset with what every decision needs: its validity (with a run to the final state) and,
/// computed on first use, the loset normalized with happened-before (`L''` of Definition 22);
/// and the budget every search and enumeration over it polls.
pub struct Reach<'a> {
    pub loset: &'a Loset,
    pub validity: Validity,
    normal: std::cell::OnceCell<Option<Normalized>>,
    budget: &'a Budget,
}

impl<'a> Reach<'a> {
    pub fn new(loset: &'a Loset, budget: &'a Budget) -> Reach<'a> {
        Reach {
            loset,
            validity: check_valid(loset, budget),
            normal: std::cell::OnceCell::new(),
            budget,
        }
    }

    /// `L''`: the whole loset normalized (with the final state's dynamic locking orders), when
    /// the loset is valid.
    pub fn normal(&self) -> Option<&Normalized> {
        self.normal
            .get_or_init(|| match &self.validity {
                Validity::Valid(_) => {
                    let zero = vec![0; self.loset.processes()];
                    // Stopped by the budget: no state is shown viable, and the search that
                    // `decide` falls back on stops at its first poll.
                    match self.loset.normalize_within(
                        &zero,
                        &self.loset.final_state(),
                        Some(self.budget),
                    ) {
                        Ok(Normalization::Acyclic(n)) => Some(n),
                        Ok(Normalization::Cycle(_)) | Err(_) => None,
                    }
                }
                Validity::Invalid(_) | Validity::Unknown { .. } => None,
            })
            .as_ref()
    }

    /// A run to the final state, if the loset is valid.
    pub fn run(&self) -> Option<&[Ev]> {
        match &self.validity {
            Validity::Valid(r) => Some(r),
            Validity::Invalid(_) | Validity::Unknown { .. } => None,
        }
    }

    /// Decides `g` along Fig. 6.12: infeasible or not strongly feasible means unreachable;
    /// lock-free feasible or viable (in a valid loset) means reachable; otherwise, with
    /// `exact`, a search from the greatest lock-free feasible state below `g` (from the empty
    /// state if the loset is not valid) decides, else (or if the budget runs out during the
    /// search) the answer is unknown.
    pub fn decide(&self, g: &[u32], exact: bool) -> Verdict {
        let l = self.loset;
        let n = l.processes();
        for p in 0..n {
            if g[p] == 0 {
                continue;
            }
            let c = l.hb.clock(p, g[p]);
            if let Some(q) = (0..n).find(|&q| c[q] > g[q]) {
                return Verdict::Unreachable(Refutation::Inconsistent {
                    missing: (q, g[q] + 1),
                    needed_by: (p, g[p]),
                });
            }
        }
        if let Some((lock, a, b)) = l.incompatible_pair(g) {
            return Verdict::Unreachable(Refutation::Incompatible(lock, a, b));
        }
        if let Err(c) = l.strong_feasibility_of_feasible(g) {
            return Verdict::Unreachable(Refutation::NotStronglyFeasible(c));
        }
        let f = l.greatest_lock_free_below(g);
        if let Some(run) = self.run() {
            if f == g {
                return self.reached(Proof::LockFree, project(run, g));
            }
            if let Some(normal) = self.normal() {
                if l.is_viable(normal, g) {
                    return self.reached(Proof::Viable, project(run, g));
                }
            }
        }
        // Theorem 17 makes every strongly feasible state of two threads reachable, and a small
        // sub-loset is cheap to search: both get a witness rather than "unknown".
        let small = (0..n)
            .try_fold(1u64, |acc, p| {
                acc.checked_mul(u64::from(g[p] - f[p]) + 1)
                    .filter(|&x| x <= SMALL_SEARCH)
            })
            .is_some();
        if !(exact || n <= 2 || small) {
            return Verdict::Unknown;
        }
        let (from, prefix) = match self.run() {
            Some(run) => (f, project(run, &l.greatest_lock_free_below(g))),
            None => (vec![0; n], Vec::new()),
        };
        // A state from which the normalized rest (its held intervals first, `g`'s dynamic orders
        // last) has a cycle cannot lead to `g`: cut it.
        let prune = |s: &[u32]| {
            !matches!(
                l.normalize_within(s, g, Some(self.budget)),
                Ok(Normalization::Acyclic(_))
            )
        };
        let outcome = search_run(l, &from, g, prune, self.budget);
        if outcome.spent.is_some() {
            return Verdict::Unknown;
        }
        match outcome.run {
            Some(rest) => {
                let mut run = prefix;
                run.extend(rest);
                self.reached(Proof::Search, run)
            }
            None => Verdict::Unreachable(Refutation::NoRun {
                explored: outcome.explored,
            }),
        }
    }

    fn reached(&self, proof: Proof, run: Vec<Ev>) -> Verdict {
        debug_assert!(
            replay(self.loset, &vec![0; self.loset.processes()], &run).is_some(),
            "a witness of {proof:?} is not a run"
        );
        Verdict::Reachable { proof, run }
    }
}

/// What a predicate detection found.
#[derive(Clone, Debug, Default)]
pub struct Detection {
    /// Strongly feasible states enumerated.
    pub states: u64,
    /// Of them, those satisfying the predicate.
    pub satisfying: u64,
    /// Satisfying states a search proved unreachable (strongly feasible only).
    pub unreachable: u64,
    /// The first satisfying state proven reachable, else the first left unknown.
    pub found: Option<(Vec<u32>, Verdict)>,
    /// Whether every strongly feasible state was enumerated (no reachable one stopped it).
    pub complete: bool,
    /// The enumeration stopped when the budget ran out: the first state it did not check.
    pub stopped_at: Option<Vec<u32>>,
}

impl Reach<'_> {
    /// Enumerates the strongly feasible states (Lex2) and decides each satisfying one, stopping
    /// at the first proven reachable.
    pub fn detect(&self, holds: &mut dyn FnMut(&[u32]) -> bool, exact: bool) -> Detection {
        let mut d = Detection::default();
        let mut unknown: Option<Vec<u32>> = None;
        let mut within = self.within(|g: &[u32]| {
            d.states += 1;
            if !holds(g) {
                return std::ops::ControlFlow::Continue(());
            }
            d.satisfying += 1;
            match self.decide(g, exact) {
                v @ Verdict::Reachable { .. } => {
                    d.found = Some((g.to_vec(), v));
                    std::ops::ControlFlow::Break(())
                }
                Verdict::Unreachable(_) => {
                    d.unreachable += 1;
                    std::ops::ControlFlow::Continue(())
                }
                Verdict::Unknown => {
                    unknown.get_or_insert_with(|| g.to_vec());
                    std::ops::ControlFlow::Continue(())
                }
            }
        });
        enumerate::enumerate(self.loset, enumerate::Lex::Lex2, &mut within);
        let stopped_at = within.stopped_at();
        if d.found.is_none() {
            d.complete = stopped_at.is_none();
            d.found = unknown.map(|g| (g, Verdict::Unknown));
        }
        d.stopped_at = stopped_at;
        d
    }

    /// A visitor of an enumeration over this loset that calls `visit` within the budget.
    pub fn within<F: FnMut(&[u32]) -> ControlFlow<()>>(&self, visit: F) -> Within<'_, F> {
        Within {
            meter: Meter::new(self.budget),
            account: Account::new(self.budget),
            at: Vec::new(),
            spent: None,
            visit,
        }
    }
}

/// A visitor of the strongly feasible states that polls a budget at every state and every
/// check of the walk (`Visitor::hold`), and accounts the walk's memo to its memory limit; it
/// stops the walk once the budget is spent.
pub struct Within<'b, F> {
    meter: Meter<'b>,
    account: Account<'b>,
    /// The state at the last poll: where the walk stopped, once the budget is spent.
    at: Vec<u32>,
    spent: Option<Spent>,
    visit: F,
}

impl<F> Within<'_, F> {
    /// Where the walk stopped if the budget ran out: the first state it did not check (or,
    /// stopped between states, the last it checked at a poll).
    pub fn stopped_at(&self) -> Option<Vec<u32>> {
        self.spent.map(|_| self.at.clone())
    }

    fn stop(&mut self, spent: Spent) -> ControlFlow<()> {
        self.spent = Some(spent);
        ControlFlow::Break(())
    }
}

impl<F: FnMut(&[u32]) -> ControlFlow<()>> Visitor for Within<'_, F> {
    fn visit(&mut self, g: &[u32]) -> ControlFlow<()> {
        let first = self.at.is_empty();
        let mut status = self.meter.step();
        if self.meter.polled() || first {
            self.at.clear();
            self.at.extend_from_slice(g);
            status = status.and_then(|()| self.meter.budget().check());
        } else if let (Ok(()), Some(spent)) = (status, self.meter.budget().spent()) {
            // A search of a decision spent it.
            status = Err(spent);
        }
        if let Err(spent) = status {
            return self.stop(spent);
        }
        (self.visit)(g)
    }

    fn budget(&self) -> Option<&Budget> {
        Some(self.meter.budget())
    }

    /// After each strong-feasibility check, which may normalize a sub-loset: a heavy step.
    fn hold(&mut self, bytes: u64) -> ControlFlow<()> {
        let within = match self.meter.heavy_step() {
            Ok(()) => self.account.hold(bytes),
            other => other,
        };
        match within {
            Ok(()) => ControlFlow::Continue(()),
            Err(spent) => self.stop(spent),
        }
    }
}
