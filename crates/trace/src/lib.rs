//! The trace layer of hindsight: the event model, interned names, the text formats (RAPID's STD
//! format and our superset of it), the compact binary format, the formats Java users already
//! have (RoadRunner's printer logs and RAPID's binary RapidBin), a writer of traces exactly as
//! RAPID reads them, streaming validation with precise errors, and the repair of late lock
//! releases in front of it.
//!
//! This crate owns what a trace *says*. It knows nothing of happens-before, of any analysis, or
//! of how findings are reported: it hands events to whoever reads them, one at a time, and says
//! exactly where a bad one is.

pub mod arbitrary;
pub mod binary;
pub mod chunked;
pub mod error;
pub mod event;
mod fastline;
pub mod files;
pub mod generate;
pub mod lines;
pub mod names;
pub mod rapid;
pub mod rapidbin;
pub mod repair;
pub mod roadrunner;
pub mod shapes;
pub mod source;
pub mod text;
pub mod validate;

pub use binary::{BinaryReader, BinaryWriter};
pub use chunked::{ChunkConfig, ChunkedReader};
pub use error::{ErrorKind, Position, TraceError, Warning, WarningKind};
pub use event::{Call, CallRef, Event, Op, Value};
pub use files::{remove_unfinished, same_file, OutputFile};
pub use names::{LocId, LockId, MsgId, NameKind, Names, ObjId, SymId, ThreadId, VarId};
pub use rapid::{write_rapid, RapidWriter};
pub use rapidbin::{RapidBinReader, RapidBinWriter};
pub use repair::{LockHandling, LockRecordCounts, LockRecords, LockRepair};
pub use roadrunner::{RoadRunnerOptions, RoadRunnerReader, RoadRunnerWriter};
pub use source::{CallHead, EventSource, MemorySource, Step, Trace};
pub use text::{TextReader, TextWriter};
pub use validate::Validator;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The on-disk formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RAPID's STD format and our superset of it.
    Text,
    /// Our binary `.hst`.
    Binary,
    /// RoadRunner's printer log, as RAPID's `rr` parser reads it (read only).
    RoadRunner,
    /// RAPID's binary format (read only).
    RapidBin,
}

impl Format {
    /// The format a path's extension names for output: `.hst` is binary, anything else text.
    pub fn from_extension(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("hst") => Format::Binary,
            _ => Format::Text,
        }
    }

    /// The name reports give the format.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Binary => "binary",
            Format::RoadRunner => "roadrunner",
            Format::RapidBin => "rapidbin",
        }
    }
}

/// Any reader, chosen at open time; an enum rather than a trait object so that the event
/// loop is monomorphic.
pub enum AnyReader {
    Text(TextReader<Box<dyn Read + Send>>),
    Binary(BinaryReader<Box<dyn Read + Send>>),
    RoadRunner(RoadRunnerReader<Box<dyn Read + Send>>),
    RapidBin(RapidBinReader<Box<dyn Read + Send>>),
    /// Text or a RoadRunner log, its lines parsed by worker threads.
    Chunked(Box<ChunkedReader>),
}

/// Calls `$body` with the reader inside, whatever its format.
macro_rules! each {
    ($self:expr, $r:ident => $body:expr) => {
        match $self {
            AnyReader::Text($r) => $body,
            AnyReader::Binary($r) => $body,
            AnyReader::RoadRunner($r) => $body,
            AnyReader::RapidBin($r) => $body,
            AnyReader::Chunked($r) => $body,
        }
    };
}

impl AnyReader {
    pub fn format(&self) -> Format {
        match self {
            AnyReader::Text(_) => Format::Text,
            AnyReader::Binary(_) => Format::Binary,
            AnyReader::RoadRunner(_) => Format::RoadRunner,
            AnyReader::RapidBin(_) => Format::RapidBin,
            AnyReader::Chunked(r) => r.format(),
        }
    }

    /// What the reader left out of the events it read, for the formats that drop some: one
    /// line per kind, e.g. RapidBin's `branch` events.
    pub fn dropped(&self) -> Vec<String> {
        match self {
            AnyReader::RapidBin(r) if r.branches() > 0 => vec![format!(
                "{} `branch` event(s) left out: hindsight has no branch operation, and a branch orders nothing",
                r.branches()
            )],
            _ => Vec::new(),
        }
    }
}

impl EventSource for AnyReader {
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        each!(self, r => r.advance())
    }
    #[inline]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        each!(self, r => r.advance_splitting_calls(values))
    }
    #[inline]
    fn current(&self) -> &Event {
        each!(self, r => r.current())
    }
    fn position(&self) -> Position {
        each!(self, r => r.position())
    }
    fn names(&self) -> &Names {
        each!(self, r => r.names())
    }
    #[inline]
    fn names_defined(&self) -> usize {
        each!(self, r => r.names_defined())
    }
    fn take_names(&mut self) -> Names {
        each!(self, r => r.take_names())
    }
    fn held_besides_names(&self) -> (u64, u64) {
        each!(self, r => r.held_besides_names())
    }
}

