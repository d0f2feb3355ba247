//! The data-independence classifier of Section 4: is an operation an SCM (Definition 4.2), a
//! VCM (4.3: `replace(k, v', v)` with `v'` returned by `get(k)`), an FCM (4.4: the key is
//! compared only with constants, which give the fixed input set), or data-dependent, and then
//! for every reason of Fig. 11 (Globals, Remove, Exit, Keys, Branch, Size, Inputs) plus
//! Assign (restriction 2, immutable inputs) and Iteration (a traversal of the map, which like
//! `size()` reads every key), each at the offending line and column.
//!
//! The restrictions are syntactic and flow-insensitive, as the paper's: a local is "a map
//! result" if any assignment to it is (restriction 4 "also applies when the return value is
//! assigned to other variables"). Two deliberate relaxations, both data-independent for the
//! same reason as `putIfAbsent` (their effect and result depend only on whether the key is
//! present): `containsKey(k)` and `replace(k, v)` are allowed in SCM.
//!
//! It knows the syntax tree only; it does not execute anything.

use super::ast::*;
use super::ir::{show, Value};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Scm,
    Vcm,
    Fcm,
    DataDependent,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Scm => "SCM",
            Class::Vcm => "VCM",
            Class::Fcm => "FCM",
            Class::DataDependent => "data-dependent",
        }
    }
}

/// One broken restriction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    /// Globals, Remove, Exit, Keys, Branch, Size, Inputs (Fig. 11), Assign or Iteration.
    pub rule: &'static str,
    pub pos: Pos,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct Classification {
    pub class: Class,
    pub reasons: Vec<Reason>,
    /// Index of the key parameter, if the operation has parameters.
    pub key: Option<usize>,
    /// Index of the value parameter, if any.
    pub value: Option<usize>,
    /// The other parameters: inputs only passed along (stored, part of a stored object,
    /// given to unknown calls), each verified with a value of its own.
    pub extra: Vec<usize>,
    /// FCM: the constants the key is compared with (the fixed input set is these plus one
    /// other value, see [`Classification::inputs`]).
    pub constants: Vec<Value>,
    /// Why a data-independent class beyond SCM applies (VCM's replace, FCM's comparisons).
    pub notes: Vec<String>,
}

impl Classification {
    /// The keys to verify with: one for SCM and VCM (Theorem 4.1), the constants plus one
    /// value different from all of them for FCM.
    pub fn inputs(&self) -> Vec<Value> {
        if self.class != Class::Fcm {
            return vec![Value::Int(1)];
        }
        let mut out = self.constants.clone();
        let other = if self.constants.iter().any(|c| matches!(c, Value::Str(_))) {
            let mut s = "*".to_owned();
            while out.contains(&Value::str(&s)) {
                s.push('*');
            }
            Value::str(&s)
        } else {
            let max = self
                .constants
                .iter()
                .filter_map(|c| match c {
                    Value::Int(n) => Some(*n),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            Value::Int(max.saturating_add(1))
        };
        out.push(other);
        out
    }
}

// Sources of a value, as bits.
const MAP_VALUE: u8 = 1; // a value read from the map (get, put, remove, putIfAbsent, replace/2)
const MAP_FLAG: u8 = 2; // containsKey, replace/3, remove/2
const SIZE: u8 = 4;
const KEY: u8 = 8;
const INPUT: u8 = 16; // any other parameter
const GLOBAL: u8 = 32;
/// In the environment only, with a variable's sources: it holds an object `new` made on every
/// path (never null), so comparing it with null decides nothing (`v = func.apply(key)` applied
/// to `k -> new Listener(k)`, then `if (null == v) return null;`).
const FRESH: u8 = 64;

struct Ctx<'a> {
    program: &'a Program,
    op: &'a Operation,
    key: Option<String>,
    /// The declared locals.
    locals: BTreeSet<String>,
    /// Sources of each local at the current point of the walk (flow-sensitive).
    sources: BTreeMap<String, u8>,
    /// Per enclosing loop: the environments at its `break`s and `continue`s.
    loops: Vec<(Vec<Env>, Vec<Env>)>,
    /// Locals every assignment of which is `get(k)` on the map.
    only_get: BTreeSet<String>,
    reasons: Vec<Reason>,
    constants: Vec<Value>,
    notes: Vec<String>,
    uses_replace_value: bool,
    maps: Vec<String>,
    seen_globals: BTreeSet<String>,
}

fn params(op: &Operation) -> impl Iterator<Item = &str> {
    op.params.iter().map(|p| p.name.as_str())
}

impl Ctx<'_> {
    fn is_param(&self, name: &str) -> bool {
        params(self.op).any(|p| p == name)
    }

