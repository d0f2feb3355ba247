//! RoadRunner's printer logs, read the way RAPID's `rr` parser reads them
//! (`src/parse/rr/Parse.java` and `src/parse/rr/ParseRoadRunner.java` in focs-lab/rapid).
//!
//! RoadRunner (Flanagan & Freund) run with RAPID's `PrintSubsetTool` (`-tool=PS`, in
//! `notes/PrintSubsetTool.java.txt` of the same repository) prints one line per event, prefixed
//! by `@` and an indentation that grows with the method nesting:
//!
//! ```text
//! @  Enter(0,test/Test.main([Ljava/lang/String;)V) from null
//! @   Start(0,1)
//! @    Acquire(1,@03)
//! @     Wr(1,null.test/Test.x_I)  Final  Test.java:12:5
//! @    ARd(2,@1a2b[0])  null  Test.java:20:9
//! ```
//!
//! RAPID matches each line against
//! `^@\s+(Acquire|Release|A?Rd|A?Wr|Start|Join|Enter|Exit|Dummy)\(([^,\s]+),([^,\s]+)\)(\s+)?([^,\s]+)?(\s+)?([^,\s]+)?`:
//! the thread is the text before the first comma, the target the longest run of characters
//! that are neither commas nor whitespace, up to its last `)`, and an access's location the
//! second word after it (the first is RoadRunner's shadow state). This reader does the same,
//! byte for byte:
//!
//! | line | event |
//! |---|---|
//! | `Rd(t,x) S L`, `ARd(t,x) S L` | `t` reads `x` at `L` |
//! | `Wr(t,x) S L`, `AWr(t,x) S L` | `t` writes `x` at `L` |
//! | `Acquire(t,l)`, `Release(t,l)` | `acq(l)`, `rel(l)` |
//! | `Start(t,u)`, `Join(t,u)` | `fork(u)`, `join(u)` |
//! | `Enter(t,m)`, `Exit(t,m)` | `begin(m)`, `end`: a method is an atomic block, labelled with the method |
//!
//! Other lines are skipped, as RAPID skips them: lines not starting with `@` (RoadRunner's own
//! messages, the program's output), `@` lines whose first word is not one of the keywords
//! followed by `(` (thread creation notices, volatile accesses `VRd`/`VWr`), and `Enter`/`Exit`
//! lines that contain one of the excluded patterns (RAPID's exclude file: one plain substring
//! per line, matched anywhere in the line, which keeps library methods out of the blocks; a
//! blank pattern, which would exclude every method, is ignored). Names are kept as RoadRunner
//! prints them: threads are RoadRunner's numbers (`0`, `1`, ...).
//!
//! Where hindsight differs from RAPID, it refuses rather than guesses: a line that starts like
//! an event but does not match the rest (RAPID skips it silently, losing, say, an access
//! without a location) is an error at its line, and so is `Dummy` (on which RAPID stops with an
//! exception).

use crate::error::{ErrorKind, Position, TraceError};
use crate::event::{Event, Op};
use crate::fastline;
use crate::lines::LineBuf;
use crate::names::{LocId, LockId, NameKind, NameSink, Names, NotUtf8, SymId, ThreadId, VarId};
use crate::source::EventSource;
use crate::text::LineEvent;
use memchr::memmem;
use std::io::{self, Read, Write};
use std::sync::Arc;

/// What RAPID's `rr` parser takes besides the log.
#[derive(Clone, Debug, Default)]
pub struct RoadRunnerOptions {
    /// Patterns of RAPID's exclude file: an `Enter`/`Exit` line holding one is skipped.
    pub exclude: Vec<String>,
}

