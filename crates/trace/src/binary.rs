//! The compact binary format `.hst`.
//!
//! ```text
//! file    := MAGIC version:varint record* END count:varint
//! record  := DEF kind:u8 len:varint bytes          -- names the next id of that kind
//!          | tag [thread:varint] operands [loc:varint]
//! tag     := op code (low 5 bits) | HAS_LOC (0x40) | NEW_THREAD (0x80)
//! value   := 0 zigzag:varint | 1 (nil) | 2 sym:varint | 3 string:varint
//! ```
//! Names are defined inline just before their first use, so a writer can stream without knowing
//! the names in advance and a reader never holds more than the names. The thread is written only
//! when it differs from the previous event's. The `END` record carries the event count, so a
//! file cut at a record boundary is still reported as truncated. No length field is trusted for
//! allocation: buffers grow only as bytes actually arrive.

use crate::error::{ErrorKind, Position, TraceError};
use crate::event::{Call, Event, Op, Value};
use crate::names::{LocId, LockId, MsgId, NameKind, Names, NotUtf8, ObjId, SymId, ThreadId, VarId};
use crate::source::{split_call, CallHead, EventSource, Step};
use std::io::{self, Read, Write};

/// The first bytes of every binary trace (PNG-style: a non-ASCII byte, a name, line-ending
/// bytes that text-mode transfers would mangle).
pub const MAGIC: [u8; 8] = *b"\x89HST\r\n\x1a\n";
pub const VERSION: u64 = 1;

const DEF: u8 = 0;
const END: u8 = 0x1f;
const HAS_LOC: u8 = 0x40;
const NEW_THREAD: u8 = 0x80;
const OP_MASK: u8 = 0x1f;
const MAX_NAME: u64 = 16 * 1024 * 1024;

const OP_READ: u8 = 1;
const OP_WRITE: u8 = 2;
const OP_ACQ: u8 = 3;
const OP_REL: u8 = 4;
const OP_REQ: u8 = 5;
const OP_FORK: u8 = 6;
const OP_JOIN: u8 = 7;
const OP_BEGIN: u8 = 8;
const OP_BEGIN_LABEL: u8 = 9;
const OP_END: u8 = 10;
const OP_SND: u8 = 11;
const OP_RCV: u8 = 12;
const OP_CALL: u8 = 13;
// Added after version 1 was released, without a version change: a version-1 file never holds
// them, so every existing file still reads, and a reader older than these codes rejects a file
// with atomics with "unknown record tag" rather than misreading it.
const OP_ALOAD: u8 = 14;
const OP_ASTORE: u8 = 15;
const OP_RMW: u8 = 16;

const CHUNK: usize = 256 * 1024;

/// Why a record could not be decoded from the bytes at hand.
enum Short {
    /// The record continues past the buffer: read more and try again.
    NeedMore,
    /// Boxed: the error path is rare and the happy path should return a small value.
    Bad(Box<ErrorKind>),
}

#[cold]
fn corrupt(msg: impl Into<String>) -> Short {
    Short::Bad(Box::new(ErrorKind::Corrupt(msg.into())))
}

#[cold]
#[inline(never)]
fn undefined(kind: NameKind, id: u64) -> Short {
    corrupt(format!("{kind:?} id {id} used before it is defined"))
}

#[cold]
#[inline(never)]
fn bad_tag(tag: u8) -> Short {
    corrupt(format!("unknown record tag {tag:#04x}"))
}

/// The kind of name the single operand of each simple operation refers to.
const fn operand(code: u8) -> Option<NameKind> {
    match code {
        OP_READ | OP_WRITE | OP_ALOAD | OP_ASTORE | OP_RMW => Some(NameKind::Var),
        OP_ACQ | OP_REL | OP_REQ => Some(NameKind::Lock),
        OP_FORK | OP_JOIN => Some(NameKind::Thread),
        OP_BEGIN_LABEL => Some(NameKind::Symbol),
        OP_SND | OP_RCV => Some(NameKind::Msg),
        _ => None,
    }
}

