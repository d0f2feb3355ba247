//! What an operation means: its statements lowered to a flat list of instructions over numbered
//! local slots, in which every base map call is an instruction of its own (a *main transition*
//! of VINE, ISSTA'14, Section 3.1) and everything else is local computation, plus the value
//! domain and the atomic semantics of the map's base methods (`ConcurrentHashMap`'s: `null`
//! keys and values throw `NullPointerException`).
//!
//! It owns execution of one step of one operation; it knows nothing of environments,
//! interleavings or linearizability (`verify.rs`, `brute.rs`).

use super::arith;
use super::ast::*;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A value of the language. Objects are compared by what built them (class, allocation site,
/// constructor arguments and the calls made on them since), which is the identity the paper's
/// trace renaming gives them: every object the operation allocates at one site is the same
/// value `v` (Definition 4.1 (ii)). The result of an unknown call is different: an arbitrary
/// value, fresh on every evaluation ([`Obj::serial`]), since nothing says the callee returns
/// the same object twice; outcomes are compared up to a renaming of fresh values
/// ([`same_up_to_fresh`]), since a sequential run may have drawn the very values the
/// concurrent one did.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// An unassigned local or the result of a `void` operation.
    Void,
    Null,
    Bool(bool),
    Int(i64),
    Str(Rc<str>),
    Obj(Rc<Obj>),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Obj {
    pub class: Rc<str>,
    /// Line of the `new` (0 for uninterpreted results of method calls on non-fresh objects).
    pub site: u32,
    /// Which thread allocated it (0 in the verifier, where Definition 4.1 renames all of the
    /// operation's values to one; 1 and 2 in the brute-force oracle, where they differ).
    pub thread: u8,
    pub args: Vec<Value>,
    pub calls: Vec<(Rc<str>, Vec<Value>)>,
    /// For the result of an unknown call: its number among the thread's fresh values (from 1);
    /// 0 for every other object.
    pub serial: u32,
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn exception(class: &str) -> Value {
        Value::opaque(class)
    }

    /// An object the analysis does not interpret, named by `name` (a constant of another
    /// class, a final field set by a constructor, an exception).
    pub fn opaque(name: &str) -> Value {
        Value::Obj(Rc::new(Obj {
            class: Rc::from(name),
            site: 0,
            thread: 0,
            args: Vec::new(),
            calls: Vec::new(),
            serial: 0,
        }))
    }

    /// Whether it is the result of an unknown call.
    pub fn is_fresh(&self) -> bool {
        matches!(self, Value::Obj(o) if o.serial > 0)
    }

    /// An entry of a map as a traversal gives it (see [`MapMethod::Next`]): its key and the
    /// value the key held when the traversal reached it.
    pub fn entry(key: Value, value: Value) -> Value {
        Value::Obj(Rc::new(Obj {
            class: Rc::from(ENTRY_CLASS),
            site: 0,
            thread: 0,
            args: vec![key, value],
            calls: Vec::new(),
            serial: 0,
        }))
    }

    /// The key and value of an entry a traversal gave.
    pub fn as_entry(&self) -> Option<(&Value, &Value)> {
        match self {
            Value::Obj(o) if &*o.class == ENTRY_CLASS && o.site == 0 && o.args.len() == 2 => {
                Some((&o.args[0], &o.args[1]))
            }
            _ => None,
        }
    }
}

/// The serial of an unknown value that stands for its call, not for one evaluation of it: a
/// map key made of unknown calls' results where the bounded check keeps facts ([`as_key`]).
pub const DETERMINED: u32 = u32::MAX;

/// `v` as a map key where the bounded check keeps facts: every unknown value in it stands for
/// its call ([`DETERMINED`]), since unknown calls are taken to be functions of their receiver
/// and arguments there (the facts already are): the same call gives the same key, in the
/// operation's runs and in the environment's writes (`bounded.rs` lets it write such keys).
pub fn as_key(v: &Value) -> Value {
    let Value::Obj(o) = v else {
        return v.clone();
    };
    if o.args.is_empty() && o.calls.is_empty() && o.serial == 0 {
        return v.clone();
    }
    let unknown = o.serial > 0;
    Value::Obj(Rc::new(Obj {
        class: o.class.clone(),
        site: o.site,
        thread: if unknown { 0 } else { o.thread },
        args: o.args.iter().map(as_key).collect(),
        calls: o
            .calls
            .iter()
            .map(|(n, a)| (n.clone(), a.iter().map(as_key).collect()))
            .collect(),
        serial: if unknown { DETERMINED } else { 0 },
    }))
}

/// `k` as a map key under `facts` ([`as_key`]), with every call the facts say is a known
/// value (or another call) replaced by it: the key the program the facts describe uses. A
/// call such a fact names in a key made before the fact was assumed is what
/// `verify::with_model` turns a trace away for.
pub fn key_under(k: &Value, facts: &[Fact]) -> Value {
    let mut key = as_key(k);
    for f in facts {
        if let Some((from, to)) = equated(f) {
            key = replace_call(&key, &from, &to);
        }
    }
    key
}

/// For a fact that a call is a value (or that two calls are equal): the call, and what a key
/// holds in its place (the value, or the lesser call as a key holds it).
pub fn equated(f: &Fact) -> Option<(Value, Value)> {
    if f.relation != Relation::Is || !f.holds || !matches!(&f.call, Value::Obj(o) if o.site == 0) {
        return None;
    }
    let is_call = |v: &Value| matches!(v, Value::Obj(o) if o.site == 0 && !o.args.is_empty());
    if is_call(&f.comparand) && f.comparand != f.call {
        let (lo, hi) = if f.comparand < f.call {
            (&f.comparand, &f.call)
        } else {
            (&f.call, &f.comparand)
        };
        return Some((hi.clone(), as_key(&determined(lo))));
    }
    Some((f.call.clone(), f.comparand.clone()))
}

/// A call's identity as a key holds it (its serial [`DETERMINED`]).
fn determined(identity: &Value) -> Value {
    match identity {
        Value::Obj(o) if o.site == 0 && !o.args.is_empty() => {
            let mut o = (**o).clone();
            o.serial = DETERMINED;
            Value::Obj(Rc::new(o))
        }
        v => v.clone(),
    }
}

/// `key` with every unknown value standing for `call` replaced by `to`.
fn replace_call(key: &Value, call: &Value, to: &Value) -> Value {
    let Value::Obj(o) = key else {
        return key.clone();
    };
    if o.serial == DETERMINED && &call_identity(key) == call {
        return to.clone();
    }
    if o.args.is_empty() && o.calls.is_empty() {
        return key.clone();
    }
    let mut o = (**o).clone();
    o.args = o.args.iter().map(|a| replace_call(a, call, to)).collect();
    o.calls = o
        .calls
        .iter()
        .map(|(n, a)| {
            (
                n.clone(),
                a.iter().map(|x| replace_call(x, call, to)).collect(),
            )
        })
        .collect();
    Value::Obj(Rc::new(o))
}

/// The class of the entries a traversal gives: `getKey()` and `getValue()` of one are its
/// parts, not unknown calls (`ConcurrentHashMap`'s entries hold both as fields).
pub const ENTRY_CLASS: &str = "Map.Entry";

/// The next step of a weakly consistent traversal of map `map` from `cursor` (the entry it is
/// at, `null` before the first) over the current state: the entry of the least key after the
/// cursor's in the traversal order (the order of [`Value`]), or `null`. Taking the least such
/// key at every step is one of the behaviours the JDK allows, and the one a traversal run
/// alone has (`ConcurrentHashMap`'s iterators read each bin when they reach it): every key
/// present for the whole traversal is reached (the cursor cannot pass it while it is
/// present), every key at most once (the cursor only moves forward), and a key added or
/// removed during the traversal is seen or not depending on where the cursor is. The
/// brute-force oracle (`brute.rs`) explores every behaviour the JDK allows instead.
pub fn next_entry(shared: &Shared, map: u8, cursor: &Value) -> Value {
    use std::ops::Bound::{Excluded, Unbounded};
    let after = match cursor.as_entry() {
        Some((k, _)) => k.clone(),
        None => Value::Null,
    };
    match shared.map.range((Excluded((map, after)), Unbounded)).next() {
        Some(((m, k), v)) if *m == map => Value::entry(k.clone(), v.clone()),
        _ => Value::Null,
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Void => f.write_str("void"),
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Obj(_) if self.as_entry().is_some() => {
                let (k, v) = self.as_entry().expect("an entry");
                write!(f, "{k}={v}")
            }
            Value::Obj(o) => {
                let list = |vs: &[Value]| {
                    vs.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                if o.site == 0 && o.serial == 0 && o.args.is_empty() && o.calls.is_empty() {
                    return write!(f, "{}", o.class);
                }
                if arith::is_term(self) {
                    return arith::fmt_term(o, f);
                }
                if o.site == 0 && o.serial > 0 && o.calls.is_empty() {
                    // A boolean made from undecided operands (see `undecided`).
                    match (&*o.class, o.args.as_slice()) {
                        ("!", [x]) => return write!(f, "!{x}"),
                        ("&&" | "||", [x, y]) => return write!(f, "({x} {} {y})", o.class),
                        _ => {}
                    }
                }
                if o.site == 0 {
                    // An unknown call: receiver first, then which fresh value it gave.
                    match o.args.split_first() {
                        Some((recv, rest)) => write!(f, "{recv}.{}({})", o.class, list(rest))?,
                        None => write!(f, "{}()", o.class)?,
                    }
                    if o.serial > 0 && o.serial != DETERMINED {
                        write!(f, "#{}", o.serial)?;
                        if o.thread > 0 {
                            write!(f, "@{}", o.thread)?;
                        }
                    }
                    for (name, args) in &o.calls {
                        write!(f, ".{name}({})", list(args))?;
                    }
                    return Ok(());
                }
                write!(f, "new {}({})@{}", o.class, list(&o.args), o.site)?;
                if o.thread > 0 {
                    write!(f, "#{}", o.thread)?;
                }
                for (name, args) in &o.calls {
                    write!(f, ".{name}({})", list(args))?;
                }
                Ok(())
            }
        }
    }
}

/// How an operation ended: its return value or the exception it threw.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Returned(Value),
    Threw(Value),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Returned(Value::Void) => f.write_str("returns (void)"),
            Outcome::Returned(v) => write!(f, "returns {v}"),
            Outcome::Threw(v) => write!(f, "throws {v}"),
        }
    }
}

/// The shared state: the maps (entries keyed by map number and key) and the globals.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Shared {
    pub map: BTreeMap<(u8, Value), Value>,
    pub globals: Vec<Value>,
}

