//! Commutativity races (Dimitrov, Raychev, Vechev, Koskinen, PLDI'14).
//!
//! Two actions (method calls on one shared object) race when they may happen in parallel and
//! their spec does not say they commute (Definition 4.3). Specs are written in a small language
//! ([`spec`], [`parse`]); formulas in the paper's ECL fragment ([`ecl`]) are translated to access
//! points ([`translate`]) and checked by Algorithm 1 with a bounded number of lookups per action
//! (Theorem 6.6); pairs outside ECL are checked directly against every earlier action
//! (Section 5.1).
//!
//! Algorithm 1 keeps, per active access point, the join of the clocks of the actions that
//! touched it. We keep instead the latest action of each thread that touched it and is not
//! ordered before a later one (an antichain, usually of one action): "the join is not below
//! the current clock" holds exactly when one of them is unordered with the current action, so
//! the verdict is the paper's, and the kept actions name a partner for the report.
//!
//! The two phases of an action wait for a batch of `BATCH` actions, which then run in
//! trace order: an action's verdict depends only on the points as the earlier actions left
//! them and on its own clock, so each runs at a copy of its thread's clock as it was at the
//! action (the happens-before pass changes a thread's clock only at an event of that thread,
//! or at a fork or join naming it: after one, the next action takes a new copy). Before the
//! batch runs, the rows it will read are loaded one after another: on a state of a million
//! rows each is a cache miss, and requested together they overlap instead of adding up.

pub mod builtin;
pub mod ecl;
pub mod load;
pub mod parse;
pub mod spec;
pub mod translate;

use crate::driver::{Analysis, AnalysisOutput, FindingsJob, LentCall, Observer};
use crate::groups::{count, Granularity, Group, Groups, Site};
use hindsight_order::{HappensBefore, VectorClock};
use hindsight_report::{EventRef, Finding, Rule};
use hindsight_syntax::{Diagnostic, SyntaxError};
use hindsight_trace::event::DisplayValue;
use hindsight_trace::{CallRef, ErrorKind, Event, LocId, Names, ObjId, Op, SymId, ThreadId, Value};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value as Json;
use spec::{ObjectSpec, SpecFile, Val};
use std::sync::Arc;
use translate::Representation;

/// Most parameters (arguments and results) a method may have.
pub const MAX_PARAMS: usize = 8;

/// An object type ready for analysis.
pub struct CompiledSpec {
    pub spec: ObjectSpec,
    pub rep: Representation,
    /// How many classes are valued: the length of a value's row of points.
    valued_classes: usize,
    /// The most parameters any method has.
    max_params: usize,
    /// Per method, what an action needs before its values.
    entries: Vec<MethodEntry>,
    /// The atoms of every method, in the form [`CompiledSpec::beta`] decides fastest.
    atoms: Box<[FastAtom]>,
    plans: Vec<Plan>,
}

/// A method as an action first needs it: one 16-byte lookup by the trace's method symbol
/// (in [`ObjState::methods`]) gives its arity, its atoms and its plans.
#[derive(Clone, Copy, Debug)]
struct MethodEntry {
    /// The method's index in the spec; `u16::MAX`: the symbol has not been looked up.
    method: u16,
    args: u8,
    params: u8,
    /// Its atoms are `atoms[atoms..atoms + atom_count]` (at most `translate::MAX_ATOMS`).
    atoms: u32,
    atom_count: u32,
    /// Its plans, one per β vector, start at `plans[plan_base]`.
    plan_base: u32,
}

const UNRESOLVED: MethodEntry = MethodEntry {
    method: u16::MAX,
    args: 0,
    params: 0,
    atoms: 0,
    atom_count: 0,
    plan_base: 0,
};

/// An atom as [`CompiledSpec::beta`] decides it, on packed values ([`Word`]): equal values
/// have equal words, so equalities between parameters, or with `nil` or an integer constant,
/// are word comparisons; orders are decided on integers directly; the rest goes through
/// [`Val`] (e.g. an equality with a string constant, whose symbol the trace may not have).
#[derive(Clone, Copy, Debug)]
enum FastAtom {
    EqParams(usize, usize),
    EqWord(usize, Word),
    /// `left < right`.
    Less(FastTerm, FastTerm),
    Slow,
}

#[derive(Clone, Copy, Debug)]
enum FastTerm {
    Param(usize),
    Int(i64),
    /// A constant that is not an integer.
    Other,
}

impl FastAtom {
    fn of(atom: &translate::LocalAtom) -> FastAtom {
        use translate::{ConstKey, LocalTerm};
        let term = |t: &LocalTerm| match t {
            LocalTerm::Param(i) => FastTerm::Param(*i),
            LocalTerm::Const(ConstKey::Int(i)) => FastTerm::Int(*i),
            LocalTerm::Const(_) => FastTerm::Other,
        };
        if atom.less {
            return FastAtom::Less(term(&atom.left), term(&atom.right));
        }
        match (&atom.left, &atom.right) {
            (LocalTerm::Param(i), LocalTerm::Param(j)) => FastAtom::EqParams(*i, *j),
            (LocalTerm::Param(i), LocalTerm::Const(c))
            | (LocalTerm::Const(c), LocalTerm::Param(i)) => match c {
                ConstKey::Nil => FastAtom::EqWord(*i, NIL_WORD),
                ConstKey::Int(x) => {
                    small_int_word(*x).map_or(FastAtom::Slow, |w| FastAtom::EqWord(*i, w))
                }
                _ => FastAtom::Slow,
            },
            _ => FastAtom::Slow,
        }
    }
}

/// What an action of one method with one β vector does in Algorithm 1, worked out when the
/// spec is compiled, so that an action costs a table lookup plus its probes and touches.
#[derive(Debug)]
struct Plan {
    /// The `ds` point it touches.
    ds: Option<u32>,
    /// The `ds` classes in conflict with that point.
    ds_probes: Box<[u32]>,
    /// The valued points it touches.
    valued: Box<[ValuedTouch]>,
    /// Whether the method takes part in a pair checked directly (Section 5.1).
    direct: bool,
}

/// A valued point an action touches: a class, at the value of one parameter.
#[derive(Debug)]
struct ValuedTouch {
    param: usize,
    class: u32,
    /// Where the class' point sits in a value's row.
    rank: u32,
    /// The classes in conflict with it, each with its rank.
    probes: Box<[(u32, u32)]>,
}

impl CompiledSpec {
    /// The β vector of an action of the method `entry` whose parameters packed are `params`.
    #[inline]
    fn beta(&self, entry: MethodEntry, params: &[Word], journal: &Journal, names: &Names) -> u32 {
        let m = entry.method as usize;
        let slow = |bit: usize| self.slow_atom(m, bit, params, journal, names);
        let mut beta = 0;
        let atoms = &self.atoms[entry.atoms as usize..][..entry.atom_count as usize];
        for (bit, atom) in atoms.iter().enumerate() {
            let holds = match *atom {
                FastAtom::EqParams(i, j) => params[i] == params[j],
                FastAtom::EqWord(i, w) => params[i] == w,
                FastAtom::Less(l, r) => {
                    let int = |t: FastTerm| match t {
                        FastTerm::Param(i) => small_int_of(params[i]),
                        FastTerm::Int(x) => Some(x),
                        FastTerm::Other => None,
                    };
                    match (int(l), int(r)) {
                        (Some(a), Some(b)) => a < b,
                        _ => slow(bit),
                    }
                }
                FastAtom::Slow => slow(bit),
            };
            beta |= u32::from(holds) << bit;
        }
        beta
    }

    /// An atom decided on the values themselves, through [`Val`].
    #[cold]
    #[inline(never)]
    fn slow_atom(
        &self,
        m: usize,
        bit: usize,
        params: &[Word],
        journal: &Journal,
        names: &Names,
    ) -> bool {
        self.rep.atoms[m][bit].eval(|i| val(journal.unpack(params[i]), names))
    }

    pub fn compile(spec: ObjectSpec, force_direct: bool) -> Result<CompiledSpec, SyntaxError> {
        // Records and method entries keep a method's index in 16 bits, `u16::MAX` being
        // "not looked up".
        if spec.methods.len() >= usize::from(u16::MAX) {
            return Err(SyntaxError {
                pos: spec.pos,
                message: format!(
                    "object `{}` has {} methods; at most {} are supported",
                    spec.name,
                    spec.methods.len(),
                    u16::MAX - 1
                ),
            });
        }
        for m in &spec.methods {
            if m.params.len() > MAX_PARAMS {
                return Err(SyntaxError {
                    pos: m.pos,
                    message: format!(
                        "method `{}` has {} parameters; at most {MAX_PARAMS} are supported",
                        m.name,
                        m.params.len()
                    ),
                });
            }
        }
        let rep = translate::translate(&spec, force_direct)?;
        let n = spec.methods.len();
        let mut valued_classes = 0;
        let rank: Vec<u32> = rep
            .classes
            .iter()
            .map(|c| {
                if c.valued {
                    valued_classes += 1;
                    valued_classes as u32 - 1
                } else {
                    UNKNOWN
                }
            })
            .collect();
        let mut entries = Vec::with_capacity(n);
        let mut atoms = Vec::new();
        let mut plans = Vec::new();
        for m in 0..n {
            let method = &spec.methods[m];
            entries.push(MethodEntry {
                method: m as u16,
                args: method.args as u8,
                params: method.params.len() as u8,
                atoms: atoms.len() as u32,
                atom_count: rep.atoms[m].len() as u32,
                plan_base: plans.len() as u32,
            });
            atoms.extend(rep.atoms[m].iter().map(FastAtom::of));
            let direct = (0..n).any(|b| rep.is_direct(m, b));
            for beta in 0..1u32 << rep.atoms[m].len() {
                let ds = rep.ds_point(m, beta);
                let ds_probes = ds.map_or_else(Box::default, |c| {
                    rep.conflicts[c as usize].clone().into_boxed_slice()
                });
                let valued = rep
                    .value_points(m, beta)
                    .iter()
                    .enumerate()
                    .filter_map(|(param, c)| {
                        let class = (*c)?;
                        let probes = rep.conflicts[class as usize]
                            .iter()
                            .map(|&c2| {
                                debug_assert_ne!(rank[c2 as usize], UNKNOWN);
                                (c2, rank[c2 as usize])
                            })
                            .collect();
                        Some(ValuedTouch {
                            param,
                            class,
                            rank: rank[class as usize],
                            probes,
                        })
                    })
                    .collect();
                plans.push(Plan {
                    ds,
                    ds_probes,
                    valued,
                    direct,
                });
            }
        }
        let max_params = spec.methods.iter().map(|m| m.params.len()).max();
        Ok(CompiledSpec {
            spec,
            rep,
            valued_classes,
            max_params: max_params.unwrap_or(0),
            entries,
            atoms: atoms.into_boxed_slice(),
            plans,
        })
    }