/// The operation of a record other than a call, from its op code and its operand's id (0 for
/// the codes without one); `None` for an unknown code.
#[inline(always)]
fn simple_op(code: u8, id: u32) -> Option<Op> {
    Some(match code {
        OP_READ => Op::Read(VarId(id)),
        OP_WRITE => Op::Write(VarId(id)),
        OP_ACQ => Op::Acquire(LockId(id)),
        OP_REL => Op::Release(LockId(id)),
        OP_REQ => Op::Request(LockId(id)),
        OP_FORK => Op::Fork(ThreadId(id)),
        OP_JOIN => Op::Join(ThreadId(id)),
        OP_BEGIN => Op::Begin(None),
        OP_BEGIN_LABEL => Op::Begin(Some(SymId(id))),
        OP_END => Op::End,
        OP_SND => Op::Send(MsgId(id)),
        OP_RCV => Op::Receive(MsgId(id)),
        OP_ALOAD => Op::AtomicLoad(VarId(id)),
        OP_ASTORE => Op::AtomicStore(VarId(id)),
        OP_RMW => Op::AtomicRmw(VarId(id)),
        _ => return None,
    })
}

struct Decoder<'a> {
    buf: &'a [u8],
    i: usize,
}

impl Decoder<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Result<u8, Short> {
        let b = *self.buf.get(self.i).ok_or(Short::NeedMore)?;
        self.i += 1;
        Ok(b)
    }

    /// One- and two-byte varints (every id below 16384) decode inline; longer ones out of line,
    /// which keeps the event decoder small enough to stay fast.
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, Short> {
        if let Some(&b0) = self.buf.get(self.i) {
            if b0 < 0x80 {
                self.i += 1;
                return Ok(u64::from(b0));
            }
            if let Some(&b1) = self.buf.get(self.i + 1) {
                if b1 < 0x80 {
                    self.i += 2;
                    return Ok(u64::from(b0 & 0x7f) | u64::from(b1) << 7);
                }
            }
        }
        self.varint_slow()
    }

    #[inline(never)]
    fn varint_slow(&mut self) -> Result<u64, Short> {
        let mut x = 0u64;
        let mut i = self.i;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(i).ok_or(Short::NeedMore)?;
            i += 1;
            x |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                if shift == 63 && b > 1 {
                    break;
                }
                self.i = i;
                return Ok(x);
            }
        }
        Err(corrupt("varint overflows 64 bits"))
    }

    /// An id of `kind`, which must already be defined.
    #[inline(always)]
    fn id(&mut self, kind: NameKind, defined: &Names) -> Result<u32, Short> {
        let v = self.varint()?;
        if v >= defined.of(kind).len() as u64 {
            return Err(undefined(kind, v));
        }
        Ok(v as u32)
    }

    /// `n` values into `list`, symbols checked against the `symbols` defined so far. `n` comes
    /// from the file, so nothing is reserved from it: each value needs at least a byte.
    #[inline(always)]
    fn values(&mut self, n: u64, symbols: u64, list: &mut Vec<Value>) -> Result<(), Short> {
        for _ in 0..n {
            let tag = self.byte()?;
            let v = match tag {
                0 => {
                    let z = self.varint()?;
                    Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
                }
                1 => Value::Nil,
                2 | 3 => {
                    let id = self.varint()?;
                    if id >= symbols {
                        return Err(undefined(NameKind::Symbol, id));
                    }
                    let id = SymId(id as u32);
                    if tag == 2 {
                        Value::Sym(id)
                    } else {
                        Value::Str(id)
                    }
                }
                t => return Err(corrupt(format!("unknown value tag {t}"))),
            };
            list.push(v);
        }
        Ok(())
    }
}

/// The operands of a call record, into a reused `Call` (emptied first).
#[inline(never)]
fn decode_call(d: &mut Decoder<'_>, names: &Names, call: &mut Call) -> Result<(), Short> {
    call.args.clear();
    call.results.clear();
    call.object = ObjId(d.id(NameKind::Object, names)?);
    call.method = SymId(d.id(NameKind::Symbol, names)?);
    let symbols = names.of(NameKind::Symbol).len() as u64;
    let n = d.varint()?;
    d.values(n, symbols, &mut call.args)?;
    let n = d.varint()?;
    d.values(n, symbols, &mut call.results)
}

/// The fast path's varint at `i`: one- and two-byte ones inline, longer ones out of line.
/// `None` when the buffer ends inside it or it overflows; with the index after it otherwise.
#[inline(always)]
fn fast_varint(buf: &[u8], i: usize) -> Option<(u64, usize)> {
    let b0 = *buf.get(i)?;
    if b0 < 0x80 {
        return Some((u64::from(b0), i + 1));
    }
    let b1 = *buf.get(i + 1)?;
    if b1 < 0x80 {
        return Some((u64::from(b0 & 0x7f) | u64::from(b1) << 7, i + 2));
    }
    fast_varint_long(buf, i)
}

