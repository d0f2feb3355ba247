//! The line-based formats (STD text, RoadRunner logs) parsed on every core: the input is cut
//! into chunks of whole lines, worker threads parse the chunks apart, and the reader hands
//! their events out in trace order, exactly as the sequential readers would.
//!
//! What makes the outcome the sequential one:
//!
//! - **Names.** A worker interns into names of its own, kept from one chunk to the next, and
//!   lists with each chunk the names that were new to it, each with the event of the chunk
//!   that first named it. The reader interns those into the trace's names just before that
//!   event, in the order the worker met them, and maps the worker's ids to the trace's. A name
//!   new to the trace is new to the worker that parses its first occurrence, and is interned
//!   there; so the trace's ids follow first appearance, and at every event `names()` holds
//!   what the sequential reader's holds. After the first chunks every worker knows the
//!   trace's names, and handing an event out costs a few array loads rather than a hash
//!   lookup per name. A worker that has gathered [`ChunkConfig::reset_names`] names starts
//!   over with none, so that its copy stays within a bound of its own.
//! - **Positions and errors.** A chunk's lines are numbered from 1 and the reader adds the
//!   lines of the chunks before it. A worker stops its chunk at the first line it refuses;
//!   the reader hands out the events before it, then that error: the first in input order.
//!   A read error, or a line longer than 16 MiB, is the reader's own, at the line that
//!   could not be completed, after every complete line before it.
//!
//! The reader reads the input itself, into chunks of about [`ChunkConfig::chunk_bytes`] that
//! end at a line's end, and keeps at most two chunks per worker in flight: memory is bounded
//! by the workers and the chunk size, not by the input, whether a file or a pipe. A single
//! chunk (a small input) is parsed where it is read, with no thread started.

use crate::error::{ErrorKind, Position, TraceError};
use crate::event::{Event, Op, Value};
use crate::lines::MAX_LINE;
use crate::names::{NameKind, NameSink, Names, NotUtf8};
use crate::roadrunner::RoadRunnerLines;
use crate::source::{split_call, EventSource, Step};
use crate::text::{LineEvent, TextLines};
use crate::{Format, RoadRunnerOptions};
use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// How a [`ChunkedReader`] splits its work. The defaults are the CLI's; tests set small
/// chunks so that chunk boundaries fall everywhere.
#[derive(Clone, Copy, Debug)]
pub struct ChunkConfig {
    /// Worker threads that parse chunks (at least 1).
    pub threads: usize,
    /// The size a chunk is read to, in bytes; a line longer than that makes its chunk longer.
    pub chunk_bytes: usize,
    /// A worker whose own names number more than this starts over with none.
    pub reset_names: usize,
}

impl ChunkConfig {
    /// `threads` workers, chunks of 512 KiB (about 35,000 events of a generated STD trace:
    /// the cost of handing a chunk between threads, tens of microseconds, is paid per
    /// chunk), a million names per worker.
    pub fn with_threads(threads: usize) -> ChunkConfig {
        ChunkConfig {
            threads,
            chunk_bytes: 512 * 1024,
            reset_names: 1 << 20,
        }
    }
}

/// What a worker parses lines with: the format's line parser.
enum LineFormat {
    Text(TextLines),
    RoadRunner(RoadRunnerLines),
}

impl LineFormat {
    #[inline]
    fn parse<N: NameSink>(
        &mut self,
        raw: &[u8],
        line: u64,
        first: bool,
        names: &mut N,
    ) -> Result<Option<LineEvent>, TraceError> {
        match self {
            LineFormat::Text(p) => p.parse(raw, line, first, names),
            LineFormat::RoadRunner(p) => p.parse(raw, line, first, names),
        }
    }

    /// Which one-pass parser of `crate::fastline` takes the lines of the common shape, if
    /// any.
    fn one_pass(&self) -> Option<OnePass> {
        match self {
            LineFormat::Text(_) => Some(OnePass::Text),
            LineFormat::RoadRunner(p) => p.one_pass().then_some(OnePass::RoadRunner),
        }
    }

    /// A parser of the same format with nothing remembered of earlier lines.
    fn fresh(&self) -> LineFormat {
        match self {
            LineFormat::Text(_) => LineFormat::Text(TextLines::new()),
            LineFormat::RoadRunner(p) => LineFormat::RoadRunner(p.clone()),
        }
    }
}

/// The one-pass parsers of `crate::fastline`.
#[derive(Clone, Copy)]
enum OnePass {
    Text,
    RoadRunner,
}