    #[cold]
    fn arity_error(&self, m: usize, call: &CallRef<'_>) -> ErrorKind {
        let method = &self.spec.methods[m];
        ErrorKind::Analysis(format!(
            "{}.{} takes {} argument(s) and {} result(s), the call has {} and {}",
            self.spec.name,
            method.name,
            method.args,
            method.results(),
            call.args.len(),
            call.results.len()
        ))
    }
}

/// Compiles every object of a spec file.
pub fn compile_file(file: SpecFile, force_direct: bool) -> Result<Vec<CompiledSpec>, SyntaxError> {
    file.objects
        .into_iter()
        .map(|o| CompiledSpec::compile(o, force_direct))
        .collect()
}

/// Which spec each object of the trace follows.
#[derive(Clone, Debug)]
pub enum Binding {
    /// Every object follows the one spec.
    All(usize),
    /// By object name; other objects are an error.
    Named(FxHashMap<String, usize>),
}

/// An action as a race reports it.
#[derive(Clone, Copy, Debug)]
struct Action {
    head: Head,
    vals: [Value; MAX_PARAMS],
}

/// What the journal keeps of an action besides its values.
#[derive(Clone, Copy, Debug)]
struct Head {
    index: u64,
    thread: ThreadId,
    clock: u32,
    loc: Option<LocId>,
    method: u16,
    len: u8,
}

impl Head {
    /// The first words of the record of an action with this head ([`Head::unpack`] reads
    /// them back).
    #[inline(always)]
    fn pack(
        index: u64,
        thread: ThreadId,
        clock: u32,
        loc: Option<LocId>,
        method: u16,
        len: usize,
    ) -> [u64; HEAD_WORDS] {
        let loc = loc.map_or(NO_LOC, |l| u64::from(l.0));
        [
            index,
            u64::from(thread.0) | u64::from(clock) << 32,
            loc | u64::from(method) << 32 | (len as u64) << 48,
        ]
    }

    /// The head packed in a record's first words.
    fn unpack([w0, w1, w2]: [u64; HEAD_WORDS]) -> Head {
        let loc = w2 as u32;
        Head {
            index: w0,
            thread: ThreadId(w1 as u32),
            clock: (w1 >> 32) as u32,
            loc: (u64::from(loc) != NO_LOC).then_some(LocId(loc)),
            method: (w2 >> 32) as u16,
            len: (w2 >> 48) as u8,
        }
    }

    #[inline]
    fn ordered_before(&self, t: ThreadId, vc: &VectorClock) -> bool {
        self.thread == t || self.clock <= vc.get(self.thread)
    }
}

/// A value of a trace as formulas see it.
#[inline]
pub fn val(v: Value, names: &Names) -> Val<'_> {
    match v {
        Value::Int(i) => Val::Int(i),
        Value::Nil => Val::Nil,
        Value::Sym(s) => Val::Sym(names.symbol(s)),
        Value::Str(s) => Val::Str(names.symbol(s)),
    }
}

fn vals_of<'n>(vals: &[Value], names: &'n Names) -> [Val<'n>; MAX_PARAMS] {
    let mut out = [Val::Nil; MAX_PARAMS];
    for (o, v) in out.iter_mut().zip(vals) {
        *o = val(*v, names);
    }
    out
}

/// An access point of one object: a class, with its value for valued classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Point {
    Ds(u32),
    Valued(u32, Value),
    /// Not a point: the pair was checked directly against the formula.
    Direct,
}

/// A trace value packed in a word: three tag bits under the payload. Integers that need more
/// than 61 bits are interned by the journal, so that equal values, and only they, have equal
/// words: the analysis compares, hashes and stores words, and turns them back into values
/// only for formulas outside the fast cases and for reports.
type Word = u64;

const TAG_BITS: u32 = 3;
const TAG_INT: u64 = 0;
const TAG_NIL: u64 = 1;
const TAG_SYM: u64 = 2;
const TAG_STR: u64 = 3;
const TAG_WIDE: u64 = 4;
const NIL_WORD: Word = TAG_NIL;

/// The word of an integer that fits in 61 bits.
#[inline]
fn small_int_word(i: i64) -> Option<Word> {
    let w = i << TAG_BITS;
    (w >> TAG_BITS == i).then_some(w as u64 | TAG_INT)
}

/// The integer a word holds, unless it is another kind of value or an interned one.
#[inline]
fn small_int_of(w: Word) -> Option<i64> {
    (w & 7 == TAG_INT).then_some(w as i64 >> TAG_BITS)
}

/// Words of a record before its values: index; thread and clock; location, method, length.
const HEAD_WORDS: usize = 3;
const NO_LOC: u64 = u32::MAX as u64;

/// Words the scratch record of an action takes: whole cache lines, so that building one is a
/// few full-width stores.
const RECORD_WORDS: usize = (HEAD_WORDS + MAX_PARAMS).div_ceil(8) * 8;

/// An action being analysed: the head, then one word per parameter. The journal keeps the
/// first [`Journal::stride`] words of it.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Record([Word; RECORD_WORDS]);

impl Record {
    #[inline]
    fn params(&self, len: usize) -> &[Word] {
        &self.0[HEAD_WORDS..HEAD_WORDS + len]
    }

    #[inline]
    fn head(&self) -> Head {
        Head::unpack([self.0[0], self.0[1], self.0[2]])
    }
}

/// The most records the journal holds: positions are 32 bits.
const MAX_RECORDS: usize = u32::MAX as usize;

/// Records the journal holds before it is first compacted, whatever the points refer to: so
/// that a small state is not compacted every few actions.
const JOURNAL_FLOOR: usize = 1 << 14;

/// Units (32 bits each) of a journal record before its parameters: the low half of the index
/// ([`Journal::high`] has the other); the location; the method, the length and whether the
/// parameters are wide.
const JOURNAL_HEAD: usize = 3;
const UNIT_LOC: usize = 1;
const UNIT_METHOD: usize = 2;
/// The flag, in a record's method unit, of a record whose parameters are in `overflow`.
const WIDE_RECORD: u32 = 1 << 24;

/// The records from `from` on (up to the next range's) have indices whose high half is `high`.
#[derive(Clone, Copy, Debug)]
struct IndexRange {
    from: u32,
    high: u32,
}

/// Where the details of the actions the access points keep live, read only to report a race or
/// to check a pair directly. An action that joins points is appended once, however many
/// points it joins, and each point (and each history of directly checked actions) refers to
/// it by position: writing it is a sequential store, where a slot per point made each action
/// write a cache line at random, a miss on a large state. Records no point refers to any more
/// are garbage; [`Commute::compact`] drops them once they outnumber the references, so that
/// memory stays proportional to the points, not to the trace.
///
/// A record is stored in units of 32 bits, without the thread and clock that the points and
/// histories referring to it hold already, and with the high half of its index in `high`: on
/// a state of a million keys the records are most of the memory, and memory the process
/// touches for the first time costs the kernel's zeroing of each page. A parameter's word is
/// kept in one unit when it is the sign extension of its low 32 bits (integers of 28 bits,
/// symbols below 2^28, `nil`); a record with any other parameter keeps all of its words in
/// `overflow`, at a position its first parameter's unit holds (only a record with parameters
/// may overflow, so the unit is there).
struct Journal {
    /// The records back to back, `stride` units each.
    words: Vec<u32>,
    /// Units per record: the head and as many parameters as the specs' methods may have.
    stride: usize,
    /// How many records there are (`words.len() / stride`, kept to spare a division).
    records: usize,
    /// The parameters of the wide records, `stride - JOURNAL_HEAD` words each.
    overflow: Vec<Word>,
    /// The high halves of the records' indices, by ranges of records: records are appended
    /// in trace order, so below 2^32 events there is one range, and a unit per record is
    /// spared.
    high: Vec<IndexRange>,
    /// References to records held by points and histories (a record joined to two points
    /// counts twice): what compaction compares the records to.
    refs: usize,
    /// The actions of the points with several unordered actions, a list per point, which
    /// names it; and how many entries the lists hold, for the memory accounted.
    lists: Vec<Vec<Entry>>,
    list_entries: usize,
    /// Compact before every action that finds garbage possible, whatever its amount: for
    /// tests, so that small states are compacted many times.
    eager: bool,
    /// The integers that need more than 61 bits, by their word's payload, and back.
    wide_ids: FxHashMap<i64, u64>,
    wide: Vec<i64>,
}

/// What a journal record keeps of an action's head: its thread and clock are the point's.
#[derive(Clone, Copy, Debug)]
struct StoredHead {
    index: u64,
    loc: Option<LocId>,
    method: u16,
    len: u8,
}

impl StoredHead {
    /// The head of the action, by `thread` at `clock` (as the reference to it says).
    fn with_epoch(self, thread: ThreadId, clock: u32) -> Head {
        Head {
            index: self.index,
            thread,
            clock,
            loc: self.loc,
            method: self.method,
            len: self.len,
        }
    }
}

/// The unit that keeps `w`, if one is enough: `w` is the sign extension of its low 32 bits.
#[inline(always)]
fn narrow(w: Word) -> Option<u32> {
    let unit = w as u32;
    (unit as i32 as i64 as u64 == w).then_some(unit)
}

#[inline(always)]
fn widen(unit: u32) -> Word {
    unit as i32 as i64 as u64
}

impl Journal {
    fn new(params: usize) -> Journal {
        Journal {
            words: Vec::new(),
            stride: JOURNAL_HEAD + params,
            records: 0,
            overflow: Vec::new(),
            high: Vec::new(),
            refs: 0,
            lists: Vec::new(),
            list_entries: 0,
            eager: false,
            wide_ids: FxHashMap::default(),
            wide: Vec::new(),
        }
    }

    /// Integers first, then `nil`: tests in that order beat a jump table on the usual values.
    #[inline(always)]
    fn pack(&mut self, v: Value) -> Word {
        if let Value::Int(i) = v {
            if let Some(w) = small_int_word(i) {
                return w;
            }
        }
        if v == Value::Nil {
            return NIL_WORD;
        }
        self.pack_other(v)
    }

