//! A recursive-descent parser for composed operations written close to the Java the paper
//! quotes (VINE, ISSTA'14, Figs. 1-12): fields (maps and globals), then methods with
//! parameters, locals, `m.get(k)` and the other base map methods, `new T(..)`, arithmetic,
//! comparisons, `.equals(..)`, `if`/`else`, `while`, `for (;;)`, `break`, `continue`, `return`,
//! `throw`. Modifiers, generic types, annotations, `throws` clauses, `package`/`import` lines
//! and enclosing `class X { .. }` blocks are accepted and ignored so code can be pasted.
//!
//! It owns syntax and name resolution (which receiver is a map, which names exist); errors
//! carry line and column. Classes, statements, expressions, prefix operators and type arguments
//! nest at most [`MAX_NESTING`](hindsight_syntax::MAX_NESTING) deep. It knows nothing of classes
//! (SCM, VCM, FCM) or verification.

use super::ast::*;
use super::lexer::lex;
use super::SyntaxError;
use hindsight_syntax::{Cursor, Token};
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
    c: Cursor,
}

type R<T> = Result<T, SyntaxError>;

fn describe(t: &Token) -> String {
    match t {
        Token::Str(s) => format!("string \"{s}\""),
        Token::End => "end of file".into(),
        t => t.to_string(),
    }
}

impl Parser {
    fn ident(&mut self, what: &str) -> R<(String, Pos)> {
        self.c.ident(what, KEYWORDS)
    }

    fn skip_annotations_and_modifiers(&mut self) -> bool {
        let mut is_final = false;
        loop {
            if self.c.is("@") {
                self.c.bump();
                self.c.bump();
                if self.c.is("(") {
                    self.skip_balanced("(", ")");
                }
                continue;
            }
            match self.c.peek() {
                Token::Ident(s) if MODIFIERS.contains(&s.as_str()) => {
                    is_final |= s == "final";
                    self.c.bump();
                }
                _ => return is_final,
            }
        }
    }

    fn skip_balanced(&mut self, open: &str, close: &str) {
        let mut depth = 0;
        loop {
            if self.c.is(open) {
                depth += 1;
            } else if self.c.is(close) {
                depth -= 1;
                if depth == 0 {
                    self.c.bump();
                    return;
                }
            } else if self.c.at_end() {
                return;
            }
            self.c.bump();
        }
    }

    /// `Name(.Name)*(<args>)?([])*`; returns its text.
    fn ty(&mut self) -> R<String> {
        self.c.enter()?;
        let text = self.ty_inner()?;
        self.c.leave();
        Ok(text)
    }

    fn ty_inner(&mut self) -> R<String> {
        let (mut text, _) = self.ident("a type")?;
        while self.c.is(".") && matches!(self.c.peek_n(1), Token::Ident(_)) {
            self.c.bump();
            text.push('.');
            text.push_str(&self.ident("a type")?.0);
        }
        if self.c.is("<") {
            self.c.bump();
            text.push('<');
            let mut first = true;
            while !self.c.is(">") {
                if !first {
                    self.c.expect(",")?;
                    text.push_str(", ");
                }
                first = false;
                if self.c.eat("?") {
                    text.push('?');
                    if self.c.eat_word("extends") || self.c.eat_word("super") {
                        text.push_str(" extends ");
                        text.push_str(&self.ty()?);
                    }
                } else {
                    text.push_str(&self.ty()?);
                }
            }
            self.c.expect(">")?;
            text.push('>');
        }
        while self.c.is("[") && matches!(self.c.peek_n(1), Token::Punct("]")) {
            self.c.bump();
            self.c.bump();
            text.push_str("[]");
        }
        Ok(text)
    }

