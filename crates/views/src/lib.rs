//! High-level data races and stale values from views (MoTH, PADTAD'11, after Artho, Havelund
//! and Biere's view consistency): the views of the atomic regions of each thread are the
//! knowledge base; sensors read it and warn.
//!
//! Two sources of views feed this one sensor layer:
//! - `hindsight_stream::views`: views of the atomic regions (`begin`/`end` blocks or outermost
//!   lock regions) of a trace, as an analysis in the single streaming pass, with the paper's
//!   Section 4.3 remedies: object instances kept apart, and a may-happen-in-parallel filter from
//!   happens-before;
//! - `hindsight_source::views`: views of a program in the paper's small imperative language
//!   (Fig. 3), by the symbolic execution rules of Fig. 4.
//!
//! This crate owns the knowledge base ([`Knowledge`], [`view`]), the sensors ([`sensors`]),
//! the filters over witnesses and the rendering of warnings as findings. It knows neither how
//! views are obtained (no traces, no programs) nor how findings are printed.

pub mod sensors;
pub mod view;

use hindsight_report::{EventRef, Finding, Rule};
use sensors::{Warning, HIGH_LEVEL_RACE, STALE_VALUE};
use serde_json::{Map, Value};
use view::View;

/// An index into `Knowledge::views`.
pub type ViewId = u32;

/// The views one thread generated, `V(t)`: distinct view ids, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadViews {
    pub name: String,
    pub views: Vec<ViewId>,
}

/// What the sensors read. Views are identified by their contents: two regions with the same
/// accesses are one view. The paper gives each region's view its own identity; contents are
/// what a trace can tell apart, and identifying by contents in both modes makes the static and
/// dynamic verdicts comparable (`psv`'s `v1 ≠ v2` then means "different accesses").
#[derive(Clone, Debug, Default)]
pub struct Knowledge {
    pub var_names: Vec<String>,
    pub views: Vec<View>,
    pub threads: Vec<ThreadViews>,
}

impl Knowledge {
    pub fn var_name(&self, v: u32) -> &str {
        &self.var_names[v as usize]
    }

    pub fn display_view(&self, v: ViewId) -> String {
        let name = |x: u32| self.var_name(x).to_owned();
        self.views[v as usize].render(&name)
    }

    fn display_set(&self, vars: &[u32]) -> String {
        let names: Vec<&str> = vars.iter().map(|&v| self.var_name(v)).collect();
        format!("{{{}}}", names.join(", "))
    }
}

/// What a recorded execution says about when regions can run: the may-happen-in-parallel
/// filter's questions.
pub trait Schedule {
    /// Whether some region of `t1` with view `v1` and some region of `t2` with view `v2` are
    /// unordered by happens-before.
    fn may_run_in_parallel(&self, t1: usize, v1: ViewId, t2: usize, v2: ViewId) -> bool;
    /// Whether some region of `t` with view `a` ends before some region of `t` with view `b`
    /// begins.
    fn may_precede(&self, t: usize, a: ViewId, b: ViewId) -> bool;
}

/// Keeps the witnesses that `schedule` allows: the intruder's region may run in parallel with
/// one of the two split regions (so it can be scheduled between them), and for a stale value
/// the read region precedes the write region in the thread. A warning with no witness left is
/// removed; returns the kept warnings and how many were removed.
pub fn mhp_filter(warnings: Vec<Warning>, schedule: &dyn Schedule) -> (Vec<Warning>, usize) {
    let before = warnings.len();
    let kept: Vec<Warning> = warnings
        .into_iter()
        .filter_map(|mut w| {
            w.witnesses = std::mem::take(&mut w.witnesses)
                .into_iter()
                .filter_map(|x| allowed(&x, schedule))
                .collect();
            (!w.witnesses.is_empty()).then_some(w)
        })
        .collect();
    let removed = before - kept.len();
    (kept, removed)
}

/// `∃ c ∈ intruder, a ∈ first, b ∈ second: a ≠ b ∧ (¬ordered ∨ a precedes b) ∧ (c ∥ a ∨ c ∥ b)`,
/// with `∃ c: c ∥ x` worked out once per view; the witness narrowed to the first such `a`, `b`
/// and the intruder views that run in parallel with one of them.
fn allowed(x: &sensors::Witness, schedule: &dyn Schedule) -> Option<sensors::Witness> {
    let parallel = |v: ViewId| {
        x.intruder_views
            .iter()
            .any(|&c| schedule.may_run_in_parallel(x.intruder, c, x.split, v))
    };
    let first: Vec<bool> = x.first.iter().map(|&a| parallel(a)).collect();
    let second: Vec<bool> = x.second.iter().map(|&b| parallel(b)).collect();
    let (a, b) = x.first.iter().zip(&first).find_map(|(&a, &pa)| {
        x.second.iter().zip(&second).find_map(|(&b, &pb)| {
            (a != b && (pa || pb) && (!x.ordered || schedule.may_precede(x.split, a, b)))
                .then_some((a, b))
        })
    })?;
    let intruder_views = x
        .intruder_views
        .iter()
        .copied()
        .filter(|&c| {
            schedule.may_run_in_parallel(x.intruder, c, x.split, a)
                || schedule.may_run_in_parallel(x.intruder, c, x.split, b)
        })
        .collect();
    Some(sensors::Witness {
        intruder_views,
        first: vec![a],
        second: vec![b],
        ..x.clone()
    })
}