    /// [`Journal::pack`] for symbols, strings and wide integers (the integers that reach it
    /// need more than 61 bits): out of line, so that the usual values are two tests rather
    /// than a jump table.
    #[inline(never)]
    fn pack_other(&mut self, v: Value) -> Word {
        match v {
            Value::Int(i) => self.pack_wide(i),
            Value::Nil => NIL_WORD,
            Value::Sym(s) => u64::from(s.0) << TAG_BITS | TAG_SYM,
            Value::Str(s) => u64::from(s.0) << TAG_BITS | TAG_STR,
        }
    }

    #[cold]
    fn pack_wide(&mut self, i: i64) -> Word {
        // A small integer interned too would have two words.
        debug_assert!(small_int_word(i).is_none(), "{i} fits in a word");
        let next = self.wide.len() as u64;
        let id = *self.wide_ids.entry(i).or_insert(next);
        if id == next {
            self.wide.push(i);
        }
        id << TAG_BITS | TAG_WIDE
    }

    fn unpack(&self, w: Word) -> Value {
        let payload = w >> TAG_BITS;
        match w & 7 {
            TAG_INT => Value::Int(w as i64 >> TAG_BITS),
            TAG_NIL => Value::Nil,
            TAG_SYM => Value::Sym(SymId(payload as u32)),
            TAG_STR => Value::Str(SymId(payload as u32)),
            _ => Value::Int(self.wide[payload as usize]),
        }
    }

    /// Packs into `r` the parameters of an action, `args` then `results`, of which there are
    /// at most [`MAX_PARAMS`] (the caller has checked the arity). The words past them keep what
    /// they held: only the record's length of them is read.
    #[inline]
    fn pack_params(&mut self, r: &mut Record, args: &[Value], results: &[Value]) {
        let words: &mut [Word; MAX_PARAMS] = (&mut r.0[HEAD_WORDS..HEAD_WORDS + MAX_PARAMS])
            .try_into()
            .expect("a record holds MAX_PARAMS parameters");
        // The mask spares a bounds check per value; with the arity checked it changes nothing.
        const MASK: usize = MAX_PARAMS - 1;
        const _: () = assert!(MAX_PARAMS.is_power_of_two());
        let mut k = 0;
        for &v in args {
            words[k & MASK] = self.pack(v);
            k += 1;
        }
        for &v in results {
            words[k & MASK] = self.pack(v);
            k += 1;
        }
    }

    /// Whether the records are worth compacting: garbage outnumbers what is referred to, by
    /// more than a share of the points that a compaction walks (`point_slack`), so that the
    /// walk is paid for by as many appends.
    fn wants_compaction(&self, point_slack: usize) -> bool {
        let records = self.records;
        records >= 2 * self.refs + point_slack + JOURNAL_FLOOR
            || records >= MAX_RECORDS
            || (self.eager && records > 0)
    }

    /// Appends the action of `record`: its position. The caller has made room
    /// (`records() < MAX_RECORDS`).
    #[inline]
    fn append(&mut self, record: &Record) -> u32 {
        let at = self.records;
        debug_assert!(at < MAX_RECORDS);
        let head = record.head();
        let len = head.len as usize;
        let params = record.params(len);
        let high = (head.index >> 32) as u32;
        if self.high.last().is_none_or(|r| r.high != high) {
            self.high.push(IndexRange {
                from: at as u32,
                high,
            });
        }
        let mut units = [0u32; JOURNAL_HEAD + MAX_PARAMS];
        units[0] = head.index as u32;
        units[UNIT_LOC] = head.loc.map_or(NO_LOC as u32, |l| l.0);
        units[UNIT_METHOD] = u32::from(head.method) | (len as u32) << 16;
        let mut all_narrow = true;
        for (unit, &w) in units[JOURNAL_HEAD..].iter_mut().zip(params) {
            match narrow(w) {
                Some(n) => *unit = n,
                None => all_narrow = false,
            }
        }
        if !all_narrow {
            self.overflow_params(&mut units, params);
        }
        // The whole scratch record, of a size known here, then cut to the stride: a few wide
        // stores, where a copy of the stride's length is a call.
        let end = self.words.len() + self.stride;
        self.words.extend_from_slice(&units);
        self.words.truncate(end);
        self.records += 1;
        at as u32
    }

    /// Keeps the parameters of a record that has a wide one in `overflow`.
    #[cold]
    #[inline(never)]
    fn overflow_params(&mut self, units: &mut [u32; JOURNAL_HEAD + MAX_PARAMS], params: &[Word]) {
        let per = self.stride - JOURNAL_HEAD;
        // Records are at most MAX_RECORDS, so their overflow positions fit 32 bits.
        let position = (self.overflow.len() / per) as u32;
        self.overflow.extend_from_slice(params);
        self.overflow
            .resize(self.overflow.len() + per - params.len(), 0);
        units[UNIT_METHOD] |= WIDE_RECORD;
        units[JOURNAL_HEAD] = position;
    }

    #[inline]
    fn unit(&self, at: u32, i: usize) -> u32 {
        self.words[at as usize * self.stride + i]
    }

    #[inline]
    fn index(&self, at: u32) -> u64 {
        let high = match self.high.as_slice() {
            [only] => only.high,
            ranges => ranges[ranges.partition_point(|r| r.from <= at) - 1].high,
        };
        u64::from(self.unit(at, 0)) | u64::from(high) << 32
    }

    fn stored_head(&self, at: u32) -> StoredHead {
        let loc = self.unit(at, UNIT_LOC);
        let m = self.unit(at, UNIT_METHOD);
        StoredHead {
            index: self.index(at),
            loc: (u64::from(loc) != NO_LOC).then_some(LocId(loc)),
            method: m as u16,
            len: (m >> 16) as u8,
        }
    }

    /// The parameters' words of the record at `at`.
    fn params(&self, at: u32) -> [Word; MAX_PARAMS] {
        let m = self.unit(at, UNIT_METHOD);
        let len = ((m >> 16) as u8) as usize;
        let mut params = [0; MAX_PARAMS];
        if m & WIDE_RECORD != 0 {
            let per = self.stride - JOURNAL_HEAD;
            let from = self.unit(at, JOURNAL_HEAD) as usize * per;
            params[..len].copy_from_slice(&self.overflow[from..from + len]);
        } else {
            for (i, w) in params.iter_mut().enumerate().take(len) {
                *w = widen(self.unit(at, JOURNAL_HEAD + i));
            }
        }
        params
    }

    /// The action whose record is at `at`, as `entry` (which refers to it) knows it.
    fn action(&self, entry: Entry) -> Action {
        let head = self
            .stored_head(entry.slot)
            .with_epoch(entry.thread, entry.clock);
        let params = self.params(entry.slot);
        Action {
            head,
            vals: self.values(&params[..head.len as usize]),
        }
    }

    /// The values packed in `params`.
    fn values(&self, params: &[Word]) -> [Value; MAX_PARAMS] {
        let mut vals = [Value::Nil; MAX_PARAMS];
        for (v, w) in vals.iter_mut().zip(params) {
            *v = self.unpack(*w);
        }
        vals
    }

    /// Bytes held: the records' buffers, the lists of points and the integers interned.
    fn bytes(&self) -> u64 {
        (self.words.capacity() * 4
            + self.overflow.capacity() * 8
            + self.high.capacity() * std::mem::size_of::<IndexRange>()
            + self.wide.capacity() * 8
            + self.wide_ids.capacity() * (8 + 8 + 1)
            + self.lists.capacity() * std::mem::size_of::<Vec<Entry>>()
            + self.lists.len() * 16
            + self.list_entries * std::mem::size_of::<Entry>()) as u64
    }
}

/// The records a compaction keeps: one bit per record, and before each word of bits the
/// number of bits set in the words before it, so that a record's new position (how many kept
/// records come before it) is a lookup and a population count.
struct Kept {
    bits: Vec<u64>,
    before: Vec<u32>,
}

impl Kept {
    fn new(records: usize) -> Kept {
        Kept {
            bits: vec![0; records.div_ceil(64)],
            before: Vec::new(),
        }
    }

    #[inline]
    fn mark(&mut self, at: u32) {
        self.bits[at as usize / 64] |= 1 << (at % 64);
    }

    /// Counts the bits, once every record has been marked.
    fn count(&mut self) -> usize {
        let mut n = 0u32;
        self.before = self
            .bits
            .iter()
            .map(|w| {
                let b = n;
                n += w.count_ones();
                b
            })
            .collect();
        n as usize
    }

    /// The new position of the kept record at `at`.
    #[inline]
    fn rank(&self, at: u32) -> u32 {
        let (w, bit) = (at as usize / 64, at % 64);
        self.before[w] + (self.bits[w] & ((1u64 << bit) - 1)).count_ones()
    }

    /// The positions of the kept records, in order.
    fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + bit
                })
            })
        })
    }
}

/// An action as an access point keeps it: its epoch, and where its record is in the journal.
#[derive(Clone, Copy, Debug)]
struct Entry {
    thread: ThreadId,
    clock: u32,
    /// The record's position in the journal.
    slot: u32,
}

/// The epoch of an empty point.
const EMPTY_POINT: u32 = u32::MAX;
/// The epoch of a point whose actions are in a list, its `slot` the list's position in
/// [`Journal::lists`].
const LISTED_POINT: u32 = u32::MAX - 1;
/// Bits of a point's epoch for the clock; the thread has the others.
const CLOCK_BITS: u32 = 24;
const CLOCK_MASK: u32 = (1 << CLOCK_BITS) - 1;

/// The epoch of an action of `thread` at `clock` packed in 32 bits, if they fit (the two
/// largest values mark empty and listed points).
#[inline(always)]
fn pack_epoch(thread: ThreadId, clock: u32) -> Option<u32> {
    let fits = thread.0 >> (32 - CLOCK_BITS) == 0 && clock >> CLOCK_BITS == 0;
    let epoch = thread.0 << CLOCK_BITS | clock;
    (fits && epoch < LISTED_POINT).then_some(epoch)
}

/// The actions an access point keeps: at most one per thread, none ordered before another;
/// almost always one, which the point holds itself, its epoch packed in 32 bits beside the
/// position of its record; several, or one whose thread or clock do not fit the packing (a
/// thread past the 255th, a clock past 2^24), in a list that the point names. A point that
/// has been joined never empties again.
///
/// 8 bytes, where an enum of an entry and a boxed list took 16: the points are what an action
/// reads at random (a million keys' rows are far beyond the caches), and memory the process
/// touches for the first time costs the kernel's zeroing of each page. Algorithm 1 only asks
/// of a point whether the join of its actions' clocks is below the current clock; the kept
/// actions answer it whatever their representation, and a list holds any epoch exactly.
#[derive(Clone, Copy, Debug)]
struct PointActions {
    epoch: u32,
    slot: u32,
}