impl RoadRunnerOptions {
    /// The patterns of an exclude file's text, one per line (blank lines ignored).
    pub fn parse_exclude(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// The keywords RAPID's regular expression accepts, with what they become.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keyword {
    Acquire,
    Release,
    Read,
    Write,
    Start,
    Join,
    Enter,
    Exit,
    Dummy,
}

const KEYWORDS: [(&[u8], Keyword); 11] = [
    (b"Acquire(", Keyword::Acquire),
    (b"Release(", Keyword::Release),
    (b"Rd(", Keyword::Read),
    (b"ARd(", Keyword::Read),
    (b"Wr(", Keyword::Write),
    (b"AWr(", Keyword::Write),
    (b"Start(", Keyword::Start),
    (b"Join(", Keyword::Join),
    (b"Enter(", Keyword::Enter),
    (b"Exit(", Keyword::Exit),
    (b"Dummy(", Keyword::Dummy),
];

/// Java's `\s`.
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A character of `[^,\s]`.
#[inline]
fn is_word(b: u8) -> bool {
    b != b',' && !is_space(b)
}

/// Reads a RoadRunner log from any byte stream, in fixed-size chunks.
pub struct RoadRunnerReader<R> {
    lines: LineBuf<R>,
    line: u64,
    next_index: u64,
    names: Names,
    slot: Event,
    parser: RoadRunnerLines,
}

/// The parser of a RoadRunner log's lines, whoever reads them: the sequential
/// [`RoadRunnerReader`], or the workers of `crate::chunked`, each with names of its own.
#[derive(Clone)]
pub(crate) struct RoadRunnerLines {
    /// `None` without patterns: most logs are read without an exclude file. Shared by the
    /// workers that parse a log's chunks.
    exclude: Option<Arc<Exclusion>>,
}

impl RoadRunnerLines {
    pub(crate) fn new(options: &RoadRunnerOptions) -> RoadRunnerLines {
        RoadRunnerLines {
            exclude: Exclusion::new(&options.exclude),
        }
    }
}

/// RAPID's exclusion: an `Enter(`/`Exit(` line holding one of the patterns.
struct Exclusion {
    patterns: Vec<memmem::Finder<'static>>,
    enter: memmem::Finder<'static>,
    exit: memmem::Finder<'static>,
}

impl Exclusion {
    fn new(patterns: &[String]) -> Option<Arc<Exclusion>> {
        let patterns: Vec<_> = patterns
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| memmem::Finder::new(p.as_bytes()).into_owned())
            .collect();
        (!patterns.is_empty()).then(|| {
            Arc::new(Exclusion {
                patterns,
                enter: memmem::Finder::new(b"Enter(").into_owned(),
                exit: memmem::Finder::new(b"Exit(").into_owned(),
            })
        })
    }

    fn excludes(&self, line: &[u8]) -> bool {
        (self.enter.find(line).is_some() || self.exit.find(line).is_some())
            && self.patterns.iter().any(|p| p.find(line).is_some())
    }
}

fn syntax(line: u64, msg: impl Into<String>) -> TraceError {
    TraceError::new(Position::Line(line), ErrorKind::Syntax(msg.into()))
}

impl<R: Read> RoadRunnerReader<R> {
    pub fn new(input: R, options: &RoadRunnerOptions) -> RoadRunnerReader<R> {
        RoadRunnerReader {
            lines: LineBuf::new(input),
            line: 0,
            next_index: 0,
            names: Names::default(),
            slot: Event::new(0, ThreadId(0), Op::End),
            parser: RoadRunnerLines::new(options),
        }
    }
}

/// The parts of an event line, borrowed from it.
struct Parts<'l> {
    keyword: Keyword,
    thread: &'l [u8],
    target: &'l [u8],
    location: Option<&'l [u8]>,
}

