//! A thread's recorded events, compactly encoded until the trace is written, and the merge
//! of every thread's buffers into the global order.
//!
//! Every event stays in memory until [`super::Recorder::finish`], so its size is what the
//! recording costs in page faults: about 5 bytes here (the sequence number as the difference
//! from the thread's previous one, an op code, a varint operand and location) instead of the
//! 32 of an `Event`. Calls keep their arguments in a side vector.

use hindsight_trace::{Call, LocId, LockId, MsgId, Op, SymId, ThreadId, VarId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One thread's events in sequence-number order.
pub(crate) struct Chunk {
    pub(crate) thread: ThreadId,
    bytes: Vec<u8>,
    calls: Vec<Call>,
    last_seq: u64,
}

/// Bytes a chunk holds before it is handed to the session.
pub(crate) const CHUNK_BYTES: usize = 64 * 1024;

const READ: u8 = 0;
const WRITE: u8 = 1;
const ACQ: u8 = 2;
const REL: u8 = 3;
const REQ: u8 = 4;
const FORK: u8 = 5;
const JOIN: u8 = 6;
const BEGIN: u8 = 7;
const BEGIN_LABEL: u8 = 8;
const END: u8 = 9;
const SND: u8 = 10;
const RCV: u8 = 11;
const CALL: u8 = 12;
const ALOAD: u8 = 13;
const ASTORE: u8 = 14;
const RMW: u8 = 15;

/// The bytes were written by [`Record::varint`] in this process, so they are well formed.
#[inline(always)]
fn get_varint(bytes: &[u8], i: &mut usize) -> u64 {
    let mut x = 0u64;
    let mut shift = 0;
    loop {
        let b = bytes[*i];
        *i += 1;
        x |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return x;
        }
        shift += 7;
    }
}