    fn field(&self, name: &str) -> Option<&Field> {
        if self.locals.contains(name) || self.is_param(name) {
            return None;
        }
        self.program.fields.iter().find(|f| f.name == name)
    }

    fn is_global(&self, name: &str) -> bool {
        self.field(name).is_some_and(|f| !f.is_final && !f.is_map())
    }

    /// The value of a constant expression: a literal or a final field with a literal value.
    fn constant(&self, e: &Expr) -> Option<Value> {
        match &e.kind {
            ExprKind::Null => Some(Value::Null),
            ExprKind::Bool(b) => Some(Value::Bool(*b)),
            ExprKind::Int(n) => Some(Value::Int(*n)),
            ExprKind::Str(s) => Some(Value::str(s)),
            ExprKind::Neg(a) => match self.constant(a)? {
                Value::Int(n) => Some(Value::Int(n.wrapping_neg())),
                _ => None,
            },
            ExprKind::Var(v) => {
                let f = self.field(v)?;
                if f.is_final && !f.is_map() {
                    let init = f.init.as_ref()?;
                    self.constant(init)
                } else {
                    None
                }
            }
            ExprKind::Opaque(name) => Some(Value::opaque(name)),
            _ => None,
        }
    }

    fn sources(&self, e: &Expr) -> u8 {
        match &e.kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Str(_)
            | ExprKind::Opaque(_)
            | ExprKind::This => 0,
            ExprKind::Lambda { body, .. } => self.sources(body),
            ExprKind::Var(v) => {
                if self.key.as_deref() == Some(v.as_str()) {
                    KEY
                } else if self.is_param(v) {
                    INPUT
                } else if let Some(s) = self.sources.get(v) {
                    *s & !FRESH
                } else if self.is_global(v) {
                    GLOBAL
                } else {
                    0
                }
            }
            ExprKind::Not(a) | ExprKind::Neg(a) => self.sources(a),
            ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => self.sources(a) | self.sources(b),
            ExprKind::Cond(a, b, c) => self.sources(a) | self.sources(b) | self.sources(c),
            ExprKind::MapCall { method, .. } => match method {
                MapMethod::Size => SIZE,
                m if m.returns_map_value() => MAP_VALUE,
                _ => MAP_FLAG,
            },
            ExprKind::Call { recv, args, .. } => args
                .iter()
                .fold(self.sources(recv), |s, a| s | self.sources(a)),
            ExprKind::New { args, .. } => args.iter().fold(0, |s, a| s | self.sources(a)),
        }
    }

    /// Whether `e` is an object `new` made, on every path that reaches here.
    fn fresh(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::New { .. } => true,
            ExprKind::Var(v) => {
                self.key.as_deref() != Some(v.as_str())
                    && !self.is_param(v)
                    && self.sources.get(v).is_some_and(|s| s & FRESH != 0)
            }
            _ => false,
        }
    }

    /// The sources of a value `e` assigned to a variable, with [`FRESH`] when it is one.
    fn assigned(&self, e: &Expr) -> u8 {
        self.sources(e) | if self.fresh(e) { FRESH } else { 0 }
    }

    fn reason(&mut self, rule: &'static str, pos: Pos, message: String) {
        // Loops are walked until their environment is stable: keep the first wording.
        if !self.reasons.iter().any(|r| r.rule == rule && r.pos == pos) {
            self.reasons.push(Reason { rule, pos, message });
        }
    }
}

fn assignments<'a>(stmts: &'a [Stmt], out: &mut Vec<(&'a str, &'a Expr, Pos)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Decl {
                name,
                init: Some(e),
            }
            | StmtKind::Assign { name, value: e } => out.push((name, e, s.pos)),
            StmtKind::If { then, els, .. } => {
                assignments(then, out);
                assignments(els, out);
            }
            StmtKind::Loop { body, update, .. } => {
                assignments(body, out);
                assignments(update, out);
            }
            StmtKind::Block(b) => assignments(b, out),
            _ => {}
        }
    }
}