/// Splits a line the way RAPID's regular expression does: `Ok(None)` for a line RAPID skips,
/// an error for one that starts like an event and breaks off.
fn split(line: &[u8]) -> Result<Option<Parts<'_>>, String> {
    let Some(rest) = line.strip_prefix(b"@") else {
        return Ok(None);
    };
    let spaces = rest.iter().take_while(|&&b| is_space(b)).count();
    if spaces == 0 {
        return Ok(None);
    }
    let rest = &rest[spaces..];
    let Some(&(word, keyword)) = KEYWORDS.iter().find(|(k, _)| rest.starts_with(k)) else {
        return Ok(None);
    };
    // Built only for an error: a line that parses costs no allocation.
    let broken = || {
        let name = String::from_utf8_lossy(&word[..word.len() - 1]);
        format!("expected `{name}(THREAD,TARGET)`")
    };
    let rest = &rest[word.len()..];
    let thread_len = rest.iter().take_while(|&&b| is_word(b)).count();
    if thread_len == 0 || rest.get(thread_len) != Some(&b',') {
        return Err(broken());
    }
    let thread = &rest[..thread_len];
    let rest = &rest[thread_len + 1..];
    let run = rest.iter().take_while(|&&b| is_word(b)).count();
    // The target is greedy: it ends at the last `)` of the run, which must leave it a byte.
    let Some(close) = rest[..run]
        .iter()
        .rposition(|&b| b == b')')
        .filter(|&p| p > 0)
    else {
        return Err(broken());
    };
    let target = &rest[..close];
    let mut rest = &rest[close + 1..];
    let mut word = || {
        let spaces = rest.iter().take_while(|&&b| is_space(b)).count();
        rest = &rest[spaces..];
        let n = rest.iter().take_while(|&&b| is_word(b)).count();
        let w = &rest[..n];
        rest = &rest[n..];
        (n > 0).then_some(w)
    };
    let _shadow = word();
    let location = word();
    Ok(Some(Parts {
        keyword,
        thread,
        target,
        location,
    }))
}

impl RoadRunnerLines {
    /// Whether lines of the common shape may be parsed by `fastline::parse_roadrunner_line`:
    /// not with an exclude file, whose patterns are matched against the whole line.
    #[inline]
    pub(crate) fn one_pass(&self) -> bool {
        self.exclude.is_none()
    }

    fn excluded(&self, line: &[u8]) -> bool {
        self.exclude.as_ref().is_some_and(|x| x.excludes(line))
    }

    /// The event of line number `line` (its bytes without the `\n`), its names interned into
    /// `names`; `None` for a line RAPID skips. `first` says it is the input's first line,
    /// which may open with a byte-order mark.
    #[inline]
    pub(crate) fn parse<N: NameSink>(
        &mut self,
        raw: &[u8],
        line_no: u64,
        first: bool,
        names: &mut N,
    ) -> Result<Option<LineEvent>, TraceError> {
        let mut line = raw;
        // A byte-order mark (a log saved by a Windows editor) is not part of the first line.
        if first {
            line = line.strip_prefix(crate::text::BOM).unwrap_or(line);
        }
        // Java's `readLine` ends a line at `\r\n` too.
        if let [rest @ .., b'\r'] = line {
            line = rest;
        }
        if line.first() != Some(&b'@') || self.excluded(line) {
            return Ok(None);
        }
        let parts = match split(line) {
            Ok(Some(parts)) => parts,
            Ok(None) => return Ok(None),
            Err(msg) => return Err(syntax(line_no, msg)),
        };
        let mut intern = |kind: NameKind, bytes: &[u8]| {
            names
                .intern(kind, bytes)
                .map_err(|NotUtf8| TraceError::new(Position::Line(line_no), ErrorKind::NotUtf8))
        };
        let target = parts.target;
        let thread = ThreadId(intern(NameKind::Thread, parts.thread)?);
        let op = match parts.keyword {
            Keyword::Acquire => Op::Acquire(LockId(intern(NameKind::Lock, target)?)),
            Keyword::Release => Op::Release(LockId(intern(NameKind::Lock, target)?)),
            Keyword::Read => Op::Read(VarId(intern(NameKind::Var, target)?)),
            Keyword::Write => Op::Write(VarId(intern(NameKind::Var, target)?)),
            Keyword::Start => Op::Fork(ThreadId(intern(NameKind::Thread, target)?)),
            Keyword::Join => Op::Join(ThreadId(intern(NameKind::Thread, target)?)),
            Keyword::Enter => Op::Begin(Some(SymId(intern(NameKind::Symbol, target)?))),
            Keyword::Exit => Op::End,
            Keyword::Dummy => {
                return Err(syntax(
                    line_no,
                    "`Dummy` is no event (RAPID stops with an exception on it)",
                ))
            }
        };
        let access = matches!(parts.keyword, Keyword::Read | Keyword::Write);
        let loc = match (access, parts.location) {
            (false, _) => None,
            (true, Some(loc)) => Some(LocId(intern(NameKind::Location, loc)?)),
            (true, None) => {
                return Err(syntax(
                    line_no,
                    "an access needs a location after its shadow state (RAPID skips such a line, losing the access)",
                ))
            }
        };
        Ok(Some(LineEvent { thread, op, loc }))
    }
}

