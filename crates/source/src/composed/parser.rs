//! A recursive-descent parser for composed operations written close to the Java the paper
//! quotes (VINE, ISSTA'14, Figs. 1-12): fields (maps and globals), then methods with
//! parameters, locals, `m.get(k)` and the other base map methods, `new T(..)`, arithmetic,
//! comparisons, `.equals(..)`, `if`/`else`, `while`, `for (;;)`, `break`, `continue`, `return`,
//! `throw`. Modifiers, generic types, annotations, `throws` clauses, `package`/`import` lines
//! and enclosing `class X { .. }` blocks are accepted and ignored so code can be pasted.
//!
//! It owns syntax and name resolution (which receiver is a map, which names exist); errors
//! carry line and column. It knows nothing of classes or verification.

use super::ast::*;
use super::lexer::{lex, Tok, Token};
use super::SyntaxError;
use std::collections::HashSet;

const MODIFIERS: &[&str] = &[
    "public",
    "private",
    "protected",
    "static",
    "final",
    "synchronized",
    "volatile",
    "transient",
    "abstract",
];

const KEYWORDS: &[&str] = &[
    "if", "else", "while", "for", "break", "continue", "return", "throw", "new", "this", "null",
    "true", "false", "class", "do", "switch", "try", "catch", "finally",
];

struct Parser {
    toks: Vec<Token>,
    at: usize,
}

