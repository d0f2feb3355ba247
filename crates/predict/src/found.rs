//! The races a model found, kept and rendered the way `races` keeps and renders happens-before
//! races: grouped by variable and pair of source locations, or every racy access as found, with
//! the same `racy_events`/`racy_locations`/`racy_variables` summary, so that counts compare
//! across models (and with RAPID's).

use crate::witness::Witness;
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_stream::driver::{AnalysisOutput, FindingsJob};
use hindsight_stream::groups::{count, Granularity, Group, Groups, Site};
use hindsight_trace::{LocId, Names, ThreadId, VarId};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

/// One side of a race: an access as a report names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: ThreadId,
    /// Index of the event in the trace.
    pub index: u64,
    pub loc: Option<LocId>,
    pub write: bool,
}

/// A racy access and the earlier access it races with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub var: VarId,
    pub partner: Access,
    pub racy: Access,
    /// Whether happens-before orders the pair: the races a witness is owed.
    pub hb_ordered: bool,
}

type RaceKey = (VarId, Site, Site);

/// The races of one model, as it finds them.
pub struct Found {
    model: &'static str,
    granularity: Granularity,
    /// Every racy access not yet handed over (every-event reports only).
    races: Vec<Race>,
    groups: Groups<RaceKey, Race>,
    racy_events: u64,
    racy_variables: FxHashSet<VarId>,
    racy_locations: FxHashSet<LocId>,
    /// Whether each race happens-before does not report gets a witness.
    witnesses_wanted: bool,
    /// Whether only the races happens-before does not report are kept (`--beyond hb`).
    only_beyond_hb: bool,
    /// The racy accesses whose pair happens-before orders: what the model adds to it.
    beyond_hb_events: u64,
    /// Per group, how many of its racy accesses happens-before orders.
    beyond_hb: FxHashMap<RaceKey, u64>,
}

fn site(a: &Access) -> Site {
    Site::of(a.loc, u32::from(a.write), a.thread)
}

impl Found {
    pub fn new(model: &'static str, granularity: Granularity, witnesses_wanted: bool) -> Found {
        Found {
            model,
            granularity,
            races: Vec::new(),
            groups: Groups::default(),
            racy_events: 0,
            racy_variables: FxHashSet::default(),
            racy_locations: FxHashSet::default(),
            witnesses_wanted,
            only_beyond_hb: false,
            beyond_hb_events: 0,
            beyond_hb: FxHashMap::default(),
        }
    }

    /// Keeps only the races happens-before does not report (`only`), or all of them.
    pub fn only_beyond_hb(self, only: bool) -> Found {
        Found {
            only_beyond_hb: only,
            ..self
        }
    }

    /// The races kept so far (every racy access only at [`Granularity::EveryEvent`]).
    pub fn races(&self) -> &[Race] {
        &self.races
    }

    #[cold]
    pub fn found(&mut self, race: Race) {
        if self.only_beyond_hb && !race.hb_ordered {
            return;
        }
        self.racy_events += 1;
        self.beyond_hb_events += u64::from(race.hb_ordered);
        match self.granularity {
            Granularity::EveryEvent => {
                self.racy_variables.insert(race.var);
                self.racy_locations.extend(race.racy.loc);
                self.races.push(race);
            }
            Granularity::Grouped => {
                let key = (race.var, site(&race.partner), site(&race.racy));
                if race.hb_ordered {
                    *self.beyond_hb.entry(key).or_default() += 1;
                }
                self.groups
                    .add(key, &[race.partner.thread, race.racy.thread], race);
            }
        }
    }

    /// The bytes the races kept so far take (what a budget charges for them).
    pub fn bytes(&self) -> usize {
        self.races.capacity() * std::mem::size_of::<Race>()
            + self.groups.bytes() as usize
            + (self.racy_variables.capacity() + self.racy_locations.capacity()) * 5
            + self.beyond_hb.capacity() * (std::mem::size_of::<(RaceKey, u64)>() + 1)
    }

    /// Every-event findings so far, built elsewhere; none while witnesses are wanted, since a
    /// finding then waits for its witness at the end.
    pub fn job(&mut self) -> Option<FindingsJob> {
        if self.races.is_empty() || self.witnesses_wanted {
            return None;
        }
        let races = std::mem::take(&mut self.races);
        let model = self.model;
        Some(Box::new(move |names: &Names| {
            races
                .iter()
                .map(|r| race_finding(model, r, names, None))
                .collect()
        }))
    }

