//! RapidBin, the binary trace format of RAPID (Mathur et al.), as RAPID's `parse/bin`
//! (`BinaryFormat.java`, `ParseBinary.java`: a version of RAPID whose repository the public
//! code index does not name; focs-lab/rapid's history lacks it) and Wasmgrind's `trace-tools`
//! crate (`AFKoffee/wasmgrind`, `crates/trace-tools/src/rapidbin.rs`, `rapidbin/parser.rs`,
//! `rapidbin/encoder.rs`) read and write it.
//!
//! ```text
//! file   := header event*                                  -- all integers big-endian
//! header := threads:i16 locks:i32 variables:i32 events:i64 -- 18 bytes
//! event  := i64, from the least significant bit up:
//!           bits 0-9 thread, bits 10-13 operation, bits 14-47 operand ("decor"),
//!           bits 48-62 location, bit 63 unused
//! operation: 0 acquire, 1 release, 2 read, 3 write, 4 fork, 5 join, 6 begin, 7 end,
//!            8 request, 9 branch
//! ```
//!
//! The operand is a lock (acquire, release, request), a variable (read, write) or a thread
//! (fork, join); begin, end and branch ignore it. Ids are numbers, so the reader names them as
//! RAPID's STD format writes them: thread `T3`, lock `L0`, variable `V200`, and location `42`.
//!
//! How the header is held to the body (both public readers mask the sign bit off each count,
//! and so does this one):
//!
//! - the event count is exact: an event past it, or an end of file before it, is an error
//!   where it shows. Wasmgrind's reader refuses both; RAPID's reads until the end of the file.
//! - the thread, lock and variable counts count distinct ids (Wasmgrind's encoder writes the
//!   sizes of its id sets; its test trace declares one variable and uses id 200), and bound
//!   them: one distinct id more than declared is an error at the event that brings it. Fewer is
//!   accepted, since a count RAPID sizes its clocks by only needs to be large enough.
//! - a fork or join of a thread id that does not fit the 10 bits of an event's thread is an
//!   error: that thread could never do anything.
//!
//! `branch` events are dropped: hindsight has no branch operation, and a branch orders
//! nothing. [`RapidBinReader::branches`] counts them. `request` becomes `req`, exactly what
//! the STD format's `req(l)` becomes.
//!
//! The counts of the header are never used to reserve memory: the reader holds a fixed buffer,
//! the names it has met and a table of the (at most 1024) threads and (32768) locations.

use crate::error::{ErrorKind, Position, TraceError};
use crate::event::{Event, Op};
use crate::names::{LocId, LockId, NameKind, Names, NotUtf8, ThreadId, VarId};
use crate::source::EventSource;
use rustc_hash::FxHashMap;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The bytes of the header.
pub const HEADER_LEN: usize = 18;
/// The bytes of an event.
pub const EVENT_LEN: usize = 8;

pub const THREAD_BITS: u32 = 10;
pub const OP_SHIFT: u32 = 10;
pub const OP_BITS: u32 = 4;
pub const DECOR_SHIFT: u32 = 14;
pub const DECOR_BITS: u32 = 34;
pub const LOC_SHIFT: u32 = 48;
pub const LOC_BITS: u32 = 15;

pub const OP_ACQUIRE: u64 = 0;
pub const OP_RELEASE: u64 = 1;
pub const OP_READ: u64 = 2;
pub const OP_WRITE: u64 = 3;
pub const OP_FORK: u64 = 4;
pub const OP_JOIN: u64 = 5;
pub const OP_BEGIN: u64 = 6;
pub const OP_END: u64 = 7;
pub const OP_REQUEST: u64 = 8;
pub const OP_BRANCH: u64 = 9;

/// A whole number of events, so that an event never straddles two reads of the buffer.
const CHUNK: usize = 32 * 1024 * EVENT_LEN;

const MAX_THREADS: usize = 1 << THREAD_BITS;
const MAX_LOCATIONS: usize = 1 << LOC_BITS;
const NONE: u32 = u32::MAX;