impl<R: Read> EventSource for RoadRunnerReader<R> {
    fn advance(&mut self) -> Result<bool, TraceError> {
        loop {
            // An event line of the common shape is parsed in one pass over its bytes, the
            // others by the general parser; not the first line, which may open with a
            // byte-order mark, nor any line of a log read with an exclude file.
            let unread = self.lines.unread();
            let fast = match self.line {
                0 => None,
                _ if !self.parser.one_pass() => None,
                _ => fastline::parse_roadrunner_line(
                    self.lines.buf(),
                    unread.start,
                    unread.end,
                    &mut self.names,
                ),
            };
            let event = match fast {
                Some((event, next)) => {
                    self.lines.skip_to(next);
                    self.line += 1;
                    event
                }
                None => {
                    let Some(range) = self.lines.next_line(self.line + 1)? else {
                        return Ok(false);
                    };
                    self.line += 1;
                    let raw = &self.lines.buf()[range];
                    let parsed =
                        self.parser
                            .parse(raw, self.line, self.line == 1, &mut self.names)?;
                    let Some(event) = parsed else {
                        continue;
                    };
                    event
                }
            };
            let LineEvent { thread, op, loc } = event;
            self.slot.index = self.next_index;
            self.slot.thread = thread;
            self.slot.op = op;
            self.slot.loc = loc;
            self.next_index += 1;
            return Ok(true);
        }
    }

    fn current(&self) -> &Event {
        &self.slot
    }

    fn position(&self) -> Position {
        Position::Line(self.line)
    }

    fn names(&self) -> &Names {
        &self.names
    }

    fn take_names(&mut self) -> Names {
        std::mem::take(&mut self.names)
    }
}

/// Why an event was not written.
#[derive(Debug, thiserror::Error)]
pub enum RoadRunnerWriteError {
    /// A RoadRunner log cannot hold the event; the message says why.
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes events as `PrintSubsetTool` prints them, for tests and benchmarks: what
/// [`RoadRunnerReader`] reads back as the same events, up to what a log cannot hold. `req` is
/// left out (`Ok(false)`); locations of events other than accesses are left out; an `end` is
/// written `Exit` of its block's method. Refused: messages, calls, an unlabelled `begin`, an
/// access without a location, and names that are empty or hold a comma or whitespace.
pub struct RoadRunnerWriter<W: Write> {
    out: W,
    /// Per thread, the labels of its open blocks.
    open: Vec<Vec<SymId>>,
}

fn check_word(what: &str, name: &str) -> Result<(), RoadRunnerWriteError> {
    if name.is_empty() || !name.bytes().all(is_word) {
        return Err(RoadRunnerWriteError::Unsupported(format!(
            "{what} {name:?} cannot be written in a RoadRunner log"
        )));
    }
    Ok(())
}

impl<W: Write> RoadRunnerWriter<W> {
    pub fn new(out: W) -> RoadRunnerWriter<W> {
        RoadRunnerWriter {
            out,
            open: Vec::new(),
        }
    }