impl Default for PointActions {
    fn default() -> PointActions {
        PointActions::EMPTY
    }
}

impl PointActions {
    const EMPTY: PointActions = PointActions {
        epoch: EMPTY_POINT,
        slot: 0,
    };

    #[inline]
    fn is_empty(&self) -> bool {
        self.epoch == EMPTY_POINT
    }

    /// The point's one action, if it holds it itself.
    #[inline(always)]
    fn single(&self) -> Option<Entry> {
        (self.epoch < LISTED_POINT).then_some(Entry {
            thread: ThreadId(self.epoch >> CLOCK_BITS),
            clock: self.epoch & CLOCK_MASK,
            slot: self.slot,
        })
    }

    /// The journal slot of the point's one action, if it holds it itself (a listed point's
    /// are in [`Journal::lists`]).
    #[inline]
    fn single_slot(&mut self) -> Option<&mut u32> {
        (self.epoch < LISTED_POINT).then_some(&mut self.slot)
    }

    /// The latest action unordered with an access of `t` at `vc`: its index and entry.
    #[inline]
    fn latest_unordered(
        &self,
        t: ThreadId,
        vc: &VectorClock,
        journal: &Journal,
    ) -> Option<(u64, Entry)> {
        if let Some(e) = self.single() {
            if e.thread == t || e.clock <= vc.get(e.thread) {
                return None;
            }
            return Some((journal.index(e.slot), e));
        }
        if self.epoch == EMPTY_POINT {
            return None;
        }
        let mut best: Option<(u64, Entry)> = None;
        for e in &journal.lists[self.slot as usize] {
            if e.thread != t && e.clock > vc.get(e.thread) {
                let index = journal.index(e.slot);
                if best.is_none_or(|(b, _)| index > b) {
                    best = Some((index, *e));
                }
            }
        }
        best
    }

    /// Adds the action whose record is at `slot`, by thread `t` at `vc`, dropping the actions
    /// ordered before it. Whether the point was empty.
    #[inline]
    fn touch(&mut self, t: ThreadId, vc: &VectorClock, slot: u32, journal: &mut Journal) -> bool {
        if let Some(e) = self.single() {
            if e.thread == t || e.clock <= vc.get(e.thread) {
                if let Some(epoch) = pack_epoch(t, vc.get(t)) {
                    *self = PointActions { epoch, slot };
                    return false;
                }
            }
        }
        self.touch_slow(t, vc, slot, journal)
    }

    #[inline(never)]
    fn touch_slow(
        &mut self,
        t: ThreadId,
        vc: &VectorClock,
        slot: u32,
        journal: &mut Journal,
    ) -> bool {
        let ordered = |e: &Entry| e.thread == t || e.clock <= vc.get(e.thread);
        let me = Entry {
            thread: t,
            clock: vc.get(t),
            slot,
        };
        let packed = pack_epoch(me.thread, me.clock);
        let listed = |journal: &mut Journal, entries: Vec<Entry>| {
            journal.list_entries += entries.len();
            journal.lists.push(entries);
            PointActions {
                epoch: LISTED_POINT,
                slot: (journal.lists.len() - 1) as u32,
            }
        };
        if let Some(e) = self.single() {
            if ordered(&e) {
                // Replaced by an action whose epoch does not pack (the fast path takes the
                // others): the same number of references.
                debug_assert!(packed.is_none());
                *self = listed(journal, vec![me]);
            } else {
                journal.refs += 1;
                *self = listed(journal, vec![e, me]);
            }
            return false;
        }
        journal.refs += 1;
        if self.epoch == EMPTY_POINT {
            *self = match packed {
                Some(epoch) => PointActions { epoch, slot },
                None => listed(journal, vec![me]),
            };
            return true;
        }
        let v = &mut journal.lists[self.slot as usize];
        let before = v.len();
        v.retain(|e| !ordered(e));
        journal.refs -= before - v.len();
        journal.list_entries -= before - v.len();
        v.push(me);
        journal.list_entries += 1;
        // A point that once had unordered actions keeps its list even when one is left: on
        // racy workloads points go back and forth, and a list made and freed at every turn
        // costs more than the list kept.
        false
    }
}

/// Where a value's row of valued points starts: among the dense rows (small non-negative
/// integers, by value) or the others (by id).
#[derive(Clone, Copy, Debug)]
enum RowAt {
    Dense(usize),
    Other(usize),
}

/// The dense rows of an object may hold at most `DENSE_PER_JOINED` points per valued point
/// joined, plus `DENSE_FLOOR` rows: so that their memory stays proportional to what the
/// trace touched (128 bytes per point joined, as many as when a point took 16 bytes and the
/// bound was 8), while keys drawn from a range of small integers, the usual case, soon all
/// have a row of their own without a lookup.
const DENSE_PER_JOINED: u64 = 16;
const DENSE_FLOOR: u64 = 16;

#[derive(Default)]
struct ObjState {
    spec: usize,
    /// The spec's methods by trace method symbol (`UNRESOLVED`: not looked up yet).
    methods: Vec<MethodEntry>,
    ds: Vec<PointActions>,
    /// The valued points of the integers `0..dense_rows`, a row per value with one point per
    /// valued class, by value: the usual keys reach their row without a lookup (what reaches
    /// a row at random is a cache miss on a large state, a lookup before it another).
    dense: Vec<PointActions>,
    dense_rows: u64,
    /// The rows of the other values (symbols, strings, integers past the dense rows), by the
    /// id `value_ids` gives them. Rows moved to the dense ones leave their ids to be reused.
    other: Vec<PointActions>,
    value_ids: FxHashMap<Word, u32>,
    free_rows: Vec<u32>,
    /// How many valued points have been joined: what the dense rows may grow to.
    joined: u64,
    /// Every action of a method in a directly checked pair.
    history: Vec<Entry>,
}

impl ObjState {
    #[cold]
    fn look_up_method(
        &mut self,
        compiled: &CompiledSpec,
        sym: SymId,
        names: &Names,
        object: ObjId,
    ) -> Result<MethodEntry, ErrorKind> {
        if sym.index() >= self.methods.len() {
            self.methods.resize(sym.index() + 1, UNRESOLVED);
        }
        let name = names.symbol(sym);
        let s = &compiled.spec;
        let m = s.method(name).ok_or_else(|| {
            ErrorKind::Analysis(format!(
                "`{name}` is not a method of {} (object `{}`)",
                s.name,
                names.object(object)
            ))
        })?;
        self.methods[sym.index()] = compiled.entries[m];
        Ok(compiled.entries[m])
    }

    /// Bytes of the object's tables.
    fn bytes(&self) -> u64 {
        use std::mem::size_of;
        let points = self.ds.capacity() + self.dense.capacity() + self.other.capacity();
        (self.methods.capacity() * size_of::<MethodEntry>()
            + points * size_of::<PointActions>()
            + self.value_ids.capacity() * (size_of::<Word>() + size_of::<u32>() + 1)
            + self.free_rows.capacity() * size_of::<u32>()
            + self.history.capacity() * size_of::<Entry>()) as u64
    }

    /// Where the row of the value packed in `w` starts, making one if it is new; `row` is
    /// the number of valued classes, `bytes` the tables' bytes, which a new row adds to.
    #[inline(always)]
    fn value_row(&mut self, w: Word, row: usize, bytes: &mut u64) -> RowAt {
        // A negative integer's payload has its top bit set: never below `dense_rows`.
        let k = w >> TAG_BITS;
        if w & 7 == TAG_INT && k < self.dense_rows {
            return RowAt::Dense(k as usize * row);
        }
        self.value_row_slow(w, row, bytes)
    }

    #[inline(never)]
    fn value_row_slow(&mut self, w: Word, row: usize, bytes: &mut u64) -> RowAt {
        let before = self.bytes();
        let at = self.find_row(w, row);
        *bytes = *bytes - before + self.bytes();
        at
    }

    /// [`ObjState::value_row`] past the dense rows: grows them to cover `w` if they may
    /// grow by a quarter at least (so that the rows moved in from the others are moved a
    /// bounded number of times), else looks `w` up among the others.
    fn find_row(&mut self, w: Word, row: usize) -> RowAt {
        let k = w >> TAG_BITS;
        if w & 7 == TAG_INT && k < 1 << 32 {
            let most = DENSE_FLOOR + DENSE_PER_JOINED * self.joined / row as u64;
            let rows = (2 * self.dense_rows).max(k + 1).max(DENSE_FLOOR).min(most);
            if k < rows && rows >= self.dense_rows + self.dense_rows / 4 {
                self.grow_dense(rows, row);
                return RowAt::Dense(k as usize * row);
            }
        }
        if let Some(&id) = self.value_ids.get(&w) {
            return RowAt::Other(id as usize * row);
        }
        let id = match self.free_rows.pop() {
            Some(id) => id,
            None => {
                self.other
                    .resize(self.other.len() + row, PointActions::EMPTY);
                (self.other.len() / row - 1) as u32
            }
        };
        self.value_ids.insert(w, id);
        RowAt::Other(id as usize * row)
    }

    /// Extends the dense rows to `rows`, moving in the rows of the integers they now cover.
    fn grow_dense(&mut self, rows: u64, row: usize) {
        self.dense.resize(rows as usize * row, PointActions::EMPTY);
        self.dense_rows = rows;
        let ObjState {
            dense,
            other,
            value_ids,
            free_rows,
            ..
        } = self;
        if value_ids.is_empty() {
            return;
        }
        value_ids.retain(|&w, &mut id| {
            let k = w >> TAG_BITS;
            let moves = w & 7 == TAG_INT && k < rows;
            if moves {
                let (from, to) = (id as usize * row, k as usize * row);
                for r in 0..row {
                    dense[to + r] = std::mem::take(&mut other[from + r]);
                }
                free_rows.push(id);
            }
            !moves
        });
    }

    #[inline]
    fn point(&self, at: RowAt, rank: u32) -> &PointActions {
        match at {
            RowAt::Dense(base) => &self.dense[base + rank as usize],
            RowAt::Other(base) => &self.other[base + rank as usize],
        }
    }

    #[inline]
    fn point_mut(&mut self, at: RowAt, rank: u32) -> &mut PointActions {
        match at {
            RowAt::Dense(base) => &mut self.dense[base + rank as usize],
            RowAt::Other(base) => &mut self.other[base + rank as usize],
        }
    }

