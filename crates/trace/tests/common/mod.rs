//! Helpers shared by the integration tests of the trace crate.
#![allow(dead_code)]

pub mod arb;
pub mod rapid_std;

use hindsight_trace::{
    BinaryReader, BinaryWriter, Event, EventSource, Names, Position, TextReader, TextWriter, Trace,
    TraceError, Validator,
};
use std::io::{self, Read};

/// Reads a whole text trace held in memory.
pub fn read_text(text: &str) -> Result<Trace, TraceError> {
    read_text_bytes(text.as_bytes())
}

pub fn read_text_bytes(bytes: &[u8]) -> Result<Trace, TraceError> {
    Trace::collect(&mut TextReader::new(bytes))
}

/// Reads a whole binary trace held in memory.
pub fn read_binary(bytes: &[u8]) -> Result<Trace, TraceError> {
    Trace::collect(&mut BinaryReader::new(bytes))
}

/// The error a text trace must give.
pub fn text_error(text: &str) -> TraceError {
    match read_text(text) {
        Ok(t) => panic!(
            "expected an error for {text:?}, read {} events: {:?}",
            t.events.len(),
            render(&t)
        ),
        Err(e) => e,
    }
}

/// The error a binary trace must give.
pub fn binary_error(bytes: &[u8]) -> TraceError {
    match read_binary(bytes) {
        Ok(t) => panic!(
            "expected an error for {} bytes, read {} events",
            bytes.len(),
            t.events.len()
        ),
        Err(e) => e,
    }
}

pub fn to_text(trace: &Trace) -> io::Result<String> {
    let mut w = TextWriter::new(Vec::new());
    for e in &trace.events {
        w.write_event(e, &trace.names)?;
    }
    Ok(String::from_utf8(w.finish()?).expect("the text writer writes UTF-8"))
}

pub fn to_binary(trace: &Trace) -> Vec<u8> {
    let mut w = BinaryWriter::new(Vec::new()).unwrap();
    for e in &trace.events {
        w.write_event(e, &trace.names).unwrap();
    }
    w.finish().unwrap()
}

/// One line per event, names resolved: `T1|w(x)|5`.
pub fn render(trace: &Trace) -> Vec<String> {
    trace
        .events
        .iter()
        .map(|e| render_event(e, &trace.names))
        .collect()
}

pub fn render_event(e: &Event, names: &Names) -> String {
    let mut s = format!("{}|{}", names.thread(e.thread), e.display_op(names));
    if let Some(l) = e.loc {
        s.push('|');
        s.push_str(names.location(l));
    }
    s
}

/// Every id space as a list of names, in id order.
pub fn name_lists(names: &Names) -> Vec<Vec<String>> {
    hindsight_trace::NameKind::ALL
        .iter()
        .map(|&k| names.of(k).iter().map(str::to_owned).collect())
        .collect()
}

/// A reader that hands out at most `n` bytes per call, to exercise refills.
pub struct Trickle<'a> {
    pub data: &'a [u8],
    pub n: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

/// The outcome of validating a text trace the way the CLI does.
pub struct Validated {
    pub result: Result<(), TraceError>,
    pub validator: Validator,
    pub names: Names,
}

/// Streams a text trace through a [`Validator`]: `check` per event with the reader's position
/// and names, then `finish`.
pub fn validate(text: &str, strict: bool) -> Validated {
    let mut reader = TextReader::new(text.as_bytes());
    let mut validator = Validator::new(strict);
    let result = (|| {
        while reader.advance()? {
            let pos: Position = reader.position();
            validator.check(reader.current(), pos, reader.names())?;
        }
        validator.finish(reader.names())
    })();
    Validated {
        result,
        validator,
        names: reader.take_names(),
    }
}
