//! `req` orders nothing: RAPID logs a lock request before each acquire, and no analysis gives
//! it a meaning. On random traces (odd ones included: lock records out of order, threads never
//! forked), adding requests anywhere or removing every request changes no answer of any trace
//! analysis (races under each model, atomicity, commute, views) nor of several of them in one
//! pass (`check`), findings compared with event numbers left out: every original event carries
//! a location of its own, so the events are still told apart.

use hindsight_predict::{analysis as race_analysis, Model, Options as PredictOptions};
use hindsight_report::Report;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::commute::builtin::builtin;
use hindsight_stream::commute::load::load;
use hindsight_stream::commute::{Binding, Commute};
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace, Analysis, RunOptions};
use hindsight_trace::arbitrary::{located, text_of};
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{AnyReader, Event, LocId, LockId, NameKind, Op, TextReader, Trace};
use proptest::prelude::*;
use std::io::{Cursor, Read};

const ANALYSES: [&str; 10] = [
    "races",
    "races --model shb",
    "races --model wcp",
    "races --model syncp",
    "races --model osr",
    "atomicity",
    "atomicity --schedule",
    "views",
    "views --regions locks",
    "commute",
];

fn analysis(name: &str) -> Box<dyn Analysis> {
    let atomicity = |schedule| {
        Box::new(Atomicity::new(Options {
            all: false,
            schedule,
            ignore_non_nested: true,
            granularity: Granularity::EveryEvent,
        }))
    };
    let model = |model| {
        race_analysis(
            model,
            PredictOptions {
                granularity: Granularity::EveryEvent,
                witnesses: false,
                beyond_hb: false,
            },
        )
    };
    match name {
        "races" => model(Model::Hb),
        "races --model shb" => model(Model::Shb),
        "races --model wcp" => model(Model::Wcp),
        "races --model syncp" => model(Model::SyncP),
        "races --model osr" => model(Model::Osr),
        "atomicity" => atomicity(false),
        "atomicity --schedule" => atomicity(true),
        "views" => Box::new(DynamicViews::new(Regions::Both, true)),
        "views --regions locks" => Box::new(DynamicViews::new(Regions::Locks, true)),
        "commute" => {
            let loaded = load(builtin("map").expect("shipped"), "<builtin map>", false)
                .expect("the shipped spec loads");
            Box::new(
                Commute::new(loaded.specs, Binding::All(0))
                    .with_granularity(Granularity::EveryEvent),
            )
        }
        _ => unreachable!("{name}"),
    }
}

/// The reports of `analyses` run in one pass over `text`, as findings without event numbers;
/// an error as its message without its position (the line moves with the requests).
fn run(text: &[u8], analyses: &[&str]) -> Result<Vec<String>, String> {
    let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()));
    let mut reader = AnyReader::Text(TextReader::new(input));
    let chain = analyses.iter().map(|name| analysis(name)).collect();
    match analyse_trace(&mut reader, "t.std", chain, RunOptions::default()) {
        Ok(run) => Ok(run.reports.iter().map(findings).collect()),
        Err(d) => Err(d.message),
    }
}

/// The findings and summary of a report with event numbers and what counts events left out.
/// Atomicity's witness runs are left out too: a run starts from the trace's own order, which
/// the requests lengthen.
fn findings(r: &Report) -> String {
    let mut value = serde_json::json!({ "findings": r.findings, "summary": r.summary });
    strip_indices(&mut value);
    let text = serde_json::to_string_pretty(&value).expect("serializes");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '#' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

fn strip_indices(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for key in ["index", "witness", "events", "memory_bytes"] {
                m.remove(key);
            }
            if let Some(s) = m.get_mut("schedule") {
                *s = s["reaches_e2"].clone();
            }
            if let Some(serde_json::Value::String(message)) = m.get_mut("message") {
                if let Some(at) = message.find("; schedule:") {
                    message.truncate(at);
                }
            }
            m.values_mut().for_each(strip_indices);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_indices),
        _ => {}
    }
}

