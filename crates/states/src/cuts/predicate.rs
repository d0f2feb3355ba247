//! Predicates over a consistent global state (thesis Sections 3.5.3 and 3.7): the built-in data
//! race on the frontier (Algorithms 7 and 8), "at least k threads at events matching a condition"
//! (Algorithms 9 and 10), conjunctive predicates, and a small expression language combining them
//! with counting and boolean operators.
//!
//! A predicate is parsed once ([`parse_predicate`]), says which trace events are relevant to it
//! ([`Predicate::relevant`], Section 3.5.4), and is bound to a poset and the events of its
//! elements ([`Predicate::bind`]); the bound form answers for a frontier. It knows nothing of
//! how frontiers are produced, so any enumerator (or a later model's) can feed it.
//!
//! Language (whitespace free, `#` starts a comment to the end of the line; brackets and `!`
//! nest at most [`MAX_NESTING`](hindsight_syntax::MAX_NESTING) deep):
//! ```text
//! expr  := expr '||' expr | expr '&&' expr | '!' expr | sum CMP sum | '(' expr ')'
//!        | 'true' | 'false' | 'race' | 'race' '(' VAR ')'
//!        | 'exists' '(' cond ')' | 'atleast' '(' INT ',' cond ')' | 'at' '(' THREAD ',' cond ')'
//! sum   := term (('+' | '-') term)*
//! term  := INT | 'count' '(' cond ['by' field (',' field)*] ')' | 'events' '(' THREAD [',' cond] ')'
//! cond  := cond '||' cond | cond '&&' cond | '!' cond | '(' cond ')' | field ('==' | '!=') literal
//! field := op | target | var | lock | thread | process | object | method | label | argN | resultN
//! CMP   := '==' | '!=' | '<' | '<=' | '>' | '>='
//! ```
//! A frontier event is the latest relevant event of each thread in the state; `count(c)` is the
//! number of threads whose frontier event matches `c`, `count(c by f, g)` the size of the largest
//! group of them that agree on the fields `f` and `g` (Algorithm 10's "same floor and
//! direction"); `events(T, c)` is the number of events of thread `T` in the state that match
//! `c` (every event of `T` without `c`), which never decreases as `T` runs on, so comparisons
//! of two of them are regular predicates ([`Bound::regular`]). Thread-local state travels in method calls: `call(stop.at(3,up))` has object
//! `stop`, method `at`, `arg0 == 3` and `arg1 == up`; `begin(name)` has label `name`.

use super::poset::{Poset, TracePoset};
pub use super::regular::{Regular, Relation};
use hindsight_syntax::{tokenize, Cursor, Pos, Span, SyntaxError, Token};
use hindsight_trace::{Event, Names, Op, Value, VarId};
use std::fmt;

/// A field of an event that a condition looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// The operation's mnemonic: `r`, `w`, `acq`, `call`, ...
    Op,
    /// What the operation acts on: the variable, lock, message, thread, object or label.
    Target,
    Var,
    Lock,
    Thread,
    /// The 0-based process of the poset (also what poset files have).
    Process,
    Object,
    Method,
    Label,
    Arg(usize),
    Result(usize),
}

const FIELDS: &str = "op, target, var, lock, thread, process, object, method, label, argN, resultN";

/// A literal a field is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    Int(i64),
    Text(String),
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Text(s) => f.write_str(s),
        }
    }
}

/// A condition on one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    Is(Field, bool, Literal),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

/// A numeric term. Terms are evaluated exactly, in 128 bits: a literal is within `i64`, a
/// count within `u32`, and a sum has fewer terms than the predicate has characters, so no sum
/// or difference of them comes near `i128`'s range; every algorithm then compares the same
/// numbers (saturating `i64` arithmetic made `a - b - MAX - MAX > 0` depend on the order it
/// was summed in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Num {
    Int(i64),
    /// `count(conds[i] by fields)`.
    Count(usize, Vec<Field>),
    /// `events(THREAD)` or `events(THREAD, conds[i])`: how many events of the thread (those
    /// matching the condition, if given) the state has; the `k`-th such term of the predicate.
    Events(Literal, Option<usize>, usize, Pos),
    Add(Box<Num>, Box<Num>),
    Sub(Box<Num>, Box<Num>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn holds(self, x: i128, y: i128) -> bool {
        match self {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        }
    }

    /// The comparison that holds exactly when this one does not.
    fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }
}

/// A predicate over a global state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Bool(bool),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp(Num, CmpOp, Num),
    /// A data race between two frontier events (on the variable, if given).
    Race(Option<String>),
    /// The frontier event of a thread (by name or process number) matches `conds[i]`.
    At(Literal, usize, Pos),
}

/// A parsed predicate: its expression and the conditions it counts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Predicate {
    pub expr: Expr,
    pub conds: Vec<Cond>,
    pub text: String,
    /// The name its errors are placed in: `<predicate>`, or the file it was read from.
    pub source: String,
    /// How many `events(...)` terms it has (numbered in order of appearance).
    pub event_terms: usize,
    /// Some `events(THREAD)` counts every event of its thread.
    counts_every_event: bool,
}