/// An event's fields, as the bits hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEvent {
    pub thread: u64,
    pub op: u64,
    pub decor: u64,
    pub loc: u64,
}

impl RawEvent {
    pub fn decode(word: u64) -> RawEvent {
        let field = |shift: u32, bits: u32| (word >> shift) & ((1 << bits) - 1);
        RawEvent {
            thread: field(0, THREAD_BITS),
            op: field(OP_SHIFT, OP_BITS),
            decor: field(DECOR_SHIFT, DECOR_BITS),
            loc: field(LOC_SHIFT, LOC_BITS),
        }
    }

    /// The word of an event whose fields fit their bits.
    pub fn encode(&self) -> u64 {
        self.thread | self.op << OP_SHIFT | self.decor << DECOR_SHIFT | self.loc << LOC_SHIFT
    }
}

/// The counts of a RapidBin header, sign bits masked off as RAPID does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub threads: u64,
    pub locks: u64,
    pub variables: u64,
    pub events: u64,
}

impl Header {
    pub fn decode(b: &[u8; HEADER_LEN]) -> Header {
        let threads = u16::from_be_bytes([b[0], b[1]]) & 0x7fff;
        let locks = u32::from_be_bytes([b[2], b[3], b[4], b[5]]) & 0x7fff_ffff;
        let variables = u32::from_be_bytes([b[6], b[7], b[8], b[9]]) & 0x7fff_ffff;
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[10..18]);
        Header {
            threads: u64::from(threads),
            locks: u64::from(locks),
            variables: u64::from(variables),
            events: u64::from_be_bytes(e) & 0x7fff_ffff_ffff_ffff,
        }
    }

    /// The header's bytes; counts too large for their field are an error.
    pub fn encode(&self) -> io::Result<[u8; HEADER_LEN]> {
        let too_large = |what: &str, n: u64| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{n} {what} do not fit a RapidBin header"),
            )
        };
        let threads =
            i16::try_from(self.threads).map_err(|_| too_large("threads", self.threads))?;
        let locks = i32::try_from(self.locks).map_err(|_| too_large("locks", self.locks))?;
        let variables =
            i32::try_from(self.variables).map_err(|_| too_large("variables", self.variables))?;
        let events = i64::try_from(self.events).map_err(|_| too_large("events", self.events))?;
        let mut b = [0u8; HEADER_LEN];
        b[0..2].copy_from_slice(&threads.to_be_bytes());
        b[2..6].copy_from_slice(&locks.to_be_bytes());
        b[6..10].copy_from_slice(&variables.to_be_bytes());
        b[10..18].copy_from_slice(&events.to_be_bytes());
        Ok(b)
    }
}

/// Reads RapidBin from any byte stream, in fixed-size chunks.
pub struct RapidBinReader<R> {
    input: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// The file offset of `buf[start]`.
    offset: u64,
    header: Option<Header>,
    /// Records read so far, branches included.
    records: u64,
    /// The file offset of the record last read.
    record_pos: u64,
    next_index: u64,
    branches: u64,
    names: Names,
    slot: Event,
    threads: Vec<u32>,
    locks: FxHashMap<u64, u32>,
    vars: FxHashMap<u64, u32>,
    locs: Vec<u32>,
    /// Formatting buffer for names.
    scratch: String,
}

fn corrupt(pos: u64, record: u64, msg: impl std::fmt::Display) -> TraceError {
    TraceError::new(
        Position::Byte(pos),
        ErrorKind::Corrupt(format!("event {record}: {msg}")),
    )
}

impl<R: Read> RapidBinReader<R> {
    pub fn new(input: R) -> RapidBinReader<R> {
        RapidBinReader {
            input,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            offset: 0,
            header: None,
            records: 0,
            record_pos: 0,
            next_index: 0,
            branches: 0,
            names: Names::default(),
            slot: Event::new(0, ThreadId(0), Op::End),
            threads: vec![NONE; MAX_THREADS],
            locks: FxHashMap::default(),
            vars: FxHashMap::default(),
            locs: Vec::new(),
            scratch: String::new(),
        }
    }

