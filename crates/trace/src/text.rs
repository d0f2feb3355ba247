//! The text formats: RAPID's STD format, `THREAD|OP(TARGET)|LOCATION` one event per line, and
//! our superset of it (`snd`, `rcv`, `call`, labelled `begin`, blank lines, `#` comments, an
//! optional location field).

use crate::error::{ErrorKind, Position, TraceError};
use crate::event::{CallPool, DisplayOp, Event, Op, Value};
use crate::fastline;
use crate::lines::LineBuf;
use crate::names::{
    LocId, LockId, MsgId, NameKind, NameSink, Names, NotUtf8, ObjId, SymId, ThreadId, VarId,
};
use crate::source::EventSource;
use std::io::{self, Read, Write};

/// Reads the text format from any byte stream, in fixed-size chunks: memory does not grow with
/// the length of the trace.
pub struct TextReader<R> {
    lines: LineBuf<R>,
    line: u64,
    next_index: u64,
    names: Names,
    slot: Event,
    parser: TextLines,
}

fn syntax(line: u64, msg: impl Into<String>) -> TraceError {
    TraceError::new(Position::Line(line), ErrorKind::Syntax(msg.into()))
}

impl<R: Read> TextReader<R> {
    pub fn new(input: R) -> TextReader<R> {
        TextReader {
            lines: LineBuf::new(input),
            line: 0,
            next_index: 0,
            names: Names::default(),
            slot: Event::new(0, ThreadId(0), Op::End),
            parser: TextLines::new(),
        }
    }

    /// Makes `event` the one handed out, read from line `self.line`.
    #[inline(always)]
    fn hand_out(&mut self, LineEvent { thread, op, loc }: LineEvent) {
        self.parser
            .recycle(std::mem::replace(&mut self.slot.op, op));
        self.slot.index = self.next_index;
        self.slot.thread = thread;
        self.slot.loc = loc;
        self.next_index += 1;
    }

    /// [`EventSource::advance`] of a line the general parser reads, and of the lines after
    /// it up to the next event (blank lines and comments have none).
    #[inline(never)]
    fn advance_general(&mut self) -> Result<bool, TraceError> {
        loop {
            let Some(range) = self.lines.next_line(self.line + 1)? else {
                return Ok(false);
            };
            self.line += 1;
            let raw = &self.lines.buf()[range];
            let parsed = self
                .parser
                .parse(raw, self.line, self.line == 1, &mut self.names)?;
            if let Some(event) = parsed {
                self.hand_out(event);
                return Ok(true);
            }
        }
    }
}

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Strips ASCII whitespace from both ends.
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// What one line of a line-based format says: an event but for its index, which the reader
/// gives.
pub(crate) struct LineEvent {
    pub thread: ThreadId,
    pub op: Op,
    pub loc: Option<LocId>,
}

/// The parser of the text format's lines, whoever reads them: the sequential [`TextReader`],
/// or the workers of `crate::chunked` that parse chunks of lines apart, each into names of
/// its own. The one place where what a line means is decided.
pub(crate) struct TextLines {
    calls: CallPool,
}

impl TextLines {
    pub(crate) fn new() -> TextLines {
        TextLines {
            calls: CallPool::default(),
        }
    }

    /// The event of line number `line` (its bytes without the `\n`), its names interned into
    /// `names`; `None` for a blank line or a comment. `first` says it is the input's first
    /// line, which may open with a byte-order mark.
    #[inline]
    pub(crate) fn parse<N: NameSink>(
        &mut self,
        raw: &[u8],
        line: u64,
        first: bool,
        names: &mut N,
    ) -> Result<Option<LineEvent>, TraceError> {
        // Editors on Windows open a UTF-8 file with a byte-order mark: not part of the text.
        let raw = match first {
            true => raw.strip_prefix(BOM).unwrap_or(raw),
            false => raw,
        };
        let text = trim(raw);
        if text.is_empty() || text[0] == b'#' {
            return Ok(None);
        }
        let mut parser = LineParser {
            names,
            line,
            calls: &mut self.calls,
        };
        let (thread, op, loc) = parser.parse(text)?;
        Ok(Some(LineEvent { thread, op, loc }))
    }

    /// Takes back the call box of an event that is being replaced.
    #[inline]
    pub(crate) fn recycle(&mut self, op: Op) {
        self.calls.recycle(op);
    }
}