fn declared(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Decl { name, .. } => {
                out.insert(name.clone());
            }
            StmtKind::If { then, els, .. } => {
                declared(then, out);
                declared(els, out);
            }
            StmtKind::Loop { body, update, .. } => {
                declared(body, out);
                declared(update, out);
            }
            StmtKind::Block(b) => declared(b, out),
            _ => {}
        }
    }
}

/// Calls `f` on every expression (and sub-expression) of the statements, outermost first.
fn each_expr<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Expr)) {
    fn walk<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Expr)) {
        f(e);
        match &e.kind {
            ExprKind::Not(a) | ExprKind::Neg(a) => walk(a, f),
            ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
                walk(a, f);
                walk(b, f);
            }
            ExprKind::Cond(a, b, c) => {
                walk(a, f);
                walk(b, f);
                walk(c, f);
            }
            ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => {
                args.iter().for_each(|a| walk(a, f))
            }
            ExprKind::Call { recv, args, .. } => {
                walk(recv, f);
                args.iter().for_each(|a| walk(a, f));
            }
            ExprKind::Lambda { body, .. } => walk(body, f),
            _ => {}
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::Decl { init: Some(e), .. }
            | StmtKind::Assign { value: e, .. }
            | StmtKind::Expr(e)
            | StmtKind::Throw(e)
            | StmtKind::Return(Some(e)) => walk(e, f),
            StmtKind::If { cond, then, els } => {
                walk(cond, f);
                each_expr(then, f);
                each_expr(els, f);
            }
            StmtKind::Loop { cond, body, update } => {
                if let Some(c) = cond {
                    walk(c, f);
                }
                each_expr(body, f);
                each_expr(update, f);
            }
            StmtKind::Block(b) => each_expr(b, f),
            _ => {}
        }
    }
}

/// Whether the statements can complete abruptly (return, throw, break, continue): then what
/// follows them is control-dependent on whatever guards them.
fn abrupt(stmts: &[Stmt]) -> Option<Pos> {
    for s in stmts {
        match &s.kind {
            StmtKind::Return(_) | StmtKind::Throw(_) | StmtKind::Break | StmtKind::Continue => {
                return Some(s.pos)
            }
            StmtKind::If { then, els, .. } => {
                if let Some(p) = abrupt(then).or_else(|| abrupt(els)) {
                    return Some(p);
                }
            }
            StmtKind::Loop { body, .. } => {
                // `break`/`continue` inside a loop stay inside it; returns and throws escape.
                if let Some(p) = exits(body) {
                    return Some(p);
                }
            }
            StmtKind::Block(b) => {
                if let Some(p) = abrupt(b) {
                    return Some(p);
                }
            }
            _ => {}
        }
    }
    None
}

fn exits(stmts: &[Stmt]) -> Option<Pos> {
    for s in stmts {
        match &s.kind {
            StmtKind::Return(_) | StmtKind::Throw(_) => return Some(s.pos),
            StmtKind::If { then, els, .. } => {
                if let Some(p) = exits(then).or_else(|| exits(els)) {
                    return Some(p);
                }
            }
            StmtKind::Loop { body, .. } | StmtKind::Block(body) => {
                if let Some(p) = exits(body) {
                    return Some(p);
                }
            }
            _ => {}
        }
    }
    None
}

/// The atoms of a condition: its operands under `!`, `&&` and `||`.
fn atoms<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.kind {
        ExprKind::Not(a) => atoms(a, out),
        ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => {
            atoms(a, out);
            atoms(b, out);
        }
        _ => out.push(e),
    }
}