#[inline(never)]
fn fast_varint_long(buf: &[u8], i: usize) -> Option<(u64, usize)> {
    let mut d = Decoder { buf, i };
    let v = d.varint_slow().ok()?;
    Some((v, d.i))
}

/// The fast path's id at `i`, below `defined`.
#[inline(always)]
fn fast_id(buf: &[u8], i: usize, defined: usize) -> Option<(u32, usize)> {
    let (v, i) = fast_varint(buf, i)?;
    if v >= defined as u64 {
        return None;
    }
    Some((v as u32, i))
}

/// The fast path's count and values at `i` into `list`, symbols below `symbols`. Values are
/// pushed only as their bytes are found, so a corrupt count allocates no more than the buffer
/// holds.
#[inline(always)]
fn fast_values(buf: &[u8], i: usize, symbols: usize, list: &mut Vec<Value>) -> Option<usize> {
    let (n, mut i) = fast_varint(buf, i)?;
    for _ in 0..n {
        let tag = *buf.get(i)?;
        i += 1;
        // Tested in order of frequency (integers first), which is cheaper than a jump table.
        let v = if tag == 0 {
            let (z, j) = fast_varint(buf, i)?;
            i = j;
            Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
        } else if tag == 1 {
            Value::Nil
        } else {
            let (id, j) = fast_id(buf, i, symbols)?;
            i = j;
            match tag {
                2 => Value::Sym(SymId(id)),
                3 => Value::Str(SymId(id)),
                _ => return None,
            }
        };
        list.push(v);
    }
    Some(i)
}

/// The fast path's call operands at `i` into `call` (emptied first); the index after them.
#[inline(never)]
fn fast_call(buf: &[u8], i: usize, names: &Names, call: &mut Call) -> Option<usize> {
    let symbols = names.symbols.len();
    let (object, i) = fast_id(buf, i, names.objects.len())?;
    let (method, i) = fast_id(buf, i, symbols)?;
    call.object = ObjId(object);
    call.method = SymId(method);
    call.args.clear();
    call.results.clear();
    let i = fast_values(buf, i, symbols, &mut call.args)?;
    fast_values(buf, i, symbols, &mut call.results)
}

/// The fast path's call operands at `i`, its values appended to `values` (even when it then
/// gives up: its caller takes them back); the head and the index after them. Inlined (unlike
/// [`fast_call`]): out of line, its prologue, epilogue, spills and the head returned through
/// memory, paid on every call event, cost the pipeline's stage 1 more than the larger loop.
#[inline(always)]
fn fast_call_split(
    buf: &[u8],
    i: usize,
    names: &Names,
    values: &mut Vec<Value>,
) -> Option<(CallHead, usize)> {
    let start = values.len();
    let symbols = names.symbols.len();
    let (object, i) = fast_id(buf, i, names.objects.len())?;
    let (method, i) = fast_id(buf, i, symbols)?;
    let i = fast_values(buf, i, symbols, values)?;
    let args = values.len() - start;
    let i = fast_values(buf, i, symbols, values)?;
    let results = values.len() - start - args;
    let head = CallHead {
        object: ObjId(object),
        method: SymId(method),
        args: args as u32,
        results: results as u32,
    };
    Some((head, i))
}

/// What one record decoded to.
enum Record {
    Def(NameKind, std::ops::Range<usize>),
    Event,
    End(u64),
}

/// The call box that is not in the slot, so that lending out calls allocates nothing per
/// call: when the slot's call gives way to another operation its box waits here for the
/// next call. One is enough, as the slot holds one event at a time.
#[derive(Default)]
struct SpareCall(Option<Box<Call>>);

impl SpareCall {
    /// A call box, with whatever it held last.
    #[inline]
    fn take(&mut self) -> Box<Call> {
        self.0.take().unwrap_or_default()
    }

    #[inline]
    fn give(&mut self, call: Box<Call>) {
        self.0 = Some(call);
    }

    /// Takes back the box of an operation that is being replaced.
    #[inline]
    fn recycle(&mut self, op: Op) {
        if let Op::Call(call) = op {
            self.give(call);
        }
    }
}

