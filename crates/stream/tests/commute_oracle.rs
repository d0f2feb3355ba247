//! `commute` against the paper: the worked example of Fig. 3, Definition 4.5 (the access point
//! representation of every shipped spec is equivalent to its formulas), Theorem 5.1 (the
//! reported races are exactly those of the brute-force definition), and read/write races as a
//! special case.

use hindsight_order::reference::EventClocks;
use hindsight_order::HappensBefore;
use hindsight_stream::commute::builtin::{builtin, BUILTINS};
use hindsight_stream::commute::spec::{self, Val};
use hindsight_stream::commute::{compile_file, val, Binding, Commute, CompiledSpec};
use hindsight_stream::groups::Granularity;
use hindsight_stream::races::Races;
use hindsight_stream::Analysis;
use hindsight_stream::Observer;
use hindsight_trace::arbitrary::{trace_from_choices, Shape};
use hindsight_trace::{Call, EventSource, Names, ObjId, Op, SymId, TextReader, Trace, Value};
use proptest::prelude::*;

fn compiled(name: &str, direct: bool) -> Vec<CompiledSpec> {
    let text = builtin(name).expect("shipped");
    compile_file(spec::parse(text).expect("parses"), direct).expect("compiles")
}

fn read(text: &str) -> Trace {
    let mut r = TextReader::new(text.as_bytes());
    Trace::collect(&mut r).expect("valid trace")
}

/// (racy, partner) pairs found by Algorithm 1.
fn fast(trace: &Trace, specs: Vec<CompiledSpec>) -> Vec<(u64, u64)> {
    fast_with(trace, Commute::new(specs, Binding::All(0)))
}

/// (racy, partner) pairs found by the analysis `c`.
fn fast_with(trace: &Trace, c: Commute) -> Vec<(u64, u64)> {
    let mut hb = HappensBefore::new();
    let mut c = c.with_granularity(Granularity::EveryEvent);
    for e in &trace.events {
        hb.before(e);
        c.on_event(e, &hb, &trace.names)
            .expect("calls match the spec");
        hb.after(e);
    }
    c.races().collect()
}

/// Definition 4.3, literally: the latest earlier action on the same object that may happen in
/// parallel and that the formula does not say commutes.
fn brute_force(trace: &Trace, spec: &spec::ObjectSpec) -> Vec<(u64, u64)> {
    let hb = EventClocks::compute(trace);
    let call = |i: usize| match &trace.events[i].op {
        Op::Call(c) => Some(c),
        _ => None,
    };
    let params = |c: &Call| -> Vec<Val<'_>> {
        c.args
            .iter()
            .chain(&c.results)
            .map(|v| val(*v, &trace.names))
            .collect()
    };
    let mut out = Vec::new();
    for j in 0..trace.events.len() {
        let Some(b) = call(j) else { continue };
        let mb = spec
            .method(trace.names.symbol(b.method))
            .expect("known method");
        let partner = (0..j).rev().find(|&i| {
            let Some(a) = call(i) else { return false };
            if a.object != b.object
                || hb.happens_before(i, j)
                || trace.events[i].thread == trace.events[j].thread
            {
                return false;
            }
            let ma = spec
                .method(trace.names.symbol(a.method))
                .expect("known method");
            let commutes = match spec.rule(ma, mb) {
                None => false,
                Some((r, false)) => r.formula.eval(&params(a), &params(b)),
                Some((r, true)) => r.formula.eval(&params(b), &params(a)),
            };
            !commutes
        });
        if let Some(i) = partner {
            out.push((j as u64, i as u64));
        }
    }
    out
}

const FIG3: &str = "main|fork(T2)\nmain|fork(T3)\nT3|call(o.put(\"a.com\",c1)/nil)\nT2|call(o.put(\"a.com\",c2)/c1)\nmain|join(T2)\nmain|join(T3)\nmain|call(o.size()/1)\n";

#[test]
fn figure_3_reports_exactly_a1_a2() {
    let trace = read(FIG3);
    assert_eq!(fast(&trace, compiled("map", false)), vec![(3, 2)]);
    assert_eq!(fast(&trace, compiled("map", true)), vec![(3, 2)]);
}

#[test]
fn figure_3_without_join_races_a1_a3_through_resize_and_size() {
    let no_join: String = FIG3
        .lines()
        .filter(|l| !l.contains("join"))
        .map(|l| format!("{l}\n"))
        .collect();
    let trace = read(&no_join);
    // a2 races with a1 (same key written); a3 (size) races with a1 (resizing put) but not with
    // a2, which overwrote a key and did not change the size.
    assert_eq!(fast(&trace, compiled("map", false)), vec![(3, 2), (4, 2)]);
    assert_eq!(
        fast(&trace, compiled("map", false)),
        brute_force(&trace, &compiled("map", false)[0].spec)
    );
}

