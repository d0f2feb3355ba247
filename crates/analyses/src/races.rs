//! Happens-before data races, exactly: an access is *racy* when some earlier access to the same
//! variable by another thread, at least one of the two a write, is unordered with it by
//! happens-before. Every racy access is reported once, with the latest such earlier access.
//!
//! The per-variable state keeps, for reads and for writes, only the accesses that a later access
//! could still race with: an access is dropped once a later access covers it (it happens before
//! that access, and that access conflicts with everything it conflicts with: a write covers
//! reads and writes, a read covers reads). Dropping is exact: whenever a dropped access would
//! race with a future access, so does the access that covered it, which is later in the trace,
//! so neither the verdict nor the latest partner changes. In the common race-free case each set
//! is a single FastTrack epoch; it grows only with accesses that really race (or with concurrent
//! reads, FastTrack's read-shared mode).

use crate::driver::{Analysis, AnalysisOutput};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_trace::{Event, LocId, Names, Op, ThreadId, VarId};
use rustc_hash::FxHashSet;
use serde_json::Value;

/// An access a later one may race with: its epoch, and what a report needs to name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Access {
    thread: ThreadId,
    clock: u32,
    index: u64,
    loc: Option<LocId>,
    write: bool,
}

impl Access {
    /// Whether this access happens before an access of thread `t` with clock `vc`.
    #[inline]
    fn ordered_before(&self, t: ThreadId, vc: &VectorClock) -> bool {
        self.thread == t || self.clock <= vc.get(self.thread)
    }
}

/// A set of accesses, almost always empty or a single epoch.
#[derive(Clone, Debug, Default)]
enum Accesses {
    #[default]
    Empty,
    One(Access),
    Many(Vec<Access>),
}

impl Accesses {
    /// The latest access unordered with an access of `t` at `vc`.
    #[inline]
    fn latest_unordered(&self, t: ThreadId, vc: &VectorClock) -> Option<Access> {
        match self {
            Accesses::Empty => None,
            Accesses::One(a) => (!a.ordered_before(t, vc)).then_some(*a),
            Accesses::Many(v) => v
                .iter()
                .filter(|a| !a.ordered_before(t, vc))
                .max_by_key(|a| a.index)
                .copied(),
        }
    }

    /// Drops the accesses covered by `new` (ordered before it) and adds `new`.
    #[inline]
    fn cover_with(&mut self, new: Access, vc: &VectorClock) {
        match self {
            Accesses::Empty => *self = Accesses::One(new),
            Accesses::One(a) => {
                if a.ordered_before(new.thread, vc) {
                    *a = new;
                } else {
                    *self = Accesses::Many(vec![*a, new]);
                }
            }
            Accesses::Many(v) => {
                v.retain(|a| !a.ordered_before(new.thread, vc));
                v.push(new);
                if v.len() == 1 {
                    *self = Accesses::One(v[0]);
                }
            }
        }
    }

    /// Drops the accesses ordered before an access of `t` at `vc` (a write covers reads).
    #[inline]
    fn drop_covered(&mut self, t: ThreadId, vc: &VectorClock) {
        match self {
            Accesses::Empty => {}
            Accesses::One(a) => {
                if a.ordered_before(t, vc) {
                    *self = Accesses::Empty;
                }
            }
            Accesses::Many(v) => {
                v.retain(|a| !a.ordered_before(t, vc));
                match v.len() {
                    0 => *self = Accesses::Empty,
                    1 => *self = Accesses::One(v[0]),
                    _ => {}
                }
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct VarState {
    reads: Accesses,
    writes: Accesses,
}

/// One racy access and the latest earlier access it races with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub var: VarId,
    /// Index of the earlier partner in the trace.
    pub partner: u64,
    /// Index of the racy access.
    pub racy: u64,
    partner_access: Access,
    racy_access: Access,
}

/// The `races` analysis.
#[derive(Default)]
pub struct Races {
    vars: Vec<VarState>,
    races: Vec<Race>,
}

impl Races {
    pub fn new() -> Races {
        Races::default()
    }

    /// The races found so far, in trace order of the racy access.
    pub fn races(&self) -> &[Race] {
        &self.races
    }

    #[inline]
    fn access(&mut self, x: VarId, write: bool, e: &Event, hb: &HappensBefore) {
        if x.index() >= self.vars.len() {
            self.vars.resize_with(x.index() + 1, VarState::default);
        }
        let t = e.thread;
        let vc = hb.clock(t);
        let me = Access {
            thread: t,
            clock: vc.get(t),
            index: e.index,
            loc: e.loc,
            write,
        };
        let state = &mut self.vars[x.index()];
        let mut partner = state.writes.latest_unordered(t, vc);
        if write {
            if let Some(r) = state.reads.latest_unordered(t, vc) {
                if partner.is_none_or(|w| r.index > w.index) {
                    partner = Some(r);
                }
            }
            state.writes.cover_with(me, vc);
            state.reads.drop_covered(t, vc);
        } else {
            state.reads.cover_with(me, vc);
        }
        if let Some(p) = partner {
            self.races.push(Race {
                var: x,
                partner: p.index,
                racy: e.index,
                partner_access: p,
                racy_access: me,
            });
        }
    }
}

fn event_ref(a: &Access, x: VarId, names: &Names) -> EventRef {
    EventRef {
        index: a.index,
        thread: names.thread(a.thread).to_owned(),
        op: format!("{}({})", if a.write { "w" } else { "r" }, names.var(x)),
        location: a.loc.map(|l| names.location(l).to_owned()),
    }
}

fn describe(a: &Access) -> &'static str {
    if a.write {
        "write"
    } else {
        "read"
    }
}

impl Analysis for Races {
    fn name(&self) -> &'static str {
        "races"
    }

    #[inline]
    fn on_event(&mut self, e: &Event, hb: &HappensBefore) {
        match e.op {
            Op::Read(x) => self.access(x, false, e, hb),
            Op::Write(x) => self.access(x, true, e, hb),
            _ => {}
        }
    }

    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        let mut out = AnalysisOutput::default();
        let mut racy_vars = FxHashSet::default();
        for r in &self.races {
            racy_vars.insert(r.var);
            let var = names.var(r.var);
            let (p, a) = (&r.partner_access, &r.racy_access);
            let message = format!(
                "{} of `{var}` by {} (#{}) races with the earlier {} by {} (#{})",
                describe(a),
                names.thread(a.thread),
                a.index,
                describe(p),
                names.thread(p.thread),
                p.index
            );
            let mut fields = serde_json::Map::new();
            fields.insert("variable".into(), Value::from(var));
            out.findings.push(Finding {
                kind: "data-race".into(),
                message,
                events: vec![event_ref(p, r.var, names), event_ref(a, r.var, names)],
                fields,
                group: Some(var.to_owned()),
            });
        }
        out.summary
            .insert("racy_events".into(), Value::from(self.races.len()));
        out.summary
            .insert("racy_variables".into(), Value::from(racy_vars.len()));
        out.rules.push(Rule {
            id: "data-race",
            description: "Two accesses to one variable by different threads, at least one a write, unordered by happens-before",
        });
        out
    }
}