/// A pure expression over slots, globals and constants (no map calls).
#[derive(Clone, Debug)]
pub enum PExpr {
    Const(Value),
    Slot(u16),
    Global(u16),
    Not(Box<PExpr>),
    Neg(Box<PExpr>),
    Bin(BinOp, Box<PExpr>, Box<PExpr>),
    Cond(Box<PExpr>, Box<PExpr>, Box<PExpr>),
    Equals(Box<PExpr>, Box<PExpr>),
    /// An unknown call: a fresh value on every evaluation (see [`Value`]).
    Call(Rc<str>, Box<PExpr>, Vec<PExpr>),
    New(Rc<str>, u32, Vec<PExpr>),
    /// The function of an atomic map method: the slots of its parameters and its body. Only
    /// `Code::step` of such a method evaluates it.
    Lambda(Vec<u16>, Box<PExpr>),
}

impl PExpr {
    /// Calls `f` on `self` and on every expression inside it, outermost first.
    pub fn walk<'e>(&'e self, f: &mut dyn FnMut(&'e PExpr)) {
        f(self);
        match self {
            PExpr::Const(_) | PExpr::Slot(_) | PExpr::Global(_) => {}
            PExpr::Not(a) | PExpr::Neg(a) | PExpr::Lambda(_, a) => a.walk(f),
            PExpr::Bin(_, a, b) | PExpr::Equals(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            PExpr::Cond(a, b, c) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            PExpr::Call(_, r, args) => {
                r.walk(f);
                args.iter().for_each(|a| a.walk(f));
            }
            PExpr::New(_, _, args) => args.iter().for_each(|a| a.walk(f)),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Instr {
    Let(u16, PExpr),
    SetGlobal(u16, PExpr),
    /// A base map call: a main transition.
    Map {
        dst: Option<u16>,
        map: u8,
        method: MapMethod,
        args: Vec<PExpr>,
    },
    /// `x.f(args)` on a local: recorded in the object held by `x`.
    ObjCall(u16, Rc<str>, Vec<PExpr>),
    /// Falls through when the condition holds, else jumps.
    Branch(PExpr, usize),
    Jump(usize),
    Return(Option<PExpr>),
    Throw(PExpr),
}

impl Instr {
    /// Whether it reads or writes shared state (so that the environment may act before it).
    pub fn touches_shared(&self) -> bool {
        fn reads(e: &PExpr) -> bool {
            match e {
                PExpr::Global(_) => true,
                PExpr::Const(_) | PExpr::Slot(_) => false,
                PExpr::Not(a) | PExpr::Neg(a) => reads(a),
                PExpr::Bin(_, a, b) | PExpr::Equals(a, b) => reads(a) || reads(b),
                PExpr::Cond(a, b, c) => reads(a) || reads(b) || reads(c),
                PExpr::Call(_, r, args) => reads(r) || args.iter().any(reads),
                PExpr::New(_, _, args) => args.iter().any(reads),
                PExpr::Lambda(_, body) => reads(body),
            }
        }
        match self {
            Instr::Map { .. } | Instr::SetGlobal(..) => true,
            Instr::Let(_, e) | Instr::Branch(e, _) | Instr::Throw(e) => reads(e),
            Instr::ObjCall(_, _, args) => args.iter().any(reads),
            Instr::Return(e) => e.as_ref().is_some_and(reads),
            Instr::Jump(_) => false,
        }
    }
}

/// A lowered operation.
#[derive(Clone, Debug)]
pub struct Code {
    pub name: String,
    pub instrs: Vec<Instr>,
    /// Source position and text of each instruction.
    pub pos: Vec<Pos>,
    pub text: Vec<String>,
    /// Names of the slots; the parameters come first, temporaries are named `$n`.
    pub slots: Vec<String>,
    pub params: usize,
    /// The declared type of each parameter.
    pub param_ty: Vec<String>,
    pub maps: Vec<String>,
    pub globals: Vec<String>,
    /// Initial values of the globals (constants' values; mutable globals start at these too).
    pub global_init: Vec<Value>,
    /// Which globals are final constants.
    pub global_final: Vec<bool>,
    /// Which globals the operation reads or writes.
    pub global_used: Vec<bool>,
    /// The declared type of each global.
    pub global_ty: Vec<String>,
    pub entry_line: u32,
}

/// The local state of one running operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Local {
    pub pc: usize,
    pub slots: Vec<Value>,
    /// The thread whose objects `new` allocates (see [`Obj::thread`]).
    pub thread: u8,
    /// How many fresh values (unknown calls' results) the thread has drawn.
    pub fresh: u32,
    /// `None`: an observed unknown value decides nothing (an unknown call used as a condition
    /// is stuck; compared, it differs from everything), the proof's and the oracle's semantics.
    /// `Some`: the facts this path assumes about unknown values; a step that observes one no
    /// fact decides halts with [`Halt::Fork`] (the bounded check's semantics).
    pub assumed: Option<Vec<Fact>>,
}

/// An assumption about an unknown value: the result of the unknown call `call` (a fresh value
/// with its serial and thread forgotten, so that every evaluation of the same call on the same
/// receiver and arguments is the same call) is, or is not, `comparand` (`true` for a call used
/// as a condition). Calls are taken to be functions of their receiver and arguments: a path's
/// facts then describe one program whose unknown code behaves so, and a violation found
/// under them is a violation of that program.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fact {
    pub call: Value,
    pub comparand: Value,
    /// Whether it says the result is the comparand, or is less than it (an integer).
    pub relation: Relation,
    pub holds: bool,
    /// The line of the step that observed it.
    pub line: u32,
    /// For a comparison on arithmetic terms (`x.count() + 1 > limit`), rewritten into a
    /// question about one unknown (or one sum of unknowns, see `arith.rs`): the comparison
    /// as the operation makes it, which the report shows.
    pub source: Option<Rc<Comparison>>,
}

/// A comparison of two values as the operation makes it, at least one an arithmetic term of
/// unknown values, each named as facts name unknown values.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Comparison {
    pub left: Value,
    /// `<`, `<=`, `>`, `>=`, `==` or `!=`.
    pub op: &'static str,
    pub right: Value,
    /// Whether the comparison holds when the question it was rewritten into does not.
    pub negated: bool,
}

impl Comparison {
    /// Whether the comparison holds when its question is answered `holds`.
    pub fn holds(&self, holds: bool) -> bool {
        holds != self.negated
    }
}

/// How a fact relates an unknown call's result to its comparand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Relation {
    /// The result is the comparand (`==`, `equals`, a condition's `true`).
    Is,
    /// The result is an integer less than the comparand: `<`, `<=`, `>`, `>=` against an
    /// integer, each written as one (`x <= 4` is `x < 5`, `x > 4` is not `x < 5`).
    Below,
    /// The call is a function of its receiver and arguments: called again on the same ones it
    /// returns an equal value, so a map key made from it is the same key each time (the
    /// comparand is unused). Stated with a violation whose map calls use such a key.
    Function,
}

impl Fact {
    /// What it says, without its line: "the value returned by `x.state()` is `FINISHED`".
    pub fn claim(&self) -> String {
        if self.relation == Relation::Function {
            return format!(
                "`{}` returns an equal value whenever it is called on the same receiver and arguments (a key made from it is the same key)",
                self.call
            );
        }
        if let Some(c) = &self.source {
            let verdict = if c.holds(self.holds) {
                "holds"
            } else {
                "does not hold"
            };
            return format!(
                "`{} {} {}` {verdict}",
                arith::show(&c.left),
                c.op,
                arith::show(&c.right)
            );
        }
        let not = if self.holds { "" } else { "not " };
        if self.relation == Relation::Below {
            return format!(
                "the value returned by `{}` is {not}less than {}",
                self.call, self.comparand
            );
        }
        match &self.comparand {
            Value::Bool(true) => format!("the value returned by `{}` is {}", self.call, self.holds),
            c => format!("the value returned by `{}` is {not}`{c}`", self.call),
        }
    }
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.claim())
    }
}

/// An observation of an unknown value that the path's facts do not decide: whether the
/// result of `call` is `comparand`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub call: Value,
    pub comparand: Value,
    pub relation: Relation,
    /// The comparison it was rewritten from, if any (see [`Fact::source`]).
    pub source: Option<Rc<Comparison>>,
}

/// Whether some integer satisfies every fact `facts` state about `call` against integers:
/// equal to one, different from others, below or not below bounds. Facts against other values
/// say nothing of an integer and are left to [`observe`]'s own rule.
fn satisfiable(facts: &[Fact], call: &Value) -> bool {
    let mut lo = i128::from(i64::MIN);
    let mut hi = i128::from(i64::MAX);
    let mut eq: Option<i128> = None;
    let mut ne = Vec::new();
    for f in facts.iter().filter(|f| &f.call == call) {
        let Value::Int(c) = f.comparand else {
            continue;
        };
        let c = i128::from(c);
        match (f.relation, f.holds) {
            (Relation::Is, true) => {
                if eq.is_some_and(|e| e != c) {
                    return false;
                }
                eq = Some(c);
            }
            (Relation::Is, false) => ne.push(c),
            (Relation::Below, true) => hi = hi.min(c - 1),
            (Relation::Below, false) => lo = lo.max(c),
            (Relation::Function, _) => {}
        }
    }
    if let Some(e) = eq {
        return lo <= e && e <= hi && !ne.contains(&e);
    }
    ne.sort_unstable();
    ne.dedup();
    let excluded = ne.iter().filter(|c| lo <= **c && **c <= hi).count() as i128;
    lo <= hi && excluded < hi - lo + 1
}

/// Whether a set of facts can hold together: no call is two known values, and the facts
/// against integers have a model (`arith::model`: integers for the unknowns under which each
/// of them, evaluated from its terms, holds; a set whose model is not found counts as not
/// consistent, so that nothing is reported under it).
pub fn consistent(facts: &[Fact]) -> bool {
    let two_values = facts.iter().enumerate().any(|(i, a)| {
        facts[i + 1..].iter().any(|b| {
            a.relation == Relation::Is
                && b.relation == Relation::Is
                && a.holds
                && b.holds
                && a.call == b.call
                && a.comparand != b.comparand
                && !a.comparand.is_fresh()
                && !b.comparand.is_fresh()
        })
    });
    !two_values && arith::model(facts).is_some()
}