fn field_value(field: &Field, e: &Event, process: usize, names: &Names) -> Option<Literal> {
    let text = |s: &str| Some(Literal::Text(s.to_owned()));
    let value = |v: &Value| match v {
        Value::Int(i) => Some(Literal::Int(*i)),
        Value::Nil => text("nil"),
        Value::Sym(s) | Value::Str(s) => text(names.symbol(*s)),
    };
    match (field, &e.op) {
        (Field::Op, op) => text(op.mnemonic()),
        (Field::Thread, _) => text(names.thread(e.thread)),
        (Field::Process, _) => Some(Literal::Int(process as i64)),
        (
            Field::Var | Field::Target,
            Op::Read(x) | Op::Write(x) | Op::AtomicLoad(x) | Op::AtomicStore(x) | Op::AtomicRmw(x),
        ) => text(names.var(*x)),
        (Field::Lock | Field::Target, Op::Acquire(l) | Op::Release(l) | Op::Request(l)) => {
            text(names.lock(*l))
        }
        (Field::Target, Op::Send(m) | Op::Receive(m)) => text(names.msg(*m)),
        (Field::Target, Op::Fork(t) | Op::Join(t)) => text(names.thread(*t)),
        (Field::Target | Field::Label, Op::Begin(Some(s))) => text(names.symbol(*s)),
        (Field::Target | Field::Object, Op::Call(c)) => text(names.object(c.object)),
        (Field::Method, Op::Call(c)) => text(names.symbol(c.method)),
        (Field::Arg(i), Op::Call(c)) => c.args.get(*i).and_then(value),
        (Field::Result(i), Op::Call(c)) => c.results.get(*i).and_then(value),
        _ => None,
    }
}

impl Cond {
    /// Whether event `e` of process `process` matches.
    pub fn matches(&self, e: &Event, process: usize, names: &Names) -> bool {
        match self {
            Cond::Is(f, eq, lit) => {
                let same = field_value(f, e, process, names).as_ref() == Some(lit);
                same == *eq
            }
            Cond::Not(c) => !c.matches(e, process, names),
            Cond::And(a, b) => a.matches(e, process, names) && b.matches(e, process, names),
            Cond::Or(a, b) => a.matches(e, process, names) || b.matches(e, process, names),
        }
    }
}

fn uses_race(e: &Expr) -> bool {
    match e {
        Expr::Race(_) => true,
        Expr::Not(a) => uses_race(a),
        Expr::And(a, b) | Expr::Or(a, b) => uses_race(a) || uses_race(b),
        _ => false,
    }
}

/// The plain accesses, the only ones the built-in race can involve: atomics never race.
fn access(op: &Op) -> Option<(VarId, bool)> {
    match op {
        Op::Read(x) => Some((*x, false)),
        Op::Write(x) => Some((*x, true)),
        _ => None,
    }
}

impl Predicate {
    /// Whether the predicate is exactly the built-in race (reported as `data-race` findings,
    /// with event collections allowed).
    pub fn is_race_only(&self) -> bool {
        matches!(self.expr, Expr::Race(_))
    }

    /// Whether a trace event can matter to the predicate, so enters the poset (Section 3.5.4):
    /// it matches one of the conditions, or is an access when the predicate asks for races. A
    /// predicate that looks at no event at all (`true`) keeps every event.
    pub fn relevant(&self, e: &Event, names: &Names) -> bool {
        let race = uses_race(&self.expr);
        if (!race && self.conds.is_empty()) || self.counts_every_event {
            return true;
        }
        // The process of an event is only known once the poset is built, so a predicate that
        // looks at processes keeps every event.
        if self.conds.iter().any(Cond::mentions_process) {
            return true;
        }
        (race && access(&e.op).is_some()) || self.conds.iter().any(|c| c.matches(e, 0, names))
    }

    /// Binds the predicate to a poset and the events of its elements.
    pub fn bind<'a>(&'a self, poset: &'a TracePoset) -> Result<Bound<'a>, SyntaxError> {
        let n = poset.poset.processes();
        if self.conds.len() > 64 {
            return Err(SyntaxError::new(Pos::new(1, 1), "at most 64 conditions"));
        }
        let names = &poset.names;
        let mut masks: Vec<Vec<u64>> = Vec::with_capacity(n);
        let mut accesses: Vec<Vec<Vec<(VarId, bool)>>> = Vec::with_capacity(n);
        for p in 0..n {
            let mut m = vec![0u64];
            let mut a = vec![Vec::new()];
            for i in 1..=poset.poset.len(p) {
                let members = poset.element(p, i);
                let mut bits = 0u64;
                for (c, cond) in self.conds.iter().enumerate() {
                    if members.iter().any(|e| cond.matches(e, p, names)) {
                        bits |= 1 << c;
                    }
                }
                m.push(bits);
                a.push(members.iter().filter_map(|e| access(&e.op)).collect());
            }
            masks.push(m);
            accesses.push(a);
        }
        let mut at = Vec::new();
        collect_at(&self.expr, &mut at);
        let mut threads = Vec::new();
        for (who, _, pos) in at {
            let Some(p) = process_named(poset, &who) else {
                return Err(unknown_thread(poset, &who, pos));
            };
            threads.push((who, p));
        }
        let race_var = race_vars(&self.expr, names);
        let mut terms = Vec::new();
        collect_events(&self.expr, &mut terms);
        terms.sort_by_key(|t| t.2);
        let mut event_counts = Vec::with_capacity(terms.len());
        for (who, cond, _, pos) in terms {
            let Some(p) = process_named(poset, &who) else {
                return Err(unknown_thread(poset, &who, pos));
            };
            let mut prefix = Vec::with_capacity(poset.poset.len(p) as usize + 1);
            prefix.push(0u32);
            for i in 1..=poset.poset.len(p) {
                let matches = cond.is_none_or(|c| masks[p][i as usize] & (1 << c) != 0);
                prefix.push(prefix[i as usize - 1] + u32::from(matches));
            }
            event_counts.push((p, prefix));
        }
        Ok(Bound {
            predicate: self,
            poset: &poset.poset,
            trace: poset,
            masks,
            accesses,
            threads,
            race_var,
            event_counts,
        })
    }
}