    /// Calls `f` on every journal slot the object refers to, but for those of its points'
    /// lists (which [`Journal::lists`] holds).
    fn for_each_slot(&mut self, mut f: impl FnMut(&mut u32)) {
        for p in self
            .ds
            .iter_mut()
            .chain(&mut self.dense)
            .chain(&mut self.other)
        {
            if let Some(slot) = p.single_slot() {
                f(slot);
            }
        }
        for e in &mut self.history {
            f(&mut e.slot);
        }
    }
}

#[derive(Clone)]
struct Race {
    object: ObjId,
    spec: usize,
    partner: Action,
    racy: Action,
    points: (Point, Point),
}

/// What groups races: the object, and where the earlier and the racy action stand.
type RaceKey = (ObjId, Site, Site);

/// The partner Phase 1 has found so far: its index and entry, and how it was found.
#[derive(Clone, Copy)]
struct Partner {
    index: u64,
    entry: Entry,
    via: Via,
}

/// Where a partner was found: a conflicting `ds` class, the `k`-th valued touch's conflicting
/// class, or a direct check of the formula.
#[derive(Clone, Copy)]
enum Via {
    Ds(u32),
    Valued(usize, u32),
    Direct,
}

/// The races found, as they will be reported.
#[derive(Default)]
struct Found {
    granularity: Granularity,
    /// The races not yet handed over to a findings job (every-event reports only).
    races: Vec<Race>,
    /// The races by group (grouped reports only).
    groups: Groups<RaceKey, Race>,
    /// How many races there have been, on which objects, and at which source locations.
    racy_actions: u64,
    racy_objects: FxHashSet<ObjId>,
    racy_locations: FxHashSet<LocId>,
}

impl Found {
    /// Counts races on their way to findings.
    fn count(&mut self, races: &[Race]) {
        self.racy_actions += races.len() as u64;
        self.racy_objects.extend(races.iter().map(|r| r.object));
        self.racy_locations
            .extend(races.iter().filter_map(|r| r.racy.head.loc));
    }

    /// Keeps a race of the action `racy` on `object` with the earlier `partner`: for a
    /// findings job, or counted in its group. `make` builds the race's details (the actions'
    /// values and the points in conflict), which a group needs only once.
    #[inline]
    fn add(&mut self, object: ObjId, partner: Head, racy: Head, make: impl FnOnce() -> Race) {
        match self.granularity {
            Granularity::EveryEvent => self.races.push(make()),
            // The objects and locations are the groups' keys' (counted at the end).
            Granularity::Grouped => {
                self.racy_actions += 1;
                let key = (
                    object,
                    Site::of(partner.loc, u32::from(partner.method), partner.thread),
                    Site::of(racy.loc, u32::from(racy.method), racy.thread),
                );
                self.groups
                    .count_with(key, &[partner.thread, racy.thread], make);
            }
        }
    }
}

/// The `commute` analysis.
pub struct Commute {
    /// Shared with the jobs that build findings (see [`Analysis::findings_job`]).
    specs: Arc<[CompiledSpec]>,
    binding: Binding,
    objects: Vec<Option<ObjState>>,
    found: Found,
    actions: u64,
    journal: Journal,
    /// Bytes of the objects' tables ([`ObjState::bytes`], summed).
    tables: u64,
    /// The warnings about the spec (rules outside ECL), for the report.
    spec_warnings: Vec<Diagnostic>,
    /// The actions checked against their spec whose probes and touches wait for the batch
    /// to fill: `pending[..waiting]`.
    pending: Box<[Pending]>,
    waiting: usize,
    /// The tables' bytes from which actions wait (`BATCH_FROM_BYTES`; 0 in tests).
    batch_from: u64,
    /// The clocks the waiting actions were made at (`clocks[..clocks_used]`), and per
    /// thread the one its next action is made at if its clock has not changed since
    /// (`NO_CLOCK`: none), with the threads that have one.
    clocks: Vec<VectorClock>,
    clocks_used: usize,
    clock_of: Vec<u32>,
    clocked: Vec<ThreadId>,
}

/// How many actions wait before their points are read. A point is read at random in a state
/// of millions of rows: the rows of a batch are all requested first, one load after another,
/// so that their cache misses overlap rather than follow one another.
const BATCH: usize = 32;

/// The objects' tables' bytes from which actions wait in batches: below, the points mostly
/// sit in the caches, and the batch (a copy of the clock after every synchronisation, a second
/// walk over the actions) would cost more than the misses it overlaps.
const BATCH_FROM_BYTES: u64 = 2 << 20;

const NO_CLOCK: u32 = u32::MAX;

/// An action whose spec has been looked up and whose parameters are packed, waiting for its
/// probes and touches (Algorithm 1's two phases).
#[derive(Clone, Copy)]
struct Pending {
    record: Record,
    object: ObjId,
    thread: ThreadId,
    /// Its plan in its spec's `plans`.
    plan: u32,
    /// Its snapshot in `Commute::clocks`.
    clock: u32,
    /// Where in its object's dense rows the row of its first valued point starts and ends,
    /// if it is there already: the loads requested ahead (`usize::MAX`: none).
    hint: [usize; 2],
}

const IDLE: Pending = Pending {
    record: Record([0; RECORD_WORDS]),
    object: ObjId(0),
    thread: ThreadId(0),
    plan: 0,
    clock: NO_CLOCK,
    hint: [usize::MAX; 2],
};

const UNKNOWN: u32 = u32::MAX;

impl Commute {
    pub fn new(specs: Vec<CompiledSpec>, binding: Binding) -> Commute {
        let stride = specs.iter().map(|s| s.max_params).max().unwrap_or(0);
        Commute {
            specs: specs.into(),
            binding,
            objects: Vec::new(),
            found: Found::default(),
            actions: 0,
            journal: Journal::new(stride),
            tables: 0,
            spec_warnings: Vec::new(),
            pending: vec![IDLE; BATCH].into_boxed_slice(),
            waiting: 0,
            batch_from: BATCH_FROM_BYTES,
            clocks: Vec::new(),
            clocks_used: 0,
            clock_of: Vec::new(),
            clocked: Vec::new(),
        }
    }

    /// The analysis reporting at `granularity` (grouped by default: by object and pair of
    /// source locations).
    pub fn with_granularity(mut self, granularity: Granularity) -> Commute {
        self.found.granularity = granularity;
        self
    }

    /// The analysis, reporting `warnings` about its spec (from [`load::load`]).
    pub fn with_spec_warnings(mut self, warnings: Vec<Diagnostic>) -> Commute {
        self.spec_warnings = warnings;
        self
    }

    /// The analysis compacting its journal before every action: for tests, so that small
    /// states are compacted many times (the pass compacts only once garbage outnumbers what
    /// the points refer to, by many records).
    #[doc(hidden)]
    pub fn with_eager_compaction(mut self) -> Commute {
        self.journal.eager = true;
        self
    }

    /// The analysis making actions wait in batches whatever the size of its state (the pass
    /// does once the state outgrows the caches): for tests, on small traces.
    #[doc(hidden)]
    pub fn with_batches_always(mut self) -> Commute {
        self.batch_from = 0;
        self
    }

    /// The races found so far and not handed over to a findings job: (racy action index,
    /// partner index), in trace order.
    pub fn races(&mut self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.flush();
        self.found
            .races
            .iter()
            .map(|r| (r.racy.head.index, r.partner.head.index))
    }

    #[cold]
    /// Starts the state of an object seen for the first time; the spec it follows.
    fn new_object(&mut self, o: ObjId, names: &Names) -> Result<(), ErrorKind> {
        if o.index() >= self.objects.len() {
            self.objects.resize_with(o.index() + 1, || None);
        }
        let name = names.object(o);
        let spec = match &self.binding {
            Binding::All(s) => *s,
            Binding::Named(map) => *map.get(name).ok_or_else(|| {
                ErrorKind::Analysis(format!(
                    "object `{name}` has no spec: bind it with --bind {name}=TYPE"
                ))
            })?,
        };
        let classes = self.specs[spec].rep.classes.len();
        let state = ObjState {
            spec,
            ds: vec![PointActions::default(); classes],
            ..ObjState::default()
        };
        self.tables += state.bytes();
        self.objects[o.index()] = Some(state);
        Ok(())
    }

    /// Drops the journal's records that no point or history refers to any more, keeping the
    /// others in order, and points the references at their new positions. Every pass over
    /// the points and the records is sequential; the positions of the kept records are
    /// looked up in a table of one bit per record.
    #[cold]
    #[inline(never)]
    fn compact(&mut self) {
        let journal = &mut self.journal;
        let mut kept = Kept::new(journal.records);
        for_each_slot(&mut self.objects, &mut journal.lists, |slot| {
            kept.mark(*slot)
        });
        let count = kept.count();
        let stride = journal.stride;
        let per = stride - JOURNAL_HEAD;
        // Wide records' parameters are in the order of their records: they move down with them.
        let mut overflowing = 0;
        for (to, from) in kept.positions().enumerate() {
            if to != from {
                journal
                    .words
                    .copy_within(from * stride..(from + 1) * stride, to * stride);
            }
            if journal.words[to * stride + UNIT_METHOD] & WIDE_RECORD != 0 {
                let at = &mut journal.words[to * stride + JOURNAL_HEAD];
                let position = *at as usize;
                journal
                    .overflow
                    .copy_within(position * per..(position + 1) * per, overflowing * per);
                *at = overflowing as u32;
                overflowing += 1;
            }
        }
        journal.words.truncate(count * stride);
        journal.overflow.truncate(overflowing * per);
        // A range starts where its first record kept is (or would be); of ranges left with
        // none, which start where the next does, the last one counts.
        for r in &mut journal.high {
            r.from = kept.rank(r.from);
        }
        journal.high.dedup_by(|later, earlier| {
            let same = later.from == earlier.from;
            if same {
                *earlier = *later;
            }
            same
        });
        journal.records = count;
        for_each_slot(&mut self.objects, &mut journal.lists, |slot| {
            *slot = kept.rank(*slot)
        });
    }