/// Streams a binary trace.
pub struct BinaryReader<R> {
    input: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// File offset of `buf[0]`.
    base: u64,
    record_pos: u64,
    header_read: bool,
    finished: bool,
    /// `header_read && !finished`, in one flag: the fast path's test for every event.
    in_records: bool,
    next_index: u64,
    thread: ThreadId,
    names: Names,
    /// `names.total()`, counted as names are defined.
    names_defined: usize,
    slot: Event,
    spare: SpareCall,
}

impl<R: Read> BinaryReader<R> {
    pub fn new(input: R) -> BinaryReader<R> {
        BinaryReader {
            input,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            base: 0,
            record_pos: 0,
            header_read: false,
            finished: false,
            in_records: false,
            next_index: 0,
            thread: ThreadId(0),
            names: Names::default(),
            names_defined: 0,
            slot: Event::new(0, ThreadId(0), Op::End),
            spare: SpareCall::default(),
        }
    }

    fn error(&self, kind: ErrorKind) -> TraceError {
        TraceError::new(Position::Byte(self.record_pos), kind)
    }

    /// Reads more input after the unconsumed bytes; `false` at end of input.
    fn refill(&mut self) -> Result<bool, TraceError> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // The pending record fills the buffer: grow, but only by what we are about to read.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.error(ErrorKind::of_io(&e))),
            }
        }
    }

    fn read_header(&mut self) -> Result<(), TraceError> {
        loop {
            let mut d = Decoder {
                buf: &self.buf[self.start..self.end],
                i: 0,
            };
            let n = d.buf.len().min(MAGIC.len());
            let magic_ok = d.buf[..n] == MAGIC[..n];
            if !magic_ok {
                return Err(TraceError::new(Position::Byte(0), ErrorKind::BadMagic));
            }
            d.i = MAGIC.len().min(d.buf.len());
            let res = if d.buf.len() < MAGIC.len() {
                Err(Short::NeedMore)
            } else {
                d.varint()
            };
            match res {
                Ok(v) if v == VERSION => {
                    self.start += d.i;
                    self.header_read = true;
                    self.in_records = true;
                    return Ok(());
                }
                Ok(v) => {
                    return Err(TraceError::new(
                        Position::Byte(MAGIC.len() as u64),
                        ErrorKind::UnsupportedVersion(v, VERSION),
                    ))
                }
                Err(Short::Bad(k)) => return Err(TraceError::new(Position::Byte(8), *k)),
                Err(Short::NeedMore) => {
                    if !self.refill()? {
                        return Err(if self.end == 0 {
                            TraceError::new(
                                Position::Byte(0),
                                ErrorKind::Truncated("empty file".into()),
                            )
                        } else if self.end < MAGIC.len() {
                            // A prefix of the magic number is a cut binary file, not a text one.
                            TraceError::new(
                                Position::Byte(0),
                                ErrorKind::Truncated("the header ends early".into()),
                            )
                        } else {
                            TraceError::new(
                                Position::Byte(MAGIC.len() as u64),
                                ErrorKind::Truncated("header ends early".into()),
                            )
                        });
                    }
                }
            }
        }
    }

    /// Decodes the record at `start` into the slot when it is an event that the buffer holds
    /// whole and that is valid, returning its length. Anything else (a name definition, the
    /// end record, a record cut by the buffer's end, a corrupt one) gives `None` and is left,
    /// untouched but for the slot's call, to [`Self::decode`], which says exactly what it is.
    /// So this path needs no error plumbing, and must accept only what `decode` accepts, as
    /// `decode` would read it.
    ///
    /// With `call_values`, a call is split as [`EventSource::advance_splitting_calls`] says:
    /// its values are appended there and its head returned, the slot's operation left as it
    /// was; when this path gives up, values it appended may remain there. Each caller passes a
    /// constant, so the branch not taken is compiled away.
    #[inline(always)]
    fn decode_event_fast(
        &mut self,
        call_values: Option<&mut Vec<Value>>,
    ) -> Option<(usize, Option<CallHead>)> {
        let buf = &self.buf[self.start..self.end];
        let names = &self.names;
        let tag = *buf.first()?;
        let (thread, i) = if tag & NEW_THREAD != 0 {
            let (t, i) = fast_id(buf, 1, names.threads.len())?;
            (ThreadId(t), i)
        } else {
            if names.threads.is_empty() {
                return None;
            }
            (self.thread, 1)
        };
        let mut split = None;
        let (op, i) = match tag & !(HAS_LOC | NEW_THREAD) {
            OP_CALL => match call_values {
                Some(values) => {
                    let (head, i) = fast_call_split(buf, i, names, values)?;
                    split = Some(head);
                    (None, i)
                }
                None => {
                    // The box handling of `decode`'s call arm, written out again: a generic helper
                    // shared by the two makes the reading loop slower.
                    if let Op::Call(call) = &mut self.slot.op {
                        (None, fast_call(buf, i, names, call)?)
                    } else {
                        let mut call = self.spare.take();
                        match fast_call(buf, i, names, &mut call) {
                            Some(i) => (Some(Op::Call(call)), i),
                            None => {
                                self.spare.give(call);
                                return None;
                            }
                        }
                    }
                }
            },
            OP_BEGIN => (Some(Op::Begin(None)), i),
            OP_END => (Some(Op::End), i),
            code => {
                let kind = operand(code)?;
                let (id, i) = fast_id(buf, i, names.of(kind).len())?;
                (Some(simple_op(code, id)?), i)
            }
        };
        let (loc, i) = if tag & HAS_LOC != 0 {
            let (l, i) = fast_id(buf, i, names.locations.len())?;
            (Some(LocId(l)), i)
        } else {
            (None, i)
        };
        self.thread = thread;
        if let Some(op) = op {
            self.spare.recycle(std::mem::replace(&mut self.slot.op, op));
        }
        self.slot.thread = thread;
        self.slot.loc = loc;
        Some((i, split))
    }

    /// Decodes one record from the buffer, writing an event into the slot.
    fn decode(&mut self) -> Result<(Record, usize), Short> {
        let mut d = Decoder {
            buf: &self.buf[self.start..self.end],
            i: 0,
        };
        let tag = d.byte()?;
        if tag == DEF {
            let kind = d.byte()?;
            let kind = NameKind::from_u8(kind)
                .ok_or_else(|| corrupt(format!("unknown name kind {kind}")))?;
            let len = d.varint()?;
            if len > MAX_NAME {
                return Err(corrupt(format!("name of {len} bytes")));
            }
            let from = d.i;
            let to = from + len as usize;
            if to > d.buf.len() {
                return Err(Short::NeedMore);
            }
            return Ok((Record::Def(kind, self.start + from..self.start + to), to));
        }
        if tag == END {
            return Ok((Record::End(d.varint()?), d.i));
        }
        if tag & !(OP_MASK | HAS_LOC | NEW_THREAD) != 0 {
            return Err(bad_tag(tag));
        }
        let names = &self.names;
        let thread = if tag & NEW_THREAD != 0 {
            ThreadId(d.id(NameKind::Thread, names)?)
        } else {
            if names.threads.is_empty() {
                return Err(corrupt("event before any thread is defined"));
            }
            self.thread
        };
        let code = tag & OP_MASK;
        let op = if code == OP_CALL {
            if let Op::Call(call) = &mut self.slot.op {
                // Calls usually follow calls: decoding into the slot's own call spares moving
                // boxes. After an error the slot is left half written, which nobody reads,
                // and a retry with more input starts the call over.
                decode_call(&mut d, names, call)?;
                None
            } else {
                let mut call = self.spare.take();
                if let Err(e) = decode_call(&mut d, names, &mut call) {
                    self.spare.give(call);
                    return Err(e);
                }
                Some(Op::Call(call))
            }
        } else {
            let id = match operand(code) {
                Some(kind) => d.id(kind, names)?,
                None => 0,
            };
            Some(simple_op(code, id).ok_or_else(|| bad_tag(tag))?)
        };
        let loc = if tag & HAS_LOC != 0 {
            Some(LocId(d.id(NameKind::Location, names)?))
        } else {
            None
        };
        let used = d.i;
        self.thread = thread;
        if let Some(op) = op {
            self.spare.recycle(std::mem::replace(&mut self.slot.op, op));
        }
        self.slot.thread = thread;
        self.slot.loc = loc;
        Ok((Record::Event, used))
    }
}