/// What the facts say of the question `call relation comparand` when the comparand is an
/// integer: `Some` when only one answer leaves the call an integer.
fn decided_by_bounds(
    facts: &[Fact],
    call: &Value,
    comparand: &Value,
    relation: Relation,
) -> Option<bool> {
    if !matches!(comparand, Value::Int(_)) {
        return None;
    }
    let with = |holds: bool| {
        let mut all = facts.to_vec();
        all.push(Fact {
            call: call.clone(),
            comparand: comparand.clone(),
            relation,
            holds,
            line: 0,
            source: None,
        });
        satisfiable(&all, call)
    };
    match (with(true), with(false)) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// Whether `x op y` (`<`, `<=`, `>`, `>=`) holds when a side is an unknown value (or an
/// arithmetic term of unknown values, `arith.rs`) and facts are kept: the facts' answer, or a
/// fork on the question the comparison is rewritten into. `Ok(None)`: the ordinary semantics
/// applies (no facts kept, nothing unknown, or a side that is no number).
fn observe_order(
    x: &Value,
    op: BinOp,
    y: &Value,
    assumed: Option<&[Fact]>,
) -> Result<Option<bool>, Fault> {
    let Some(facts) = assumed else {
        return Ok(None);
    };
    if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
        return Ok(None);
    }
    if !(arith::is_unknown_number(x) || arith::is_unknown_number(y)) {
        return Ok(None);
    }
    ask(facts, x, op.symbol(), y)
}

/// `x op y` on unknown numbers under `facts`: rewritten into a question about one unknown
/// (`arith::rewrite`), answered by the facts when they entail it, else a fork. `Ok(None)`:
/// not a comparison of numbers (the ordinary semantics applies).
fn ask(facts: &[Fact], x: &Value, op: &'static str, y: &Value) -> Result<Option<bool>, Fault> {
    let Some(r) = arith::rewrite(x, op, y) else {
        return Ok(None);
    };
    let (call, d, relation, negated) = match r {
        arith::Rewritten::Known(holds) => return Ok(Some(holds)),
        arith::Rewritten::Ask {
            subject,
            comparand,
            relation,
            negated,
        } => (subject, comparand, relation, negated),
    };
    let comparand = Value::Int(d);
    if let Some(f) = facts
        .iter()
        .find(|f| f.relation == relation && f.call == call && f.comparand == comparand)
    {
        return Ok(Some(f.holds != negated));
    }
    if let Some(b) = decided_by_bounds(facts, &call, &comparand, relation) {
        return Ok(Some(b != negated));
    }
    // The comparison as written, where it is more than an unknown call against an integer
    // (whose question says the same thing).
    let plain = |v: &Value| matches!(v, Value::Int(_)) || (v.is_fresh() && !arith::is_term(v));
    let source = (!(plain(x) && plain(y)) || (x.is_fresh() && y.is_fresh())).then(|| {
        Rc::new(Comparison {
            left: call_identity(x),
            op,
            right: call_identity(y),
            negated,
        })
    });
    Err(Fault::Fork(Question {
        call,
        comparand,
        relation,
        source,
    }))
}

/// Why a step was not taken.
#[derive(Clone, Debug)]
pub enum Halt {
    Stuck(Stuck),
    /// The step observes an unknown value no fact decides: take it again with the fact
    /// assumed each way.
    Fork(Question),
}

/// A value with every fresh value's serial and thread forgotten: the call that gave it.
pub fn call_identity(v: &Value) -> Value {
    let Value::Obj(o) = v else {
        return v.clone();
    };
    if o.args.is_empty() && o.calls.is_empty() && o.serial == 0 {
        return v.clone();
    }
    let fresh = o.serial > 0;
    Value::Obj(Rc::new(Obj {
        class: o.class.clone(),
        site: o.site,
        thread: if fresh { 0 } else { o.thread },
        args: o.args.iter().map(call_identity).collect(),
        calls: o
            .calls
            .iter()
            .map(|(n, a)| (n.clone(), a.iter().map(call_identity).collect()))
            .collect(),
        serial: 0,
    }))
}

/// Whether `x` is `y`, when one of them is an unknown value and facts are kept: the fact that
/// decides it, or a fork. `Ok(None)`: nothing unknown is observed (or no facts are kept), the
/// ordinary semantics applies.
fn observe(x: &Value, y: &Value, assumed: Option<&[Fact]>) -> Result<Option<bool>, Fault> {
    let Some(facts) = assumed else {
        return Ok(None);
    };
    let (call, comparand) = match (x.is_fresh(), y.is_fresh()) {
        (false, false) => return Ok(None),
        (true, _) => (call_identity(x), call_identity(y)),
        (false, true) => (call_identity(y), call_identity(x)),
    };
    for f in facts.iter().filter(|f| f.relation == Relation::Is) {
        let same = (f.call == call && f.comparand == comparand)
            || (f.call == comparand && f.comparand == call);
        if same {
            return Ok(Some(f.holds));
        }
        // A call returns one value: being one known value, it is no other.
        if f.call == call && f.holds && !f.comparand.is_fresh() && !comparand.is_fresh() {
            return Ok(Some(false));
        }
    }
    if let Some(b) = decided_by_bounds(facts, &call, &comparand, Relation::Is) {
        return Ok(Some(b));
    }
    Err(Fault::Fork(Question {
        call,
        comparand,
        relation: Relation::Is,
        source: None,
    }))
}

/// The truth of a condition's value: an unknown value is decided by the facts (or forks).
fn truth(v: &Value, assumed: Option<&[Fact]>) -> Result<Option<bool>, Fault> {
    if v.is_fresh() {
        observe(v, &Value::Bool(true), assumed)
    } else {
        Ok(None)
    }
}

/// What one step did.
#[derive(Clone, Debug)]
pub enum Step {
    Local,
    /// A base map call with its result.
    Main {
        map: u8,
        method: MapMethod,
        args: Vec<Value>,
        result: Value,
    },
    Done(Outcome),
}

/// Why a step cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stuck(pub String);

enum Fault {
    Throw(Value),
    Stuck(String),
    Fork(Question),
}

fn npe() -> Fault {
    Fault::Throw(Value::exception("NullPointerException"))
}

fn eval(e: &PExpr, slots: &[Value], shared: &Shared) -> Result<Value, Fault> {
    let mut fresh = 0;
    eval_in(e, slots, shared, 0, &mut fresh, None)
}

fn eval_in(
    e: &PExpr,
    slots: &[Value],
    shared: &Shared,
    thread: u8,
    fresh: &mut u32,
    assumed: Option<&[Fact]>,
) -> Result<Value, Fault> {
    let mut eval = |e: &PExpr, slots: &[Value], shared: &Shared| {
        eval_in(e, slots, shared, thread, fresh, assumed)
    };
    Ok(match e {
        PExpr::Const(v) => v.clone(),
        PExpr::Slot(s) => slots[*s as usize].clone(),
        PExpr::Global(g) => shared.globals[*g as usize].clone(),
        PExpr::Not(a) => match eval(a, slots, shared)? {
            v if v.is_fresh() && assumed.is_some() => {
                Value::Bool(!truth(&v, assumed)?.unwrap_or(false))
            }
            v if v.is_fresh() => undecided("!", vec![v], thread, fresh),
            Value::Bool(b) => Value::Bool(!b),
            Value::Null => return Err(npe()),
            v => {
                return Err(Fault::Stuck(format!(
                    "`!` applied to {v}, which is not a boolean"
                )))
            }
        },
        PExpr::Neg(a) => match eval(a, slots, shared)? {
            Value::Int(n) => Value::Int(n.wrapping_neg()),
            v if assumed.is_some() && arith::is_unknown_number(&v) => {
                *fresh += 1;
                arith::term(arith::NEG, vec![v], thread, *fresh)
            }
            Value::Null => return Err(npe()),
            v => return Err(Fault::Stuck(format!("`-` applied to {v}"))),
        },
        PExpr::Bin(op, a, b) => {
            let x = eval(a, slots, shared)?;
            match op {
                BinOp::And | BinOp::Or => {
                    let x = match truth(&x, assumed)? {
                        Some(b) => Value::Bool(b),
                        None => x,
                    };
                    let Value::Bool(xb) = x else {
                        if x.is_fresh() {
                            return junction_of_undecided(
                                *op,
                                x,
                                eval(b, slots, shared),
                                thread,
                                fresh,
                            );
                        }
                        return Err(Fault::Stuck(format!("`{}` applied to {x}", op.symbol())));
                    };
                    if xb == (*op == BinOp::Or) {
                        return Ok(Value::Bool(xb));
                    }
                    let y = eval(b, slots, shared)?;
                    if let Some(yb) = truth(&y, assumed)? {
                        return Ok(Value::Bool(yb));
                    }
                    return match y {
                        Value::Bool(y) => Ok(Value::Bool(y)),
                        // `false || y` and `true && y` are `y`, decided or not.
                        y if y.is_fresh() => Ok(y),
                        y => Err(Fault::Stuck(format!("`{}` applied to {y}", op.symbol()))),
                    };
                }
                _ => {}
            }
            let y = eval(b, slots, shared)?;
            if let Some(holds) = observe_order(&x, *op, &y, assumed)? {
                return Ok(Value::Bool(holds));
            }
            if let Some(facts) = assumed {
                let unknown = |v: &Value| arith::is_unknown_number(v);
                let number = |v: &Value| matches!(v, Value::Int(_)) || unknown(v);
                match op {
                    // Arithmetic with an unknown operand: a term, a function of its operands.
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
                        if (unknown(&x) || unknown(&y)) && number(&x) && number(&y) =>
                    {
                        if matches!(op, BinOp::Div | BinOp::Rem) && y == Value::Int(0) {
                            return Err(Fault::Throw(Value::exception("ArithmeticException")));
                        }
                        *fresh += 1;
                        return Ok(arith::term(op.symbol(), vec![x, y], thread, *fresh));
                    }
                    // Equality of a term: a question about its unknowns.
                    BinOp::Eq | BinOp::Ne if arith::is_term(&x) || arith::is_term(&y) => {
                        if let Some(same) = ask(facts, &x, op.symbol(), &y)? {
                            return Ok(Value::Bool(same));
                        }
                    }
                    _ => {}
                }
            }
            if matches!(op, BinOp::Eq | BinOp::Ne) {
                if let Some(same) = observe(&x, &y, assumed)? {
                    return Ok(Value::Bool(same == (*op == BinOp::Eq)));
                }
            }
            binary(*op, x, y)?
        }
        PExpr::Cond(c, a, b) => match eval(c, slots, shared).and_then(|v| {
            Ok(match truth(&v, assumed)? {
                Some(b) => Value::Bool(b),
                None => v,
            })
        })? {
            Value::Bool(true) => eval(a, slots, shared)?,
            Value::Bool(false) => eval(b, slots, shared)?,
            v => return Err(Fault::Stuck(format!("`?:` condition is {v}"))),
        },
        PExpr::Equals(a, b) => {
            let x = eval(a, slots, shared)?;
            let y = eval(b, slots, shared)?;
            if x == Value::Null {
                return Err(npe());
            }
            if let Some(same) = observe(&x, &y, assumed)? {
                return Ok(Value::Bool(same));
            }
            Value::Bool(x == y)
        }
        PExpr::Call(name, recv, args) => {
            let r = eval(recv, slots, shared)?;
            if r == Value::Null {
                return Err(npe());
            }
            if let (Some((k, v)), true) = (r.as_entry(), args.is_empty()) {
                match &**name {
                    "getKey" => return Ok(k.clone()),
                    "getValue" => return Ok(v.clone()),
                    _ => {}
                }
            }
            let mut vs = vec![r];
            for a in args {
                vs.push(eval(a, slots, shared)?);
            }
            if let Some(v) = math(name, &vs, assumed.is_some(), thread, fresh) {
                return Ok(v);
            }
            *fresh += 1;
            Value::Obj(Rc::new(Obj {
                class: name.clone(),
                site: 0,
                thread,
                args: vs,
                calls: Vec::new(),
                serial: *fresh,
            }))
        }
        PExpr::New(class, site, args) => {
            let mut vs = Vec::new();
            for a in args {
                vs.push(eval(a, slots, shared)?);
            }
            Value::Obj(Rc::new(Obj {
                class: class.clone(),
                site: *site,
                thread,
                args: vs,
                calls: Vec::new(),
                serial: 0,
            }))
        }
        PExpr::Lambda(..) => {
            return Err(Fault::Stuck(
                "a function used as a value outside an atomic map method".into(),
            ))
        }
    })
}