type R<T> = Result<T, SyntaxError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.at + n).min(self.toks.len() - 1)].tok
    }
    fn pos(&self) -> Pos {
        self.toks[self.at].pos
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == w)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(n) => format!("`{n}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of file".into(),
        }
    }
    fn expect(&mut self, p: &str) -> R<Pos> {
        if self.is(p) {
            Ok(self.bump().pos)
        } else {
            Err(SyntaxError::new(
                self.pos(),
                format!("expected `{p}`, found {}", self.describe()),
            ))
        }
    }
    fn ident(&mut self, what: &str) -> R<(String, Pos)> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let pos = self.bump().pos;
                Ok((s, pos))
            }
            _ => Err(SyntaxError::new(
                self.pos(),
                format!("expected {what}, found {}", self.describe()),
            )),
        }
    }

    fn skip_annotations_and_modifiers(&mut self) -> bool {
        let mut is_final = false;
        loop {
            if self.is("@") {
                self.bump();
                let _ = self.bump();
                if self.is("(") {
                    self.skip_balanced("(", ")");
                }
                continue;
            }
            match self.peek() {
                Tok::Ident(s) if MODIFIERS.contains(&s.as_str()) => {
                    is_final |= s == "final";
                    self.bump();
                }
                _ => return is_final,
            }
        }
    }

    fn skip_balanced(&mut self, open: &str, close: &str) {
        let mut depth = 0;
        loop {
            if self.is(open) {
                depth += 1;
            } else if self.is(close) {
                depth -= 1;
                if depth == 0 {
                    self.bump();
                    return;
                }
            } else if *self.peek() == Tok::Eof {
                return;
            }
            self.bump();
        }
    }

    /// `Name(.Name)*(<args>)?([])*`; returns its text.
    fn ty(&mut self) -> R<String> {
        let (mut text, _) = self.ident("a type")?;
        while self.is(".") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.bump();
            text.push('.');
            text.push_str(&self.ident("a type")?.0);
        }
        if self.is("<") {
            self.bump();
            text.push('<');
            let mut first = true;
            while !self.is(">") {
                if !first {
                    self.expect(",")?;
                    text.push_str(", ");
                }
                first = false;
                if self.eat("?") {
                    text.push('?');
                    if self.eat_word("extends") || self.eat_word("super") {
                        text.push_str(" extends ");
                        text.push_str(&self.ty()?);
                    }
                } else {
                    text.push_str(&self.ty()?);
                }
            }
            self.expect(">")?;
            text.push('>');
        }
        while self.is("[") && matches!(self.peek_at(1), Tok::Punct("]")) {
            self.bump();
            self.bump();
            text.push_str("[]");
        }
        Ok(text)
    }

    /// Whether a declaration `Type name` starts here (without consuming anything).
    fn at_declaration(&mut self) -> bool {
        let save = self.at;
        let is_final = self.is_word("final");
        if is_final {
            self.bump();
        }
        let ok = match self.peek() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.ty().is_ok()
                    && matches!(self.peek(), Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()))
            }
            _ => false,
        };
        self.at = save;
        ok
    }

    fn program(&mut self) -> R<Program> {
        let mut program = Program::default();
        self.members(&mut program, false)?;
        Ok(program)
    }

    fn members(&mut self, program: &mut Program, in_class: bool) -> R<()> {
        loop {
            if *self.peek() == Tok::Eof {
                if in_class {
                    return Err(SyntaxError::new(
                        self.pos(),
                        "expected `}` closing the class",
                    ));
                }
                return Ok(());
            }
            if in_class && self.eat("}") {
                return Ok(());
            }
            if self.eat(";") {
                continue;
            }
            if self.is_word("package") || self.is_word("import") {
                while !self.is(";") && *self.peek() != Tok::Eof {
                    self.bump();
                }
                self.expect(";")?;
                continue;
            }
            let is_final = self.skip_annotations_and_modifiers();
            if self.is_word("class") || self.is_word("interface") {
                self.bump();
                self.ident("a class name")?;
                while !self.is("{") && *self.peek() != Tok::Eof {
                    self.bump();
                }
                self.expect("{")?;
                self.members(program, true)?;
                continue;
            }
            let start = self.pos();
            let ty = self.ty()?;
            // A constructor-less method with a generic return type is `<T> T name(..)`: not
            // supported; the common forms are `Type name(..)` and `Type name = ..;`.
            let (name, pos) = self.ident("a field or method name")?;
            if self.is("(") {
                program.operations.push(self.operation(name, start)?);
            } else {
                let init = if self.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.expect(";")?;
                program.fields.push(Field {
                    name,
                    ty,
                    is_final,
                    init,
                    pos,
                });
            }
        }
    }

    fn operation(&mut self, name: String, pos: Pos) -> R<Operation> {
        self.expect("(")?;
        let mut params = Vec::new();
        while !self.is(")") {
            if !params.is_empty() {
                self.expect(",")?;
            }
            self.skip_annotations_and_modifiers();
            let ty = self.ty()?;
            let (pname, ppos) = self.ident("a parameter name")?;
            params.push(Param {
                name: pname,
                ty,
                pos: ppos,
            });
        }
        self.expect(")")?;
        if self.eat_word("throws") {
            self.ty()?;
            while self.eat(",") {
                self.ty()?;
            }
        }
        self.expect("{")?;
        let (body, end_line) = self.block_rest()?;
        Ok(Operation {
            name,
            params,
            body,
            pos,
            end_line,
        })
    }

    /// Statements up to and including the closing `}`; returns its line too.
    fn block_rest(&mut self) -> R<(Vec<Stmt>, u32)> {
        let mut out = Vec::new();
        loop {
            if self.is("}") {
                let line = self.bump().pos.line;
                return Ok((out, line));
            }
            if *self.peek() == Tok::Eof {
                return Err(SyntaxError::new(
                    self.pos(),
                    "expected `}`, found end of file",
                ));
            }
            self.stmt_into(&mut out)?;
        }
    }

    /// One statement, or the body of a branch/loop (a block or a single statement).
    fn body(&mut self) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        if self.eat("{") {
            out = self.block_rest()?.0;
        } else {
            self.stmt_into(&mut out)?;
        }
        Ok(out)
    }

    fn stmt_into(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        let mk = |kind| Stmt { kind, pos };
        if self.eat(";") {
            return Ok(());
        }
        if self.eat("{") {
            let (b, _) = self.block_rest()?;
            out.push(mk(StmtKind::Block(b)));
            return Ok(());
        }
        if let Tok::Ident(w) = self.peek().clone() {
            match w.as_str() {
                "if" => {
                    self.bump();
                    self.expect("(")?;
                    let cond = self.expr()?;
                    self.expect(")")?;
                    let then = self.body()?;
                    let els = if self.eat_word("else") {
                        self.body()?
                    } else {
                        Vec::new()
                    };
                    out.push(mk(StmtKind::If { cond, then, els }));
                    return Ok(());
                }
                "while" => {
                    self.bump();
                    self.expect("(")?;
                    let cond = self.expr()?;
                    self.expect(")")?;
                    let body = self.body()?;
                    out.push(mk(StmtKind::Loop {
                        cond: Some(cond),
                        body,
                        update: Vec::new(),
                    }));
                    return Ok(());
                }
                "for" => {
                    self.bump();
                    self.expect("(")?;
                    let mut init = Vec::new();
                    if !self.is(";") {
                        self.simple_into(&mut init)?;
                    }
                    self.expect(";")?;
                    let cond = if self.is(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect(";")?;
                    let mut update = Vec::new();
                    while !self.is(")") {
                        if !update.is_empty() {
                            self.expect(",")?;
                        }
                        self.simple_into(&mut update)?;
                    }
                    self.expect(")")?;
                    let body = self.body()?;
                    init.push(mk(StmtKind::Loop { cond, body, update }));
                    out.push(mk(StmtKind::Block(init)));
                    return Ok(());
                }
                "break" => {
                    self.bump();
                    self.expect(";")?;
                    out.push(mk(StmtKind::Break));
                    return Ok(());
                }
                "continue" => {
                    self.bump();
                    self.expect(";")?;
                    out.push(mk(StmtKind::Continue));
                    return Ok(());
                }
                "return" => {
                    self.bump();
                    let value = if self.is(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect(";")?;
                    out.push(mk(StmtKind::Return(value)));
                    return Ok(());
                }
                "throw" => {
                    self.bump();
                    let e = self.expr()?;
                    self.expect(";")?;
                    out.push(mk(StmtKind::Throw(e)));
                    return Ok(());
                }
                "do" | "switch" | "try" | "catch" | "finally" | "else" | "synchronized" => {
                    return Err(SyntaxError::new(
                        pos,
                        format!("`{w}` is not supported by the composed-operation language"),
                    ));
                }
                _ => {}
            }
        }
        self.simple_into(out)?;
        self.expect(";")?;
        Ok(())
    }

    /// A declaration, assignment, increment or expression, without the `;`.
    fn simple_into(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.pos();
        if self.at_declaration() {
            self.eat_word("final");
            self.ty()?;
            loop {
                let (name, npos) = self.ident("a variable name")?;
                let init = if self.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                out.push(Stmt {
                    kind: StmtKind::Decl { name, init },
                    pos: npos,
                });
                if !self.eat(",") {
                    return Ok(());
                }
            }
        }
        let target = self.expr()?;
        let op = match self.peek() {
            Tok::Punct(p @ ("=" | "+=" | "-=" | "++" | "--")) => Some(*p),
            _ => None,
        };
        let Some(op) = op else {
            match target.kind {
                ExprKind::MapCall { .. }
                | ExprKind::Call { .. }
                | ExprKind::New { .. }
                | ExprKind::Equals(..) => {}
                _ => {
                    return Err(SyntaxError::new(
                        pos,
                        "this expression is not a statement (expected a call or an assignment)",
                    ))
                }
            }
            out.push(Stmt {
                kind: StmtKind::Expr(target),
                pos,
            });
            return Ok(());
        };
        let ExprKind::Var(name) = &target.kind else {
            return Err(SyntaxError::new(
                pos,
                "only variables can be assigned (field access is not supported)",
            ));
        };
        let opos = self.bump().pos;
        let var = || Box::new(target.clone());
        let value = match op {
            "=" => self.expr()?,
            "+=" | "-=" => {
                let rhs = self.expr()?;
                let bop = if op == "+=" { BinOp::Add } else { BinOp::Sub };
                Expr {
                    kind: ExprKind::Binary(bop, var(), Box::new(rhs)),
                    pos: opos,
                }
            }
            _ => {
                let one = Box::new(Expr {
                    kind: ExprKind::Int(1),
                    pos: opos,
                });
                let bop = if op == "++" { BinOp::Add } else { BinOp::Sub };
                Expr {
                    kind: ExprKind::Binary(bop, var(), one),
                    pos: opos,
                }
            }
        };
        out.push(Stmt {
            kind: StmtKind::Assign {
                name: name.clone(),
                value,
            },
            pos,
        });
        Ok(())
    }

    fn expr(&mut self) -> R<Expr> {
        let c = self.binary(0)?;
        if self.is("?") {
            let pos = self.bump().pos;
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            return Ok(Expr {
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                pos,
            });
        }
        Ok(c)
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Tok::Punct(p) = self.peek() else {
            return None;
        };
        Some(match *p {
            "||" => (BinOp::Or, 1),
            "&&" => (BinOp::And, 2),
            "==" => (BinOp::Eq, 3),
            "!=" => (BinOp::Ne, 3),
            "<" => (BinOp::Lt, 4),
            "<=" => (BinOp::Le, 4),
            ">" => (BinOp::Gt, 4),
            ">=" => (BinOp::Ge, 4),
            "+" => (BinOp::Add, 5),
            "-" => (BinOp::Sub, 5),
            "*" => (BinOp::Mul, 6),
            "/" => (BinOp::Div, 6),
            "%" => (BinOp::Rem, 6),
            _ => return None,
        })
    }

    /// Precedence climbing over the left-associative binary operators.
    fn binary(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec <= min {
                break;
            }
            let pos = self.bump().pos;
            let rhs = self.binary(prec)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                pos,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        let pos = self.pos();
        if self.eat("!") {
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(e)),
                pos,
            });
        }
        if self.eat("-") {
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Neg(Box::new(e)),
                pos,
            });
        }
        self.postfix()
    }

    fn args(&mut self) -> R<Vec<Expr>> {
        self.expect("(")?;
        let mut args = Vec::new();
        while !self.is(")") {
            if !args.is_empty() {
                self.expect(",")?;
            }
            args.push(self.expr()?);
        }
        self.expect(")")?;
        Ok(args)
    }

    fn postfix(&mut self) -> R<Expr> {
        let mut e = self.primary()?;
        while self.is(".") {
            self.bump();
            let (name, pos) = self.ident("a method name")?;
            if !self.is("(") {
                if matches!(e.kind, ExprKind::This) {
                    e = Expr {
                        kind: ExprKind::Var(name),
                        pos,
                    };
                    continue;
                }
                return Err(SyntaxError::new(
                    pos,
                    format!("field access `.{name}` is not supported (only `this.{name}`)"),
                ));
            }
            let args = self.args()?;
            e = if name == "equals" && args.len() == 1 {
                let arg = args.into_iter().next().expect("one argument");
                Expr {
                    kind: ExprKind::Equals(Box::new(e), Box::new(arg)),
                    pos,
                }
            } else {
                Expr {
                    kind: ExprKind::Call {
                        recv: Box::new(e),
                        name,
                        args,
                    },
                    pos,
                }
            };
        }
        Ok(e)
    }

    fn primary(&mut self) -> R<Expr> {
        let pos = self.pos();
        let kind = match self.peek().clone() {
            Tok::Int(n) => {
                self.bump();
                ExprKind::Int(n)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            Tok::Ident(w) => match w.as_str() {
                "null" => {
                    self.bump();
                    ExprKind::Null
                }
                "true" | "false" => {
                    self.bump();
                    ExprKind::Bool(w == "true")
                }
                "this" => {
                    self.bump();
                    ExprKind::This
                }
                "new" => {
                    self.bump();
                    let class = self.ty()?;
                    let args = self.args()?;
                    ExprKind::New { class, args }
                }
                _ if KEYWORDS.contains(&w.as_str()) => {
                    return Err(SyntaxError::new(
                        pos,
                        format!("expected an expression, found `{w}`"),
                    ))
                }
                _ => {
                    self.bump();
                    if self.is("(") {
                        // An unqualified call: a base method of the enclosing map (Fig. 5).
                        let args = self.args()?;
                        ExprKind::Call {
                            recv: Box::new(Expr {
                                kind: ExprKind::This,
                                pos,
                            }),
                            name: w,
                            args,
                        }
                    } else {
                        ExprKind::Var(w)
                    }
                }
            },
            _ => {
                return Err(SyntaxError::new(
                    pos,
                    format!("expected an expression, found {}", self.describe()),
                ))
            }
        };
        Ok(Expr { kind, pos })
    }
}

