//! The common shapes of the line formats' lines, parsed in one pass over the line's bytes:
//! a text trace's `THREAD|OP(TARGET)|LOCATION` with nothing around the names
//! ([`parse_line`]), and a RoadRunner log's `@ KEYWORD(THREAD,TARGET) SHADOW LOCATION`
//! ([`parse_roadrunner_line`]). Any other line is left to the format's general parser
//! (`crate::text`, `crate::roadrunner`), which decides what every line means.
//!
//! Nearly every line of a RAPID or generated trace has the first shape (`T4|r(x5307)|11`),
//! and nearly every line of a log RoadRunner prints the second (`@    Rd(1,x_I)  null
//! A.java:3:5`). The general parsers trim or split every field and search each for its
//! delimiters apart, reading the line's bytes several times, and find the line's end before
//! they start; here each byte is looked at once, classified by a table, and a name's bytes
//! are taken as one word (a masked 8-byte load) where its end is found, which is the key the
//! interner's small names' table looks up: nothing reads a short name again. A text line of
//! at most 16 bytes (nearly all of a RAPID trace's) is classified as two words at once, its
//! delimiters then taken from that mask ([`short_line`]). A line is parsed here only if the
//! general parser would read it as the same event; the property tests below hold the two
//! against each other on random lines.

use crate::event::Op;
use crate::names::{LocId, LockId, MsgId, NameKind, NameSink, SymId, ThreadId, VarId};
use crate::roadrunner::Keyword;
use crate::text::LineEvent;

/// Bytes a name of the common shape is made of: printable ASCII but for the delimiters
/// `|`, `(`, `)`. Not whitespace (the general parser trims it), not control bytes, not
/// bytes above ASCII (a name holding them may not be UTF-8, whose error is the general
/// parser's to give).
static NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        table[b] = !matches!(b as u8, b'|' | b'(' | b')');
        b += 1;
    }
    table
};

/// Where the run of name bytes that starts at `at` ends.
#[inline(always)]
fn name_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&b) = bytes.get(at) {
        if !NAME_BYTE[b as usize] {
            break;
        }
        at += 1;
    }
    at
}

/// The name of `len` bytes (1 to 8) at `at` as one little-endian word, zero past its bytes:
/// the key of `Interner`'s small names. One load where `buf` has 8 bytes from `at` (bytes
/// past the name, even past the data read, are masked off).
#[inline(always)]
fn word(buf: &[u8], at: usize, len: usize) -> u64 {
    let mask = u64::MAX >> (64 - 8 * len);
    match buf.get(at..at + 8).and_then(<[u8]>::first_chunk::<8>) {
        Some(w) => u64::from_le_bytes(*w) & mask,
        None => {
            let mut w = [0u8; 8];
            let name = &buf[at..at + len];
            w[..len].copy_from_slice(name);
            u64::from_le_bytes(w)
        }
    }
}

