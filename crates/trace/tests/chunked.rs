//! The chunked reader, whose workers parse chunks of lines apart, against the sequential
//! readers on random inputs: the same events with the same ids, the same names at every
//! event, the same positions, the same warnings from the validator, and the same first error
//! at the same line. Chunks are made small (a few bytes to a few lines) so that their
//! boundaries fall everywhere: inside names, between `\r` and `\n`, inside the byte-order mark.

use hindsight_trace::{
    ChunkConfig, ChunkedReader, Event, EventSource, NameKind, Names, Position, RoadRunnerOptions,
    RoadRunnerReader, TextReader, TraceError, Validator, Warning,
};
use proptest::prelude::*;
use std::io::{self, Read};

/// An input held in memory, handed out `step` bytes a read (a pipe), failing once `fail_at`
/// bytes have been read, if set.
struct Input {
    data: Vec<u8>,
    at: usize,
    step: usize,
    fail_at: Option<usize>,
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let end = self.fail_at.unwrap_or(self.data.len()).min(self.data.len());
        if self.at == end && self.fail_at.is_some_and(|f| f <= self.data.len()) {
            return Err(io::Error::other("the disk went away"));
        }
        let k = self.step.min(buf.len()).min(end - self.at);
        buf[..k].copy_from_slice(&self.data[self.at..self.at + k]);
        self.at += k;
        Ok(k)
    }
}

fn input(data: &[u8], step: usize, fail_at: Option<usize>) -> Input {
    Input {
        data: data.to_vec(),
        at: 0,
        step: step.max(1),
        fail_at,
    }
}

/// All names, kind by kind.
fn all_names(names: &Names) -> Vec<Vec<String>> {
    NameKind::ALL
        .iter()
        .map(|&k| names.of(k).iter().map(str::to_owned).collect())
        .collect()
}

/// What a reader hands out: per event, the event, its position and the names defined so far;
/// then the end or the error; the validator's warnings; the final names.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<(Event, Position, Vec<usize>)>,
    end: Result<(), TraceError>,
    warnings: Vec<Warning>,
    names: Vec<Vec<String>>,
}

fn outcome(source: &mut dyn EventSource) -> Outcome {
    let mut validator = Validator::new(false);
    let mut events = Vec::new();
    let end = loop {
        match source.advance() {
            Ok(true) => {
                let e = source.current().clone();
                let pos = source.position();
                let counts = NameKind::ALL
                    .iter()
                    .map(|&k| source.names().of(k).len())
                    .collect();
                if let Err(err) = validator.check(&e, pos, source.names()) {
                    break Err(err);
                }
                events.push((e, pos, counts));
            }
            Ok(false) => break validator.finish(source.names()),
            Err(e) => break Err(e),
        }
    };
    Outcome {
        events,
        end,
        warnings: validator.warnings().to_vec(),
        names: all_names(source.names()),
    }
}

/// Lines of the text format, good and bad, over few names so that they repeat.
fn text_line() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        Just("T0"),
        Just("T1"),
        Just("T2"),
        Just("x"),
        Just("y"),
        Just("a-rather-long-name-of-a-variable"),
        Just("l"),
        Just("m"),
    ];
    let op = prop_oneof![
        Just("r"),
        Just("w"),
        Just("acq"),
        Just("rel"),
        Just("req"),
        Just("fork"),
        Just("join"),
        Just("snd"),
        Just("rcv"),
        Just("aload"),
        Just("rmw"),
        Just("begin"),
    ];
    let loc = prop_oneof![Just(""), Just("|Main.java:3"), Just("|4"), Just("| 4 ")];
    prop_oneof![
        8 => (name.clone(), op, name.clone(), loc).prop_map(|(t, o, x, l)| format!("{t}|{o}({x}){l}")),
        1 => (name.clone(), name.clone()).prop_map(|(t, o)| format!("{t}|call({o}.put(1,\"v\",k)/nil)")),
        1 => name.clone().prop_map(|t| format!("{t}|end")),
        1 => Just(String::new()),
        1 => Just("# a comment".to_owned()),
        1 => Just("  ".to_owned()),
        // Bad lines: each an error at its line.
        1 => prop_oneof![
            Just("T0|frob(x)".to_owned()),
            Just("T0|r()".to_owned()),
            Just("no bar".to_owned()),
            Just("T0|r(x".to_owned()),
            Just("T0|end(x)".to_owned()),
            Just("T0|call(o.m(1)".to_owned()),
        ],
    ]
}