/// `Math.max`, `Math.min` and `Math.abs` (`vs`: the receiver, then the arguments): on
/// integers their value; with an unknown operand, where facts are kept, a term (`arith.rs`);
/// `None` for any other call (an unknown one).
fn math(name: &str, vs: &[Value], terms: bool, thread: u8, fresh: &mut u32) -> Option<Value> {
    let (recv, args) = vs.split_first()?;
    let is_math = matches!(recv, Value::Obj(o) if &*o.class == "Math" && o.site == 0 && o.serial == 0 && o.args.is_empty());
    if !is_math {
        return None;
    }
    let class = match (name, args.len()) {
        ("max", 2) => arith::MAX,
        ("min", 2) => arith::MIN,
        ("abs", 1) => arith::ABS,
        _ => return None,
    };
    match args {
        [Value::Int(a), Value::Int(b)] if class == arith::MAX => Some(Value::Int(*a.max(b))),
        [Value::Int(a), Value::Int(b)] => Some(Value::Int(*a.min(b))),
        // Java's `Math.abs` of the least value is that value.
        [Value::Int(a)] => Some(Value::Int(a.wrapping_abs())),
        _ if terms
            && args
                .iter()
                .all(|a| matches!(a, Value::Int(_)) || arith::is_unknown_number(a))
            && args.iter().any(arith::is_unknown_number) =>
        {
            *fresh += 1;
            Some(arith::term(class, args.to_vec(), thread, *fresh))
        }
        _ => None,
    }
}

/// A boolean the proof leaves undecided, made from undecided operands (`!x`, `x || y`):
/// where no assumption decides an unknown value (the verifier's proof), such a value may
/// still be passed along (`check(a.isX() || b.isY())`), as the unknown value it is; a
/// condition or comparison on it stays `cannot evaluate`, as one on its operands does.
fn undecided(op: &str, args: Vec<Value>, thread: u8, fresh: &mut u32) -> Value {
    *fresh += 1;
    Value::Obj(Rc::new(Obj {
        class: Rc::from(op),
        site: 0,
        thread,
        args,
        calls: Vec::new(),
        serial: *fresh,
    }))
}

/// `x && y` or `x || y` where the proof leaves `x` undecided. Java evaluates `y` only on one
/// answer of `x`, so `y` is evaluated here as if it were: a value is exact on that answer
/// (a decided `y` that settles the junction settles it on both), an exception is one only
/// that answer throws, which the proof cannot tell apart, so it cannot evaluate the junction.
fn junction_of_undecided(
    op: BinOp,
    x: Value,
    y: Result<Value, Fault>,
    thread: u8,
    fresh: &mut u32,
) -> Result<Value, Fault> {
    let y = match y {
        Ok(y) => y,
        Err(Fault::Throw(e)) => {
            return Err(Fault::Stuck(format!(
                "`{}` applied to {x}, whose right operand throws {e} on one answer of it",
                op.symbol()
            )))
        }
        Err(fault) => return Err(fault),
    };
    match y {
        // `x || true` is true and `x && false` is false whatever `x` is.
        Value::Bool(yb) if yb == (op == BinOp::Or) => Ok(Value::Bool(yb)),
        // `x || false` and `x && true` are `x`.
        Value::Bool(_) => Ok(x),
        y if y.is_fresh() => Ok(undecided(op.symbol(), vec![x, y], thread, fresh)),
        y => Err(Fault::Stuck(format!("`{}` applied to {y}", op.symbol()))),
    }
}

fn binary(op: BinOp, x: Value, y: Value) -> Result<Value, Fault> {
    match op {
        BinOp::Eq => return Ok(Value::Bool(x == y)),
        BinOp::Ne => return Ok(Value::Bool(x != y)),
        _ => {}
    }
    if op == BinOp::Add {
        match (&x, &y) {
            (Value::Str(a), b) => return Ok(Value::str(&format!("{a}{}", plain(b)))),
            (a, Value::Str(b)) => return Ok(Value::str(&format!("{}{b}", plain(a)))),
            _ => {}
        }
    }
    let (a, b) = match (&x, &y) {
        (Value::Int(a), Value::Int(b)) => (*a, *b),
        (Value::Null, _) | (_, Value::Null) => return Err(npe()),
        _ => {
            return Err(Fault::Stuck(format!(
                "`{}` applied to {x} and {y}",
                op.symbol()
            )))
        }
    };
    Ok(match op {
        BinOp::Add => Value::Int(a.wrapping_add(b)),
        BinOp::Sub => Value::Int(a.wrapping_sub(b)),
        BinOp::Mul => Value::Int(a.wrapping_mul(b)),
        BinOp::Div | BinOp::Rem if b == 0 => {
            return Err(Fault::Throw(Value::exception("ArithmeticException")))
        }
        BinOp::Div => Value::Int(a.wrapping_div(b)),
        BinOp::Rem => Value::Int(a.wrapping_rem(b)),
        BinOp::Lt => Value::Bool(a < b),
        BinOp::Le => Value::Bool(a <= b),
        BinOp::Gt => Value::Bool(a > b),
        BinOp::Ge => Value::Bool(a >= b),
        BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or => unreachable!("handled above"),
    })
}

/// A value as string concatenation shows it.
fn plain(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        v => v.to_string(),
    }
}

/// Evaluates in a thread's local state (drawing its fresh values).
fn ev(e: &PExpr, local: &mut Local, shared: &Shared) -> Result<Value, Fault> {
    let mut fresh = local.fresh;
    let v = eval_in(
        e,
        &local.slots,
        shared,
        local.thread,
        &mut fresh,
        local.assumed.as_deref(),
    );
    local.fresh = fresh;
    v
}

/// `computeIfAbsent`, `computeIfPresent`, `compute` and `merge` as `ConcurrentHashMap` runs
/// them: one atomic step in which the function sees the entry and its result replaces it
/// (`null` removes it); a function that throws leaves the map unchanged. Returns the shown
/// arguments and the result.
fn apply_functional(
    local: &mut Local,
    shared: &mut Shared,
    map: u8,
    method: MapMethod,
    args: &[PExpr],
) -> Result<(Vec<Value>, Value), Fault> {
    let Some((PExpr::Lambda(params, body), plain)) = args.split_last() else {
        return Err(Fault::Stuck(format!(
            "`{}` without a function",
            method.name()
        )));
    };
    let mut vs = Vec::new();
    for a in plain {
        vs.push(ev(a, local, shared)?);
    }
    if vs.iter().any(|v| *v == Value::Null || *v == Value::Void) {
        return Err(npe());
    }
    if let Some(facts) = &local.assumed {
        vs[0] = key_under(&vs[0], facts);
    }
    let key = (map, vs[0].clone());
    let current = shared.map.get(&key).cloned();
    let call = |local: &mut Local, inputs: [Value; 2]| -> Result<Value, Fault> {
        for (slot, v) in params.iter().zip(inputs) {
            local.slots[*slot as usize] = v;
        }
        ev(body, local, shared)
    };
    let (new, result) = match method {
        MapMethod::ComputeIfAbsent => match current {
            Some(v) => (Some(v.clone()), v),
            None => {
                let v = call(local, [vs[0].clone(), Value::Void])?;
                (Some(v.clone()), v)
            }
        },
        MapMethod::ComputeIfPresent => match current {
            None => (None, Value::Null),
            Some(old) => {
                let v = call(local, [vs[0].clone(), old])?;
                (Some(v.clone()), v)
            }
        },
        MapMethod::Compute => {
            let old = current.unwrap_or(Value::Null);
            let v = call(local, [vs[0].clone(), old])?;
            (Some(v.clone()), v)
        }
        MapMethod::Merge => match current {
            None => (Some(vs[1].clone()), vs[1].clone()),
            Some(old) => {
                let v = call(local, [old, vs[1].clone()])?;
                (Some(v.clone()), v)
            }
        },
        _ => {
            return Err(Fault::Stuck(format!(
                "`{}` takes no function",
                method.name()
            )))
        }
    };
    match new {
        Some(Value::Null) => {
            shared.map.remove(&key);
        }
        Some(Value::Void) => {
            return Err(Fault::Stuck(format!(
                "the function of `{}` returned no value",
                method.name()
            )))
        }
        Some(v) => {
            shared.map.insert(key, v);
        }
        None => {}
    }
    Ok((vs, result))
}

