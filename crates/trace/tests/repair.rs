//! The repair of late lock releases (`LockRepair`), driven as the streaming pass drives it: the
//! repaired stream, then the validator over it, with the repairs as warnings.

use hindsight_trace::arbitrary::{late_release, trace_from_choices, Shape};
use hindsight_trace::{
    Event, EventSource, LockRepair, Op, Position, Step, TextReader, Trace, TraceError, Validator,
    Warning, WarningKind,
};
use proptest::prelude::*;

/// What the pass sees of a repaired trace.
struct Repaired {
    /// `(line, event as text)` in the repaired order.
    events: Vec<(u64, String)>,
    indices: Vec<u64>,
    warnings: Vec<Warning>,
    result: Result<(), TraceError>,
}

fn line(p: Position) -> u64 {
    match p {
        Position::Line(n) => n,
        p => panic!("a text trace has lines, not {p:?}"),
    }
}

fn repair(text: &str, strict: bool) -> Repaired {
    let mut source = LockRepair::new(TextReader::new(text.as_bytes()), !strict);
    let mut validator = Validator::new(strict);
    let mut out = Repaired {
        events: Vec::new(),
        indices: Vec::new(),
        warnings: Vec::new(),
        result: Ok(()),
    };
    out.result = (|| {
        while source.advance()? {
            for w in source.take_repairs() {
                validator.warn(w.pos, w.kind)?;
            }
            let e = source.current();
            let shown = format!(
                "{}|{}",
                source.names().thread(e.thread),
                e.display_op(source.names())
            );
            out.events.push((line(source.position()), shown));
            out.indices.push(e.index);
            validator.check(e, source.position(), source.names())?;
        }
        let names = source.take_names();
        validator.finish(&names)
    })();
    out.warnings = validator.warnings().to_vec();
    out
}

fn lines(r: &Repaired) -> Vec<u64> {
    r.events.iter().map(|(l, _)| *l).collect()
}

fn late(line: u64, thread: &str, lock: &str, holder: &str) -> Warning {
    Warning {
        pos: Position::Line(line),
        kind: WarningKind::LateRelease {
            thread: thread.into(),
            lock: lock.into(),
            holder: holder.into(),
        },
    }
}

const PROLOGUE: &str = "T0|fork(T1)\nT0|fork(T2)\nT0|fork(T3)\n";

#[test]
fn a_release_logged_after_the_next_acquire_moves_to_just_before_it() {
    let text = format!("{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT1|rel(L)\nT2|rel(L)\n");
    let r = repair(&text, false);
    r.result.as_ref().expect("repaired");
    assert_eq!(lines(&r), [1, 2, 3, 4, 6, 5, 7]);
    assert_eq!(r.indices, (0..7).collect::<Vec<u64>>());
    assert_eq!(r.warnings, [late(5, "T2", "L", "T1")]);
    assert_eq!(
        r.warnings[0].to_string(),
        "line 5: warning: T2 acquires lock `L` while T1 holds it (lock records out of order); \
         repaired: T1's later release of it is taken to come first"
    );
}

#[test]
fn the_acquirers_critical_section_waits_and_other_threads_go_on() {
    // T2 logs its acquire and a write inside its critical section before T1's release is
    // logged; T3's write depends on nothing held and keeps its place.
    let text = format!(
        "{PROLOGUE}T1|acq(L)\nT1|w(x)\nT2|acq(L)\nT2|w(x)\nT3|w(y)\nT1|rel(L)\nT2|rel(L)\n"
    );
    let r = repair(&text, false);
    r.result.as_ref().expect("repaired");
    assert_eq!(lines(&r), [1, 2, 3, 4, 5, 8, 9, 6, 7, 10]);
    assert_eq!(r.warnings, [late(6, "T2", "L", "T1")]);
}

