//! Traces written for RAPID (`hindsight_trace::rapid`) are read by RAPID's own rules as the
//! trace they were, less `req` events and `begin` labels; what RAPID cannot read is refused at
//! the first such event.

mod common;

use common::arb;
use common::rapid_std::{expected, RapidEvent, RapidOp, Seen};
use common::rapid_std::{parse, parse_int, parse_line, parse_locations, read_lines};
use hindsight_trace::generate::{generate_trace, GenConfig};
use hindsight_trace::rapid::{write_rapid, RapidSummary, WriteRapidError};
use hindsight_trace::{ErrorKind, Event, Names, Op, Position, TextReader, Trace};
use proptest::prelude::*;

/// The RAPID trace of `trace` and its location map.
fn to_rapid(trace: &Trace) -> Result<(String, String, RapidSummary), WriteRapidError> {
    let (mut out, mut map) = (Vec::new(), Vec::new());
    let summary = write_rapid(&mut trace.source(), &mut out, &mut map)?;
    let text = |b: Vec<u8>| String::from_utf8(b).expect("the writer writes UTF-8");
    Ok((text(out), text(map), summary))
}

/// What RAPID reads from `out`, with locations resolved through `map`.
fn read_by_rapid(out: &str, map: &str) -> Vec<Seen> {
    let events = parse(out).unwrap_or_else(|e| panic!("RAPID cannot read {out:?}: {e}"));
    let locations = parse_locations(map).expect("location map");
    events
        .into_iter()
        .map(|RapidEvent { thread, op, loc }| {
            let loc = usize::try_from(loc)
                .ok()
                .and_then(|i| locations.get(i).cloned())
                .unwrap_or_else(|| panic!("location {loc} is not in the map"));
            (thread, op, loc)
        })
        .collect()
}

/// What hindsight's own reader reads from `out`, with locations resolved through `map`.
fn read_by_hindsight(out: &str, map: &str) -> Vec<Seen> {
    let trace = Trace::collect(&mut TextReader::new(out.as_bytes()))
        .unwrap_or_else(|e| panic!("hindsight cannot read {out:?}: {e}"));
    let locations = parse_locations(map).expect("location map");
    expected(&trace)
        .into_iter()
        .map(|(thread, op, loc)| {
            let n: usize = loc
                .expect("every line has a number")
                .parse()
                .expect("number");
            (thread, op, locations[n].clone())
        })
        .collect()
}

/// Writes `trace` for RAPID and checks that both RAPID and hindsight read it as it was.
fn round_trip(trace: &Trace) -> RapidSummary {
    let (out, map, summary) = to_rapid(trace).unwrap_or_else(|e| panic!("refused: {e}"));
    let want = expected(trace);
    assert_eq!(read_by_rapid(&out, &map), want);
    assert_eq!(read_by_hindsight(&out, &map), want);
    assert_eq!(summary.written, want.len() as u64);
    assert_eq!(summary.written + summary.dropped, trace.events.len() as u64);
    summary
}

fn read(text: &str) -> Trace {
    Trace::collect(&mut TextReader::new(text.as_bytes())).expect("a valid text trace")
}