/// Joins lines with `\n` or `\r\n`, maybe behind a byte-order mark, maybe with a last line
/// without its end; `bad_utf8` replaces one line with a name that is not UTF-8.
fn join(
    lines: &[String],
    crlf: bool,
    bom: bool,
    last_newline: bool,
    bad_utf8: Option<usize>,
) -> Vec<u8> {
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    for (i, l) in lines.iter().enumerate() {
        if bad_utf8 == Some(i) {
            out.extend_from_slice(b"T\xFF1|r(x)");
        } else {
            out.extend_from_slice(l.as_bytes());
        }
        if i + 1 < lines.len() || last_newline {
            out.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
    }
    out
}

fn config() -> impl Strategy<Value = ChunkConfig> {
    (1usize..4, 1usize..48, 0usize..6).prop_map(|(threads, chunk_bytes, reset_names)| ChunkConfig {
        threads,
        chunk_bytes,
        reset_names,
    })
}

fn chunked_text(data: &[u8], step: usize, fail: Option<usize>, config: ChunkConfig) -> Outcome {
    let mut r = ChunkedReader::text(Box::new(input(data, step, fail)), config);
    outcome(&mut r)
}

fn sequential_text(data: &[u8], step: usize, fail: Option<usize>) -> Outcome {
    outcome(&mut TextReader::new(input(data, step, fail)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn chunked_text_reads_what_the_sequential_reader_reads(
        lines in prop::collection::vec(text_line(), 0..40),
        crlf: bool,
        bom: bool,
        last_newline: bool,
        bad_utf8 in prop::option::weighted(0.1, 0usize..40),
        step in 1usize..64,
        config in config(),
    ) {
        let data = join(&lines, crlf, bom, last_newline, bad_utf8);
        let expected = sequential_text(&data, step, None);
        prop_assert_eq!(chunked_text(&data, step, None, config), expected);
    }

    #[test]
    fn a_read_error_is_at_the_line_it_breaks(
        lines in prop::collection::vec(text_line(), 1..30),
        fail in 0usize..400,
        step in 1usize..64,
        config in config(),
    ) {
        let data = join(&lines, false, false, true, None);
        let fail = fail.min(data.len());
        let expected = sequential_text(&data, step, Some(fail));
        prop_assert_eq!(chunked_text(&data, step, Some(fail), config), expected);
    }

    #[test]
    fn chunked_roadrunner_reads_what_the_sequential_reader_reads(
        lines in prop::collection::vec(rr_line(), 0..40),
        crlf: bool,
        bom: bool,
        last_newline: bool,
        exclude: bool,
        step in 1usize..64,
        config in config(),
    ) {
        let data = join(&lines, crlf, bom, last_newline, None);
        let options = RoadRunnerOptions {
            exclude: if exclude { vec!["Lib.".to_owned()] } else { Vec::new() },
        };
        let expected = outcome(&mut RoadRunnerReader::new(input(&data, step, None), &options));
        let mut r = ChunkedReader::roadrunner(Box::new(input(&data, step, None)), &options, config);
        prop_assert_eq!(outcome(&mut r), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A log read with its event lines parsed in one pass reads as the general parser reads
    /// it (an exclude file, whose pattern no line holds, keeps every line from the one-pass
    /// parser), errors and positions included.
    #[test]
    fn roadrunner_one_pass_reads_what_the_general_parser_reads(
        lines in prop::collection::vec(rr_line(), 0..40),
        crlf: bool,
        bom: bool,
        last_newline: bool,
        step in 1usize..64,
    ) {
        let data = join(&lines, crlf, bom, last_newline, None);
        let general = RoadRunnerOptions { exclude: vec!["\u{10FFFF}".to_owned()] };
        let expected = outcome(&mut RoadRunnerReader::new(input(&data, step, None), &general));
        let one_pass = RoadRunnerOptions::default();
        prop_assert_eq!(
            outcome(&mut RoadRunnerReader::new(input(&data, step, None), &one_pass)),
            expected
        );
    }
}

/// Lines of a RoadRunner log, events and others, good and bad.
fn rr_line() -> impl Strategy<Value = String> {
    let thread = prop_oneof![Just("0"), Just("1"), Just("2")];
    let target = prop_oneof![
        Just("@01"),
        Just("null.A.x_I"),
        Just("A.f()V"),
        Just("Lib.g()V")
    ];
    let keyword = prop_oneof![
        Just("Acquire"),
        Just("Release"),
        Just("Rd"),
        Just("AWr"),
        Just("Start"),
        Just("Join"),
        Just("Enter"),
        Just("Exit"),
    ];
    prop_oneof![
        8 => (keyword, thread.clone(), target).prop_map(|(k, t, x)| format!("@   {k}({t},{x})  Final  A.java:{}:1", t.len())),
        1 => Just("[RR: Running]".to_owned()),
        1 => Just("@  main[tid = 0] started .".to_owned()),
        1 => Just("@  Rd(1 x)".to_owned()),
        1 => Just("@  Rd(1,x)".to_owned()),
        1 => Just("@  Dummy(1,x)".to_owned()),
    ]
}

/// A trace of many chunks read with threads, as the CLI reads a large file: every chunk
/// boundary of a 10,000-event trace, workers that start over with no names, and ids that stay
/// in first-appearance order.
#[test]
fn a_long_trace_in_many_chunks_keeps_first_appearance_ids() {
    let mut text = String::new();
    for i in 0..10_000u32 {
        let t = i % 7;
        let x = (i * 7919) % 1_013;
        text.push_str(&format!("T{t}|w(x{x})|L{}\n", i % 97));
    }
    let expected = sequential_text(text.as_bytes(), 1 << 16, None);
    assert_eq!(expected.events.len(), 10_000);
    for (threads, chunk_bytes, reset_names) in [(2, 4096, 1 << 20), (3, 1000, 300), (4, 64, 10)] {
        let config = ChunkConfig {
            threads,
            chunk_bytes,
            reset_names,
        };
        let got = chunked_text(text.as_bytes(), 1 << 16, None, config);
        assert!(got == expected, "{config:?}");
    }
}

/// A line of 16 MiB is refused at its line, as the sequential reader refuses it, and the lines
/// before it are read.
#[test]
fn a_line_of_16_mib_is_refused_at_its_line() {
    let mut data = b"T0|r(x)\nT0|w(x)\n".to_vec();
    data.extend(std::iter::repeat_n(b'a', 16 * 1024 * 1024));
    data.extend_from_slice(b"\nT0|r(x)\n");
    let expected = sequential_text(&data, usize::MAX, None);
    assert_eq!(expected.events.len(), 2);
    let err = expected.end.clone().expect_err("too long");
    assert_eq!(err.pos, Position::Line(3));
    let config = ChunkConfig {
        threads: 2,
        chunk_bytes: 1 << 20,
        reset_names: 1 << 20,
    };
    assert!(chunked_text(&data, usize::MAX, None, config) == expected);
    // One byte less is a line: a syntax error of its own.
    let mut data = b"T0|r(x)\n".to_vec();
    data.extend(std::iter::repeat_n(b'a', 16 * 1024 * 1024 - 1));
    data.push(b'\n');
    let expected = sequential_text(&data, usize::MAX, None);
    assert!(chunked_text(&data, usize::MAX, None, config) == expected);
}

/// Memory does not grow with the input: however long it is, at most two chunks per worker are
/// in flight, besides the one handed out and the one being read.
#[test]
fn chunks_in_flight_are_bounded() {
    let line = b"T0|w(x)|L\n";
    let data: Vec<u8> = line
        .iter()
        .copied()
        .cycle()
        .take(line.len() * 20_000)
        .collect();
    for threads in [1, 3] {
        let config = ChunkConfig {
            threads,
            chunk_bytes: 64,
            reset_names: 1 << 20,
        };
        let mut r = ChunkedReader::text(Box::new(input(&data, 1 << 16, None)), config);
        let mut n = 0;
        while r.advance().expect("valid") {
            n += 1;
        }
        assert_eq!(n, 20_000);
        assert!(r.chunks_made() <= 2 * threads + 2, "{}", r.chunks_made());
    }
}