impl Ctx<'_> {
    /// Restrictions 4 and 5 and FCM's comparisons, for one condition guarding `region`
    /// (`exit` is an exit statement control-dependent on it, if any).
    fn condition(&mut self, cond: &Expr, exit: Option<Pos>) {
        let mut list = Vec::new();
        atoms(cond, &mut list);
        for atom in list {
            self.atom(atom, exit);
        }
    }

    fn atom(&mut self, atom: &Expr, exit: Option<Pos>) {
        let key = self.key.clone();
        let is_key = |e: &Expr| matches!(&e.kind, ExprKind::Var(v) if Some(v) == key.as_ref());
        // `x == c`, `x != c`, `x.equals(c)`, `c.equals(x)`: the compared pair.
        let pair = match &atom.kind {
            ExprKind::Binary(BinOp::Eq | BinOp::Ne, a, b) | ExprKind::Equals(a, b) => {
                Some((&**a, &**b))
            }
            _ => None,
        };
        if let Some((a, b)) = pair {
            for (x, c) in [(a, b), (b, a)] {
                if let Some(value) = self.constant(c) {
                    if value == Value::Null && self.fresh(x) {
                        return; // never null: always the same answer
                    }
                    if is_key(x) {
                        // FCM: the key compared with a constant (null included).
                        if !self.constants.contains(&value) {
                            self.constants.push(value.clone());
                            self.notes.push(format!(
                                "line {}: the key `{}` is compared with the constant {value} (Definition 4.4)",
                                atom.pos.line,
                                key.as_deref().unwrap_or("")
                            ));
                        }
                        return;
                    }
                    let s = self.sources(x);
                    if value == Value::Null
                        && s == MAP_VALUE
                        && !matches!(atom.kind, ExprKind::Equals(..))
                    {
                        return; // restriction 4: only (in)equality with null
                    }
                }
            }
        }
        let s = self.sources(atom);
        if s == 0 {
            return; // constants and fresh objects only
        }
        if s == MAP_FLAG {
            return; // containsKey / replace(k, v', v) / remove(k, v) success flags
        }
        if s & (MAP_VALUE | MAP_FLAG) != 0 {
            self.reason(
                "Branch",
                atom.pos,
                format!(
                    "the condition `{}` uses a map result other than comparing it with null (restriction 4 of Definition 4.2)",
                    show(atom)
                ),
            );
        }
        if s & (KEY | INPUT) != 0 {
            let what = if s & KEY != 0 {
                "the input key"
            } else {
                "an input"
            };
            match exit {
                Some(p) => self.reason(
                    "Exit",
                    atom.pos,
                    format!(
                        "the exit at line {} depends on `{}`, which uses {what} other than comparing the key with a constant (restriction 5 of Definition 4.2)",
                        p.line,
                        show(atom)
                    ),
                ),
                None => self.reason(
                    "Branch",
                    atom.pos,
                    format!(
                        "control flow depends on `{}`, which uses {what} other than comparing the key with a constant",
                        show(atom)
                    ),
                ),
            }
        }
        // SIZE and GLOBAL are reported where they are read.
    }

    /// Walks `stmts` from the environment `env` (`None`: unreachable), checking every
    /// condition in the environment that reaches it; returns the environment after them.
    fn block(&mut self, stmts: &[Stmt], mut env: Option<Env>) -> Option<Env> {
        for (i, s) in stmts.iter().enumerate() {
            let current = env.clone()?;
            self.sources = current.clone();
            self.inner_conditions(s);
            match &s.kind {
                StmtKind::Decl { name, init } => {
                    let v = init.as_ref().map_or(0, |e| self.assigned(e));
                    let mut next = current;
                    next.insert(name.clone(), v);
                    env = Some(next);
                }
                StmtKind::Assign { name, value } => {
                    let v = self.assigned(value);
                    let mut next = current;
                    if self.locals.contains(name) {
                        next.insert(name.clone(), v);
                    }
                    env = Some(next);
                }
                StmtKind::Expr(_) => {}
                StmtKind::Return(_) | StmtKind::Throw(_) => env = None,
                StmtKind::Break | StmtKind::Continue => {
                    if let Some(frame) = self.loops.last_mut() {
                        if matches!(s.kind, StmtKind::Break) {
                            frame.0.push(current);
                        } else {
                            frame.1.push(current);
                        }
                    }
                    env = None;
                }
                StmtKind::If { cond, then, els } => {
                    // Exits guarded: inside the branches, or after the `if` when a branch
                    // completes abruptly (then the rest, up to the final return, depends on it).
                    let inside = exits(then).or_else(|| exits(els));
                    let after = abrupt(then).or_else(|| abrupt(els)).map(|_| {
                        exits(&stmts[i + 1..]).unwrap_or(Pos {
                            line: self.op.end_line,
                            col: 1,
                        })
                    });
                    self.condition(cond, inside.or(after));
                    let a = self.block(then, Some(current.clone()));
                    let b = self.block(els, Some(current));
                    env = join(a, b);
                }
                StmtKind::Loop { cond, body, update } => {
                    let after = exits(&stmts[i + 1..]).unwrap_or(Pos {
                        line: self.op.end_line,
                        col: 1,
                    });
                    let guarded = exits(body).unwrap_or(after);
                    let mut head = current;
                    let exit = loop {
                        self.sources = head.clone();
                        if let Some(c) = cond {
                            self.condition(c, Some(guarded));
                        }
                        self.loops.push((Vec::new(), Vec::new()));
                        let end = self.block(body, Some(head.clone()));
                        let (breaks, continues) = self.loops.pop().expect("the loop's frame");
                        let end = continues.into_iter().fold(end, |a, c| join(a, Some(c)));
                        let end = self.block(update, end);
                        let next = join(Some(head.clone()), end).expect("the head is reachable");
                        if next == head {
                            // Leaves through the condition (if any) or a break.
                            let out = if cond.is_some() { Some(head) } else { None };
                            break breaks.into_iter().fold(out, |a, b| join(a, Some(b)));
                        }
                        head = next;
                    };
                    env = exit;
                }
                StmtKind::Block(b) => env = self.block(b, Some(current)),
            }
        }
        env
    }
}