/// Where views come from, for findings: a description of the region that produced a view in a
/// thread, and (for traces) its events touching some variables.
pub trait Provenance {
    fn origin(&self, thread: usize, view: ViewId) -> String;
    fn events(&self, thread: usize, view: ViewId, vars: &[u32]) -> Vec<EventRef>;
}

fn view_json(k: &Knowledge, p: &dyn Provenance, t: usize, v: ViewId, role: &str) -> Value {
    let mut m = Map::new();
    m.insert("thread".into(), Value::from(k.threads[t].name.clone()));
    m.insert("role".into(), Value::from(role));
    m.insert("view".into(), Value::from(k.display_view(v)));
    m.insert("origin".into(), Value::from(p.origin(t, v)));
    Value::Object(m)
}

/// The warnings as findings, in the report crate's shape: `kind`, `threads`, `variables`,
/// `views` (of the first witness) and, for traces, the events of those views.
pub fn findings(k: &Knowledge, warnings: &[Warning], p: &dyn Provenance) -> Vec<Finding> {
    warnings
        .iter()
        .map(|w| {
            let x = &w.witnesses[0];
            let (it, st) = (&k.threads[x.intruder].name, &k.threads[x.split].name);
            let message = if w.kind == HIGH_LEVEL_RACE {
                format!(
                    "{st} accesses {} and {} in separate atomic regions, but {it} accesses {} in one ({}): a region of {it} may run between them",
                    k.display_set(&w.overlaps[0]),
                    k.display_set(&w.overlaps[1]),
                    k.display_set(&x.set),
                    x.intruder_role
                )
            } else {
                let var = k.var_name(w.variables[0]);
                format!(
                    "{st} reads `{var}` in one atomic region and writes it in another, and {it} writes `{var}`: {st} may write back a stale value"
                )
            };
            let mut views = Vec::new();
            let mut events = Vec::new();
            // Two different views of the split thread to show (a stale value's read view may
            // also write the variable).
            let (a, b) = x
                .first
                .iter()
                .flat_map(|&a| x.second.iter().map(move |&b| (a, b)))
                .find(|(a, b)| a != b)
                .unwrap_or((x.first[0], x.second[0]));
            let roles: [(&str, usize, ViewId); 3] = if w.kind == HIGH_LEVEL_RACE {
                [
                    ("maximal", x.intruder, x.intruder_views[0]),
                    ("split-first", x.split, a),
                    ("split-second", x.split, b),
                ]
            } else {
                [
                    ("reads", x.split, a),
                    ("writes-back", x.split, b),
                    ("writer", x.intruder, x.intruder_views[0]),
                ]
            };
            for (role, t, v) in roles {
                views.push(view_json(k, p, t, v, role));
                events.extend(p.events(t, v, &w.variables));
            }
            events.sort_by_key(|e| e.index);
            events.dedup_by_key(|e| e.index);
            let mut fields = Map::new();
            let thread_names: Vec<Value> = w
                .threads
                .iter()
                .map(|&t| Value::from(k.threads[t].name.clone()))
                .collect();
            fields.insert("threads".into(), Value::Array(thread_names));
            let vars: Vec<Value> = w
                .variables
                .iter()
                .map(|&v| Value::from(k.var_name(v)))
                .collect();
            fields.insert("variables".into(), Value::Array(vars));
            fields.insert("views".into(), Value::Array(views));
            fields.insert("witnesses".into(), Value::from(w.witnesses.len()));
            Finding {
                occurrences: None,
                kind: w.kind.to_owned(),
                message,
                events,
                fields,
                group: None,
            }
        })
        .collect()
}

/// The two kinds of findings, for SARIF.
pub fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: HIGH_LEVEL_RACE,
            description: "A set of variables one thread accesses in one atomic region, another thread accesses in several (view consistency, Property 1)",
        },
        Rule {
            id: STALE_VALUE,
            description: "A value read in one atomic region and written back in a later one, while another thread writes the variable (single variable safety, Property 2)",
        },
    ]
}

/// Counts of warnings by kind, for summaries.
pub fn count_kinds(warnings: &[Warning]) -> (usize, usize) {
    let races = warnings
        .iter()
        .filter(|w| w.kind == HIGH_LEVEL_RACE)
        .count();
    let stale = warnings.iter().filter(|w| w.kind == STALE_VALUE).count();
    (races, stale)
}

/// Runs both sensors over `k` in parallel and merges their warnings.
pub fn detect(k: &Knowledge) -> Vec<Warning> {
    detect_counted(k).0
}

/// [`detect`], and whether a sensor stopped at [`sensors::LIMIT`] warnings.
pub fn detect_counted(k: &Knowledge) -> (Vec<Warning>, bool) {
    sensors::run_sensors_counted(&[&sensors::ViewConsistency, &sensors::StaleValue], k)
}

/// [`detect`] asking `go_on` as the sensors work (a run's budget): the warnings, whether a
/// sensor stopped at [`sensors::LIMIT`], and whether one was stopped by `go_on`, in which case
/// the warnings are those found until then.
pub fn detect_within(k: &Knowledge, go_on: sensors::GoOn<'_>) -> sensors::Detected {
    sensors::run_sensors_within(&[&sensors::ViewConsistency, &sensors::StaleValue], k, go_on)
}