fn intern<N: NameSink>(
    names: &mut N,
    kind: NameKind,
    bytes: &[u8],
    line: u64,
) -> Result<u32, TraceError> {
    if bytes.is_empty() {
        return Err(syntax(line, "empty name"));
    }
    names
        .intern(kind, bytes)
        .map_err(|NotUtf8| TraceError::new(Position::Line(line), ErrorKind::NotUtf8))
}

impl<R: Read> EventSource for TextReader<R> {
    // Inlined into the pass's loop, the common case only: out of line, the call and its frame
    // cost about 30 instructions an event (`BENCHMARKS.md`, #43).
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        // A line of the common shape is parsed in one pass over its bytes, the others by the
        // general parser; not the first line, which may open with a byte-order mark.
        if self.line > 0 {
            let unread = self.lines.unread();
            let fast =
                fastline::parse_line(self.lines.buf(), unread.start, unread.end, &mut self.names);
            if let Some((event, next)) = fast {
                self.lines.skip_to(next);
                self.line += 1;
                self.hand_out(event);
                return Ok(true);
            }
        }
        self.advance_general()
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

struct LineParser<'a, N> {
    names: &'a mut N,
    line: u64,
    calls: &'a mut CallPool,
}

impl<N: NameSink> LineParser<'_, N> {
    fn err(&self, msg: impl Into<String>) -> TraceError {
        syntax(self.line, msg)
    }

    fn name(&mut self, kind: NameKind, bytes: &[u8]) -> Result<u32, TraceError> {
        intern(self.names, kind, trim(bytes), self.line)
    }

    fn parse(&mut self, line: &[u8]) -> Result<(ThreadId, Op, Option<LocId>), TraceError> {
        // Lines are short: a plain scan beats setting up a vectorised search.
        let Some(bar) = line.iter().position(|&b| b == b'|') else {
            return Err(self.err("expected THREAD|OP(TARGET)|LOCATION"));
        };
        // No cache of the last thread's name: a thread name of a few bytes is one load and
        // one comparison in the interner's small names' table, less than comparing it with a
        // cached copy and copying it there when it changes.
        let thread = ThreadId(self.name(NameKind::Thread, &line[..bar])?);
        let rest = &line[bar + 1..];
        let name_end = rest
            .iter()
            .position(|&b| b == b'(' || b == b'|')
            .unwrap_or(rest.len());
        let op_name = trim(&rest[..name_end]);
        let after_name = &rest[name_end..];
        let (op, loc_field) = if op_name == b"call" {
            self.parse_call(after_name)?
        } else {
            let field_end = after_name
                .iter()
                .position(|&b| b == b'|')
                .unwrap_or(after_name.len());
            let target = self.target(trim(&after_name[..field_end]), op_name)?;
            let op = self.simple_op(op_name, target)?;
            (op, after_name.get(field_end + 1..))
        };
        let loc = match loc_field.map(trim) {
            None | Some(b"") => None,
            Some(loc) => Some(LocId(self.name(NameKind::Location, loc)?)),
        };
        Ok((thread, op, loc))
    }

    /// The text between the parentheses of `(TARGET)`, or `None` for an operation written
    /// without them.
    fn target<'l>(&self, field: &'l [u8], op_name: &[u8]) -> Result<Option<&'l [u8]>, TraceError> {
        if field.is_empty() {
            return Ok(None);
        }
        if field[0] != b'(' || field[field.len() - 1] != b')' {
            return Err(self.err(format!(
                "expected `{}(TARGET)`",
                String::from_utf8_lossy(op_name)
            )));
        }
        Ok(Some(&field[1..field.len() - 1]))
    }

    fn simple_op(&mut self, op_name: &[u8], target: Option<&[u8]>) -> Result<Op, TraceError> {
        let needs_target = |p: &Self| {
            target.ok_or_else(|| {
                p.err(format!(
                    "`{}` needs a target in parentheses",
                    String::from_utf8_lossy(op_name)
                ))
            })
        };
        Ok(match op_name {
            b"r" => Op::Read(VarId(self.name(NameKind::Var, needs_target(self)?)?)),
            b"w" => Op::Write(VarId(self.name(NameKind::Var, needs_target(self)?)?)),
            b"acq" => Op::Acquire(LockId(self.name(NameKind::Lock, needs_target(self)?)?)),
            b"rel" => Op::Release(LockId(self.name(NameKind::Lock, needs_target(self)?)?)),
            b"req" => Op::Request(LockId(self.name(NameKind::Lock, needs_target(self)?)?)),
            b"fork" => Op::Fork(ThreadId(self.name(NameKind::Thread, needs_target(self)?)?)),
            b"join" => Op::Join(ThreadId(self.name(NameKind::Thread, needs_target(self)?)?)),
            b"aload" => Op::AtomicLoad(VarId(self.name(NameKind::Var, needs_target(self)?)?)),
            b"astore" => Op::AtomicStore(VarId(self.name(NameKind::Var, needs_target(self)?)?)),
            b"rmw" => Op::AtomicRmw(VarId(self.name(NameKind::Var, needs_target(self)?)?)),
            b"snd" => Op::Send(MsgId(self.name(NameKind::Msg, needs_target(self)?)?)),
            b"rcv" => Op::Receive(MsgId(self.name(NameKind::Msg, needs_target(self)?)?)),
            b"begin" => match target.map(trim) {
                None | Some(b"") => Op::Begin(None),
                Some(label) => Op::Begin(Some(SymId(self.name(NameKind::Symbol, label)?))),
            },
            b"end" => match target.map(trim) {
                None | Some(b"") => Op::End,
                Some(_) => return Err(self.err("`end` takes no target")),
            },
            b"" => return Err(self.err("missing operation")),
            other => {
                return Err(TraceError::new(
                    Position::Line(self.line),
                    ErrorKind::UnknownOp(String::from_utf8_lossy(other).into_owned()),
                ))
            }
        })
    }

    /// Parses `(obj.method(args)/results)` and what follows it.
    fn parse_call<'l>(&mut self, s: &'l [u8]) -> Result<(Op, Option<&'l [u8]>), TraceError> {
        let mut call = self.calls.take();
        let mut cur = Cursor { s, i: 0 };
        cur.skip_ws();
        if !cur.eat(b'(') {
            return Err(self.err("expected `call(OBJECT.METHOD(ARGS)/RESULTS)`"));
        }
        let open = s[cur.i..]
            .iter()
            .position(|&b| b == b'(')
            .map(|p| cur.i + p)
            .ok_or_else(|| self.err("expected `call(OBJECT.METHOD(ARGS)/RESULTS)`"))?;
        let callee = trim(&s[cur.i..open]);
        let Some(dot) = callee.iter().rposition(|&b| b == b'.') else {
            return Err(self.err("expected `OBJECT.METHOD(...)` in call"));
        };
        call.object = ObjId(self.name(NameKind::Object, &callee[..dot])?);
        call.method = SymId(self.name(NameKind::Symbol, &callee[dot + 1..])?);
        cur.i = open + 1;
        self.values(&mut cur, &mut call.args, b')')?;
        cur.i += 1;
        cur.skip_ws();
        if cur.eat(b'/') {
            self.values(&mut cur, &mut call.results, b')')?;
        }
        cur.skip_ws();
        if !cur.eat(b')') {
            return Err(self.err("expected `)` closing the call"));
        }
        cur.skip_ws();
        let loc = if cur.i == s.len() {
            None
        } else if cur.eat(b'|') {
            Some(&s[cur.i..])
        } else {
            return Err(self.err("unexpected text after the call"));
        };
        Ok((Op::Call(call), loc))
    }

    /// Comma-separated values up to (not including) `close`.
    fn values(
        &mut self,
        cur: &mut Cursor<'_>,
        out: &mut Vec<Value>,
        close: u8,
    ) -> Result<(), TraceError> {
        cur.skip_ws();
        if cur.peek() == Some(close) {
            return Ok(());
        }
        loop {
            cur.skip_ws();
            out.push(self.value(cur)?);
            cur.skip_ws();
            match cur.peek() {
                Some(b',') => cur.i += 1,
                Some(c) if c == close => return Ok(()),
                _ => return Err(self.err("expected `,` or `)` in call values")),
            }
        }
    }

    fn value(&mut self, cur: &mut Cursor<'_>) -> Result<Value, TraceError> {
        let s = cur.s;
        match cur.peek() {
            Some(b'"') => {
                cur.i += 1;
                let mut text = Vec::new();
                loop {
                    match cur.peek() {
                        None => return Err(self.err("unterminated string")),
                        Some(b'"') => {
                            cur.i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let c = match s.get(cur.i + 1) {
                                Some(b'n') => b'\n',
                                Some(b't') => b'\t',
                                Some(b'r') => b'\r',
                                Some(b'"') => b'"',
                                Some(b'\\') => b'\\',
                                _ => return Err(self.err("bad escape in string")),
                            };
                            text.push(c);
                            cur.i += 2;
                        }
                        Some(c) => {
                            text.push(c);
                            cur.i += 1;
                        }
                    }
                }
                let id = self
                    .names
                    .intern(NameKind::Symbol, &text)
                    .map_err(|NotUtf8| {
                        TraceError::new(Position::Line(self.line), ErrorKind::NotUtf8)
                    })?;
                Ok(Value::Str(SymId(id)))
            }
            _ => {
                let start = cur.i;
                while let Some(c) = cur.peek() {
                    if matches!(c, b',' | b'(' | b')' | b'/' | b'|' | b'"')
                        || c.is_ascii_whitespace()
                    {
                        break;
                    }
                    cur.i += 1;
                }
                let word = &s[start..cur.i];
                if word.is_empty() {
                    return Err(self.err("expected a value"));
                }
                if word == b"nil" {
                    return Ok(Value::Nil);
                }
                let digits = word.strip_prefix(b"-").unwrap_or(word);
                if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                    let n = std::str::from_utf8(word)
                        .ok()
                        .and_then(|w| w.parse::<i64>().ok())
                        .ok_or_else(|| self.err("integer out of range"))?;
                    return Ok(Value::Int(n));
                }
                Ok(Value::Sym(SymId(self.name(NameKind::Symbol, word)?)))
            }
        }
    }
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.i += hit as usize;
        hit
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
}

