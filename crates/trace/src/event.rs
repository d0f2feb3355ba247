//! The event model: what one line of a trace says happened.

use crate::names::{LocId, LockId, MsgId, Names, ObjId, SymId, ThreadId, VarId};
use std::fmt::{self, Write as _};

/// A value passed to or returned from a method of a shared object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Int(i64),
    Nil,
    /// A bare identifier such as `true` or `RED`.
    Sym(SymId),
    /// A double-quoted string; the id names its unescaped contents.
    Str(SymId),
}

/// A method call on a shared object, with its arguments and results:
/// `call(m.put(5,7)/nil)` calls `put` on `m` with `5, 7` and gets `nil` back.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Call {
    pub object: ObjId,
    pub method: SymId,
    pub args: Vec<Value>,
    pub results: Vec<Value>,
}

/// A call with its values borrowed, for calls not kept in a [`Call`] of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallRef<'a> {
    pub object: ObjId,
    pub method: SymId,
    pub args: &'a [Value],
    pub results: &'a [Value],
}

impl CallRef<'_> {
    pub fn to_owned(&self) -> Call {
        Call {
            object: self.object,
            method: self.method,
            args: self.args.to_vec(),
            results: self.results.to_vec(),
        }
    }
}

impl Call {
    #[inline]
    pub fn borrowed(&self) -> CallRef<'_> {
        CallRef {
            object: self.object,
            method: self.method,
            args: &self.args,
            results: &self.results,
        }
    }
}

/// Reused `Call` boxes, so that a reader lending out events allocates nothing per call: the
/// box of the event it replaces comes back here. Two are kept because the slot's box and the
/// one being filled are both in use while the next call is decoded.
// The boxes themselves are what is reused: they move in and out of `Op::Call` as they are.
#[allow(clippy::vec_box)]
#[derive(Debug, Default)]
pub struct CallPool(Vec<Box<Call>>);

impl CallPool {
    /// An empty call, reusing a returned box (and its vectors' capacity) when there is one.
    #[inline]
    pub fn take(&mut self) -> Box<Call> {
        let mut call = self.0.pop().unwrap_or_default();
        call.args.clear();
        call.results.clear();
        call
    }

    #[inline]
    pub fn give(&mut self, call: Box<Call>) {
        if self.0.len() < 2 {
            self.0.push(call);
        }
    }

    /// Takes back the box of an operation that is being replaced.
    #[inline]
    pub fn recycle(&mut self, op: Op) {
        if let Op::Call(call) = op {
            self.give(call);
        }
    }
}

/// The operation an event performs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Read(VarId),
    Write(VarId),
    Acquire(LockId),
    Release(LockId),
    /// RAPID's lock request, logged before the acquire; it orders nothing.
    Request(LockId),
    Fork(ThreadId),
    Join(ThreadId),
    /// Start of an atomic block, optionally labelled (`begin(name)`).
    Begin(Option<SymId>),
    End,
    Send(MsgId),
    Receive(MsgId),
    Call(Box<Call>),
    /// An atomic load (`aload(x)`): a read that never takes part in a data race and orders
    /// nothing by itself; the ordering an acquire gives is a `rcv` written next to it.
    AtomicLoad(VarId),
    /// An atomic store (`astore(x)`): a write that never races and orders nothing by itself;
    /// a release is a `snd` written next to it.
    AtomicStore(VarId),
    /// An atomic read-modify-write (`rmw(x)`): ONE indivisible event that both reads and
    /// writes `x` (no other event can come between its read and its write); never races.
    AtomicRmw(VarId),
}

/// The operation names of the text format, shared by reader, writer and messages.
pub const OP_NAMES: [&str; 15] = [
    "r", "w", "acq", "rel", "req", "fork", "join", "begin", "end", "snd", "rcv", "call", "aload",
    "astore", "rmw",
];

impl Op {
    /// The kind of a call (see [`Op::kind`]).
    pub const CALL_KIND: usize = 11;

    /// The kind of the operation: its position in [`OP_NAMES`].
    #[inline]
    pub fn kind(&self) -> usize {
        match self {
            Op::Read(_) => 0,
            Op::Write(_) => 1,
            Op::Acquire(_) => 2,
            Op::Release(_) => 3,
            Op::Request(_) => 4,
            Op::Fork(_) => 5,
            Op::Join(_) => 6,
            Op::Begin(_) => 7,
            Op::End => 8,
            Op::Send(_) => 9,
            Op::Receive(_) => 10,
            Op::Call(_) => Op::CALL_KIND,
            Op::AtomicLoad(_) => 12,
            Op::AtomicStore(_) => 13,
            Op::AtomicRmw(_) => 14,
        }
    }