impl Ctx<'_> {
    /// Conditions inside the expressions of a simple statement (`?:`) guard values, not exits.
    fn inner_conditions(&mut self, s: &Stmt) {
        let e = match &s.kind {
            StmtKind::Decl { init: Some(e), .. }
            | StmtKind::Assign { value: e, .. }
            | StmtKind::Expr(e)
            | StmtKind::Throw(e)
            | StmtKind::Return(Some(e)) => e,
            _ => return,
        };
        let mut conds = Vec::new();
        let mut functions = Vec::new();
        each_expr(
            std::slice::from_ref(&Stmt {
                kind: StmtKind::Expr(e.clone()),
                pos: s.pos,
            }),
            &mut |x| {
                if let ExprKind::Cond(c, _, _) = &x.kind {
                    conds.push((**c).clone());
                }
                if let ExprKind::MapCall { method, args, .. } = &x.kind {
                    if let Some(ExprKind::Lambda { params, .. }) = args.last().map(|a| &a.kind) {
                        functions.push((*method, params.clone(), args.clone()));
                    }
                }
            },
        );
        // Conditions inside an atomic method's function: its parameters are the key and the
        // map's value (merge: the map's value and the given one).
        let saved = self.sources.clone();
        for (method, params, args) in &functions {
            let given = args.get(1).map_or(0, |a| self.sources(a));
            let inputs: &[u8] = match method {
                MapMethod::Merge => &[MAP_VALUE, given],
                _ => &[KEY, MAP_VALUE],
            };
            for (p, src) in params.iter().zip(inputs) {
                self.sources.insert(p.clone(), *src);
            }
        }
        for c in conds {
            self.condition(&c, None);
        }
        self.sources = saved;
    }
}

/// Whether a function's result may be `null`: `null` in a result position, or a variable (the
/// value of an absent key is null); an unknown call's result is a fresh object.
fn may_be_null(f: &Expr) -> bool {
    match &f.kind {
        ExprKind::Lambda { body, .. } => may_be_null(body),
        ExprKind::Null | ExprKind::Var(_) => true,
        ExprKind::Cond(_, a, b) => may_be_null(a) || may_be_null(b),
        ExprKind::MapCall { method, .. } => method.returns_map_value(),
        _ => false,
    }
}

type Env = BTreeMap<String, u8>;

