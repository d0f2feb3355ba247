//! The binary format: lossless round trips, compactness, and refusal of bad input.

mod common;

use common::arb;
use common::{
    binary_error, name_lists, read_binary, read_text, render, to_binary, to_text, Trickle,
};
use hindsight_rng::SplitMix64;
use hindsight_trace::binary::{MAGIC, VERSION};
use hindsight_trace::{
    BinaryReader, Call, ErrorKind, Event, EventSource, Format, Op, Position, Step, Trace,
    TraceError, Validator, Value,
};
use proptest::prelude::*;
use std::path::PathBuf;

// Record layout, from the format description in `binary.rs`.
const DEF: u8 = 0;
const END: u8 = 0x1f;
const HAS_LOC: u8 = 0x40;
const NEW_THREAD: u8 = 0x80;
const OP_READ: u8 = 1;
const OP_WRITE: u8 = 2;
const OP_CALL: u8 = 13;
const KIND_THREAD: u8 = 0;
const KIND_VAR: u8 = 1;

fn varint(mut x: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
    out
}

fn header() -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend(varint(VERSION));
    h
}

fn def(kind: u8, name: &[u8]) -> Vec<u8> {
    let mut r = vec![DEF, kind];
    r.extend(varint(name.len() as u64));
    r.extend_from_slice(name);
    r
}

fn end(count: u64) -> Vec<u8> {
    let mut r = vec![END];
    r.extend(varint(count));
    r
}

fn file(parts: &[&[u8]]) -> Vec<u8> {
    let mut f = header();
    for p in parts {
        f.extend_from_slice(p);
    }
    f
}

fn assert_same(a: &Trace, b: &Trace) {
    assert_eq!(a.events, b.events);
    assert_eq!(name_lists(&a.names), name_lists(&b.names));
}

