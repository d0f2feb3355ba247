//! The text formats: RAPID's STD format and our superset of it.

mod common;

use common::{read_text, read_text_bytes, render, text_error, to_text, Trickle};
use hindsight_trace::{
    Call, ErrorKind, Event, EventSource, LocId, LockId, MsgId, Names, ObjId, Op, Position, SymId,
    TextReader, ThreadId, Trace, Value, VarId,
};

/// Reads a single-event trace and returns it with its names.
fn one(line: &str) -> (Event, Names) {
    let t = read_text(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    assert_eq!(t.events.len(), 1, "{line:?}");
    (t.events[0].clone(), t.names)
}

fn thread(names: &Names, e: &Event) -> String {
    names.thread(e.thread).to_owned()
}

fn loc(names: &Names, e: &Event) -> Option<String> {
    e.loc.map(|l| names.location(l).to_owned())
}

fn call_of(e: &Event) -> &Call {
    match &e.op {
        Op::Call(c) => c,
        op => panic!("expected a call, got {op:?}"),
    }
}

/// A value with its name resolved, for readable assertions.
#[derive(Debug, PartialEq)]
enum V {
    I(i64),
    Nil,
    Sym(String),
    Str(String),
}

fn values(vs: &[Value], names: &Names) -> Vec<V> {
    vs.iter()
        .map(|v| match *v {
            Value::Int(i) => V::I(i),
            Value::Nil => V::Nil,
            Value::Sym(s) => V::Sym(names.symbol(s).to_owned()),
            Value::Str(s) => V::Str(names.symbol(s).to_owned()),
        })
        .collect()
}

#[test]
fn rapid_std_ops() {
    let (e, n) = one("T0|fork(T2)|123");
    assert_eq!(thread(&n, &e), "T0");
    let Op::Fork(t) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.thread(t), "T2");
    assert_eq!(loc(&n, &e).as_deref(), Some("123"));

    let (e, n) = one("T0|join(T2)|124");
    let Op::Join(t) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.thread(t), "T2");

    let (e, n) = one("T2|acq(L34)|120");
    assert_eq!(thread(&n, &e), "T2");
    let Op::Acquire(l) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.lock(l), "L34");
    assert_eq!(loc(&n, &e).as_deref(), Some("120"));

    let (e, n) = one("T2|rel(L34)|121");
    let Op::Release(l) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.lock(l), "L34");

    let (e, n) = one("T1|w(V234.23[0])|456");
    let Op::Write(x) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.var(x), "V234.23[0]");
    assert_eq!(loc(&n, &e).as_deref(), Some("456"));

    let (e, n) = one("T1|r(x)");
    let Op::Read(x) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.var(x), "x");
    assert_eq!(e.loc, None);

    let (e, n) = one("T1|begin|10");
    assert_eq!(e.op, Op::Begin(None));
    assert_eq!(loc(&n, &e).as_deref(), Some("10"));

    let (e, n) = one("T1|end|13");
    assert_eq!(e.op, Op::End);
    assert_eq!(loc(&n, &e).as_deref(), Some("13"));
}

#[test]
fn superset_ops() {
    let (e, n) = one("T1|begin(label)");
    let Op::Begin(Some(s)) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.symbol(s), "label");
    assert_eq!(e.loc, None);

    assert_eq!(one("T1|begin()").0.op, Op::Begin(None));
    assert_eq!(one("T1|begin").0.op, Op::Begin(None));
    assert_eq!(one("T1|end").0.op, Op::End);
    assert_eq!(one("T1|end()").0.op, Op::End);

    let (e, n) = one("T1|req(L)");
    let Op::Request(l) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.lock(l), "L");

    let (e, n) = one("T1|snd(m1)");
    let Op::Send(m) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.msg(m), "m1");

    let (e, n) = one("T2|rcv(m1)");
    let Op::Receive(m) = e.op else {
        panic!("{:?}", e.op)
    };
    assert_eq!(n.msg(m), "m1");
    assert_eq!(thread(&n, &e), "T2");
}

