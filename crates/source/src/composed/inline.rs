//! The syntax-tree half of inlining a helper (a method of the same class, see `front.rs`):
//! giving the helper's locals names of their own, putting the caller's arguments for its
//! parameters, and turning its `return`s into assignments of its result, so that its body can
//! run in place of the call as statements of the caller.
//!
//! It knows only `ast.rs`; which calls are inlined, and where their statements go, is the
//! front end's.

use super::ast::*;
use std::collections::BTreeMap;

/// What a helper's names become in the caller: its locals get names of their own (two calls
/// of one helper, or a helper's local and the caller's of the same name, never meet), and a
/// parameter whose argument is a value that cannot change while the helper runs is that value.
/// A parameter to which the caller passes a lambda is that lambda where the helper applies
/// it (`func.apply(key)`: the lambda's body with `key` for its parameter, also as the
/// function of a map method, `map.computeIfAbsent(key, func)`), and an opaque value
/// anywhere else.
#[derive(Default)]
pub(super) struct Renaming {
    pub locals: BTreeMap<String, String>,
    pub values: BTreeMap<String, Expr>,
    /// By the helper's parameter, the caller's lambda (an `ExprKind::Lambda`, in the
    /// caller's names).
    pub functions: BTreeMap<String, Expr>,
    /// For a helper of another file, the call's position: its statements are placed there
    /// (a line of the helper's file would name another line of the operation's).
    pub at: Option<Pos>,
}

impl Renaming {
    pub fn stmts(&self, stmts: &mut [Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&self, s: &mut Stmt) {
        if let Some(at) = self.at {
            s.pos = at;
        }
        match &mut s.kind {
            StmtKind::Decl { name, init } => {
                self.target(name);
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            StmtKind::Assign { name, value } => {
                self.target(name);
                self.expr(value);
            }
            StmtKind::Expr(e) | StmtKind::Throw(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::If { cond, then, els } => {
                self.expr(cond);
                self.stmts(then);
                self.stmts(els);
            }
            StmtKind::Loop { cond, body, update } => {
                if let Some(c) = cond {
                    self.expr(c);
                }
                self.stmts(body);
                self.stmts(update);
            }
            StmtKind::Block(b) => self.stmts(b),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }

    /// `f.m(args)` with `f` a parameter bound to a lambda of as many parameters: its body
    /// with the arguments (renamed) for its parameters, when each argument is a value that
    /// may be copied (a name or a constant: evaluating it again gives the same value).
    fn applied(&self, e: &Expr) -> Option<Expr> {
        let ExprKind::Call { recv, args, .. } = &e.kind else {
            return None;
        };
        let ExprKind::Var(f) = &recv.kind else {
            return None;
        };
        let ExprKind::Lambda { params, body } = &self.functions.get(f.as_str())?.kind else {
            return None;
        };
        if params.len() != args.len() {
            return None;
        }
        let mut substitution = Renaming::default();
        for (p, a) in params.iter().zip(args) {
            let mut a = a.clone();
            self.expr(&mut a);
            let copied = matches!(
                a.kind,
                ExprKind::Var(_)
                    | ExprKind::Null
                    | ExprKind::Bool(_)
                    | ExprKind::Int(_)
                    | ExprKind::Str(_)
                    | ExprKind::Opaque(_)
                    | ExprKind::This
            );
            if !copied {
                return None;
            }
            substitution.values.insert(p.clone(), a);
        }
        let mut out = (**body).clone();
        substitution.expr(&mut out);
        Some(out)
    }

    fn target(&self, name: &mut String) {
        if let Some(n) = self.locals.get(name) {
            *name = n.clone();
        }
    }

    pub fn expr(&self, e: &mut Expr) {
        if let Some(applied) = self.applied(e) {
            *e = applied;
            return;
        }
        if let Some(at) = self.at {
            e.pos = at;
        }
        match &mut e.kind {
            ExprKind::Var(v) if self.functions.contains_key(v.as_str()) => {
                let line = self.functions[v.as_str()].pos.line;
                e.kind = ExprKind::Opaque(format!("lambda@{line}"));
            }
            ExprKind::Var(v) => {
                if let Some(value) = self.values.get(v) {
                    // The argument as the caller wrote it, at the caller's position.
                    e.kind = value.kind.clone();
                    e.pos = value.pos;
                } else if let Some(n) = self.locals.get(v) {
                    *v = n.clone();
                }
            }
            ExprKind::Not(a) | ExprKind::Neg(a) => self.expr(a),
            ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cond(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => {
                args.iter_mut().for_each(|a| self.expr(a))
            }
            ExprKind::Call { recv, args, .. } => {
                self.expr(recv);
                args.iter_mut().for_each(|a| self.expr(a));
            }
            ExprKind::Lambda { params, body } => {
                for p in params.iter_mut() {
                    self.target(p);
                }
                self.expr(body);
            }
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Int(_)
            | ExprKind::Str(_)
            | ExprKind::This
            | ExprKind::Opaque(_) => {}
        }
    }
}

/// The helper's body with every `return e` made `result = e` and the rest of the body skipped
/// on that path: statements after an `if` one of whose branches returned run only on the
/// path that did not (moved into the other branch when the returning one always returns,
/// behind `if (!done)` otherwise); a `return` inside a loop also sets `done` and leaves the
/// loop, and each enclosing loop of the helper leaves at once after it. `result` is `None` for
/// a helper whose value is not used. Returns the statements and whether they use `done`.
pub(super) fn returns_to_assignments(
    body: Vec<Stmt>,
    result: Option<&str>,
    done: &str,
) -> (Vec<Stmt>, bool) {
    let mut uses_done = false;
    let at = Exits {
        in_loop: false,
        set_done: false,
    };
    let out = sequence(body, result, done, at, &mut uses_done);
    (out, uses_done)
}

/// Where a `return` is: inside a loop of the helper (it leaves the loop too), or where the
/// statements after it are guarded by `done` (it sets it).
#[derive(Clone, Copy)]
struct Exits {
    in_loop: bool,
    set_done: bool,
}

fn var(name: &str, pos: Pos) -> Expr {
    Expr {
        kind: ExprKind::Var(name.to_owned()),
        pos,
    }
}

fn sequence(
    stmts: Vec<Stmt>,
    result: Option<&str>,
    done: &str,
    at: Exits,
    uses_done: &mut bool,
) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut rest = stmts.into_iter();
    while let Some(s) = rest.next() {
        let pos = s.pos;
        if !returns(&s) {
            out.push(s);
            continue;
        }
        match s.kind {
            StmtKind::Return(e) => {
                if let (Some(r), Some(e)) = (result, e) {
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            name: r.to_owned(),
                            value: e,
                        },
                        pos,
                    });
                }
                if at.in_loop || at.set_done {
                    *uses_done = true;
                    out.push(Stmt {
                        kind: StmtKind::Assign {
                            name: done.to_owned(),
                            value: Expr {
                                kind: ExprKind::Bool(true),
                                pos,
                            },
                        },
                        pos,
                    });
                }
                if at.in_loop {
                    out.push(Stmt {
                        kind: StmtKind::Break,
                        pos,
                    });
                }
                // What follows a `return` is never reached.
                return out;
            }
            StmtKind::Block(b) => {
                // Java forbids a local to shadow another: the block's statements and the
                // rest can share one sequence.
                let mut all = b;
                all.extend(rest);
                out.extend(sequence(all, result, done, at, uses_done));
                return out;
            }
            StmtKind::If { cond, then, els } => {
                let after: Vec<Stmt> = rest.collect();
                let (then_ends, els_ends) = (always_leaves(&then), always_leaves(&els));
                if after.is_empty() || then_ends || els_ends {
                    // The rest goes into the branch that falls through (both, when neither
                    // leaves: it is copied, as a compiler's tail duplication would).
                    let mut then = then;
                    let mut els = els;
                    if !then_ends {
                        then.extend(after.iter().cloned());
                    }
                    if !els_ends {
                        els.extend(after);
                    }
                    out.push(Stmt {
                        kind: StmtKind::If {
                            cond,
                            then: sequence(then, result, done, at, uses_done),
                            els: sequence(els, result, done, at, uses_done),
                        },
                        pos,
                    });
                    return out;
                }
                // Both fall through on some path: `done` says which.
                *uses_done = true;
                let guarded = Exits {
                    set_done: true,
                    ..at
                };
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond,
                        then: sequence(then, result, done, guarded, uses_done),
                        els: sequence(els, result, done, guarded, uses_done),
                    },
                    pos,
                });
                out.extend(after_done(after, result, done, at, uses_done, pos));
                return out;
            }
            StmtKind::Loop { cond, body, update } => {
                *uses_done = true;
                out.push(Stmt {
                    kind: StmtKind::Loop {
                        cond,
                        body: sequence(
                            body,
                            result,
                            done,
                            Exits {
                                in_loop: true,
                                set_done: true,
                            },
                            uses_done,
                        ),
                        update,
                    },
                    pos,
                });
                let after: Vec<Stmt> = rest.collect();
                out.extend(after_done(after, result, done, at, uses_done, pos));
                return out;
            }
            kind => out.push(Stmt { kind, pos }),
        }
    }
    out
}