    /// The variable an access reads or writes, plain or atomic.
    #[inline]
    pub fn accessed(&self) -> Option<VarId> {
        match self {
            Op::Read(x)
            | Op::Write(x)
            | Op::AtomicLoad(x)
            | Op::AtomicStore(x)
            | Op::AtomicRmw(x) => Some(*x),
            _ => None,
        }
    }

    /// Whether the operation reads its variable (a plain or atomic load, or an RMW).
    #[inline]
    pub fn reads(&self) -> bool {
        matches!(self, Op::Read(_) | Op::AtomicLoad(_) | Op::AtomicRmw(_))
    }

    /// Whether the operation writes its variable (a plain or atomic store, or an RMW).
    #[inline]
    pub fn writes(&self) -> bool {
        matches!(self, Op::Write(_) | Op::AtomicStore(_) | Op::AtomicRmw(_))
    }

    /// Whether the operation is an atomic access, which no data race can involve.
    #[inline]
    pub fn is_atomic(&self) -> bool {
        matches!(
            self,
            Op::AtomicLoad(_) | Op::AtomicStore(_) | Op::AtomicRmw(_)
        )
    }

    /// The name of the operation in the text format.
    pub fn mnemonic(&self) -> &'static str {
        OP_NAMES[self.kind()]
    }
}

/// One event: its 0-based index in the trace, its thread, what it did and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub index: u64,
    pub thread: ThreadId,
    pub op: Op,
    pub loc: Option<LocId>,
}

impl Event {
    pub fn new(index: u64, thread: ThreadId, op: Op) -> Event {
        Event {
            index,
            thread,
            op,
            loc: None,
        }
    }

    /// The operation as the text format writes it, e.g. `w(x)` or `call(m.put(1,2)/nil)`.
    pub fn display_op<'a>(&'a self, names: &'a Names) -> DisplayOp<'a> {
        DisplayOp::new(&self.op, names)
    }
}

/// Renders an operation in the text format.
pub struct DisplayOp<'a> {
    op: &'a Op,
    names: &'a Names,
}

impl<'a> DisplayOp<'a> {
    pub fn new(op: &'a Op, names: &'a Names) -> DisplayOp<'a> {
        DisplayOp { op, names }
    }
}

impl fmt::Display for DisplayOp<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.names;
        let m = self.op.mnemonic();
        match self.op {
            Op::Read(x)
            | Op::Write(x)
            | Op::AtomicLoad(x)
            | Op::AtomicStore(x)
            | Op::AtomicRmw(x) => write!(f, "{m}({})", n.var(*x)),
            Op::Acquire(l) | Op::Release(l) | Op::Request(l) => write!(f, "{m}({})", n.lock(*l)),
            Op::Fork(t) | Op::Join(t) => write!(f, "{m}({})", n.thread(*t)),
            Op::Begin(None) | Op::End => f.write_str(m),
            Op::Begin(Some(label)) => write!(f, "begin({})", n.symbol(*label)),
            Op::Send(id) | Op::Receive(id) => write!(f, "{m}({})", n.msg(*id)),
            Op::Call(c) => {
                write!(f, "call({}.{}(", n.object(c.object), n.symbol(c.method))?;
                write_values(f, &c.args, n)?;
                f.write_str(")")?;
                if !c.results.is_empty() {
                    f.write_str("/")?;
                    write_values(f, &c.results, n)?;
                }
                f.write_str(")")
            }
        }
    }
}

fn write_values(f: &mut fmt::Formatter<'_>, values: &[Value], names: &Names) -> fmt::Result {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        write!(f, "{}", DisplayValue { value: *v, names })?;
    }
    Ok(())
}

/// Renders a value as the text format writes it (strings quoted and escaped).
pub struct DisplayValue<'a> {
    pub value: Value,
    pub names: &'a Names,
}

impl fmt::Display for DisplayValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            Value::Int(i) => write!(f, "{i}"),
            Value::Nil => f.write_str("nil"),
            Value::Sym(s) => f.write_str(self.names.symbol(s)),
            Value::Str(s) => {
                f.write_char('"')?;
                for c in self.names.symbol(s).chars() {
                    match c {
                        '"' => f.write_str("\\\"")?,
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        '\t' => f.write_str("\\t")?,
                        '\r' => f.write_str("\\r")?,
                        c => f.write_char(c)?,
                    }
                }
                f.write_char('"')
            }
        }
    }
}
