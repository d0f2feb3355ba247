//! Oracles for `views`: `add` and `merge_p` against a literal reading of Definitions 1 and 2;
//! the sensors against Properties 1 and 2 read literally; dynamic views and the
//! may-happen-in-parallel relation against a brute force over every pair of regions; the
//! paper's worked examples (Table 1, Figs. 1, 2, 7); the verdicts of the program suite in
//! `examples/views`, static and dynamic; bad programs.

use hindsight_order::{HappensBefore, VectorClock};
use hindsight_rng::SplitMix64;
use hindsight_source::views::{lang, symbolic};
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{class_name, DynamicViews, Marking, Regions};
use hindsight_stream::{run, Observer, RunOptions};
use hindsight_trace::arbitrary::{requests_from_choices, trace_from_choices, Requests, Shape};
use hindsight_trace::{Op, TextReader, ThreadId, Trace};
use hindsight_views::sensors::{
    run_sensors, table, StaleValue, ViewConsistency, HIGH_LEVEL_RACE, STALE_VALUE,
};
use hindsight_views::view::{Access, Kind, Mark, View};
use hindsight_views::{detect, Knowledge, ThreadViews};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Definitions 1 and 2, literally: a view is a set of triples; where the definition leaves a
// choice (which `δ`, which `a ∈ V_p` first), every choice is followed and all results kept.

type Lit = BTreeSet<(Kind, u32, Mark)>;

fn opposite(m: Mark) -> Mark {
    match m {
        Mark::Open => Mark::Closed,
        Mark::Closed => Mark::Open,
    }
}

fn add_literal((alpha, v, gamma): (Kind, u32, Mark), view: &Lit) -> Vec<Lit> {
    // First branch: (α, v, δ) ∈ V ∧ α = r ∧ γ ≠ δ.
    if alpha == Kind::Read && view.contains(&(alpha, v, opposite(gamma))) {
        let mut out = view.clone();
        out.remove(&(alpha, v, opposite(gamma)));
        out.insert((alpha, v, gamma));
        return vec![out];
    }
    // Second branch: (r, v, δ) ∈ V ∧ α = w, for each δ that fits.
    if alpha == Kind::Write {
        let deltas: Vec<Mark> = [Mark::Open, Mark::Closed]
            .into_iter()
            .filter(|d| view.contains(&(Kind::Read, v, *d)))
            .collect();
        if !deltas.is_empty() {
            return deltas
                .into_iter()
                .map(|d| {
                    let mut out = view.clone();
                    out.remove(&(Kind::Read, v, d));
                    out.insert((Kind::Read, v, Mark::Closed));
                    out.insert((alpha, v, Mark::Closed));
                    out
                })
                .collect();
        }
    }
    let mut out = view.clone();
    out.insert((alpha, v, gamma));
    vec![out]
}

/// `merge(V_p, V)` for every order of picking `a ∈ V_p`.
fn merge_literal(vp: &[(Kind, u32, Mark)], view: &Lit) -> BTreeSet<Lit> {
    if vp.is_empty() {
        return BTreeSet::from([view.clone()]);
    }
    let mut out = BTreeSet::new();
    for i in 0..vp.len() {
        let mut rest = vp.to_vec();
        let a = rest.remove(i);
        for next in add_literal(a, view) {
            out.extend(merge_literal(&rest, &next));
        }
    }
    out
}

fn merge_p_literal(vp: &Lit, view: &Lit) -> BTreeSet<Lit> {
    let writes: Vec<_> = vp.iter().copied().filter(|a| a.0 == Kind::Write).collect();
    let reads: Vec<_> = vp.iter().copied().filter(|a| a.0 == Kind::Read).collect();
    let mut out = BTreeSet::new();
    for after_writes in merge_literal(&writes, view) {
        out.extend(merge_literal(&reads, &after_writes));
    }
    out
}

fn to_lit(v: &View) -> Lit {
    v.accesses().map(|a| (a.kind, a.var, a.mark)).collect()
}

fn from_lit(l: &Lit) -> View {
    View::from_accesses(l.iter().map(|&(k, v, m)| Access::new(k, v, m)))
}

fn access_strategy() -> impl Strategy<Value = (Kind, u32, Mark)> {
    (any::<bool>(), 0u32..3, any::<bool>()).prop_map(|(w, v, c)| {
        (
            if w { Kind::Write } else { Kind::Read },
            v,
            if c { Mark::Closed } else { Mark::Open },
        )
    })
}