/// The statements after one that may have returned: left at once (inside a loop) or run
/// only when it did not.
fn after_done(
    after: Vec<Stmt>,
    result: Option<&str>,
    done: &str,
    at: Exits,
    uses_done: &mut bool,
    pos: Pos,
) -> Vec<Stmt> {
    let mut out = Vec::new();
    if at.in_loop {
        out.push(Stmt {
            kind: StmtKind::If {
                cond: var(done, pos),
                then: vec![Stmt {
                    kind: StmtKind::Break,
                    pos,
                }],
                els: Vec::new(),
            },
            pos,
        });
        out.extend(sequence(after, result, done, at, uses_done));
    } else if !after.is_empty() {
        out.push(Stmt {
            kind: StmtKind::If {
                cond: Expr {
                    kind: ExprKind::Not(Box::new(var(done, pos))),
                    pos,
                },
                then: sequence(after, result, done, at, uses_done),
                els: Vec::new(),
            },
            pos,
        });
    }
    out
}

/// Whether `s` contains a `return`.
fn returns(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { then, els, .. } => then.iter().any(returns) || els.iter().any(returns),
        StmtKind::Loop { body, update, .. } => {
            body.iter().any(returns) || update.iter().any(returns)
        }
        StmtKind::Block(b) => b.iter().any(returns),
        _ => false,
    }
}

/// Whether every path through `stmts` ends in a `return` or `throw`.
fn always_leaves(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) | StmtKind::Throw(_) => true,
        StmtKind::If { then, els, .. } => always_leaves(then) && always_leaves(els),
        StmtKind::Block(b) => always_leaves(b),
        _ => false,
    })
}