/// The error for a thread (or process) the predicate names that has no element, with the
/// names it could have used.
fn unknown_thread(poset: &TracePoset, who: &Literal, pos: Pos) -> SyntaxError {
    const SHOWN: usize = 20;
    let n = poset.poset.processes();
    let mut known: Vec<&str> = poset
        .threads
        .iter()
        .take(SHOWN)
        .map(|&th| poset.names.thread(th))
        .collect();
    let more = if n > SHOWN {
        format!(" and {} more", n - SHOWN)
    } else {
        String::new()
    };
    if known.is_empty() {
        known.push("none");
    }
    SyntaxError::new(
        pos,
        format!(
            "no thread `{who}` has an event relevant to the predicate; those that do: {}{more} (or their numbers, 0 to {})",
            known.join(", "),
            n.saturating_sub(1)
        ),
    )
}

/// The process a thread name or process number names, if it has elements.
fn process_named(poset: &TracePoset, who: &Literal) -> Option<usize> {
    let n = poset.poset.processes();
    match who {
        Literal::Int(i) if *i >= 0 && (*i as usize) < n => Some(*i as usize),
        Literal::Int(_) => None,
        Literal::Text(t) => poset
            .threads
            .iter()
            .position(|&th| poset.names.thread(th) == t.as_str()),
    }
}

/// The `events(...)` terms of `e`, as `(thread, condition, number, position)`.
fn collect_events(e: &Expr, out: &mut Vec<(Literal, Option<usize>, usize, Pos)>) {
    fn num(n: &Num, out: &mut Vec<(Literal, Option<usize>, usize, Pos)>) {
        match n {
            Num::Events(who, c, k, pos) => out.push((who.clone(), *c, *k, *pos)),
            Num::Add(a, b) | Num::Sub(a, b) => {
                num(a, out);
                num(b, out);
            }
            Num::Int(_) | Num::Count(..) => {}
        }
    }
    match e {
        Expr::Cmp(a, _, b) => {
            num(a, out);
            num(b, out);
        }
        Expr::Not(a) => collect_events(a, out),
        Expr::And(a, b) | Expr::Or(a, b) => {
            collect_events(a, out);
            collect_events(b, out);
        }
        Expr::Bool(_) | Expr::Race(_) | Expr::At(..) => {}
    }
}

impl Predicate {
    /// Whether it looks inside events (`race`, or a condition on their fields), which the
    /// elements of a poset file do not have: they are a process and a clock, nothing more.
    pub fn looks_at_events(&self) -> bool {
        !self.conds.is_empty() || uses_race(&self.expr)
    }
}

impl Cond {
    fn mentions_process(&self) -> bool {
        match self {
            Cond::Is(f, _, _) => *f == Field::Process,
            Cond::Not(c) => c.mentions_process(),
            Cond::And(a, b) | Cond::Or(a, b) => a.mentions_process() || b.mentions_process(),
        }
    }
}

fn collect_at(e: &Expr, out: &mut Vec<(Literal, usize, Pos)>) {
    match e {
        Expr::At(who, c, pos) => out.push((who.clone(), *c, *pos)),
        Expr::Not(a) => collect_at(a, out),
        Expr::And(a, b) | Expr::Or(a, b) => {
            collect_at(a, out);
            collect_at(b, out);
        }
        _ => {}
    }
}

/// The variable of each `race(x)` in order; `None` for a plain `race` or an unknown variable
/// (which can never race: `Some(None)`).
fn race_vars(e: &Expr, names: &Names) -> Vec<Option<Option<VarId>>> {
    let mut out = Vec::new();
    fn walk(e: &Expr, names: &Names, out: &mut Vec<Option<Option<VarId>>>) {
        match e {
            Expr::Race(v) => out.push(v.as_ref().map(|v| names.vars.lookup(v).map(VarId))),
            Expr::Not(a) => walk(a, names, out),
            Expr::And(a, b) | Expr::Or(a, b) => {
                walk(a, names, out);
                walk(b, names, out);
            }
            _ => {}
        }
    }
    walk(e, names, &mut out);
    out
}

/// A predicate bound to a poset: answers for frontiers.
pub struct Bound<'a> {
    predicate: &'a Predicate,
    poset: &'a Poset,
    trace: &'a TracePoset,
    /// Per process and element: which conditions some member matches.
    masks: Vec<Vec<u64>>,
    /// Per process and element: the accesses of its members.
    accesses: Vec<Vec<Vec<(VarId, bool)>>>,
    /// The process of each `at(...)`, in order of appearance.
    threads: Vec<(Literal, usize)>,
    race_var: Vec<Option<Option<VarId>>>,
    /// Per `events(...)` term: its process and, per state of that process, the count.
    event_counts: Vec<(usize, Vec<u32>)>,
}

/// What a predicate that is exactly `race` or `race(x)` looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceOn {
    AnyVariable,
    Variable(VarId),
    /// `race(x)` of a variable the trace never accesses.
    Nothing,
}

/// The states of each process where a conjunctive predicate's local predicates hold: the
/// predicate holds in exactly the consistent states made of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalStates {
    /// Per process, ascending; 0 is the state before its first element.
    pub states: Vec<Vec<u32>>,
    /// A conjunct is a constant `false`: no state satisfies the predicate.
    pub never: bool,
}

/// A comparison as `a op b`, looking through `!`.
fn comparison(e: &Expr) -> Option<(&Num, CmpOp, &Num)> {
    match e {
        Expr::Cmp(a, op, b) => Some((a, *op, b)),
        Expr::Not(inner) => {
            let (a, op, b) = comparison(inner)?;
            Some((a, op.negated(), b))
        }
        _ => None,
    }
}

