//! Grouped findings against the per-event ones, on random traces: grouping the `--every-event`
//! findings of `races` literally by their key (variable, and the source location of each
//! access or, without one, its kind and thread) gives exactly the grouped findings: the same
//! groups, occurrences, threads, first and last pair; and the summary's `racy_events` and
//! `racy_locations` are a literal count over the definition's racy accesses.

use hindsight_order::reference::EventClocks;
use hindsight_report::{EventRef, Finding};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::{run, RunOptions};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{LocId, Op, Trace};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// `trace` with event `i` at location `L{locs[i]}` where that is below 4, else without one.
fn located(mut trace: Trace, locs: &[u8]) -> Trace {
    let pool: Vec<LocId> = (0..4)
        .map(|i| {
            LocId(
                trace
                    .names
                    .locations
                    .intern(format!("L{i}").as_bytes())
                    .expect("ascii"),
            )
        })
        .collect();
    for (e, &l) in trace.events.iter_mut().zip(locs.iter().cycle()) {
        e.loc = pool.get(l as usize % 6).copied();
    }
    trace
}

fn findings(
    trace: &Trace,
    granularity: Granularity,
) -> (Vec<Finding>, serde_json::Map<String, Value>) {
    let mut out = run(
        &mut trace.source(),
        vec![Box::new(Races::with_granularity(granularity))],
        RunOptions::default(),
    )
    .expect("arbitrary traces are valid");
    let (_, output) = out.outputs.remove(0);
    (output.findings, output.summary)
}

/// Where an access stands in a group, read off its event as a finding shows it.
fn site(e: &EventRef) -> String {
    match &e.location {
        Some(l) => format!("at {l}"),
        None => format!("{} by {}", &e.op[..1], e.thread),
    }
}

/// A group as the literal grouping of per-event findings sees it.
#[derive(Debug, PartialEq)]
struct Literal {
    occurrences: u64,
    threads: BTreeSet<String>,
    first: Vec<EventRef>,
    last: Vec<EventRef>,
}

fn literal_groups(every: &[Finding]) -> BTreeMap<(String, String, String), Literal> {
    let mut groups: BTreeMap<(String, String, String), Literal> = BTreeMap::new();
    for f in every {
        let var = f.fields["variable"].as_str().expect("variable").to_owned();
        let key = (var, site(&f.events[0]), site(&f.events[1]));
        let g = groups.entry(key).or_insert_with(|| Literal {
            occurrences: 0,
            threads: BTreeSet::new(),
            first: f.events.clone(),
            last: f.events.clone(),
        });
        g.occurrences += 1;
        g.last = f.events.clone();
        g.threads.extend(f.events.iter().map(|e| e.thread.clone()));
    }
    groups
}

fn grouped_groups(grouped: &[Finding]) -> BTreeMap<(String, String, String), Literal> {
    grouped
        .iter()
        .map(|f| {
            let var = f.fields["variable"].as_str().expect("variable").to_owned();
            let key = (var, site(&f.events[0]), site(&f.events[1]));
            let occurrences = f.occurrences.expect("a grouped finding counts");
            let last = match f.fields.get("last") {
                Some(v) => serde_json::from_value::<Vec<Value>>(v.clone())
                    .expect("events")
                    .iter()
                    .map(|e| EventRef {
                        index: e["index"].as_u64().expect("index"),
                        thread: e["thread"].as_str().expect("thread").to_owned(),
                        op: e["op"].as_str().expect("op").to_owned(),
                        location: e["location"].as_str().map(str::to_owned),
                    })
                    .collect(),
                None => f.events.clone(),
            };
            let threads = f.fields["threads"]
                .as_array()
                .expect("threads")
                .iter()
                .map(|t| t.as_str().expect("name").to_owned())
                .collect();
            let literal = Literal {
                occurrences,
                threads,
                first: f.events.clone(),
                last,
            };
            (key, literal)
        })
        .collect()
}

/// The racy accesses by the definition: an access with an earlier conflicting access of
/// another thread unordered with it.
fn racy_accesses(trace: &Trace) -> Vec<usize> {
    let hb = EventClocks::compute(trace);
    let access = |op: &Op| match op {
        Op::Read(x) => Some((*x, false)),
        Op::Write(x) => Some((*x, true)),
        _ => None,
    };
    let ev = &trace.events;
    (0..ev.len())
        .filter(|&j| {
            access(&ev[j].op).is_some_and(|(x, wj)| {
                (0..j).any(|i| {
                    access(&ev[i].op).is_some_and(|(y, wi)| {
                        y == x
                            && (wi || wj)
                            && ev[i].thread != ev[j].thread
                            && !hb.happens_before(i, j)
                    })
                })
            })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn grouping_every_racy_event_gives_the_grouped_findings(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..60),
        locs in prop::collection::vec(any::<u8>(), 1..16),
        threads in 2u8..=4,
        odd in any::<bool>(),
    ) {
        let shape = Shape { threads, vars: 2, locks: 2, msgs: 1, odd };
        let trace = located(trace_from_choices(&choices, shape), &locs);
        let (every, every_summary) = findings(&trace, Granularity::EveryEvent);
        let (grouped, summary) = findings(&trace, Granularity::Grouped);
        prop_assert!(grouped.iter().all(|f| f.occurrences.is_some()));
        prop_assert!(every.iter().all(|f| f.occurrences.is_none()));
        prop_assert_eq!(grouped_groups(&grouped), literal_groups(&every));
        prop_assert_eq!(summary["groups"].as_u64(), Some(grouped.len() as u64));
        // Most occurrences first.
        prop_assert!(grouped.windows(2).all(|w| w[0].occurrences >= w[1].occurrences));

        // The pass repairs late lock releases: the definition is applied to the repaired log.
        let repaired = hindsight_trace::Trace::collect(&mut hindsight_trace::LockRepair::new(trace.source(), true))
            .expect("in memory");
        let racy = racy_accesses(&repaired);
        let locations: BTreeSet<LocId> = racy.iter().filter_map(|&j| repaired.events[j].loc).collect();
        for s in [&summary, &every_summary] {
            prop_assert_eq!(s["racy_events"].as_u64(), Some(racy.len() as u64));
            prop_assert_eq!(s["racy_locations"].as_u64(), Some(locations.len() as u64));
        }
    }
}