/// The word of an operation's name, as [`word`] takes it.
const fn op_word(name: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < name.len() {
        w |= (name[i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// The operations a line of the common shape may name. `call` is not one: its target is a
/// grammar of its own.
#[derive(Clone, Copy)]
enum Shape {
    Read,
    Write,
    Acquire,
    Release,
    Request,
    Fork,
    Join,
    AtomicLoad,
    AtomicStore,
    AtomicRmw,
    Send,
    Receive,
    /// `begin`, labelled or not.
    Begin,
    /// `end`, which takes no target.
    End,
}

impl Shape {
    /// The operation named by `word` (a name of at most 8 bytes), if the common shape knows
    /// it.
    #[inline(always)]
    fn of(word: u64) -> Option<Shape> {
        const R: u64 = op_word(b"r");
        const W: u64 = op_word(b"w");
        const ACQ: u64 = op_word(b"acq");
        const REL: u64 = op_word(b"rel");
        const REQ: u64 = op_word(b"req");
        const FORK: u64 = op_word(b"fork");
        const JOIN: u64 = op_word(b"join");
        const ALOAD: u64 = op_word(b"aload");
        const ASTORE: u64 = op_word(b"astore");
        const RMW: u64 = op_word(b"rmw");
        const SND: u64 = op_word(b"snd");
        const RCV: u64 = op_word(b"rcv");
        const BEGIN: u64 = op_word(b"begin");
        const END: u64 = op_word(b"end");
        Some(match word {
            R => Shape::Read,
            W => Shape::Write,
            ACQ => Shape::Acquire,
            REL => Shape::Release,
            REQ => Shape::Request,
            FORK => Shape::Fork,
            JOIN => Shape::Join,
            ALOAD => Shape::AtomicLoad,
            ASTORE => Shape::AtomicStore,
            RMW => Shape::AtomicRmw,
            SND => Shape::Send,
            RCV => Shape::Receive,
            BEGIN => Shape::Begin,
            END => Shape::End,
            _ => return None,
        })
    }

    /// The kind of name its target is (`end` has none).
    #[inline(always)]
    fn target_kind(self) -> NameKind {
        match self {
            Shape::Read
            | Shape::Write
            | Shape::AtomicLoad
            | Shape::AtomicStore
            | Shape::AtomicRmw => NameKind::Var,
            Shape::Acquire | Shape::Release | Shape::Request => NameKind::Lock,
            Shape::Fork | Shape::Join => NameKind::Thread,
            Shape::Send | Shape::Receive => NameKind::Msg,
            Shape::Begin | Shape::End => NameKind::Symbol,
        }
    }

    /// The operation on the target of id `id`, of [`Shape::target_kind`].
    #[inline(always)]
    fn op(self, id: u32) -> Op {
        match self {
            Shape::Read => Op::Read(VarId(id)),
            Shape::Write => Op::Write(VarId(id)),
            Shape::AtomicLoad => Op::AtomicLoad(VarId(id)),
            Shape::AtomicStore => Op::AtomicStore(VarId(id)),
            Shape::AtomicRmw => Op::AtomicRmw(VarId(id)),
            Shape::Acquire => Op::Acquire(LockId(id)),
            Shape::Release => Op::Release(LockId(id)),
            Shape::Request => Op::Request(LockId(id)),
            Shape::Fork => Op::Fork(ThreadId(id)),
            Shape::Join => Op::Join(ThreadId(id)),
            Shape::Send => Op::Send(MsgId(id)),
            Shape::Receive => Op::Receive(MsgId(id)),
            Shape::Begin | Shape::End => Op::Begin(Some(SymId(id))),
        }
    }
}

/// A name found in the line: where it starts, and its length.
#[derive(Clone, Copy)]
struct Span {
    at: usize,
    len: usize,
    /// The name's [`word`], where the parser that found it has it at hand.
    word: Option<u64>,
}

/// The name at `span` of `buf`, interned as `kind`.
#[inline(always)]
fn intern<N: NameSink>(names: &mut N, kind: NameKind, buf: &[u8], span: Span) -> Option<u32> {
    let id = if span.len <= 8 {
        let word = match span.word {
            Some(word) => word,
            None => word(buf, span.at, span.len),
        };
        names.intern_small(kind, word, span.len)
    } else {
        names.intern(kind, &buf[span.at..span.at + span.len])
    };
    // Never refused: names of the common shape are ASCII.
    id.ok()
}

/// The line of the common shape that starts at `at` in `buf`, whose bytes read so far end at
/// `end`: its event, its names interned into `names`, and where the next line starts. `None`
/// for any other line, with nothing interned: one the general parser must read (a comment, a
/// blank line, spaces around a name, a call, an error), or one whose `\n` is not in
/// `buf[at..end]`. The input's first line (which may open with a byte-order mark) is the
/// caller's to keep from here.
#[inline]
pub(crate) fn parse_line<N: NameSink>(
    buf: &[u8],
    at: usize,
    end: usize,
    names: &mut N,
) -> Option<(LineEvent, usize)> {
    if let Some(line) = short_line(buf, at, end) {
        return line.finish(buf, names);
    }
    let bytes = buf.get(..end)?;
    // THREAD|
    let thread_end = name_end(bytes, at);
    if thread_end == at || bytes[at] == b'#' || bytes.get(thread_end) != Some(&b'|') {
        return None;
    }
    // OP
    let op_at = thread_end + 1;
    let op_end = name_end(bytes, op_at);
    let op_len = op_end - op_at;
    if op_len == 0 || op_len > 8 {
        return None;
    }
    let shape = Shape::of(word(buf, op_at, op_len))?;
    // (TARGET)
    let mut next = op_end;
    let target = match bytes.get(next) {
        Some(b'(') => {
            let target_end = name_end(bytes, next + 1);
            if target_end == next + 1 || bytes.get(target_end) != Some(&b')') {
                return None;
            }
            let span = Span {
                at: next + 1,
                len: target_end - next - 1,
                word: None,
            };
            next = target_end + 1;
            Some(span)
        }
        _ => None,
    };
    // |LOCATION, then the line's end
    let loc = match bytes.get(next) {
        Some(b'\n') => None,
        Some(b'|') => {
            let loc_end = name_end(bytes, next + 1);
            if loc_end == next + 1 || bytes.get(loc_end) != Some(&b'\n') {
                return None;
            }
            let span = Span {
                at: next + 1,
                len: loc_end - next - 1,
                word: None,
            };
            next = loc_end;
            Some(span)
        }
        _ => return None,
    };
    let thread = Span {
        at,
        len: thread_end - at,
        word: None,
    };
    ShapedLine {
        thread,
        shape,
        target,
        loc,
        newline: next,
    }
    .finish(buf, names)
}

/// A line of the common shape as its bytes lay it out, its names not yet interned.
struct ShapedLine {
    thread: Span,
    shape: Shape,
    target: Option<Span>,
    loc: Option<Span>,
    /// Where its `\n` is.
    newline: usize,
}

impl ShapedLine {
    /// The line's event, its names interned into `names`, and where the next line starts;
    /// `None` (nothing interned) if its operation and target do not go together.
    #[inline(always)]
    fn finish<N: NameSink>(self, buf: &[u8], names: &mut N) -> Option<(LineEvent, usize)> {
        let ShapedLine {
            thread,
            shape,
            target,
            loc,
            newline,
        } = self;
        // What needs a target has one, and `end` has none: anything else is an error, the
        // general parser's to word.
        match (shape, target) {
            (Shape::End, Some(_)) => return None,
            (Shape::Begin | Shape::End, _) | (_, Some(_)) => {}
            (_, None) => return None,
        }
        // Interned in the general parser's order: thread, target, location.
        let thread = ThreadId(intern(names, NameKind::Thread, buf, thread)?);
        let op = match target {
            // Each kind's lookup written out, so that each is inlined with its table known.
            Some(t) => shape.op(match shape.target_kind() {
                NameKind::Var => intern(names, NameKind::Var, buf, t)?,
                NameKind::Lock => intern(names, NameKind::Lock, buf, t)?,
                NameKind::Thread => intern(names, NameKind::Thread, buf, t)?,
                NameKind::Msg => intern(names, NameKind::Msg, buf, t)?,
                kind => intern(names, kind, buf, t)?,
            }),
            None => match shape {
                Shape::Begin => Op::Begin(None),
                _ => Op::End,
            },
        };
        let loc = match loc {
            Some(span) => Some(LocId(intern(names, NameKind::Location, buf, span)?)),
            None => None,
        };
        Some((LineEvent { thread, op, loc }, newline + 1))
    }
}

/// Lines of at most this many bytes, their `\n` included, are laid out from two words
/// ([`short_line`]).
const SHORT_LINE: usize = 16;

/// Each byte of `w` that is no name byte (of [`NAME_BYTE`]) as its high bit, the others 0:
/// the table's test on eight bytes at once. Every sum below stays within its byte, since it
/// adds at most `0x7f` to a byte of at most `0x7f`.
#[inline(always)]
fn stop_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES * 0x80;
    const LOW: u64 = ONES * 0x7f;
    let low = w & LOW;
    // `low + k` has its high bit set where `low >= 0x80 - k`.
    let control_or_space = !(low + ONES * (0x80 - 0x21)) & HIGH;
    let delete = (low + ONES) & HIGH;
    // `x + 0x7f` has its high bit clear only where `x` is 0.
    let bar = !((low ^ (ONES * u64::from(b'|'))) + LOW) & HIGH;
    // `(` and `)` differ in their lowest bit only.
    let paren = !(((low & !ONES) ^ (ONES * u64::from(b'('))) + LOW) & HIGH;
    (w & HIGH) | control_or_space | delete | bar | paren
}

/// The high bits of [`stop_bytes`] gathered into the low 8 bits, byte `i`'s as bit `i`: each
/// product term lands on a bit of its own, so none carries into another.
#[inline(always)]
fn gathered(high_bits: u64) -> u32 {
    ((high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// The first of `stops` (a bit per byte of the line), taken off it.
#[inline(always)]
fn pop_stop(stops: &mut u32) -> Option<usize> {
    if *stops == 0 {
        return None;
    }
    let at = stops.trailing_zeros() as usize;
    *stops &= *stops - 1;
    Some(at)
}

/// The layout of the line of the common shape that starts at `at`, if it is at most
/// [`SHORT_LINE`] bytes long, `buf[..end]` holds that many from `at` and `buf` 8 more (read or
/// not: the names' words mask them off): every byte of the two words classified at once
/// ([`stop_bytes`]), the delimiters then taken one after the other from that mask, where
/// [`parse_line`]'s loops look at each byte. `None` for any other line,
/// which [`parse_line`]'s loops then read: a line this one lays out is one they lay out the
/// same (the property tests hold them against each other).
#[inline(always)]
fn short_line(buf: &[u8], at: usize, end: usize) -> Option<ShapedLine> {
    // The line's 16 bytes and 8 more, so that a name's word is one load from them (bytes
    // past the line, even past the data read, are masked off).
    let ext: &[u8; SHORT_LINE + 8] = buf.get(at..)?.first_chunk()?;
    if end.checked_sub(at)? < SHORT_LINE {
        return None;
    }
    let window: &[u8; SHORT_LINE] = ext.first_chunk()?;
    let (low, high) = window.split_at(8);
    let low = u64::from_le_bytes(low.try_into().ok()?);
    let high = u64::from_le_bytes(high.try_into().ok()?);
    let mut stops = gathered(stop_bytes(low)) | gathered(stop_bytes(high)) << 8;
    let byte = |i: usize| window[i % SHORT_LINE];
    let name = |from: usize, len: usize| Span {
        at: at + from,
        len,
        word: word_in(ext, from, len),
    };
    // THREAD|
    let thread_end = pop_stop(&mut stops)?;
    if thread_end == 0 || window[0] == b'#' || byte(thread_end) != b'|' {
        return None;
    }
    // OP
    let op_end = pop_stop(&mut stops)?;
    let op_len = op_end - thread_end - 1;
    if op_len == 0 || op_len > 8 {
        return None;
    }
    let shape = Shape::of(word_in(ext, thread_end + 1, op_len)?)?;
    // (TARGET): the byte after its `)`, a delimiter, is the next stop.
    let mut next = op_end;
    let mut target = None;
    if byte(op_end) == b'(' {
        let target_end = pop_stop(&mut stops)?;
        if target_end == op_end + 1 || byte(target_end) != b')' {
            return None;
        }
        target = Some(name(op_end + 1, target_end - op_end - 1));
        next = pop_stop(&mut stops)?;
        if next != target_end + 1 {
            return None;
        }
    }
    // |LOCATION, then the line's end
    let mut loc = None;
    match byte(next) {
        b'\n' => {}
        b'|' => {
            let loc_end = pop_stop(&mut stops)?;
            if loc_end == next + 1 || byte(loc_end) != b'\n' {
                return None;
            }
            loc = Some(name(next + 1, loc_end - next - 1));
            next = loc_end;
        }
        _ => return None,
    }
    Some(ShapedLine {
        thread: name(0, thread_end),
        shape,
        target,
        loc,
        newline: at + next,
    })
}

/// The [`word`] of the name of `len` bytes at `from` (below 16) of a line's bytes `ext`; `None`
/// for a name longer than 8 bytes, which has none.
#[inline(always)]
fn word_in(ext: &[u8; SHORT_LINE + 8], from: usize, len: usize) -> Option<u64> {
    if !(1..=8).contains(&len) {
        return None;
    }
    let bytes = ext.get(from % SHORT_LINE..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*bytes) & (u64::MAX >> (64 - 8 * len)))
}

/// Bytes of a word of RAPID's `rr` expression, `[^,\s]` (Java's `\s`: space, `\t`, `\n`,
/// vertical tab, form feed, `\r`), ASCII only: a run that meets a byte above ASCII is the
/// general parser's, whose run goes on through it and whose error a name that is not UTF-8
/// is.
static RR_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b] = !matches!(b as u8, b',' | b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        b += 1;
    }
    table
};

/// Java's `\s` but for `\n`, which ends the line here. A `\r` before the `\n` (which the
/// general parser strips) is one of them: where it can stand in a line of an event, between
/// words or after the last, it separates words either way.
#[inline(always)]
fn is_rr_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c | b'\r')
}

/// Where the spaces that start at `at` end.
#[inline(always)]
fn rr_spaces_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|&b| is_rr_space(b)) {
        at += 1;
    }
    at
}