/// Whether standard input is a file, which never keeps a read waiting.
fn stdin_is_file() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
            return false;
        };
        File::from(fd).metadata().is_ok_and(|m| m.is_file())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// How to open a trace: its format (sniffed when `None`), the options of RoadRunner logs, the
/// deadline past which an input that sends nothing more is given up, and how many threads
/// parse a line-based format.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    pub format: Option<Format>,
    pub roadrunner: RoadRunnerOptions,
    /// Standard input that is not a file (a pipe, a terminal) is then read on a thread of its
    /// own ([`hindsight_budget::ReadUntil`]), so that a silent writer cannot hold the run past it.
    pub deadline: Option<std::time::Instant>,
    /// Text and RoadRunner logs are parsed by this many worker threads ([`ChunkedReader`])
    /// when it is 2 or more; 0 and 1 read them in the calling thread. What is read is the
    /// same either way.
    pub parse_threads: usize,
}

/// How many bytes [`sniff`] looks at, at most.
pub const SNIFF_LEN: usize = 4096;

/// An input of another kind than a trace, told by its first bytes: the commands that read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherInput {
    /// A client history: JSON Lines, Jepsen/Knossos EDN (Porcupine's logs included), Jepsen's
    /// log.
    History,
    /// A poset file (`PID:(c1,...,cn)` lines).
    Poset,
    /// A program: Java source or the views language (`.mv`).
    Program,
}

impl OtherInput {
    /// What the input is, and the command that reads it.
    pub fn message(self) -> &'static str {
        match self {
            OtherInput::History => {
                "this looks like a history (JSON Lines, EDN or a Jepsen log), not a trace: use \
                 `hindsight lin`"
            }
            OtherInput::Poset => {
                "this looks like a poset file, not a trace: use `hindsight cuts` (with `--poset` \
                 when it comes on standard input)"
            }
            OtherInput::Program => {
                "this looks like a program (Java or the views language), not a trace: use \
                 `hindsight views` (or `hindsight composed` for Java)"
            }
        }
    }
}

/// What the first bytes of an input say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniffed {
    Trace(Format),
    Other(OtherInput),
}

/// The format of a trace that starts with `head` (up to [`SNIFF_LEN`] bytes of it); text when
/// the input is of another kind (see [`sniff_input`]).
pub fn sniff(head: &[u8]) -> Format {
    match sniff_input(head) {
        Sniffed::Trace(f) => f,
        Sniffed::Other(_) => Format::Text,
    }
}

/// What an input that starts with `head` (up to [`SNIFF_LEN`] bytes of it) is:
///
/// - `.hst` by its magic number;
/// - RapidBin by its first byte, below 8: the high byte of a big-endian thread count, which
///   RapidBin's 10-bit thread ids keep below 4, and a byte no text input starts with;
/// - a RoadRunner log by its grammar: a line of the head is an event line (`@`, spaces, one
///   of RAPID's keywords and `(`), or, before any, the first significant line is `@` and a
///   space, or one of RoadRunner's own messages (`[RR: ...]`, `[main: RoadRunner ...]`);
/// - a history when the first significant line (neither blank nor a `#` or `;` comment) opens
///   a map (`{`, `#jepsen.history.Op{`) or a vector of maps or keywords (`[{`, `[:`), or a
///   line is Jepsen's log (`jepsen.util`, or tab-separated `:invoke`/`:ok`/`:fail`/`:info`);
/// - a poset file when it is `PID:(`...;
/// - a program when it starts with `//`, `/*`, an annotation or a Java or views-language
///   declaration;
/// - text otherwise (an empty input included).
pub fn sniff_input(head: &[u8]) -> Sniffed {
    if head.starts_with(&binary::MAGIC) {
        return Sniffed::Trace(Format::Binary);
    }
    if head.first().is_some_and(|&b| b < 8) {
        return Sniffed::Trace(Format::RapidBin);
    }
    // A byte-order mark says the text is UTF-8, not which format it is.
    let head = head.strip_prefix(text::BOM).unwrap_or(head);
    let lines = || head.split(|&b| b == b'\n').map(text::trim);
    if lines().any(is_roadrunner_event) {
        return Sniffed::Trace(Format::RoadRunner);
    }
    let jepsen_log = |l: &[u8]| {
        // Jepsen's tagged operations (`#jepsen.history.Op{...}`) start like a comment.
        l.starts_with(b"#jepsen")
            || memchr::memmem::find(l, b"jepsen.util").is_some()
            || [&b"\t:invoke\t"[..], b"\t:ok\t", b"\t:fail\t", b"\t:info\t"]
                .iter()
                .any(|k| memchr::memmem::find(l, k).is_some())
    };
    if lines().any(jepsen_log) {
        return Sniffed::Other(OtherInput::History);
    }
    let first = lines().find(|l| !l.is_empty() && l[0] != b'#' && l[0] != b';');
    let Some(first) = first else {
        return Sniffed::Trace(Format::Text);
    };
    let after = |l: &[u8], n: usize| -> Option<u8> {
        l[n..].iter().copied().find(|b| !b.is_ascii_whitespace())
    };
    match first[0] {
        b'{' => return Sniffed::Other(OtherInput::History),
        b'[' if matches!(after(first, 1), Some(b'{' | b':' | b']' | b'#') | None) => {
            return Sniffed::Other(OtherInput::History)
        }
        // `@` then a space opens RoadRunner's lines; `@` then a name, a Java annotation.
        b'@' if first.get(1).is_some_and(u8::is_ascii_whitespace) => {
            return Sniffed::Trace(Format::RoadRunner)
        }
        b'@' => return Sniffed::Other(OtherInput::Program),
        // RoadRunner's own messages (`[RR: ...]`, `[main: RoadRunner Agent Loaded.]`) before
        // its first event line; any other bracket is no RoadRunner log.
        b'[' if memchr::memmem::find(first, b"RR:").is_some()
            || memchr::memmem::find(first, b"RoadRunner").is_some() =>
        {
            return Sniffed::Trace(Format::RoadRunner)
        }
        _ => {}
    }
    let digits = first.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 {
        let rest = text::trim(&first[digits..]);
        if rest.starts_with(b":") && text::trim(&rest[1..]).starts_with(b"(") {
            return Sniffed::Other(OtherInput::Poset);
        }
    }
    const PROGRAM_STARTS: [&[u8]; 9] = [
        b"//",
        b"/*",
        b"package ",
        b"import ",
        b"class ",
        b"public ",
        b"final ",
        b"abstract ",
        b"global ",
    ];
    if PROGRAM_STARTS.iter().any(|p| first.starts_with(p)) {
        return Sniffed::Other(OtherInput::Program);
    }
    Sniffed::Trace(Format::Text)
}