impl Chunk {
    pub(crate) fn new(thread: ThreadId) -> Chunk {
        Chunk {
            thread,
            bytes: Vec::with_capacity(CHUNK_BYTES + 64),
            calls: Vec::new(),
            last_seq: 0,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn is_full(&self) -> bool {
        self.bytes.len() >= CHUNK_BYTES
    }

    /// Appends an event; `seq` is larger than every earlier one of this chunk. The record is
    /// assembled on the stack and appended with one copy (one capacity check).
    #[inline]
    pub(crate) fn push(&mut self, seq: u64, op: Op, loc: Option<LocId>) {
        let mut rec = Record::default();
        rec.varint(seq - self.last_seq);
        self.last_seq = seq;
        let (code, operand) = match op {
            Op::Read(x) => (READ, Some(x.0)),
            Op::Write(x) => (WRITE, Some(x.0)),
            Op::AtomicLoad(x) => (ALOAD, Some(x.0)),
            Op::AtomicStore(x) => (ASTORE, Some(x.0)),
            Op::AtomicRmw(x) => (RMW, Some(x.0)),
            Op::Acquire(l) => (ACQ, Some(l.0)),
            Op::Release(l) => (REL, Some(l.0)),
            Op::Request(l) => (REQ, Some(l.0)),
            Op::Fork(t) => (FORK, Some(t.0)),
            Op::Join(t) => (JOIN, Some(t.0)),
            Op::Begin(None) => (BEGIN, None),
            Op::Begin(Some(s)) => (BEGIN_LABEL, Some(s.0)),
            Op::End => (END, None),
            Op::Send(m) => (SND, Some(m.0)),
            Op::Receive(m) => (RCV, Some(m.0)),
            Op::Call(c) => {
                self.calls.push(*c);
                (CALL, None)
            }
        };
        rec.byte(code);
        if let Some(x) = operand {
            rec.varint(u64::from(x));
        }
        rec.varint(loc.map_or(0, |l| u64::from(l.0) + 1));
        self.bytes.extend_from_slice(&rec.bytes[..rec.len]);
    }
}

/// One encoded event: at most 10 + 1 + 5 + 5 bytes.
struct Record {
    bytes: [u8; 24],
    len: usize,
}

impl Default for Record {
    #[inline(always)]
    fn default() -> Record {
        Record {
            bytes: [0; 24],
            len: 0,
        }
    }
}

impl Record {
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    #[inline(always)]
    fn varint(&mut self, mut x: u64) {
        while x >= 0x80 {
            self.byte((x as u8) | 0x80);
            x >>= 7;
        }
        self.byte(x as u8);
    }
}

/// Reads one thread's chunks back, one event at a time.
struct Cursor {
    /// The chunks still to read, in order (a thread hands its chunks over in order).
    rest: std::vec::IntoIter<Chunk>,
    chunk: Chunk,
    calls: std::vec::IntoIter<Call>,
    at: usize,
    /// The sequence number of the event last read, and of the next one.
    seq: u64,
    next: Option<u64>,
}

impl Cursor {
    fn new(chunks: Vec<Chunk>) -> Cursor {
        let mut rest = chunks.into_iter();
        let chunk = rest.next().expect("a thread with events has a chunk");
        let mut c = Cursor {
            rest,
            chunk,
            calls: Vec::new().into_iter(),
            at: 0,
            seq: 0,
            next: None,
        };
        c.calls = std::mem::take(&mut c.chunk.calls).into_iter();
        c.peek();
        c
    }

    /// Moves to the next non-empty chunk if this one is exhausted, and reads the next
    /// sequence number.
    fn peek(&mut self) {
        while self.at >= self.chunk.bytes.len() {
            match self.rest.next() {
                Some(mut chunk) => {
                    self.calls = std::mem::take(&mut chunk.calls).into_iter();
                    self.chunk = chunk;
                    self.at = 0;
                    // Each chunk's first delta is from 0.
                    self.seq = 0;
                }
                None => {
                    self.next = None;
                    return;
                }
            }
        }
        let mut i = self.at;
        self.next = Some(self.seq + get_varint(&self.chunk.bytes, &mut i));
    }

    fn next(&mut self) -> (Op, Option<LocId>) {
        let b = &self.chunk.bytes;
        let mut i = self.at;
        self.seq += get_varint(b, &mut i);
        let code = b[i];
        i += 1;
        let mut operand = || get_varint(b, &mut i) as u32;
        let op = match code {
            READ => Op::Read(VarId(operand())),
            WRITE => Op::Write(VarId(operand())),
            ALOAD => Op::AtomicLoad(VarId(operand())),
            ASTORE => Op::AtomicStore(VarId(operand())),
            RMW => Op::AtomicRmw(VarId(operand())),
            ACQ => Op::Acquire(LockId(operand())),
            REL => Op::Release(LockId(operand())),
            REQ => Op::Request(LockId(operand())),
            FORK => Op::Fork(ThreadId(operand())),
            JOIN => Op::Join(ThreadId(operand())),
            BEGIN => Op::Begin(None),
            BEGIN_LABEL => Op::Begin(Some(SymId(operand()))),
            END => Op::End,
            SND => Op::Send(MsgId(operand())),
            RCV => Op::Receive(MsgId(operand())),
            CALL => Op::Call(Box::new(self.calls.next().expect("one call per CALL code"))),
            _ => unreachable!("codes are written by Chunk::push"),
        };
        let loc = get_varint(b, &mut i);
        self.at = i;
        self.peek();
        (op, loc.checked_sub(1).map(|l| LocId(l as u32)))
    }
}

/// Every thread's events in sequence-number order: a merge of one ordered stream per thread
/// (a thread's own events are in order), with a heap as small as the number of threads.
pub(crate) struct Merge {
    cursors: Vec<Cursor>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Merge {
    /// `chunks` in the order they were handed over.
    pub(crate) fn new(chunks: Vec<Chunk>) -> Merge {
        let mut by_thread: Vec<Vec<Chunk>> = Vec::new();
        for c in chunks.into_iter().filter(|c| !c.is_empty()) {
            let t = c.thread.index();
            if t >= by_thread.len() {
                by_thread.resize_with(t + 1, Vec::new);
            }
            by_thread[t].push(c);
        }
        let cursors: Vec<Cursor> = by_thread
            .into_iter()
            .filter(|cs| !cs.is_empty())
            .map(Cursor::new)
            .collect();
        let heap = cursors
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.next.map(|s| Reverse((s, i))))
            .collect();
        Merge { cursors, heap }
    }
}

impl Iterator for Merge {
    type Item = (ThreadId, Op, Option<LocId>);

    fn next(&mut self) -> Option<Self::Item> {
        let Reverse((_, i)) = self.heap.pop()?;
        let c = &mut self.cursors[i];
        let thread = c.chunk.thread;
        let (op, loc) = c.next();
        if let Some(s) = c.next {
            self.heap.push(Reverse((s, i)));
        }
        Some((thread, op, loc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_merge_back_in_sequence_order() {
        let mut a = Chunk::new(ThreadId(0));
        let mut b = Chunk::new(ThreadId(1));
        let call = Call {
            object: hindsight_trace::ObjId(3),
            method: SymId(1),
            args: vec![hindsight_trace::Value::Int(-5)],
            results: vec![hindsight_trace::Value::Nil],
        };
        a.push(0, Op::Fork(ThreadId(1)), Some(LocId(0)));
        b.push(1, Op::Acquire(LockId(300)), None);
        b.push(2, Op::Call(Box::new(call.clone())), Some(LocId(200_000)));
        a.push(3, Op::Begin(Some(SymId(7))), None);
        b.push(1000, Op::Release(LockId(300)), None);
        a.push(1001, Op::End, Some(LocId(1)));
        let mut a2 = Chunk::new(ThreadId(0));
        a2.push(1002, Op::Write(VarId(1)), None);
        a2.push(1003, Op::AtomicRmw(VarId(2)), None);
        a2.push(1004, Op::AtomicLoad(VarId(2)), None);
        a2.push(1005, Op::AtomicStore(VarId(2)), None);
        let merged: Vec<_> = Merge::new(vec![b, a, Chunk::new(ThreadId(2)), a2]).collect();
        assert_eq!(
            merged,
            [
                (ThreadId(0), Op::Fork(ThreadId(1)), Some(LocId(0))),
                (ThreadId(1), Op::Acquire(LockId(300)), None),
                (ThreadId(1), Op::Call(Box::new(call)), Some(LocId(200_000))),
                (ThreadId(0), Op::Begin(Some(SymId(7))), None),
                (ThreadId(1), Op::Release(LockId(300)), None),
                (ThreadId(0), Op::End, Some(LocId(1))),
                (ThreadId(0), Op::Write(VarId(1)), None),
                (ThreadId(0), Op::AtomicRmw(VarId(2)), None),
                (ThreadId(0), Op::AtomicLoad(VarId(2)), None),
                (ThreadId(0), Op::AtomicStore(VarId(2)), None),
            ]
        );
    }
}