/// The variables that decide something: read by a condition (`if`, loop, `?:`), used as a map
/// key, or the expected value of `replace(k, old, new)` / `remove(k, v)`.
fn deciding_vars(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    fn vars(e: &Expr, out: &mut BTreeSet<String>) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Var(v) => {
                    out.insert(v.clone());
                }
                ExprKind::Not(a) | ExprKind::Neg(a) => stack.push(a),
                ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
                    stack.push(a);
                    stack.push(b)
                }
                ExprKind::Cond(a, b, c) => stack.extend([&**a, &**b, &**c]),
                ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => stack.extend(args),
                ExprKind::Call { recv, args, .. } => {
                    stack.push(recv);
                    stack.extend(args)
                }
                ExprKind::Lambda { body, .. } => stack.push(body),
                _ => {}
            }
        }
    }
    let mut conds = Vec::new();
    each_expr(stmts, &mut |e| match &e.kind {
        ExprKind::Cond(c, _, _) => conds.push(&**c),
        ExprKind::MapCall { method, args, .. } => {
            if method.keyed() {
                conds.push(&args[0]);
            }
            if matches!(method, MapMethod::ReplaceValue | MapMethod::RemoveValue) {
                conds.push(&args[1]);
            }
        }
        _ => {}
    });
    fn statement_conds<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Expr>) {
        for s in stmts {
            match &s.kind {
                StmtKind::If { cond, then, els } => {
                    out.push(cond);
                    statement_conds(then, out);
                    statement_conds(els, out);
                }
                StmtKind::Loop { cond, body, update } => {
                    out.extend(cond.iter());
                    statement_conds(body, out);
                    statement_conds(update, out);
                }
                StmtKind::Block(b) => statement_conds(b, out),
                _ => {}
            }
        }
    }
    statement_conds(stmts, &mut conds);
    for c in conds {
        vars(c, out);
    }
}

fn join(a: Option<Env>, b: Option<Env>) -> Option<Env> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(mut a), Some(b)) => {
            // Sources are what a path may give, FRESH what every path gives.
            for (k, v) in b {
                a.entry(k)
                    .and_modify(|s| *s = ((*s | v) & !FRESH) | (*s & v & FRESH))
                    .or_insert(v);
            }
            Some(a)
        }
    }
}