/// Whether `line` is one of the event lines of a RoadRunner log, as RAPID's `rr` parser
/// matches them: `@`, whitespace, a keyword, `(`.
fn is_roadrunner_event(line: &[u8]) -> bool {
    const KEYWORDS: [&[u8]; 10] = [
        b"Acquire", b"Release", b"Rd", b"ARd", b"Wr", b"AWr", b"Start", b"Join", b"Enter", b"Exit",
    ];
    let Some(rest) = line.strip_prefix(b"@") else {
        return false;
    };
    let word = text::trim(rest);
    if word.len() == rest.len() {
        return false;
    }
    KEYWORDS
        .iter()
        .any(|k| word.strip_prefix(*k).is_some_and(|r| r.starts_with(b"(")))
}

/// Opens a trace: `-` is standard input. The format is sniffed from the first bytes (see
/// [`sniff`]), so a trace is recognised whatever its name; a `.hst` file that is not binary
/// is an error rather than a text trace full of garbage.
pub fn open(path: &Path) -> Result<AnyReader, TraceError> {
    open_with(path, &OpenOptions::default())
}

/// [`open`], with the format given rather than sniffed when `options.format` says it.
pub fn open_with(path: &Path, options: &OpenOptions) -> Result<AnyReader, TraceError> {
    let io_err = |e: io::Error| TraceError::new(Position::File, ErrorKind::Io(e.to_string()));
    let mut input: Box<dyn Read + Send> = match (path.as_os_str() == "-", options.deadline) {
        (true, Some(deadline)) if !stdin_is_file() => {
            Box::new(hindsight_budget::ReadUntil::new(io::stdin(), deadline).map_err(io_err)?)
        }
        (true, _) => Box::new(io::stdin()),
        (false, _) => Box::new(File::open(path).map_err(io_err)?),
    };
    let mut head = Vec::with_capacity(SNIFF_LEN);
    match (&mut input).take(SNIFF_LEN as u64).read_to_end(&mut head) {
        Ok(_) => {}
        // The head that came is sniffed; reading on meets the deadline again, where the
        // pass takes it as its timeout.
        Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
        Err(e) => return Err(io_err(e)),
    }
    let format = match options.format {
        Some(f) => f,
        None if Format::from_extension(path) == Format::Binary => Format::Binary,
        None => match sniff_input(&head) {
            Sniffed::Trace(f) => f,
            Sniffed::Other(other) => {
                return Err(TraceError::new(
                    Position::File,
                    ErrorKind::Unsupported(other.message().to_owned()),
                ))
            }
        },
    };
    let input: Box<dyn Read + Send> = Box::new(io::Cursor::new(head).chain(input));
    let threads = options.parse_threads;
    Ok(match format {
        Format::Text if threads > 1 => AnyReader::Chunked(Box::new(ChunkedReader::text(
            input,
            ChunkConfig::with_threads(threads),
        ))),
        Format::RoadRunner if threads > 1 => {
            AnyReader::Chunked(Box::new(ChunkedReader::roadrunner(
                input,
                &options.roadrunner,
                ChunkConfig::with_threads(threads),
            )))
        }
        Format::Text => AnyReader::Text(TextReader::new(input)),
        Format::Binary => AnyReader::Binary(BinaryReader::new(input)),
        Format::RoadRunner => {
            AnyReader::RoadRunner(RoadRunnerReader::new(input, &options.roadrunner))
        }
        Format::RapidBin => AnyReader::RapidBin(RapidBinReader::new(input)),
    })
}