/// A name new to the worker that parsed a chunk: interned by the reader before event `at` of
/// the chunk; its bytes end at `end` in `Chunk::name_text`.
struct NewName {
    at: u32,
    kind: NameKind,
    end: usize,
}

/// A chunk of whole lines, and what a worker parsed of it. Chunks go round between the reader
/// and the workers, keeping their vectors' capacity.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    /// The chunk opens the input (its first line may open with a byte-order mark).
    first: bool,
    /// No chunk follows: the input ends with this one.
    last: bool,
    /// Why the input ends after this chunk's lines, when it ends in an error: at the line
    /// after them.
    end_error: Option<ErrorKind>,
    /// The events, their ids the worker's own and their index their place in the chunk.
    events: Vec<Event>,
    /// Each event's line, counted from the chunk's first line as 1.
    lines: Vec<u32>,
    /// The lines parsed (up to the error, if any).
    line_count: u64,
    new_names: Vec<NewName>,
    name_text: String,
    /// The first line refused, counted from 1, and why; no event of it or after it is here.
    error: Option<(u64, ErrorKind)>,
    /// The worker forgot its names before this chunk: its ids start from 0 again.
    reset: bool,
}

/// A worker's state: its parser and its own names.
struct Worker {
    format: LineFormat,
    names: Names,
    reset_names: usize,
}

/// The names a worker interns, with a note of each new one for the reader.
struct ChunkNames<'a> {
    names: &'a mut Names,
    new_names: &'a mut Vec<NewName>,
    name_text: &'a mut String,
    /// The event the line being parsed will be.
    at: u32,
}

impl ChunkNames<'_> {
    /// Notes `id`, just interned as `kind`, if it is new to the worker.
    #[inline(always)]
    fn note(&mut self, kind: NameKind, known: usize, id: u32) {
        if id as usize == known {
            self.note_new(kind, id);
        }
    }

    /// New names are rare: out of line, so that the lookups that find a known name are
    /// inlined into the parser's loop without the copy of a new one.
    #[cold]
    #[inline(never)]
    fn note_new(&mut self, kind: NameKind, id: u32) {
        self.name_text.push_str(self.names.of(kind).name(id));
        self.new_names.push(NewName {
            at: self.at,
            kind,
            end: self.name_text.len(),
        });
    }
}

impl NameSink for ChunkNames<'_> {
    #[inline]
    fn intern(&mut self, kind: NameKind, bytes: &[u8]) -> Result<u32, NotUtf8> {
        let interner = self.names.of_mut(kind);
        let known = interner.len();
        let id = interner.intern(bytes)?;
        self.note(kind, known, id);
        Ok(id)
    }

    // Inlined into the one-pass parser's loop, as `Names`' own is (`BENCHMARKS.md`, #43).
    #[inline(always)]
    fn intern_small(&mut self, kind: NameKind, word: u64, len: usize) -> Result<u32, NotUtf8> {
        let interner = self.names.of_mut(kind);
        let known = interner.len();
        let id = interner.intern_small(word, len)?;
        self.note(kind, known, id);
        Ok(id)
    }
}

