//! Writing traces that RAPID reads, so that RAPID and hindsight can run on the same trace.
//!
//! RAPID (`parse/std/Parse.java` and `ParseStandard.java` in focs-lab/rapid) reads one event per
//! line. It splits the line at every `|` and needs exactly three fields: the thread, the
//! operation and the location, which it parses as a Java `int`. An operation starting with
//! `begin` or `end` opens or closes an atomic block; any other must be `acq(l)`, `rel(l)`,
//! `r(x)`, `w(x)`, `fork(t)` or `join(t)`, whose operand is one or more characters that are not
//! whitespace. RAPID reports a line it cannot parse and goes on with the previous line's event
//! in its place, so a line it cannot read gives it a different trace rather than an error: the
//! writer refuses every event it cannot write as a line RAPID reads back as that same event.
//!
//! What [`RapidWriter`] writes:
//!
//! - every event as `THREAD|OP|N`, where `N` numbers the event's location: locations are
//!   numbered 1, 2, 3, ... in the order of their first use, and an event without a location
//!   gets [`NO_LOCATION`] (0);
//! - to a second output, the location map: one line `N<TAB>LOCATION` per location, in the
//!   order of their numbers (no line for 0), so that RAPID's findings can be read back in
//!   terms of the original locations;
//! - `req(l)`: nothing. RAPID has no lock requests, and a request orders nothing;
//! - `begin(label)` as `begin`: RAPID's atomic blocks have no labels.
//!
//! What it refuses, with a message naming the event (see [`write_rapid`] for where):
//!
//! - `snd`, `rcv` and `call`: RAPID has no messages and no method calls, and a trace without
//!   them orders (or means) something else;
//! - a thread, variable or lock name that is empty, or holds a `|` or a whitespace character
//!   (any Unicode `White_Space`, which covers Java's `\s`);
//! - a thread name starting with `#`: RAPID would read it, but hindsight's own reader takes
//!   such a line for a comment, and the output is meant for both;
//! - a location holding a line break (the map has one location per line);
//! - more than `i32::MAX` distinct locations (RAPID's locations are Java `int`s).
//!
//! Names are written as UTF-8; RAPID reads them in the platform's default charset, which is
//! UTF-8 from Java 18 on.

use crate::error::{ErrorKind, TraceError};
use crate::event::{Event, Op};
use crate::names::Names;
use crate::source::EventSource;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The location number of an event that has no location.
pub const NO_LOCATION: u32 = 0;

/// Where the location map of a RAPID trace written to `output` goes: the same path with
/// `.locations` appended (`trace.std` -> `trace.std.locations`).
pub fn locations_path(output: &Path) -> PathBuf {
    let mut path = output.as_os_str().to_owned();
    path.push(".locations");
    PathBuf::from(path)
}

/// Why an event was not written.
#[derive(Debug, thiserror::Error)]
pub enum RapidError {
    /// RAPID cannot read the event as it is; the message says why.
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes events in RAPID's STD format to `out` and the location map to `locations`.
pub struct RapidWriter<W: Write, M: Write> {
    out: W,
    locations: M,
    /// The number of each location, by location id; [`NO_LOCATION`] while it has none.
    numbers: Vec<u32>,
    /// The last number given.
    last: u32,
}

/// What [`write_rapid`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RapidSummary {
    /// Events written.
    pub written: u64,
    /// `req` events left out.
    pub dropped: u64,
    /// Lines of the location map.
    pub locations: u32,
}

impl<W: Write, M: Write> RapidWriter<W, M> {
    pub fn new(out: W, locations: M) -> RapidWriter<W, M> {
        RapidWriter {
            out,
            locations,
            numbers: Vec::new(),
            last: NO_LOCATION,
        }
    }