/// Adds `sign * n` as `events` terms `(term, coefficient)` and a constant; `None` with a
/// `count(...)`, which looks at every process.
fn linear(n: &Num, sign: i128, terms: &mut Vec<(usize, i128)>, constant: &mut i128) -> Option<()> {
    match n {
        Num::Int(i) => *constant += i128::from(*i) * sign,
        Num::Events(_, _, k, _) => terms.push((*k, sign)),
        Num::Count(..) => return None,
        Num::Add(a, b) => {
            linear(a, sign, terms, constant)?;
            linear(b, sign, terms, constant)?;
        }
        Num::Sub(a, b) => {
            linear(a, sign, terms, constant)?;
            linear(b, -sign, terms, constant)?;
        }
    }
    Some(())
}

/// `sum of parts[k].1[g[parts[k].0]] + constant`, of a comparison `... <= 0`.
struct Linear {
    parts: Vec<(usize, Vec<i128>)>,
    constant: i128,
}

/// The conjuncts of a conjunction, left to right (the order `at` terms are numbered in).
fn split_and<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::And(a, b) => {
            split_and(a, out);
            split_and(b, out);
        }
        e => out.push(e),
    }
}

/// A data race on a frontier: two concurrent frontier events of different processes, one a
/// write, on the same variable, as `(process, element, member)` each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontierRace {
    pub var: VarId,
    pub first: (usize, u32, usize),
    pub second: (usize, u32, usize),
}