/// The error `write_rapid` gives for `text`, read as it streams (positions are lines).
fn refusal(text: &str) -> (Position, String) {
    let mut reader = TextReader::new(text.as_bytes());
    match write_rapid(&mut reader, Vec::new(), Vec::new()) {
        Ok(_) => panic!("expected a refusal of {text:?}"),
        Err(WriteRapidError::Trace(e)) => match e.kind {
            ErrorKind::Unsupported(why) => (e.pos, why),
            kind => panic!("{kind:?}"),
        },
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn reimplementation_follows_rapid() {
    let e = parse_line("T0|fork(T2)|123").expect("RAPID's own example");
    assert_eq!(e.thread, "T0");
    assert_eq!(e.op, RapidOp::Fork("T2".into()));
    assert_eq!(e.loc, 123);
    let op = |line: &str| parse_line(line).map(|e| e.op);
    assert_eq!(
        op("T2|w(V234.23[0])|456"),
        Ok(RapidOp::Write("V234.23[0]".into()))
    );
    assert_eq!(op("T|r(x)|1"), Ok(RapidOp::Read("x".into())));
    assert_eq!(op("T|rel(x)|1"), Ok(RapidOp::Release("x".into())));
    // The operand runs to the last `)`: parentheses are part of the name.
    assert_eq!(op("T|w(a(b))|1"), Ok(RapidOp::Write("a(b)".into())));
    assert_eq!(op("T|w(()|1"), Ok(RapidOp::Write("(".into())));
    // Anything starting with `begin` or `end` is a block boundary.
    assert_eq!(op("T|begin(label)|1"), Ok(RapidOp::Begin));
    assert_eq!(op("T|endless|1"), Ok(RapidOp::End));
    for bad in [
        "",
        "T|r(x)",
        "T|r(x)|1|2",
        "T|r(x)|",
        "T|r(x)| 1",
        "T|r(x)|1.0",
        "T|r(x)|2147483648",
        "T|r(x y)|1",
        "T|r(x\u{0B})|1",
        "T|r()|1",
        "T|r(x)y|1",
        "T|read(x)|1",
        "T|req(l)|1",
        "T|snd(m)|1",
        "T|sync(x)|1",
        "T|dummy(x)|1",
        "T|call(o.m()/1)|1",
    ] {
        assert!(parse_line(bad).is_err(), "{bad:?}");
    }
    assert_eq!(parse_int("+7"), Ok(7));
    assert_eq!(parse_int("-2147483648"), Ok(i32::MIN));
    assert_eq!(parse_int("007"), Ok(7));
    for bad in [
        "",
        "+",
        "-",
        "1_000",
        "0x10",
        "2147483648",
        "99999999999999999999",
    ] {
        assert!(parse_int(bad).is_err(), "{bad:?}");
    }
    assert_eq!(read_lines("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
    assert_eq!(read_lines("a\n\nb\n"), ["a", "", "b"]);
    assert!(read_lines("").is_empty());
}

#[test]
fn what_is_written() {
    let text = "\
# a comment
T0|fork(T1)|Main.java:3
T1|req(L)|A.java:1
T1|acq(L)|A.java:1
T1|begin(transfer)
T1|w(x)|A.java:2
T1|end
T1|rel(L)|A.java:3
T0|join(T1)|Main.java:3
T0|r(x)|A.java:2
";
    let (out, map, summary) = to_rapid(&read(text)).expect("written");
    assert_eq!(
        out,
        "\
T0|fork(T1)|1
T1|acq(L)|2
T1|begin|0
T1|w(x)|3
T1|end|0
T1|rel(L)|4
T0|join(T1)|1
T0|r(x)|3
"
    );
    assert_eq!(
        map,
        "1\tMain.java:3\n2\tA.java:1\n3\tA.java:2\n4\tA.java:3\n"
    );
    assert_eq!(
        summary,
        RapidSummary {
            written: 8,
            dropped: 1,
            locations: 4
        }
    );
    round_trip(&read(text));
}

#[test]
fn an_empty_trace_is_two_empty_files() {
    let (out, map, summary) = to_rapid(&Trace::default()).expect("written");
    assert_eq!((out.as_str(), map.as_str()), ("", ""));
    assert_eq!(summary, RapidSummary::default());
}

#[test]
fn locations_may_hold_what_rapid_fields_cannot() {
    let mut trace = read("T|r(x)|a\nT|w(x)|b\n");
    let odd = trace
        .names
        .locations
        .intern("Main.java:3 | in run()\t(x)".as_bytes())
        .expect("utf-8");
    trace.events[1].loc = Some(hindsight_trace::LocId(odd));
    let (out, map, _) = to_rapid(&trace).expect("written");
    assert_eq!(out, "T|r(x)|1\nT|w(x)|2\n");
    assert_eq!(map, "1\ta\n2\tMain.java:3 | in run()\t(x)\n");
    assert_eq!(read_by_rapid(&out, &map), expected(&trace));
}

#[test]
fn messages_and_calls_are_refused_at_their_line() {
    let (pos, why) = refusal("T0|fork(T1)\nT0|snd(m)|A.java:1\nT1|rcv(m)\n");
    assert_eq!(pos, Position::Line(2));
    assert!(
        why.contains("`T0|snd(m)`") && why.contains("no messages"),
        "{why}"
    );
    let (pos, why) = refusal("T1|w(x)\n\nT1|call(o.put(1,2)/nil)|H.java:5\n");
    assert_eq!(pos, Position::Line(3));
    assert!(
        why.contains("`T1|call(o.put(1,2)/nil)`") && why.contains("no method calls"),
        "{why}"
    );
}

/// A trace of one event over names built in memory (the text format cannot carry some of them).
fn one_event(thread: &str, op: impl FnOnce(&mut Names) -> Op, loc: Option<&str>) -> Trace {
    let mut names = Names::default();
    let t = names.threads.intern(thread.as_bytes()).expect("utf-8");
    let op = op(&mut names);
    let loc = loc.map(|l| hindsight_trace::LocId(names.locations.intern(l.as_bytes()).unwrap()));
    let mut e = Event::new(0, hindsight_trace::ThreadId(t), op);
    e.loc = loc;
    Trace {
        names,
        events: vec![e],
    }
}

#[test]
fn names_rapid_cannot_read_are_refused() {
    let var = |name: &'static str| {
        move |n: &mut Names| {
            Op::Write(hindsight_trace::VarId(
                n.vars.intern(name.as_bytes()).unwrap(),
            ))
        }
    };
    let cases: Vec<(Trace, &str)> = vec![
        (
            one_event("T", var("a b"), None),
            "variable name \"a b\" holds whitespace",
        ),
        (one_event("T", var("a\u{0B}b"), None), "holds whitespace"),
        (one_event("T", var("a\u{A0}b"), None), "holds whitespace"),
        (
            one_event("T", var("a|b"), None),
            "variable name \"a|b\" holds `|`",
        ),
        (one_event("T", var(""), None), "variable name \"\" is empty"),
        (
            one_event("T 1", var("x"), None),
            "thread name \"T 1\" holds whitespace",
        ),
        (one_event("#T", var("x"), None), "starts with `#`"),
        (
            one_event(
                "T",
                |n| Op::Acquire(hindsight_trace::LockId(n.locks.intern(b"l|m").unwrap())),
                None,
            ),
            "lock name \"l|m\"",
        ),
        (
            one_event(
                "T",
                |n| Op::Fork(hindsight_trace::ThreadId(n.threads.intern(b"U\t").unwrap())),
                None,
            ),
            "thread name \"U\\t\" holds whitespace",
        ),
        (
            one_event("T", var("x"), Some("A.java:1\nB")),
            "holds a line break",
        ),
    ];
    for (trace, want) in cases {
        match to_rapid(&trace) {
            Err(WriteRapidError::Trace(e)) => {
                assert_eq!(e.pos, Position::Event(0));
                let why = e.kind.to_string();
                assert!(why.contains(want), "{why:?} should say {want:?}");
            }
            other => panic!("{:?}: expected a refusal, got {other:?}", trace.events),
        }
    }
    // A begin label is not written, so it may hold anything.
    let labelled = one_event(
        "T",
        |n| {
            Op::Begin(Some(hindsight_trace::SymId(
                n.symbols.intern(b"a b|c").unwrap(),
            )))
        },
        None,
    );
    assert_eq!(to_rapid(&labelled).expect("written").0, "T|begin|0\n");
}

#[test]
fn generated_map_traces_are_refused() {
    let trace = generate_trace(&GenConfig {
        events: 200,
        map_keys: 4,
        ..GenConfig::default()
    });
    let first_call = trace
        .events
        .iter()
        .position(|e| matches!(e.op, Op::Call(_)))
        .expect("a call");
    match to_rapid(&trace) {
        Err(WriteRapidError::Trace(e)) => {
            assert_eq!(e.pos, Position::Event(first_call as u64));
            assert!(e.kind.to_string().contains("no method calls"), "{}", e.kind);
        }
        other => panic!("{other:?}"),
    }
}

/// Whether RAPID can read `name` in any field (the writer's documented rule).
fn rapid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains('|') && !name.contains(char::is_whitespace)
}

/// Whether the writer must write `e` (rather than refuse it).
fn carried(e: &Event, n: &Names) -> bool {
    let operand = match e.op {
        Op::Read(x) | Op::Write(x) => Some(n.var(x)),
        Op::Acquire(l) | Op::Release(l) => Some(n.lock(l)),
        Op::Fork(t) | Op::Join(t) => Some(n.thread(t)),
        Op::Request(_) => return true,
        Op::Begin(_) | Op::End => None,
        Op::Send(_)
        | Op::Receive(_)
        | Op::Call(_)
        | Op::AtomicLoad(_)
        | Op::AtomicStore(_)
        | Op::AtomicRmw(_) => return false,
    };
    let thread = n.thread(e.thread);
    rapid_name(thread)
        && !thread.starts_with('#')
        && operand.is_none_or(rapid_name)
        && e.loc.is_none_or(|l| !n.location(l).contains(['\n', '\r']))
}

fn gen_config() -> impl Strategy<Value = GenConfig> {
    (
        (0u64..3000, 0u32..9, 0u32..40, 0u32..10, 0u32..5),
        (
            prop::sample::select(vec![0.0, 0.05, 0.3, 1.0]),
            prop::sample::select(vec![0.0, 0.1, 0.5]),
            any::<u64>(),
        ),
    )
        .prop_map(
            |((events, threads, vars, locks, max_depth), (unprotected, blocks, seed))| GenConfig {
                events,
                threads,
                vars,
                locks,
                max_depth,
                unprotected,
                blocks,
                seed,
                map_keys: 0,
                per_request: 0,
                sites: hindsight_trace::generate::DEFAULT_SITES,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every generated trace (locks, forks, joins, blocks, a location on every event) is read
    /// by RAPID and by hindsight exactly as it was generated.
    #[test]
    fn generated_traces_are_read_by_rapid_as_they_were(config in gen_config()) {
        let trace = generate_trace(&config);
        let summary = round_trip(&trace);
        prop_assert_eq!(summary.dropped, 0);
    }
}

/// `trace` without its messages and calls (most random traces have one, and would only test
/// the refusal).
fn without_messages(mut trace: Trace) -> Trace {
    trace
        .events
        .retain(|e| !matches!(e.op, Op::Send(_) | Op::Receive(_) | Op::Call(_)));
    for (i, e) in trace.events.iter_mut().enumerate() {
        e.index = i as u64;
    }
    trace
}

/// A trace whose every event RAPID can carry is written and read back by RAPID as it was;
/// otherwise the first event it cannot carry is refused.
fn written_exactly_when_rapid_reads_it(trace: &Trace) -> Result<(), TestCaseError> {
    let first_refused = trace.events.iter().position(|e| !carried(e, &trace.names));
    match (to_rapid(trace), first_refused) {
        (Ok((out, map, _)), None) => {
            prop_assert_eq!(read_by_rapid(&out, &map), expected(trace));
        }
        (Err(WriteRapidError::Trace(e)), Some(i)) => {
            prop_assert_eq!(e.pos, Position::Event(i as u64));
            prop_assert!(matches!(e.kind, ErrorKind::Unsupported(_)));
        }
        (result, first) => {
            prop_assert!(
                false,
                "{:?} with the first refusal expected at {:?}",
                result.map(|r| r.0),
                first
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Over arbitrary names and operations.
    #[test]
    fn written_exactly_when_rapid_reads_any_trace(trace in arb::trace(arb::any_pools(), 30)) {
        written_exactly_when_rapid_reads_it(&trace)?;
        written_exactly_when_rapid_reads_it(&without_messages(trace))?;
    }

    /// Over names the text format carries, hindsight's reader agrees with RAPID's too.
    #[test]
    fn hindsight_reads_what_rapid_reads(trace in arb::trace(arb::text_pools(), 30)) {
        let trace = without_messages(trace);
        if trace.events.iter().all(|e| carried(e, &trace.names)) {
            round_trip(&trace);
        }
    }
}