/// A trace that uses every operation, calls with all kinds of values, labels and locations.
const SAMPLE: &str = "\
T0|fork(T1)|10
T0|fork(T2)|11
T1|req(L34)|12
T1|acq(L34)|12
T1|w(V234.23[0])|456
T1|r(x)
T1|rel(L34)|13
T2|begin(atomic)|20
T2|begin
T2|snd(m1)|21
T2|end
T2|end|22
T1|rcv(m1)
T1|call(m.put(5,7)/nil)|9
T1|call(q.size()/3)
T1|call(a.b.put(\"a,b \\\"q\\\" \\\\ \\n\",-4,sym,9223372036854775807,-9223372036854775808))
T2|call(q.poll()/\"\",nil,RED)|30
T0|join(T1)|40
T0|join(T2)
T0|w(x)|41
";

fn sample() -> Trace {
    read_text(SAMPLE).unwrap()
}

#[test]
fn text_binary_text_is_lossless() {
    let t = sample();
    let bin = to_binary(&t);
    let back = read_binary(&bin).unwrap();
    assert_same(&back, &t);
    assert_eq!(to_text(&back).unwrap(), SAMPLE);
    // Reading byte by byte gives the same.
    let trickled = Trace::collect(&mut BinaryReader::new(Trickle { data: &bin, n: 1 })).unwrap();
    assert_same(&trickled, &t);
}

#[test]
fn empty_trace_round_trips() {
    let t = Trace::default();
    let bin = to_binary(&t);
    assert_eq!(bin, file(&[&end(0)]));
    let back = read_binary(&bin).unwrap();
    assert!(back.events.is_empty());
}

#[test]
fn layout_is_as_documented() {
    let t = read_text("T0|w(x)|5\nT0|r(x)\n").unwrap();
    let expected = file(&[
        &def(KIND_THREAD, b"T0"),
        &def(KIND_VAR, b"x"),
        &def(6, b"5"),
        &[OP_WRITE | NEW_THREAD | HAS_LOC, 0, 0, 0],
        &[OP_READ, 0],
        &end(2),
    ]);
    assert_eq!(to_binary(&t), expected);
    assert_eq!(&expected[..MAGIC.len()], b"\x89HST\r\n\x1a\n");
}

#[test]
fn positions_are_record_offsets() {
    let t = read_text("T0|w(x)|5\nT0|r(x)\n").unwrap();
    let bin = to_binary(&t);
    let mut r = BinaryReader::new(&bin[..]);
    r.next_event().unwrap().unwrap();
    // The event record follows the header and three definitions.
    let first = header().len() + def(0, b"T0").len() + def(1, b"x").len() + def(6, b"5").len();
    assert_eq!(r.position(), Position::Byte(first as u64));
    r.next_event().unwrap().unwrap();
    assert_eq!(r.position(), Position::Byte(first as u64 + 4));
    assert!(r.next_event().unwrap().is_none());
}

/// RAPID-style lines: a few threads, variables named after object hashes and fields, locks, and
/// numeric source locations; many more events than names.
fn realistic_text(events: usize) -> String {
    let mut rng = SplitMix64::new(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next_u64();
    let vars: Vec<String> = (0..2000)
        .map(|i| {
            let r = next();
            format!(
                "V{}.{}[{}]",
                10_000_000 + r % 90_000_000,
                i % 40,
                (r >> 32) % 4
            )
        })
        .collect();
    let locks: Vec<String> = (0..20)
        .map(|_| format!("L{}", 10_000_000 + next() % 90_000_000))
        .collect();
    let locs: Vec<u64> = (0..400).map(|_| 100 + next() % 20_000).collect();
    let mut s = String::from("T0|fork(T1)|100\nT0|fork(T2)|101\nT0|fork(T3)|102\n");
    let mut thread = 1;
    for _ in 0..events {
        let r = next();
        if r % 5 == 0 {
            thread = 1 + (r / 5) % 3;
        }
        let op = match (r >> 8) % 10 {
            0 => format!("acq({})", locks[(r >> 16) as usize % locks.len()]),
            1 => format!("rel({})", locks[(r >> 16) as usize % locks.len()]),
            2..=5 => format!("r({})", vars[(r >> 16) as usize % vars.len()]),
            _ => format!("w({})", vars[(r >> 16) as usize % vars.len()]),
        };
        let loc = locs[(r >> 40) as usize % locs.len()];
        s.push_str(&format!("T{thread}|{op}|{loc}\n"));
    }
    s
}

#[test]
fn binary_is_at_least_four_times_smaller() {
    let text = realistic_text(50_000);
    let t = read_text(&text).unwrap();
    let bin = to_binary(&t);
    eprintln!(
        "{} events: text {} bytes, binary {} bytes ({:.2}x)",
        t.events.len(),
        text.len(),
        bin.len(),
        text.len() as f64 / bin.len() as f64
    );
    assert!(
        text.len() >= 4 * bin.len(),
        "text {} bytes, binary {} bytes ({:.2}x)",
        text.len(),
        bin.len(),
        text.len() as f64 / bin.len() as f64
    );
    let back = read_binary(&bin).unwrap();
    assert_same(&back, &t);
    assert_eq!(to_text(&back).unwrap(), text);
}

#[test]
fn empty_file() {
    let e = binary_error(b"");
    assert_eq!(e.pos, Position::Byte(0));
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
}

#[test]
fn bad_magic() {
    for bad in [
        &b"T0|w(x)|5\nT0|r(x)\n"[..],
        b"\x89HSX\r\n\x1a\n\x01\x1f\x00",
        b"\x89HST\n\x1a\n\x01\x1f\x00",
        b"not a trace at all, but long enough",
        b"x",
    ] {
        let e = binary_error(bad);
        assert_eq!(e.kind, ErrorKind::BadMagic, "{bad:?}");
        assert_eq!(e.pos, Position::Byte(0));
    }
}

#[test]
fn wrong_version() {
    let mut f = MAGIC.to_vec();
    f.extend(varint(2));
    f.extend(end(0));
    let e = binary_error(&f);
    assert_eq!(e.kind, ErrorKind::UnsupportedVersion(2, VERSION));
    assert_eq!(e.pos, Position::Byte(8));

    let mut f = MAGIC.to_vec();
    f.extend(varint(0));
    assert_eq!(
        binary_error(&f).kind,
        ErrorKind::UnsupportedVersion(0, VERSION)
    );

    let mut f = MAGIC.to_vec();
    f.extend(varint(u64::MAX));
    assert_eq!(
        binary_error(&f).kind,
        ErrorKind::UnsupportedVersion(u64::MAX, VERSION)
    );

    // A version varint that never ends, or overflows 64 bits.
    let mut f = MAGIC.to_vec();
    f.extend([0xff; 12]);
    assert!(matches!(binary_error(&f).kind, ErrorKind::Corrupt(_)));
    let mut f = MAGIC.to_vec();
    f.extend([0xff; 5]);
    assert!(matches!(binary_error(&f).kind, ErrorKind::Truncated(_)));
}

/// Streams `bytes`, returning the events read before the result.
/// Applies `edits` to `bin`: (where, byte, how), how being overwrite (0, 1), insert (2) or
/// remove (3); past the end, an overwrite or removal appends instead.
fn edit(bin: &mut Vec<u8>, edits: Vec<(prop::sample::Index, u8, u8)>) {
    for (at, byte, how) in edits {
        let i = at.index(bin.len() + 1);
        match how {
            0 | 1 if i < bin.len() => bin[i] = byte,
            2 => bin.insert(i, byte),
            _ if i < bin.len() => {
                bin.remove(i);
            }
            _ => bin.push(byte),
        }
    }
}

fn stream(bytes: &[u8]) -> (Vec<Event>, Result<(), TraceError>) {
    drain(BinaryReader::new(bytes))
}

/// The events of `r` up to its end or its first error, and how it ended.
fn drain<R: std::io::Read>(mut r: BinaryReader<R>) -> (Vec<Event>, Result<(), TraceError>) {
    let mut events = Vec::new();
    loop {
        match r.next_event() {
            Ok(Some(e)) => events.push(e.clone()),
            Ok(None) => return (events, Ok(())),
            Err(e) => return (events, Err(e)),
        }
    }
}

/// As [`drain`], through [`EventSource::advance_splitting_calls`]: calls are put back together
/// from their heads and values, which must be exactly what the call's values appended. The
/// count of names defined is checked on the way.
fn drain_split<R: std::io::Read>(mut r: BinaryReader<R>) -> (Vec<Event>, Result<(), TraceError>) {
    let mut events = Vec::new();
    // Values already there stay untouched.
    let mut values = vec![Value::Nil];
    loop {
        let before = values.len();
        match r.advance_splitting_calls(&mut values) {
            Ok(Step::End) => return (events, Ok(())),
            Ok(Step::Event) => {
                assert_eq!(
                    values.len(),
                    before,
                    "an event that is not a call appends nothing"
                );
                assert!(!matches!(r.current().op, Op::Call(_)));
                events.push(r.current().clone());
            }
            Ok(Step::Call(head)) => {
                let (args, results) = values[before..].split_at(head.args as usize);
                assert_eq!(results.len(), head.results as usize);
                let call = Call {
                    object: head.object,
                    method: head.method,
                    args: args.to_vec(),
                    results: results.to_vec(),
                };
                let e = r.current();
                events.push(Event {
                    index: e.index,
                    thread: e.thread,
                    op: Op::Call(Box::new(call)),
                    loc: e.loc,
                });
            }
            Err(e) => return (events, Err(e)),
        }
        assert_eq!(values[0], Value::Nil);
        assert_eq!(r.names_defined(), r.names().total());
    }
}

#[test]
fn every_truncation_is_an_error() {
    let t = sample();
    let bin = to_binary(&t);
    let header_len = header().len();
    for cut in 0..bin.len() {
        let prefix = &bin[..cut];
        let (events, res) = stream(prefix);
        let e = res.expect_err(&format!("a {cut}-byte prefix of {} read fine", bin.len()));
        match cut {
            0 => assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{cut}: {e}"),
            // A prefix of the magic number is not (yet) a binary trace.
            c if c < MAGIC.len() => assert!(
                matches!(e.kind, ErrorKind::Truncated(_) | ErrorKind::BadMagic),
                "{cut}: {e}"
            ),
            _ => assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{cut}: {e}"),
        }
        let Position::Byte(at) = e.pos else {
            panic!("{cut}: {e}")
        };
        assert!(at <= cut as u64, "{cut}: error at {at}");
        // What was read before the error is exactly the start of the trace.
        assert_eq!(events[..], t.events[..events.len()], "{cut}");
        if cut < header_len {
            assert!(events.is_empty());
        }
    }
    // The whole file reads.
    let (events, res) = stream(&bin);
    res.unwrap();
    assert_eq!(events, t.events);
}

#[test]
fn truncation_while_trickling_is_an_error() {
    let bin = to_binary(&sample());
    for cut in (0..bin.len()).step_by(7) {
        let r = Trace::collect(&mut BinaryReader::new(Trickle {
            data: &bin[..cut],
            n: 3,
        }));
        assert!(r.is_err(), "{cut}");
    }
}

/// Fast means without reading or allocating what the lengths claim (a terabyte's allocation
/// aborts, reading one takes hours): the 60 s bound is for that, not for the machine's speed,
/// so a loaded machine cannot fail it.
#[test]
fn huge_length_fields_fail_fast() {
    let start = std::time::Instant::now();
    // A name that claims 2^40 bytes.
    let mut def = vec![DEF, KIND_THREAD];
    def.extend(varint(1 << 40));
    def.extend(b"T0");
    let e = binary_error(&file(&[&def, &end(0)]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    assert_eq!(e.pos, Position::Byte(header().len() as u64));
    // A name that claims 16 MiB (the largest allowed) in a tiny file.
    let mut def = vec![DEF, KIND_THREAD];
    def.extend(varint(16 * 1024 * 1024));
    def.extend(b"T0");
    let e = binary_error(&file(&[&def, &end(0)]));
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    // A name length varint of u64::MAX.
    let mut def = vec![DEF, KIND_THREAD];
    def.extend(varint(u64::MAX));
    let e = binary_error(&file(&[&def, &end(0)]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    // A call that claims 2^60 arguments.
    let mut call = vec![OP_CALL | NEW_THREAD, 0, 0, 0];
    call.extend(varint(1 << 60));
    call.extend([1, 1, 1]);
    let e = binary_error(&file(&[&def_all(), &call, &end(1)]));
    assert!(
        matches!(e.kind, ErrorKind::Truncated(_) | ErrorKind::Corrupt(_)),
        "{e}"
    );
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

/// Definitions of thread 0, object 0 and symbol 0.
fn def_all() -> Vec<u8> {
    let mut d = def(KIND_THREAD, b"T0");
    d.extend(def(4, b"o"));
    d.extend(def(5, b"f"));
    d
}

#[test]
fn ids_must_be_defined_before_use() {
    // Thread id 0 before any thread is defined.
    let e = binary_error(&file(&[&[OP_READ | NEW_THREAD, 0, 0], &end(1)]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    assert_eq!(e.pos, Position::Byte(header().len() as u64));
    // An event with no thread at all.
    let e = binary_error(&file(&[&def(KIND_VAR, b"x"), &[OP_READ, 0], &end(1)]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    // A variable id not yet defined.
    let t = def(KIND_THREAD, b"T0");
    let e = binary_error(&file(&[&t, &[OP_READ | NEW_THREAD, 0, 0], &end(1)]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    assert_eq!(e.pos, Position::Byte((header().len() + t.len()) as u64));
    // Id 1 when only id 0 is defined.
    let e = binary_error(&file(&[
        &t,
        &def(KIND_VAR, b"x"),
        &[OP_READ | NEW_THREAD, 0, 1],
        &end(1),
    ]));
    assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
    // A location, a symbol value, a string value not yet defined.
    for rec in [
        vec![OP_READ | NEW_THREAD | HAS_LOC, 0, 0, 0],
        vec![OP_CALL | NEW_THREAD, 0, 0, 0, 1, 2, 5, 0],
        vec![OP_CALL | NEW_THREAD, 0, 0, 0, 0, 1, 3, 1],
    ] {
        let e = binary_error(&file(&[&def_all(), &def(KIND_VAR, b"x"), &rec, &end(1)]));
        assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{rec:?}: {e}");
    }
    // Defined, they read.
    let ok = read_binary(&file(&[
        &def_all(),
        &def(KIND_VAR, b"x"),
        &def(6, b"here"),
        &[OP_READ | NEW_THREAD | HAS_LOC, 0, 0, 0],
        &[OP_CALL, 0, 0, 1, 2, 0, 1, 3, 0],
        &end(2),
    ]))
    .unwrap();
    assert_eq!(render(&ok), ["T0|r(x)|here", "T0|call(o.f(f)/\"f\")"]);
}

#[test]
fn other_corruptions() {
    let t = def(KIND_THREAD, b"T0");
    let x = def(KIND_VAR, b"x");
    type Check = fn(&ErrorKind) -> bool;
    let cases: Vec<(Vec<u8>, Check)> = vec![
        // A name defined twice.
        (file(&[&t, &t, &end(0)]), |k| {
            matches!(k, ErrorKind::Corrupt(_))
        }),
        // An unknown name kind.
        (file(&[&def(7, b"a"), &end(0)]), |k| {
            matches!(k, ErrorKind::Corrupt(_))
        }),
        // A name that is not UTF-8.
        (file(&[&def(KIND_VAR, b"\xff"), &end(0)]), |k| {
            *k == ErrorKind::NotUtf8
        }),
        // Unknown record tags.
        (file(&[&t, &x, &[0x1e | NEW_THREAD, 0], &end(1)]), |k| {
            matches!(k, ErrorKind::Corrupt(_))
        }),
        (file(&[&t, &[NEW_THREAD, 0], &end(1)]), |k| {
            matches!(k, ErrorKind::Corrupt(_))
        }),
        // An unknown value tag.
        (
            file(&[
                &def_all(),
                &[OP_CALL | NEW_THREAD, 0, 0, 0, 1, 4, 0],
                &end(1),
            ]),
            |k| matches!(k, ErrorKind::Corrupt(_)),
        ),
        // A varint longer than 10 bytes.
        (
            file(&[
                &t,
                &x,
                &[OP_READ | NEW_THREAD, 0],
                &[0x80; 11],
                &[0],
                &end(1),
            ]),
            |k| matches!(k, ErrorKind::Corrupt(_)),
        ),
    ];
    for (bytes, check) in cases {
        let e = binary_error(&bytes);
        assert!(check(&e.kind), "{bytes:?}: {e}");
    }
}

#[test]
fn end_record() {
    let t = sample();
    let bin = to_binary(&t);
    // Bytes after the end record.
    for extra in [&[0u8][..], &[END, 0], b"garbage"] {
        let mut f = bin.clone();
        f.extend_from_slice(extra);
        let e = binary_error(&f);
        assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{e}");
        assert_eq!(e.pos, Position::Byte(bin.len() as u64));
    }
    // The end record counts a different number of events.
    let n = t.events.len() as u64;
    let body = &bin[..bin.len() - end(n).len()];
    assert_eq!(&bin[body.len()..], &end(n)[..]);
    for count in [0, n - 1, n + 1, 1 << 40] {
        let mut f = body.to_vec();
        f.extend(end(count));
        let e = binary_error(&f);
        assert!(matches!(e.kind, ErrorKind::Corrupt(_)), "{count}: {e}");
        assert_eq!(e.pos, Position::Byte(body.len() as u64));
    }
    // No end record at all.
    let e = binary_error(body);
    assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{e}");
    // Reading stops at the end record and keeps saying so.
    let mut r = BinaryReader::new(&bin[..]);
    while r.next_event().unwrap().is_some() {}
    assert!(r.next_event().unwrap().is_none());
}

fn temp_path(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("hindsight-trace-open");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{}-{name}", std::process::id()))
}

#[test]
fn open_sniffs_the_format() {
    let t = sample();
    let bin = to_binary(&t);
    for name in ["trace.hst", "trace.txt", "trace.std", "trace"] {
        let path = temp_path(name);
        std::fs::write(&path, &bin).unwrap();
        let mut r = hindsight_trace::open(&path).unwrap();
        assert_eq!(r.format(), Format::Binary, "{name}");
        assert_same(&Trace::collect(&mut r).unwrap(), &t);
        std::fs::remove_file(&path).unwrap();
    }
    for name in ["trace.txt", "trace.std", "trace"] {
        let path = temp_path(name);
        std::fs::write(&path, SAMPLE).unwrap();
        let mut r = hindsight_trace::open(&path).unwrap();
        assert_eq!(r.format(), Format::Text, "{name}");
        assert_same(&Trace::collect(&mut r).unwrap(), &t);
        std::fs::remove_file(&path).unwrap();
    }
    // Text shorter than the magic number still reads whole.
    let path = temp_path("short.txt");
    std::fs::write(&path, "T|r(x)").unwrap();
    let mut r = hindsight_trace::open(&path).unwrap();
    assert_eq!(render(&Trace::collect(&mut r).unwrap()), ["T|r(x)"]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn open_refuses_text_named_hst() {
    for (name, content) in [
        ("text.hst", SAMPLE),
        ("short.hst", "T|r(x)"),
        ("CAPS.hst", "T0|w(x)|5\n"),
    ] {
        let path = temp_path(name);
        std::fs::write(&path, content).unwrap();
        let r = Trace::collect(&mut hindsight_trace::open(&path).unwrap());
        let e = r.expect_err(name);
        assert_eq!(e.kind, ErrorKind::BadMagic, "{name}");
        std::fs::remove_file(&path).unwrap();
    }
    let e = hindsight_trace::open(&temp_path("does-not-exist.txt"))
        .err()
        .expect("a missing file is an error");
    assert_eq!(e.pos, Position::File);
    assert!(matches!(e.kind, ErrorKind::Io(_)), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Traces whose names the text format can carry survive both formats unchanged.
    #[test]
    fn round_trips(t in arb::trace(arb::text_pools(), 60)) {
        let bin = to_binary(&t);
        let from_bin = read_binary(&bin).unwrap();
        prop_assert_eq!(&from_bin.events, &t.events);
        prop_assert_eq!(name_lists(&from_bin.names), name_lists(&t.names));

        let text = to_text(&t).unwrap();
        let from_text = read_text(&text).unwrap();
        prop_assert_eq!(&from_text.events, &t.events);
        prop_assert_eq!(name_lists(&from_text.names), name_lists(&t.names));

        // text -> binary -> text
        let again = to_text(&read_binary(&to_binary(&from_text)).unwrap()).unwrap();
        prop_assert_eq!(again, text);
    }

    /// The binary format carries any UTF-8 name, read in pieces of any size.
    #[test]
    fn binary_round_trips_any_names(
        t in arb::trace(arb::any_pools(), 40),
        piece in 1usize..64,
    ) {
        let bin = to_binary(&t);
        let back = Trace::collect(&mut BinaryReader::new(Trickle { data: &bin, n: piece }))
            .unwrap();
        prop_assert_eq!(&back.events, &t.events);
        prop_assert_eq!(name_lists(&back.names), name_lists(&t.names));
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Corrupted files give an event stream or an error, never a panic; whatever they give
    /// names only defined names.
    #[test]
    fn mutations_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..6),
    ) {
        let mut bin = to_binary(&sample());
        edit(&mut bin, edits);
        let mut r = BinaryReader::new(&bin[..]);
        let mut v = Validator::new(false);
        loop {
            match r.advance() {
                Ok(true) => {
                    // Rendering resolves every id: an undefined one would panic.
                    let _ = common::render_event(r.current(), r.names());
                    if v.check(r.current(), r.position(), r.names()).is_err() {
                        break;
                    }
                }
                Ok(false) => {
                    let _ = v.finish(r.names());
                    break;
                }
                Err(e) => {
                    let Position::Byte(at) = e.pos else {
                        panic!("{e}")
                    };
                    prop_assert!(at <= bin.len() as u64);
                    break;
                }
            }
        }
    }

    /// Any prefix of a random valid file is an error.
    #[test]
    fn random_truncations_are_errors(
        t in arb::trace(arb::text_pools(), 20),
        cut in any::<prop::sample::Index>(),
    ) {
        let bin = to_binary(&t);
        let cut = cut.index(bin.len());
        prop_assert!(read_binary(&bin[..cut]).is_err());
    }
}

/// Reads `bytes` to its end or its first error, `piece` bytes at a time.
fn stream_in_pieces(bytes: &[u8], piece: usize) -> (Vec<Event>, Result<(), TraceError>) {
    drain(BinaryReader::new(Trickle {
        data: bytes,
        n: piece,
    }))
}

/// Reading `bin` at once, `piece` bytes at a time, and with calls split
/// (`advance_splitting_calls`) at once and `split_piece` bytes at a time, gives the same
/// events and the same end.
fn readings_agree(bin: &[u8], piece: usize, split_piece: usize) -> Result<(), TestCaseError> {
    let (fast, fast_end) = stream(bin);
    let (exact, exact_end) = stream_in_pieces(bin, piece);
    prop_assert_eq!(&fast, &exact);
    prop_assert_eq!(&fast_end, &exact_end);
    for split_piece in [bin.len().max(1), split_piece] {
        let (split, split_end) = drain_split(BinaryReader::new(Trickle {
            data: bin,
            n: split_piece,
        }));
        prop_assert_eq!(&split, &fast);
        prop_assert_eq!(&split_end, &fast_end);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// The reader decodes a record whole in its buffer by a fast path and any other by an
    /// exact one: read at once (almost every record the fast way) or a byte at a time (almost
    /// every record the exact way), any file, corrupt or not, gives the same events and the
    /// same error, at the same byte.
    #[test]
    fn fast_and_exact_decoding_agree(
        // Small bytes are the tags, kinds, counts and ids the decoder dispatches on.
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), prop_oneof![0u8..20, any::<u8>()], 0u8..4),
            0..4,
        ),
        piece in 1usize..3,
        // Large enough that the fast path sees whole calls whose location is cut.
        split_piece in 1usize..40,
    ) {
        let mut bin = to_binary(&sample());
        edit(&mut bin, edits);
        readings_agree(&bin, piece, split_piece)?;
    }
}

/// Definitions of two names of every kind.
fn def_two_of_each() -> Vec<u8> {
    let mut d = Vec::new();
    for kind in 0..7 {
        d.extend(def(kind, b"a"));
        d.extend(def(kind, b"b"));
    }
    d
}

/// A value as the format writes it, or nearly: tag 4 is unknown, symbol 2 undefined, and an
/// integer may take several bytes.
fn near_value() -> impl Strategy<Value = Vec<u8>> {
    (0u8..5, 0u8..3, any::<u64>(), any::<bool>()).prop_map(|(tag, id, int, long)| {
        let mut v = vec![tag];
        match tag {
            0 => v.extend(varint(if long { int } else { int % 128 })),
            2 | 3 => v.push(id),
            _ => {}
        }
        v
    })
}

/// A record that is often an event, and often almost one: an operation code with random
/// flags and operands shaped as the format has them, small ids (0 and 1 are defined, 2 is
/// not), and now and then a byte replaced or the record cut.
fn near_record() -> impl Strategy<Value = Vec<u8>> {
    let values = || prop::collection::vec(near_value(), 0..4);
    (
        (1u8..14, any::<bool>(), any::<bool>()),
        prop::collection::vec(0u8..3, 4),
        values(),
        values(),
        prop_oneof![
            6 => Just(None),
            1 => (any::<prop::sample::Index>(), any::<u8>(), any::<bool>()).prop_map(Some),
        ],
    )
        .prop_map(|((code, loc, new), ids, args, results, damage)| {
            let mut r =
                vec![code | if loc { HAS_LOC } else { 0 } | if new { NEW_THREAD } else { 0 }];
            if new {
                r.push(ids[0]);
            }
            match code {
                8 | 10 => {}
                13 => {
                    r.extend([ids[1], ids[2]]);
                    for list in [&args, &results] {
                        r.extend(varint(list.len() as u64));
                        r.extend(list.iter().flatten());
                    }
                }
                _ => r.push(ids[1]),
            }
            if loc {
                r.push(ids[3]);
            }
            if let Some((at, byte, cut)) = damage {
                let i = at.index(r.len());
                if cut {
                    r.truncate(i);
                } else {
                    r[i] = byte;
                }
            }
            r
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    /// As above, on files of near-events, most of which the fast path must refuse or read
    /// exactly as the exact path does.
    #[test]
    fn fast_and_exact_decoding_agree_on_near_events(
        records in prop::collection::vec(near_record(), 1..30),
        count in prop_oneof![Just(None), (0u64..40).prop_map(Some)],
        piece in 1usize..3,
        // Large enough that the fast path sees whole calls whose location is cut.
        split_piece in 1usize..40,
    ) {
        let mut bin = file(&[&def_two_of_each()]);
        for r in &records {
            bin.extend_from_slice(r);
        }
        if let Some(count) = count {
            bin.extend(end(count));
        }
        readings_agree(&bin, piece, split_piece)?;
    }
}