/// The atomic effect of a base method on `shared` (entries of map `map`) and its result.
pub fn apply_map(
    shared: &mut Shared,
    map: u8,
    method: MapMethod,
    args: &[Value],
) -> Result<Value, Value> {
    let npe = || Value::exception("NullPointerException");
    if method == MapMethod::Next {
        return Ok(next_entry(shared, map, &args[0]));
    }
    if method == MapMethod::Size {
        let n = shared.map.keys().filter(|(m, _)| *m == map).count();
        return Ok(Value::Int(n as i64));
    }
    // `getOrDefault`'s default may be null; every other argument of the map's methods may not.
    let checked = if method == MapMethod::GetOrDefault {
        &args[..1]
    } else {
        args
    };
    if checked
        .iter()
        .any(|a| *a == Value::Null || *a == Value::Void)
    {
        return Err(npe());
    }
    let key = (map, args[0].clone());
    let current = shared.map.get(&key).cloned();
    let prev = current.clone().unwrap_or(Value::Null);
    Ok(match method {
        MapMethod::Get => prev,
        MapMethod::ContainsKey => Value::Bool(current.is_some()),
        MapMethod::Put => {
            shared.map.insert(key, args[1].clone());
            prev
        }
        MapMethod::Remove => {
            shared.map.remove(&key);
            prev
        }
        MapMethod::RemoveValue => {
            let hit = current.as_ref() == Some(&args[1]);
            if hit {
                shared.map.remove(&key);
            }
            Value::Bool(hit)
        }
        MapMethod::PutIfAbsent => {
            if current.is_none() {
                shared.map.insert(key, args[1].clone());
            }
            prev
        }
        MapMethod::Replace => {
            if current.is_some() {
                shared.map.insert(key, args[1].clone());
            }
            prev
        }
        MapMethod::ReplaceValue => {
            let hit = current.as_ref() == Some(&args[1]);
            if hit {
                shared.map.insert(key, args[2].clone());
            }
            Value::Bool(hit)
        }
        MapMethod::GetOrDefault => current.unwrap_or_else(|| args[1].clone()),
        // The functional methods run their function: `Code::step` applies them.
        MapMethod::ComputeIfAbsent
        | MapMethod::ComputeIfPresent
        | MapMethod::Compute
        | MapMethod::Merge
        | MapMethod::Size
        | MapMethod::Next => prev,
    })
}

/// Renames fresh values to the order in which they first appear, so that two observations
/// that differ only in which fresh values were drawn compare equal.
#[derive(Default)]
pub struct FreshNames {
    names: BTreeMap<(u8, u32), u32>,
    /// Unknowns with a value (the model of a violation's facts, `arith::pins`): an unknown
    /// among them, and a term made only of them, is that integer.
    pins: arith::Pins,
}

impl FreshNames {
    /// Renaming with the unknowns `pins` fixes replaced by their values.
    pub fn pinned(pins: &arith::Pins) -> FreshNames {
        FreshNames {
            names: BTreeMap::new(),
            pins: pins.clone(),
        }
    }

    pub fn value(&mut self, v: &Value) -> Value {
        let Value::Obj(o) = v else {
            return v.clone();
        };
        if !self.pins.is_empty() && arith::is_unknown_number(v) {
            if let Some(n) = arith::value_under(v, &self.pins) {
                return Value::Int(n);
            }
        }
        if o.serial == 0 && o.args.is_empty() && o.calls.is_empty() {
            return v.clone();
        }
        let args = o.args.iter().map(|a| self.value(a)).collect();
        let calls = o
            .calls
            .iter()
            .map(|(n, a)| (n.clone(), a.iter().map(|x| self.value(x)).collect()))
            .collect();
        let (thread, serial) = if o.serial == DETERMINED {
            (0, DETERMINED)
        } else if o.serial > 0 {
            let next = self.names.len() as u32 + 1;
            (0, *self.names.entry((o.thread, o.serial)).or_insert(next))
        } else {
            (o.thread, 0)
        };
        Value::Obj(Rc::new(Obj {
            class: o.class.clone(),
            site: o.site,
            thread,
            args,
            calls,
            serial,
        }))
    }

    pub fn outcome(&mut self, o: &Outcome) -> Outcome {
        match o {
            Outcome::Returned(v) => Outcome::Returned(self.value(v)),
            Outcome::Threw(v) => Outcome::Threw(self.value(v)),
        }
    }

    pub fn shared(&mut self, s: &Shared) -> Shared {
        Shared {
            map: s
                .map
                .iter()
                .map(|((m, k), v)| ((*m, self.value(k)), self.value(v)))
                .collect(),
            globals: s.globals.iter().map(|g| self.value(g)).collect(),
        }
    }
}

/// Whether two observations (outcomes in history order, then the final state) are the same up
/// to a renaming of fresh values. A sufficient test: both are renamed in order of first
/// appearance and compared.
pub fn same_up_to_fresh(a: (&[Outcome], &Shared), b: (&[Outcome], &Shared)) -> bool {
    same_up_to_fresh_pinned(&arith::Pins::new(), a, b)
}

/// [`same_up_to_fresh`] with the unknowns `pins` fixes replaced by their values first (in a
/// program whose unknown code returns them, `x.count() + 1` is that integer).
pub fn same_up_to_fresh_pinned(
    pins: &arith::Pins,
    a: (&[Outcome], &Shared),
    b: (&[Outcome], &Shared),
) -> bool {
    if a.0.len() != b.0.len() {
        return false;
    }
    let mut na = FreshNames::pinned(pins);
    let mut nb = FreshNames::pinned(pins);
    a.0.iter()
        .zip(b.0)
        .all(|(x, y)| na.outcome(x) == nb.outcome(y))
        && na.shared(a.1) == nb.shared(b.1)
}

impl Code {
    /// The initial local state for these arguments.
    pub fn start(&self, args: &[Value]) -> Local {
        let mut slots = vec![Value::Void; self.slots.len()];
        slots[..args.len()].clone_from_slice(args);
        Local {
            pc: 0,
            slots,
            thread: 0,
            fresh: 0,
            assumed: None,
        }
    }

    /// The initial shared state with these map entries (globals at their initial values).
    pub fn shared(&self, map: BTreeMap<(u8, Value), Value>) -> Shared {
        Shared {
            map,
            globals: self.global_init.clone(),
        }
    }

    /// Executes the instruction at `local.pc`.
    pub fn step(&self, local: &mut Local, shared: &mut Shared) -> Result<Step, Stuck> {
        match self.step_or_fork(local, shared) {
            Ok(s) => Ok(s),
            Err(Halt::Stuck(s)) => Err(s),
            Err(Halt::Fork(q)) => {
                let p = self.pos[local.pc];
                Err(Stuck(format!(
                    "line {}:{}: cannot evaluate: it depends on whether the value returned by `{}` is `{}`",
                    p.line, p.col, q.call, q.comparand
                )))
            }
        }
    }

    /// Executes the instruction at `local.pc`, or says which unknown value it observes that
    /// the local state's facts do not decide (then nothing has changed).
    pub fn step_or_fork(&self, local: &mut Local, shared: &mut Shared) -> Result<Step, Halt> {
        // Only a local state that keeps facts can fork: the others are not copied.
        let saved = local
            .assumed
            .is_some()
            .then(|| (local.clone(), shared.clone()));
        match self.try_step(local, shared) {
            Ok(s) => Ok(s),
            Err(Fault::Throw(v)) => Ok(Step::Done(Outcome::Threw(v))),
            Err(Fault::Stuck(why)) => {
                let p = self.pos[local.pc];
                Err(Halt::Stuck(Stuck(format!(
                    "line {}:{}: cannot evaluate: {why}",
                    p.line, p.col
                ))))
            }
            Err(Fault::Fork(q)) => {
                // A functional map method may have drawn fresh values before its function
                // asked: the step is taken again from the start.
                if let Some((l, s)) = saved {
                    *local = l;
                    *shared = s;
                }
                Err(Halt::Fork(q))
            }
        }
    }

    /// `local` with `question` assumed answered `holds` at the current instruction.
    pub fn assume(&self, local: &Local, question: &Question, holds: bool) -> Local {
        let mut l = local.clone();
        l.assumed.get_or_insert_with(Vec::new).push(Fact {
            call: question.call.clone(),
            comparand: question.comparand.clone(),
            relation: question.relation,
            holds,
            line: self.line(local.pc),
            source: question.source.clone(),
        });
        l
    }

    /// Every way a run without interference can go from `local` to completion under its facts:
    /// an unknown value they do not decide is taken both ways (at most `max_runs` runs, each of
    /// at most `limit` steps).
    pub fn run_sequential_all(
        &self,
        local: Local,
        shared: Shared,
        limit: usize,
        max_runs: usize,
    ) -> Result<Vec<(Outcome, Shared)>, Stuck> {
        Ok(self
            .sequential_ways(local, shared, limit, max_runs)?
            .into_iter()
            .map(|(o, s, _)| (o, s))
            .collect())
    }

    /// [`Code::run_sequential_all`], each run with the facts it ended under.
    pub fn sequential_ways(
        &self,
        local: Local,
        shared: Shared,
        limit: usize,
        max_runs: usize,
    ) -> Result<Vec<(Outcome, Shared, Vec<Fact>)>, Stuck> {
        let mut out = Vec::new();
        let mut pending = vec![(local, shared, 0usize)];
        while let Some((mut l, mut s, mut steps)) = pending.pop() {
            loop {
                if steps >= limit {
                    return Err(Stuck(format!(
                        "the operation does not finish within {limit} steps when run alone"
                    )));
                }
                steps += 1;
                match self.step_or_fork(&mut l, &mut s) {
                    Ok(Step::Done(o)) => {
                        out.push((o, s, l.assumed.take().unwrap_or_default()));
                        break;
                    }
                    Ok(_) => {}
                    Err(Halt::Stuck(e)) => return Err(e),
                    Err(Halt::Fork(q)) => {
                        if out.len() + pending.len() + 2 > max_runs {
                            return Err(Stuck(format!(
                                "more than {max_runs} ways to run alone (unknown values taken both ways)"
                            )));
                        }
                        pending.push((self.assume(&l, &q, false), s.clone(), steps));
                        l = self.assume(&l, &q, true);
                    }
                }
            }
        }
        Ok(out)
    }

