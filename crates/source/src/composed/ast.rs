//! The syntax tree of a composed-operations file: fields (the map and any globals) and
//! operations written in the small Java-like language of `parser.rs`.
//!
//! It owns only the shape of programs and their source positions; what a program means lives
//! in `ir.rs`, what class it is in `classify.rs`.

pub use hindsight_syntax::Pos;

/// A whole file.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub fields: Vec<Field>,
    pub operations: Vec<Operation>,
}

/// A field declared outside the operations: a map (its type names a `Map`) or a global.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub is_final: bool,
    pub init: Option<Expr>,
    pub pos: Pos,
}

impl Field {
    /// Fields whose type is a map (`ConcurrentHashMap<K, V>`, `ConcurrentMap<..>`, `Map<..>`).
    pub fn is_map(&self) -> bool {
        let base = self.ty.split('<').next().unwrap_or("");
        base.ends_with("Map")
    }
}

/// One composed operation.
#[derive(Clone, Debug)]
pub struct Operation {
    pub name: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub pos: Pos,
    /// The line of the closing brace.
    pub end_line: u32,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `T x = e;` or `T x;`
    Decl {
        name: String,
        init: Option<Expr>,
    },
    /// `x = e;` (also `x += e`, `x++` after desugaring)
    Assign {
        name: String,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `while (c) body` and `for (init; c; update) body` (init is hoisted before the loop by
    /// the parser; `update` runs after the body and on `continue`).
    Loop {
        cond: Option<Expr>,
        body: Vec<Stmt>,
        update: Vec<Stmt>,
    },
    Block(Vec<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Throw(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// The base methods of the concurrent map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapMethod {
    Get,
    Put,
    /// `remove(k)`
    Remove,
    /// `remove(k, v)`: removes only if the key maps to `v`.
    RemoveValue,
    PutIfAbsent,
    /// `replace(k, v)`: replaces only if the key is present.
    Replace,
    /// `replace(k, old, new)`: replaces only if the key maps to `old`.
    ReplaceValue,
    ContainsKey,
    Size,
}

impl MapMethod {
    /// The method of that name taking `arity` arguments.
    pub fn from_name(name: &str, arity: usize) -> Option<MapMethod> {
        Some(match (name, arity) {
            ("get", 1) => MapMethod::Get,
            ("put", 2) => MapMethod::Put,
            ("remove", 1) => MapMethod::Remove,
            ("remove", 2) => MapMethod::RemoveValue,
            ("putIfAbsent", 2) => MapMethod::PutIfAbsent,
            ("replace", 2) => MapMethod::Replace,
            ("replace", 3) => MapMethod::ReplaceValue,
            ("containsKey", 1) => MapMethod::ContainsKey,
            ("size", 0) => MapMethod::Size,
            _ => return None,
        })
    }

    /// Whether some arity of `name` is a map method.
    pub fn is_name(name: &str) -> bool {
        matches!(
            name,
            "get" | "put" | "remove" | "putIfAbsent" | "replace" | "containsKey" | "size"
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            MapMethod::Get => "get",
            MapMethod::Put => "put",
            MapMethod::Remove | MapMethod::RemoveValue => "remove",
            MapMethod::PutIfAbsent => "putIfAbsent",
            MapMethod::Replace | MapMethod::ReplaceValue => "replace",
            MapMethod::ContainsKey => "containsKey",
            MapMethod::Size => "size",
        }
    }

    /// Whether its result is a value held by the map (as opposed to a flag or a count).
    pub fn returns_map_value(self) -> bool {
        matches!(
            self,
            MapMethod::Get
                | MapMethod::Put
                | MapMethod::Remove
                | MapMethod::PutIfAbsent
                | MapMethod::Replace
        )
    }
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Var(String),
    This,
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A base method of a map: `m.get(k)`, or `get(k)` on the enclosing map (`this`).
    MapCall {
        map: String,
        method: MapMethod,
        args: Vec<Expr>,
    },
    /// `a.equals(b)`
    Equals(Box<Expr>, Box<Expr>),
    /// Any other method call `recv.name(args)`.
    Call {
        recv: Box<Expr>,
        name: String,
        args: Vec<Expr>,
    },
    /// `new T(args)`: a fresh object.
    New {
        class: String,
        args: Vec<Expr>,
    },
}

/// The name of the map an unqualified `get(k)` acts on (an operation of a custom map, Fig. 5).
pub const THIS_MAP: &str = "this";