    /// The header, once the first event (or the end) has been asked for.
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// How many `branch` events were read and dropped so far.
    pub fn branches(&self) -> u64 {
        self.branches
    }

    /// Makes `buf[start..end]` hold at least `n` bytes unless the input ends first; false then.
    fn fill(&mut self, n: usize) -> Result<bool, TraceError> {
        while self.end - self.start < n {
            if self.eof {
                return Ok(false);
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            let read = loop {
                match self.input.read(&mut self.buf[self.end..]) {
                    Ok(k) => break k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(TraceError::new(
                            Position::Byte(self.offset + (self.end - self.start) as u64),
                            ErrorKind::of_io(&e),
                        ))
                    }
                }
            };
            self.eof = read == 0;
            self.end += read;
        }
        Ok(true)
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.offset += n as u64;
    }

    #[cold]
    fn read_header(&mut self) -> Result<Header, TraceError> {
        if !self.fill(HEADER_LEN)? {
            let have = self.end - self.start;
            return Err(TraceError::new(
                Position::Byte(have as u64),
                ErrorKind::Truncated(format!(
                    "the RapidBin header has {HEADER_LEN} bytes, the file {have}"
                )),
            ));
        }
        let mut b = [0u8; HEADER_LEN];
        b.copy_from_slice(&self.buf[self.start..self.start + HEADER_LEN]);
        self.consume(HEADER_LEN);
        let header = Header::decode(&b);
        self.header = Some(header);
        Ok(header)
    }

    /// The next record's word, or `None` at a clean end of the file.
    #[inline]
    fn next_word(&mut self, header: &Header) -> Result<Option<u64>, TraceError> {
        if self.end - self.start < EVENT_LEN && !self.fill(EVENT_LEN)? {
            return self.at_end(header).map(|()| None);
        }
        let mut w = [0u8; EVENT_LEN];
        w.copy_from_slice(&self.buf[self.start..self.start + EVENT_LEN]);
        self.record_pos = self.offset;
        if self.records == header.events {
            return Err(corrupt(
                self.record_pos,
                self.records,
                format_args!("the header declares {} events", header.events),
            ));
        }
        self.consume(EVENT_LEN);
        self.records += 1;
        Ok(Some(u64::from_be_bytes(w)))
    }

    #[cold]
    fn at_end(&self, header: &Header) -> Result<(), TraceError> {
        let left = self.end - self.start;
        if left > 0 {
            return Err(TraceError::new(
                Position::Byte(self.offset),
                ErrorKind::Truncated(format!(
                    "event {} is cut after {left} of its {EVENT_LEN} bytes",
                    self.records
                )),
            ));
        }
        if self.records < header.events {
            return Err(TraceError::new(
                Position::Byte(self.offset),
                ErrorKind::Truncated(format!(
                    "the header declares {} events, the file ends after {}",
                    header.events, self.records
                )),
            ));
        }
        Ok(())
    }

    /// The thread of raw id `raw`, interned as `T<raw>` the first time.
    fn thread(&mut self, raw: u64, header: &Header) -> Result<ThreadId, TraceError> {
        let record = self.records - 1;
        let Some(&known) = self.threads.get(raw as usize) else {
            return Err(corrupt(
                self.record_pos,
                record,
                format_args!(
                    "thread id {raw} does not fit the {THREAD_BITS} bits of an event's thread"
                ),
            ));
        };
        if known != NONE {
            return Ok(ThreadId(known));
        }
        let id = self.intern(NameKind::Thread, 'T', raw)?;
        if self.names.threads.len() as u64 > header.threads {
            return Err(corrupt(
                self.record_pos,
                record,
                format_args!(
                    "thread T{raw} is one more than the {} the header declares",
                    header.threads
                ),
            ));
        }
        self.threads[raw as usize] = id;
        Ok(ThreadId(id))
    }

