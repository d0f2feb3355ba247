//! Streaming validation, driven the way the CLI drives it: a `TextReader` over the trace,
//! `check` per event with the reader's position, then `finish`.

mod common;

use common::{read_text, validate, Validated};
use hindsight_trace::validate::KEPT_PER_KIND;
use hindsight_trace::{
    ErrorKind, EventSource, Position, TextReader, TraceError, Validator, Warning, WarningKind,
};

fn ok(text: &str) -> Validated {
    let v = validate(text, false);
    if let Err(e) = &v.result {
        panic!("{text:?}: {e}");
    }
    v
}

fn error(text: &str) -> TraceError {
    validate(text, false)
        .result
        .expect_err(&format!("{text:?} should be refused"))
}

fn w(line: u64, kind: WarningKind) -> Warning {
    Warning {
        pos: Position::Line(line),
        kind,
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

#[test]
fn clean_trace_has_no_warnings() {
    let v = ok("# a clean trace\n\
        T0|fork(T1)|1\n\
        T0|fork(T2)|2\n\
        T1|req(L)\n\
        T1|acq(L)\n\
        T1|w(x)|3\n\
        T1|rel(L)\n\
        T2|acq(L)\n\
        T2|r(x)\n\
        T2|rel(L)\n\
        T1|snd(m)\n\
        T2|rcv(m)\n\
        T0|rcv(m)\n\
        T2|begin(blk)\n\
        T2|begin\n\
        T2|end\n\
        T2|end\n\
        T1|call(q.put(1)/nil)\n\
        T0|join(T1)\n\
        T0|join(T2)\n\
        T0|r(x)\n");
    assert!(
        v.validator.warnings().is_empty(),
        "{:?}",
        v.validator.warnings()
    );
    assert!(v.validator.warning_counts().is_empty());
    assert!(v.validator.lock_violation().is_none());
}

#[test]
fn single_thread_traces_are_clean_and_empty_ones_warned_about() {
    for text in ["T0|w(x)", "main|r(x)\nmain|acq(L)\nmain|rel(L)\n"] {
        let v = ok(text);
        assert!(v.validator.warnings().is_empty(), "{text:?}");
    }
    for text in ["", "# nothing\n", "\n\n"] {
        let v = ok(text);
        let kinds: Vec<_> = v.validator.warnings().iter().map(|w| &w.kind).collect();
        assert_eq!(kinds, [&WarningKind::Empty], "{text:?}");
    }
}

#[test]
fn receive_never_sent() {
    let e = error("T0|fork(T1)\n\nT1|rcv(m1)|7\nT0|snd(m1)\n");
    assert_eq!(e.pos, Position::Line(3));
    assert_eq!(
        e.kind,
        ErrorKind::ReceiveNeverSent {
            thread: s("T1"),
            msg: s("m1")
        }
    );
    let e = error("T0|snd(a)\nT0|rcv(a)\nT0|rcv(b)\n");
    assert_eq!(e.pos, Position::Line(3));
    assert_eq!(
        e.kind,
        ErrorKind::ReceiveNeverSent {
            thread: s("T0"),
            msg: s("b")
        }
    );
    // One send may be received many times.
    ok("T0|fork(T1)\nT0|snd(m)\nT1|rcv(m)\nT0|rcv(m)\nT1|rcv(m)\n");
}

#[test]
fn join_of_an_unknown_thread_is_reported_at_the_join() {
    let text = "T0|fork(T1)\nT1|w(x)\n# the join\nT0|join(T9)|12\nT0|join(T1)\nT0|r(x)\n";
    // Every event checks fine: the error can only be known at the end...
    let mut reader = TextReader::new(text.as_bytes());
    let mut v = Validator::new(false);
    while reader.advance().unwrap() {
        v.check(reader.current(), reader.position(), reader.names())
            .unwrap();
    }
    // ...where it is reported at the join.
    let e = v.finish(reader.names()).unwrap_err();
    assert_eq!(e.pos, Position::Line(4));
    assert_eq!(
        e.kind,
        ErrorKind::JoinUnknownThread {
            thread: s("T0"),
            target: s("T9")
        }
    );
    assert_eq!(error(text), e);
    // A thread that shows up after its join is known (it only runs after the join).
    let v = ok("T0|join(T1)\nT1|w(x)\n");
    assert_eq!(
        v.validator.warnings(),
        [
            w(2, WarningKind::EventAfterJoin { thread: s("T1") }),
            w(2, WarningKind::NeverForked { thread: s("T1") }),
        ]
    );
    // A thread forked but without events of its own may be joined.
    let v = ok("T0|fork(T1)\nT0|join(T1)\n");
    assert!(v.validator.warnings().is_empty());
}

#[test]
fn release_not_held() {
    let cases = [
        ("T0|rel(L)", 1, "T0"),
        ("T0|fork(T1)\nT0|acq(L)\nT1|rel(L)\n", 3, "T1"),
        ("T0|acq(L)\nT0|rel(L)\n\nT0|rel(L)\n", 4, "T0"),
        (
            "T0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|rel(L)\nT0|rel(L)\n",
            5,
            "T0",
        ),
        ("T0|acq(M)\nT0|rel(L)", 2, "T0"),
    ];
    for (text, line, thread) in cases {
        // An error under --strict...
        let e = validate(text, true)
            .result
            .expect_err(&format!("{text:?} should be refused under --strict"));
        assert_eq!(e.pos, Position::Line(line), "{text:?}");
        assert_eq!(
            e.kind,
            ErrorKind::ReleaseNotHeld {
                thread: s(thread),
                lock: s("L")
            },
            "{text:?}"
        );
        // ...and otherwise a warning, the release read as logged; analyses that need
        // lock-valid traces see it as a lock violation.
        let v = ok(text);
        assert_eq!(
            v.validator.warnings(),
            [w(
                line,
                WarningKind::ReleaseWithoutAcquire {
                    thread: s(thread),
                    lock: s("L"),
                    treatment: "read as logged (later acquires of the lock are ordered after it)",
                }
            )],
            "{text:?}"
        );
        assert!(v.validator.lock_violation().is_some(), "{text:?}");
    }
}

#[test]
fn self_fork_and_join() {
    let e = error("T0|fork(T0)");
    assert_eq!(e.pos, Position::Line(1));
    assert_eq!(
        e.kind,
        ErrorKind::SelfForkJoin {
            thread: s("T0"),
            op: "fork"
        }
    );
    let e = error("T0|fork(T1)\nT1|w(x)\nT1|join(T1)|5\n");
    assert_eq!(e.pos, Position::Line(3));
    assert_eq!(
        e.kind,
        ErrorKind::SelfForkJoin {
            thread: s("T1"),
            op: "join"
        }
    );
    assert_eq!(e.to_string(), "line 3: T1 joins itself");
}

#[test]
fn reentrant_acquisition_is_silent() {
    let v = ok("T0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|rel(L)\n");
    assert!(v.validator.warnings().is_empty());
    assert!(v.validator.lock_violation().is_none());
    // Re-entrant, then properly handed to another thread.
    let v = ok("T0|fork(T1)\nT0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|rel(L)\nT1|acq(L)\nT1|rel(L)\n");
    assert!(v.validator.warnings().is_empty());
}

#[test]
fn acquire_held_rapid_out_of_order_pattern() {
    let text = "T0|fork(T2)\nT0|acq(L)|5\nT2|acq(L)|6\nT0|rel(L)\nT2|rel(L)\n";
    let v = ok(text);
    let expected = w(
        3,
        WarningKind::AcquireHeld {
            thread: s("T2"),
            lock: s("L"),
            holder: s("T0"),
        },
    );
    assert_eq!(v.validator.warnings(), std::slice::from_ref(&expected));
    assert_eq!(v.validator.lock_violation(), Some(&expected));
    assert_eq!(v.validator.warning_counts(), [("acquire-held-lock", 1)]);
    assert_eq!(
        expected.to_string(),
        "line 3: warning: T2 acquires lock `L` while T0 holds it (lock records out of order)"
    );
    // The lock is free again afterwards: a later clean handover adds nothing.
    let v = ok(&format!(
        "{text}T0|acq(L)\nT0|rel(L)\nT2|acq(L)\nT2|rel(L)\n"
    ));
    assert_eq!(v.validator.warnings().len(), 1);
    // The lock violation is the first one.
    let v = ok(&format!(
        "{text}T0|acq(M)\nT2|acq(M)\nT0|rel(M)\nT2|rel(M)\n"
    ));
    assert_eq!(v.validator.warnings().len(), 2);
    assert_eq!(v.validator.lock_violation(), Some(&expected));
}

#[test]
fn each_warning_at_its_position() {
    let cases: Vec<(&str, Vec<Warning>)> = vec![
        (
            "T0|w(x)\nT1|w(x)\n\nT0|fork(T1)|9\n",
            vec![w(4, WarningKind::EventBeforeFork { thread: s("T1") })],
        ),
        (
            "T0|w(x)\n# c\nT1|w(x)\nT1|r(x)\nT2|r(x)\n",
            vec![
                w(3, WarningKind::NeverForked { thread: s("T1") }),
                w(5, WarningKind::NeverForked { thread: s("T2") }),
            ],
        ),
        (
            "T0|fork(T1)\nT1|w(x)\nT0|fork(T1)\n",
            vec![w(3, WarningKind::ForkedTwice { thread: s("T1") })],
        ),
        (
            "T0|fork(T1)\nT0|acq(L)\nT1|acq(L)\nT1|rel(L)\nT0|rel(L)\n",
            vec![w(
                3,
                WarningKind::AcquireHeld {
                    thread: s("T1"),
                    lock: s("L"),
                    holder: s("T0"),
                },
            )],
        ),
        (
            "T0|fork(T1)\nT1|w(x)\nT0|join(T1)\nT0|r(x)\nT1|r(x)\nT1|w(x)\n",
            vec![w(5, WarningKind::EventAfterJoin { thread: s("T1") })],
        ),
        (
            "T0|end\n",
            vec![w(1, WarningKind::EndWithoutBegin { thread: s("T0") })],
        ),
        (
            "T0|fork(T1)\nT0|begin\nT1|end|4\nT0|end\nT0|end\n",
            vec![
                w(3, WarningKind::EndWithoutBegin { thread: s("T1") }),
                w(5, WarningKind::EndWithoutBegin { thread: s("T0") }),
            ],
        ),
    ];
    for (text, expected) in cases {
        let v = ok(text);
        assert_eq!(v.validator.warnings(), expected, "{text:?}");
        let total: u64 = v.validator.warning_counts().iter().map(|(_, n)| n).sum();
        assert_eq!(total as usize, expected.len(), "{text:?}");
        for warning in &expected {
            assert!(v
                .validator
                .warning_counts()
                .iter()
                .any(|(code, _)| *code == warning.kind.code()));
        }
        let is_lock = matches!(expected[0].kind, WarningKind::AcquireHeld { .. });
        assert_eq!(v.validator.lock_violation().is_some(), is_lock, "{text:?}");

        // Under --strict the first warning is an error, at the same place.
        let strict = validate(text, true);
        let e = strict
            .result
            .expect_err(&format!("{text:?} must fail under --strict"));
        assert_eq!(e.pos, expected[0].pos, "{text:?}");
        assert_eq!(
            e.kind,
            ErrorKind::Strict(expected[0].kind.clone()),
            "{text:?}"
        );
        assert!(strict.validator.warnings().is_empty());
    }
}

#[test]
fn the_root_thread_needs_no_fork() {
    // The first thread is the program's main thread; forking it later is not "event before
    // fork".
    let v = ok("main|w(x)\nmain|fork(T1)\nT1|r(x)\nmain|join(T1)\n");
    assert!(v.validator.warnings().is_empty());
}

#[test]
fn strict_mode_accepts_clean_traces() {
    let v = validate(
        "T0|fork(T1)\nT0|acq(L)\nT0|acq(L)\nT0|rel(L)\nT0|rel(L)\nT1|begin\nT1|end\nT0|join(T1)\n",
        true,
    );
    v.result.unwrap();
}

#[test]
fn warnings_beyond_the_cap_are_counted_not_kept() {
    let n = KEPT_PER_KIND + 15;
    let mut text = String::from("T0|w(x)\n");
    for _ in 0..n {
        text.push_str("T0|end\n");
    }
    // Another kind, with fewer than the cap.
    for i in 0..3 {
        text.push_str(&format!("U{i}|r(x)\n"));
    }
    let v = ok(&text);
    let kept = v.validator.warnings();
    let ends: Vec<&Warning> = kept
        .iter()
        .filter(|w| matches!(w.kind, WarningKind::EndWithoutBegin { .. }))
        .collect();
    assert_eq!(ends.len(), KEPT_PER_KIND);
    // The first ones are kept, in order.
    for (i, w) in ends.iter().enumerate() {
        assert_eq!(w.pos, Position::Line(2 + i as u64));
    }
    assert_eq!(kept.len(), KEPT_PER_KIND + 3);
    let mut counts = v.validator.warning_counts().to_vec();
    counts.sort();
    assert_eq!(
        counts,
        [("end-without-begin", n as u64), ("never-forked", 3)]
    );
}

#[test]
fn memory_traces_report_event_positions() {
    let t = read_text("T0|w(x)\n\n# c\nT0|fork(T1)\nT1|rel(L)\n").unwrap();
    let mut src = t.source();
    let mut v = Validator::new(true);
    let mut result = Ok(());
    while src.advance().unwrap() {
        result = v.check(src.current(), src.position(), src.names());
        if result.is_err() {
            break;
        }
    }
    let e = result.unwrap_err();
    assert_eq!(e.pos, Position::Event(2));
    assert!(matches!(e.kind, ErrorKind::ReleaseNotHeld { .. }));
}
