//! Recursive-descent parser of the views language (grammar in `mod.rs`'s example and docs/views.md).

use super::lexer::lex;
use super::*;
use hindsight_syntax::{Cursor, Token};

struct Parser {
    c: Cursor,
}

const KEYWORDS: &[&str] = &[
    "class", "global", "proc", "atomic", "native", "thread", "reads", "writes", "if", "else",
    "while", "skip", "var", "return", "null", "true", "false", "int",
];

/// Parses a program; the first error stops.
pub fn parse(src: &str) -> Result<Program, SyntaxError> {
    let mut p = Parser {
        c: Cursor::new(lex(src)?, describe),
    };
    let mut prog = Program::default();
    loop {
        let pos = p.c.pos();
        match p.c.peek().clone() {
            Token::End => break,
            Token::Ident(k) => match k.as_str() {
                "class" => prog.classes.push(p.class()?),
                "global" => prog.globals.push(p.global()?),
                "atomic" | "proc" => prog.procs.push(p.proc()?),
                "native" => prog.natives.push(p.native()?),
                "thread" => prog.threads.push(p.thread()?),
                _ => {
                    return Err(SyntaxError::new(
                        pos,
                        format!("expected `class`, `global`, `proc`, `atomic proc`, `native proc` or `thread`, found `{k}`"),
                    ))
                }
            },
            _ => return Err(p.c.expected("a declaration")),
        }
    }
    Ok(prog)
}

fn describe(t: &Token) -> String {
    match t {
        Token::End => "the end of the file".into(),
        t => t.to_string(),
    }
}

impl Parser {
    /// A name that is not a keyword (`this` is allowed: annotations and receivers use it).
    fn ident(&mut self, what: &str) -> Result<Ident, SyntaxError> {
        let (name, pos) = self.c.ident(what, KEYWORDS)?;
        Ok(Ident { name, pos })
    }
    fn ty(&mut self) -> Result<Type, SyntaxError> {
        if self.c.is_word("int") {
            self.c.bump();
            return Ok(Type::Int);
        }
        Ok(Type::Class(self.ident("a type (`int` or a class)")?.name))
    }

    fn class(&mut self) -> Result<Class, SyntaxError> {
        self.c.expect_word("class")?;
        let name = self.ident("a class name")?;
        self.c.expect("{")?;
        let mut fields = Vec::new();
        while !self.c.is("}") {
            let f = self.ident("a field name")?;
            let ty = if self.c.eat(":") {
                self.ty()?
            } else {
                Type::Int
            };
            if !self.c.eat(";") && !self.c.eat(",") && !self.c.is("}") {
                return Err(self.c.expected("`;` after field"));
            }
            fields.push(Field { name: f, ty });
        }
        self.c.expect("}")?;
        Ok(Class { name, fields })
    }

    fn global(&mut self) -> Result<Global, SyntaxError> {
        self.c.expect_word("global")?;
        let name = self.ident("a global name")?;
        self.c.expect(":")?;
        let class = self.ident("a class name")?;
        self.c.expect(";")?;
        Ok(Global { name, class })
    }