/// Names visible in one operation.
struct Scope<'a> {
    locals: HashSet<String>,
    fields: &'a [Field],
}

impl Scope<'_> {
    fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
    fn is_map(&self, name: &str) -> bool {
        if self.locals.contains(name) {
            return false;
        }
        match self.field(name) {
            Some(f) => f.is_map(),
            // An undeclared receiver of a map method is a map: `m.get(k)` needs no declaration.
            None => true,
        }
    }
}

fn collect_locals(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Decl { name, .. } => {
                out.insert(name.clone());
            }
            StmtKind::If { then, els, .. } => {
                collect_locals(then, out);
                collect_locals(els, out);
            }
            StmtKind::Loop { body, update, .. } => {
                collect_locals(body, out);
                collect_locals(update, out);
            }
            StmtKind::Block(b) => collect_locals(b, out),
            _ => {}
        }
    }
}

fn resolve_stmts(stmts: &mut [Stmt], scope: &Scope) -> R<()> {
    resolve_in(stmts, scope, 0)
}

fn resolve_in(stmts: &mut [Stmt], scope: &Scope, loops: usize) -> R<()> {
    let resolve_stmts = |s: &mut [Stmt], scope: &Scope| resolve_in(s, scope, loops);
    for s in stmts {
        match &mut s.kind {
            StmtKind::Decl { init, .. } => {
                if let Some(e) = init {
                    resolve_expr(e, scope)?;
                }
            }
            StmtKind::Assign { name, value } => {
                if !scope.locals.contains(name.as_str()) {
                    match scope.field(name) {
                        Some(f) if f.is_final => {
                            return Err(SyntaxError::new(
                                s.pos,
                                format!("cannot assign to the final field `{name}`"),
                            ))
                        }
                        Some(_) => {}
                        None => {
                            return Err(SyntaxError::new(
                                s.pos,
                                format!("unknown variable `{name}` (declare it, or declare a global as a field)"),
                            ))
                        }
                    }
                }
                resolve_expr(value, scope)?;
            }
            StmtKind::Expr(e) | StmtKind::Throw(e) => resolve_expr(e, scope)?,
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    resolve_expr(e, scope)?;
                }
            }
            StmtKind::If { cond, then, els } => {
                resolve_expr(cond, scope)?;
                resolve_stmts(then, scope)?;
                resolve_stmts(els, scope)?;
            }
            StmtKind::Loop { cond, body, update } => {
                if let Some(c) = cond {
                    resolve_expr(c, scope)?;
                }
                resolve_in(body, scope, loops + 1)?;
                resolve_in(update, scope, loops + 1)?;
            }
            StmtKind::Block(b) => resolve_stmts(b, scope)?,
            StmtKind::Break | StmtKind::Continue => {
                if loops == 0 {
                    return Err(SyntaxError::new(
                        s.pos,
                        "`break` or `continue` outside a loop",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn resolve_expr(e: &mut Expr, scope: &Scope) -> R<()> {
    let pos = e.pos;
    match &mut e.kind {
        ExprKind::Null | ExprKind::Bool(_) | ExprKind::Int(_) | ExprKind::Str(_) => {}
        ExprKind::This => {}
        ExprKind::Var(name) => {
            if !scope.locals.contains(name.as_str()) {
                match scope.field(name) {
                    Some(f) if f.is_map() => {
                        return Err(SyntaxError::new(
                            pos,
                            format!("the map `{name}` can only be used through its methods"),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        return Err(SyntaxError::new(
                            pos,
                            format!(
                                "unknown name `{name}` (declare globals and constants as fields)"
                            ),
                        ))
                    }
                }
            }
        }
        ExprKind::Not(a) | ExprKind::Neg(a) => resolve_expr(a, scope)?,
        ExprKind::Binary(_, a, b) | ExprKind::Equals(a, b) => {
            resolve_expr(a, scope)?;
            resolve_expr(b, scope)?;
        }
        ExprKind::Cond(a, b, c) => {
            resolve_expr(a, scope)?;
            resolve_expr(b, scope)?;
            resolve_expr(c, scope)?;
        }
        ExprKind::MapCall { args, .. } | ExprKind::New { args, .. } => {
            for a in args {
                resolve_expr(a, scope)?;
            }
        }
        ExprKind::Call { recv, name, args } => {
            for a in args.iter_mut() {
                resolve_expr(a, scope)?;
            }
            let map = match &recv.kind {
                ExprKind::This => Some(THIS_MAP.to_owned()),
                ExprKind::Var(m) if MapMethod::is_name(name) && scope.is_map(m) => Some(m.clone()),
                _ => None,
            };
            if let Some(map) = map {
                let Some(method) = MapMethod::from_name(name, args.len()) else {
                    return Err(SyntaxError::new(
                        pos,
                        if MapMethod::is_name(name) {
                            format!(
                                "`{name}` with {} argument(s) is not a map method",
                                args.len()
                            )
                        } else {
                            format!("unknown function `{name}` (calls need a receiver, except the map methods of the enclosing map)")
                        },
                    ));
                };
                let args = std::mem::take(args);
                e.kind = ExprKind::MapCall { map, method, args };
            } else {
                resolve_expr(recv, scope)?;
            }
        }
    }
    Ok(())
}

/// Parses a file of composed operations; names are resolved and checked.
pub fn parse(src: &str) -> Result<Program, SyntaxError> {
    let toks = lex(src)?;
    let mut p = Parser { toks, at: 0 };
    let mut program = p.program()?;
    let mut seen = HashSet::new();
    for f in &program.fields {
        if !seen.insert(f.name.clone()) {
            return Err(SyntaxError::new(
                f.pos,
                format!("the field `{}` is declared twice", f.name),
            ));
        }
    }
    for f in &mut program.fields {
        if let Some(init) = &mut f.init {
            let scope = Scope {
                locals: HashSet::new(),
                fields: &[],
            };
            resolve_expr(init, &scope).map_err(|e| {
                SyntaxError::new(
                    e.pos,
                    format!("{} (field initializers may only use constants)", e.message),
                )
            })?;
        }
    }
    let fields = program.fields.clone();
    let mut names = HashSet::new();
    for op in &mut program.operations {
        if !names.insert(op.name.clone()) {
            return Err(SyntaxError::new(
                op.pos,
                format!("the operation `{}` is defined twice", op.name),
            ));
        }
        let mut locals: HashSet<String> = HashSet::new();
        for p in &op.params {
            if !locals.insert(p.name.clone()) {
                return Err(SyntaxError::new(
                    p.pos,
                    format!("the parameter `{}` is declared twice", p.name),
                ));
            }
        }
        collect_locals(&op.body, &mut locals);
        let scope = Scope {
            locals,
            fields: &fields,
        };
        resolve_stmts(&mut op.body, &scope)?;
    }
    if program.operations.is_empty() {
        return Err(SyntaxError::new(p.pos(), "the file defines no operation"));
    }
    Ok(program)
}