    fn try_step(&self, local: &mut Local, shared: &mut Shared) -> Result<Step, Fault> {
        let pc = local.pc;
        match &self.instrs[pc] {
            Instr::Let(slot, e) => {
                local.slots[*slot as usize] = ev(e, local, shared)?;
                local.pc += 1;
                Ok(Step::Local)
            }
            Instr::SetGlobal(g, e) => {
                shared.globals[*g as usize] = ev(e, local, shared)?;
                local.pc += 1;
                Ok(Step::Local)
            }
            Instr::Map {
                dst,
                map,
                method,
                args,
            } => {
                let (vs, result) = if method.takes_function() {
                    apply_functional(local, shared, *map, *method, args)?
                } else {
                    let mut vs = args
                        .iter()
                        .map(|a| ev(a, local, shared))
                        .collect::<Result<Vec<_>, _>>()?;
                    // An unknown the facts fix to an integer is that integer to the map (its
                    // keys and values are compared by value).
                    if let (Some(facts), true, Some(k)) =
                        (&local.assumed, method.keyed(), vs.first_mut())
                    {
                        *k = key_under(k, facts);
                    }
                    if let Some(facts) = &local.assumed {
                        let pins = arith::pinned(facts);
                        if !pins.is_empty() {
                            for v in &mut vs {
                                *v = arith::substitute(v, &pins);
                            }
                        }
                    }
                    let result = apply_map(shared, *map, *method, &vs).map_err(Fault::Throw)?;
                    (vs, result)
                };
                if let Some(d) = dst {
                    local.slots[*d as usize] = result.clone();
                }
                local.pc += 1;
                Ok(Step::Main {
                    map: *map,
                    method: *method,
                    args: vs,
                    result,
                })
            }
            Instr::ObjCall(slot, name, args) => {
                let vs = args
                    .iter()
                    .map(|a| ev(a, local, shared))
                    .collect::<Result<Vec<_>, _>>()?;
                match &local.slots[*slot as usize] {
                    // An object the operation made (or an unknown call gave it): the call is
                    // part of its identity from now on.
                    Value::Obj(o) if o.site != 0 || o.serial != 0 => {
                        let mut o = (**o).clone();
                        o.calls.push((name.clone(), vs));
                        local.slots[*slot as usize] = Value::Obj(Rc::new(o));
                    }
                    Value::Null => return Err(npe()),
                    // Anything else: an unknown call whose effect is on state outside the
                    // model, and whose result is unused.
                    _ => {}
                }
                local.pc += 1;
                Ok(Step::Local)
            }
            Instr::Branch(c, target) => {
                let v = ev(c, local, shared)?;
                let v = match truth(&v, local.assumed.as_deref())? {
                    Some(b) => Value::Bool(b),
                    None => v,
                };
                match v {
                    Value::Bool(true) => local.pc += 1,
                    Value::Bool(false) => local.pc = *target,
                    Value::Null => return Err(npe()),
                    v => return Err(Fault::Stuck(format!("the condition is {v}, not a boolean"))),
                }
                Ok(Step::Local)
            }
            Instr::Jump(t) => {
                local.pc = *t;
                Ok(Step::Local)
            }
            Instr::Return(e) => {
                let v = match e {
                    Some(e) => ev(e, local, shared)?,
                    None => Value::Void,
                };
                Ok(Step::Done(Outcome::Returned(v)))
            }
            Instr::Throw(e) => {
                let v = ev(e, local, shared)?;
                if v == Value::Null {
                    return Err(npe());
                }
                Ok(Step::Done(Outcome::Threw(v)))
            }
        }
    }

    /// Runs without interference from `local` to completion (at most `limit` steps).
    pub fn run_sequential(
        &self,
        mut local: Local,
        mut shared: Shared,
        limit: usize,
    ) -> Result<(Outcome, Shared), Stuck> {
        for _ in 0..limit {
            if let Step::Done(out) = self.step(&mut local, &mut shared)? {
                return Ok((out, shared));
            }
        }
        Err(Stuck(format!(
            "the operation does not finish within {limit} steps when run alone"
        )))
    }

    /// The local variables worth showing in a state (parameters and assigned named locals).
    pub fn show_locals(&self, local: &Local) -> String {
        self.slots
            .iter()
            .zip(&local.slots)
            .filter(|(n, v)| !n.starts_with('$') && **v != Value::Void)
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `C={k->v, ..}` (map names are shown when there are several maps), then the globals.
    pub fn show_shared(&self, shared: &Shared) -> String {
        let several = self.maps.len() > 1;
        let entries: Vec<String> = shared
            .map
            .iter()
            .map(|((m, k), v)| {
                if several {
                    format!("{}[{k}]->{v}", self.maps[*m as usize])
                } else {
                    format!("{k}->{v}")
                }
            })
            .collect();
        let mut s = format!("C={{{}}}", entries.join(", "));
        for (i, g) in self.globals.iter().enumerate() {
            if !self.global_final[i] && self.global_used[i] {
                s.push_str(&format!(", {g}={}", shared.globals[i]));
            }
        }
        s
    }

    /// The line a program counter stands at (the closing brace for the implicit return).
    pub fn line(&self, pc: usize) -> u32 {
        self.pos[pc].line
    }
}

/// Source text of an expression, as the operation spells it.
pub fn show(e: &Expr) -> String {
    let list = |args: &[Expr]| args.iter().map(show).collect::<Vec<_>>().join(", ");
    match &e.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Var(v) => hidden_name(v).unwrap_or(v).to_owned(),
        ExprKind::This => "this".into(),
        ExprKind::Not(a) => format!("!{}", paren(a)),
        ExprKind::Neg(a) => format!("-{}", paren(a)),
        ExprKind::Binary(op, a, b) => format!("{} {} {}", paren(a), op.symbol(), paren(b)),
        ExprKind::Cond(a, b, c) => format!("{} ? {} : {}", paren(a), paren(b), paren(c)),
        ExprKind::MapCall {
            map,
            method: MapMethod::Next,
            args,
        } => format!("{map}: next entry after {}", list(args)),
        ExprKind::MapCall { map, method, args } => {
            if map == THIS_MAP {
                format!("{}({})", method.name(), list(args))
            } else {
                format!("{map}.{}({})", method.name(), list(args))
            }
        }
        ExprKind::Equals(a, b) => format!("{}.equals({})", paren(a), show(b)),
        ExprKind::Call { recv, name, args } => {
            format!("{}.{name}({})", paren(recv), list(args))
        }
        ExprKind::New { class, args } => format!("new {class}({})", list(args)),
        ExprKind::Opaque(text) => text.clone(),
        ExprKind::Lambda { params, body } => {
            if params.len() == 1 {
                format!("{} -> {}", params[0], show(body))
            } else {
                format!("({}) -> {}", params.join(", "), show(body))
            }
        }
    }
}

/// A local the front end made (`$entry12_9`, `$found3_5`: a word, then where it was made) by
/// its word; `None` for any other name (a temporary `$4` included).
fn hidden_name(v: &str) -> Option<&str> {
    let rest = v.strip_prefix('$')?;
    let word = rest.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    (!word.is_empty() && word.len() < rest.len() && word.chars().all(|c| c.is_ascii_alphabetic()))
        .then_some(word)
}

/// A local as the operation's text names it (a traversal's own locals by what they hold).
fn show_name(name: &str) -> String {
    show(&Expr {
        kind: ExprKind::Var(name.to_owned()),
        pos: Pos::default(),
    })
}

fn paren(e: &Expr) -> String {
    match e.kind {
        ExprKind::Binary(..) | ExprKind::Cond(..) => format!("({})", show(e)),
        _ => show(e),
    }
}