fn view_strategy() -> impl Strategy<Value = Lit> {
    prop::collection::btree_set(access_strategy(), 0..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn add_is_definition_1(view in view_strategy(), a in access_strategy()) {
        let mut fast = from_lit(&view);
        fast.add(Access::new(a.0, a.1, a.2));
        let allowed = add_literal(a, &view);
        prop_assert!(allowed.contains(&to_lit(&fast)), "add {:?} to {:?}: got {:?}, definition allows {:?}", a, view, to_lit(&fast), allowed);
        // Without a view holding both reads of one variable, the definition has one answer.
        if allowed.len() == 1 {
            prop_assert_eq!(&to_lit(&fast), &allowed[0]);
        }
    }

    #[test]
    fn merge_p_is_definition_2(callee in view_strategy(), caller in view_strategy()) {
        let mut fast = from_lit(&caller);
        fast.merge_p(&from_lit(&callee));
        let allowed = merge_p_literal(&callee, &caller);
        prop_assert!(allowed.contains(&to_lit(&fast)), "merge_p({:?}, {:?}) = {:?}, definition allows {:?}", callee, caller, to_lit(&fast), allowed);
    }

    #[test]
    fn blocks_built_by_add_mark_use_define(seq in prop::collection::vec((any::<bool>(), 0u32..3), 0..12)) {
        // What the marks mean, independently of Definition 1: a read is overwritten iff a write
        // of the variable follows its last read; a write is "after read" iff a read precedes it.
        let mut v = View::new();
        for &(w, x) in &seq {
            v.add(Access::new(if w { Kind::Write } else { Kind::Read }, x, Mark::Open));
        }
        for x in 0..3u32 {
            let reads: Vec<usize> = seq.iter().enumerate().filter(|(_, a)| !a.0 && a.1 == x).map(|(i, _)| i).collect();
            let writes: Vec<usize> = seq.iter().enumerate().filter(|(_, a)| a.0 && a.1 == x).map(|(i, _)| i).collect();
            let read_mark = reads.last().map(|&r| if writes.iter().any(|&w| w > r) { Mark::Closed } else { Mark::Open });
            let has = |k, m| v.contains(Access::new(k, x, m));
            match read_mark {
                None => prop_assert!(!has(Kind::Read, Mark::Open) && !has(Kind::Read, Mark::Closed)),
                Some(m) => {
                    prop_assert!(has(Kind::Read, m));
                    prop_assert!(!has(Kind::Read, opposite(m)));
                }
            }
            let first_read = reads.first().copied();
            let fresh = writes.iter().any(|&w| first_read.is_none_or(|r| w < r));
            let after = writes.iter().any(|&w| first_read.is_some_and(|r| w > r));
            prop_assert_eq!(has(Kind::Write, Mark::Open), fresh);
            prop_assert_eq!(has(Kind::Write, Mark::Closed), after);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Properties 1 and 2, literally.

type Set = BTreeSet<u32>;

fn v_alpha(k: &Knowledge, t: usize, alpha: Kind) -> BTreeSet<Set> {
    k.threads[t]
        .views
        .iter()
        .map(|&v| {
            k.views[v as usize]
                .accesses()
                .filter(|a| a.kind == alpha)
                .map(|a| a.var)
                .collect::<Set>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

fn m_alpha(k: &Knowledge, t: usize, alpha: Kind) -> BTreeSet<Set> {
    let vs = v_alpha(k, t, alpha);
    vs.iter()
        .filter(|m| vs.iter().all(|v| !m.is_subset(v) || v == *m))
        .cloned()
        .collect()
}

/// The pairs of `overlap_α(t, m)` that are not a chain.
fn not_chain(k: &Knowledge, t: usize, m: &Set, alpha: Kind) -> Vec<(Set, Set)> {
    let overlaps: BTreeSet<Set> = v_alpha(k, t, alpha)
        .iter()
        .map(|v| m.intersection(v).copied().collect::<Set>())
        .filter(|o| !o.is_empty())
        .collect();
    let mut out = Vec::new();
    for a in &overlaps {
        for b in &overlaps {
            if a < b && !a.is_subset(b) && !b.is_subset(a) {
                out.push((a.clone(), b.clone()));
            }
        }
    }
    out
}

type RaceKey = ([usize; 2], Vec<u32>, Vec<u32>);

fn property_1_violations(k: &Knowledge) -> BTreeSet<RaceKey> {
    let n = k.threads.len();
    let mut out = BTreeSet::new();
    for t1 in 0..n {
        for t2 in (0..n).filter(|&t2| t2 != t1) {
            let mut pairs = Vec::new();
            for m in m_alpha(k, t1, Kind::Read) {
                pairs.extend(not_chain(k, t2, &m, Kind::Write));
            }
            for m in m_alpha(k, t1, Kind::Write) {
                pairs.extend(not_chain(k, t2, &m, Kind::Read));
                pairs.extend(not_chain(k, t2, &m, Kind::Write));
            }
            for (a, b) in pairs {
                out.insert((
                    [t1.min(t2), t1.max(t2)],
                    a.into_iter().collect(),
                    b.into_iter().collect(),
                ));
            }
        }
    }
    out
}

fn psv(k: &Knowledge, var: u32, t: usize) -> bool {
    let vs = &k.threads[t].views;
    vs.iter().any(|&v1| {
        vs.iter().any(|&v2| {
            v1 != v2
                && k.views[v1 as usize].contains(Access::new(Kind::Read, var, Mark::Open))
                && (k.views[v2 as usize].contains(Access::new(Kind::Write, var, Mark::Open))
                    || k.views[v2 as usize].contains(Access::new(Kind::Write, var, Mark::Closed)))
        })
    })
}

fn writes(k: &Knowledge, var: u32, t: usize) -> bool {
    k.threads[t].views.iter().any(|&v| {
        k.views[v as usize].contains(Access::new(Kind::Write, var, Mark::Open))
            || k.views[v as usize].contains(Access::new(Kind::Write, var, Mark::Closed))
    })
}

fn property_2_violations(k: &Knowledge) -> BTreeSet<([usize; 2], u32)> {
    let n = k.threads.len();
    let mut out = BTreeSet::new();
    for t1 in 0..n {
        for t2 in (0..n).filter(|&t2| t2 != t1) {
            for var in 0..k.var_names.len() as u32 {
                // ¬pSafe(t1, t2)
                if writes(k, var, t1) && psv(k, var, t2) {
                    out.insert(([t1.min(t2), t1.max(t2)], var));
                }
            }
        }
    }
    out
}

fn knowledge_strategy() -> impl Strategy<Value = Knowledge> {
    prop::collection::vec(prop::collection::vec(view_strategy(), 1..5), 2..4).prop_map(|threads| {
        let mut views: Vec<View> = Vec::new();
        let mut out = Vec::new();
        for (i, vs) in threads.iter().enumerate() {
            let mut ids: Vec<u32> = vs
                .iter()
                .map(from_lit)
                .filter(|v| !v.is_empty())
                .map(|v| match views.iter().position(|x| *x == v) {
                    Some(p) => p as u32,
                    None => {
                        views.push(v);
                        (views.len() - 1) as u32
                    }
                })
                .collect();
            ids.sort_unstable();
            ids.dedup();
            out.push(ThreadViews {
                name: format!("T{i}"),
                views: ids,
            });
        }
        Knowledge {
            var_names: vec!["x".into(), "y".into(), "z".into()],
            views,
            threads: out,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn view_consistency_is_property_1(k in knowledge_strategy()) {
        let got: BTreeSet<RaceKey> = run_sensors(&[&ViewConsistency], &k)
            .into_iter()
            .map(|w| (w.threads, w.overlaps[0].clone(), w.overlaps[1].clone()))
            .collect();
        prop_assert_eq!(got, property_1_violations(&k));
    }

    #[test]
    fn single_variable_is_property_2(k in knowledge_strategy()) {
        let got: BTreeSet<([usize; 2], u32)> = run_sensors(&[&StaleValue], &k)
            .into_iter()
            .map(|w| (w.threads, w.variables[0]))
            .collect();
        prop_assert_eq!(got, property_2_violations(&k));
    }

    #[test]
    fn merged_sensors_are_the_union_without_duplicates(k in knowledge_strategy()) {
        let both = detect(&k);
        let races = run_sensors(&[&ViewConsistency], &k);
        let stale = run_sensors(&[&StaleValue], &k);
        prop_assert_eq!(both.len(), races.len() + stale.len());
        let keys: BTreeSet<_> = both.iter().map(|w| w.key()).collect();
        prop_assert_eq!(keys.len(), both.len());
    }
}

// ---------------------------------------------------------------------------------------------
// Dynamic views and may-happen-in-parallel against every pair of regions.

/// Clocks per event with happens-before from fork, join, send and receive only (no lock
/// edges), every event its own epoch.
fn must_clocks(trace: &Trace) -> Vec<VectorClock> {
    let nt = trace.names.threads.len();
    let mut current = vec![VectorClock::new(); nt];
    let mut sends: BTreeMap<u32, VectorClock> = BTreeMap::new();
    let mut out = Vec::new();
    for e in &trace.events {
        let t = e.thread;
        let mut c = current[t.index()].clone();
        c.increment(t);
        match &e.op {
            Op::Receive(m) => {
                if let Some(s) = sends.get(&m.0) {
                    c.join(s);
                }
            }
            Op::Join(u) => c.join(&current[u.index()]),
            _ => {}
        }
        match &e.op {
            Op::Send(m) => {
                sends.insert(m.0, c.clone());
            }
            Op::Fork(u) => current[u.index()].join(&c),
            _ => {}
        }
        current[t.index()] = c.clone();
        out.push(c);
    }
    out
}

struct Region {
    thread: ThreadId,
    begin: usize,
    end: usize,
    view: View,
}

/// Outermost begin..end regions with at least one access, views by folding `add`.
fn regions(trace: &Trace) -> Vec<Region> {
    let nt = trace.names.threads.len();
    let mut open: Vec<Option<(usize, u32, View)>> = vec![None; nt];
    let mut out = Vec::new();
    for (i, e) in trace.events.iter().enumerate() {
        let slot = &mut open[e.thread.index()];
        match &e.op {
            Op::Begin(_) => match slot {
                Some((_, depth, _)) => *depth += 1,
                None => *slot = Some((i, 1, View::new())),
            },
            Op::End => {
                if let Some((b, depth, v)) = slot {
                    *depth -= 1;
                    if *depth == 0 {
                        if !v.is_empty() {
                            out.push(Region {
                                thread: e.thread,
                                begin: *b,
                                end: i,
                                view: v.clone(),
                            });
                        }
                        *slot = None;
                    }
                }
            }
            Op::Read(x) | Op::Write(x) | Op::AtomicLoad(x) | Op::AtomicStore(x) => {
                if let Some((_, _, v)) = slot {
                    let kind = if matches!(e.op, Op::Read(_) | Op::AtomicLoad(_)) {
                        Kind::Read
                    } else {
                        Kind::Write
                    };
                    v.add(Access::new(kind, x.0, Mark::Open));
                }
            }
            // One access that reads and writes: both kinds, in the region it is in.
            Op::AtomicRmw(x) => {
                if let Some((_, _, v)) = slot {
                    v.add(Access::new(Kind::Read, x.0, Mark::Open));
                    v.add(Access::new(Kind::Write, x.0, Mark::Open));
                }
            }
            _ => {}
        }
    }
    out
}

fn hb(clocks: &[VectorClock], trace: &Trace, i: usize, j: usize) -> bool {
    let t = trace.events[i].thread;
    clocks[i].get(t) <= clocks[j].get(t)
}

type ThreadView = (u32, View);

/// The analysis fed as the pass `hb` feeds it: each event with the pass's happens-before at it.
fn feed(trace: &Trace, mut hb: HappensBefore, marking: Marking) -> DynamicViews {
    let mut d = DynamicViews::new(Regions::Blocks, true).with_marking(marking);
    for e in &trace.events {
        hb.before(e);
        d.on_event(e, &hb, &trace.names).expect("no error");
        hb.after(e);
    }
    d
}

fn choices() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn dynamic_views_and_parallel_regions_match_brute_force(choices in choices()) {
        let shape = Shape { threads: 3, vars: 2, locks: 2, msgs: 2, odd: false };
        views_and_parallel_regions_match_brute_force(&trace_from_choices(&choices, shape))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Thread-per-request traces: many short threads forked and joined by the main thread, so
    /// that joined threads drop out of the scan for the regions that begin after their join.
    #[test]
    fn views_of_many_short_threads_match_brute_force(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..120),
        first in 1u32..90,
        stride in 1u32..4,
        in_flight in 1u8..5,
    ) {
        let shape = Requests { first, stride, in_flight, vars: 3, locks: 2, msgs: 2 };
        // With blocks around the critical sections: the requests have no regions otherwise.
        let trace = blocks_around_locks(&requests_from_choices(&choices, shape));
        views_and_parallel_regions_match_brute_force(&trace)?;
    }
}

/// A long thread-per-request trace, hundreds of short threads with regions on a few shared
/// variables: the views of each thread and the relation of views that may run in parallel
/// are the brute force's, with the state of each finished thread down to a few numbers.
#[test]
fn views_of_hundreds_of_short_threads_match_brute_force() {
    let mut rng = SplitMix64::new(0x5EED_0020);
    let choices: Vec<(u8, u8, u8)> = (0..900)
        .map(|_| {
            let r = rng.next_u64();
            (r as u8, (r >> 8) as u8, (r >> 16) as u8)
        })
        .collect();
    let shape = Requests {
        first: 2,
        stride: 1,
        in_flight: 4,
        vars: 3,
        locks: 2,
        msgs: 2,
    };
    let trace = blocks_around_locks(&requests_from_choices(&choices, shape));
    assert!(trace.names.threads.len() > 500);
    views_and_parallel_regions_match_brute_force(&trace).expect("matches the brute force");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Thread-per-request traces with a block around each critical section, under a pass
    /// whose clocks keep their dense prefix in the shared tree from a random fork on (as every
    /// pass does past `SHARE_DENSE_FROM` threads), and so does the analysis' own
    /// happens-before without lock edges, copied from it at the first acquire: the views and
    /// the relation of views that may run in parallel are still the brute force's.
    #[test]
    fn views_match_brute_force_with_clocks_sharing_their_dense_prefix(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..120),
        first in 1u32..90,
        stride in 1u32..4,
        in_flight in 1u8..5,
        share in 0usize..100,
    ) {
        let shape = Requests { first, stride, in_flight, vars: 3, locks: 2, msgs: 2 };
        let trace = blocks_around_locks(&requests_from_choices(&choices, shape));
        check_views(&trace, || HappensBefore::new().sharing_dense_from(share))?;
    }
}

/// `trace` with each acquire opening a block and each release closing one: the requests
/// traces have no blocks of their own, and the regions the oracle knows are blocks.
fn blocks_around_locks(trace: &Trace) -> Trace {
    let mut out = Trace {
        names: trace.names.clone(),
        events: Vec::new(),
    };
    let mut push = |t: ThreadId, op: Op| {
        let i = out.events.len() as u64;
        out.events.push(hindsight_trace::Event::new(i, t, op));
    };
    for e in &trace.events {
        match e.op {
            Op::Acquire(_) => {
                push(e.thread, Op::Begin(None));
                push(e.thread, e.op.clone());
            }
            Op::Release(_) => {
                push(e.thread, e.op.clone());
                push(e.thread, Op::End);
            }
            _ => push(e.thread, e.op.clone()),
        }
    }
    out
}

fn views_and_parallel_regions_match_brute_force(trace: &Trace) -> Result<(), TestCaseError> {
    check_views(trace, HappensBefore::new)
}

/// The views and the may-happen-in-parallel relation of the analysis fed by `hb` against the
/// brute force, with each way of finding parallel views.
fn check_views(trace: &Trace, pass: impl Fn() -> HappensBefore) -> Result<(), TestCaseError> {
    for marking in [Marking::Cheaper, Marking::ByVariables, Marking::ByThreads] {
        check_views_marking(trace, pass(), marking)?;
    }
    Ok(())
}

fn check_views_marking(
    trace: &Trace,
    pass: HappensBefore,
    marking: Marking,
) -> Result<(), TestCaseError> {
    let d = feed(trace, pass, marking);
    let regions = regions(trace);
    let clocks = must_clocks(trace);

    let want_views: BTreeSet<ThreadView> = regions
        .iter()
        .map(|r| (r.thread.0, r.view.clone()))
        .collect();
    let got_views: BTreeSet<ThreadView> = d
        .thread_views()
        .into_iter()
        .map(|(t, v)| (t.0, v))
        .collect();
    prop_assert_eq!(got_views, want_views);

    let mut want = BTreeSet::new();
    for a in &regions {
        for b in &regions {
            if a.thread == b.thread {
                continue;
            }
            let ordered = hb(&clocks, trace, a.end, b.begin) || hb(&clocks, trace, b.end, a.begin);
            // The relation keeps the pairs of views the filter can be asked about: those of a
            // variable both access and one writes.
            let conflict = a.view.accesses().any(|x| {
                b.view
                    .accesses()
                    .any(|y| x.var == y.var && (x.kind == Kind::Write || y.kind == Kind::Write))
            });
            if !ordered && conflict {
                let (x, y) = ((a.thread.0, a.view.clone()), (b.thread.0, b.view.clone()));
                want.insert(if x <= y { (x, y) } else { (y, x) });
            }
        }
    }
    let got: BTreeSet<(ThreadView, ThreadView)> = d
        .parallel_views()
        .into_iter()
        .map(|((t, v), (u, w))| {
            let (x, y) = ((t.0, v), (u.0, w));
            if x <= y {
                (x, y)
            } else {
                (y, x)
            }
        })
        .collect();
    prop_assert_eq!(got, want);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The paper's examples and the suite.

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/views")
}

fn static_views(name: &str) -> symbolic::StaticViews {
    let path = examples().join(name);
    let text = std::fs::read_to_string(&path).expect("example");
    let prog = lang::parse(&text).unwrap_or_else(|e| panic!("{name}:{e}"));
    symbolic::analyse(&prog, name).unwrap_or_else(|e| panic!("{name}:{e}"))
}

fn names_of(k: &Knowledge, sets: &[Vec<u32>]) -> BTreeSet<Vec<String>> {
    sets.iter()
        .map(|s| {
            s.iter()
                .map(|&v| k.var_name(v).trim_start_matches("Coord.").to_owned())
                .collect()
        })
        .collect()
}

fn set(items: &[&[&str]]) -> BTreeSet<Vec<String>> {
    items
        .iter()
        .map(|s| s.iter().map(|x| x.to_string()).collect())
        .collect()
}

#[test]
fn coordinates_gives_the_views_of_table_1() {
    let sv = static_views("coordinates.mv");
    let k = &sv.knowledge;
    let t = |name: &str| {
        k.threads
            .iter()
            .position(|t| t.name == name)
            .expect("thread")
    };
    let (t1, t2) = (t("T1"), t("T2"));
    let row = |t: usize, kind: Kind| {
        let (v, m) = table(k, t, kind);
        (names_of(k, &v), names_of(k, &m))
    };
    // V_r, V_w, M_r, M_w of t1 (swap) and t2 (reset).
    assert_eq!(
        row(t1, Kind::Read),
        (set(&[&["x", "y"]]), set(&[&["x", "y"]]))
    );
    assert_eq!(
        row(t1, Kind::Write),
        (set(&[&["x", "y"]]), set(&[&["x", "y"]]))
    );
    assert_eq!(row(t2, Kind::Read), (set(&[]), set(&[])));
    assert_eq!(
        row(t2, Kind::Write),
        (set(&[&["x"], &["y"]]), set(&[&["x"], &["y"]]))
    );
    let w = detect(k);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, HIGH_LEVEL_RACE);
    // The swap's view carries the use-define marks: both reads overwritten, both writes after.
    assert_eq!(
        k.display_view(k.threads[t1].views[0]),
        "{r(Coord.x)•, w(Coord.x)•, r(Coord.y)•, w(Coord.y)•}"
    );
}

#[test]
fn account_gives_one_stale_value_and_no_race() {
    let sv = static_views("account.mv");
    let w = detect(&sv.knowledge);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, STALE_VALUE);
    assert_eq!(sv.knowledge.var_name(w[0].variables[0]), "Account.balance");
    let views: Vec<String> = (0..sv.knowledge.views.len() as u32)
        .map(|v| sv.knowledge.display_view(v))
        .collect();
    assert_eq!(views, ["{r(Account.balance)∘}", "{w(Account.balance)∘}"]);
}

#[test]
fn pair_and_increment_as_the_paper_says() {
    let w = detect(&static_views("pair.mv").knowledge);
    assert_eq!(
        w.iter().map(|w| w.kind).collect::<Vec<_>>(),
        [HIGH_LEVEL_RACE]
    );
    let w = detect(&static_views("increment.mv").knowledge);
    assert_eq!(w.iter().map(|w| w.kind).collect::<Vec<_>>(), [STALE_VALUE]);
}

/// `key N, key N, ...` after a marker, from the first line that has it.
fn expectation(text: &str, marker: &str) -> BTreeMap<String, u64> {
    let line = text
        .lines()
        .find_map(|l| l.split_once(marker).map(|(_, rest)| rest.to_owned()))
        .unwrap_or_else(|| panic!("no `{marker}` line"));
    line.split(',')
        .map(|kv| {
            let (k, v) = kv.trim().rsplit_once(' ').expect("key value");
            (k.to_owned(), v.parse().expect("count"))
        })
        .collect()
}

/// (kind, threads, variables at class level) of each finding.
type Verdict = BTreeSet<(String, Vec<String>, Vec<String>)>;

fn verdict(findings: &[hindsight_report::Finding]) -> Verdict {
    findings
        .iter()
        .map(|f| {
            let strings = |k: &str| -> Vec<String> {
                f.fields[k]
                    .as_array()
                    .expect("array")
                    .iter()
                    .map(|v| class_name(v.as_str().expect("string")))
                    .collect()
            };
            let mut vars = strings("variables");
            vars.sort();
            (f.kind.clone(), strings("threads"), vars)
        })
        .collect()
}

fn count(v: &Verdict, kind: &str) -> u64 {
    v.iter().filter(|f| f.0 == kind).count() as u64
}

fn dynamic(text: &str, mhp: bool) -> (Verdict, serde_json::Map<String, Value>) {
    let mut r = TextReader::new(text.as_bytes());
    let mut out = run(
        &mut r,
        vec![Box::new(
            DynamicViews::new(Regions::Auto, mhp).with_granularity(Granularity::EveryEvent),
        )],
        RunOptions::default(),
    )
    .expect("valid trace");
    let (_, o) = out.outputs.remove(0);
    (verdict(&o.findings), o.summary)
}

#[test]
fn the_suite_gives_its_expected_verdicts_statically_and_dynamically() {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(examples())
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mv"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 19, "{} programs", programs.len());
    let (mut tp_fp, mut differs) = (BTreeSet::new(), 0);
    for program in &programs {
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(program).unwrap();
        let expect = expectation(&text, "// expect:");
        let sv = static_views(&name);
        let stat = verdict(&hindsight_views::findings(
            &sv.knowledge,
            &detect(&sv.knowledge),
            &sv,
        ));
        for kind in [HIGH_LEVEL_RACE, STALE_VALUE] {
            assert_eq!(count(&stat, kind), expect[kind], "{name}: {kind}");
        }
        for (word, kind) in [
            ("true positive of the view", HIGH_LEVEL_RACE),
            ("false positive of the view", HIGH_LEVEL_RACE),
            ("true positive of the single", STALE_VALUE),
            ("false positive of the single", STALE_VALUE),
        ] {
            if text.replace("\n// ", " ").contains(word) {
                tp_fp.insert((word, kind));
            }
        }

        let trace_path = program.with_extension("std");
        let trace =
            std::fs::read_to_string(&trace_path).unwrap_or_else(|_| panic!("{name} has no trace"));
        let expect = expectation(&trace, "# expect:");
        let (with, summary) = dynamic(&trace, true);
        let (without, summary_off) = dynamic(&trace, false);
        for kind in [HIGH_LEVEL_RACE, STALE_VALUE] {
            assert_eq!(count(&with, kind), expect[kind], "{name} trace: {kind}");
        }
        let removed_mhp = summary["removed_by_mhp"].as_u64().unwrap();
        let removed_inst = summary["removed_by_instances"].as_u64().unwrap();
        assert_eq!(removed_mhp, expect["removed_by_mhp"], "{name}");
        assert_eq!(removed_inst, expect["removed_by_instances"], "{name}");
        assert_eq!(
            summary_off["removed_by_instances"],
            summary["removed_by_instances"]
        );
        // The filter only removes: what is left is what `--no-mhp` gives minus what it counted.
        assert!(with.is_subset(&without), "{name}");
        assert_eq!(
            without.len() as u64 - with.len() as u64,
            removed_mhp,
            "{name}"
        );
        // Without the filter, the trace gives the program's verdict, except for the warnings
        // keeping instances apart removed, and where the file says why it differs.
        if trace.contains("# static-differs:") {
            differs += 1;
            assert_ne!(without, stat, "{name}: the documented difference is gone");
        } else {
            assert!(
                without.is_subset(&stat),
                "{name}: {without:?} not in {stat:?}"
            );
            assert_eq!(
                stat.len() as u64,
                without.len() as u64 + removed_inst,
                "{name}"
            );
        }
    }
    // Both sensors are exercised with true and false positives.
    assert_eq!(tp_fp.len(), 4, "{tp_fp:?}");
    assert!(differs <= 3);
}

// ---------------------------------------------------------------------------------------------
// Bad programs: precise errors, never a panic.

fn error_of(src: &str) -> String {
    match lang::parse(src) {
        Err(e) => e.to_string(),
        Ok(p) => match symbolic::analyse(&p, "p.mv") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted: {src}"),
        },
    }
}

#[test]
fn bad_programs_are_located() {
    let cases: &[(&str, &str)] = &[
        ("class C { x; }\nthread T { c.x = 1; }", "2:16: unexpected `=`: assignment is `:=`, equality `==`"),
        ("class C { x }\nproc p(c: C) {\n  atomic { c.x := 1 }\n}", "3:21: expected `;`, found `}`"),
        ("thread T {", "1:11: unclosed `{`"),
        ("proc p() { x := 1; }\nfoo", "2:1: expected `class`, `global`, `proc`, `atomic proc`, `native proc` or `thread`, found `foo`"),
        ("proc p() { return 1; x := 2; }", "1:22: statement after `return`"),
        ("class C { x; }\nproc p(c: C) { atomic { y := c.z; } }\nthread T { }", "2:32: class `C` has no field `z`"),
        ("class C { x; }\nproc p(n) { atomic { y := n.x; } }\nthread T { p(1); }", "2:27: not an object: declare it with a class type (`x: Class` or `var x: Class;`)"),
        ("proc p(c: D) { }", "1:8: unknown class `D`"),
        ("proc p(a) { }\nthread T { p(1, 2); }", "2:12: `p` takes 1 argument(s), given 2"),
        ("thread T { y := z; }", "1:17: unknown variable `z`"),
        ("thread T { } thread T { }", "1:21: thread `T` declared twice"),
        ("class C { x; }\nnative proc f(c: C) reads(d);", "2:27: `d` is not a parameter of `f`"),
        ("native proc f() reads(this);", "1:23: `this` in a procedure without receiver (declare it `native proc Class.name(...)`)"),
        ("thread T { x := 1 @ 2; }", "1:19: unexpected character `@`"),
        ("thread T { x := 99999999999999999999; }", "1:17: integer too large"),
    ];
    for (src, want) in cases {
        assert_eq!(&error_of(src), want, "{src}");
    }
}

#[test]
fn unknown_procedures_are_assumed_the_worst_and_named() {
    let src = "class C { f; g; }\nglobal o: C;\nproc p(c: C) { atomic { mystery(c); } atomic { c.frob(); } }\nthread T { p(o); }";
    let sv = symbolic::analyse(&lang::parse(src).unwrap(), "u.mv").unwrap();
    let warnings: Vec<String> = sv.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "u.mv:3:25: warning: unknown procedure (not declared) `mystery`: assumed to read and write every field of its receiver and object arguments",
            "u.mv:3:50: warning: unknown procedure (not declared) `C.frob`: assumed to read and write every field of its receiver and object arguments",
        ]
    );
    let k = &sv.knowledge;
    assert_eq!(k.views.len(), 1);
    assert_eq!(k.display_view(0), "{r(C.f)∘, w(C.f)∘, r(C.g)∘, w(C.g)∘}");
}

#[test]
fn random_programs_never_panic() {
    let pieces = [
        "class", "C", "{", "}", "x", ";", ":", ":=", "proc", "atomic", "thread", "T", "(", ")",
        ".", "if", "while", "else", "1", "native", "reads", ",", "return", "var", "global", "this",
        "f", "+", "==", "!", "-", "null",
    ];
    let mut rng = SplitMix64::new(0x5EED);
    for _ in 0..3000 {
        let mut src = String::new();
        for _ in 0..rng.modulo(40) {
            src.push_str(rng.pick::<&str>(&pieces));
            src.push(' ');
        }
        if let Ok(p) = lang::parse(&src) {
            let _ = symbolic::analyse(&p, "r.mv");
        }
    }
}

#[test]
fn recursive_procedures_reach_a_fixed_point() {
    let src = "class C { x; y; }\nglobal o: C;\natomic proc f(c: C) { if c.x > 0 { c.y := c.y + 1; f(c); } }\nproc g(c: C) { f(c); h(c); }\nproc h(c: C) { g(c); }\nthread T { g(o); }";
    let sv = symbolic::analyse(&lang::parse(src).unwrap(), "r.mv").unwrap();
    let k = &sv.knowledge;
    assert_eq!(k.threads[0].views.len(), 1);
    // x read and never written; y read then overwritten, by this call and by the recursive
    // one (whose view, merged writes first, changes nothing once stable).
    assert_eq!(
        k.display_view(k.threads[0].views[0]),
        "{r(C.x)∘, r(C.y)•, w(C.y)•}"
    );
}

/// A join inside a region, with no event of the joiner between the region's begin and the
/// join that moves its clock: the joined thread's region ended before the join but after the
/// region began, so the two run in parallel. The analysis took the join as before the region
/// (found by the property test above).
#[test]
fn a_join_inside_a_region_at_its_begin_epoch_leaves_the_joined_region_parallel() {
    // T0|fork(T2) T2|begin T0|begin T2|r(x0) T2|end T0|join(T2) T0|aload(x0) T0|end
    let choices = [
        (0, 118, 92),
        (2, 250, 0),
        (0, 58, 0),
        (53, 85, 0),
        (8, 91, 0),
        (21, 39, 2),
        (0, 29, 0),
        (0, 171, 0),
    ];
    let shape = Shape {
        threads: 3,
        vars: 2,
        locks: 2,
        msgs: 2,
        odd: false,
    };
    let trace = trace_from_choices(&choices, shape);
    views_and_parallel_regions_match_brute_force(&trace).expect("as the brute force");
    // The same with a write in the joined region: the two views conflict, so the pair is one
    // the relation keeps (two reads are never asked about).
    let text = "T0|fork(T2)\nT2|begin\nT0|begin\nT2|w(x0)\nT2|end\nT0|join(T2)\nT0|r(x0)\nT0|end\n";
    let trace = Trace::collect(&mut TextReader::new(text.as_bytes())).expect("valid");
    views_and_parallel_regions_match_brute_force(&trace).expect("as the brute force");
    for marking in [Marking::ByVariables, Marking::ByThreads] {
        let d = feed(&trace, HappensBefore::new(), marking);
        assert_eq!(d.parallel_views().len(), 1, "{marking:?}");
    }
}