    /// Checks an action against its spec (an error names the action's event) and queues its
    /// probes and touches, which a batch does together ([`Commute::flush`]) once the state
    /// is large; an action checked directly (Section 5.1), rare, is done at once, after
    /// those queued.
    fn action(
        &mut self,
        e: &Event,
        call: &CallRef<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.actions += 1;
        if self.journal.records + BATCH >= MAX_RECORDS {
            self.flush();
            self.compact();
            if self.journal.records + BATCH >= MAX_RECORDS {
                return Err(ErrorKind::Analysis(format!(
                    "the access points hold more than {} actions",
                    MAX_RECORDS - BATCH
                )));
            }
        }
        let o = call.object.index();
        if !matches!(self.objects.get(o), Some(Some(_))) {
            self.new_object(call.object, names)?;
        }
        let Some(Some(state)) = self.objects.get_mut(o) else {
            unreachable!("the object's state was made above")
        };
        let compiled = &self.specs[state.spec];
        let entry = match state.methods.get(call.method.index()) {
            Some(&entry) if entry.method != UNRESOLVED.method => entry,
            _ => {
                let before = state.bytes();
                let entry = state.look_up_method(compiled, call.method, names, call.object)?;
                self.tables = self.tables - before + state.bytes();
                entry
            }
        };
        let len = entry.params as usize;
        if call.args.len() != entry.args as usize || call.args.len() + call.results.len() != len {
            return Err(compiled.arity_error(entry.method as usize, call));
        }
        let t = e.thread;
        let vc = hb.clock(t);
        let p = &mut self.pending[self.waiting];
        [p.record.0[0], p.record.0[1], p.record.0[2]] =
            Head::pack(e.index, t, vc.get(t), e.loc, entry.method, len);
        self.journal
            .pack_params(&mut p.record, call.args, call.results);
        let params = p.record.params(len);
        let plan_ix = entry.plan_base + compiled.beta(entry, params, &self.journal, names);
        let plan = &compiled.plans[plan_ix as usize];
        p.object = call.object;
        p.thread = t;
        p.plan = plan_ix;
        p.hint = match plan.valued.first() {
            Some(touch) => {
                let (w, row) = (params[touch.param], compiled.valued_classes);
                let k = w >> TAG_BITS;
                if w & 7 == TAG_INT && k < state.dense_rows {
                    // Both ends of the row: it may straddle two cache lines.
                    let at = k as usize * row;
                    [at, at + row.saturating_sub(1)]
                } else {
                    [usize::MAX; 2]
                }
            }
            None => [usize::MAX; 2],
        };
        if plan.direct || self.tables < self.batch_from {
            // At once, after the actions waiting: an action checked directly because its
            // formulas are evaluated on names, and every action while the state is small.
            if self.waiting > 0 {
                let action = self.pending[self.waiting];
                self.flush();
                self.pending[0] = action;
            }
            self.process(0, Some((vc, names)));
            return Ok(());
        }
        self.pending[self.waiting].clock = self.clock_at(t, vc);
        self.waiting += 1;
        if self.waiting == BATCH {
            self.flush();
        }
        Ok(())
    }

    /// The snapshot of `vc`, thread `t`'s clock, for a waiting action of `t`: the one taken
    /// for its previous action if `t`'s clock has not changed since.
    #[inline]
    fn clock_at(&mut self, t: ThreadId, vc: &VectorClock) -> u32 {
        if let Some(&c) = self.clock_of.get(t.index()) {
            if c != NO_CLOCK {
                return c;
            }
        }
        self.new_clock(t, vc)
    }

    #[inline(never)]
    fn new_clock(&mut self, t: ThreadId, vc: &VectorClock) -> u32 {
        let c = self.clocks_used;
        if c == self.clocks.len() {
            self.clocks.push(VectorClock::new());
        }
        self.clocks[c].copy_from(vc);
        self.clocks_used += 1;
        if t.index() >= self.clock_of.len() {
            self.clock_of.resize(t.index() + 1, NO_CLOCK);
        }
        self.clock_of[t.index()] = c as u32;
        self.clocked.push(t);
        c as u32
    }

    /// An event other than a call: the clocks it may change (those of its thread, and of
    /// the thread it forks or joins) are taken afresh for the actions that follow. The
    /// happens-before pass changes a thread's clock only at such events.
    #[inline]
    fn clocks_may_change(&mut self, e: &Event) {
        let mut forget = |t: ThreadId| {
            if let Some(c) = self.clock_of.get_mut(t.index()) {
                *c = NO_CLOCK;
            }
        };
        forget(e.thread);
        if let Op::Fork(u) | Op::Join(u) = e.op {
            forget(u);
        }
    }

    /// Probes and touches the points of the waiting actions, in trace order, each at the
    /// clock it was made at. The rows they read are requested first, all together.
    fn flush(&mut self) {
        let mut requested = 0u64;
        // As few instructions per load as may be: an instruction after a load that misses
        // waits for it to retire, so the fewer there are between loads, the more of them the
        // processor has in flight at once.
        for p in &self.pending[..self.waiting] {
            if let Some(Some(state)) = self.objects.get(p.object.index()) {
                // The object's `ds` points too: a line per object, but on a large state its
                // lines are gone from the caches by the time its next action comes.
                if let Some(point) = state.ds.first() {
                    requested += u64::from(point.is_empty());
                }
                for at in p.hint {
                    if let Some(point) = state.dense.get(at) {
                        requested += u64::from(point.is_empty());
                    }
                }
            }
        }
        std::hint::black_box(requested);
        for k in 0..self.waiting {
            self.process(k, None);
        }
        self.waiting = 0;
        self.clocks_used = 0;
        for t in self.clocked.drain(..) {
            self.clock_of[t.index()] = NO_CLOCK;
        }
    }

    /// Algorithm 1 for the `k`-th waiting action, at its snapshot clock or, for an action
    /// checked directly, at `live`: its thread's clock, and the names formulas are
    /// evaluated on.
    #[inline]
    fn process(&mut self, k: usize, live: Option<(&VectorClock, &Names)>) {
        if self.journal.wants_compaction((self.tables / 64) as usize) {
            self.compact();
        }
        let Commute {
            specs,
            objects,
            found,
            journal,
            tables,
            pending,
            clocks,
            ..
        } = self;
        let p = &pending[k];
        let vc = match live {
            Some((vc, _)) => vc,
            None => &clocks[p.clock as usize],
        };
        let Some(Some(state)) = objects.get_mut(p.object.index()) else {
            unreachable!("a waiting action's object has a state")
        };
        let spec_ix = state.spec;
        let compiled = &specs[spec_ix];
        let plan = &compiled.plans[p.plan as usize];
        let record = &p.record;
        let head = record.head();
        let params = record.params(head.len as usize);
        let t = p.thread;
        let row = compiled.valued_classes;
        let object = p.object;

        // Phase 1: the latest earlier action unordered with this one on a conflicting point.
        let mut best: Option<Partner> = None;
        let mut consider = |found: Option<(u64, Entry)>, via: Via| {
            if let Some((index, entry)) = found {
                if best.is_none_or(|b| index > b.index) {
                    best = Some(Partner { index, entry, via });
                }
            }
        };
        for &c2 in plan.ds_probes.iter() {
            let found = state.ds[c2 as usize].latest_unordered(t, vc, journal);
            consider(found, Via::Ds(c2));
        }
        if let (false, [touch]) = (plan.direct, &plan.valued[..]) {
            // The usual plan, one valued point and nothing checked directly, without the
            // bookkeeping of several rows.
            let at = state.value_row(params[touch.param], row, tables);
            for &(c2, rank) in touch.probes.iter() {
                let found = state.point(at, rank).latest_unordered(t, vc, journal);
                consider(found, Via::Valued(0, c2));
            }
            if let Some(b) = best {
                let partner = journal
                    .stored_head(b.entry.slot)
                    .with_epoch(b.entry.thread, b.entry.clock);
                let make = || race(object, spec_ix, b, journal, record, plan);
                found.add(object, partner, head, make);
            }
            let slot = journal.append(record);
            if let Some(c) = plan.ds {
                state.ds[c as usize].touch(t, vc, slot, journal);
            }
            if state.point_mut(at, touch.rank).touch(t, vc, slot, journal) {
                state.joined += 1;
            }
            return;
        }
        // Per valued touch, where the row of its value starts.
        let mut rows = [RowAt::Dense(0); MAX_PARAMS];
        for (k, touch) in plan.valued.iter().enumerate() {
            let at = state.value_row(params[touch.param], row, tables);
            rows[k] = at;
            for &(c2, rank) in touch.probes.iter() {
                let found = state.point(at, rank).latest_unordered(t, vc, journal);
                consider(found, Via::Valued(k, c2));
            }
        }
        if let (true, Some((_, names))) = (plan.direct, live) {
            let m = head.method as usize;
            let found = latest_direct(compiled, m, params, &state.history, t, vc, journal, names);
            consider(found, Via::Direct);
        }

        if let Some(b) = best {
            let partner = journal
                .stored_head(b.entry.slot)
                .with_epoch(b.entry.thread, b.entry.clock);
            let make = || race(object, spec_ix, b, journal, record, plan);
            found.add(object, partner, head, make);
        }

        // Phase 2: this action joins every point it touches, replacing what it covers.
        if !plan.direct && plan.ds.is_none() && plan.valued.is_empty() {
            return;
        }
        let slot = journal.append(record);
        if plan.direct {
            let capacity = state.history.capacity();
            state.history.push(Entry {
                thread: t,
                clock: vc.get(t),
                slot,
            });
            journal.refs += 1;
            *tables +=
                ((state.history.capacity() - capacity) * std::mem::size_of::<Entry>()) as u64;
        }
        if let Some(c) = plan.ds {
            state.ds[c as usize].touch(t, vc, slot, journal);
        }
        for (k, touch) in plan.valued.iter().enumerate() {
            if state
                .point_mut(rows[k], touch.rank)
                .touch(t, vc, slot, journal)
            {
                state.joined += 1;
            }
        }
    }
}

/// Calls `f` on every journal slot a point or a history refers to.
fn for_each_slot(
    objects: &mut [Option<ObjState>],
    lists: &mut [Vec<Entry>],
    mut f: impl FnMut(&mut u32),
) {
    for state in objects.iter_mut().flatten() {
        state.for_each_slot(&mut f);
    }
    for e in lists.iter_mut().flatten() {
        f(&mut e.slot);
    }
}

/// Section 5.1 for the pairs outside ECL: the latest earlier action of a directly checked
/// method that is unordered with this one and whose formula with it is false. Out of line, so
/// that its arrays do not weigh on the access point path.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn latest_direct(
    compiled: &CompiledSpec,
    m: usize,
    params: &[Word],
    history: &[Entry],
    t: ThreadId,
    vc: &VectorClock,
    journal: &Journal,
    names: &Names,
) -> Option<(u64, Entry)> {
    let mine = journal.values(params);
    let mine = vals_of(&mine[..params.len()], names);
    let mut best: Option<(u64, Entry)> = None;
    for &other in history {
        let a = journal.action(other);
        let method = a.head.method as usize;
        if compiled.rep.is_direct(method, m) && !a.head.ordered_before(t, vc) {
            let commutes = match compiled.spec.rule(method, m) {
                None => false,
                Some((rule, swapped)) => {
                    let theirs = vals_of(&a.vals[..a.head.len as usize], names);
                    let (first, second) = if swapped {
                        (&mine[..], &theirs[..])
                    } else {
                        (&theirs[..], &mine[..])
                    };
                    rule.formula.eval(first, second)
                }
            };
            if !commutes && best.is_none_or(|(b, _)| a.head.index > b) {
                best = Some((a.head.index, other));
            }
        }
    }
    best
}