    fn lock(&mut self, raw: u64, header: &Header) -> Result<LockId, TraceError> {
        if let Some(&id) = self.locks.get(&raw) {
            return Ok(LockId(id));
        }
        let id = self.intern(NameKind::Lock, 'L', raw)?;
        if self.names.locks.len() as u64 > header.locks {
            return Err(corrupt(
                self.record_pos,
                self.records - 1,
                format_args!(
                    "lock L{raw} is one more than the {} the header declares",
                    header.locks
                ),
            ));
        }
        self.locks.insert(raw, id);
        Ok(LockId(id))
    }

    fn var(&mut self, raw: u64, header: &Header) -> Result<VarId, TraceError> {
        if let Some(&id) = self.vars.get(&raw) {
            return Ok(VarId(id));
        }
        let id = self.intern(NameKind::Var, 'V', raw)?;
        if self.names.vars.len() as u64 > header.variables {
            return Err(corrupt(
                self.record_pos,
                self.records - 1,
                format_args!(
                    "variable V{raw} is one more than the {} the header declares",
                    header.variables
                ),
            ));
        }
        self.vars.insert(raw, id);
        Ok(VarId(id))
    }

    fn location(&mut self, raw: u64) -> Result<LocId, TraceError> {
        if self.locs.is_empty() {
            self.locs = vec![NONE; MAX_LOCATIONS];
        }
        let known = self.locs[raw as usize];
        if known != NONE {
            return Ok(LocId(known));
        }
        let id = self.intern_plain(NameKind::Location, raw)?;
        self.locs[raw as usize] = id;
        Ok(LocId(id))
    }

    fn intern(&mut self, kind: NameKind, prefix: char, raw: u64) -> Result<u32, TraceError> {
        use std::fmt::Write as _;
        self.scratch.clear();
        let _ = write!(self.scratch, "{prefix}{raw}");
        self.intern_scratch(kind)
    }

    fn intern_plain(&mut self, kind: NameKind, raw: u64) -> Result<u32, TraceError> {
        use std::fmt::Write as _;
        self.scratch.clear();
        let _ = write!(self.scratch, "{raw}");
        self.intern_scratch(kind)
    }

    fn intern_scratch(&mut self, kind: NameKind) -> Result<u32, TraceError> {
        self.names
            .of_mut(kind)
            .intern(self.scratch.as_bytes())
            .map_err(|NotUtf8| TraceError::new(Position::Byte(self.record_pos), ErrorKind::NotUtf8))
    }

    fn decode(&mut self, word: u64, header: &Header) -> Result<Option<Op>, TraceError> {
        let raw = RawEvent::decode(word);
        self.slot.thread = self.thread(raw.thread, header)?;
        let op = match raw.op {
            OP_ACQUIRE => Op::Acquire(self.lock(raw.decor, header)?),
            OP_RELEASE => Op::Release(self.lock(raw.decor, header)?),
            OP_REQUEST => Op::Request(self.lock(raw.decor, header)?),
            OP_READ => Op::Read(self.var(raw.decor, header)?),
            OP_WRITE => Op::Write(self.var(raw.decor, header)?),
            OP_FORK => Op::Fork(self.thread(raw.decor, header)?),
            OP_JOIN => Op::Join(self.thread(raw.decor, header)?),
            OP_BEGIN => Op::Begin(None),
            OP_END => Op::End,
            OP_BRANCH => return Ok(None),
            code => {
                return Err(corrupt(
                    self.record_pos,
                    self.records - 1,
                    format_args!("unknown operation code {code} (RapidBin's run from 0 to 9)"),
                ))
            }
        };
        self.slot.loc = Some(self.location(raw.loc)?);
        Ok(Some(op))
    }
}

impl<R: Read> EventSource for RapidBinReader<R> {
    fn advance(&mut self) -> Result<bool, TraceError> {
        let header = match self.header {
            Some(h) => h,
            None => self.read_header()?,
        };
        loop {
            let Some(word) = self.next_word(&header)? else {
                return Ok(false);
            };
            match self.decode(word, &header)? {
                Some(op) => {
                    self.slot.op = op;
                    self.slot.index = self.next_index;
                    self.next_index += 1;
                    return Ok(true);
                }
                None => self.branches += 1,
            }
        }
    }