impl<R: Read> EventSource for BinaryReader<R> {
    /// Most records are events whole in the buffer: [`Self::decode_event_fast`] reads them
    /// without error plumbing; everything else goes the exact way. Inlined, the caller's loop
    /// pays no call for the common case.
    #[inline(always)]
    fn advance(&mut self) -> Result<bool, TraceError> {
        if self.in_records {
            if let Some((used, _)) = self.decode_event_fast(None) {
                self.passed_fast(used);
                return Ok(true);
            }
        }
        self.advance_exact()
    }

    /// As [`Self::advance`], the fast path decoding a call's values straight into `values`;
    /// the exact way decodes the call whole, and its values are copied.
    #[inline(always)]
    fn advance_splitting_calls(&mut self, values: &mut Vec<Value>) -> Result<Step, TraceError> {
        let known_values = values.len();
        if self.in_records {
            if let Some((used, call)) = self.decode_event_fast(Some(values)) {
                self.passed_fast(used);
                return Ok(match call {
                    Some(head) => Step::Call(head),
                    None => Step::Event,
                });
            }
        }
        // The fast path may have given up on a call after its values (at its location, or at
        // the buffer's end): they will come again, the exact way.
        values.truncate(known_values);
        if !self.advance_exact()? {
            return Ok(Step::End);
        }
        Ok(split_call(&self.slot, values))
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

    #[inline]
    fn names_defined(&self) -> usize {
        self.names_defined
    }

    fn take_names(&mut self) -> Names {
        self.names_defined = 0;
        std::mem::take(&mut self.names)
    }
}

impl<R: Read> BinaryReader<R> {
    /// Moves past the `used` bytes of the event the fast path decoded.
    #[inline(always)]
    fn passed_fast(&mut self, used: usize) {
        self.record_pos = self.base + self.start as u64;
        self.start += used;
        self.slot.index = self.next_index;
        self.next_index += 1;
    }

