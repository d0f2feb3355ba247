//! The small imperative language of MoTH's symbolic execution (PADTAD'11, Fig. 3): local
//! assignment, heap read `x := y.f`, heap write `x.f := e`, sequence, procedure call, `if`,
//! `while`, `skip`; plus what a test program needs: class and field declarations, global
//! objects, procedures and blocks marked `atomic`, thread entry points, and `native`
//! (unknown) procedures with optional `reads(...)`/`writes(...)` annotations.
//!
//! ```text
//! class Coord { x; y; }
//! global coord: Coord;
//! proc swap(c: Coord) { atomic { old := c.x; c.x := c.y; c.y := old; } }
//! proc reset(c: Coord) { atomic { c.x := 0; } atomic { c.y := 0; } }
//! native proc Coord.hash() reads(this);
//! thread T1 { swap(coord); }
//! thread T2 { reset(coord); }
//! ```
//!
//! This module owns the syntax (lexer, AST, parser); its errors are [`SyntaxError`]s at a line
//! and column. Blocks, expressions and prefix operators nest at most
//! [`MAX_NESTING`](hindsight_syntax::MAX_NESTING) deep. What the syntax means for views is
//! `symbolic.rs`'s business.

mod lexer;
mod parser;

pub use hindsight_syntax::{Pos, SyntaxError};
pub use parser::parse;

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub pos: Pos,
}

/// `int` or a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Int,
    Class(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: Ident,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    pub name: Ident,
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: Ident,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    pub name: Ident,
    pub atomic: bool,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
}

/// What an annotation of a native procedure names: `this`, a parameter (all fields of its
/// object), or one field of either.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub base: Ident,
    pub field: Option<Ident>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Native {
    /// The class of the receiver, for `native proc C.m(...)`.
    pub class: Option<Ident>,
    pub name: Ident,
    pub params: Vec<Param>,
    /// `None` when the procedure has no annotation at all.
    pub reads: Option<Vec<Target>>,
    pub writes: Option<Vec<Target>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: Ident,
    pub class: Ident,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub names: Vec<Ident>,
    pub body: Vec<Stmt>,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub receiver: Option<Box<Expr>>,
    pub name: Ident,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Int(i64),
    Null,
    Var(Ident),
    /// `e.f`: a heap read.
    Field(Box<Expr>, Ident),
    Binary(Box<Expr>, BinOp, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Call(Call),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Skip,
    /// `var x: T;`
    Var(Ident, Type),
    /// `x := e` (target a variable) or `e.f := e` (target a field: a heap write).
    Assign(Expr, Expr),
    Call(Call),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    Atomic(Vec<Stmt>, Pos),
    /// Only as the last statement of a procedure.
    Return(Option<Expr>),
}

/// A whole program, items in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub classes: Vec<Class>,
    pub globals: Vec<Global>,
    pub procs: Vec<Proc>,
    pub natives: Vec<Native>,
    pub threads: Vec<Thread>,
}