/// Values for random actions: a small domain so that keys collide and formulas flip.
fn random_value(x: u8, names: &mut Names, boolean: bool) -> Value {
    if boolean {
        let s = if x % 2 == 0 { "true" } else { "false" };
        return Value::Sym(SymId(names.symbols.intern(s.as_bytes()).expect("ascii")));
    }
    match x % 4 {
        0 => Value::Nil,
        k => Value::Int(i64::from(k)),
    }
}

/// Values from a wider domain, so that the rows of values are reached every way the analysis
/// has: small keys, keys past the first dense rows of an object (which move into them as they
/// grow) and far past them, negative and 64-bit integers, symbols.
fn wide_value(x: u8, names: &mut Names) -> Value {
    match x % 8 {
        0 => Value::Nil,
        1 => Value::Int(i64::from(x % 3) + 1),
        2 | 3 => Value::Int(i64::from(x / 4)),
        4 => Value::Int(-1 - i64::from(x / 64)),
        5 => Value::Int(i64::MAX - i64::from(x / 128)),
        6 => {
            let s = if x < 128 { "a" } else { "b" };
            Value::Sym(SymId(names.symbols.intern(s.as_bytes()).expect("ascii")))
        }
        _ => Value::Int(1_000_000 + i64::from(x / 64)),
    }
}

/// Replaces the reads and writes of an arbitrary trace by calls on objects of `spec`, with
/// values from the small domain of [`random_value`], or from [`wide_value`]'s if `wide`.
fn with_calls(
    mut trace: Trace,
    spec: &spec::ObjectSpec,
    seeds: &[u8],
    boolean_results: bool,
) -> Trace {
    with_values(&mut trace, spec, seeds, boolean_results, false);
    trace
}

