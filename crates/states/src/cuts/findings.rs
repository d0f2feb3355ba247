//! The findings of `hindsight cuts`: a satisfying consistent global state told as its frontier,
//! the state of every thread and a schedule reaching it; for the race predicate, the two racing
//! frontier events. Events of a trace are shown by index, thread and operation; those of a poset
//! file by process and index.

use super::poset::TracePoset;
use super::predicate::Bound;
use hindsight_report::{EventRef, Finding, Rule};
use serde_json::{Map, Value};

/// The rule of the findings: data races for the race predicate, satisfying states otherwise.
pub(super) fn rule(race_only: bool) -> Rule {
    if race_only {
        Rule {
            id: "data-race",
            description: "Two concurrent conflicting accesses are both maximal in a consistent global state: a schedule runs them back to back",
        }
    } else {
        Rule {
            id: "predicate",
            description: "A consistent global state (reachable by some schedule of the run) satisfies the predicate",
        }
    }
}

/// Member `member` of element `i` of process `p`.
fn event_ref(tp: &TracePoset, p: usize, i: u32, member: usize, poset_file: bool) -> EventRef {
    let thread = tp.names.thread(tp.threads[p]).to_owned();
    if poset_file {
        return EventRef {
            index: u64::from(i),
            thread,
            op: format!("event {i}"),
            location: None,
        };
    }
    let e = &tp.element(p, i)[member];
    EventRef {
        index: e.index,
        thread,
        op: e.display_op(&tp.names).to_string(),
        location: e.loc.map(|l| tp.names.location(l).to_owned()),
    }
}

fn describe(r: &EventRef, poset_file: bool) -> String {
    if poset_file {
        format!("{} {}", r.thread, r.op)
    } else {
        format!("#{} {} {}", r.index, r.thread, r.op)
    }
}

/// The finding for the satisfying state `g`.
pub(super) fn finding(
    tp: &TracePoset,
    bound: Option<&Bound<'_>>,
    g: &[u32],
    race_only: bool,
    poset_file: bool,
) -> Finding {
    let n = g.len();
    let frontier: Vec<EventRef> = (0..n)
        .filter(|&p| g[p] > 0)
        .map(|p| event_ref(tp, p, g[p], 0, poset_file))
        .collect();
    let mut schedule = Vec::new();
    let mut order = tp.poset.schedule(g);
    if !poset_file {
        // The trace's own order, restricted to the cut, is a linear extension too, and reads
        // more naturally than the clock-sum order.
        order.sort_by_key(|&(p, i)| tp.element(p, i)[0].index);
    }
    for (p, i) in order {
        if poset_file {
            schedule.push(format!("P{p} event {i}"));
        } else {
            for m in 0..tp.element(p, i).len() {
                schedule.push(describe(&event_ref(tp, p, i, m, false), false));
            }
        }
    }
    let state: Vec<String> = (0..n)
        .map(|p| {
            let t = tp.names.thread(tp.threads[p]);
            if g[p] == 0 {
                format!("{t} before its first event")
            } else {
                let r = event_ref(tp, p, g[p], 0, poset_file);
                if poset_file {
                    format!("{t} at {}", r.op)
                } else {
                    format!("{t} at #{} {}", r.index, r.op)
                }
            }
        })
        .collect();
    let mut fields = Map::new();
    fields.insert("frontier".into(), Value::from(g.to_vec()));
    fields.insert("state".into(), Value::from(state.clone()));
    fields.insert("schedule".into(), Value::from(schedule.clone()));
    let reach = if schedule.len() <= 12 {
        format!("schedule reaching it: {}", schedule.join(", "))
    } else {
        format!(
            "a schedule of {} events reaches it (`schedule` in JSON)",
            schedule.len()
        )
    };
    let race = if race_only {
        bound.and_then(|b| b.explain_race(g))
    } else {
        None
    };
    if let Some(r) = race {
        let a = event_ref(tp, r.first.0, r.first.1, r.first.2, poset_file);
        let b = event_ref(tp, r.second.0, r.second.1, r.second.2, poset_file);
        let var = tp.names.var(r.var).to_owned();
        fields.insert("variable".into(), Value::from(var.clone()));
        let message = format!(
            "data race on {var}: {} and {} are concurrent and both maximal in the consistent global state [{}]; {reach}",
            describe(&a, false),
            describe(&b, false),
            state.join(", "),
        );
        return Finding {
            occurrences: None,
            kind: "data-race".into(),
            message,
            events: vec![a, b],
            fields,
            group: Some(var),
        };
    }
    Finding {
        occurrences: None,
        kind: "predicate".into(),
        message: format!(
            "the predicate holds in the consistent global state [{}]; {reach}",
            state.join(", "),
        ),
        events: frontier,
        fields,
        group: None,
    }
}