    /// Whether a declaration `Type name` starts here (without consuming anything).
    fn at_declaration(&mut self) -> bool {
        let save = self.c.save();
        let is_final = self.c.is_word("final");
        if is_final {
            self.c.bump();
        }
        let ok = match self.c.peek() {
            Token::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.ty().is_ok()
                    && matches!(self.c.peek(), Token::Ident(s) if !KEYWORDS.contains(&s.as_str()))
            }
            _ => false,
        };
        self.c.restore(save);
        ok
    }

    fn program(&mut self) -> R<Program> {
        let mut program = Program::default();
        self.members(&mut program, false)?;
        Ok(program)
    }

    fn members(&mut self, program: &mut Program, in_class: bool) -> R<()> {
        loop {
            if self.c.at_end() {
                if in_class {
                    return Err(SyntaxError::new(
                        self.c.pos(),
                        "expected `}` closing the class",
                    ));
                }
                return Ok(());
            }
            if in_class && self.c.eat("}") {
                return Ok(());
            }
            if self.c.eat(";") {
                continue;
            }
            if self.c.is_word("package") || self.c.is_word("import") {
                while !self.c.is(";") && !self.c.at_end() {
                    self.c.bump();
                }
                self.c.expect(";")?;
                continue;
            }
            let is_final = self.skip_annotations_and_modifiers();
            if self.c.is_word("class") || self.c.is_word("interface") {
                self.c.bump();
                self.ident("a class name")?;
                while !self.c.is("{") && !self.c.at_end() {
                    self.c.bump();
                }
                self.c.expect("{")?;
                self.c.enter()?;
                self.members(program, true)?;
                self.c.leave();
                continue;
            }
            let start = self.c.pos();
            let ty = self.ty()?;
            // A constructor-less method with a generic return type is `<T> T name(..)`: not
            // supported; the common forms are `Type name(..)` and `Type name = ..;`.
            let (name, pos) = self.ident("a field or method name")?;
            if self.c.is("(") {
                program.operations.push(self.operation(name, start)?);
            } else {
                let init = if self.c.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                self.c.expect(";")?;
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
        self.c.expect("(")?;
        let mut params = Vec::new();
        while !self.c.is(")") {
            if !params.is_empty() {
                self.c.expect(",")?;
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
        self.c.expect(")")?;
        if self.c.eat_word("throws") {
            self.ty()?;
            while self.c.eat(",") {
                self.ty()?;
            }
        }
        self.c.expect("{")?;
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
            if self.c.is("}") {
                let line = self.c.bump().line;
                return Ok((out, line));
            }
            if self.c.at_end() {
                return Err(SyntaxError::new(
                    self.c.pos(),
                    "expected `}`, found end of file",
                ));
            }
            self.stmt_into(&mut out)?;
        }
    }

    /// One statement, or the body of a branch/loop (a block or a single statement).
    fn body(&mut self) -> R<Vec<Stmt>> {
        let mut out = Vec::new();
        if self.c.eat("{") {
            out = self.block_rest()?.0;
        } else {
            self.stmt_into(&mut out)?;
        }
        Ok(out)
    }

    /// One statement, appended to `out` (a declaration may append several).
    fn stmt_into(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        self.c.enter()?;
        self.stmt_inner(out)?;
        self.c.leave();
        Ok(())
    }

    fn stmt_inner(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.c.pos();
        let mk = |kind| Stmt { kind, pos };
        if self.c.eat(";") {
            return Ok(());
        }
        if self.c.eat("{") {
            let (b, _) = self.block_rest()?;
            out.push(mk(StmtKind::Block(b)));
            return Ok(());
        }
        if let Token::Ident(w) = self.c.peek().clone() {
            match w.as_str() {
                "if" => {
                    self.c.bump();
                    self.c.expect("(")?;
                    let cond = self.expr()?;
                    self.c.expect(")")?;
                    let then = self.body()?;
                    let els = if self.c.eat_word("else") {
                        self.body()?
                    } else {
                        Vec::new()
                    };
                    out.push(mk(StmtKind::If { cond, then, els }));
                    return Ok(());
                }
                "while" => {
                    self.c.bump();
                    self.c.expect("(")?;
                    let cond = self.expr()?;
                    self.c.expect(")")?;
                    let body = self.body()?;
                    out.push(mk(StmtKind::Loop {
                        cond: Some(cond),
                        body,
                        update: Vec::new(),
                    }));
                    return Ok(());
                }
                "for" => {
                    self.c.bump();
                    self.c.expect("(")?;
                    let mut init = Vec::new();
                    if !self.c.is(";") {
                        self.simple_into(&mut init)?;
                    }
                    self.c.expect(";")?;
                    let cond = if self.c.is(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.c.expect(";")?;
                    let mut update = Vec::new();
                    while !self.c.is(")") {
                        if !update.is_empty() {
                            self.c.expect(",")?;
                        }
                        self.simple_into(&mut update)?;
                    }
                    self.c.expect(")")?;
                    let body = self.body()?;
                    init.push(mk(StmtKind::Loop { cond, body, update }));
                    out.push(mk(StmtKind::Block(init)));
                    return Ok(());
                }
                "break" => {
                    self.c.bump();
                    self.c.expect(";")?;
                    out.push(mk(StmtKind::Break));
                    return Ok(());
                }
                "continue" => {
                    self.c.bump();
                    self.c.expect(";")?;
                    out.push(mk(StmtKind::Continue));
                    return Ok(());
                }
                "return" => {
                    self.c.bump();
                    let value = if self.c.is(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.c.expect(";")?;
                    out.push(mk(StmtKind::Return(value)));
                    return Ok(());
                }
                "throw" => {
                    self.c.bump();
                    let e = self.expr()?;
                    self.c.expect(";")?;
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
        self.c.expect(";")?;
        Ok(())
    }

    /// A declaration, assignment, increment or expression, without the `;`.
    fn simple_into(&mut self, out: &mut Vec<Stmt>) -> R<()> {
        let pos = self.c.pos();
        if self.at_declaration() {
            self.c.eat_word("final");
            self.ty()?;
            loop {
                let (name, npos) = self.ident("a variable name")?;
                let init = if self.c.eat("=") {
                    Some(self.expr()?)
                } else {
                    None
                };
                out.push(Stmt {
                    kind: StmtKind::Decl { name, init },
                    pos: npos,
                });
                if !self.c.eat(",") {
                    return Ok(());
                }
            }
        }
        let target = self.expr()?;
        let op = match self.c.peek() {
            Token::Punct(p @ ("=" | "+=" | "-=" | "++" | "--")) => Some(*p),
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
        let opos = self.c.bump();
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
        self.c.enter()?;
        let mut e = self.binary(0)?;
        if self.c.is("?") {
            let pos = self.c.bump();
            let a = self.expr()?;
            self.c.expect(":")?;
            let b = self.expr()?;
            e = Expr {
                kind: ExprKind::Cond(Box::new(e), Box::new(a), Box::new(b)),
                pos,
            };
        }
        self.c.leave();
        Ok(e)
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Token::Punct(p) = self.c.peek() else {
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
            let pos = self.c.bump();
            let rhs = self.binary(prec)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                pos,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        let pos = self.c.pos();
        if self.c.eat("!") {
            return Ok(Expr {
                kind: ExprKind::Not(self.operand()?),
                pos,
            });
        }
        if self.c.eat("-") {
            return Ok(Expr {
                kind: ExprKind::Neg(self.operand()?),
                pos,
            });
        }
        self.postfix()
    }

    /// The operand of a prefix operator, one level deeper.
    fn operand(&mut self) -> R<Box<Expr>> {
        self.c.enter()?;
        let e = self.unary()?;
        self.c.leave();
        Ok(Box::new(e))
    }

    fn args(&mut self) -> R<Vec<Expr>> {
        self.c.expect("(")?;
        let mut args = Vec::new();
        while !self.c.is(")") {
            if !args.is_empty() {
                self.c.expect(",")?;
            }
            args.push(self.expr()?);
        }
        self.c.expect(")")?;
        Ok(args)
    }

    fn postfix(&mut self) -> R<Expr> {
        let mut e = self.primary()?;
        while self.c.is(".") {
            self.c.bump();
            let (name, pos) = self.ident("a method name")?;
            if !self.c.is("(") {
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
        let pos = self.c.pos();
        let kind = match self.c.peek().clone() {
            Token::Int(n) => {
                self.c.bump();
                ExprKind::Int(n)
            }
            Token::Str(s) => {
                self.c.bump();
                ExprKind::Str(s)
            }
            Token::Punct("(") => {
                self.c.bump();
                let e = self.expr()?;
                self.c.expect(")")?;
                return Ok(e);
            }
            Token::Ident(w) => match w.as_str() {
                "null" => {
                    self.c.bump();
                    ExprKind::Null
                }
                "true" | "false" => {
                    self.c.bump();
                    ExprKind::Bool(w == "true")
                }
                "this" => {
                    self.c.bump();
                    ExprKind::This
                }
                "new" => {
                    self.c.bump();
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
                    self.c.bump();
                    if self.c.is("(") {
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
            _ => return Err(self.c.expected("an expression")),
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
    let mut p = Parser {
        c: Cursor::new(lex(src)?, describe),
    };
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
        return Err(SyntaxError::new(p.c.pos(), "the file defines no operation"));
    }
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let op = |body: &str| {
            format!("ConcurrentHashMap<Integer, Integer> m;\nint op(int k) {{ {body} }}")
        };
        for deep in [
            op(&format!("return {}k;", "(".repeat(100_000))),
            op(&format!("return {}k;", "!".repeat(100_000))),
            op(&format!("return {}k;", "k > 0 ? k : ".repeat(100_000))),
            op(&"{ ".repeat(100_000)),
            op(&"if (k > 0) ".repeat(100_000)),
            format!("{}Integer> m;", "Map<".repeat(100_000)),
            "class A { ".repeat(100_000),
        ] {
            let e = parse(&deep).unwrap_err();
            assert_eq!(e.message, "nested more than 128 deep", "{e}");
        }
        let nested = op(&format!("return {}k{};", "(".repeat(100), ")".repeat(100)));
        assert!(parse(&nested).is_ok());
    }
}