fn with_values(
    trace: &mut Trace,
    spec: &spec::ObjectSpec,
    seeds: &[u8],
    boolean_results: bool,
    wide: bool,
) {
    let objects: Vec<ObjId> = (0..2)
        .map(|i| {
            ObjId(
                trace
                    .names
                    .objects
                    .intern(format!("o{i}").as_bytes())
                    .expect("ascii"),
            )
        })
        .collect();
    let methods: Vec<SymId> = spec
        .methods
        .iter()
        .map(|m| {
            SymId(
                trace
                    .names
                    .symbols
                    .intern(m.name.as_bytes())
                    .expect("ascii"),
            )
        })
        .collect();
    let mut k = 0usize;
    let mut next = || {
        k += 1;
        seeds
            .get(k % seeds.len().max(1))
            .copied()
            .unwrap_or(0)
            .wrapping_add(k as u8 / 7)
    };
    for e in trace.events.iter_mut() {
        if let Op::Read(x) | Op::Write(x) = e.op {
            let m = next() as usize % spec.methods.len();
            let method = &spec.methods[m];
            let mut call = Call {
                object: objects[x.index() % objects.len()],
                method: methods[m],
                ..Call::default()
            };
            let mut value = |names: &mut Names, boolean: bool| {
                let x = next();
                if wide && !boolean {
                    wide_value(x, names)
                } else {
                    random_value(x, names, boolean)
                }
            };
            for _ in 0..method.args {
                call.args.push(value(&mut trace.names, false));
            }
            for _ in 0..method.results() {
                call.results.push(value(&mut trace.names, boolean_results));
            }
            e.op = Op::Call(Box::new(call));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// Theorem 5.1, per action: the races reported are exactly those of Definition 4.3, with
    /// the same (latest) partner, for every shipped spec, through access points and directly.
    #[test]
    fn algorithm_1_matches_the_definition(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        seeds in prop::collection::vec(any::<u8>(), 1..16),
        threads in 2u8..=4,
        odd in any::<bool>(),
        which in 0usize..4,
        direct in any::<bool>(),
    ) {
        let name = BUILTINS[which % BUILTINS.len()];
        let specs = compiled(name, direct);
        let base = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let trace = with_calls(base, &specs[0].spec, &seeds, name == "set");
        let expected = brute_force(&trace, &specs[0].spec);
        prop_assert_eq!(fast(&trace, specs), expected);
    }

    /// Theorem 5.1 again, with values from a wide domain (rows reached by value, by hash, and
    /// moved from one to the other), half of the time the journal compacted before every
    /// action (the records kept, at their new positions, give the same races with the same
    /// partners), and half of the time the actions waiting in batches, as on large states
    /// (each runs at its thread's clock as it was at the action).
    #[test]
    fn algorithm_1_matches_the_definition_on_wide_values_and_compacted_journals(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..80),
        seeds in prop::collection::vec(any::<u8>(), 1..24),
        threads in 2u8..=4,
        odd in any::<bool>(),
        which in 0usize..4,
        direct in any::<bool>(),
        eager in any::<bool>(),
        batched in any::<bool>(),
    ) {
        let name = BUILTINS[which % BUILTINS.len()];
        let specs = compiled(name, direct);
        let mut trace =
            trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        with_values(&mut trace, &specs[0].spec, &seeds, name == "set", true);
        let expected = brute_force(&trace, &specs[0].spec);
        let c = Commute::new(specs, Binding::All(0));
        let c = if eager { c.with_eager_compaction() } else { c };
        let c = if batched { c.with_batches_always() } else { c };
        prop_assert_eq!(fast_with(&trace, c), expected);
    }

    /// Classic data races are commutativity races of a spec whose reads commute only with
    /// reads: the same racy events with the same partners as `races`.
    #[test]
    fn read_write_spec_finds_what_races_finds(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
        threads in 2u8..=4,
        odd in any::<bool>(),
    ) {
        let trace = trace_from_choices(&choices, Shape { threads, vars: 2, locks: 2, msgs: 2, odd });
        let mut hb = HappensBefore::new();
        let mut races = Races::with_granularity(Granularity::EveryEvent);
        for e in &trace.events {
            hb.before(e);
            races.on_event(e, &hb, &trace.names).expect("accepts all");
            hb.after(e);
        }
        let expected: Vec<(u64, u64)> = races.races().iter().map(|r| (r.racy, r.partner)).collect();

        let text = "object Var { method read(); method write(); commute read, read : true; }";
        let specs = compile_file(spec::parse(text).expect("parses"), false).expect("compiles");
        let mut calls = trace.clone();
        let read = SymId(calls.names.symbols.intern(b"read").expect("ascii"));
        let write = SymId(calls.names.symbols.intern(b"write").expect("ascii"));
        for i in 0..calls.names.vars.len() {
            let name = calls.names.vars.name(i as u32).to_owned();
            calls.names.objects.intern(name.as_bytes()).expect("ascii");
        }
        for e in calls.events.iter_mut() {
            if let Op::Read(x) | Op::Write(x) = e.op {
                let method = if matches!(e.op, Op::Read(_)) { read } else { write };
                e.op = Op::Call(Box::new(Call { object: ObjId(x.0), method, ..Call::default() }));
            }
        }
        prop_assert_eq!(fast(&calls, specs), expected);
    }
}

/// Definition 4.5 for every shipped spec: over a small domain, two actions touch conflicting
/// access points exactly when their formula says they do not commute.
#[test]
fn shipped_specs_are_represented_exactly() {
    let domain = [
        Val::Nil,
        Val::Int(1),
        Val::Int(2),
        Val::Sym("true"),
        Val::Sym("false"),
    ];
    for name in BUILTINS {
        let specs = compiled(name, false);
        let s = &specs[0];
        let rep = &s.rep;
        // Every tuple of parameter values of a method.
        let tuples = |n: usize| -> Vec<Vec<Val<'static>>> {
            let mut out = vec![Vec::new()];
            for _ in 0..n {
                out = out
                    .into_iter()
                    .flat_map(|t| {
                        domain.iter().map(move |d| {
                            let mut t = t.clone();
                            t.push(*d);
                            t
                        })
                    })
                    .collect();
            }
            out
        };
        let points = |m: usize, vals: &[Val<'static>]| {
            let beta = rep.beta(m, vals);
            let ds = rep.ds_point(m, beta);
            let valued: Vec<(u32, Val<'static>)> = rep
                .value_points(m, beta)
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.map(|c| (c, vals[i])))
                .collect();
            (ds, valued)
        };
        for (a, ma) in s.spec.methods.iter().enumerate() {
            for (b, mb) in s.spec.methods.iter().enumerate() {
                if rep.is_direct(a, b) {
                    continue;
                }
                for va in tuples(ma.params.len()) {
                    for vb in tuples(mb.params.len()) {
                        let (da, pa) = points(a, &va);
                        let (db, pb) = points(b, &vb);
                        let ds_conflict = matches!((da, db), (Some(x), Some(y)) if rep.conflicts[x as usize].contains(&y));
                        let value_conflict = pa.iter().any(|&(x, u)| {
                            pb.iter()
                                .any(|&(y, v)| u == v && rep.conflicts[x as usize].contains(&y))
                        });
                        let commutes = match s.spec.rule(a, b) {
                            None => false,
                            Some((r, false)) => r.formula.eval(&va, &vb),
                            Some((r, true)) => r.formula.eval(&vb, &va),
                        };
                        assert_eq!(
                            !(ds_conflict || value_conflict),
                            commutes,
                            "{name}: {}{va:?} vs {}{vb:?}",
                            ma.name,
                            mb.name
                        );
                    }
                }
            }
        }
    }
}