/// Where the word that starts at `at` ends (it may be empty); `None` if a byte above ASCII
/// ends it, where the general parser's word goes on.
#[inline(always)]
fn rr_word_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    while let Some(&b) = bytes.get(at) {
        if !RR_WORD[b as usize] {
            if b >= 0x80 {
                return None;
            }
            break;
        }
        at += 1;
    }
    Some(at)
}

/// The RoadRunner keyword named by `word` (a name of at most 8 bytes), as the general parser
/// reads it (`Rd` and `ARd` both a read, `Wr` and `AWr` both a write); not `Dummy`, which it
/// refuses with its error.
#[inline(always)]
fn keyword_of(word: u64) -> Option<Keyword> {
    const ACQUIRE: u64 = op_word(b"Acquire");
    const RELEASE: u64 = op_word(b"Release");
    const RD: u64 = op_word(b"Rd");
    const ARD: u64 = op_word(b"ARd");
    const WR: u64 = op_word(b"Wr");
    const AWR: u64 = op_word(b"AWr");
    const START: u64 = op_word(b"Start");
    const JOIN: u64 = op_word(b"Join");
    const ENTER: u64 = op_word(b"Enter");
    const EXIT: u64 = op_word(b"Exit");
    Some(match word {
        ACQUIRE => Keyword::Acquire,
        RELEASE => Keyword::Release,
        RD | ARD => Keyword::Read,
        WR | AWR => Keyword::Write,
        START => Keyword::Start,
        JOIN => Keyword::Join,
        ENTER => Keyword::Enter,
        EXIT => Keyword::Exit,
        _ => return None,
    })
}

