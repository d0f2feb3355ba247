//! Recursive-descent parser of the views language (grammar in `mod.rs`'s example and the README).

use super::lexer::{lex, Tok};
use super::*;

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
}

const KEYWORDS: &[&str] = &[
    "class", "global", "proc", "atomic", "native", "thread", "reads", "writes", "if", "else",
    "while", "skip", "var", "return", "null", "true", "false", "int",
];

/// Parses a program; the first error stops.
pub fn parse(src: &str) -> Result<Program, LangError> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
    };
    let mut prog = Program::default();
    loop {
        let pos = p.pos();
        match p.peek().clone() {
            Tok::Eof => break,
            Tok::Ident(k) => match k.as_str() {
                "class" => prog.classes.push(p.class()?),
                "global" => prog.globals.push(p.global()?),
                "atomic" | "proc" => prog.procs.push(p.proc()?),
                "native" => prog.natives.push(p.native()?),
                "thread" => prog.threads.push(p.thread()?),
                _ => {
                    return Err(LangError::new(
                        pos,
                        format!("expected `class`, `global`, `proc`, `atomic proc`, `native proc` or `thread`, found `{k}`"),
                    ))
                }
            },
            t => {
                return Err(LangError::new(
                    pos,
                    format!(
                        "expected a declaration, found {}",
                        describe(&t)
                    ),
                ))
            }
        }
    }
    Ok(prog)
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(n) => format!("`{n}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Eof => "the end of the file".into(),
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }
    fn pos(&self) -> Pos {
        self.toks[self.at].1
    }
    fn bump(&mut self) -> (Tok, Pos) {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> Result<Pos, LangError> {
        let pos = self.pos();
        if self.eat(p) {
            Ok(pos)
        } else {
            Err(LangError::new(
                pos,
                format!("expected `{p}`, found {}", describe(self.peek())),
            ))
        }
    }
    fn expect_kw(&mut self, k: &str) -> Result<Pos, LangError> {
        let pos = self.pos();
        if self.is_kw(k) {
            self.bump();
            Ok(pos)
        } else {
            Err(LangError::new(
                pos,
                format!("expected `{k}`, found {}", describe(self.peek())),
            ))
        }
    }
    /// A name that is not a keyword (`this` is allowed: annotations and receivers use it).
    fn ident(&mut self, what: &str) -> Result<Ident, LangError> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.bump();
                Ok(Ident { name: s, pos })
            }
            t => Err(LangError::new(
                pos,
                format!("expected {what}, found {}", describe(&t)),
            )),
        }
    }
    fn ty(&mut self) -> Result<Type, LangError> {
        if self.is_kw("int") {
            self.bump();
            return Ok(Type::Int);
        }
        Ok(Type::Class(self.ident("a type (`int` or a class)")?.name))
    }

    fn class(&mut self) -> Result<Class, LangError> {
        self.expect_kw("class")?;
        let name = self.ident("a class name")?;
        self.expect("{")?;
        let mut fields = Vec::new();
        while !self.is("}") {
            let f = self.ident("a field name")?;
            let ty = if self.eat(":") { self.ty()? } else { Type::Int };
            if !self.eat(";") && !self.eat(",") && !self.is("}") {
                return Err(LangError::new(
                    self.pos(),
                    format!("expected `;` after field, found {}", describe(self.peek())),
                ));
            }
            fields.push(Field { name: f, ty });
        }
        self.expect("}")?;
        Ok(Class { name, fields })
    }

    fn global(&mut self) -> Result<Global, LangError> {
        self.expect_kw("global")?;
        let name = self.ident("a global name")?;
        self.expect(":")?;
        let class = self.ident("a class name")?;
        self.expect(";")?;
        Ok(Global { name, class })
    }

    fn params(&mut self) -> Result<Vec<Param>, LangError> {
        self.expect("(")?;
        let mut params = Vec::new();
        if !self.is(")") {
            loop {
                let name = self.ident("a parameter name")?;
                let ty = if self.eat(":") { self.ty()? } else { Type::Int };
                params.push(Param { name, ty });
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        Ok(params)
    }

    fn proc(&mut self) -> Result<Proc, LangError> {
        let atomic = self.is_kw("atomic");
        if atomic {
            self.bump();
        }
        self.expect_kw("proc")?;
        let name = self.ident("a procedure name")?;
        let params = self.params()?;
        let body = self.block()?;
        if let Some(i) = body.iter().position(|s| matches!(s, Stmt::Return(_))) {
            if i + 1 != body.len() {
                return Err(LangError::new(
                    name.pos,
                    format!("`return` must be the last statement of `{}`", name.name),
                ));
            }
        }
        Ok(Proc {
            name,
            atomic,
            params,
            body,
        })
    }

    fn native(&mut self) -> Result<Native, LangError> {
        self.expect_kw("native")?;
        self.expect_kw("proc")?;
        let first = self.ident("a procedure name")?;
        let (class, name) = if self.eat(".") {
            (Some(first), self.ident("a method name")?)
        } else {
            (None, first)
        };
        let params = self.params()?;
        let (mut reads, mut writes) = (None, None);
        loop {
            let which = if self.is_kw("reads") {
                &mut reads
            } else if self.is_kw("writes") {
                &mut writes
            } else {
                break;
            };
            let pos = self.pos();
            if which.is_some() {
                return Err(LangError::new(pos, "annotation given twice"));
            }
            self.bump();
            self.expect("(")?;
            let mut targets = Vec::new();
            if !self.is(")") {
                loop {
                    let base = self.ident("`this` or a parameter")?;
                    let field = if self.eat(".") {
                        Some(self.ident("a field name")?)
                    } else {
                        None
                    };
                    targets.push(Target { base, field });
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect(")")?;
            *which = Some(targets);
        }
        self.expect(";")?;
        Ok(Native {
            class,
            name,
            params,
            reads,
            writes,
        })
    }

    fn thread(&mut self) -> Result<Thread, LangError> {
        let pos = self.expect_kw("thread")?;
        let mut names = vec![self.ident("a thread name")?];
        while self.eat(",") {
            names.push(self.ident("a thread name")?);
        }
        let body = self.block()?;
        if body.iter().any(|s| matches!(s, Stmt::Return(_))) {
            return Err(LangError::new(pos, "a thread body cannot `return`"));
        }
        Ok(Thread { names, body, pos })
    }

    fn block(&mut self) -> Result<Vec<Stmt>, LangError> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.is("}") {
            if matches!(self.peek(), Tok::Eof) {
                return Err(LangError::new(self.pos(), "unclosed `{`"));
            }
            let pos = self.pos();
            let s = self.stmt()?;
            if matches!(out.last(), Some(Stmt::Return(_))) {
                return Err(LangError::new(pos, "statement after `return`"));
            }
            out.push(s);
        }
        self.expect("}")?;
        Ok(out)
    }

    fn stmt(&mut self) -> Result<Stmt, LangError> {
        let pos = self.pos();
        if self.is_kw("skip") {
            self.bump();
            self.expect(";")?;
            return Ok(Stmt::Skip);
        }
        if self.is_kw("atomic") {
            self.bump();
            return Ok(Stmt::Atomic(self.block()?, pos));
        }
        if self.is_kw("if") {
            return self.if_stmt();
        }
        if self.is_kw("while") {
            self.bump();
            let c = self.expr()?;
            let body = self.block()?;
            return Ok(Stmt::While(c, body));
        }
        if self.is_kw("var") {
            self.bump();
            let name = self.ident("a variable name")?;
            self.expect(":")?;
            let ty = self.ty()?;
            self.expect(";")?;
            return Ok(Stmt::Var(name, ty));
        }
        if self.is_kw("return") {
            self.bump();
            let e = if self.is(";") {
                None
            } else {
                Some(self.expr()?)
            };
            self.expect(";")?;
            return Ok(Stmt::Return(e));
        }
        let target = self.postfix()?;
        if self.eat(":=") {
            if !matches!(target, Expr::Var(_) | Expr::Field(..)) {
                return Err(LangError::new(
                    pos,
                    "only a variable or a field can be assigned",
                ));
            }
            let value = self.expr()?;
            self.expect(";")?;
            return Ok(Stmt::Assign(target, value));
        }
        match target {
            Expr::Call(c) => {
                self.expect(";")?;
                Ok(Stmt::Call(c))
            }
            _ => Err(LangError::new(
                self.pos(),
                format!("expected `:=` or a call, found {}", describe(self.peek())),
            )),
        }
    }

    fn if_stmt(&mut self) -> Result<Stmt, LangError> {
        self.expect_kw("if")?;
        let c = self.expr()?;
        let then = self.block()?;
        let otherwise = if self.is_kw("else") {
            self.bump();
            if self.is_kw("if") {
                vec![self.if_stmt()?]
            } else {
                self.block()?
            }
        } else {
            Vec::new()
        };
        Ok(Stmt::If(c, then, otherwise))
    }

    fn expr(&mut self) -> Result<Expr, LangError> {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, LangError> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("||", BinOp::Or)],
            &[("&&", BinOp::And)],
            &[
                ("==", BinOp::Eq),
                ("!=", BinOp::Ne),
                ("<=", BinOp::Le),
                (">=", BinOp::Ge),
                ("<", BinOp::Lt),
                (">", BinOp::Gt),
            ],
            &[("+", BinOp::Add), ("-", BinOp::Sub)],
            &[("*", BinOp::Mul), ("/", BinOp::Div), ("%", BinOp::Mod)],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        'outer: loop {
            for &(p, op) in LEVELS[level] {
                if self.eat(p) {
                    let right = self.binary(level + 1)?;
                    left = Expr::Binary(Box::new(left), op, Box::new(right));
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn unary(&mut self) -> Result<Expr, LangError> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.postfix()
    }

    fn args(&mut self) -> Result<Vec<Expr>, LangError> {
        self.expect("(")?;
        let mut args = Vec::new();
        if !self.is(")") {
            loop {
                args.push(self.expr()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        Ok(args)
    }

    fn postfix(&mut self) -> Result<Expr, LangError> {
        let mut e = match self.peek().clone() {
            Tok::Int(n) => {
                self.bump();
                Expr::Int(n)
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect(")")?;
                e
            }
            Tok::Ident(k) if k == "null" => {
                self.bump();
                Expr::Null
            }
            Tok::Ident(k) if k == "true" || k == "false" => {
                self.bump();
                Expr::Int(i64::from(k == "true"))
            }
            _ => {
                let name = self.ident("an expression")?;
                if matches!(self.peek(), Tok::Punct("(")) {
                    Expr::Call(Call {
                        receiver: None,
                        name,
                        args: self.args()?,
                    })
                } else {
                    Expr::Var(name)
                }
            }
        };
        while self.eat(".") {
            let f = self.ident("a field or method name")?;
            if matches!(self.peek(), Tok::Punct("(")) {
                e = Expr::Call(Call {
                    receiver: Some(Box::new(e)),
                    name: f,
                    args: self.args()?,
                });
            } else {
                e = Expr::Field(Box::new(e), f);
            }
        }
        Ok(e)
    }
}
