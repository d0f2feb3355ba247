//! Commutativity specifications: the abstract syntax of a spec file, the values formulas range
//! over, and the evaluation of a formula on two concrete actions.
//!
//! The concrete syntax (parsed by [`parse`]):
//!
//! ```text
//! object Map {
//!   method put(k, v) -> p;  method get(k) -> v;  method size() -> r;
//!   commute put(k1, v1) -> p1, put(k2, v2) -> p2 : k1 != k2 || (v1 == p1 && v2 == p2);
//!   commute get, get : true;
//! }
//! ```

use hindsight_syntax::{Pos, SyntaxError};
use std::cmp::Ordering;

/// A constant written in a formula.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Const {
    Nil,
    Int(i64),
    /// `true`, `false` in term position (the symbols a trace writes as bare words).
    Sym(String),
    /// A double-quoted string.
    Str(String),
}

/// Which of the two actions a parameter belongs to (`V1` or `V2` in the paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    First,
    Second,
}

/// An operand of a comparison: a parameter of one of the two actions, by its position in the
/// method's arguments-then-results list, or a constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Param { side: Side, index: usize },
    Const(Const),
}

/// The comparisons of the logic. `>` and `>=` are parsed as `<` and `<=` with the operands
/// swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
}

/// A commutativity condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    True,
    False,
    Atom {
        cmp: Cmp,
        left: Term,
        right: Term,
        pos: Pos,
    },
    Not(Box<Formula>, Pos),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

/// `method put(k, v) -> p;`
#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    pub name: String,
    /// Parameter names: the arguments, then the results.
    pub params: Vec<String>,
    /// How many of `params` are arguments.
    pub args: usize,
    pub pos: Pos,
}

impl Method {
    pub fn results(&self) -> usize {
        self.params.len() - self.args
    }
}

/// `commute put(k1, v1) -> p1, get(k2) -> v2 : formula;` for methods `first` and `second`
/// (indices into [`ObjectSpec::methods`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Commute {
    pub first: usize,
    pub second: usize,
    /// The names the rule gives the parameters of each side (empty for the shorthand
    /// `commute get, get : true;`).
    pub names: [Vec<String>; 2],
    pub formula: Formula,
    pub pos: Pos,
}

/// `object Map { ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSpec {
    pub name: String,
    pub methods: Vec<Method>,
    pub rules: Vec<Commute>,
    pub pos: Pos,
}

impl ObjectSpec {
    pub fn method(&self, name: &str) -> Option<usize> {
        self.methods.iter().position(|m| m.name == name)
    }

    /// The rule for methods `a` and `b` in that order, with `swapped` set when the file wrote
    /// it as `b, a`. `None`: the pair is not specified, so it does not commute.
    pub fn rule(&self, a: usize, b: usize) -> Option<(&Commute, bool)> {
        self.rules.iter().find_map(|r| {
            if r.first == a && r.second == b {
                Some((r, false))
            } else if r.first == b && r.second == a {
                Some((r, true))
            } else {
                None
            }
        })
    }
}

/// A whole spec file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SpecFile {
    pub objects: Vec<ObjectSpec>,
}

/// A value a formula is evaluated on: an argument or result of an action, or a constant.
/// Values are totally ordered, `nil` < integers < symbols < strings, integers numerically and
/// symbols and strings by their bytes, so that `!(a < b)` is `b <= a` as users expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Val<'a> {
    Nil,
    Int(i64),
    Sym(&'a str),
    Str(&'a str),
}

impl Val<'_> {
    fn rank(&self) -> u8 {
        match self {
            Val::Nil => 0,
            Val::Int(_) => 1,
            Val::Sym(_) => 2,
            Val::Str(_) => 3,
        }
    }
}

impl Ord for Val<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Val::Int(a), Val::Int(b)) => a.cmp(b),
            (Val::Sym(a), Val::Sym(b)) | (Val::Str(a), Val::Str(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for Val<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Const {
    pub fn val(&self) -> Val<'_> {
        match self {
            Const::Nil => Val::Nil,
            Const::Int(i) => Val::Int(*i),
            Const::Sym(s) => Val::Sym(s),
            Const::Str(s) => Val::Str(s),
        }
    }
}

impl Cmp {
    pub fn holds(self, a: Val<'_>, b: Val<'_>) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
        }
    }
}

impl Term {
    /// The value of the term given the parameter values of the two actions.
    pub fn eval<'a>(&'a self, first: &[Val<'a>], second: &[Val<'a>]) -> Val<'a> {
        match self {
            Term::Param {
                side: Side::First,
                index,
            } => first[*index],
            Term::Param {
                side: Side::Second,
                index,
            } => second[*index],
            Term::Const(c) => c.val(),
        }
    }
}

impl Formula {
    /// The formula's truth on two actions, given the values of their parameters (arguments
    /// then results) in the order of the rule's sides.
    pub fn eval(&self, first: &[Val<'_>], second: &[Val<'_>]) -> bool {
        match self {
            Formula::True => true,
            Formula::False => false,
            Formula::Atom {
                cmp, left, right, ..
            } => cmp.holds(left.eval(first, second), right.eval(first, second)),
            Formula::Not(f, _) => !f.eval(first, second),
            Formula::And(fs) => fs.iter().all(|f| f.eval(first, second)),
            Formula::Or(fs) => fs.iter().any(|f| f.eval(first, second)),
        }
    }
}

/// Parses a spec file. Errors carry line and column.
pub fn parse(text: &str) -> Result<SpecFile, SyntaxError> {
    crate::commute::parse::parse(text)
}