impl Worker {
    /// Parses every line of `chunk` up to the first it refuses.
    fn parse(&mut self, chunk: &mut Chunk) {
        chunk.events.clear();
        chunk.lines.clear();
        chunk.new_names.clear();
        chunk.name_text.clear();
        chunk.error = None;
        chunk.reset = false;
        if self.names.total() > self.reset_names {
            self.names = Names::default();
            self.format = self.format.fresh();
            chunk.reset = true;
        }
        let Chunk {
            bytes,
            first,
            events,
            lines,
            line_count,
            new_names,
            name_text,
            error,
            ..
        } = chunk;
        let mut names = ChunkNames {
            names: &mut self.names,
            new_names,
            name_text,
            at: 0,
        };
        // Lines of the common shape are parsed in one pass (`crate::fastline`); not the
        // input's first line, which may open with a byte-order mark, nor a RoadRunner log's
        // read with an exclude file.
        let one_pass = self.format.one_pass();
        let mut line = 0u64;
        let mut at = 0;
        while at < bytes.len() {
            if one_pass.is_some() && !(*first && line == 0) {
                names.at = events.len() as u32;
                let parsed = match one_pass {
                    Some(OnePass::Text) => {
                        crate::fastline::parse_line(bytes, at, bytes.len(), &mut names)
                    }
                    _ => crate::fastline::parse_roadrunner_line(bytes, at, bytes.len(), &mut names),
                };
                if let Some((LineEvent { thread, op, loc }, next)) = parsed {
                    at = next;
                    line += 1;
                    events.push(Event {
                        index: 0,
                        thread,
                        op,
                        loc,
                    });
                    lines.push(line as u32);
                    continue;
                }
            }
            let rest = &bytes[at..];
            let raw = match crate::lines::find_newline(rest) {
                Some(nl) => {
                    at += nl + 1;
                    &rest[..nl]
                }
                None => {
                    at = bytes.len();
                    rest
                }
            };
            line += 1;
            // What the sequential line splitter refuses (see `lines::LineBuf`).
            if raw.len() >= MAX_LINE {
                *error = Some((line, too_long()));
                break;
            }
            names.at = events.len() as u32;
            match self
                .format
                .parse(raw, line, *first && line == 1, &mut names)
            {
                Ok(None) => {}
                Ok(Some(LineEvent { thread, op, loc })) => {
                    events.push(Event {
                        index: 0,
                        thread,
                        op,
                        loc,
                    });
                    lines.push(line as u32);
                }
                Err(e) => {
                    debug_assert_eq!(e.pos, Position::Line(line));
                    *error = Some((line, e.kind));
                    break;
                }
            }
        }
        *line_count = line;
    }
}

fn too_long() -> ErrorKind {
    ErrorKind::Syntax("line longer than 16 MiB".into())
}

/// A worker thread and the channels to it.
struct WorkerThread {
    to: Option<SyncSender<Chunk>>,
    from: Option<Receiver<Chunk>>,
    handle: Option<JoinHandle<()>>,
}

/// Reads a line-based trace (STD text or a RoadRunner log) with its lines parsed by worker
/// threads; what it hands out, names, positions and errors included, is what [`crate::TextReader`]
/// or [`crate::RoadRunnerReader`] hands out on the same input.
pub struct ChunkedReader {
    format: Format,
    config: ChunkConfig,
    input: Box<dyn Read + Send>,
    /// The input has ended (or failed): no chunk is read any more.
    input_done: bool,
    /// The start of the line the last chunk read did not complete.
    carry: Vec<u8>,
    /// Started at the second chunk, when the input has one.
    threads: Vec<WorkerThread>,
    /// Parses the chunks where no thread does: a one-chunk input, or when no thread started.
    inline: Option<Worker>,
    /// A chunk parsed inline, waiting to be handed out.
    parsed_inline: Option<Chunk>,
    /// Per worker (one when parsing inline), its ids' ids in the trace, by kind.
    maps: Vec<[Vec<u32>; NameKind::ALL.len()]>,
    spare: Vec<Chunk>,
    /// Chunks made so far (see [`ChunkedReader::chunks_made`]).
    chunks: usize,
    /// Chunks read, and chunks taken back from the workers.
    sent: u64,
    received: u64,
    /// The chunk being handed out, and the worker that parsed it.
    chunk: Option<(Chunk, usize)>,
    /// The next event of `chunk` to hand out, and its next new name.
    next: usize,
    next_name: usize,
    name_start: usize,
    /// Lines of the chunks before `chunk`.
    line_base: u64,
    line: u64,
    next_index: u64,
    names: Names,
    /// Before the first event.
    placeholder: Event,
    /// The error handed out, handed out again if asked.
    failed: Option<TraceError>,
    ended: bool,
}

impl ChunkedReader {
    /// A reader of the STD text format.
    pub fn text(input: Box<dyn Read + Send>, config: ChunkConfig) -> ChunkedReader {
        ChunkedReader::new(
            input,
            Format::Text,
            LineFormat::Text(TextLines::new()),
            config,
        )
    }

    /// A reader of RoadRunner logs.
    pub fn roadrunner(
        input: Box<dyn Read + Send>,
        options: &RoadRunnerOptions,
        config: ChunkConfig,
    ) -> ChunkedReader {
        let parser = LineFormat::RoadRunner(RoadRunnerLines::new(options));
        ChunkedReader::new(input, Format::RoadRunner, parser, config)
    }