    pub fn write_event(&mut self, e: &Event, names: &Names) -> Result<bool, RoadRunnerWriteError> {
        let thread = names.thread(e.thread);
        check_word("thread", thread)?;
        let t = e.thread.index();
        if self.open.len() <= t {
            self.open.resize_with(t + 1, Vec::new);
        }
        let (keyword, target) = match &e.op {
            Op::Read(x) => ("Rd", names.var(*x)),
            Op::Write(x) => ("Wr", names.var(*x)),
            Op::Acquire(l) => ("Acquire", names.lock(*l)),
            Op::Release(l) => ("Release", names.lock(*l)),
            Op::Fork(u) => ("Start", names.thread(*u)),
            Op::Join(u) => ("Join", names.thread(*u)),
            Op::Begin(Some(label)) => {
                self.open[t].push(*label);
                ("Enter", names.symbol(*label))
            }
            Op::End => ("Exit", self.open[t].pop().map_or("-", |l| names.symbol(l))),
            Op::Request(_) => return Ok(false),
            Op::Begin(None) => {
                return Err(RoadRunnerWriteError::Unsupported(
                    "a RoadRunner block is a method: `begin` needs a label".into(),
                ))
            }
            Op::Send(_) | Op::Receive(_) => {
                return Err(RoadRunnerWriteError::Unsupported(
                    "RoadRunner logs have no messages".into(),
                ))
            }
            Op::Call(_) => {
                return Err(RoadRunnerWriteError::Unsupported(
                    "RoadRunner logs have no method calls".into(),
                ))
            }
            Op::AtomicLoad(_) | Op::AtomicStore(_) | Op::AtomicRmw(_) => {
                return Err(RoadRunnerWriteError::Unsupported(
                    "RoadRunner logs as RAPID reads them have no atomic accesses".into(),
                ))
            }
        };
        check_word("name", target)?;
        match e.op {
            Op::Read(_) | Op::Write(_) => {
                let Some(loc) = e.loc else {
                    return Err(RoadRunnerWriteError::Unsupported(
                        "an access in a RoadRunner log needs a location".into(),
                    ));
                };
                let loc = names.location(loc);
                check_word("location", loc)?;
                writeln!(self.out, "@   {keyword}({thread},{target})  null  {loc}")?;
            }
            Op::Begin(_) => writeln!(self.out, "@   {keyword}({thread},{target}) from null")?,
            _ => writeln!(self.out, "@   {keyword}({thread},{target})")?,
        }
        Ok(true)
    }

    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(line: &str) -> Option<(String, String, Option<String>)> {
        let s = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        split(line.as_bytes())
            .unwrap()
            .map(|p| (s(p.thread), s(p.target), p.location.map(s)))
    }

    #[test]
    fn splits_like_rapids_regular_expression() {
        // RAPID's own example line, from `Parse.example` in `parse/rr/Parse.java`.
        assert_eq!(
            parts("@    ARd(2,null.test/Deadlock.value_I)  Final  Deadlock.java:50:7"),
            Some((
                "2".into(),
                "null.test/Deadlock.value_I".into(),
                Some("Deadlock.java:50:7".into())
            ))
        );
        // The target runs to the last `)` of its word.
        assert_eq!(
            parts("@   Exit(1,test/Deadlock.doSomething()V)"),
            Some(("1".into(), "test/Deadlock.doSomething()V".into(), None))
        );
        assert_eq!(
            parts("@  Enter(0,test/Test.main([Ljava/lang/String;)V) from null"),
            Some((
                "0".into(),
                "test/Test.main([Ljava/lang/String;)V".into(),
                Some("null".into())
            ))
        );
        // RoadRunner's other lines are not events.
        assert_eq!(parts("@  main[tid = 0] started ."), None);
        assert_eq!(parts("@  VRd(1,x.f)  null  A.java:1"), None);
        assert_eq!(parts("@Rd(1,x)  null  A.java:1"), None);
        assert_eq!(parts("[main: Running in FAST Mode]"), None);
        // An event keyword that breaks off is an error.
        assert!(split(b"@  Rd(1 x)").is_err());
        assert!(split(b"@  Rd(1,x").is_err());
        assert!(split(b"@  Rd(,x)").is_err());
    }
}