    /// [`EventSource::advance`] for any record, with exact errors.
    #[inline(never)]
    fn advance_exact(&mut self) -> Result<bool, TraceError> {
        if !self.header_read {
            self.read_header()?;
        }
        loop {
            if self.finished {
                return Ok(false);
            }
            self.record_pos = self.base + self.start as u64;
            if self.start == self.end && !self.refill()? {
                return Err(self.error(ErrorKind::Truncated("the end record is missing".into())));
            }
            match self.decode() {
                Ok((Record::Event, used)) => {
                    self.start += used;
                    self.slot.index = self.next_index;
                    self.next_index += 1;
                    return Ok(true);
                }
                Ok((Record::Def(kind, range), used)) => {
                    let interner = self.names.of_mut(kind);
                    let expected = interner.len() as u32;
                    let got = interner.intern(&self.buf[range]).map_err(|NotUtf8| {
                        TraceError::new(Position::Byte(self.record_pos), ErrorKind::NotUtf8)
                    })?;
                    if got != expected {
                        return Err(
                            self.error(ErrorKind::Corrupt(format!("{kind:?} name defined twice")))
                        );
                    }
                    self.names_defined += 1;
                    self.start += used;
                }
                Ok((Record::End(count), used)) => {
                    if count != self.next_index {
                        return Err(self.error(ErrorKind::Corrupt(format!(
                            "end record counts {count} events, the file holds {}",
                            self.next_index
                        ))));
                    }
                    self.start += used;
                    if self.start < self.end || self.refill()? {
                        return Err(TraceError::new(
                            Position::Byte(self.base + self.start as u64),
                            ErrorKind::Corrupt("bytes after the end record".into()),
                        ));
                    }
                    self.finished = true;
                    self.in_records = false;
                }
                Err(Short::Bad(kind)) => return Err(self.error(*kind)),
                Err(Short::NeedMore) => {
                    if !self.refill()? {
                        return Err(self
                            .error(ErrorKind::Truncated("the file ends inside a record".into())));
                    }
                }
            }
        }
    }
}

/// Writes the binary format. Give it a buffered writer.
pub struct BinaryWriter<W: Write> {
    out: W,
    defined: [u32; 7],
    thread: Option<ThreadId>,
    events: u64,
    scratch: Vec<u8>,
}

fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

impl<W: Write> BinaryWriter<W> {
    pub fn new(mut out: W) -> io::Result<BinaryWriter<W>> {
        let mut header = MAGIC.to_vec();
        put_varint(&mut header, VERSION);
        out.write_all(&header)?;
        Ok(BinaryWriter {
            out,
            defined: [0; 7],
            thread: None,
            events: 0,
            scratch: Vec::with_capacity(64),
        })
    }