/// Fig. 7: the dictionary's simplified representation has four points, `o:r:k`, `o:w:k`,
/// `o:resize`, `o:size`, with conflicts w-w, w-r (same key) and resize-size.
#[test]
fn dictionary_translates_to_figure_7() {
    let specs = compiled("map", false);
    let rep = &specs[0].rep;
    let names: Vec<&str> = rep.classes.iter().map(|c| c.name.as_str()).collect();
    let find = |pred: &dyn Fn(&str) -> bool| -> usize {
        let hits: Vec<usize> = (0..names.len()).filter(|&i| pred(names[i])).collect();
        assert_eq!(hits.len(), 1, "{names:?}");
        hits[0]
    };
    let r = find(&|n| n.contains("get.k") && n.contains("put.k"));
    let w = find(&|n| n.starts_with("put.k") && !n.contains("get"));
    let resize = find(&|n| n.starts_with("put[") || n == "put");
    let size = find(&|n| n == "size");
    assert_eq!(rep.classes.len(), 4, "{names:?}");
    let conflicts =
        |i: usize| -> Vec<usize> { rep.conflicts[i].iter().map(|&c| c as usize).collect() };
    let sorted = |mut v: Vec<usize>| {
        v.sort();
        v
    };
    assert_eq!(conflicts(r), vec![w]);
    assert_eq!(sorted(conflicts(w)), sorted(vec![r, w]));
    assert_eq!(conflicts(resize), vec![size]);
    assert_eq!(conflicts(size), vec![resize]);
    assert!(rep.classes[r].valued && rep.classes[w].valued);
    assert!(!rep.classes[resize].valued && !rep.classes[size].valued);
    // Theorem 6.6: each point conflicts with a bounded number of points (here at most 2).
    assert_eq!(rep.max_conflicts(), 2);
}

#[test]
fn calls_outside_the_spec_are_errors() {
    let check = |text: &str, expected: &str| {
        let trace = read(text);
        let mut hb = HappensBefore::new();
        let mut c = Commute::new(compiled("map", false), Binding::All(0))
            .with_granularity(Granularity::EveryEvent);
        let mut err = None;
        for e in &trace.events {
            hb.before(e);
            if let Err(k) = c.on_event(e, &hb, &trace.names) {
                err = Some(k.to_string());
                break;
            }
            hb.after(e);
        }
        let err = err.expect("an error");
        assert!(err.contains(expected), "{err}");
    };
    check(
        "T0|call(m.frob(1)/2)\n",
        "`frob` is not a method of Map (object `m`)",
    );
    check(
        "T0|call(m.put(1)/nil)\n",
        "Map.put takes 2 argument(s) and 1 result(s), the call has 1 and 1",
    );
    check(
        "T0|call(m.size())\n",
        "Map.size takes 0 argument(s) and 1 result(s), the call has 0 and 0",
    );
    let mut map = rustc_hash::FxHashMap::default();
    map.insert("m".to_owned(), 0);
    let trace = read("T0|call(n.size()/0)\n");
    let mut c = Commute::new(compiled("map", false), Binding::Named(map))
        .with_granularity(Granularity::EveryEvent);
    let mut hb = HappensBefore::new();
    hb.before(&trace.events[0]);
    let err = c
        .on_event(&trace.events[0], &hb, &trace.names)
        .expect_err("unbound");
    assert!(err.to_string().contains("object `n` has no spec"), "{err}");
}

#[test]
fn reader_keeps_names_for_reports() {
    let mut r = TextReader::new(FIG3.as_bytes());
    while r.advance().expect("valid") {}
    assert_eq!(r.names().objects.len(), 1);
}