/// Writes events in the text format. Names that the format cannot carry (a `|`, a line break,
/// surrounding spaces) are refused rather than written ambiguously.
pub struct TextWriter<W: Write> {
    out: W,
}

impl<W: Write> TextWriter<W> {
    pub fn new(out: W) -> TextWriter<W> {
        TextWriter { out }
    }

    pub fn write_event(&mut self, e: &Event, names: &Names) -> io::Result<()> {
        check_name(names.thread(e.thread))?;
        if names.thread(e.thread).starts_with('#') {
            // The line would read back as a comment.
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "thread name {:?} cannot start a line of the text format",
                    names.thread(e.thread)
                ),
            ));
        }
        check_op_names(&e.op, names)?;
        write!(
            self.out,
            "{}|{}",
            names.thread(e.thread),
            DisplayOp::new(&e.op, names)
        )?;
        if let Some(loc) = e.loc {
            let loc = names.location(loc);
            check_name(loc)?;
            write!(self.out, "|{loc}")?;
        }
        self.out.write_all(b"\n")
    }

    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty() || name.contains(['|', '\n', '\r']) || name.trim() != name {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("name {name:?} cannot be written in the text format"),
        ));
    }
    Ok(())
}

fn check_op_names(op: &Op, names: &Names) -> io::Result<()> {
    match op {
        Op::Read(x) | Op::Write(x) | Op::AtomicLoad(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => {
            check_name(names.var(*x))
        }
        Op::Acquire(l) | Op::Release(l) | Op::Request(l) => check_name(names.lock(*l)),
        Op::Fork(t) | Op::Join(t) => check_name(names.thread(*t)),
        Op::Send(m) | Op::Receive(m) => check_name(names.msg(*m)),
        Op::Begin(Some(s)) => check_name(names.symbol(*s)),
        Op::Begin(None) | Op::End => Ok(()),
        Op::Call(c) => {
            check_name(names.object(c.object))?;
            let method = names.symbol(c.method);
            check_name(method)?;
            if method.contains(['.', '(', ')']) || names.object(c.object).contains(['(', ')']) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("call target {method:?} cannot be written in the text format"),
                ));
            }
            for v in c.args.iter().chain(&c.results) {
                if let Value::Sym(s) = v {
                    let s = names.symbol(*s);
                    let bad = s.is_empty()
                        || s == "nil"
                        || s.bytes().any(|c| {
                            matches!(c, b',' | b'(' | b')' | b'/' | b'|' | b'"')
                                || c.is_ascii_whitespace()
                        })
                        || s.strip_prefix('-')
                            .unwrap_or(s)
                            .bytes()
                            .all(|c| c.is_ascii_digit());
                    if bad {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("symbol {s:?} cannot be written in the text format"),
                        ));
                    }
                }
            }
            Ok(())
        }
    }
}