#[cold]
#[inline(never)]
fn race(
    object: ObjId,
    spec: usize,
    b: Partner,
    journal: &Journal,
    record: &Record,
    plan: &Plan,
) -> Race {
    let head = record.head();
    let racy = Action {
        head,
        vals: journal.values(record.params(head.len as usize)),
    };
    let points = match b.via {
        Via::Ds(c2) => (Point::Ds(c2), Point::Ds(plan.ds.expect("probed from it"))),
        Via::Valued(k, c2) => {
            let touch = &plan.valued[k];
            let v = racy.vals[touch.param];
            (Point::Valued(c2, v), Point::Valued(touch.class, v))
        }
        Via::Direct => (Point::Direct, Point::Direct),
    };
    Race {
        object,
        spec,
        partner: journal.action(b.entry),
        racy,
        points,
    }
}

/// Appends a value as the text format writes it; integers and `nil`, the usual values,
/// without the formatting machinery.
fn push_value(out: &mut String, v: Value, names: &Names) {
    use std::fmt::Write as _;
    match v {
        Value::Int(i) => push_int(out, i),
        Value::Nil => out.push_str("nil"),
        _ => {
            let _ = write!(out, "{}", DisplayValue { value: v, names });
        }
    }
}

/// Appends an integer in decimal.
fn push_int(out: &mut String, i: i64) {
    if i < 0 {
        out.push('-');
    }
    push_digits(out, i.unsigned_abs());
}

fn push_digits(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    loop {
        k -= 1;
        digits[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[k..].iter().map(|&d| char::from(d)));
}

fn render_call(a: &Action, object: &str, spec: &ObjectSpec, names: &Names) -> String {
    let method = &spec.methods[a.head.method as usize];
    let mut out = String::with_capacity(32 + object.len() + method.name.len());
    let show = |out: &mut String, vs: &[Value]| {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_value(out, v, names);
        }
    };
    let vals = &a.vals[..a.head.len as usize];
    let (args, results) = vals.split_at(method.args);
    out.push_str("call(");
    out.push_str(object);
    out.push('.');
    out.push_str(&method.name);
    out.push('(');
    show(&mut out, args);
    out.push(')');
    if !results.is_empty() {
        out.push('/');
        show(&mut out, results);
    }
    out.push(')');
    out
}

fn render_point(p: Point, rep: &Representation, names: &Names) -> String {
    match p {
        Point::Ds(c) => rep.classes[c as usize].name.clone(),
        Point::Valued(c, v) => {
            let name = &rep.classes[c as usize].name;
            let mut out = String::with_capacity(name.len() + 8);
            out.push_str(name);
            out.push('(');
            push_value(&mut out, v, names);
            out.push(')');
            out
        }
        Point::Direct => "formula checked directly".into(),
    }
}

fn event_ref(a: &Action, object: &str, compiled: &CompiledSpec, names: &Names) -> EventRef {
    EventRef {
        index: a.head.index,
        thread: names.thread(a.head.thread).to_owned(),
        op: render_call(a, object, &compiled.spec, names),
        location: a.head.loc.map(|l| names.location(l).to_owned()),
    }
}

/// The finding of a group of races.
fn group_finding(g: &Group<RaceKey, Race>, compiled: &CompiledSpec, names: &Names) -> Finding {
    let r = &g.first;
    let object = names.object(r.object);
    let (p, a) = (
        event_ref(&r.partner, object, compiled, names),
        event_ref(&r.racy, object, compiled, names),
    );
    let place = |e: &EventRef| match &e.location {
        Some(l) => format!("at {l}"),
        None => format!("by {}", e.thread),
    };
    let threads: Vec<&str> = g.threads.iter().map(|&t| names.thread(t)).collect();
    let message = format!(
        "{} {} does not commute with the earlier {} {}, and they may run in either order ({}; threads {})",
        a.op,
        place(&a),
        p.op,
        place(&p),
        count(g.occurrences, "racy action", "racy actions"),
        threads.join(", ")
    );
    let points = vec![
        Json::String(render_point(r.points.0, &compiled.rep, names)),
        Json::String(render_point(r.points.1, &compiled.rep, names)),
    ];
    let mut fields = serde_json::Map::new();
    fields.insert("object".into(), Json::from(object));
    fields.insert("type".into(), Json::from(compiled.spec.name.as_str()));
    fields.insert("access_points".into(), Json::Array(points));
    fields.insert("threads".into(), Json::from(threads));
    if let Some(last) = &g.last {
        let last = [
            event_ref(&last.partner, object, compiled, names),
            event_ref(&last.racy, object, compiled, names),
        ];
        fields.insert(
            "last".into(),
            serde_json::to_value(last).expect("event references serialize"),
        );
    }
    Finding {
        kind: "commutativity-race".into(),
        message,
        occurrences: Some(g.occurrences),
        events: vec![p, a],
        fields,
        group: None,
    }
}

fn finding(r: &Race, compiled: &CompiledSpec, names: &Names) -> Finding {
    let object = names.object(r.object);
    let (p, a) = (
        event_ref(&r.partner, object, compiled, names),
        event_ref(&r.racy, object, compiled, names),
    );
    let points = vec![
        Json::String(render_point(r.points.0, &compiled.rep, names)),
        Json::String(render_point(r.points.1, &compiled.rep, names)),
    ];
    // "{a.op} by {a.thread} (#{a.index}) does not commute with the earlier {p.op} by
    // {p.thread} (#{p.index}), and they may run in either order", built piece by piece into
    // a string of its final size: `format!`'s formatting machinery and the string's regrowth
    // are a large part of a finding's cost.
    let mut message =
        String::with_capacity(a.op.len() + a.thread.len() + p.op.len() + p.thread.len() + 128);
    let tails = [
        ") does not commute with the earlier ",
        "), and they may run in either order",
    ];
    for (e, tail) in [(&a, tails[0]), (&p, tails[1])] {
        message.push_str(&e.op);
        message.push_str(" by ");
        message.push_str(&e.thread);
        message.push_str(" (#");
        push_digits(&mut message, e.index);
        message.push_str(tail);
    }
    // No allocation that can be spared (a map that grows, a copy of the points): see `finish`.
    let mut fields = serde_json::Map::with_capacity(3);
    fields.insert("object".into(), Json::from(object));
    fields.insert("type".into(), Json::from(compiled.spec.name.as_str()));
    fields.insert("access_points".into(), Json::Array(points));
    Finding {
        occurrences: None,
        kind: "commutativity-race".into(),
        message,
        events: vec![p, a],
        fields,
        group: Some(object.to_owned()),
    }
}

impl Observer for Commute {
    /// The objects' tables, the journal, the races not yet handed over and the groups.
    fn held_bytes(&self) -> u64 {
        use std::mem::size_of;
        (self.objects.capacity() * size_of::<Option<ObjState>>()
            + self.found.races.capacity() * size_of::<Race>()
            + (self.found.racy_objects.capacity() + self.found.racy_locations.capacity()) * 5)
            as u64
            + self.journal.bytes()
            + self.tables
            + self.found.groups.bytes()
    }

    fn name(&self) -> &'static str {
        "commute"
    }

    #[inline]
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        match &e.op {
            Op::Call(call) => self.action(e, &call.borrowed(), hb, names),
            _ => {
                self.clocks_may_change(e);
                Ok(())
            }
        }
    }

    #[inline]
    fn on_call(
        &mut self,
        call: &LentCall<'_>,
        hb: &HappensBefore,
        names: &Names,
    ) -> Result<(), ErrorKind> {
        self.action(call.at, &call.call, hb, names)
    }

    /// The races found since the last job. A finding costs as much as thousands of events, so
    /// on a trace with many races building them is a sizeable part of the pass, and the
    /// pipeline's reading thread has time to spare: built there while the pass goes on, they
    /// no longer add to the run's length.
    fn findings_job(&mut self) -> Option<FindingsJob> {
        self.flush();
        if self.found.races.is_empty() {
            return None;
        }
        let races = std::mem::take(&mut self.found.races);
        self.found.count(&races);
        let specs = Arc::clone(&self.specs);
        Some(Box::new(move |names: &Names| {
            races
                .iter()
                .map(|r| finding(r, &specs[r.spec], names))
                .collect()
        }))
    }
}