/// Whether each event of `t` names only a thread and a lock that earlier events named: such a
/// request can come and go without renumbering the names (readers number them in order of
/// appearance, and some analyses break ties by number: which of two earlier accesses a race
/// names, say), so answers compare as they are.
fn named_before(t: &Trace) -> Vec<bool> {
    let (mut threads, mut locks) = (Vec::new(), Vec::new());
    t.events
        .iter()
        .map(|e| {
            let lock = match e.op {
                Op::Acquire(l) | Op::Release(l) | Op::Request(l) => Some(l),
                _ => None,
            };
            let known = threads.contains(&e.thread) && lock.is_none_or(|l| locks.contains(&l));
            threads.push(e.thread);
            locks.extend(lock);
            known
        })
        .collect()
}

/// `t` without the requests that name nothing new (see [`named_before`]).
fn without_requests(t: &Trace) -> Trace {
    let known = named_before(t);
    let mut events: Vec<Event> = t
        .events
        .iter()
        .zip(&known)
        .filter(|(e, &known)| !(known && matches!(e.op, Op::Request(_))))
        .map(|(e, _)| e.clone())
        .collect();
    for (k, e) in events.iter_mut().enumerate() {
        e.index = k as u64;
    }
    Trace {
        names: t.names.clone(),
        events,
    }
}

/// `t` with a request before event `at % len` for each `(at, lock)` of `inserts`, by that
/// event's thread, of the `lock`-th lock named before it; none where that thread or no lock
/// was named before (see [`named_before`]).
fn with_requests(t: &Trace, inserts: &[(usize, u8)]) -> Trace {
    let mut names = t.names.clone();
    let mut before: Vec<Vec<u8>> = vec![Vec::new(); t.events.len()];
    for &(at, lock) in inserts {
        if !t.events.is_empty() {
            before[at % t.events.len()].push(lock);
        }
    }
    let (mut threads, mut locks) = (Vec::new(), Vec::new());
    let mut events = Vec::new();
    for (k, e) in t.events.iter().enumerate() {
        if threads.contains(&e.thread) && !locks.is_empty() {
            for &lock in &before[k] {
                let loc = names
                    .of_mut(NameKind::Location)
                    .intern(format!("req{}", events.len()).as_bytes())
                    .expect("ascii");
                let l: LockId = locks[lock as usize % locks.len()];
                let mut req = Event::new(0, e.thread, Op::Request(l));
                req.loc = Some(LocId(loc));
                events.push(req);
            }
        }
        threads.push(e.thread);
        if let Op::Acquire(l) | Op::Release(l) | Op::Request(l) = e.op {
            locks.push(l);
        }
        events.push(e.clone());
    }
    for (k, e) in events.iter_mut().enumerate() {
        e.index = k as u64;
    }
    Trace { names, events }
}

fn same_answers(a: &Trace, b: &Trace) -> Result<(), TestCaseError> {
    let (a, b) = (text_of(a), text_of(b));
    let shown = |t: &[u8]| String::from_utf8_lossy(t).into_owned();
    for name in ANALYSES {
        prop_assert_eq!(
            run(&a, &[name]),
            run(&b, &[name]),
            "{} on\n{}\nand\n{}",
            name,
            shown(&a),
            shown(&b)
        );
    }
    // `check`: the analyses in one pass, each answering as alone.
    prop_assert_eq!(
        run(&a, &ANALYSES),
        run(&b, &ANALYSES),
        "check on\n{}",
        shown(&a)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn requests_change_no_answer(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        inserts in prop::collection::vec((any::<usize>(), any::<u8>()), 0..8),
        odd in any::<bool>(),
    ) {
        let shape = Shape { odd, ..Shape::default() };
        let original = located(trace_from_choices(&choices, shape));
        same_answers(&original, &without_requests(&original))?;
        same_answers(&original, &with_requests(&original, &inserts))?;
    }
}
