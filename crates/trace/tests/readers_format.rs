//! The formats Java users already have: RapidBin and RoadRunner's printer logs. Hand-written
//! fixtures (see `fixtures/readers/README.md` for where their layout comes from and how their
//! events were reasoned), round trips of random traces, sniffing, and bad input.

mod common;

use common::arb::{self, Pools};
use common::{render, render_event, Trickle};
use hindsight_trace::rapidbin::{Header, RawEvent, HEADER_LEN};
use hindsight_trace::{
    sniff, ErrorKind, Event, Format, NameKind, Op, OpenOptions, Position, RapidBinReader,
    RapidBinWriter, RoadRunnerOptions, RoadRunnerReader, RoadRunnerWriter, SymId, Trace,
    TraceError,
};
use proptest::prelude::*;
use std::io::Cursor;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/readers")
        .join(name)
}

fn expected(name: &str) -> Vec<String> {
    std::fs::read_to_string(fixture(name))
        .expect("fixture")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The bytes a `.hex` fixture spells: hex digits, `#` comments and spaces ignored.
fn unhex(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(|l| l.bytes().filter(u8::is_ascii_hexdigit))
        .collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn read_rapidbin(bytes: &[u8]) -> Result<Trace, TraceError> {
    Trace::collect(&mut RapidBinReader::new(bytes))
}

fn read_rr(text: &str, exclude: &[&str]) -> Result<Trace, TraceError> {
    let options = RoadRunnerOptions {
        exclude: exclude.iter().map(|s| s.to_string()).collect(),
    };
    Trace::collect(&mut RoadRunnerReader::new(text.as_bytes(), &options))
}

fn rapidbin_error(bytes: &[u8]) -> TraceError {
    match read_rapidbin(bytes) {
        Ok(t) => panic!("expected an error, read {:?}", render(&t)),
        Err(e) => e,
    }
}

fn rr_error(text: &str) -> TraceError {
    match read_rr(text, &[]) {
        Ok(t) => panic!("expected an error, read {:?}", render(&t)),
        Err(e) => e,
    }
}

// ---------------------------------------------------------------------------------------------
// Fixtures

#[test]
fn rapidbin_fixtures_are_their_hex_and_read_as_reasoned() {
    for (name, branches) in [("wasmgrind", 0), ("blocks", 1)] {
        let bytes = std::fs::read(fixture(&format!("{name}.rapidbin"))).unwrap();
        let hex = std::fs::read_to_string(fixture(&format!("{name}.hex"))).unwrap();
        assert_eq!(bytes, unhex(&hex), "{name}.rapidbin is not {name}.hex");
        let mut r = RapidBinReader::new(bytes.as_slice());
        let t = Trace::collect(&mut r).unwrap();
        assert_eq!(
            render(&t),
            expected(&format!("{name}.expected.std")),
            "{name}"
        );
        assert_eq!(r.branches(), branches, "{name}");
    }
}

#[test]
fn rapidbin_fixture_header_counts_distinct_ids() {
    let bytes = std::fs::read(fixture("wasmgrind.rapidbin")).unwrap();
    let header = Header::decode(bytes[..HEADER_LEN].try_into().unwrap());
    assert_eq!(
        header,
        Header {
            threads: 4,
            locks: 1,
            variables: 1,
            events: 9
        }
    );
}

#[test]
fn roadrunner_fixture_reads_as_rapid_reads_it() {
    let text = std::fs::read_to_string(fixture("test.rr")).unwrap();
    assert_eq!(
        render(&read_rr(&text, &[]).unwrap()),
        expected("test.expected.std")
    );
    let exclude = std::fs::read_to_string(fixture("test.exclude")).unwrap();
    let patterns = RoadRunnerOptions::parse_exclude(&exclude);
    assert_eq!(patterns, vec!["java/util/".to_owned()]);
    let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
    assert_eq!(
        render(&read_rr(&text, &refs).unwrap()),
        expected("test.exclude.expected.std")
    );
}

#[test]
fn open_sniffs_both_formats() {
    for (name, format) in [
        ("wasmgrind.rapidbin", Format::RapidBin),
        ("blocks.rapidbin", Format::RapidBin),
        ("test.rr", Format::RoadRunner),
        ("test.expected.std", Format::Text),
    ] {
        let r = hindsight_trace::open(&fixture(name)).unwrap();
        assert_eq!(r.format(), format, "{name}");
    }
    // `--from` overrides the content.
    let options = OpenOptions {
        format: Some(Format::Text),
        ..OpenOptions::default()
    };
    let r = hindsight_trace::open_with(&fixture("test.rr"), &options).unwrap();
    assert_eq!(r.format(), Format::Text);
}

#[test]
fn sniffing_rules() {
    assert_eq!(sniff(b""), Format::Text);
    assert_eq!(sniff(b"T0|w(x)\n"), Format::Text);
    assert_eq!(sniff(b"# comment\n\nT0|w(x)\n"), Format::Text);
    assert_eq!(
        sniff(b"\n  \n[main: RoadRunner Agent Loaded.]\n"),
        Format::RoadRunner
    );
    assert_eq!(
        sniff(b"# c\n@  Rd(0,x)  null  A.java:1\n"),
        Format::RoadRunner
    );
    assert_eq!(sniff(&[0, 2, 0, 0]), Format::RapidBin);
    assert_eq!(sniff(&[4, 0]), Format::RapidBin);
    assert_eq!(sniff(&hindsight_trace::binary::MAGIC), Format::Binary);
}

/// Inputs of other kinds are told by their grammar, not by a leading `[`: a Knossos history
/// opens a vector of maps, RoadRunner's log has event lines (after any output of the program).
#[test]
fn inputs_of_other_kinds_are_told_apart() {
    use hindsight_trace::{sniff_input, OtherInput, Sniffed};
    let other = |k| Sniffed::Other(k);
    let cases: [(&[u8], Sniffed); 14] = [
        (
            b"[{:process 0, :type :invoke, :f :read, :value nil}\n",
            other(OtherInput::History),
        ),
        (
            b"{:process 0, :type :invoke, :f :write, :value 1}\n",
            other(OtherInput::History),
        ),
        (
            b"{\"process\":0,\"type\":\"invoke\",\"f\":\"read\"}\n",
            other(OtherInput::History),
        ),
        (
            b"; Knossos\n[\n {:process 0, :type :invoke}]\n",
            other(OtherInput::History),
        ),
        (
            b"INFO  jepsen.util - 0\t:invoke\t:read\tnil\n",
            other(OtherInput::History),
        ),
        (
            b"#jepsen.history.Op{:index 0, :type :invoke}\n",
            other(OtherInput::History),
        ),
        (b"# fig\n0:(1,0,0)\n1:(0,1,0)\n", other(OtherInput::Poset)),
        (b"// a test\nclass A { x; }\n", other(OtherInput::Program)),
        (
            b"package a;\nimport java.util.*;\n",
            other(OtherInput::Program),
        ),
        (b"@Deprecated\nclass A {}\n", other(OtherInput::Program)),
        (
            b"program output\n@   Start(0,1)\n",
            Sniffed::Trace(Format::RoadRunner),
        ),
        (
            b"[RR: Creating Fresh Meta Data]\n",
            Sniffed::Trace(Format::RoadRunner),
        ),
        (b"T0|w(x)|A.java:3\n", Sniffed::Trace(Format::Text)),
        (b"# only a comment\n", Sniffed::Trace(Format::Text)),
    ];
    for (head, want) in cases {
        assert_eq!(sniff_input(head), want, "{}", String::from_utf8_lossy(head));
    }
}

#[test]
fn readers_survive_input_in_small_pieces() {
    let bytes = std::fs::read(fixture("blocks.rapidbin")).unwrap();
    let text = std::fs::read_to_string(fixture("test.rr")).unwrap();
    for n in 1..10 {
        let mut r = RapidBinReader::new(Trickle { data: &bytes, n });
        let t = Trace::collect(&mut r).unwrap();
        assert_eq!(render(&t), expected("blocks.expected.std"), "pieces of {n}");
        let mut r = RoadRunnerReader::new(
            Trickle {
                data: text.as_bytes(),
                n,
            },
            &RoadRunnerOptions::default(),
        );
        let t = Trace::collect(&mut r).unwrap();
        assert_eq!(render(&t), expected("test.expected.std"), "pieces of {n}");
    }
}

#[test]
fn roadrunner_accepts_crlf_and_a_last_line_without_newline() {
    let t = read_rr(
        "@  Start(0,1)\r\n@   Wr(1,x)  null  A.java:1\r\n@  Join(0,1)",
        &[],
    )
    .unwrap();
    assert_eq!(render(&t), ["0|fork(1)", "1|w(x)|A.java:1", "0|join(1)"]);
}

/// A log saved with a byte-order mark: the mark is not part of the first line, which is an
/// event here (skipping the line, as a line not starting with `@`, would lose it silently), and
/// the sniffer still sees a RoadRunner log.
#[test]
fn roadrunner_skips_a_byte_order_mark() {
    let log = "@  Start(0,1)\n@   Wr(1,x)  null  A.java:1\n@  Join(0,1)\n";
    let with_bom = format!("\u{feff}{log}");
    let t = read_rr(&with_bom, &[]).unwrap();
    assert_eq!(render(&t), ["0|fork(1)", "1|w(x)|A.java:1", "0|join(1)"]);
    assert_eq!(sniff(with_bom.as_bytes()), Format::RoadRunner);
    assert_eq!(
        sniff("\u{feff}[main: RoadRunner Agent Loaded.]\n".as_bytes()),
        Format::RoadRunner
    );
    assert_eq!(sniff("\u{feff}T0|w(x)\n".as_bytes()), Format::Text);
    let dir = std::env::temp_dir().join(format!("hindsight-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bom.log");
    std::fs::write(&path, &with_bom).unwrap();
    let r = hindsight_trace::open(&path).unwrap();
    assert_eq!(r.format(), Format::RoadRunner);
    let hindsight_trace::AnyReader::RoadRunner(mut r) = r else {
        unreachable!("a RoadRunner log")
    };
    let t = Trace::collect(&mut r).unwrap();
    assert_eq!(t.events.len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Bad input: every error positioned, none a panic or an allocation from a count.

fn header(threads: u16, locks: u32, vars: u32, events: u64) -> Vec<u8> {
    let mut h = threads.to_be_bytes().to_vec();
    h.extend(locks.to_be_bytes());
    h.extend(vars.to_be_bytes());
    h.extend(events.to_be_bytes());
    h
}

fn word(thread: u64, op: u64, decor: u64, loc: u64) -> [u8; 8] {
    RawEvent {
        thread,
        op,
        decor,
        loc,
    }
    .encode()
    .to_be_bytes()
}

fn file(h: Vec<u8>, events: &[[u8; 8]]) -> Vec<u8> {
    let mut f = h;
    for e in events {
        f.extend(e);
    }
    f
}

fn corrupt_at(e: &TraceError, byte: u64, needle: &str) {
    assert_eq!(e.pos, Position::Byte(byte), "{e}");
    assert!(
        matches!(&e.kind, ErrorKind::Corrupt(m) | ErrorKind::Truncated(m) if m.contains(needle)),
        "{e} should say {needle:?}"
    );
}

#[test]
fn rapidbin_truncated_header() {
    for n in 0..HEADER_LEN {
        let e = rapidbin_error(&header(1, 0, 1, 1)[..n]);
        corrupt_at(&e, n as u64, "header has 18 bytes");
    }
}

#[test]
fn rapidbin_truncated_event() {
    let f = file(header(1, 0, 1, 2), &[word(0, 2, 0, 1), word(0, 3, 0, 1)]);
    for cut in 1..8 {
        let e = rapidbin_error(&f[..f.len() - cut]);
        corrupt_at(&e, 26, "event 1 is cut after");
    }
}

#[test]
fn rapidbin_event_count_disagreeing_with_the_body() {
    // Fewer events than declared: the end of the file is where it shows.
    let f = file(header(1, 0, 1, 3), &[word(0, 2, 0, 1), word(0, 3, 0, 1)]);
    corrupt_at(
        &rapidbin_error(&f),
        34,
        "declares 3 events, the file ends after 2",
    );
    // More: the first event past the count.
    let f = file(header(1, 0, 1, 1), &[word(0, 2, 0, 1), word(0, 3, 0, 1)]);
    corrupt_at(
        &rapidbin_error(&f),
        26,
        "event 1: the header declares 1 events",
    );
}

#[test]
fn rapidbin_id_counts_bound_the_distinct_ids() {
    // A second distinct variable under a count of one.
    let f = file(
        header(1, 0, 1, 2),
        &[word(0, 2, 200, 1), word(0, 3, 201, 1)],
    );
    corrupt_at(
        &rapidbin_error(&f),
        26,
        "variable V201 is one more than the 1 the header declares",
    );
    let f = file(header(1, 1, 0, 2), &[word(0, 0, 3, 1), word(0, 1, 4, 1)]);
    corrupt_at(&rapidbin_error(&f), 26, "lock L4 is one more than the 1");
    let f = file(header(1, 0, 0, 1), &[word(0, 4, 1, 1)]);
    corrupt_at(&rapidbin_error(&f), 18, "thread T1 is one more than the 1");
    // Fewer distinct ids than declared is accepted: the counts are bounds.
    let f = file(header(9, 9, 9, 1), &[word(0, 2, 5, 1)]);
    assert_eq!(render(&read_rapidbin(&f).unwrap()), ["T0|r(V5)|1"]);
}

#[test]
fn rapidbin_unknown_operation_code() {
    for op in 10..16 {
        let f = file(header(1, 0, 1, 2), &[word(0, 2, 0, 1), word(0, op, 0, 1)]);
        corrupt_at(
            &rapidbin_error(&f),
            26,
            &format!("event 1: unknown operation code {op}"),
        );
    }
}

#[test]
fn rapidbin_thread_operand_out_of_range() {
    let f = file(header(2, 0, 0, 1), &[word(0, 4, 1024, 1)]);
    corrupt_at(
        &rapidbin_error(&f),
        18,
        "thread id 1024 does not fit the 10 bits",
    );
}

#[test]
fn rapidbin_huge_counts_allocate_nothing() {
    // Counts at their maximum with no body: an error at once, not an allocation.
    let e = rapidbin_error(&header(0x7fff, 0x7fff_ffff, 0x7fff_ffff, u64::MAX));
    corrupt_at(
        &e,
        18,
        "declares 9223372036854775807 events, the file ends after 0",
    );
    // Sign bits are masked off, as RAPID and Wasmgrind do.
    let f = file(
        header(0x8001, 0x8000_0000, 0x8000_0001, 1 << 63 | 1),
        &[word(0, 2, 0, 1)],
    );
    assert_eq!(render(&read_rapidbin(&f).unwrap()), ["T0|r(V0)|1"]);
}

#[test]
fn roadrunner_malformed_event_lines_are_positioned_errors() {
    for (text, line, needle) in [
        (
            "[x]\n@  Rd(0 x)  null  A.java:1\n",
            2,
            "expected `Rd(THREAD,TARGET)`",
        ),
        ("@  Acquire(0,l\n", 1, "expected `Acquire(THREAD,TARGET)`"),
        ("@  Start(,1)\n", 1, "expected `Start(THREAD,TARGET)`"),
        ("@  Join(0,)\n", 1, "expected `Join(THREAD,TARGET)`"),
        ("\n\n@  Wr(0,x)  null\n", 3, "an access needs a location"),
        ("@  Wr(0,x)\n", 1, "an access needs a location"),
        ("@  Dummy(0,x)\n", 1, "`Dummy` is no event"),
    ] {
        let e = rr_error(text);
        assert_eq!(e.pos, Position::Line(line), "{text:?}: {e}");
        assert!(
            matches!(&e.kind, ErrorKind::Syntax(m) if m.contains(needle)),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn roadrunner_names_must_be_utf8() {
    let bytes = b"@  Rd(0,x\xff)  null  A.java:1\n";
    let e = Trace::collect(&mut RoadRunnerReader::new(
        &bytes[..],
        &RoadRunnerOptions::default(),
    ))
    .unwrap_err();
    assert_eq!(e, TraceError::new(Position::Line(1), ErrorKind::NotUtf8));
}

// ---------------------------------------------------------------------------------------------
// Round trips of random traces, up to what each format drops.

/// What a RapidBin file written by [`RapidBinWriter`] reads back as, one line per event:
/// hindsight's ids become the numbers, the location `n + 1` (`0` without one), labels drop.
fn as_rapidbin(t: &Trace) -> Vec<String> {
    t.events
        .iter()
        .filter(|e| {
            !matches!(
                e.op,
                Op::Send(_)
                    | Op::Receive(_)
                    | Op::Call(_)
                    | Op::AtomicLoad(_)
                    | Op::AtomicStore(_)
                    | Op::AtomicRmw(_)
            )
        })
        .map(|e| {
            let op = match &e.op {
                Op::Read(x) => format!("r(V{})", x.0),
                Op::Write(x) => format!("w(V{})", x.0),
                Op::Acquire(l) => format!("acq(L{})", l.0),
                Op::Release(l) => format!("rel(L{})", l.0),
                Op::Request(l) => format!("req(L{})", l.0),
                Op::Fork(u) => format!("fork(T{})", u.0),
                Op::Join(u) => format!("join(T{})", u.0),
                Op::Begin(_) => "begin".into(),
                Op::End => "end".into(),
                _ => unreachable!(),
            };
            let loc = e.loc.map_or(0, |l| l.0 + 1);
            format!("T{}|{op}|{loc}", e.thread.0)
        })
        .collect()
}

fn write_rapidbin(t: &Trace) -> Vec<u8> {
    let mut w = RapidBinWriter::new(Cursor::new(Vec::new())).unwrap();
    for e in &t.events {
        if !matches!(
            e.op,
            Op::Send(_)
                | Op::Receive(_)
                | Op::Call(_)
                | Op::AtomicLoad(_)
                | Op::AtomicStore(_)
                | Op::AtomicRmw(_)
        ) {
            w.write_event(e).unwrap();
        }
    }
    w.finish(&t.names).unwrap().into_inner()
}

/// Names a RoadRunner log can carry: no comma, no whitespace.
fn rr_pools() -> impl Strategy<Value = Pools> {
    arb::uniform_pools("[a-zA-Z0-9_./()\\[\\]@:$;é-]{1,7}")
}

/// The trace a RoadRunner log can hold, closest to `t`: no messages, calls or requests, every
/// block labelled (`block` when it was not), every access at a location (`nowhere` when it was
/// not), no location on other events.
fn rr_expressible(t: &Trace) -> Trace {
    let mut names = t.names.clone();
    let block = SymId(names.of_mut(NameKind::Symbol).intern(b"block").unwrap());
    let nowhere =
        hindsight_trace::LocId(names.of_mut(NameKind::Location).intern(b"nowhere").unwrap());
    let events = t
        .events
        .iter()
        .filter(|e| {
            !matches!(
                e.op,
                Op::Send(_)
                    | Op::Receive(_)
                    | Op::Call(_)
                    | Op::AtomicLoad(_)
                    | Op::AtomicStore(_)
                    | Op::AtomicRmw(_)
                    | Op::Request(_)
            )
        })
        .map(|e| {
            let (op, loc) = match &e.op {
                Op::Begin(None) => (Op::Begin(Some(block)), None),
                Op::Read(_) | Op::Write(_) => (e.op.clone(), Some(e.loc.unwrap_or(nowhere))),
                op => (op.clone(), None),
            };
            Event { op, loc, ..*e }
        })
        .collect();
    Trace { names, events }
}

fn write_rr(t: &Trace) -> String {
    let mut w = RoadRunnerWriter::new(Vec::new());
    for e in &t.events {
        w.write_event(e, &t.names).unwrap();
    }
    String::from_utf8(w.finish().unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn rapidbin_round_trips(t in arb::trace(arb::text_pools(), 60)) {
        let bytes = write_rapidbin(&t);
        let back = read_rapidbin(&bytes).unwrap();
        prop_assert_eq!(render(&back), as_rapidbin(&t));
    }

    #[test]
    fn roadrunner_round_trips(t in arb::trace(rr_pools(), 60)) {
        let t = rr_expressible(&t);
        let text = write_rr(&t);
        let back = read_rr(&text, &[]).unwrap();
        let want: Vec<String> = t.events.iter().map(|e| render_event(e, &t.names)).collect();
        prop_assert_eq!(render(&back), want);
    }

    /// Any bytes after a valid header: events or a positioned error, never a panic.
    #[test]
    fn rapidbin_never_panics(body in prop::collection::vec(any::<u8>(), 0..200), events in 0u64..30) {
        let f = file(header(3, 3, 3, events), &[]);
        let mut f = f;
        f.extend(body);
        if let Err(e) = read_rapidbin(&f) {
            prop_assert!(matches!(e.pos, Position::Byte(_)), "{}", e);
        }
    }

    /// Any text: events or an error at a line, never a panic.
    #[test]
    fn roadrunner_never_panics(text in "(@ {1,3}(A?Rd|A?Wr|Acquire|Release|Start|Join|Enter|Exit)?[(,) a-z0-9]{0,12}\n){0,8}") {
        if let Err(e) = read_rr(&text, &["x"]) {
            prop_assert!(matches!(e.pos, Position::Line(_)), "{}", e);
        }
    }
}