    fn params(&mut self) -> Result<Vec<Param>, SyntaxError> {
        self.c.expect("(")?;
        let mut params = Vec::new();
        if !self.c.is(")") {
            loop {
                let name = self.ident("a parameter name")?;
                let ty = if self.c.eat(":") {
                    self.ty()?
                } else {
                    Type::Int
                };
                params.push(Param { name, ty });
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        self.c.expect(")")?;
        Ok(params)
    }

    fn proc(&mut self) -> Result<Proc, SyntaxError> {
        let atomic = self.c.is_word("atomic");
        if atomic {
            self.c.bump();
        }
        self.c.expect_word("proc")?;
        let name = self.ident("a procedure name")?;
        let params = self.params()?;
        let body = self.block()?;
        if let Some(i) = body.iter().position(|s| matches!(s, Stmt::Return(_))) {
            if i + 1 != body.len() {
                return Err(SyntaxError::new(
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

    fn native(&mut self) -> Result<Native, SyntaxError> {
        self.c.expect_word("native")?;
        self.c.expect_word("proc")?;
        let first = self.ident("a procedure name")?;
        let (class, name) = if self.c.eat(".") {
            (Some(first), self.ident("a method name")?)
        } else {
            (None, first)
        };
        let params = self.params()?;
        let (mut reads, mut writes) = (None, None);
        loop {
            let which = if self.c.is_word("reads") {
                &mut reads
            } else if self.c.is_word("writes") {
                &mut writes
            } else {
                break;
            };
            let pos = self.c.pos();
            if which.is_some() {
                return Err(SyntaxError::new(pos, "annotation given twice"));
            }
            self.c.bump();
            self.c.expect("(")?;
            let mut targets = Vec::new();
            if !self.c.is(")") {
                loop {
                    let base = self.ident("`this` or a parameter")?;
                    let field = if self.c.eat(".") {
                        Some(self.ident("a field name")?)
                    } else {
                        None
                    };
                    targets.push(Target { base, field });
                    if !self.c.eat(",") {
                        break;
                    }
                }
            }
            self.c.expect(")")?;
            *which = Some(targets);
        }
        self.c.expect(";")?;
        Ok(Native {
            class,
            name,
            params,
            reads,
            writes,
        })
    }

    fn thread(&mut self) -> Result<Thread, SyntaxError> {
        let pos = self.c.expect_word("thread")?;
        let mut names = vec![self.ident("a thread name")?];
        while self.c.eat(",") {
            names.push(self.ident("a thread name")?);
        }
        let body = self.block()?;
        if body.iter().any(|s| matches!(s, Stmt::Return(_))) {
            return Err(SyntaxError::new(pos, "a thread body cannot `return`"));
        }
        Ok(Thread { names, body, pos })
    }

    fn block(&mut self) -> Result<Vec<Stmt>, SyntaxError> {
        self.c.expect("{")?;
        self.c.enter()?;
        let mut out = Vec::new();
        while !self.c.is("}") {
            if self.c.at_end() {
                return Err(SyntaxError::new(self.c.pos(), "unclosed `{`"));
            }
            let pos = self.c.pos();
            let s = self.stmt()?;
            if matches!(out.last(), Some(Stmt::Return(_))) {
                return Err(SyntaxError::new(pos, "statement after `return`"));
            }
            out.push(s);
        }
        self.c.expect("}")?;
        self.c.leave();
        Ok(out)
    }

    fn stmt(&mut self) -> Result<Stmt, SyntaxError> {
        let pos = self.c.pos();
        if self.c.is_word("skip") {
            self.c.bump();
            self.c.expect(";")?;
            return Ok(Stmt::Skip);
        }
        if self.c.is_word("atomic") {
            self.c.bump();
            return Ok(Stmt::Atomic(self.block()?, pos));
        }
        if self.c.is_word("if") {
            return self.if_stmt();
        }
        if self.c.is_word("while") {
            self.c.bump();
            let c = self.expr()?;
            let body = self.block()?;
            return Ok(Stmt::While(c, body));
        }
        if self.c.is_word("var") {
            self.c.bump();
            let name = self.ident("a variable name")?;
            self.c.expect(":")?;
            let ty = self.ty()?;
            self.c.expect(";")?;
            return Ok(Stmt::Var(name, ty));
        }
        if self.c.is_word("return") {
            self.c.bump();
            let e = if self.c.is(";") {
                None
            } else {
                Some(self.expr()?)
            };
            self.c.expect(";")?;
            return Ok(Stmt::Return(e));
        }
        let target = self.postfix()?;
        if self.c.eat(":=") {
            if !matches!(target, Expr::Var(_) | Expr::Field(..)) {
                return Err(SyntaxError::new(
                    pos,
                    "only a variable or a field can be assigned",
                ));
            }
            let value = self.expr()?;
            self.c.expect(";")?;
            return Ok(Stmt::Assign(target, value));
        }
        match target {
            Expr::Call(c) => {
                self.c.expect(";")?;
                Ok(Stmt::Call(c))
            }
            _ => Err(self.c.expected("`:=` or a call")),
        }
    }

    fn if_stmt(&mut self) -> Result<Stmt, SyntaxError> {
        self.c.expect_word("if")?;
        let c = self.expr()?;
        let then = self.block()?;
        let otherwise = if self.c.is_word("else") {
            self.c.bump();
            if self.c.is_word("if") {
                vec![self.if_stmt()?]
            } else {
                self.block()?
            }
        } else {
            Vec::new()
        };
        Ok(Stmt::If(c, then, otherwise))
    }

    fn expr(&mut self) -> Result<Expr, SyntaxError> {
        self.c.enter()?;
        let e = self.binary(0)?;
        self.c.leave();
        Ok(e)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, SyntaxError> {
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
                if self.c.eat(p) {
                    let right = self.binary(level + 1)?;
                    left = Expr::Binary(Box::new(left), op, Box::new(right));
                    continue 'outer;
                }
            }
            return Ok(left);
        }
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        if self.c.eat("!") {
            return Ok(Expr::Not(self.operand()?));
        }
        if self.c.eat("-") {
            return Ok(Expr::Neg(self.operand()?));
        }
        self.postfix()
    }

    /// The operand of a prefix operator, one level deeper.
    fn operand(&mut self) -> Result<Box<Expr>, SyntaxError> {
        self.c.enter()?;
        let e = self.unary()?;
        self.c.leave();
        Ok(Box::new(e))
    }

    fn args(&mut self) -> Result<Vec<Expr>, SyntaxError> {
        self.c.expect("(")?;
        let mut args = Vec::new();
        if !self.c.is(")") {
            loop {
                args.push(self.expr()?);
                if !self.c.eat(",") {
                    break;
                }
            }
        }
        self.c.expect(")")?;
        Ok(args)
    }

    fn postfix(&mut self) -> Result<Expr, SyntaxError> {
        let mut e = match self.c.peek().clone() {
            Token::Int(n) => {
                self.c.bump();
                Expr::Int(n)
            }
            Token::Punct("(") => {
                self.c.bump();
                let e = self.expr()?;
                self.c.expect(")")?;
                e
            }
            Token::Ident(k) if k == "null" => {
                self.c.bump();
                Expr::Null
            }
            Token::Ident(k) if k == "true" || k == "false" => {
                self.c.bump();
                Expr::Int(i64::from(k == "true"))
            }
            _ => {
                let name = self.ident("an expression")?;
                if matches!(self.c.peek(), Token::Punct("(")) {
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
        while self.c.eat(".") {
            let f = self.ident("a field or method name")?;
            if matches!(self.c.peek(), Token::Punct("(")) {
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

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for deep in [
            format!("thread T {{ x := {}1; }}", "(".repeat(100_000)),
            format!("thread T {{ x := {}1; }}", "-".repeat(100_000)),
            format!("thread T {{ x := f({}); }}", "f(".repeat(100_000)),
            format!("thread T {{ {} }}", "atomic { ".repeat(100_000)),
        ] {
            let e = parse(&deep).unwrap_err();
            assert_eq!(e.message, "nested more than 128 deep", "{e}");
        }
        let nested = format!(
            "thread T {{ x := {}1{}; }}",
            "(".repeat(100),
            ")".repeat(100)
        );
        assert!(parse(&nested).is_ok());
    }
}