#[test]
fn every_op_in_one_trace_with_exact_ids() {
    let text = "T0|fork(T1)|1\nT1|req(L)\nT1|acq(L)|2\nT1|r(x)\nT1|w(x)|3\nT1|rel(L)\n\
                T1|begin(b)\nT1|snd(m)\nT1|end\nT0|rcv(m)\nT0|call(o.f(1)/nil)\nT0|join(T1)|4\n";
    let t = read_text(text).unwrap();
    let call = Call {
        object: ObjId(0),
        method: SymId(1),
        args: vec![Value::Int(1)],
        results: vec![Value::Nil],
    };
    let expected = [
        (0, Op::Fork(ThreadId(1)), Some(LocId(0))),
        (1, Op::Request(LockId(0)), None),
        (1, Op::Acquire(LockId(0)), Some(LocId(1))),
        (1, Op::Read(VarId(0)), None),
        (1, Op::Write(VarId(0)), Some(LocId(2))),
        (1, Op::Release(LockId(0)), None),
        (1, Op::Begin(Some(SymId(0))), None),
        (1, Op::Send(MsgId(0)), None),
        (1, Op::End, None),
        (0, Op::Receive(MsgId(0)), None),
        (0, Op::Call(Box::new(call)), None),
        (0, Op::Join(ThreadId(1)), Some(LocId(3))),
    ];
    assert_eq!(t.events.len(), expected.len());
    for (i, (e, (th, op, loc))) in t.events.iter().zip(expected).enumerate() {
        assert_eq!(
            *e,
            Event {
                index: i as u64,
                thread: ThreadId(th),
                op,
                loc
            }
        );
    }
    assert_eq!(t.names.thread(ThreadId(0)), "T0");
    assert_eq!(t.names.thread(ThreadId(1)), "T1");
    assert_eq!(t.names.symbol(SymId(0)), "b");
    assert_eq!(t.names.symbol(SymId(1)), "f");
    assert_eq!(t.names.object(ObjId(0)), "o");
    let locs: Vec<&str> = t.names.locations.iter().collect();
    assert_eq!(locs, ["1", "2", "3", "4"]);
}