    /// Writes one event: `Ok(true)` when written, `Ok(false)` when left out (a `req`). A
    /// refused event writes nothing.
    pub fn write_event(&mut self, e: &Event, names: &Names) -> Result<bool, RapidError> {
        let (keyword, operand) = match e.op {
            Op::Read(x) => ("r", Some(names.var(x))),
            Op::Write(x) => ("w", Some(names.var(x))),
            Op::Acquire(l) => ("acq", Some(names.lock(l))),
            Op::Release(l) => ("rel", Some(names.lock(l))),
            Op::Fork(t) => ("fork", Some(names.thread(t))),
            Op::Join(t) => ("join", Some(names.thread(t))),
            Op::Begin(_) => ("begin", None),
            Op::End => ("end", None),
            Op::Request(_) => return Ok(false),
            Op::Send(_) | Op::Receive(_) => {
                return Err(unsupported(e, names, "RAPID's STD format has no messages"))
            }
            Op::Call(_) => {
                return Err(unsupported(
                    e,
                    names,
                    "RAPID's STD format has no method calls",
                ))
            }
            // Refused rather than lowered: as `r`/`w` RAPID would report atomics as races,
            // and left out its atomicity checkers would lose accesses.
            Op::AtomicLoad(_) | Op::AtomicStore(_) | Op::AtomicRmw(_) => {
                return Err(unsupported(
                    e,
                    names,
                    "RAPID's STD format has no atomic accesses (as `r`/`w` RAPID would report them as data races)",
                ))
            }
        };
        let thread = names.thread(e.thread);
        check_name("thread", thread)?;
        if thread.starts_with('#') {
            return Err(RapidError::Unsupported(format!(
                "thread name {thread:?} starts with `#`: hindsight would read the line as a comment"
            )));
        }
        if let Some(operand) = operand {
            check_name(operand_kind(&e.op), operand)?;
        }
        let number = self.number(e, names)?;
        match operand {
            Some(operand) => writeln!(self.out, "{thread}|{keyword}({operand})|{number}")?,
            None => writeln!(self.out, "{thread}|{keyword}|{number}")?,
        }
        Ok(true)
    }

    /// The number of `e`'s location, given (and written to the map) at its first use.
    fn number(&mut self, e: &Event, names: &Names) -> Result<u32, RapidError> {
        let Some(loc) = e.loc else {
            return Ok(NO_LOCATION);
        };
        let i = loc.index();
        if let Some(&n) = self.numbers.get(i) {
            if n != NO_LOCATION {
                return Ok(n);
            }
        }
        let name = names.location(loc);
        if name.contains(['\n', '\r']) {
            return Err(RapidError::Unsupported(format!(
                "location {name:?} holds a line break, which the location map cannot hold"
            )));
        }
        if self.last >= i32::MAX as u32 {
            return Err(RapidError::Unsupported(format!(
                "more than {} distinct locations: RAPID's locations are 32-bit integers",
                i32::MAX
            )));
        }
        self.last += 1;
        if self.numbers.len() <= i {
            self.numbers.resize(i + 1, NO_LOCATION);
        }
        self.numbers[i] = self.last;
        writeln!(self.locations, "{}\t{name}", self.last)?;
        Ok(self.last)
    }

    /// Flushes both outputs and hands them back.
    pub fn finish(mut self) -> io::Result<(W, M)> {
        self.out.flush()?;
        self.locations.flush()?;
        Ok((self.out, self.locations))
    }
}

fn operand_kind(op: &Op) -> &'static str {
    match op {
        Op::Read(_) | Op::Write(_) => "variable",
        Op::Acquire(_) | Op::Release(_) => "lock",
        _ => "thread",
    }
}

fn unsupported(e: &Event, names: &Names, why: &str) -> RapidError {
    RapidError::Unsupported(format!(
        "`{}|{}`: {why}, so RAPID cannot read this trace",
        names.thread(e.thread),
        e.display_op(names)
    ))
}

/// Whether RAPID reads `name` as itself in every field it can stand in.
fn check_name(kind: &str, name: &str) -> Result<(), RapidError> {
    let why = if name.is_empty() {
        "is empty"
    } else if name.contains('|') {
        "holds `|`, which separates RAPID's fields"
    } else if name.contains(char::is_whitespace) {
        "holds whitespace, which RAPID does not read in a name"
    } else {
        return Ok(());
    };
    Err(RapidError::Unsupported(format!(
        "{kind} name {name:?} {why}"
    )))
}

/// Why [`write_rapid`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteRapidError {
    /// The input could not be read, or holds an event RAPID cannot read (an
    /// [`ErrorKind::Unsupported`] at that event's position in the input).
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// An output could not be written.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes every event of `source` in RAPID's STD format to `out`, and the location map to
/// `locations`. Stops at the first event it cannot write, with an error at that event's
/// position in the input; what was written before it stays written.
pub fn write_rapid<S, W, M>(
    source: &mut S,
    out: W,
    locations: M,
) -> Result<RapidSummary, WriteRapidError>
where
    S: EventSource + ?Sized,
    W: Write,
    M: Write,
{
    let mut writer = RapidWriter::new(out, locations);
    let mut summary = RapidSummary::default();
    while source.advance()? {
        match writer.write_event(source.current(), source.names()) {
            Ok(true) => summary.written += 1,
            Ok(false) => summary.dropped += 1,
            Err(RapidError::Unsupported(why)) => {
                return Err(TraceError::new(source.position(), ErrorKind::Unsupported(why)).into())
            }
            Err(RapidError::Io(e)) => return Err(e.into()),
        }
    }
    summary.locations = writer.last;
    writer.finish()?;
    Ok(summary)
}