#[test]
fn what_depends_on_a_held_event_waits_with_it() {
    // T3 receives a message T2 sends inside the held section, T0 joins T2, and T3 then wants
    // the lock T2 took: all wait, and come out in their logged order.
    let text = format!(
        "{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT2|snd(m)\nT3|rcv(m)\nT2|rel(L)\nT0|join(T2)\nT3|acq(L)\nT0|w(z)\nT1|rel(L)\nT3|rel(L)\n"
    );
    let r = repair(&text, false);
    r.result.as_ref().expect("repaired");
    assert_eq!(lines(&r), [1, 2, 3, 4, 12, 5, 6, 7, 8, 9, 10, 11, 13]);
    assert_eq!(r.warnings, [late(5, "T2", "L", "T1")]);
}

#[test]
fn a_thread_forked_inside_a_held_section_waits_for_its_fork() {
    let text = "T0|fork(T1)\nT0|fork(T2)\nT1|acq(L)\nT2|acq(L)\nT2|fork(T3)\nT3|w(x)\nT1|rel(L)\nT2|rel(L)\n";
    let r = repair(text, false);
    r.result.as_ref().expect("repaired");
    assert_eq!(lines(&r), [1, 2, 3, 7, 4, 5, 6, 8]);
}

#[test]
fn a_lock_never_given_back_is_left_as_logged_and_its_second_section_unprotected() {
    let text = format!("{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT2|w(x)\n");
    let r = repair(&text, false);
    r.result.as_ref().expect("accepted with a warning");
    assert_eq!(lines(&r), [1, 2, 3, 4, 5, 6]);
    // T2's acquire orders nothing: its section is not protected by `L`.
    assert_eq!(r.events[4].1, "T2|req(L)");
    assert!(
        matches!(&r.warnings[..], [w] if w.pos == Position::Line(5)
            && matches!(w.kind, WarningKind::UnprotectedSection { .. })),
        "{:?}",
        r.warnings
    );
}