/// The line of a RoadRunner log that starts at `at` in `buf`, whose bytes read so far end at
/// `end`, if it is an event of the common shape: `@`, spaces, a keyword, `(THREAD,TARGET)`
/// with the target's word ending at its `)`, and for an access its shadow state and
/// location; its event, its names interned into `names`, and where the next line starts.
/// `None` for any other line, with nothing interned: one the general parser skips or refuses,
/// one whose words hold bytes above ASCII, or one whose `\n` is not in `buf[at..end]`. The
/// caller keeps from here the input's first line (which may open with a byte-order mark),
/// and every line of a log read with an exclude file (which the general parser matches
/// against the whole line).
#[inline]
pub(crate) fn parse_roadrunner_line<N: NameSink>(
    buf: &[u8],
    at: usize,
    end: usize,
    names: &mut N,
) -> Option<(LineEvent, usize)> {
    let bytes = buf.get(..end)?;
    // @, spaces
    if bytes.get(at) != Some(&b'@') {
        return None;
    }
    let keyword_at = rr_spaces_end(bytes, at + 1);
    if keyword_at == at + 1 {
        return None;
    }
    // KEYWORD(
    let mut keyword_end = keyword_at;
    while keyword_end < keyword_at + 8
        && bytes.get(keyword_end).is_some_and(u8::is_ascii_alphabetic)
    {
        keyword_end += 1;
    }
    if keyword_end == keyword_at || bytes.get(keyword_end) != Some(&b'(') {
        return None;
    }
    let keyword = keyword_of(word(buf, keyword_at, keyword_end - keyword_at))?;
    // THREAD,
    let thread_at = keyword_end + 1;
    let thread_end = rr_word_end(bytes, thread_at)?;
    if thread_end == thread_at || bytes.get(thread_end) != Some(&b',') {
        return None;
    }
    // TARGET): the general parser's target runs to the last `)` of its word; one that is not
    // the word's last byte (the rest of the word then being the shadow state) is left to it.
    let target_at = thread_end + 1;
    let word_end = rr_word_end(bytes, target_at)?;
    if word_end < target_at + 2 || bytes[word_end - 1] != b')' {
        return None;
    }
    let target = Span {
        at: target_at,
        len: word_end - 1 - target_at,
        word: None,
    };
    // An access's shadow state, then its location: two words, which the general parser
    // requires. What follows is not read, to the line's end.
    let access = matches!(keyword, Keyword::Read | Keyword::Write);
    let mut tail = word_end;
    let mut loc = None;
    if access {
        let shadow_at = rr_spaces_end(bytes, word_end);
        let shadow_end = rr_word_end(bytes, shadow_at)?;
        let loc_at = rr_spaces_end(bytes, shadow_end);
        let loc_end = rr_word_end(bytes, loc_at)?;
        if loc_end == loc_at {
            return None;
        }
        loc = Some(Span {
            at: loc_at,
            len: loc_end - loc_at,
            word: None,
        });
        tail = loc_end;
    }
    let next = match bytes.get(tail) {
        Some(b'\n') => tail + 1,
        _ => tail + crate::lines::find_newline(&bytes[tail..])? + 1,
    };
    // Interned in the general parser's order: thread, target, location.
    let thread = ThreadId(intern(
        names,
        NameKind::Thread,
        buf,
        Span {
            at: thread_at,
            len: thread_end - thread_at,
            word: None,
        },
    )?);
    let op = match keyword {
        Keyword::Acquire => Op::Acquire(LockId(intern(names, NameKind::Lock, buf, target)?)),
        Keyword::Release => Op::Release(LockId(intern(names, NameKind::Lock, buf, target)?)),
        Keyword::Read => Op::Read(VarId(intern(names, NameKind::Var, buf, target)?)),
        Keyword::Write => Op::Write(VarId(intern(names, NameKind::Var, buf, target)?)),
        Keyword::Start => Op::Fork(ThreadId(intern(names, NameKind::Thread, buf, target)?)),
        Keyword::Join => Op::Join(ThreadId(intern(names, NameKind::Thread, buf, target)?)),
        Keyword::Enter => Op::Begin(Some(SymId(intern(names, NameKind::Symbol, buf, target)?))),
        Keyword::Exit => Op::End,
        // Never named by `keyword_of`: the general parser answers it.
        Keyword::Dummy => return None,
    };
    let loc = match loc {
        Some(span) => Some(LocId(intern(names, NameKind::Location, buf, span)?)),
        None => None,
    };
    Some((LineEvent { thread, op, loc }, next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate_trace, GenConfig};
    use crate::names::Names;
    use crate::roadrunner::{RoadRunnerLines, RoadRunnerWriter};
    use crate::text::{TextLines, TextWriter};
    use crate::{RoadRunnerOptions, TraceError};
    use proptest::prelude::*;

    /// Every kind's names, in id order: two `Names` that list the same gave the same ids.
    fn listed(names: &Names) -> Vec<Vec<String>> {
        NameKind::ALL
            .iter()
            .map(|&k| names.of(k).iter().map(str::to_owned).collect())
            .collect()
    }

    /// Names a trace may already hold when the line comes, so that some of the line's names
    /// are known and some new.
    fn seeded() -> Names {
        let mut names = Names::default();
        for (kind, name) in [
            (NameKind::Thread, "T1"),
            (NameKind::Thread, "T0"),
            (NameKind::Var, "x"),
            (NameKind::Lock, "L11"),
            (NameKind::Location, "Bank.java:22"),
        ] {
            names.of_mut(kind).intern(name.as_bytes()).expect("ascii");
        }
        names
    }

    /// `line` (no `\n` in it) read by the general parser and by this one, from a buffer that
    /// holds `before`, the line, its `\n` (unless `ended` is false) and `after`: the same
    /// event and the same names, or nothing parsed here and nothing interned.
    fn agree(before: &[u8], line: &[u8], ended: bool, after: &[u8]) -> Result<(), TestCaseError> {
        let mut buf = before.to_vec();
        buf.extend_from_slice(line);
        if ended {
            buf.push(b'\n');
        }
        let end = buf.len();
        buf.extend_from_slice(after);
        agree_in(&buf, before.len(), end, line, ended)
    }

    /// [`agree`] with `after` read as well (the line ended): `end` lies past it.
    fn agree_read_past(before: &[u8], line: &[u8], after: &[u8]) -> Result<(), TestCaseError> {
        let buf = [before, line, b"\n", after].concat();
        agree_in(&buf, before.len(), buf.len(), line, true)
    }

    /// `line`, at `at` in `buf` whose bytes read end at `end`, read by the general parser
    /// and by this one: the same event and names, or nothing parsed here and nothing
    /// interned.
    fn agree_in(
        buf: &[u8],
        at: usize,
        end: usize,
        line: &[u8],
        ended: bool,
    ) -> Result<(), TestCaseError> {
        let mut general_names = seeded();
        let general: Result<_, TraceError> =
            TextLines::new().parse(line, 9, false, &mut general_names);
        let mut fast_names = seeded();
        let fast = parse_line(buf, at, end, &mut fast_names);
        match fast {
            Some((event, next)) => {
                prop_assert!(ended, "a line without its end parsed: {line:?}");
                prop_assert_eq!(next, at + line.len() + 1);
                let Ok(Some(want)) = general else {
                    return Err(TestCaseError::fail(format!(
                        "{line:?}: parsed here, but the general parser gives {general:?}"
                    )));
                };
                prop_assert_eq!(
                    (event.thread, event.op, event.loc),
                    (want.thread, want.op, want.loc),
                    "{:?}",
                    String::from_utf8_lossy(line)
                );
                prop_assert_eq!(listed(&fast_names), listed(&general_names));
            }
            None => prop_assert_eq!(listed(&fast_names), listed(&seeded())),
        }
        Ok(())
    }

    /// Lines of the common shape on both sides of the 16 bytes [`short_line`] lays out, with
    /// more lines read after them: the same events, and the same next line, as the loops
    /// give (lines longer than 16 bytes are theirs alone).
    #[test]
    fn short_lines_are_laid_out_as_the_loops_lay_them_out() {
        for line in [
            &b"T4|r(x5307)|11"[..],
            b"T4|r(x53071)|11",
            b"T4|r(x530712)|11",
            b"T4|w(x)|1",
            b"T4|acq(L11)",
            b"T4|end",
            b"T4|begin|3",
            b"T4|begin(m)|3",
            b"T12345678|fork(T9)|1",
            b"T|astore(abcdefgh)|9",
        ] {
            let after = b"T1|w(x)|2\nT1|w(x)|2\n";
            // The same event and next line as the general parser's, when parsed here...
            agree_read_past(b"", line, after).unwrap();
            let buf = [line, b"\n", after].concat();
            // ...which every one of these lines is, by two words or by the loops.
            assert!(
                parse_line(&buf, 0, buf.len(), &mut seeded()).is_some(),
                "{line:?}"
            );
            let short = short_line(&buf, 0, buf.len());
            assert_eq!(short.is_some(), line.len() < SHORT_LINE, "{line:?}");
        }
    }

    /// The table's test and the words' test name the same bytes, each byte in each place of
    /// the word.
    #[test]
    fn stop_bytes_are_the_bytes_no_name_holds() {
        for b in 0..=255u8 {
            for place in 0..8 {
                let mut bytes = [b'a'; 8];
                bytes[place] = b;
                let stops = gathered(stop_bytes(u64::from_le_bytes(bytes)));
                let want = if NAME_BYTE[b as usize] { 0 } else { 1 << place };
                assert_eq!(stops, want, "byte {b:#x} at {place}");
            }
        }
    }

    impl std::fmt::Debug for LineEvent {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{:?} {:?} {:?}", self.thread, self.op, self.loc)
        }
    }

    /// Names, operations and what can surround them: known and new names, names of 8 and 9
    /// bytes (the two sides of the small names' word), bytes the common shape leaves to
    /// the general parser (spaces, `\r`, a vertical tab, which Rust's trimming keeps,
    /// non-ASCII and non-UTF-8 bytes, `#`, `,`).
    fn name() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            4 => prop::sample::select(vec![
                "T1", "T0", "T7", "x", "x5307", "L11", "12345678", "123456789",
                "Bank.java:22", "a,b", "#c", "c#", "-", "nil", "call", "r",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::collection::vec(
                prop::sample::select(b"ab1#,| ()\t\r\x0b\x00\xc3\xa9\xff.".to_vec()),
                0..11
            ),
        ]
    }

    fn op() -> impl Strategy<Value = Vec<u8>> {
        prop::sample::select(vec![
            "r", "w", "acq", "rel", "req", "fork", "join", "aload", "astore", "rmw", "snd", "rcv",
            "begin", "end", "call", "foo", "", "R", "acquire", "rd", "forkjoin",
        ])
        .prop_map(|s| s.as_bytes().to_vec())
    }

    /// Spaces where a line may or may not have them.
    fn pad() -> impl Strategy<Value = &'static [u8]> {
        prop_oneof![
            8 => Just(&b""[..]),
            1 => prop::sample::select(vec![&b" "[..], b"\t", b"\r", b"\x0b", b"  "]),
        ]
    }

    /// Lines of the shape `THREAD|OP(TARGET)|LOCATION`, each part possibly missing, doubled,
    /// padded or mangled; and lines of random bytes of the format's alphabet.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let shaped = (
            (pad(), name(), pad()),
            (op(), prop_oneof![4 => Just(Some(())), 1 => Just(None)]),
            (name(), pad()),
            prop_oneof![3 => Just(Some(())), 1 => Just(None)],
            (name(), pad()),
        )
            .prop_map(
                |((p0, thread, p1), (op, paren), (target, p2), bar, (loc, p3))| {
                    let mut l = [p0, &thread[..], p1, b"|", &op[..]].concat();
                    if paren.is_some() {
                        l.extend_from_slice(&[b"(", &target[..], b")", p2].concat());
                    }
                    if bar.is_some() {
                        l.extend_from_slice(&[b"|", &loc[..], p3].concat());
                    }
                    l
                },
            );
        let soup = prop::collection::vec(
            prop::sample::select(b"T1x|()acqrwend #,\t\r\xff".to_vec()),
            0..20,
        );
        prop_oneof![6 => shaped, 1 => soup]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The general parser is the specification: on any line, this one agrees with it or
        /// leaves the line to it, wherever the line lies in the buffer and whatever follows.
        #[test]
        fn agrees_with_the_general_parser(
            line in line(),
            before in prop::sample::select(vec![&b""[..], b"T0|r(x)|1\n", b"junk\n"]),
            ended in prop_oneof![5 => Just(true), 1 => Just(false)],
            after in prop::sample::select(vec![&b""[..], b"T1|w(x)|2\n", b"|", b"abcdefghijklmnop"]),
        ) {
            prop_assume!(!line.contains(&b'\n'));
            agree(before, &line, ended, after)?;
        }

        /// The same with the lines after this one read too, as a reader's buffer holds them:
        /// a line of at most 16 bytes is then laid out from two words that may reach past
        /// its end ([`short_line`]), a longer one by the loops.
        #[test]
        fn agrees_with_the_general_parser_with_the_next_lines_read(
            line in line(),
            before in prop::sample::select(vec![&b""[..], b"T0|r(x)|1\n"]),
            after in prop::sample::select(vec![
                &b"T1|w(x)|2\n"[..],
                b"T1|w(x5307)|12\nT0|r(x)|1\n",
                b"|()\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
                b"abcdefghijklmnopqrstuvwxyz\n",
                b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
            ]),
        ) {
            prop_assume!(!line.contains(&b'\n'));
            agree_read_past(before, &line, after)?;
        }

        /// The same of a RoadRunner log's lines: [`parse_roadrunner_line`] agrees with the
        /// general parser of `crate::roadrunner` or leaves the line to it.
        #[test]
        fn roadrunner_lines_agree_with_the_general_parser(
            line in rr_line(),
            before in prop::sample::select(vec![&b""[..], b"@   Rd(1,x)  null  A.java:1\n", b"junk\n"]),
            ended in prop_oneof![5 => Just(true), 1 => Just(false)],
            after in prop::sample::select(vec![&b""[..], b"@ Wr(1,x) null 2\n", b")", b"abcdefghijklmnop"]),
        ) {
            prop_assume!(!line.contains(&b'\n'));
            agree_rr(before, &line, ended, after)?;
        }
    }

    /// A RoadRunner log's `line` (no `\n` in it) read by the general parser and by
    /// [`parse_roadrunner_line`], from a buffer laid out as [`agree`]'s: the same event and
    /// the same names, or nothing parsed here and nothing interned.
    fn agree_rr(
        before: &[u8],
        line: &[u8],
        ended: bool,
        after: &[u8],
    ) -> Result<(), TestCaseError> {
        let mut buf = before.to_vec();
        buf.extend_from_slice(line);
        if ended {
            buf.push(b'\n');
        }
        let end = buf.len();
        buf.extend_from_slice(after);
        let mut general_names = seeded();
        let general: Result<_, TraceError> = RoadRunnerLines::new(&RoadRunnerOptions::default())
            .parse(line, 9, false, &mut general_names);
        let mut fast_names = seeded();
        let fast = parse_roadrunner_line(&buf, before.len(), end, &mut fast_names);
        match fast {
            Some((event, next)) => {
                prop_assert!(ended, "a line without its end parsed: {line:?}");
                prop_assert_eq!(next, before.len() + line.len() + 1);
                let Ok(Some(want)) = general else {
                    return Err(TestCaseError::fail(format!(
                        "{:?}: parsed here, but the general parser gives {general:?}",
                        String::from_utf8_lossy(line)
                    )));
                };
                prop_assert_eq!(
                    (event.thread, event.op, event.loc),
                    (want.thread, want.op, want.loc),
                    "{:?}",
                    String::from_utf8_lossy(line)
                );
                prop_assert_eq!(listed(&fast_names), listed(&general_names));
            }
            None => prop_assert_eq!(listed(&fast_names), listed(&seeded())),
        }
        Ok(())
    }

    /// Words of a RoadRunner log: RoadRunner's names (numbered threads, fields, arrays,
    /// methods with their parentheses, locations), names of 8 and 9 bytes, and bytes its
    /// grammar treats apart (`,`, `(`, `)`, Java's whitespace, non-ASCII and non-UTF-8).
    fn rr_word() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            8 => prop::sample::select(vec![
                "0", "1", "T1", "x", "L11", "@03", "@1a2b[0]", "null.test/Test.x_I",
                "test/Test.run()V", "Test.java:12:5", "Bank.java:22", "12345678", "123456789",
                "null", "Final", "from", "x)", "x)y", "(x", ")", "a(b)c)",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::collection::vec(
                prop::sample::select(b"ab1,() \t\r\x0b\x0c\x00\xc3\xa9\xff.@".to_vec()),
                0..11
            ),
        ]
    }

    fn rr_keyword() -> impl Strategy<Value = &'static [u8]> {
        prop::sample::select(vec![
            &b"Acquire"[..],
            b"Release",
            b"Rd",
            b"ARd",
            b"Wr",
            b"AWr",
            b"Start",
            b"Join",
            b"Enter",
            b"Exit",
            b"Dummy",
            b"VRd",
            b"VWr",
            b"",
            b"Rdx",
            b"rd",
            b"AcquireX",
            b"Acquired",
        ])
    }

    /// Runs of Java's whitespace where a line has them, and sometimes none.
    fn rr_spaces() -> impl Strategy<Value = &'static [u8]> {
        prop_oneof![
            6 => prop::sample::select(vec![&b" "[..], b"  ", b"    "]),
            1 => prop::sample::select(vec![&b""[..], b"\t", b"\r", b"\x0b", b"\x0c", b" \r"]),
        ]
    }

    /// Lines of the shape `@ KEYWORD(THREAD,TARGET) SHADOW LOCATION REST`, each part possibly
    /// missing or mangled; and lines of random bytes of the format's alphabet.
    fn rr_line() -> impl Strategy<Value = Vec<u8>> {
        let shaped = (
            (prop_oneof![8 => Just(&b"@"[..]), 1 => Just(&b""[..]), 1 => Just(&b"#"[..])], rr_spaces()),
            (rr_keyword(), prop_oneof![8 => Just(&b"("[..]), 1 => Just(&b""[..])]),
            (rr_word(), prop_oneof![8 => Just(&b","[..]), 1 => Just(&b" "[..])]),
            (rr_word(), prop_oneof![6 => Just(&b")"[..]), 1 => Just(&b""[..])]),
            (rr_spaces(), rr_word(), rr_spaces(), rr_word()),
            prop_oneof![
                10 => Just(&b""[..]),
                1 => prop::sample::select(vec![&b" "[..], b"\r", b" tail", b",x", b" \xff", b"\xc3\xa9"]),
            ],
        )
            .prop_map(|((at, s0), (kw, open), (thread, comma), (target, close), (s1, shadow, s2, loc), rest)| {
                [at, s0, kw, open, &thread[..], comma, &target[..], close, s1, &shadow[..], s2, &loc[..], rest].concat()
            });
        let soup = prop::collection::vec(
            prop::sample::select(b"@ Rd(1,x) null L,\t\r\xff".to_vec()),
            0..24,
        );
        prop_oneof![6 => shaped, 1 => soup]
    }

    /// The lines this parser exists for are parsed here, not left to the general parser: a
    /// generated trace's every line, at every operation the common shape knows.
    #[test]
    fn the_common_shapes_are_parsed_here() {
        let trace = generate_trace(&GenConfig {
            events: 3_000,
            threads: 6,
            vars: 300,
            locks: 5,
            blocks: 0.2,
            ..GenConfig::default()
        });
        let mut w = TextWriter::new(Vec::new());
        for e in &trace.events {
            w.write_event(e, &trace.names).expect("writable");
        }
        let text = w.finish().expect("in memory");
        let extra = b"T9|aload(a1)|s\nT9|astore(a1)\nT9|rmw(a123456789)|1\nT9|snd(m)|2\nT9|rcv(m)|2\nT9|req(L0)\nT9|begin\nT9|begin(label)|3\nT9|end|4\n";
        let text = [&text[..], extra].concat();
        let mut names = Names::default();
        let mut at = 0;
        let mut events = Vec::new();
        while at < text.len() {
            let Some((event, next)) = parse_line(&text, at, text.len(), &mut names) else {
                panic!(
                    "left to the general parser: {:?}",
                    String::from_utf8_lossy(&text[at..])
                );
            };
            events.push(event);
            at = next;
        }
        assert_eq!(events.len(), trace.events.len() + 9);
        for (got, want) in events.iter().zip(&trace.events) {
            assert_eq!(
                (got.thread, &got.op, got.loc),
                (want.thread, &want.op, want.loc)
            );
        }
        assert_eq!(
            listed(&names)[NameKind::Var as usize][..trace.names.vars.len()],
            listed(&trace.names)[NameKind::Var as usize][..]
        );
    }

    /// Lines this parser leaves to the general one, each for a reason of its own.
    #[test]
    fn other_lines_are_left_to_the_general_parser() {
        for line in [
            &b"# a comment\n"[..],
            b"\n",
            b"   \n",
            b"T1 |r(x)|1\n",
            b"T1|r( x)|1\n",
            b"T1|r(x)|1\r\n",
            b"T1|r(x)|\n",
            b"T1|r(x)\t\n",
            b"T1|call(o.m(1)/2)|3\n",
            b"T1|r|1\n",
            b"T1|end(x)|1\n",
            b"T1|end()|1\n",
            b"T1|begin()|1\n",
            b"T1|foo(x)|1\n",
            b"T1|acquire(x)|1\n",
            b"|r(x)|1\n",
            b"T1|(x)|1\n",
            b"T1|r(x)|1|2\n",
            b"T1|r(x(y))|1\n",
            b"T\xc3\xa9|r(x)|1\n",
            b"T1|r(x)|1",
        ] {
            let mut names = Names::default();
            assert!(
                parse_line(line, 0, line.len(), &mut names).is_none(),
                "{:?}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(names.total(), 0);
        }
    }

    /// A RoadRunner log's event lines are parsed here: a generated trace written as
    /// `RoadRunnerWriter` writes it, and lines as RoadRunner prints them (indentation,
    /// `ARd`/`AWr`, methods with parentheses, RAPID's example line, a `\r\n` end, words after
    /// the location).
    #[test]
    fn the_common_roadrunner_shapes_are_parsed_here() {
        let trace = generate_trace(&GenConfig {
            events: 3_000,
            threads: 6,
            vars: 300,
            locks: 5,
            ..GenConfig::default()
        });
        let mut w = RoadRunnerWriter::new(Vec::new());
        let mut written = Vec::new();
        for e in &trace.events {
            if w.write_event(e, &trace.names).expect("expressible") {
                written.push(e);
            }
        }
        let log = w.finish().expect("in memory");
        let extra: &[u8] = b"@  Enter(0,test/Test.main([Ljava/lang/String;)V) from null\n\
            @   Start(0,1)\n\
            @    Acquire(1,@03)\n\
            @    Wr(1,null.test/Test.x_I)  Final  Test.java:12:5\n\
            @    ARd(2,null.test/Deadlock.value_I)  Final  Deadlock.java:50:7\n\
            @   AWr(0,@1a2b[0])  null  Test.java:20:9\r\n\
            @   Rd(0,x)\tS\tL more words, and a comma\n\
            @   Exit(1,test/Deadlock.doSomething()V)\n\
            @   Join(0,1)\n";
        let log = [&log[..], extra].concat();
        let mut names = Names::default();
        let mut at = 0;
        let mut events = Vec::new();
        while at < log.len() {
            let Some((event, next)) = parse_roadrunner_line(&log, at, log.len(), &mut names) else {
                panic!(
                    "left to the general parser: {:?}",
                    String::from_utf8_lossy(&log[at..])
                );
            };
            events.push(event);
            at = next;
        }
        assert_eq!(events.len(), written.len() + 9);
        // Ids differ where a log leaves a location out (it keeps those of accesses only):
        // events are compared as text.
        let show = |thread, op, loc: Option<LocId>, names: &Names| {
            let op = crate::event::DisplayOp::new(op, names);
            let loc = loc.map_or("", |l| names.location(l));
            format!("{}|{op}|{loc}", names.thread(thread))
        };
        for (got, want) in events.iter().zip(&written) {
            let loc = want
                .loc
                .filter(|_| matches!(want.op, Op::Read(_) | Op::Write(_)));
            assert_eq!(
                show(got.thread, &got.op, got.loc, &names),
                show(want.thread, &want.op, loc, &trace.names)
            );
        }
        let tail: Vec<String> = events[written.len()..]
            .iter()
            .map(|e| show(e.thread, &e.op, e.loc, &names))
            .collect();
        assert_eq!(
            tail,
            [
                "0|begin(test/Test.main([Ljava/lang/String;)V)|",
                "0|fork(1)|",
                "1|acq(@03)|",
                "1|w(null.test/Test.x_I)|Test.java:12:5",
                "2|r(null.test/Deadlock.value_I)|Deadlock.java:50:7",
                "0|w(@1a2b[0])|Test.java:20:9",
                "0|r(x)|L",
                "1|end|",
                "0|join(1)|",
            ]
        );
    }

    /// Lines of a RoadRunner log this parser leaves to the general one, each for a reason of
    /// its own: lines the general parser skips, lines it refuses, and lines whose words it
    /// reads past what this parser would.
    #[test]
    fn other_roadrunner_lines_are_left_to_the_general_parser() {
        for line in [
            &b"[main: Running in FAST Mode]\n"[..],
            b"\n",
            b"@  main[tid = 0] started .\n",
            b"@Rd(1,x)  null  A.java:1\n",
            b"@   VRd(0,null.test/Test.flag_Z)  null\n",
            b"@   Dummy(0,x)\n",
            b"@   Rd(0,x)  null\n",
            b"@   Rd(0,x)\n",
            b"@   Rd(0 x)  null  L\n",
            b"@   Rd(,x)  null  L\n",
            b"@   Rd(0,)  null  L\n",
            b"@   Rd(0,x  null  L\n",
            b"@   Rd(0,x)y  null  L\n",
            b"@   Rd(0,x),  null  L\n",
            b"@   Rd(0,x\xc3\xa9)  null  L\n",
            b"@   Rd(0,x)  null  L\xc3\xa9\n",
            b"@   Rd(\xff,x)  null  L\n",
            b"@   Acquire(0,l)\xff)\n",
            b"@   Rdx(0,x)  null  L\n",
            b"@   Acquired(0,l)\n",
            b"@   Acquire(0,l)",
        ] {
            let mut names = Names::default();
            assert!(
                parse_roadrunner_line(line, 0, line.len(), &mut names).is_none(),
                "{:?}",
                String::from_utf8_lossy(line)
            );
            assert_eq!(names.total(), 0);
        }
    }
}
