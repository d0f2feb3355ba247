//! The syntax tree of composed operations: one class's fields (its maps and any globals) and
//! its composed operations, as the Java front end (`front.rs`) lowers them from real Java.
//! Everything the analysis does not interpret is already explicit here: an unknown call
//! ([`ExprKind::Call`]: a fresh arbitrary result on every evaluation), an opaque constant
//! ([`ExprKind::Opaque`]), and per operation the constructs that keep a proof out of reach
//! ([`Operation::approximations`]) or that cannot be modelled at all
//! ([`Operation::unsupported`]).
//!
//! It owns only the shape of programs and their source positions; what a program means lives
//! in `ir.rs`, what class it is in `classify.rs`.

pub use hindsight_syntax::Pos;

/// One class of a file (a snippet's top-level declarations are a class without a name).
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The Java class, qualified by its enclosing classes; empty for a snippet.
    pub class: String,
    pub fields: Vec<Field>,
    pub operations: Vec<Operation>,
}

/// A field of the class: a map (declared with a `java.util.concurrent` map type or
/// initialised with one) or a global.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub is_final: bool,
    /// Its initial value when that is a constant the lowering understood; a final field
    /// without one holds an opaque object, a mutable one its type's default.
    pub init: Option<Expr>,
    pub is_map: bool,
    pub pos: Pos,
}

impl Field {
    pub fn is_map(&self) -> bool {
        self.is_map
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
    /// The first construct the analysis cannot model (iteration over the map, the map passed
    /// to unknown code, ...): the operation is reported `unsupported`, with this.
    pub unsupported: Option<(Pos, String)>,
    /// Paths or effects the lowering leaves out (exceptional paths through `catch`, ...):
    /// bugs found on the modelled paths are real, but nothing is proved.
    pub approximations: Vec<(Pos, String)>,
    /// Locals the lowering made inputs (see `front.rs`: a key computed once from the
    /// parameters), with what they were computed from.
    pub derived: Vec<(Pos, String)>,
    /// Lambdas of atomic map methods whose bodies act on state other than the entry.
    pub lambda_effects: Vec<(Pos, String)>,
    /// For a method a class inherits and that is an operation only on that class's maps
    /// (through a method it overrides): where it is declared. `None`: declared in the
    /// program's own class.
    pub inherited_from: Option<Inherited>,
}

/// The class that declares an inherited operation, and its file (an index among the files
/// given to `front::programs_of`).
#[derive(Clone, Debug)]
pub struct Inherited {
    pub class: String,
    pub file: usize,
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
    /// `getOrDefault(k, d)`
    GetOrDefault,
    /// `computeIfAbsent(k, f)`: one atomic step, `f` included.
    ComputeIfAbsent,
    /// `computeIfPresent(k, f)`
    ComputeIfPresent,
    /// `compute(k, f)`
    Compute,
    /// `merge(k, v, f)`
    Merge,
    /// One step of a weakly consistent traversal of the map's entries (a `for` over
    /// `keySet()`, `values()` or `entrySet()`, `forEach`, `clear()`): its argument is the
    /// entry the traversal is at (`null` before the first), its result the next entry in the
    /// traversal order present now (a `Map.Entry` object of its key and current value), or
    /// `null` when none is left. Never written in Java: the front end desugars the loops to it.
    Next,
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
            ("getOrDefault", 2) => MapMethod::GetOrDefault,
            ("computeIfAbsent", 2) => MapMethod::ComputeIfAbsent,
            ("computeIfPresent", 2) => MapMethod::ComputeIfPresent,
            ("compute", 2) => MapMethod::Compute,
            ("merge", 3) => MapMethod::Merge,
            _ => return None,
        })
    }

    /// Whether some arity of `name` is a map method.
    pub fn is_name(name: &str) -> bool {
        matches!(
            name,
            "get"
                | "put"
                | "remove"
                | "putIfAbsent"
                | "replace"
                | "containsKey"
                | "size"
                | "getOrDefault"
                | "computeIfAbsent"
                | "computeIfPresent"
                | "compute"
                | "merge"
                | "isEmpty"
                | "mappingCount"
                | "putAll"
                | "containsValue"
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
            MapMethod::GetOrDefault => "getOrDefault",
            MapMethod::ComputeIfAbsent => "computeIfAbsent",
            MapMethod::ComputeIfPresent => "computeIfPresent",
            MapMethod::Compute => "compute",
            MapMethod::Merge => "merge",
            MapMethod::Next => "next",
        }
    }

    /// Whether its first argument is a key (every method but `size()` and a traversal step).
    pub fn keyed(self) -> bool {
        !matches!(self, MapMethod::Size | MapMethod::Next)
    }

    /// Whether its last argument is a function run inside the atomic step.
    pub fn takes_function(self) -> bool {
        matches!(
            self,
            MapMethod::ComputeIfAbsent
                | MapMethod::ComputeIfPresent
                | MapMethod::Compute
                | MapMethod::Merge
        )
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
                | MapMethod::GetOrDefault
                | MapMethod::ComputeIfAbsent
                | MapMethod::ComputeIfPresent
                | MapMethod::Compute
                | MapMethod::Merge
                | MapMethod::Next
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
    /// Any other method call `recv.name(args)`, or another operation the analysis does not
    /// interpret (a field of another object, an array element, `instanceof`): its result is
    /// an arbitrary fresh value on every evaluation, and it may do anything to state other
    /// than the maps.
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
    /// A value the analysis does not interpret but that stays the same (a constant of another
    /// class, `X.class`, a final field set by a constructor): an object named by its text.
    Opaque(String),
    /// The function argument of an atomic map method: `(a, b) -> body`.
    Lambda {
        params: Vec<String>,
        body: Box<Expr>,
    },
}

/// The prefix of the local holding a traversal's current entry (its cursor), and of the local
/// `clear()`'s traversal binds each key to; the front end adds the position. Shown as
/// `entry` and `key` (`ir::show` shows each local the front end makes by its word).
pub const TRAVERSAL_ENTRY: &str = "$entry";
pub const TRAVERSAL_KEY: &str = "$key";

/// The name of the map an unqualified `get(k)` acts on (an operation of a custom map, Fig. 5).
pub const THIS_MAP: &str = "this";