    fn new(
        input: Box<dyn Read + Send>,
        format: Format,
        parser: LineFormat,
        config: ChunkConfig,
    ) -> ChunkedReader {
        let config = ChunkConfig {
            threads: config.threads.max(1),
            chunk_bytes: config.chunk_bytes.max(1),
            ..config
        };
        ChunkedReader {
            format,
            config,
            input,
            input_done: false,
            carry: Vec::new(),
            threads: Vec::new(),
            inline: Some(Worker {
                format: parser,
                names: Names::default(),
                reset_names: config.reset_names,
            }),
            parsed_inline: None,
            maps: vec![Default::default()],
            spare: Vec::new(),
            chunks: 0,
            sent: 0,
            received: 0,
            chunk: None,
            next: 0,
            next_name: 0,
            name_start: 0,
            line_base: 0,
            line: 0,
            next_index: 0,
            names: Names::default(),
            placeholder: Event::new(0, crate::ThreadId(0), Op::End),
            failed: None,
            ended: false,
        }
    }

    /// The format read: text or RoadRunner.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Reads the next chunk of whole lines: what follows the last line's end stays in
    /// `carry` for the next chunk. Marks the chunk last at the end of the input or at an error.
    fn read_chunk(&mut self, chunk: &mut Chunk) {
        chunk.first = self.sent == 0;
        chunk.last = false;
        chunk.end_error = None;
        chunk.bytes.clear();
        chunk.bytes.append(&mut self.carry);
        let mut filled = chunk.bytes.len();
        let mut target = self.config.chunk_bytes.max(filled + 1).min(MAX_LINE);
        chunk.bytes.resize(target, 0);
        // Bytes before this have been searched for a line's end.
        let mut searched = 0;
        loop {
            let n = loop {
                match self.input.read(&mut chunk.bytes[filled..target]) {
                    Ok(n) => break Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => break Err(e),
                }
            };
            let n = match n {
                Ok(n) => n,
                Err(e) => {
                    chunk.bytes.truncate(filled);
                    self.cut(chunk);
                    self.carry.clear();
                    chunk.end_error = Some(ErrorKind::of_io(&e));
                    break;
                }
            };
            filled += n;
            if n == 0 {
                chunk.bytes.truncate(filled);
                chunk.last = true;
                break;
            }
            if memchr::memchr(b'\n', &chunk.bytes[searched..filled]).is_some() {
                // The chunk is full, or a pipe handed what it had: the lines that came are
                // worth parsing now.
                chunk.bytes.truncate(filled);
                self.cut(chunk);
                break;
            }
            searched = filled;
            if filled < target {
                continue;
            }
            // No line ends in a full buffer. As the sequential splitter does, a line of
            // 16 MiB is refused without reading on.
            if filled >= MAX_LINE {
                chunk.bytes.clear();
                chunk.end_error = Some(too_long());
                break;
            }
            target = (target * 2).min(MAX_LINE);
            chunk.bytes.resize(target, 0);
        }
        if chunk.last || chunk.end_error.is_some() {
            self.input_done = true;
        }
        self.sent += 1;
    }

    /// Moves what follows the chunk's last line end to `carry`.
    fn cut(&mut self, chunk: &mut Chunk) {
        let keep = memchr::memrchr(b'\n', &chunk.bytes).map_or(0, |nl| nl + 1);
        self.carry.extend_from_slice(&chunk.bytes[keep..]);
        chunk.bytes.truncate(keep);
    }

    fn spare_chunk(&mut self) -> Chunk {
        self.spare.pop().unwrap_or_else(|| {
            self.chunks += 1;
            Chunk::default()
        })
    }

    /// How many chunks this reader has made: two per worker in flight, the one being handed
    /// out and one being read, whatever the length of the input.
    pub fn chunks_made(&self) -> usize {
        self.chunks
    }

    /// Reads chunks and hands them to the workers until two per worker are in flight or the
    /// input is done. The first chunk decides: if it is the whole input, it is parsed here.
    fn top_up(&mut self) {
        while !self.input_done {
            if self.threads.is_empty() && self.sent > 0 {
                // No thread could be started: parse the chunks here, one at a time.
                if self.sent > self.received {
                    return;
                }
                let mut chunk = self.spare_chunk();
                self.read_chunk(&mut chunk);
                self.parse_inline(chunk);
                return;
            }
            let in_flight = (self.sent - self.received) as usize;
            if self.sent > 0 && in_flight >= 2 * self.threads.len() {
                return;
            }
            let mut chunk = self.spare_chunk();
            self.read_chunk(&mut chunk);
            if self.sent == 1 {
                if chunk.last || chunk.end_error.is_some() {
                    self.parse_inline(chunk);
                    return;
                }
                self.start_threads();
                if self.threads.is_empty() {
                    self.parse_inline(chunk);
                    return;
                }
            }
            let w = ((self.sent - 1) % self.threads.len() as u64) as usize;
            if let Some(to) = &self.threads[w].to {
                // A worker ends only when this reader drops its channels, or by a panic,
                // which `take_chunk` passes on when it comes to the worker's chunks.
                let _ = to.send(chunk);
            }
        }
    }