    /// The findings and summary; `witness` gives the witness of a race owed one, if found.
    pub fn finish(
        self,
        names: &Names,
        rule: Rule,
        witness: &dyn Fn(&Race) -> Option<Witness>,
    ) -> AnalysisOutput {
        let mut out = AnalysisOutput::default();
        let groups = self.groups.len();
        let beyond_hb_groups = self.beyond_hb.len();
        let (mut racy_variables, mut racy_locations) = (self.racy_variables, self.racy_locations);
        for g in self.groups.iter() {
            let (x, _, racy) = g.key;
            racy_variables.insert(x);
            if let Site::At(l) = racy {
                racy_locations.insert(l);
            }
        }
        let (mut witnessed, mut unwitnessed) = (0u64, 0u64);
        let mut with_witness = |r: &Race| -> Option<Option<Witness>> {
            if !(self.witnesses_wanted && r.hb_ordered) {
                return None;
            }
            let w = witness(r);
            if w.is_some() {
                witnessed += 1;
            } else {
                unwitnessed += 1;
            }
            Some(w)
        };
        let model = self.model;
        for r in &self.races {
            let w = with_witness(r);
            out.findings.push(race_finding(model, r, names, w));
        }
        for g in self.groups.into_sorted() {
            let w = with_witness(&g.first);
            let beyond = self.beyond_hb.get(&g.key).copied().unwrap_or(0);
            out.findings
                .push(group_finding(model, &g, beyond, names, w));
        }
        let s = &mut out.summary;
        s.insert("model".into(), Value::from(model));
        s.insert("racy_events".into(), Value::from(self.racy_events));
        s.insert("racy_locations".into(), Value::from(racy_locations.len()));
        s.insert("racy_variables".into(), Value::from(racy_variables.len()));
        if self.granularity == Granularity::Grouped {
            s.insert("groups".into(), Value::from(groups));
        }
        // What the model adds to happens-before: the racy accesses whose pair it orders, and
        // the groups holding any.
        s.insert(
            "beyond_hb_events".into(),
            Value::from(self.beyond_hb_events),
        );
        if self.granularity == Granularity::Grouped {
            s.insert("beyond_hb_groups".into(), Value::from(beyond_hb_groups));
        }
        if self.only_beyond_hb {
            s.insert("only".into(), Value::from("beyond hb"));
        }
        if self.witnesses_wanted {
            s.insert("witnesses".into(), Value::from(witnessed));
            s.insert("without_witness".into(), Value::from(unwitnessed));
        }
        out.rules.push(rule);
        out
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

fn place(a: &Access, names: &Names) -> String {
    match a.loc {
        Some(l) => format!("at {}", names.location(l)),
        None => format!("by {}", names.thread(a.thread)),
    }
}

/// Adds the witness (or that none was found) to a finding of a race owed one.
fn attach(f: &mut Finding, witness: Option<Option<Witness>>, names: &Names) {
    match witness {
        None => {}
        Some(Some(w)) => {
            f.message.push_str(&format!(
                "; witness: a correct reordering of {} events enables both",
                w.schedule.len()
            ));
            f.fields.insert("witness".into(), w.to_json(names));
        }
        Some(None) => {
            f.message.push_str(
                "; no witness: no correct reordering keeping each lock's order exposes it",
            );
            f.fields.insert("witness".into(), Value::Null);
        }
    }
}

/// `message`, marked when `beyond_hb` of its `occurrences` racy accesses are races
/// happens-before does not report (it orders their pairs): what the model predicts.
fn mark(mut message: String, beyond_hb: u64, occurrences: u64) -> String {
    if beyond_hb == occurrences {
        message.push_str("; predicted: not a happens-before race");
    } else if beyond_hb > 0 {
        message.push_str(&format!(
            "; predicted: {beyond_hb} of them not happens-before races"
        ));
    }
    message
}

fn race_finding(model: &str, r: &Race, names: &Names, witness: Option<Option<Witness>>) -> Finding {
    let var = names.var(r.var);
    let (p, a) = (&r.partner, &r.racy);
    let message = format!(
        "{} of `{var}` by {} (#{}) races with the earlier {} by {} (#{}) ({model})",
        describe(a),
        names.thread(a.thread),
        a.index,
        describe(p),
        names.thread(p.thread),
        p.index
    );
    let mut fields = serde_json::Map::new();
    fields.insert("variable".into(), Value::from(var));
    fields.insert("beyond_hb".into(), Value::from(r.hb_ordered));
    let mut f = Finding {
        kind: "data-race".into(),
        message: mark(message, u64::from(r.hb_ordered), 1),
        occurrences: None,
        events: vec![event_ref(p, r.var, names), event_ref(a, r.var, names)],
        fields,
        group: Some(var.to_owned()),
    };
    attach(&mut f, witness, names);
    f
}

fn group_finding(
    model: &str,
    g: &Group<RaceKey, Race>,
    beyond_hb: u64,
    names: &Names,
    witness: Option<Option<Witness>>,
) -> Finding {
    let r = &g.first;
    let var = names.var(r.var);
    let threads: Vec<&str> = g.threads.iter().map(|&t| names.thread(t)).collect();
    let message = format!(
        "{} of `{var}` {} races with the earlier {} {} ({}; threads {}; {model})",
        describe(&r.racy),
        place(&r.racy, names),
        describe(&r.partner),
        place(&r.partner, names),
        count(g.occurrences, "racy access", "racy accesses"),
        threads.join(", ")
    );
    let mut fields = serde_json::Map::new();
    fields.insert("variable".into(), Value::from(var));
    fields.insert("threads".into(), Value::from(threads));
    fields.insert("beyond_hb".into(), Value::from(beyond_hb));
    if let Some(l) = &g.last {
        let last = [
            event_ref(&l.partner, l.var, names),
            event_ref(&l.racy, l.var, names),
        ];
        fields.insert(
            "last".into(),
            serde_json::to_value(last).expect("event references serialize"),
        );
    }
    let mut f = Finding {
        kind: "data-race".into(),
        message: mark(message, beyond_hb, g.occurrences),
        occurrences: Some(g.occurrences),
        events: vec![
            event_ref(&r.partner, r.var, names),
            event_ref(&r.racy, r.var, names),
        ],
        fields,
        group: None,
    };
    attach(&mut f, witness, names);
    f
}