/// A long generated dictionary workload: Algorithm 1, whose journal records are overwritten
/// many times on the way, reports exactly what the direct approach (which keeps every
/// action) reports.
#[test]
fn long_workload_matches_the_direct_approach() {
    use hindsight_trace::generate::{generate_trace, GenConfig};
    let trace = generate_trace(&GenConfig {
        events: 60_000,
        threads: 6,
        vars: 3,
        locks: 3,
        max_depth: 2,
        unprotected: 0.3,
        blocks: 0.0,
        seed: 11,
        map_keys: 8,
        per_request: 0,
        sites: hindsight_trace::generate::DEFAULT_SITES,
    });
    let points = fast(&trace, compiled("map", false));
    assert!(!points.is_empty(), "the workload has races");
    assert_eq!(points, fast(&trace, compiled("map", true)));
    let compacted = Commute::new(compiled("map", false), Binding::All(0)).with_eager_compaction();
    assert_eq!(points, fast_with(&trace, compacted));
    let batched = Commute::new(compiled("map", false), Binding::All(0)).with_batches_always();
    assert_eq!(points, fast_with(&trace, batched));
}

/// A key first seen past an object's dense rows gets a row of its own by hash; once enough
/// keys are joined for the dense rows to cover it, its row moves there with the actions it
/// keeps, and a later action on the key still finds them.
#[test]
fn keys_moved_into_the_dense_rows_keep_their_actions() {
    let mut text = String::from("T0|fork(T1)\nT1|call(m.put(40,7)/nil)\nT1|call(m.get(41)/nil)\n");
    for k in 0..40 {
        text.push_str(&format!("T0|call(m.put({k},1)/nil)\n"));
    }
    text.push_str("T0|call(m.get(40)/7)\nT0|call(m.put(41,1)/nil)\n");
    let trace = read(&text);
    let races = fast(&trace, compiled("map", false));
    let get = trace.events.len() as u64 - 2;
    assert_eq!(races, vec![(get, 1), (get + 1, 2)]);
    assert_eq!(races, brute_force(&trace, &compiled("map", false)[0].spec));
}

/// An action that stays unordered with everything for a long time keeps its journal record
/// while tens of thousands of others are overwritten, and is still reported, with its own
/// index, as the partner.
#[test]
fn old_unordered_actions_keep_their_records() {
    // T1's put changes nothing (v == p): it touches only the point `put.k[v == p] | get.k`.
    let mut text = String::from("T0|fork(T1)\nT0|fork(T2)\nT1|call(m.put(1,7)/7)\n");
    for i in 0..40_000 {
        text.push_str(&format!("T2|call(m.put({},1)/nil)\n", 2 + i % 50));
        text.push_str(&format!("T2|call(m.put({},nil)/1)\n", 2 + i % 50));
    }
    text.push_str("T2|call(m.put(1,8)/7)\n");
    let trace = read(&text);
    let races = fast(&trace, compiled("map", false));
    let last = trace.events.len() as u64 - 1;
    assert_eq!(
        races.last(),
        Some(&(last, 2)),
        "the final put races with T1's put, #2"
    );
}

/// Reports render both actions of a race from what the analysis kept of them (a packed
/// journal record, or values kept aside for integers that need all 64 bits): they must read
/// exactly as the trace's own events do.
#[test]
fn reports_show_the_actions_as_the_trace_has_them() {
    let big = i64::MAX;
    let text = format!(
        "T0|fork(T1)\n\
         T0|call(m.put({big},-7)/nil)\n\
         T1|call(m.put({big},RED)/\"a \\\"b\\\"\")\n\
         T0|call(m.put(-2305843009213693952,nil)/1)\n\
         T1|call(m.put(-2305843009213693952,x)/{})\n\
         T0|call(m.put(2305843009213693951,1)/nil)\n\
         T1|call(m.get(2305843009213693951)/\"s\")\n\
         T1|call(m.size()/3)\n",
        -big - 1
    );
    let trace = read(&text);
    let mut hb = HappensBefore::new();
    let mut c = Box::new(
        Commute::new(compiled("map", false), Binding::All(0))
            .with_granularity(Granularity::EveryEvent),
    );
    for e in &trace.events {
        hb.before(e);
        c.on_event(e, &hb, &trace.names).expect("valid");
        hb.after(e);
    }
    let out = c.finish(&trace.names);
    assert_eq!(out.findings.len(), 4, "{:#?}", out.findings);
    for f in &out.findings {
        for e in &f.events {
            let original = &trace.events[e.index as usize];
            assert_eq!(e.op, original.display_op(&trace.names).to_string());
            assert_eq!(e.thread, trace.names.thread(original.thread));
        }
    }
}