#[test]
fn calls() {
    let (e, n) = one("T1|call(m.put(5,7)/nil)|9");
    let c = call_of(&e);
    assert_eq!(n.object(c.object), "m");
    assert_eq!(n.symbol(c.method), "put");
    assert_eq!(values(&c.args, &n), [V::I(5), V::I(7)]);
    assert_eq!(values(&c.results, &n), [V::Nil]);
    assert_eq!(loc(&n, &e).as_deref(), Some("9"));

    let (e, n) = one("T1|call(q.size()/3)");
    let c = call_of(&e);
    assert_eq!(n.object(c.object), "q");
    assert_eq!(n.symbol(c.method), "size");
    assert!(c.args.is_empty());
    assert_eq!(values(&c.results, &n), [V::I(3)]);
    assert_eq!(e.loc, None);

    let (e, n) = one(r#"T1|call(o.f("a,b \"q\"",-4,sym)/)"#);
    let c = call_of(&e);
    assert_eq!(n.object(c.object), "o");
    assert_eq!(n.symbol(c.method), "f");
    assert_eq!(
        values(&c.args, &n),
        [V::Str("a,b \"q\"".into()), V::I(-4), V::Sym("sym".into())]
    );
    assert!(c.results.is_empty());

    // Object names may contain dots: the method is after the last one.
    let (e, n) = one("T1|call(a.b.put(1))");
    let c = call_of(&e);
    assert_eq!(n.object(c.object), "a.b");
    assert_eq!(n.symbol(c.method), "put");
    assert_eq!(values(&c.args, &n), [V::I(1)]);
    assert!(c.results.is_empty());

    // Several results, escapes, the extreme integers, strings with parentheses and bars.
    let (e, n) = one(
        r#"T1|call(o.g("(|)", "\\\n\t\r", "", -9223372036854775808)/9223372036854775807,true,"x")|L"#,
    );
    let c = call_of(&e);
    assert_eq!(
        values(&c.args, &n),
        [
            V::Str("(|)".into()),
            V::Str("\\\n\t\r".into()),
            V::Str(String::new()),
            V::I(i64::MIN)
        ]
    );
    assert_eq!(
        values(&c.results, &n),
        [V::I(i64::MAX), V::Sym("true".into()), V::Str("x".into())]
    );
    assert_eq!(loc(&n, &e).as_deref(), Some("L"));

    // A symbol and a string with the same text share one symbol id.
    let (e, _) = one(r#"T1|call(o.h(abc,"abc"))"#);
    let c = call_of(&e);
    let (Value::Sym(a), Value::Str(b)) = (c.args[0], c.args[1]) else {
        panic!("{:?}", c.args)
    };
    assert_eq!(a, b);
}

#[test]
fn whitespace_is_tolerated() {
    let t = read_text(
        "  T1 | w( x ) | 5 \n\tT1\t|\tacq (L)\t\n T1 | call ( m . put ( 5 , 7 ) / nil ) | 9 \n\
         T1 | begin ( lbl ) \nT1|end   |  \n",
    )
    .unwrap();
    assert_eq!(
        render(&t),
        [
            "T1|w(x)|5",
            "T1|acq(L)",
            "T1|call(m.put(5,7)/nil)|9",
            "T1|begin(lbl)",
            "T1|end"
        ]
    );
    let c = call_of(&t.events[2]);
    assert_eq!(t.names.object(c.object), "m");
    assert_eq!(t.names.symbol(c.method), "put");
    // Only one thread and one location were interned, trimmed.
    assert_eq!(t.names.threads.len(), 1);
    assert_eq!(t.names.locations.iter().collect::<Vec<_>>(), ["5", "9"]);
}

/// Events with their index and the reader's position for each.
fn positions(text: &[u8]) -> Vec<(u64, Position, String)> {
    let mut r = TextReader::new(text);
    let mut out = Vec::new();
    while r.advance().unwrap() {
        let e = r.current();
        let (index, thread) = (e.index, e.thread);
        let line = common::render_event(e, r.names());
        assert_eq!(r.names().thread(thread), line.split('|').next().unwrap());
        out.push((index, r.position(), line));
    }
    out
}

#[test]
fn blank_lines_comments_and_positions() {
    let text = "# a comment\n\nT0|fork(T1)|1\n   \n  # indented comment\nT1|r(x)\n\t\nT1|w(x)|2\n#T1|w(y)\n";
    assert_eq!(
        positions(text.as_bytes()),
        [
            (0, Position::Line(3), "T0|fork(T1)|1".to_owned()),
            (1, Position::Line(6), "T1|r(x)".to_owned()),
            (2, Position::Line(8), "T1|w(x)|2".to_owned()),
        ]
    );
}

#[test]
fn crlf_and_missing_final_newline() {
    let lf = "T0|fork(T1)|1\n\nT1|call(m.put(5,7)/nil)|9\nT1|r(x)\n";
    let crlf = lf.replace('\n', "\r\n");
    let expected = positions(lf.as_bytes());
    assert_eq!(positions(crlf.as_bytes()), expected);
    assert_eq!(positions(lf.trim_end().as_bytes()), expected);
    assert_eq!(positions(crlf.trim_end().as_bytes()), expected);
    assert_eq!(expected.last().unwrap().1, Position::Line(4));
    // No `\r` leaks into a name.
    let t = read_text(&crlf).unwrap();
    assert!(t.names.vars.iter().all(|n| n == "x"));
    assert!(t.names.locations.iter().all(|n| !n.contains('\r')));
}

#[test]
fn empty_inputs() {
    for text in ["", "\n", "\n\n\r\n", "# only a comment", "  \t  "] {
        let t = read_text(text).unwrap();
        assert!(t.events.is_empty(), "{text:?}");
    }
}

#[test]
fn reads_in_small_pieces_and_across_chunks() {
    // Many lines (far more than one 256 KiB chunk), read 1 and 7 bytes at a time as well.
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!(
            "T{}|w(V{}.{}[{}])|{}\n",
            i % 3,
            i % 50,
            i % 7,
            i % 2,
            i
        ));
    }
    // And one line much longer than a chunk.
    let long = "s".repeat(600_000);
    text.push_str(&format!("T0|call(o.f(\"{long}\")/nil)|end\n"));
    text.push_str("T0|r(x)");
    let whole = read_text(&text).unwrap();
    assert_eq!(whole.events.len(), 20_002);
    let c = call_of(&whole.events[20_000]);
    assert_eq!(values(&c.args, &whole.names), [V::Str(long.clone())]);
    assert_eq!(common::render(&whole)[19_999], "T1|w(V49.0[1])|19999");
    for n in [7, 4096] {
        let t = Trace::collect(&mut TextReader::new(Trickle {
            data: text.as_bytes(),
            n,
        }))
        .unwrap();
        assert_eq!(t.events, whole.events);
        assert_eq!(
            common::name_lists(&t.names),
            common::name_lists(&whole.names)
        );
    }
    let small = "T0|fork(T1)|1\r\n\r\n# c\r\nT1|call(m.put(5,7)/nil)|9\r\nT1|r(x)";
    let t = Trace::collect(&mut TextReader::new(Trickle {
        data: small.as_bytes(),
        n: 1,
    }))
    .unwrap();
    assert_eq!(render(&t), render(&read_text(small).unwrap()));
}