    /// Defines every name of `kind` up to `id` not yet written.
    fn define(&mut self, kind: NameKind, id: u32, names: &Names) {
        let k = kind as usize;
        while self.defined[k] <= id {
            let name = names.of(kind).name(self.defined[k]);
            self.scratch.push(DEF);
            self.scratch.push(kind as u8);
            put_varint(&mut self.scratch, name.len() as u64);
            self.scratch.extend_from_slice(name.as_bytes());
            self.defined[k] += 1;
        }
    }

    pub fn write_event(&mut self, e: &Event, names: &Names) -> io::Result<()> {
        self.scratch.clear();
        let new_thread = self.thread != Some(e.thread);
        if new_thread {
            self.define(NameKind::Thread, e.thread.0, names);
            self.thread = Some(e.thread);
        }
        let (code, target) = match &e.op {
            Op::Read(x) => (OP_READ, Some((NameKind::Var, x.0))),
            Op::Write(x) => (OP_WRITE, Some((NameKind::Var, x.0))),
            Op::Acquire(l) => (OP_ACQ, Some((NameKind::Lock, l.0))),
            Op::Release(l) => (OP_REL, Some((NameKind::Lock, l.0))),
            Op::Request(l) => (OP_REQ, Some((NameKind::Lock, l.0))),
            Op::Fork(t) => (OP_FORK, Some((NameKind::Thread, t.0))),
            Op::Join(t) => (OP_JOIN, Some((NameKind::Thread, t.0))),
            Op::Begin(None) => (OP_BEGIN, None),
            Op::Begin(Some(s)) => (OP_BEGIN_LABEL, Some((NameKind::Symbol, s.0))),
            Op::End => (OP_END, None),
            Op::Send(m) => (OP_SND, Some((NameKind::Msg, m.0))),
            Op::Receive(m) => (OP_RCV, Some((NameKind::Msg, m.0))),
            Op::Call(_) => (OP_CALL, None),
            Op::AtomicLoad(x) => (OP_ALOAD, Some((NameKind::Var, x.0))),
            Op::AtomicStore(x) => (OP_ASTORE, Some((NameKind::Var, x.0))),
            Op::AtomicRmw(x) => (OP_RMW, Some((NameKind::Var, x.0))),
        };
        if let Some((kind, id)) = target {
            self.define(kind, id, names);
        }
        if let Op::Call(c) = &e.op {
            self.define(NameKind::Object, c.object.0, names);
            self.define(NameKind::Symbol, c.method.0, names);
            for v in c.args.iter().chain(&c.results) {
                if let Value::Sym(id) | Value::Str(id) = v {
                    self.define(NameKind::Symbol, id.0, names);
                }
            }
        }
        if let Some(l) = e.loc {
            self.define(NameKind::Location, l.0, names);
        }

        let s = &mut self.scratch;
        s.push(
            code | if new_thread { NEW_THREAD } else { 0 }
                | if e.loc.is_some() { HAS_LOC } else { 0 },
        );
        if new_thread {
            put_varint(s, u64::from(e.thread.0));
        }
        if let Some((_, id)) = target {
            put_varint(s, u64::from(id));
        }
        if let Op::Call(c) = &e.op {
            put_varint(s, u64::from(c.object.0));
            put_varint(s, u64::from(c.method.0));
            for list in [&c.args, &c.results] {
                put_varint(s, list.len() as u64);
                for v in list {
                    match *v {
                        Value::Int(i) => {
                            s.push(0);
                            put_varint(s, ((i << 1) ^ (i >> 63)) as u64);
                        }
                        Value::Nil => s.push(1),
                        Value::Sym(id) => {
                            s.push(2);
                            put_varint(s, u64::from(id.0));
                        }
                        Value::Str(id) => {
                            s.push(3);
                            put_varint(s, u64::from(id.0));
                        }
                    }
                }
            }
        }
        if let Some(l) = e.loc {
            put_varint(s, u64::from(l.0));
        }
        self.events += 1;
        self.out.write_all(&self.scratch)
    }

    /// Writes the end record and flushes; a file without it reads as truncated.
    pub fn finish(mut self) -> io::Result<W> {
        self.scratch.clear();
        self.scratch.push(END);
        put_varint(&mut self.scratch, self.events);
        self.out.write_all(&self.scratch)?;
        self.out.flush()?;
        Ok(self.out)
    }
}