impl Bound<'_> {
    /// Whether the predicate holds in the consistent global state `g`.
    pub fn holds(&self, g: &[u32]) -> bool {
        let mut at = 0;
        let mut race = 0;
        self.eval(&self.predicate.expr, g, &mut at, &mut race)
    }

    fn eval(&self, e: &Expr, g: &[u32], at: &mut usize, race: &mut usize) -> bool {
        match e {
            Expr::Bool(b) => *b,
            Expr::Not(a) => !self.eval(a, g, at, race),
            Expr::And(a, b) => {
                // Both sides are walked so `at`/`race` numbering stays in step.
                let x = self.eval(a, g, at, race);
                let y = self.eval(b, g, at, race);
                x && y
            }
            Expr::Or(a, b) => {
                let x = self.eval(a, g, at, race);
                let y = self.eval(b, g, at, race);
                x || y
            }
            Expr::Cmp(a, op, b) => op.holds(self.num(a, g), self.num(b, g)),
            Expr::Race(_) => {
                let v = self.race_var[*race];
                *race += 1;
                match v {
                    None => self.race(g, None).is_some(),
                    Some(None) => false,
                    Some(Some(x)) => self.race(g, Some(x)).is_some(),
                }
            }
            Expr::At(_, c, _) => {
                let p = self.threads[*at].1;
                *at += 1;
                self.masks[p][g[p] as usize] & (1 << c) != 0
            }
        }
    }

    fn num(&self, n: &Num, g: &[u32]) -> i128 {
        match n {
            Num::Int(i) => i128::from(*i),
            Num::Add(a, b) => self.num(a, g) + self.num(b, g),
            Num::Sub(a, b) => self.num(a, g) - self.num(b, g),
            Num::Events(_, _, k, _) => {
                let (p, counts) = &self.event_counts[*k];
                i128::from(counts[g[*p] as usize])
            }
            Num::Count(c, by) => {
                let bit = 1u64 << c;
                let matching = (0..g.len()).filter(|&p| self.masks[p][g[p] as usize] & bit != 0);
                if by.is_empty() {
                    return matching.count() as i128;
                }
                let keys: Vec<Vec<Option<Literal>>> = matching
                    .map(|p| {
                        let e = self.representative(p, g[p], *c);
                        by.iter()
                            .map(|f| field_value(f, e, p, &self.trace.names))
                            .collect()
                    })
                    .collect();
                keys.iter()
                    .map(|k| keys.iter().filter(|o| *o == k).count())
                    .max()
                    .unwrap_or(0) as i128
            }
        }
    }

    /// The first member of element `(p, i)` matching condition `c`.
    fn representative(&self, p: usize, i: u32, c: usize) -> &Event {
        let members = self.trace.element(p, i);
        let cond = &self.predicate.conds[c];
        members
            .iter()
            .find(|e| cond.matches(e, p, &self.trace.names))
            .unwrap_or(&members[0])
    }

    /// A data race among the frontier events of `g` (Algorithms 7 and 8, with concurrency
    /// checked on the clocks since synchronisation events may be in the poset too).
    pub fn race(&self, g: &[u32], var: Option<VarId>) -> Option<FrontierRace> {
        let n = g.len();
        for p in 0..n {
            if g[p] == 0 {
                continue;
            }
            let ap = &self.accesses[p][g[p] as usize];
            if ap.is_empty() {
                continue;
            }
            for q in p + 1..n {
                if g[q] == 0 {
                    continue;
                }
                let aq = &self.accesses[q][g[q] as usize];
                if aq.is_empty() || !self.poset.concurrent(p, g[p], q, g[q]) {
                    continue;
                }
                for (i, &(x, wx)) in ap.iter().enumerate() {
                    if var.is_some_and(|v| v != x) {
                        continue;
                    }
                    if let Some(j) = aq.iter().position(|&(y, wy)| y == x && (wx || wy)) {
                        return Some(FrontierRace {
                            var: x,
                            first: (p, g[p], i),
                            second: (q, g[q], j),
                        });
                    }
                }
            }
        }
        None
    }

    /// The accesses of the members of element `i` of process `p`.
    pub fn accesses(&self, p: usize, i: u32) -> &[(VarId, bool)] {
        &self.accesses[p][i as usize]
    }

    /// What a predicate that is exactly `race` or `race(x)` looks for; `None` for any other
    /// predicate.
    pub fn race_only_on(&self) -> Option<RaceOn> {
        if !self.predicate.is_race_only() {
            return None;
        }
        Some(match self.race_var.first().copied().flatten() {
            None => RaceOn::AnyVariable,
            Some(None) => RaceOn::Nothing,
            Some(Some(x)) => RaceOn::Variable(x),
        })
    }

    /// Recognises a conjunctive predicate (Garg and Waldecker): a conjunction whose every
    /// conjunct looks at one process's frontier only (a boolean combination of `at(...)` terms
    /// of one thread, or a constant). Returns, per process, the states (0 = before its first
    /// element, ascending) where the conjuncts on that process all hold; `None` if the
    /// predicate is not of that form (races and counts look at several processes at once).
    pub fn conjunctive(&self) -> Option<LocalStates> {
        let mut conjuncts = Vec::new();
        split_and(&self.predicate.expr, &mut conjuncts);
        let n = self.poset.processes();
        // Per conjunct: the process it looks at (if any) and the index of its first `at`.
        let mut at = 0usize;
        let mut placed: Vec<(Option<usize>, usize, &Expr)> = Vec::with_capacity(conjuncts.len());
        for c in conjuncts {
            let first = at;
            let mut process = None;
            if !self.local(c, &mut at, &mut process) {
                return None;
            }
            placed.push((process, first, c));
        }
        let mut states: Vec<Vec<u32>> = (0..n).map(|p| (0..=self.poset.len(p)).collect()).collect();
        for (process, first, c) in placed {
            match process {
                Some(p) => states[p].retain(|&i| self.eval_local(c, p, i, &mut first.clone())),
                None => {
                    if !self.eval_local(c, 0, 0, &mut first.clone()) {
                        return Some(LocalStates {
                            states,
                            never: true,
                        });
                    }
                }
            }
        }
        Some(LocalStates {
            states,
            never: false,
        })
    }

    /// Recognises a regular predicate (Mittal and Garg: its satisfying consistent states are
    /// closed under meet and join) of the form this module can prove regular: a conjunction
    /// whose every conjunct is local (as in [`Bound::conjunctive`]) or a comparison (`<`,
    /// `<=`, `>`, `>=`, `==`, or `!` of one) of sums of integers and `events(...)` terms that
    /// looks at two processes `i` and `j` only, such that it reads `F(g[i]) <= H(g[j])` with
    /// `F` and `H` nondecreasing (`==` is two of them). Every `events` term is nondecreasing in
    /// its process's state, so `events(A, c) <= events(B, d) + 2` is of this form, and so is
    /// "no message in transit": `events(A, op == snd) == events(B, op == rcv)`;
    /// `events(A) + events(B) <= 3` is not (the join of two satisfying states can exceed 3),
    /// nor is `!=`. Monotony is checked on the tabulated sides, so a side that mixes signs on
    /// one process is accepted exactly when it is monotone on this poset.
    ///
    /// Why `F(g[i]) <= H(g[j])` is regular: for states `g`, `h` satisfying it,
    /// `F(min(g[i], h[i])) = min(F(g[i]), F(h[i])) <= min(H(g[j]), H(h[j])) = H(min(g[j],
    /// h[j]))` since `F` and `H` are nondecreasing, and likewise with `max`: the meet and the
    /// join satisfy it. Local predicates are regular, and a conjunction of regular predicates
    /// is regular (meet and join of states satisfying every conjunct satisfy every conjunct).
    /// It is also linear: when it fails at `g`, no satisfying state above `g` has `j` at
    /// `g[j]` (`j` is forbidden), and the least it needs is the first `y` with
    /// `H(y) >= F(g[i])`; [`Regular::least`] advances by that.
    pub fn regular(&self) -> Option<Regular> {
        let mut conjuncts = Vec::new();
        split_and(&self.predicate.expr, &mut conjuncts);
        let n = self.poset.processes();
        let mut at = 0usize;
        let mut placed: Vec<(Option<usize>, usize, &Expr)> = Vec::new();
        let mut sides: Vec<Linear> = Vec::new();
        for c in conjuncts {
            let first = at;
            let mut process = None;
            if self.local(c, &mut at, &mut process) {
                placed.push((process, first, c));
                continue;
            }
            let (a, op, b) = comparison(c)?;
            let mut terms = Vec::new();
            let mut constant = 0i128;
            linear(a, 1, &mut terms, &mut constant)?;
            linear(b, -1, &mut terms, &mut constant)?;
            // `a - b` compared with 0, as one or two `sum <= 0`.
            let signs: &[(i128, i128)] = match op {
                CmpOp::Le => &[(1, 0)],
                CmpOp::Lt => &[(1, 1)],
                CmpOp::Ge => &[(-1, 0)],
                CmpOp::Gt => &[(-1, 1)],
                CmpOp::Eq => &[(1, 0), (-1, 0)],
                CmpOp::Ne => return None,
            };
            for &(sign, plus) in signs {
                sides.push(self.tabulate(&terms, sign, constant * sign + plus));
            }
        }
        let mut states: Vec<Vec<u32>> = (0..n).map(|p| (0..=self.poset.len(p)).collect()).collect();
        let mut never = false;
        for (process, first, c) in placed {
            match process {
                Some(p) => states[p].retain(|&i| self.eval_local(c, p, i, &mut first.clone())),
                None => never |= !self.eval_local(c, 0, 0, &mut first.clone()),
            }
        }
        let mut relations = Vec::new();
        for side in sides {
            match side.parts.as_slice() {
                [] => never |= side.constant > 0,
                [(p, f)] => states[*p].retain(|&i| f[i as usize] + side.constant <= 0),
                [(p, f), (q, h)] => {
                    let up = |v: &Vec<i128>| v.windows(2).all(|w| w[0] <= w[1]);
                    let down = |v: &Vec<i128>| v.windows(2).all(|w| w[0] >= w[1]);
                    // `F(g[i]) + G(g[j]) + c <= 0` with `F` nondecreasing and `G`
                    // nonincreasing: `F(g[i]) <= -G(g[j]) - c`.
                    let (i, f, j, h) = if up(f) && down(h) {
                        (*p, f, *q, h)
                    } else if up(h) && down(f) {
                        (*q, h, *p, f)
                    } else {
                        return None;
                    };
                    relations.push(Relation {
                        left: i,
                        left_value: f.clone(),
                        right: j,
                        right_bound: h.iter().map(|&v| -v - side.constant).collect(),
                    });
                }
                _ => return None,
            }
        }
        Some(Regular::new(LocalStates { states, never }, relations))
    }

    /// `sign * (sum of terms) + constant`, tabulated per process over its states; processes
    /// on which it is constant are folded into the constant.
    fn tabulate(&self, terms: &[(usize, i128)], sign: i128, constant: i128) -> Linear {
        let mut parts: Vec<(usize, Vec<i128>)> = Vec::new();
        for &(k, coefficient) in terms {
            let (p, counts) = &self.event_counts[k];
            let c = coefficient * sign;
            let at = match parts.iter().position(|(q, _)| q == p) {
                Some(at) => at,
                None => {
                    parts.push((*p, vec![0; counts.len()]));
                    parts.len() - 1
                }
            };
            for (v, &x) in parts[at].1.iter_mut().zip(counts) {
                *v += c * i128::from(x);
            }
        }
        let mut constant = constant;
        parts.retain(|(_, f)| {
            let flat = f.iter().all(|&v| v == f[0]);
            if flat {
                constant += f[0];
            }
            !flat
        });
        Linear { parts, constant }
    }

    /// Whether `e` looks at one process at most (recorded in `process`), numbering its `at`
    /// terms from `at` on.
    fn local(&self, e: &Expr, at: &mut usize, process: &mut Option<usize>) -> bool {
        match e {
            Expr::Bool(_) => true,
            Expr::Not(a) => self.local(a, at, process),
            Expr::And(a, b) | Expr::Or(a, b) => {
                self.local(a, at, process) && self.local(b, at, process)
            }
            Expr::At(..) => {
                let p = self.threads[*at].1;
                *at += 1;
                match *process {
                    Some(q) if q != p => false,
                    _ => {
                        *process = Some(p);
                        true
                    }
                }
            }
            Expr::Cmp(a, _, b) => {
                let mut ps = Vec::new();
                if !self.event_processes(a, &mut ps) || !self.event_processes(b, &mut ps) {
                    return false;
                }
                for q in ps {
                    match *process {
                        Some(r) if r != q => return false,
                        _ => *process = Some(q),
                    }
                }
                true
            }
            Expr::Race(_) => false,
        }
    }

    /// The processes of the `events(...)` terms of `n`; `false` if it has a `count(...)`,
    /// which looks at every process.
    fn event_processes(&self, n: &Num, out: &mut Vec<usize>) -> bool {
        match n {
            Num::Int(_) => true,
            Num::Count(..) => false,
            Num::Events(_, _, k, _) => {
                out.push(self.event_counts[*k].0);
                true
            }
            Num::Add(a, b) | Num::Sub(a, b) => {
                self.event_processes(a, out) && self.event_processes(b, out)
            }
        }
    }

    /// A conjunct that looks at process `p` only, with `p` in state `i`.
    fn eval_local(&self, e: &Expr, p: usize, i: u32, at: &mut usize) -> bool {
        match e {
            Expr::Bool(b) => *b,
            Expr::Not(a) => !self.eval_local(a, p, i, at),
            Expr::And(a, b) => {
                let x = self.eval_local(a, p, i, at);
                let y = self.eval_local(b, p, i, at);
                x && y
            }
            Expr::Or(a, b) => {
                let x = self.eval_local(a, p, i, at);
                let y = self.eval_local(b, p, i, at);
                x || y
            }
            Expr::At(_, c, _) => {
                *at += 1;
                self.masks[p][i as usize] & (1 << c) != 0
            }
            Expr::Cmp(a, op, b) => {
                // Only this process's `events` terms: every other component is irrelevant.
                let mut g = vec![0u32; self.poset.processes()];
                g[p] = i;
                op.holds(self.num(a, &g), self.num(b, &g))
            }
            Expr::Race(_) => unreachable!("not local"),
        }
    }

    /// The race the predicate's first `race` term sees in `g`, for reports.
    pub fn explain_race(&self, g: &[u32]) -> Option<FrontierRace> {
        match self.race_var.first()? {
            None => self.race(g, None),
            Some(None) => None,
            Some(Some(x)) => self.race(g, Some(*x)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

struct Parser {
    c: Cursor,
    conds: Vec<Cond>,
    event_terms: usize,
    counts_every_event: bool,
}

/// Longest first, so that `<=` wins over `<`.
const PUNCTS: &[&str] = &[
    "&&", "||", "==", "!=", "<=", ">=", "!", "<", ">", "(", ")", ",", "+", "-",
];

fn lex(text: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    tokenize(text, |s, c, before| {
        let start = s.pos();
        // `-` before a digit is a sign where an operand starts (first, or after an operator or
        // bracket) and the subtraction elsewhere.
        let signed = c == '-'
            && s.peek_nth(1).is_some_and(|d| d.is_ascii_digit())
            && matches!(before.last(), Some((Token::Punct(_), _)) | None);
        let token = if c.is_whitespace() {
            s.bump();
            return Ok(None);
        } else if c == '#' {
            s.skip_line();
            return Ok(None);
        } else if c.is_ascii_digit() || signed {
            Token::Int(s.integer().map_err(|digits| {
                SyntaxError::new(start, format!("number `{digits}` is out of range"))
            })?)
        } else if c.is_alphanumeric() || c == '_' {
            Token::Ident(
                s.eat_while(|c| c.is_alphanumeric() || "_.$".contains(c))
                    .to_owned(),
            )
        } else if c == '"' {
            // A backslash keeps the next character, whatever it is.
            Token::Str(s.string_literal("unterminated string", |c, _| {
                c.ok_or_else(|| SyntaxError::new(start, "unterminated string"))
            })?)
        } else {
            s.punct(PUNCTS)?
        };
        Ok(Some(token))
    })
}

fn describe(t: &Token) -> String {
    match t {
        Token::End => "the end".to_owned(),
        t => t.to_string(),
    }
}

/// Parses a predicate.
pub fn parse_predicate(text: &str) -> Result<Predicate, SyntaxError> {
    let mut p = Parser {
        c: Cursor::new(lex(text)?, describe),
        conds: Vec::new(),
        event_terms: 0,
        counts_every_event: false,
    };
    let expr = p.expr()?;
    if !p.c.at_end() {
        return Err(p.c.expected("`&&`, `||` or the end of the predicate"));
    }
    Ok(Predicate {
        expr,
        conds: p.conds,
        text: text.to_owned(),
        source: "<predicate>".to_owned(),
        event_terms: p.event_terms,
        counts_every_event: p.counts_every_event,
    })
}

enum Operand {
    Bool(Expr),
    Num(Num),
}

impl Parser {
    fn expr(&mut self) -> Result<Expr, SyntaxError> {
        self.c.enter()?;
        let mut left = self.and()?;
        while self.c.eat("||") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        self.c.leave();
        Ok(left)
    }
    fn and(&mut self) -> Result<Expr, SyntaxError> {
        let mut left = self.unary()?;
        while self.c.eat("&&") {
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }
    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        if self.c.eat("!") {
            self.c.enter()?;
            let e = self.unary()?;
            self.c.leave();
            return Ok(Expr::Not(Box::new(e)));
        }
        let pos = self.c.pos();
        let left = self.operand()?;
        let op = match self.c.peek() {
            Token::Punct("==") => Some(CmpOp::Eq),
            Token::Punct("!=") => Some(CmpOp::Ne),
            Token::Punct("<") => Some(CmpOp::Lt),
            Token::Punct("<=") => Some(CmpOp::Le),
            Token::Punct(">") => Some(CmpOp::Gt),
            Token::Punct(">=") => Some(CmpOp::Ge),
            _ => None,
        };
        match (left, op) {
            (Operand::Bool(e), None) => Ok(e),
            (Operand::Num(_), None) => Err(SyntaxError::new(
                pos,
                "a number is not a predicate: compare it (e.g. `count(op == w) >= 2`)",
            )),
            (Operand::Bool(_), Some(_)) => Err(SyntaxError::new(
                self.c.pos(),
                format!(
                    "a predicate cannot be compared; use `&&`, `||` or `!`, found {}",
                    self.c.found()
                ),
            )),
            (Operand::Num(a), Some(op)) => {
                self.c.bump();
                let rpos = self.c.pos();
                match self.operand()? {
                    Operand::Num(b) => Ok(Expr::Cmp(a, op, b)),
                    Operand::Bool(_) => Err(SyntaxError::new(
                        rpos,
                        "expected a number after the comparison",
                    )),
                }
            }
        }
    }
    /// A sum of numeric terms, or a single boolean primary.
    fn operand(&mut self) -> Result<Operand, SyntaxError> {
        let first = self.primary()?;
        let Operand::Num(mut n) = first else {
            return Ok(first);
        };
        loop {
            let add = if self.c.eat("+") {
                true
            } else if self.c.eat("-") {
                false
            } else {
                return Ok(Operand::Num(n));
            };
            let Operand::Num(m) = self.primary()? else {
                return Err(self.c.expected("a number"));
            };
            n = if add {
                Num::Add(Box::new(n), Box::new(m))
            } else {
                Num::Sub(Box::new(n), Box::new(m))
            };
        }
    }
    fn primary(&mut self) -> Result<Operand, SyntaxError> {
        let pos = self.c.pos();
        match self.c.peek().clone() {
            Token::Int(i) => {
                self.c.bump();
                Ok(Operand::Num(Num::Int(i)))
            }
            Token::Punct("(") => {
                self.c.bump();
                let e = self.expr()?;
                self.c.expect(")")?;
                Ok(Operand::Bool(e))
            }
            Token::Ident(w) => {
                self.c.bump();
                match w.as_str() {
                    "true" => Ok(Operand::Bool(Expr::Bool(true))),
                    "false" => Ok(Operand::Bool(Expr::Bool(false))),
                    "race" => {
                        if self.c.eat("(") {
                            let v = self.name("a variable")?;
                            self.c.expect(")")?;
                            Ok(Operand::Bool(Expr::Race(Some(v))))
                        } else {
                            Ok(Operand::Bool(Expr::Race(None)))
                        }
                    }
                    "count" => {
                        self.c.expect("(")?;
                        let c = self.cond_index()?;
                        let mut by = Vec::new();
                        if self.c.eat_word("by") {
                            loop {
                                by.push(self.field()?);
                                if !self.c.eat(",") {
                                    break;
                                }
                            }
                        }
                        self.c.expect(")")?;
                        Ok(Operand::Num(Num::Count(c, by)))
                    }
                    "events" => {
                        self.c.expect("(")?;
                        let tpos = self.c.pos();
                        let who = self.literal("a thread name or process number")?;
                        let cond = if self.c.eat(",") {
                            Some(self.cond_index()?)
                        } else {
                            self.counts_every_event = true;
                            None
                        };
                        self.c.expect(")")?;
                        self.event_terms += 1;
                        Ok(Operand::Num(Num::Events(
                            who,
                            cond,
                            self.event_terms - 1,
                            tpos,
                        )))
                    }
                    "exists" => {
                        self.c.expect("(")?;
                        let c = self.cond_index()?;
                        self.c.expect(")")?;
                        Ok(Operand::Bool(Expr::Cmp(
                            Num::Count(c, Vec::new()),
                            CmpOp::Ge,
                            Num::Int(1),
                        )))
                    }
                    "atleast" => {
                        self.c.expect("(")?;
                        let Token::Int(k) = *self.c.peek() else {
                            return Err(self.c.expected("the number of threads"));
                        };
                        self.c.bump();
                        self.c.expect(",")?;
                        let c = self.cond_index()?;
                        self.c.expect(")")?;
                        Ok(Operand::Bool(Expr::Cmp(
                            Num::Count(c, Vec::new()),
                            CmpOp::Ge,
                            Num::Int(k),
                        )))
                    }
                    "at" => {
                        self.c.expect("(")?;
                        let tpos = self.c.pos();
                        let who = self.literal("a thread name or process number")?;
                        self.c.expect(",")?;
                        let c = self.cond_index()?;
                        self.c.expect(")")?;
                        Ok(Operand::Bool(Expr::At(who, c, tpos)))
                    }
                    _ => Err(SyntaxError::new(
                        pos,
                        format!(
                            "unknown word `{w}`: expected true, false, race, count, events, exists, atleast, at, a number or `(`"
                        ),
                    )),
                }
            }
            _ => Err(self.c.expected("a predicate or a number")),
        }
    }
    fn name(&mut self, what: &str) -> Result<String, SyntaxError> {
        match self.c.peek().clone() {
            Token::Ident(s) | Token::Str(s) => {
                self.c.bump();
                Ok(s)
            }
            _ => Err(self.c.expected(what)),
        }
    }
    fn literal(&mut self, what: &str) -> Result<Literal, SyntaxError> {
        match self.c.peek().clone() {
            Token::Ident(s) | Token::Str(s) => {
                self.c.bump();
                Ok(Literal::Text(s))
            }
            Token::Int(i) => {
                self.c.bump();
                Ok(Literal::Int(i))
            }
            _ => Err(self.c.expected(what)),
        }
    }
    fn field(&mut self) -> Result<Field, SyntaxError> {
        let pos = self.c.pos();
        let Token::Ident(w) = self.c.peek().clone() else {
            return Err(self.c.expected(&format!("a field ({FIELDS})")));
        };
        self.c.bump();
        let numbered = |prefix: &str| w.strip_prefix(prefix).and_then(|d| d.parse::<usize>().ok());
        Ok(match w.as_str() {
            "op" => Field::Op,
            "target" => Field::Target,
            "var" => Field::Var,
            "lock" => Field::Lock,
            "thread" => Field::Thread,
            "process" => Field::Process,
            "object" | "obj" => Field::Object,
            "method" => Field::Method,
            "label" => Field::Label,
            _ => {
                if let Some(i) = numbered("arg") {
                    Field::Arg(i)
                } else if let Some(i) = numbered("result") {
                    Field::Result(i)
                } else {
                    return Err(SyntaxError::new(
                        pos,
                        format!("unknown field `{w}` (fields: {FIELDS})"),
                    ));
                }
            }
        })
    }
    fn cond_index(&mut self) -> Result<usize, SyntaxError> {
        let c = self.cond()?;
        self.conds.push(c);
        Ok(self.conds.len() - 1)
    }
    fn cond(&mut self) -> Result<Cond, SyntaxError> {
        self.c.enter()?;
        let mut left = self.cond_and()?;
        while self.c.eat("||") {
            left = Cond::Or(Box::new(left), Box::new(self.cond_and()?));
        }
        self.c.leave();
        Ok(left)
    }
    fn cond_and(&mut self) -> Result<Cond, SyntaxError> {
        let mut left = self.cond_unary()?;
        while self.c.eat("&&") {
            left = Cond::And(Box::new(left), Box::new(self.cond_unary()?));
        }
        Ok(left)
    }
    fn cond_unary(&mut self) -> Result<Cond, SyntaxError> {
        if self.c.eat("!") {
            self.c.enter()?;
            let c = self.cond_unary()?;
            self.c.leave();
            return Ok(Cond::Not(Box::new(c)));
        }
        if self.c.eat("(") {
            let c = self.cond()?;
            self.c.expect(")")?;
            return Ok(c);
        }
        let f = self.field()?;
        let eq = if self.c.eat("==") {
            true
        } else if self.c.eat("!=") {
            false
        } else {
            return Err(self.c.expected("`==` or `!=` after the field"));
        };
        let lit = self.literal("a value (a name, a number or a string)")?;
        Ok(Cond::Is(f, eq, lit))
    }
}