fn assert_error(text: &str, line: u64, check: impl Fn(&ErrorKind) -> bool) {
    let e = text_error(text);
    assert_eq!(e.pos, Position::Line(line), "{text:?}: {e}");
    assert!(check(&e.kind), "{text:?}: unexpected {:?}", e.kind);
}

fn is_syntax(k: &ErrorKind) -> bool {
    matches!(k, ErrorKind::Syntax(_))
}

#[test]
fn errors_name_their_kind_and_line() {
    let ok = "# header\nT0|r(x)\n\n";
    type Check = fn(&ErrorKind) -> bool;
    let cases: &[(&str, Check)] = &[
        ("T1|foo(x)", |k| *k == ErrorKind::UnknownOp("foo".into())),
        ("T1|read(x)|4", |k| {
            *k == ErrorKind::UnknownOp("read".into())
        }),
        ("T1|bar", |k| *k == ErrorKind::UnknownOp("bar".into())),
        ("T1 r(x)", is_syntax),
        ("T1", is_syntax),
        ("T1|", is_syntax),
        ("T1||5", is_syntax),
        ("T1|r", is_syntax),
        ("T1|r|5", is_syntax),
        ("T1|acq", is_syntax),
        ("T1|fork()", is_syntax),
        ("T1|snd", is_syntax),
        ("T1|r(x", is_syntax),
        ("T1|r(x|5", is_syntax),
        ("T1|rx)", |k| *k == ErrorKind::UnknownOp("rx)".into())),
        ("T1|call(m.put(5,7)", is_syntax),
        ("T1|call(m.put(5,7)|4", is_syntax),
        ("T1|call(m.put(5,7)/nil", is_syntax),
        ("T1|call(m.put(5,7)))", is_syntax),
        ("T1|call m.put(5))", |k| {
            matches!(k, ErrorKind::UnknownOp(_))
        }),
        ("T1|call", is_syntax),
        ("T1|call(put(5))", is_syntax),
        ("T1|call(m.put)", is_syntax),
        ("T1|call(m.(1))", is_syntax),
        ("T1|call(.f(1))", is_syntax),
        ("T1|call(o.f(1,))", is_syntax),
        ("T1|call(o.f(,1))", is_syntax),
        ("T1|call(o.f(1 2))", is_syntax),
        (r#"T1|call(o.f("a\qb"))"#, is_syntax),
        (r#"T1|call(o.f("a\"))"#, is_syntax),
        (r#"T1|call(o.f("abc))"#, is_syntax),
        (r#"T1|call(o.f("abc)|5"#, is_syntax),
        ("T1|call(o.f(9223372036854775808))", is_syntax),
        ("T1|call(o.f(-9223372036854775809))", is_syntax),
        ("T1|call(o.f(99999999999999999999999))", is_syntax),
        ("T1|call(o.f()) x", is_syntax),
        ("T1|call(o.f())x|5", is_syntax),
        ("T1|call(o.f()/1)garbage", is_syntax),
        ("T1|end(x)", is_syntax),
        ("T1|end(x)|5", is_syntax),
        ("T1|r()", is_syntax),
        ("T1|w( )", is_syntax),
        ("|r(x)", is_syntax),
        ("  |w(x)|5", is_syntax),
    ];
    for (bad, check) in cases {
        // As the first line, and after a valid prefix with a comment and a blank line.
        assert_error(bad, 1, check);
        assert_error(&format!("{ok}{bad}\nT0|w(x)\n"), 4, check);
        assert_error(&format!("{ok}{bad}\r\nT0|w(x)\r\n"), 4, check);
    }
}

#[test]
fn non_utf8_names_are_refused() {
    let cases: &[&[u8]] = &[
        b"T\xff|r(x)",
        b"T1|r(\xc3)",
        b"T1|w(x)|\xfe5",
        b"T1|fork(\x80)",
        b"T1|begin(\xff)",
        b"T1|call(\xff.f())",
        b"T1|call(o.\xff())",
        b"T1|call(o.f(\xff))",
        b"T1|call(o.f(\"\xff\"))",
    ];
    for bad in cases {
        let e = read_text_bytes(bad).unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::NotUtf8,
            "{}",
            String::from_utf8_lossy(bad)
        );
        assert_eq!(e.pos, Position::Line(1));
        let mut text = b"T0|r(x)\n\n".to_vec();
        text.extend_from_slice(bad);
        let e = read_text_bytes(&text).unwrap_err();
        assert_eq!(
            (e.kind, e.pos),
            (ErrorKind::NotUtf8, Position::Line(3)),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
    // Valid UTF-8 beyond ASCII is fine.
    let t = read_text("Tħ|w(é)|λ\nTħ|call(объект.метод(\"日本\",ü)/nil)").unwrap();
    assert_eq!(
        render(&t),
        ["Tħ|w(é)|λ", "Tħ|call(объект.метод(\"日本\",ü)/nil)"]
    );
}

#[test]
fn events_read_before_an_error_are_delivered() {
    let mut r = TextReader::new("T0|r(x)\nT0|w(x)\nT0|oops(x)\nT0|r(x)\n".as_bytes());
    assert_eq!(r.next_event().unwrap().unwrap().index, 0);
    assert_eq!(r.position(), Position::Line(1));
    assert_eq!(r.next_event().unwrap().unwrap().index, 1);
    assert_eq!(r.position(), Position::Line(2));
    let e = r.next_event().unwrap_err();
    assert_eq!(e.pos, Position::Line(3));
    assert_eq!(e.kind, ErrorKind::UnknownOp("oops".into()));
    assert_eq!(e.to_string().split(':').next(), Some("line 3"));
}

#[test]
fn writer_output_reads_back() {
    let text = "T0|fork(T1)|1\nT1|req(L)\nT1|acq(L)|2\nT1|r(V1.2[0])\nT1|w(V1.2[0])|3\n\
                T1|rel(L)\nT1|begin(b)\nT1|begin\nT1|snd(m)\nT1|end\nT1|end|4\nT0|rcv(m)\n\
                T0|call(a.b.put(1,-2,\"s \\\"q\\\" \\\\ \\n\",sym)/nil)|5\nT0|call(q.size()/3)\n\
                T0|call(q.clear())\nT0|join(T1)|6\n";
    let t = read_text(text).unwrap();
    assert_eq!(to_text(&t).unwrap(), text);
    let again = read_text(&to_text(&t).unwrap()).unwrap();
    assert_eq!(again.events, t.events);
}

#[test]
fn writer_refuses_names_it_cannot_carry() {
    fn single(text: &str, rename: impl FnOnce(&mut Trace)) -> std::io::Result<String> {
        let mut t = read_text(text).unwrap();
        rename(&mut t);
        to_text(&t)
    }
    fn names_with(kind: hindsight_trace::NameKind, name: &str) -> impl FnOnce(&mut Trace) + '_ {
        move |t: &mut Trace| {
            let interner = t.names.of_mut(kind);
            *interner = Default::default();
            interner.intern(name.as_bytes()).unwrap();
        }
    }
    use hindsight_trace::NameKind as K;
    let bad = [
        ("T0|r(x)", K::Var, "a|b"),
        ("T0|r(x)", K::Var, "a\nb"),
        ("T0|r(x)", K::Var, "a\rb"),
        ("T0|r(x)", K::Var, " x"),
        ("T0|r(x)", K::Var, "x "),
        ("T0|r(x)", K::Var, ""),
        ("T0|r(x)", K::Thread, "T|0"),
        ("T0|r(x)", K::Thread, ""),
        ("T0|r(x)|5", K::Location, "5|6"),
        ("T0|acq(l)", K::Lock, "l\n"),
        ("T0|begin(b)", K::Symbol, "b|"),
        ("T0|call(o.f())", K::Object, "o(1)"),
        ("T0|call(o.f())", K::Symbol, "g.h"),
        ("T0|call(o.f())", K::Symbol, "g(h"),
    ];
    for (text, kind, name) in bad {
        let r = single(text, names_with(kind, name));
        assert!(r.is_err(), "{text:?} with {kind:?} {name:?} wrote {r:?}");
    }
    // Symbols used as values must not read back as something else.
    for sym in [
        "nil", "12", "-3", "-", "a b", "a,b", "a)", "(a", "a/b", "a|b", "\"a", "",
    ] {
        let mut t = read_text("T0|call(o.f(s))").unwrap();
        let Op::Call(c) = &mut t.events[0].op else {
            unreachable!()
        };
        let id = t.names.symbols.intern(sym.as_bytes()).unwrap();
        c.args[0] = Value::Sym(SymId(id));
        let r = to_text(&t);
        assert!(r.is_err(), "symbol {sym:?} wrote {r:?}");
        // As a string it is fine.
        let Op::Call(c) = &mut t.events[0].op else {
            unreachable!()
        };
        c.args[0] = Value::Str(SymId(id));
        let text = to_text(&t).unwrap();
        let back = read_text(&text).unwrap();
        assert_eq!(render(&back), render(&t), "{text:?}");
    }
}

#[test]
fn thread_names_starting_with_a_hash_are_not_written_as_comments() {
    // `#T|r(x)` would read back as a comment line: the writer must refuse it rather than
    // silently lose the event. A `#` elsewhere is fine.
    let mut t = read_text("T0|r(x)").unwrap();
    t.names.threads = Default::default();
    t.names.threads.intern(b"#T").unwrap();
    assert!(to_text(&t).is_err());

    let t = read_text("T#0|fork(#T)|#5\nT#0|w(#x)").unwrap();
    let text = to_text(&t).unwrap();
    assert_eq!(text, "T#0|fork(#T)|#5\nT#0|w(#x)\n");
    assert_eq!(read_text(&text).unwrap().events, t.events);
}

mod never_panics {
    use hindsight_trace::{EventSource, TextReader, Validator};
    use proptest::prelude::*;

    /// Lines built from the characters that matter to the grammar, so that random input gets
    /// deep into the parser rather than failing on the first byte.
    fn line() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "T0",
                "T1",
                "|",
                "(",
                ")",
                "r",
                "w",
                "acq",
                "rel",
                "call",
                "begin",
                "end",
                "fork",
                "join",
                "snd",
                "rcv",
                "req",
                "x",
                ".",
                ",",
                "/",
                "\"",
                "\\",
                "nil",
                "-",
                "12",
                "99999999999999999999",
                " ",
                "#",
                "\u{e9}",
                "\t",
            ]),
            0..14,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Any text gives events or one error with a line number; never a panic, also through
        /// the validator.
        #[test]
        fn random_text_is_read_or_refused(lines in prop::collection::vec(line(), 0..12), raw in prop::collection::vec(any::<u8>(), 0..64)) {
            let mut text = lines.join("\n").into_bytes();
            text.extend_from_slice(&raw);
            let mut r = TextReader::new(text.as_slice());
            let mut v = Validator::new(false);
            loop {
                match r.advance() {
                    Ok(true) => {
                        if v.check(r.current(), r.position(), r.names()).is_err() {
                            break;
                        }
                    }
                    Ok(false) => {
                        let _ = v.finish(r.names());
                        break;
                    }
                    Err(e) => {
                        prop_assert!(matches!(e.pos, hindsight_trace::Position::Line(n) if n >= 1));
                        break;
                    }
                }
            }
        }
    }
}