    fn current(&self) -> &Event {
        &self.slot
    }

    fn position(&self) -> Position {
        Position::Byte(self.record_pos)
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
pub enum RapidBinWriteError {
    /// RapidBin cannot hold the event; the message says why.
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Writes RapidBin, for tests and benchmarks: ids are hindsight's dense ids of the names (a
/// thread's id is its `ThreadId`), so names are not kept; location `0` stands for an event
/// without one, and location id `n` is written `n + 1`. The header is written last, over a
/// placeholder, once the counts are known.
pub struct RapidBinWriter<W: Write + Seek> {
    out: W,
    events: u64,
}

impl<W: Write + Seek> RapidBinWriter<W> {
    pub fn new(mut out: W) -> io::Result<RapidBinWriter<W>> {
        out.write_all(&[0; HEADER_LEN])?;
        Ok(RapidBinWriter { out, events: 0 })
    }

    /// Writes one event; a `begin(label)` loses its label. Messages and calls are refused.
    pub fn write_event(&mut self, e: &Event) -> Result<(), RapidBinWriteError> {
        let (op, decor) = match &e.op {
            Op::Acquire(l) => (OP_ACQUIRE, u64::from(l.0)),
            Op::Release(l) => (OP_RELEASE, u64::from(l.0)),
            Op::Request(l) => (OP_REQUEST, u64::from(l.0)),
            Op::Read(x) => (OP_READ, u64::from(x.0)),
            Op::Write(x) => (OP_WRITE, u64::from(x.0)),
            Op::Fork(t) => (OP_FORK, u64::from(t.0)),
            Op::Join(t) => (OP_JOIN, u64::from(t.0)),
            Op::Begin(_) => (OP_BEGIN, 0),
            Op::End => (OP_END, 0),
            Op::Send(_) | Op::Receive(_) => {
                return Err(RapidBinWriteError::Unsupported(
                    "RapidBin has no messages".into(),
                ))
            }
            Op::Call(_) => {
                return Err(RapidBinWriteError::Unsupported(
                    "RapidBin has no method calls".into(),
                ))
            }
            Op::AtomicLoad(_) | Op::AtomicStore(_) | Op::AtomicRmw(_) => {
                return Err(RapidBinWriteError::Unsupported(
                    "RapidBin has no atomic accesses (as reads and writes RAPID would report them as data races)".into(),
                ))
            }
        };
        let loc = e.loc.map_or(0, |l| u64::from(l.0) + 1);
        let thread = u64::from(e.thread.0);
        if thread >= MAX_THREADS as u64
            || matches!(e.op, Op::Fork(t) | Op::Join(t) if t.0 as usize >= MAX_THREADS)
        {
            return Err(RapidBinWriteError::Unsupported(format!(
                "RapidBin has at most {MAX_THREADS} threads"
            )));
        }
        if loc >= MAX_LOCATIONS as u64 {
            return Err(RapidBinWriteError::Unsupported(format!(
                "RapidBin has at most {} locations",
                MAX_LOCATIONS - 1
            )));
        }
        let word = RawEvent {
            thread,
            op,
            decor,
            loc,
        }
        .encode();
        self.out.write_all(&word.to_be_bytes())?;
        self.events += 1;
        Ok(())
    }

    /// Writes the header with the counts of `names` (every name is used by some event of a
    /// trace read from a file; extra ones only raise the counts, which bound the ids) and
    /// returns the output.
    pub fn finish(mut self, names: &Names) -> io::Result<W> {
        let header = Header {
            threads: names.threads.len() as u64,
            locks: names.locks.len() as u64,
            variables: names.vars.len() as u64,
            events: self.events,
        };
        self.out.seek(SeekFrom::Start(0))?;
        self.out.write_all(&header.encode()?)?;
        self.out.seek(SeekFrom::End(0))?;
        self.out.flush()?;
        Ok(self.out)
    }
}