#[test]
fn a_release_that_depends_on_the_held_acquire_cannot_move_before_it() {
    // T1 receives, while holding L, a message T2 sent after acquiring L: no order of these
    // records is both lock-valid and causal, so they stay as logged.
    let text =
        format!("{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT2|snd(m)\nT1|rcv(m)\nT1|rel(L)\nT2|rel(L)\n");
    let r = repair(&text, false);
    r.result.as_ref().expect("accepted with a warning");
    assert_eq!(lines(&r), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // T2's section (its acquire and release) is tolerated: read as requests.
    assert_eq!(r.events[4].1, "T2|req(L)");
    assert_eq!(r.events[8].1, "T2|req(L)");
    assert!(matches!(
        &r.warnings[..],
        [w] if matches!(w.kind, WarningKind::UnprotectedSection { .. })
    ));
}

#[test]
fn under_strict_nothing_is_repaired_and_the_acquire_is_an_error() {
    let text = format!("{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT1|rel(L)\nT2|rel(L)\n");
    let r = repair(&text, true);
    let e = r.result.expect_err("strict");
    assert_eq!(e.pos, Position::Line(5));
    assert_eq!(
        e.to_string(),
        "line 5: T2 acquires lock `L` while T1 holds it (lock records out of order) (an error under --strict)"
    );
}

#[test]
fn re_entrant_acquires_are_not_late() {
    let text =
        format!("{PROLOGUE}T1|acq(L)\nT1|acq(L)\nT1|rel(L)\nT1|rel(L)\nT2|acq(L)\nT2|rel(L)\n");
    let r = repair(&text, false);
    assert_eq!(lines(&r), (1..=9).collect::<Vec<u64>>());
    assert!(r.warnings.is_empty());
}

#[test]
fn a_read_error_after_held_events_stops_the_stream() {
    let text = format!("{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT2|bogus(x)\n");
    let r = repair(&text, false);
    assert_eq!(r.result.expect_err("bad line").pos, Position::Line(6));
}

#[test]
fn held_calls_come_back_whole_when_split() {
    let text = format!(
        "{PROLOGUE}T1|acq(L)\nT2|acq(L)\nT2|call(o.put(1,2)/nil)\nT1|call(o.get(1)/nil)\nT1|rel(L)\nT2|rel(L)\n"
    );
    let mut source = LockRepair::new(TextReader::new(text.as_bytes()), true);
    let mut values = Vec::new();
    let mut seen = Vec::new();
    loop {
        let before = values.len();
        match source.advance_splitting_calls(&mut values).expect("reads") {
            Step::End => break,
            Step::Event => seen.push(format!("{:?}", source.current().op)),
            Step::Call(head) => {
                assert_eq!(values.len() - before, (head.args + head.results) as usize);
                let method = source.names().symbol(head.method).to_owned();
                seen.push(format!(
                    "{}:{method}{:?}",
                    line(source.position()),
                    &values[before..]
                ));
            }
        }
    }
    let calls: Vec<&String> = seen.iter().filter(|s| s.contains(':')).collect();
    assert_eq!(calls.len(), 2);
    // T1's call is not held: it passes before the release; T2's comes after its acquire.
    assert!(calls[0].starts_with("7:get"), "{calls:?}");
    assert!(calls[1].starts_with("6:put"), "{calls:?}");
}

/// The events of a trace as `thread|op` with their locations.
fn shown(events: &[Event], t: &Trace) -> Vec<String> {
    events
        .iter()
        .map(|e| format!("{}|{}", t.names.thread(e.thread), e.display_op(&t.names)))
        .collect()
}

fn repaired_events(t: &Trace) -> (Vec<Event>, Vec<Warning>) {
    let mut source = LockRepair::new(t.source(), true);
    let mut validator = Validator::new(false);
    let mut events = Vec::new();
    while source.advance().expect("in memory") {
        for w in source.take_repairs() {
            validator.warn(w.pos, w.kind).expect("not strict");
        }
        let e = source.current();
        validator
            .check(e, source.position(), source.names())
            .expect("valid");
        events.push(e.clone());
    }
    (events, validator.warnings().to_vec())
}

fn lock_valid() -> Shape {
    Shape {
        odd: false,
        ..Shape::default()
    }
}

/// Choices of `trace_from_choices` that take and give back locks often.
fn lock_heavy() -> impl Strategy<Value = Vec<(u8, u8, u8)>> {
    let action = prop_oneof![Just(4u8), Just(5u8), any::<u8>()];
    prop::collection::vec((any::<u8>(), action, any::<u8>()), 1..40)
}

/// `choices` after the root forks every other thread, so that all can take locks.
fn forked(choices: &[(u8, u8, u8)]) -> Vec<(u8, u8, u8)> {
    let mut all = vec![(0, 6, 1), (0, 6, 2)];
    all.extend_from_slice(choices);
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// A late release is put back where the lock-valid original had it, before the acquire.
    #[test]
    fn late_releases_are_put_back(
        choices in lock_heavy(),
        pick in any::<usize>(),
        carry in 0usize..4,
    ) {
        let original = trace_from_choices(&forked(&choices), lock_valid());
        let Some(late) = late_release(&original, pick, carry) else { return Ok(()) };
        let (events, warnings) = repaired_events(&late.logged);
        prop_assert_eq!(shown(&events, &late.logged), shown(&late.restored.events, &late.restored));
        let indices: Vec<u64> = events.iter().map(|e| e.index).collect();
        prop_assert_eq!(indices, (0..events.len() as u64).collect::<Vec<_>>());
        prop_assert!(
            matches!(&warnings[..], [w] if matches!(w.kind, WarningKind::LateRelease { .. })),
            "{:?}", warnings
        );
    }

    /// A lock-valid trace goes through untouched.
    #[test]
    fn lock_valid_traces_pass_untouched(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
    ) {
        let t = trace_from_choices(&choices, lock_valid());
        let (events, warnings) = repaired_events(&t);
        prop_assert_eq!(events, t.events);
        let repairs = warnings.iter().filter(|w| matches!(w.kind, WarningKind::LateRelease { .. })).count();
        prop_assert_eq!(repairs, 0);
    }

    /// Whatever the log, the repair hands out every event once, each thread's in its order,
    /// each receive after its send.
    #[test]
    fn odd_logs_are_permuted_keeping_every_threads_order(
        choices in prop::collection::vec(any::<(u8, u8, u8)>(), 0..40),
    ) {
        let t = trace_from_choices(&choices, Shape::default());
        let mut source = LockRepair::new(t.source(), true);
        let mut out = Vec::new();
        let mut positions = Vec::new();
        while source.advance().expect("in memory") {
            out.push(source.current().clone());
            positions.push(source.position());
        }
        prop_assert_eq!(out.len(), t.events.len());
        let original: Vec<u64> = positions
            .iter()
            .map(|p| match p { Position::Event(k) => *k, p => panic!("{p:?}") })
            .collect();
        let mut sorted = original.clone();
        sorted.sort_unstable();
        prop_assert_eq!(sorted, (0..t.events.len() as u64).collect::<Vec<_>>());
        for (k, e) in out.iter().enumerate() {
            let from = &t.events[original[k] as usize];
            // A record the repair cannot put back is tolerated: a request of its lock.
            let tolerated = matches!((&e.op, &from.op),
                (Op::Request(l), Op::Acquire(m) | Op::Release(m)) if l == m);
            prop_assert!(tolerated || e.op == from.op, "{:?} from {:?}", e.op, from.op);
            prop_assert_eq!(e.thread, from.thread);
        }
        for a in 0..out.len() {
            for b in a + 1..out.len() {
                if out[a].thread == out[b].thread {
                    prop_assert!(original[a] < original[b], "thread order changed");
                }
            }
        }
    }
}

/// Each thread's events, in order.
fn per_thread(events: &[Event]) -> Vec<Vec<(u64, String)>> {
    let mut out: Vec<Vec<(u64, String)>> = Vec::new();
    for e in events {
        let t = e.thread.index();
        if out.len() <= t {
            out.resize_with(t + 1, Vec::new);
        }
        out[t].push((0, format!("{:?}{:?}", e.op, e.loc)));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Generated programs' traces with many releases logged late: every one is repaired, and
    /// each thread's events are its own events in its own order.
    #[test]
    fn generated_traces_with_late_releases_are_repaired(seed in any::<u64>(), every in 1usize..4) {
        use hindsight_trace::arbitrary::delay_releases;
        use hindsight_trace::generate::{generate_trace, GenConfig};
        let config = GenConfig { events: 600, threads: 6, locks: 3, seed, ..GenConfig::default() };
        let original = generate_trace(&config);
        let (logged, delayed) = delay_releases(&original, every, 64);
        let mut source = LockRepair::new(logged.source(), true);
        let mut validator = Validator::new(false);
        let mut events = Vec::new();
        while source.advance().expect("in memory") {
            for w in source.take_repairs() {
                validator.warn(w.pos, w.kind).expect("not strict");
            }
            validator.check(source.current(), source.position(), source.names()).expect("valid");
            events.push(source.current().clone());
        }
        prop_assert_eq!(source.repaired() as usize, delayed);
        prop_assert!(validator.lock_violation().is_none(), "{:?}", validator.lock_violation());
        prop_assert_eq!(per_thread(&events), per_thread(&original.events));
    }
}

/// Requests order nothing, so a log is repaired alike with and without them: they do not count
/// toward the bound on held events. T1 waits for T0's late release of `L` behind fewer than
/// `MAX_HELD` other events but more than `MAX_HELD` events with their requests; the release
/// still comes in time.
#[test]
fn requests_do_not_count_toward_the_bound_on_held_events() {
    use hindsight_trace::repair::MAX_HELD;
    let mut text = String::from("T0|fork(T1)\nT0|acq(L)\nT1|acq(L)\n");
    for _ in 0..MAX_HELD - 10 {
        text.push_str("T1|req(M)\nT1|w(x)\n");
    }
    text.push_str("T0|rel(L)\nT1|rel(L)\n");
    let mut source = LockRepair::new(TextReader::new(text.as_bytes()), true);
    while source.advance().expect("reads") {}
    assert_eq!((source.repaired(), source.tolerated()), (1, 0));
}