impl Analysis for Commute {
    fn finish(mut self: Box<Self>, names: &Names) -> AnalysisOutput {
        self.flush();
        let mut out = AnalysisOutput {
            warnings: std::mem::take(&mut self.spec_warnings),
            ..AnalysisOutput::default()
        };
        // The races not handed over (all of them without the pipeline) are independent:
        // rayon builds them on every core, in order. The allocator, which the cores share,
        // limits the gain.
        let races = std::mem::take(&mut self.found.races);
        self.found.count(&races);
        let specs = &self.specs;
        out.findings = races
            .par_iter()
            .map(|r| finding(r, &specs[r.spec], names))
            .collect();
        let groups = std::mem::take(&mut self.found.groups);
        let group_count = groups.len();
        let group_keys: Vec<RaceKey> = groups.iter().map(|g| g.key).collect();
        out.findings.extend(
            groups
                .into_sorted()
                .iter()
                .map(|g| group_finding(g, &specs[g.first.spec], names)),
        );
        let s = &mut out.summary;
        s.insert("actions".into(), Json::from(self.actions));
        let found = &mut self.found;
        for &(object, _, racy) in &group_keys {
            found.racy_objects.insert(object);
            if let Site::At(l) = racy {
                found.racy_locations.insert(l);
            }
        }
        s.insert("racy_actions".into(), Json::from(found.racy_actions));
        s.insert(
            "racy_locations".into(),
            Json::from(found.racy_locations.len()),
        );
        s.insert("racy_objects".into(), Json::from(found.racy_objects.len()));
        if found.granularity == Granularity::Grouped {
            s.insert("groups".into(), Json::from(group_count));
        }
        out.rules.push(Rule {
            id: "commutativity-race",
            description: "Two method calls on one object that may run in either order and are not specified to commute",
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_syntax::Pos;

    /// Method indices live in 16 bits: a spec with more methods is refused, not truncated.
    #[test]
    fn too_many_methods_is_a_spec_error() {
        let method = |i: usize| spec::Method {
            name: format!("m{i}"),
            params: Vec::new(),
            args: 0,
            pos: Pos::default(),
        };
        let object = |n: usize| ObjectSpec {
            name: "Big".into(),
            methods: (0..n).map(method).collect(),
            rules: Vec::new(),
            pos: Pos { line: 3, col: 1 },
        };
        let err = CompiledSpec::compile(object(usize::from(u16::MAX)), false)
            .err()
            .expect("refused");
        assert_eq!(err.pos, Pos { line: 3, col: 1 });
        assert!(err.message.contains("at most 65534"), "{}", err.message);
        assert!(CompiledSpec::compile(object(3), false).is_ok());
    }

    #[test]
    fn integers_are_written_as_format_writes_them() {
        for i in [0, 7, -7, 10, 1 << 40, -(1 << 40), i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_int(&mut out, i);
            assert_eq!(out, i.to_string());
        }
    }

    /// Runs `commute --builtin map` (checked directly if `direct`) over `trace`.
    fn run_map(trace: &hindsight_trace::Trace, direct: bool) -> Commute {
        drive(Commute::new(map_specs(direct), Binding::All(0)), trace)
    }

    /// The builtin map spec run over `trace` at every event's granularity, its journal
    /// compacted at every chance when `eager`.
    fn run_map_every_event(trace: &hindsight_trace::Trace, eager: bool) -> Commute {
        let c = Commute::new(map_specs(false), Binding::All(0))
            .with_granularity(Granularity::EveryEvent);
        drive(if eager { c.with_eager_compaction() } else { c }, trace)
    }

    /// The builtin map spec, compiled (checked directly if `direct`).
    fn map_specs(direct: bool) -> Vec<CompiledSpec> {
        let text = builtin::builtin("map").expect("shipped");
        compile_file(spec::parse(text).expect("parses"), direct).expect("compiles")
    }

    /// `c` run over `trace`, flushed.
    fn drive(mut c: Commute, trace: &hindsight_trace::Trace) -> Commute {
        let mut hb = HappensBefore::new();
        for e in &trace.events {
            hb.before(e);
            c.on_event(e, &hb, &trace.names).expect("valid");
            hb.after(e);
        }
        c.flush();
        c
    }

    fn map_workload(events: u64, keys: u32) -> hindsight_trace::Trace {
        use hindsight_trace::generate::{generate_trace, GenConfig, DEFAULT_SITES};
        generate_trace(&GenConfig {
            events,
            threads: 6,
            vars: 3,
            locks: 3,
            max_depth: 2,
            unprotected: 0.3,
            blocks: 0.0,
            seed: 5,
            map_keys: keys,
            per_request: 0,
            sites: DEFAULT_SITES,
        })
    }

    /// The journal counts exactly the references the points and histories hold, and on a
    /// long workload over a few keys compaction keeps its records within what the pass
    /// allows, far fewer than the actions.
    #[test]
    fn the_journal_counts_its_references_and_stays_bounded() {
        // Checked directly, every action is kept: a shorter trace keeps the test quick.
        for (direct, events) in [(false, 200_000), (true, 20_000)] {
            let mut c = run_map(&map_workload(events, 300), direct);
            let mut slots = 0;
            for_each_slot(&mut c.objects, &mut c.journal.lists, |_| slots += 1);
            let journal = &c.journal;
            assert_eq!(slots, journal.refs, "direct: {direct}");
            let most = 2 * journal.refs + (c.tables / 64) as usize + JOURNAL_FLOOR;
            assert!(journal.records <= most, "{} > {most}", journal.records);
            if !direct {
                assert!(
                    !journal.lists.is_empty(),
                    "the workload has points with several actions"
                );
                assert!(
                    journal.records < c.actions as usize / 4,
                    "{}",
                    journal.records
                );
            }
        }
    }

    /// Records whose parameters need more than 32 bits keep them in the overflow, which
    /// compaction moves with them: the map workload with every integer moved past 32 bits
    /// (a bijection, so the same races) gives the same races, and each race names both of
    /// its actions' values exactly as the trace has them.
    #[test]
    fn wide_parameters_are_kept_exactly_across_compaction() {
        let narrow_trace = map_workload(30_000, 40);
        let mut wide_trace = narrow_trace.clone();
        let shift = |v: &mut Value| {
            if let Value::Int(i) = v {
                *v = Value::Int(*i + (1 << 40));
            }
        };
        for e in &mut wide_trace.events {
            if let Op::Call(call) = &mut e.op {
                call.args.iter_mut().for_each(shift);
                call.results.iter_mut().for_each(shift);
            }
        }
        for eager in [false, true] {
            let mut narrow = run_map_every_event(&narrow_trace, eager);
            let mut wide = run_map_every_event(&wide_trace, eager);
            assert!(
                !wide.journal.overflow.is_empty() || eager,
                "wide records overflow"
            );
            let pairs: Vec<_> = narrow.races().collect();
            assert!(!pairs.is_empty(), "the workload races");
            assert_eq!(pairs, wide.races().collect::<Vec<_>>(), "eager: {eager}");
            for r in &wide.found.races {
                for a in [&r.partner, &r.racy] {
                    let Op::Call(call) = &wide_trace.events[a.head.index as usize].op else {
                        panic!("an action is a call")
                    };
                    let vals: Vec<Value> = call.args.iter().chain(&call.results).copied().collect();
                    assert_eq!(&a.vals[..a.head.len as usize], &vals[..]);
                    assert_eq!(
                        a.head.thread,
                        wide_trace.events[a.head.index as usize].thread
                    );
                }
            }
        }
    }

    /// A point whose action's epoch does not pack in 32 bits keeps it in a list: the map
    /// workload with every thread renumbered past the 255th (so that no epoch packs) gives
    /// the same races as with its own thread ids, compacted or not.
    #[test]
    fn epochs_that_do_not_pack_give_the_same_races() {
        let trace = map_workload(30_000, 40);
        let mut renumbered = trace.clone();
        let far = |t: ThreadId| ThreadId(t.0 + 1000);
        for e in &mut renumbered.events {
            e.thread = far(e.thread);
            if let Op::Fork(u) | Op::Join(u) = &mut e.op {
                *u = far(*u);
            }
        }
        for eager in [false, true] {
            let mut packed = run_map_every_event(&trace, eager);
            let mut listed = run_map_every_event(&renumbered, eager);
            let pairs: Vec<_> = packed.races().collect();
            assert!(!pairs.is_empty(), "the workload races");
            assert_eq!(pairs, listed.races().collect::<Vec<_>>(), "eager: {eager}");
            let points = |c: &Commute| {
                c.objects
                    .iter()
                    .flatten()
                    .flat_map(|s| s.ds.iter().chain(&s.dense).chain(&s.other))
                    .filter(|p| !p.is_empty())
                    .map(|p| p.single().is_some())
                    .collect::<Vec<bool>>()
            };
            assert!(points(&listed).iter().all(|&single| !single));
            assert!(points(&packed).iter().any(|&single| single));
            let mut slots = 0;
            for_each_slot(&mut listed.objects, &mut listed.journal.lists, |_| {
                slots += 1
            });
            assert_eq!(slots, listed.journal.refs);
        }
    }

    /// Records keep the low half of their index and the journal the high halves by ranges:
    /// the map workload with its indices spread past 2^32 (so that the high half changes
    /// every other event), or moved past it, gives the same races, compacted or not.
    #[test]
    fn indices_past_32_bits_are_kept_exactly() {
        let trace = map_workload(20_000, 40);
        for eager in [false, true] {
            let mut small = run_map_every_event(&trace, eager);
            let pairs: Vec<(u64, u64)> = small.races().collect();
            assert!(!pairs.is_empty(), "the workload races");
            for (step, offset) in [((1u64 << 31) + 7, 3), (1, 1u64 << 40)] {
                let mut spread = trace.clone();
                for e in &mut spread.events {
                    e.index = e.index * step + offset;
                }
                let mut c = run_map_every_event(&spread, eager);
                if step > 1 && !eager {
                    assert!(c.journal.high.len() > 1000, "{}", c.journal.high.len());
                }
                let back: Vec<(u64, u64)> = c
                    .races()
                    .map(|(a, b)| ((a - offset) / step, (b - offset) / step))
                    .collect();
                assert_eq!(pairs, back, "eager: {eager}, step {step}");
                for r in &c.found.races {
                    assert_eq!((r.partner.head.index - offset) % step, 0);
                }
            }
        }
    }

    /// The rows of the keys are charged to the memory budget: a row per key at least.
    #[test]
    fn the_rows_of_the_keys_are_charged() {
        let few = run_map(&map_workload(200_000, 16), false);
        let many = run_map(&map_workload(200_000, 20_000), false);
        let rows = |c: &Commute| {
            c.objects
                .iter()
                .flatten()
                .map(|s| s.dense.len() + s.other.len())
                .sum::<usize>()
        };
        assert!(rows(&many) > 20_000, "{}", rows(&many));
        assert!(many.held_bytes() > few.held_bytes() + 16 * 20_000);
        assert!(many.held_bytes() >= many.tables + many.journal.bytes());
    }

    #[test]
    fn a_point_takes_8_bytes() {
        assert_eq!(std::mem::size_of::<PointActions>(), 8);
    }

    /// Words stand for values one to one, at the edges of what fits in 61 bits too.
    #[test]
    fn words_round_trip_and_are_equal_exactly_when_values_are() {
        let mut j = Journal::new(3);
        let edge = 1i64 << 60;
        let values = [
            Value::Int(0),
            Value::Int(-1),
            Value::Int(edge - 1),
            Value::Int(-edge),
            Value::Int(edge),
            Value::Int(-edge - 1),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::Nil,
            Value::Sym(SymId(0)),
            Value::Str(SymId(0)),
            Value::Sym(SymId(u32::MAX)),
            Value::Str(SymId(u32::MAX)),
        ];
        let words: Vec<Word> = values.iter().map(|&v| j.pack(v)).collect();
        for (a, (&v, &w)) in values.iter().zip(&words).enumerate() {
            assert_eq!(j.unpack(w), v);
            assert_eq!(j.pack(v), w, "packing {v:?} again gives the same word");
            for (b, &w2) in words.iter().enumerate() {
                assert_eq!(w == w2, a == b, "{v:?} vs {:?}", values[b]);
            }
        }
        assert_eq!(small_int_of(words[2]), Some(edge - 1));
        assert_eq!(small_int_of(words[4]), None, "2^60 is interned");
    }
}