/// Java's default value of a field of type `ty`.
pub fn default_value(ty: &str) -> Value {
    match ty {
        "int" | "long" | "short" | "byte" => Value::Int(0),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

/// Lowers one operation of `program`.
pub fn lower(program: &Program, op: &Operation) -> Code {
    let mut l = Lower {
        code: Code {
            name: op.name.clone(),
            instrs: Vec::new(),
            pos: Vec::new(),
            text: Vec::new(),
            slots: op.params.iter().map(|p| p.name.clone()).collect(),
            params: op.params.len(),
            param_ty: op.params.iter().map(|p| p.ty.clone()).collect(),
            maps: Vec::new(),
            globals: program
                .fields
                .iter()
                .filter(|f| !f.is_map())
                .map(|f| f.name.clone())
                .collect(),
            global_init: Vec::new(),
            global_final: Vec::new(),
            global_used: Vec::new(),
            global_ty: Vec::new(),
            entry_line: op.pos.line,
        },
        breaks: Vec::new(),
    };
    for f in program.fields.iter().filter(|f| !f.is_map()) {
        // Initializers use only constants (the parser checks), so an empty state evaluates them.
        let v = match &f.init {
            Some(e) => {
                let empty = Shared::default();
                eval(&l.pure(e), &[], &empty).unwrap_or(Value::Null)
            }
            None => default_value(&f.ty),
        };
        l.code.global_ty.push(f.ty.clone());
        l.code.global_init.push(v);
        l.code.global_final.push(f.is_final);
        l.code.global_used.push(false);
    }
    l.stmts(&op.body);
    let end = Pos {
        line: op.end_line,
        col: 1,
    };
    l.emit(Instr::Return(None), end, "return".into());
    l.code
}

struct Lower {
    code: Code,
    /// For each enclosing loop: the jumps to patch to its exit, and where `continue` goes.
    breaks: Vec<(Vec<usize>, Vec<usize>)>,
}

fn has_map_call(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::MapCall { .. } => true,
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Int(_)
        | ExprKind::Str(_)
        | ExprKind::Var(_)
        | ExprKind::Opaque(_)
        | ExprKind::This => false,
        ExprKind::Lambda { body, .. } => has_map_call(body),
        ExprKind::Not(a) | ExprKind::Neg(a) => has_map_call(a),
        ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => has_map_call(a) || has_map_call(b),
        ExprKind::Cond(a, b, c) => has_map_call(a) || has_map_call(b) || has_map_call(c),
        ExprKind::Call { recv, args, .. } => has_map_call(recv) || args.iter().any(has_map_call),
        ExprKind::New { args, .. } => args.iter().any(has_map_call),
    }
}

impl Lower {
    fn emit(&mut self, i: Instr, pos: Pos, text: String) -> usize {
        self.code.instrs.push(i);
        self.code.pos.push(pos);
        self.code.text.push(text);
        self.code.instrs.len() - 1
    }

    fn slot(&mut self, name: &str) -> u16 {
        if let Some(i) = self.code.slots.iter().position(|s| s == name) {
            return i as u16;
        }
        self.code.slots.push(name.to_owned());
        (self.code.slots.len() - 1) as u16
    }

    fn temp(&mut self) -> u16 {
        let n = format!("${}", self.code.slots.len());
        self.slot(&n)
    }

    fn map(&mut self, name: &str) -> u8 {
        if let Some(i) = self.code.maps.iter().position(|s| s == name) {
            return i as u8;
        }
        self.code.maps.push(name.to_owned());
        (self.code.maps.len() - 1) as u8
    }

    fn global(&self, name: &str) -> Option<u16> {
        self.code
            .globals
            .iter()
            .position(|g| g == name)
            .map(|i| i as u16)
    }

    fn is_local(&self, name: &str) -> bool {
        self.code.slots.iter().any(|s| s == name) || self.global(name).is_none()
    }

    /// A pure expression (the caller checked it has no map call).
    fn pure(&mut self, e: &Expr) -> PExpr {
        let b = |l: &mut Lower, x: &Expr| Box::new(l.pure(x));
        match &e.kind {
            ExprKind::Null => PExpr::Const(Value::Null),
            ExprKind::Bool(v) => PExpr::Const(Value::Bool(*v)),
            ExprKind::Int(n) => PExpr::Const(Value::Int(*n)),
            ExprKind::Str(s) => PExpr::Const(Value::str(s)),
            ExprKind::This => PExpr::Const(Value::exception("this")),
            ExprKind::Var(v) => {
                if self.is_local(v) {
                    PExpr::Slot(self.slot(v))
                } else {
                    let g = self.global(v).expect("a global");
                    self.code.global_used[g as usize] = true;
                    if self.code.global_final.get(g as usize) == Some(&true) {
                        PExpr::Const(self.code.global_init[g as usize].clone())
                    } else {
                        PExpr::Global(g)
                    }
                }
            }
            ExprKind::Not(a) => PExpr::Not(b(self, a)),
            ExprKind::Neg(a) => PExpr::Neg(b(self, a)),
            ExprKind::Binary(op, x, y) => PExpr::Bin(*op, b(self, x), b(self, y)),
            ExprKind::Cond(x, y, z) => PExpr::Cond(b(self, x), b(self, y), b(self, z)),
            ExprKind::Equals(x, y) => PExpr::Equals(b(self, x), b(self, y)),
            ExprKind::Call { recv, name, args } => {
                let r = b(self, recv);
                let a = args.iter().map(|x| self.pure(x)).collect();
                PExpr::Call(Rc::from(name.as_str()), r, a)
            }
            ExprKind::New { class, args } => {
                let a = args.iter().map(|x| self.pure(x)).collect();
                PExpr::New(Rc::from(class.as_str()), e.pos.line, a)
            }
            ExprKind::Opaque(name) => PExpr::Const(Value::opaque(name)),
            ExprKind::Lambda { params, body } => {
                let slots = params.iter().map(|p| self.slot(p)).collect();
                PExpr::Lambda(slots, b(self, body))
            }
            // The front end reports a map call inside another map call's function as
            // unsupported before anything is lowered.
            ExprKind::MapCall { .. } => PExpr::Const(Value::Void),
        }
    }

    /// Lowers `e`, emitting its map calls (left to right, honouring `&&`, `||` and `?:`) as
    /// instructions; returns the pure remainder.
    fn expr(&mut self, e: &Expr) -> PExpr {
        if !has_map_call(e) {
            return self.pure(e);
        }
        let pos = e.pos;
        match &e.kind {
            ExprKind::MapCall { map, method, args } => {
                let args = self.operands(args);
                let dst = self.temp();
                let m = self.map(map);
                self.emit(
                    Instr::Map {
                        dst: Some(dst),
                        map: m,
                        method: *method,
                        args,
                    },
                    pos,
                    show(e),
                );
                PExpr::Slot(dst)
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), x, y) => {
                let t = self.temp();
                let xv = self.expr(x);
                self.emit(Instr::Let(t, xv), pos, show(x));
                let test = if *op == BinOp::And {
                    PExpr::Slot(t)
                } else {
                    PExpr::Not(Box::new(PExpr::Slot(t)))
                };
                let br = self.emit(Instr::Branch(test, 0), pos, show(e));
                let yv = self.expr(y);
                self.emit(Instr::Let(t, yv), pos, show(y));
                let end = self.code.instrs.len();
                self.code.instrs[br] = match &self.code.instrs[br] {
                    Instr::Branch(c, _) => Instr::Branch(c.clone(), end),
                    _ => unreachable!(),
                };
                PExpr::Slot(t)
            }
            ExprKind::Cond(c, x, y) => {
                let t = self.temp();
                let cv = self.expr(c);
                let br = self.emit(Instr::Branch(cv, 0), pos, show(c));
                let xv = self.expr(x);
                self.emit(Instr::Let(t, xv), pos, show(x));
                let j = self.emit(Instr::Jump(0), pos, String::new());
                let else_at = self.code.instrs.len();
                let yv = self.expr(y);
                self.emit(Instr::Let(t, yv), pos, show(y));
                let end = self.code.instrs.len();
                self.patch(br, else_at);
                self.patch(j, end);
                PExpr::Slot(t)
            }
            ExprKind::Not(a) => PExpr::Not(Box::new(self.expr(a))),
            ExprKind::Neg(a) => PExpr::Neg(Box::new(self.expr(a))),
            ExprKind::Binary(op, x, y) => {
                let xs = self.operands(std::slice::from_ref(&**x));
                let yv = self.expr(y);
                PExpr::Bin(
                    *op,
                    Box::new(xs.into_iter().next().expect("one")),
                    Box::new(yv),
                )
            }
            ExprKind::Equals(x, y) => {
                let xs = self.operands(std::slice::from_ref(&**x));
                let yv = self.expr(y);
                PExpr::Equals(Box::new(xs.into_iter().next().expect("one")), Box::new(yv))
            }
            ExprKind::Call { recv, name, args } => {
                let mut all = vec![(**recv).clone()];
                all.extend(args.iter().cloned());
                let mut vs = self.operands(&all).into_iter();
                let r = vs.next().expect("receiver");
                PExpr::Call(Rc::from(name.as_str()), Box::new(r), vs.collect())
            }
            ExprKind::New { class, args } => {
                let vs = self.operands(args);
                PExpr::New(Rc::from(class.as_str()), pos.line, vs)
            }
            // Leaves have no map call; a function's map calls are unsupported.
            _ => self.pure(e),
        }
    }

    /// Lowers operands evaluated left to right: when a later one calls the map, the earlier
    /// ones are first saved in temporaries so they see the state Java's order gives them.
    fn operands(&mut self, args: &[Expr]) -> Vec<PExpr> {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let v = self.expr(a);
            let later_calls = args[i + 1..].iter().any(has_map_call);
            if later_calls && !matches!(v, PExpr::Const(_) | PExpr::Slot(_)) {
                let t = self.temp();
                self.emit(Instr::Let(t, v), a.pos, show(a));
                out.push(PExpr::Slot(t));
            } else {
                out.push(v);
            }
        }
        out
    }

    fn patch(&mut self, at: usize, target: usize) {
        self.code.instrs[at] = match &self.code.instrs[at] {
            Instr::Branch(c, _) => Instr::Branch(c.clone(), target),
            Instr::Jump(_) => Instr::Jump(target),
            other => other.clone(),
        };
    }

    fn assign(&mut self, name: &str, value: PExpr, pos: Pos, text: String) {
        if self.is_local(name) {
            let s = self.slot(name);
            self.emit(Instr::Let(s, value), pos, text);
        } else {
            let g = self.global(name).expect("a global");
            self.code.global_used[g as usize] = true;
            self.emit(Instr::SetGlobal(g, value), pos, text);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let pos = s.pos;
        match &s.kind {
            StmtKind::Decl { name, init } => {
                self.slot(name);
                if let Some(e) = init {
                    let text = format!("{} = {}", show_name(name), show(e));
                    if let ExprKind::MapCall { map, method, args } = &e.kind {
                        self.map_call(Some(name), map, *method, args, e.pos, text);
                    } else {
                        let v = self.expr(e);
                        self.assign(name, v, pos, text);
                    }
                }
            }
            StmtKind::Assign { name, value } => {
                let text = format!("{} = {}", show_name(name), show(value));
                if let (ExprKind::MapCall { map, method, args }, true) =
                    (&value.kind, self.is_local(name))
                {
                    self.map_call(Some(name), map, *method, args, value.pos, text);
                } else {
                    let v = self.expr(value);
                    self.assign(name, v, pos, text);
                }
            }
            StmtKind::Expr(e) => {
                let text = show(e);
                match &e.kind {
                    ExprKind::MapCall { map, method, args } => {
                        self.map_call(None, map, *method, args, e.pos, text)
                    }
                    ExprKind::Call { recv, name, args } if matches!(&recv.kind, ExprKind::Var(v) if self.is_local(v)) =>
                    {
                        let ExprKind::Var(v) = &recv.kind else {
                            unreachable!()
                        };
                        let slot = self.slot(v);
                        let vs = self.operands(args);
                        self.emit(Instr::ObjCall(slot, Rc::from(name.as_str()), vs), pos, text);
                    }
                    _ => {
                        let v = self.expr(e);
                        let t = self.temp();
                        self.emit(Instr::Let(t, v), pos, text);
                    }
                }
            }
            StmtKind::If { cond, then, els } => {
                let c = self.expr(cond);
                let br = self.emit(
                    Instr::Branch(c, 0),
                    cond.pos,
                    format!("if ({})", show(cond)),
                );
                self.stmts(then);
                if els.is_empty() {
                    let end = self.code.instrs.len();
                    self.patch(br, end);
                } else {
                    let j = self.emit(Instr::Jump(0), pos, String::new());
                    let else_at = self.code.instrs.len();
                    self.patch(br, else_at);
                    self.stmts(els);
                    let end = self.code.instrs.len();
                    self.patch(j, end);
                }
            }
            StmtKind::Loop { cond, body, update } => {
                let top = self.code.instrs.len();
                let exit_branch = cond.as_ref().map(|c| {
                    let cv = self.expr(c);
                    self.emit(Instr::Branch(cv, 0), c.pos, format!("while ({})", show(c)))
                });
                self.breaks.push((Vec::new(), Vec::new()));
                self.stmts(body);
                let cont = self.code.instrs.len();
                self.stmts(update);
                self.emit(Instr::Jump(top), pos, String::new());
                let end = self.code.instrs.len();
                let (breaks, continues) = self.breaks.pop().expect("the loop's frame");
                for b in breaks {
                    self.patch(b, end);
                }
                for c in continues {
                    self.patch(c, cont);
                }
                if let Some(b) = exit_branch {
                    self.patch(b, end);
                }
            }
            StmtKind::Block(b) => self.stmts(b),
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                let j = self.emit(
                    Instr::Jump(0),
                    pos,
                    if is_break { "break" } else { "continue" }.into(),
                );
                // Outside a loop the parser has nothing to say; `break` then ends the operation.
                match self.breaks.last_mut() {
                    Some((bs, cs)) => {
                        if is_break {
                            bs.push(j)
                        } else {
                            cs.push(j)
                        }
                    }
                    None => self.code.instrs[j] = Instr::Return(None),
                }
            }
            StmtKind::Return(e) => {
                let text = match e {
                    Some(e) => format!("return {}", show(e)),
                    None => "return".into(),
                };
                let v = e.as_ref().map(|e| self.expr(e));
                self.emit(Instr::Return(v), pos, text);
            }
            StmtKind::Throw(e) => {
                let v = self.expr(e);
                self.emit(Instr::Throw(v), pos, format!("throw {}", show(e)));
            }
        }
    }

    fn map_call(
        &mut self,
        dst: Option<&str>,
        map: &str,
        method: MapMethod,
        args: &[Expr],
        pos: Pos,
        text: String,
    ) {
        let args = self.operands(args);
        let dst = dst.map(|d| self.slot(d));
        let m = self.map(map);
        self.emit(
            Instr::Map {
                dst,
                map: m,
                method,
                args,
            },
            pos,
            text,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::composed::front::parse;

    fn run(source: &str) -> (Outcome, Shared) {
        let programs = parse(source).expect("parses");
        let program = &programs[0];
        let code = lower(program, &program.operations[0]);
        let local = code.start(&[Value::Int(1)]);
        code.run_sequential(local, code.shared(Default::default()), 1000)
            .expect("runs")
    }

    /// Runs the first operation of `source` alone with the argument `1`, from the empty map.
    fn try_run(source: &str) -> Result<(Outcome, Shared), Stuck> {
        let programs = parse(source).expect("parses");
        let program = &programs[0];
        let code = lower(program, &program.operations[0]);
        code.run_sequential(
            code.start(&[Value::Int(1)]),
            code.shared(Default::default()),
            1000,
        )
    }

    #[test]
    fn junctions_of_undecided_values_are_passed_along_not_decided() {
        let fields = "ConcurrentHashMap<String, Object> m;\nfinal Factory f;\n";
        let returns = |e: &str| {
            let source =
                format!("{fields}Object op(String k) {{\n  m.put(k, 1);\n  return {e};\n}}\n");
            match try_run(&source) {
                Ok((Outcome::Returned(v), _)) => Ok(v.to_string()),
                Ok((out, _)) => panic!("{e}: {out:?}"),
                Err(Stuck(why)) => Err(why),
            }
        };
        // Passed along as what it is: one unknown boolean of both operands (SpiLoader.of's
        // `isTrue(s.isInterface() || isAbstract(..), ..)`).
        assert_eq!(
            returns("f.a(k) || f.b(k)").as_deref(),
            Ok("(this.f.a(1)#1 || this.f.b(1)#2)")
        );
        assert_eq!(returns("!f.a(k)").as_deref(), Ok("!this.f.a(1)#1"));
        // A right operand that settles the junction settles it whatever the left one is; one
        // that does not leaves the left one; a decided left one that does not short-circuit
        // leaves the right one.
        assert_eq!(returns("f.a(k) || true").as_deref(), Ok("true"));
        assert_eq!(returns("f.a(k) && false").as_deref(), Ok("false"));
        assert_eq!(returns("f.a(k) && true").as_deref(), Ok("this.f.a(1)#1"));
        assert_eq!(returns("false || f.b(k)").as_deref(), Ok("this.f.b(1)#1"));
        assert_eq!(returns("true || f.b(k)").as_deref(), Ok("true"));
        // A right operand that throws does so on one answer of the left one only: not decided.
        let why = returns("f.a(k) || ((String) null).isEmpty()").expect_err("stuck");
        assert!(why.contains("throws"), "{why}");
        // Deciding one is still beyond the proof: a condition on it cannot be evaluated.
        let branch = format!(
            "{fields}Object op(String k) {{\n  if (f.a(k) || f.b(k)) {{\n    m.put(k, 1);\n  }}\n  return m.get(k);\n}}\n"
        );
        assert!(try_run(&branch).is_err());
    }

    #[test]
    fn an_unknown_call_gives_a_fresh_value_every_time() {
        // The same call twice: two values, which compare different.
        let (out, _) = run(
            "ConcurrentHashMap<String, Object> m;\nfinal Factory f;\nObject op(String k) {\n  return f.make(k) == f.make(k);\n}\n",
        );
        assert_eq!(out, Outcome::Returned(Value::Bool(false)));
        // A final field set by a constructor is one opaque value, not null.
        let (out, shared) = run(
            "ConcurrentHashMap<String, Object> m;\nfinal Factory f;\nObject op(String k) {\n  m.put(k, f.make(k));\n  return m.get(k);\n}\n",
        );
        let Outcome::Returned(v) = &out else {
            panic!("{out:?}")
        };
        assert!(v.is_fresh(), "{v}");
        assert_eq!(v.to_string(), "this.f.make(1)#1");
        assert_eq!(shared.map.values().next(), Some(v));
    }

    /// Runs operation `name` of `source` alone from the map `{1->10, 2->20}` with the argument
    /// `1`: its outcome and the map it leaves.
    fn alone(source: &str, name: &str) -> (Outcome, Vec<(Value, Value)>) {
        let programs = parse(source).expect("parses");
        let program = &programs[0];
        let op = program
            .operations
            .iter()
            .find(|o| o.name == name)
            .expect("the operation");
        assert!(op.unsupported.is_none(), "{:?}", op.unsupported);
        let code = lower(program, op);
        let map = BTreeMap::from([
            ((0, Value::Int(1)), Value::Int(10)),
            ((0, Value::Int(2)), Value::Int(20)),
        ]);
        let (out, shared) = code
            .run_sequential(code.start(&[Value::Int(1)]), code.shared(map), 1000)
            .expect("runs");
        let entries = shared.map.into_iter().map(|((_, k), v)| (k, v)).collect();
        (out, entries)
    }

    #[test]
    fn a_traversal_run_alone_reaches_every_entry_once_in_order() {
        let source = "ConcurrentHashMap<Integer, Integer> m;
            int total(int k) {
  int s = 0;
  for (Integer c : m.values()) {
    s = s * 100 + c;
  }
  return s;
}
            int firstAbove(int k) {
  for (Map.Entry<Integer, Integer> e : m.entrySet()) {
    if (e.getValue() > 15) {
      return e.getKey();
    }
  }
  return 0;
}
            void zero(int k) {
  for (Map.Entry<Integer, Integer> e : m.entrySet()) {
    e.setValue(0);
  }
}
            void dropOthers(int k) {
  m.forEach((x, v) -> {
    if (x == k) {
      return;
    }
    m.remove(x);
  });
}
            void reset(int k) {
  m.clear();
  m.put(k, 1);
}
            int grow(int k) {
  int n = 0;
  for (Integer x : m.keySet()) {
    n++;
    if (x == 2) {
      m.put(3, 30);
    }
  }
  return n;
}
            boolean empty(int k) {
  return m.isEmpty();
}
";
        let pair = |k: i64, v: i64| (Value::Int(k), Value::Int(v));
        assert_eq!(
            alone(source, "total"),
            (
                Outcome::Returned(Value::Int(1020)),
                vec![pair(1, 10), pair(2, 20)]
            )
        );
        assert_eq!(
            alone(source, "firstAbove").0,
            Outcome::Returned(Value::Int(2))
        );
        assert_eq!(alone(source, "zero").1, vec![pair(1, 0), pair(2, 0)]);
        assert_eq!(alone(source, "dropOthers").1, vec![pair(1, 10)]);
        assert_eq!(alone(source, "reset").1, vec![pair(1, 1)]);
        // A key the traversal itself adds ahead of its cursor is reached.
        assert_eq!(alone(source, "grow").0, Outcome::Returned(Value::Int(3)));
        assert_eq!(
            alone(source, "empty").0,
            Outcome::Returned(Value::Bool(false))
        );
    }

    #[test]
    fn an_assignment_in_a_condition_runs_just_before_its_statement() {
        let source = r#"ConcurrentHashMap<Integer, Integer> m;
Integer getOrCreate(int k) {
  Integer g;
  if ((g = m.get(k)) == null) {
    g = 5;
    m.put(k, g);
  }
  return g;
}
Integer readsFirst(int k) {
  Integer g = 0;
  if (g + (g = m.get(k)) > 0) {
    m.remove(k);
  }
  return g;
}
Integer inLoop(int k) {
  Integer g;
  while ((g = m.get(k)) != null) {
    m.remove(k);
  }
  return g;
}
int counts(int k) {
  int i = 0;
  int j = i++;
  int n = ++i + j;
  m.put(k, n);
  return m.get(k) + i - 2;
}
"#;
        assert_eq!(
            alone(source, "getOrCreate").0,
            Outcome::Returned(Value::Int(10))
        );
        // In a loop's condition: before each test.
        assert_eq!(
            alone(source, "inLoop"),
            (
                Outcome::Returned(Value::Null),
                vec![(Value::Int(2), Value::Int(20))]
            )
        );
        // `j = i++` is 0, `++i` is 2: n = 2, and i - 2 = 0.
        assert_eq!(alone(source, "counts").0, Outcome::Returned(Value::Int(2)));
        let programs = parse(source).expect("parses");
        let why = programs[0]
            .operations
            .iter()
            .find(|o| o.name == "readsFirst")
            .and_then(|o| o.unsupported.clone())
            .map(|(_, what)| what);
        // Read before it in its statement: not hoisted, which would change what is read.
        assert!(
            why.is_some_and(|w| w.contains("an assignment inside an expression")),
            "readsFirst"
        );
    }

    #[test]
    fn outcomes_compare_up_to_a_renaming_of_fresh_values() {
        let fresh = |thread: u8, serial: u32| {
            Value::Obj(Rc::new(Obj {
                class: Rc::from("make"),
                site: 0,
                thread,
                args: Vec::new(),
                calls: Vec::new(),
                serial,
            }))
        };
        let state = |v: Value| Shared {
            map: BTreeMap::from([((0, Value::Int(1)), v)]),
            globals: Vec::new(),
        };
        let a = [Outcome::Returned(fresh(0, 2))];
        let b = [Outcome::Returned(fresh(1, 7))];
        assert!(same_up_to_fresh(
            (&a, &state(fresh(0, 2))),
            (&b, &state(fresh(1, 7)))
        ));
        // The renaming is one bijection: the returned value must be the stored one in both.
        assert!(!same_up_to_fresh(
            (&a, &state(fresh(0, 3))),
            (&b, &state(fresh(1, 7)))
        ));
        // A fresh value is never an ordinary one.
        assert!(!same_up_to_fresh(
            (&a, &state(Value::Int(1000))),
            (&b, &state(fresh(1, 7)))
        ));
    }
}