    /// Parses a chunk here, where no worker does; it waits in `parsed_inline` to be taken.
    fn parse_inline(&mut self, mut chunk: Chunk) {
        if let Some(worker) = self.inline.as_mut() {
            worker.parse(&mut chunk);
        }
        self.parsed_inline = Some(chunk);
    }

    fn start_threads(&mut self) {
        let Some(template) = self.inline.take() else {
            return;
        };
        for i in 0..self.config.threads {
            let (to, work) = sync_channel::<Chunk>(2);
            let (done, from) = sync_channel::<Chunk>(2);
            let mut worker = Worker {
                format: template.format.fresh(),
                names: Names::default(),
                reset_names: template.reset_names,
            };
            let spawned = std::thread::Builder::new()
                .name(format!("parse-{i}"))
                .spawn(move || {
                    while let Ok(mut chunk) = work.recv() {
                        worker.parse(&mut chunk);
                        if done.send(chunk).is_err() {
                            return;
                        }
                    }
                });
            match spawned {
                Ok(handle) => self.threads.push(WorkerThread {
                    to: Some(to),
                    from: Some(from),
                    handle: Some(handle),
                }),
                Err(_) => break,
            }
        }
        if self.threads.is_empty() {
            self.inline = Some(template);
        } else {
            self.maps = vec![Default::default(); self.threads.len()];
        }
    }

    /// The next parsed chunk in input order, and the worker that parsed it; `None` when the
    /// input has no more.
    fn take_chunk(&mut self) -> Option<(Chunk, usize)> {
        self.top_up();
        if self.received == self.sent {
            return None;
        }
        if let Some(chunk) = self.parsed_inline.take() {
            self.received += 1;
            return Some((chunk, 0));
        }
        let w = (self.received % self.threads.len() as u64) as usize;
        let thread = &mut self.threads[w];
        let received = thread.from.as_ref().map(Receiver::recv);
        self.received += 1;
        match received {
            Some(Ok(chunk)) => Some((chunk, w)),
            // The worker died: only a panic ends it while its channels are open.
            _ => {
                if let Some(handle) = thread.handle.take() {
                    if let Err(panic) = handle.join() {
                        std::panic::resume_unwind(panic);
                    }
                }
                unreachable!("a parsing worker ended without a panic")
            }
        }
    }

    /// Interns the names the chunk's worker met first before event `at` of the chunk.
    #[inline]
    fn intern_new_names(&mut self, at: usize) {
        let Some((chunk, w)) = &self.chunk else {
            return;
        };
        while let Some(n) = chunk.new_names.get(self.next_name) {
            if n.at as usize != at {
                break;
            }
            let text = &chunk.name_text[self.name_start..n.end];
            let id = self
                .names
                .of_mut(n.kind)
                .intern(text.as_bytes())
                .expect("the worker checked it is UTF-8");
            self.maps[*w][n.kind as usize].push(id);
            self.name_start = n.end;
            self.next_name += 1;
        }
    }

    /// Hands out the next event of the chunk being handed out, its ids made the trace's;
    /// `false` if it has none left.
    #[inline]
    fn hand_out_next(&mut self) -> bool {
        let Some((chunk, w)) = &mut self.chunk else {
            return false;
        };
        let at = self.next;
        let Some(e) = chunk.events.get_mut(at) else {
            return false;
        };
        remap(e, &self.maps[*w]);
        e.index = self.next_index;
        self.line = self.line_base + u64::from(chunk.lines[at]);
        self.next_index += 1;
        self.next += 1;
        true
    }