/// Classifies one operation of `program`.
pub fn classify(program: &Program, op: &Operation) -> Classification {
    // The key is the parameter the first map call uses as its key; failing that, the first.
    let mut first_key: Option<String> = None;
    each_expr(&op.body, &mut |e| {
        if let ExprKind::MapCall { args, method, .. } = &e.kind {
            if method.keyed() && first_key.is_none() {
                if let ExprKind::Var(v) = &args[0].kind {
                    if op.params.iter().any(|p| &p.name == v) {
                        first_key = Some(v.clone());
                    }
                }
            }
        }
    });
    let key = first_key.or_else(|| op.params.first().map(|p| p.name.clone()));
    let key_index = key
        .as_ref()
        .and_then(|k| op.params.iter().position(|p| &p.name == k));
    let value_index = (0..op.params.len()).find(|&i| Some(i) != key_index);

    let mut locals = BTreeSet::new();
    declared(&op.body, &mut locals);
    let mut cx = Ctx {
        program,
        op,
        key: key.clone(),
        locals: locals.clone(),
        sources: BTreeMap::new(),
        loops: Vec::new(),
        only_get: BTreeSet::new(),
        reasons: Vec::new(),
        constants: Vec::new(),
        notes: Vec::new(),
        uses_replace_value: false,
        maps: Vec::new(),
        seen_globals: BTreeSet::new(),
    };

    // Inputs: a key, a value, and further inputs only passed along (stored, made part of a
    // stored object, given to unknown calls). One that decides something, compared in a
    // condition or given to a map method that compares it with the map's value or uses it as
    // a key, is beyond the reduction to one key and two values (the paper's `Inputs`).
    let extra: Vec<usize> = (0..op.params.len())
        .filter(|&i| Some(i) != key_index && Some(i) != value_index)
        .collect();
    if !extra.is_empty() {
        let mut deciding = BTreeSet::new();
        deciding_vars(&op.body, &mut deciding);
        for &i in &extra {
            let p = &op.params[i];
            if deciding.contains(&p.name) {
                cx.reason(
                    "Inputs",
                    p.pos,
                    format!(
                        "the input `{}` of `{}` is compared or used as a key: data independence allows a key, and values only passed along (Section 4)",
                        p.name, op.name
                    ),
                );
            }
        }
    }

    let mut assigns = Vec::new();
    assignments(&op.body, &mut assigns);
    for l in &locals {
        let all_get = assigns.iter().filter(|(n, _, _)| n == l).all(|(_, e, _)| {
            matches!(&e.kind, ExprKind::MapCall { method: MapMethod::Get, args, .. }
                if matches!(&args[0].kind, ExprKind::Var(v) if Some(v) == key.as_ref()))
        });
        if all_get && assigns.iter().any(|(n, _, _)| n == l) {
            cx.only_get.insert(l.clone());
        }
    }

    // Restriction 2: the inputs are immutable.
    for (name, _, pos) in &assigns {
        if cx.is_param(name) {
            cx.reason(
                "Assign",
                *pos,
                format!("assigns to the input `{name}` (restriction 2 of Definition 4.2: inputs are immutable)"),
            );
        }
    }

    // Globals, map calls (restrictions 1 and 3, VCM), read or written anywhere.
    for (name, _, pos) in &assigns {
        if cx.is_global(name) && cx.seen_globals.insert(name.to_string()) {
            cx.reason(
                "Globals",
                *pos,
                format!("writes the global `{name}`: the operation is not encapsulated"),
            );
        }
    }
    let mut exprs = Vec::new();
    each_expr(&op.body, &mut |e| exprs.push(e));
    for e in exprs {
        match &e.kind {
            ExprKind::Var(v) if cx.is_global(v) && cx.seen_globals.insert(v.clone()) => {
                cx.reason(
                    "Globals",
                    e.pos,
                    format!("reads the global `{v}`, which other threads may change: the operation is not encapsulated"),
                );
            }
            ExprKind::MapCall { map, method, args } => {
                if !cx.maps.contains(map) {
                    cx.maps.push(map.clone());
                    if cx.maps.len() == 2 {
                        cx.reason(
                            "Keys",
                            e.pos,
                            format!(
                                "uses a second map `{map}` besides `{}`; the reduction covers one map",
                                cx.maps[0]
                            ),
                        );
                    }
                }
                match method {
                    MapMethod::Size => {
                        cx.reason(
                            "Size",
                            e.pos,
                            format!("`{}` depends on every key of the map", show(e)),
                        );
                        continue;
                    }
                    MapMethod::Next => {
                        cx.reason(
                            "Iteration",
                            e.pos,
                            "a traversal of the map depends on every key of the map (weakly consistent iteration)".into(),
                        );
                        continue;
                    }
                    MapMethod::ComputeIfPresent | MapMethod::Compute | MapMethod::Merge
                        if args.last().is_some_and(may_be_null) =>
                    {
                        cx.reason(
                            "Remove",
                            e.pos,
                            format!(
                                "`{}`: its function may give null, which removes the entry depending on the value held (restriction 3 of Definition 4.2)",
                                show(e)
                            ),
                        )
                    }
                    MapMethod::RemoveValue => cx.reason(
                        "Remove",
                        e.pos,
                        format!(
                            "`{}`: remove(k, v) acts depending on the value held (restriction 3 of Definition 4.2)",
                            show(e)
                        ),
                    ),
                    MapMethod::ReplaceValue => {
                        cx.uses_replace_value = true;
                        let from_get = matches!(&args[1].kind, ExprKind::Var(v) if cx.only_get.contains(v));
                        if from_get {
                            cx.notes.push(format!(
                                "line {}: `{}` replaces a value returned by get(k) (Definition 4.3)",
                                e.pos.line,
                                show(e)
                            ));
                        } else {
                            cx.reason(
                                "Branch",
                                e.pos,
                                format!(
                                    "`{}` compares the map's value with `{}`, which is not a value returned by get(k) (Definition 4.3)",
                                    show(e),
                                    show(&args[1])
                                ),
                            );
                        }
                    }
                    _ => {}
                }
                let k = &args[0];
                let is_key = matches!(&k.kind, ExprKind::Var(v) if Some(v) == key.as_ref());
                if !is_key {
                    cx.reason(
                        "Keys",
                        k.pos,
                        format!(
                            "`{}` uses the key `{}`, not the input key{} (restriction 1 of Definition 4.2)",
                            show(e),
                            show(k),
                            key.as_ref().map(|k| format!(" `{k}`")).unwrap_or_default()
                        ),
                    );
                }
            }
            _ => {}
        }
    }

    // Conditions: restrictions 4 and 5, FCM.
    cx.block(&op.body, Some(Env::new()));

    let class = if !cx.reasons.is_empty() {
        Class::DataDependent
    } else if !cx.constants.is_empty() {
        Class::Fcm
    } else if cx.uses_replace_value {
        Class::Vcm
    } else {
        Class::Scm
    };
    cx.reasons.sort_by_key(|r| r.pos);
    cx.constants.sort();
    Classification {
        class,
        reasons: cx.reasons,
        key: key_index,
        value: value_index,
        extra: extra.clone(),
        constants: cx.constants,
        notes: cx.notes,
    }
}