    /// [`EventSource::advance`] past the fast path: new names to intern first, the next
    /// chunk, an error, the end.
    #[inline(never)]
    fn advance_slow(&mut self) -> Result<bool, TraceError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.ended {
            return Ok(false);
        }
        loop {
            if self.chunk.is_some() {
                self.intern_new_names(self.next);
                if self.hand_out_next() {
                    return Ok(true);
                }
                let Some((chunk, _)) = &mut self.chunk else {
                    unreachable!("a chunk is being handed out");
                };
                if let Some((line, kind)) = chunk.error.take() {
                    self.line = self.line_base + line;
                    let e = TraceError::new(Position::Line(self.line), kind);
                    return self.fail(e);
                }
                self.line_base += chunk.line_count;
                self.line = self.line_base;
                if let Some(kind) = chunk.end_error.take() {
                    let e = TraceError::new(Position::Line(self.line_base + 1), kind);
                    return self.fail(e);
                }
                if let Some((chunk, _)) = self.chunk.take() {
                    self.spare.push(chunk);
                }
            }
            let Some((chunk, w)) = self.take_chunk() else {
                self.ended = true;
                return Ok(false);
            };
            if chunk.reset {
                for map in &mut self.maps[w] {
                    map.clear();
                }
            }
            self.chunk = Some((chunk, w));
            self.next = 0;
            self.next_name = 0;
            self.name_start = 0;
        }
    }

    fn fail(&mut self, e: TraceError) -> Result<bool, TraceError> {
        self.failed = Some(e.clone());
        Err(e)
    }
}

/// Rewrites the ids of `e` from a worker's to the trace's.
#[inline]
fn remap(e: &mut Event, map: &[Vec<u32>; NameKind::ALL.len()]) {
    let id = |kind: NameKind, id: u32| map[kind as usize][id as usize];
    e.thread.0 = id(NameKind::Thread, e.thread.0);
    if let Some(loc) = &mut e.loc {
        loc.0 = id(NameKind::Location, loc.0);
    }
    match &mut e.op {
        Op::Read(x) | Op::Write(x) | Op::AtomicLoad(x) | Op::AtomicStore(x) | Op::AtomicRmw(x) => {
            x.0 = id(NameKind::Var, x.0)
        }
        Op::Acquire(l) | Op::Release(l) | Op::Request(l) => l.0 = id(NameKind::Lock, l.0),
        Op::Fork(t) | Op::Join(t) => t.0 = id(NameKind::Thread, t.0),
        Op::Send(m) | Op::Receive(m) => m.0 = id(NameKind::Msg, m.0),
        Op::Begin(Some(s)) => s.0 = id(NameKind::Symbol, s.0),
        Op::Begin(None) | Op::End => {}
        Op::Call(c) => {
            c.object.0 = id(NameKind::Object, c.object.0);
            c.method.0 = id(NameKind::Symbol, c.method.0);
            for v in c.args.iter_mut().chain(c.results.iter_mut()) {
                if let Value::Sym(s) | Value::Str(s) = v {
                    s.0 = id(NameKind::Symbol, s.0);
                }
            }
        }
    }
}

impl EventSource for ChunkedReader {
    #[inline]
    fn advance(&mut self) -> Result<bool, TraceError> {
        // Nearly every event: the next of the chunk being handed out, with no new name to
        // intern before it (a chunk that failed has handed out all of its events).
        let names_before = self.chunk.as_ref().is_some_and(|(chunk, _)| {
            chunk
                .new_names
                .get(self.next_name)
                .is_some_and(|n| n.at as usize == self.next)
        });
        if !names_before && self.hand_out_next() {
            return Ok(true);
        }
        self.advance_slow()
    }

    // The trait's own, written out so that it is inlined with `advance`'s fast path into the
    // pipeline's reading loop, which reads through it.
    #[inline]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        if !self.advance()? {
            return Ok(Step::End);
        }
        Ok(split_call(self.current(), values))
    }

    fn current(&self) -> &Event {
        match &self.chunk {
            Some((chunk, _)) if self.next > 0 => &chunk.events[self.next - 1],
            _ => &self.placeholder,
        }
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

    /// Each worker's own name table (at most every name read, until its reset), and the
    /// chunks in flight (two per worker) with the one being cut.
    fn held_besides_names(&self) -> (u64, u64) {
        let workers = self.config.threads as u64;
        let chunks = (2 * workers + 1) * self.config.chunk_bytes as u64;
        (workers, chunks)
    }
}

impl Drop for ChunkedReader {
    fn drop(&mut self) {
        // Closing both channels ends each worker after the chunk it is parsing, if any.
        for t in &mut self.threads {
            t.to = None;
            t.from = None;
        }
        for t in &mut self.threads {
            if let Some(handle) = t.handle.take() {
                let _ = handle.join();
            }
        }
    }
}
