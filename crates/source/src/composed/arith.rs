//! Arithmetic on unknown values, for the bounded check (`bounded.rs`): `x.count() + 1 > limit`,
//! `n * 2 < max`, `Math.max(a, now - 6000) / 1000`. Where the bounded check keeps facts about
//! unknown values (`ir::Local::assumed`), arithmetic with an unknown operand gives a *term*
//! (an unknown value made of its operands, which is a function of them, as an unknown call is
//! a function of its receiver and arguments), and a comparison on terms is rewritten into a
//! question about one unknown: `a*u + b < c` becomes a bound on `u` when `u` is the only
//! unknown (exactly, so the interval reasoning of `ir.rs` decides what the facts entail), and
//! a bound on their sum with its coefficients (`u1 - u2 < c`) when there are several; `/`,
//! `%`, `Math.max`, `Math.min`, `Math.abs` and products of unknowns are unknowns of their own
//! whose values follow from their operands.
//!
//! Deciding a question only from the facts about its own unknown is sound (what some of the
//! facts entail, all of them do), but treating a sum or a quotient as free can take a way no
//! value allows. So a set of facts counts as consistent only when [`model`] finds integers for
//! the unknowns under which every fact, evaluated from its terms, holds: a violation is
//! reported only with such a model, and its values are added to its assumptions ([`pins`]:
//! "the value returned by `x.count()` is `4`"), so that it describes one program, whose
//! observations are then compared with the model's values in place of the unknowns
//! ([`Pins`]). Values are kept within Java's `int` range, where `int` and `long` arithmetic
//! agree, so a model is a program Java runs as the terms say.
//!
//! Without facts (the proof, the brute force's plain semantics) arithmetic on an unknown
//! value cannot be evaluated, as before.

use super::ir::{call_identity, Fact, Obj, Relation, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The classes of terms: Java's operators and the methods of `Math` they are made with.
pub const ADD: &str = "+";
pub const SUB: &str = "-";
pub const MUL: &str = "*";
pub const DIV: &str = "/";
pub const REM: &str = "%";
pub const NEG: &str = "neg";
pub const MAX: &str = "Math.max";
pub const MIN: &str = "Math.min";
pub const ABS: &str = "Math.abs";
/// A canonical sum `a1*u1 + a2*u2 + ...` of several unknowns (a question's subject), its
/// arguments coefficient and unknown in turn.
pub const SUM: &str = "sum";

const TERMS: &[&str] = &[ADD, SUB, MUL, DIV, REM, NEG, MAX, MIN, ABS, SUM];

/// The least and greatest value a model gives an unknown or a term (Java's `int`).
const LEAST: i128 = i32::MIN as i128;
const GREATEST: i128 = i32::MAX as i128;

/// Coefficients and constants beyond this are not rewritten (the question stays unanswered).
const MAGNITUDE: i128 = 1 << 40;

/// Whether `v` is a term (built by arithmetic on an unknown value), in either form: as a run
/// holds it (with a serial) or as a fact names it.
pub fn is_term(v: &Value) -> bool {
    matches!(v, Value::Obj(o) if o.site == 0 && o.calls.is_empty() && TERMS.contains(&&*o.class))
}

/// The term `class(args)`, fresh as an unknown call's result is (serial `serial` of `thread`).
pub fn term(class: &str, args: Vec<Value>, thread: u8, serial: u32) -> Value {
    Value::Obj(Rc::new(Obj {
        class: Rc::from(class),
        site: 0,
        thread,
        args,
        calls: Vec::new(),
        serial,
    }))
}

/// Whether `v` may take part in arithmetic as an unknown integer: an unknown call's result or
/// a term (not a boolean made of undecided operands).
pub fn is_unknown_number(v: &Value) -> bool {
    match v {
        Value::Obj(o) if o.site == 0 && o.calls.is_empty() => {
            is_term(v) || (o.serial > 0 && !matches!(&*o.class, "!" | "&&" | "||"))
        }
        _ => false,
    }
}

/// A linear form over unknowns: `sum of coefficient * unknown + constant`; the unknowns are
/// named as facts name them ([`call_identity`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Lin {
    atoms: BTreeMap<Value, i128>,
    constant: i128,
}

impl Lin {
    fn constant(c: i128) -> Lin {
        Lin {
            atoms: BTreeMap::new(),
            constant: c,
        }
    }

    fn atom(v: Value) -> Lin {
        Lin {
            atoms: BTreeMap::from([(v, 1)]),
            constant: 0,
        }
    }

    fn scaled(mut self, k: i128) -> Lin {
        self.atoms.values_mut().for_each(|c| *c *= k);
        self.atoms.retain(|_, c| *c != 0);
        self.constant *= k;
        self
    }

    fn plus(mut self, other: Lin) -> Lin {
        for (a, c) in other.atoms {
            *self.atoms.entry(a).or_insert(0) += c;
        }
        self.atoms.retain(|_, c| *c != 0);
        self.constant += other.constant;
        self
    }

    fn within(&self) -> bool {
        self.constant.abs() <= MAGNITUDE && self.atoms.values().all(|c| c.abs() <= MAGNITUDE)
    }
}

/// The linear form of `v` (an integer, an unknown value or a term), or `None` for anything
/// else (a string, `null`, an object).
fn lin(v: &Value) -> Option<Lin> {
    let out = match v {
        Value::Int(n) => Lin::constant(i128::from(*n)),
        Value::Obj(o) if is_term(v) => match (&*o.class, o.args.as_slice()) {
            (ADD, [a, b]) => lin(a)?.plus(lin(b)?),
            (SUB, [a, b]) => lin(a)?.plus(lin(b)?.scaled(-1)),
            (NEG, [a]) => lin(a)?.scaled(-1),
            (MUL, [a, b]) => {
                let (x, y) = (lin(a)?, lin(b)?);
                if x.atoms.is_empty() {
                    y.scaled(x.constant)
                } else if y.atoms.is_empty() {
                    x.scaled(y.constant)
                } else {
                    Lin::atom(call_identity(v))
                }
            }
            _ => Lin::atom(call_identity(v)),
        },
        v if is_unknown_number(v) => Lin::atom(call_identity(v)),
        _ => return None,
    };
    out.within().then_some(out)
}

/// What a comparison on unknown values comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rewritten {
    /// It holds, or not, whatever the unknowns are (`u - u < 1`).
    Known(bool),
    /// It is the question `subject relation comparand`, or its negation.
    Ask {
        subject: Value,
        comparand: i64,
        relation: Relation,
        negated: bool,
    },
}

/// `x op y` (`<`, `<=`, `>`, `>=`, `==`, `!=`) as a question about one unknown (or one sum of
/// unknowns): `None` when a side is not an integer or unknown value, or the numbers are beyond
/// what is rewritten.
pub fn rewrite(x: &Value, op: &str, y: &Value) -> Option<Rewritten> {
    // `x op y` as `d < 0` or `d == 0` (maybe negated), with `d = x - y` (+ 1 for `<=`, `>`).
    let d = lin(x)?.plus(lin(y)?.scaled(-1));
    let (d, relation, negated) = match op {
        "<" => (d, Relation::Below, false),
        "<=" => (d.plus(Lin::constant(-1)), Relation::Below, false),
        ">" => (d.plus(Lin::constant(-1)), Relation::Below, true),
        ">=" => (d, Relation::Below, true),
        "==" => (d, Relation::Is, false),
        "!=" => (d, Relation::Is, true),
        _ => return None,
    };
    if d.atoms.is_empty() {
        let holds = match relation {
            Relation::Below => d.constant < 0,
            Relation::Is | Relation::Function => d.constant == 0,
        };
        return Some(Rewritten::Known(holds != negated));
    }
    // Divide by the coefficients' greatest common divisor, the first made positive: one
    // subject for every multiple of a sum.
    let g = d.atoms.values().fold(0i128, |g, c| gcd(g, c.abs()));
    let sign = if *d.atoms.values().next().expect("an unknown") < 0 {
        -1
    } else {
        1
    };
    let k = g * sign;
    // d = k * s + b, with s the subject.
    let b = d.constant;
    let atoms: Vec<(Value, i128)> = d.atoms.into_iter().map(|(a, c)| (a, c / k)).collect();
    let (comparand, negated) = match relation {
        // k*s + b < 0: for k > 0, s < ceil(-b / k); for k < 0, s > floor(b / -k), which is
        // not s < floor(b / -k) + 1.
        Relation::Below if k > 0 => (ceil_div(-b, k), negated),
        Relation::Below => (floor_div(b, -k) + 1, !negated),
        // k*s + b == 0: s == -b / k when k divides b, else never.
        Relation::Is | Relation::Function => {
            if b % k != 0 {
                return Some(Rewritten::Known(negated));
            }
            (-b / k, negated)
        }
    };
    let comparand = i64::try_from(comparand).ok()?;
    let subject = match atoms.as_slice() {
        [(a, 1)] => a.clone(),
        _ => Value::Obj(Rc::new(Obj {
            class: Rc::from(SUM),
            site: 0,
            thread: 0,
            args: atoms
                .into_iter()
                .flat_map(|(a, c)| [Value::Int(c as i64), a])
                .collect(),
            calls: Vec::new(),
            serial: 0,
        })),
    };
    Some(Rewritten::Ask {
        subject,
        comparand,
        relation,
        negated,
    })
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// The integer `v` stands for under `values` (unknowns by their names in facts): `None` when
/// some unknown in it has no value, a division is by zero, or a value leaves Java's `int`
/// range (where the model would not be the program Java runs).
pub fn value_under(v: &Value, values: &BTreeMap<Value, i64>) -> Option<i64> {
    let n: i128 = match v {
        Value::Int(n) => i128::from(*n),
        Value::Obj(o) if is_term(v) => {
            let arg = |i: usize| -> Option<i128> {
                o.args
                    .get(i)
                    .and_then(|a| value_under(a, values))
                    .map(i128::from)
            };
            match (&*o.class, o.args.len()) {
                (ADD, 2) => arg(0)? + arg(1)?,
                (SUB, 2) => arg(0)? - arg(1)?,
                (MUL, 2) => arg(0)? * arg(1)?,
                (DIV, 2) => {
                    let d = arg(1)?;
                    // Java's division rounds toward zero, as i128's does.
                    if d == 0 {
                        return None;
                    }
                    arg(0)? / d
                }
                (REM, 2) => {
                    let d = arg(1)?;
                    if d == 0 {
                        return None;
                    }
                    arg(0)? % d
                }
                (NEG, 1) => -arg(0)?,
                (MAX, 2) => arg(0)?.max(arg(1)?),
                (MIN, 2) => arg(0)?.min(arg(1)?),
                (ABS, 1) => arg(0)?.abs(),
                (SUM, _) => {
                    let mut s = 0;
                    for pair in o.args.chunks(2) {
                        let [Value::Int(c), a] = pair else {
                            return None;
                        };
                        s += i128::from(*c) * i128::from(value_under(a, values)?);
                    }
                    s
                }
                _ => return None,
            }
        }
        v => i128::from(*values.get(&call_identity(v))?),
    };
    (LEAST..=GREATEST)
        .contains(&n)
        .then(|| i64::try_from(n).expect("within int"))
}

/// Whether `f` is a fact about an integer: a bound, or equality with an integer.
fn integer_fact(f: &Fact) -> bool {
    matches!(f.comparand, Value::Int(_))
}

/// The unknowns (by their names in facts) a subject is made of: itself if it is an unknown
/// call's result, else those of its operands.
fn unknowns_of(v: &Value, out: &mut BTreeSet<Value>) {
    match v {
        Value::Int(_) => {}
        Value::Obj(o) if is_term(v) => {
            for a in &o.args {
                unknowns_of(a, out);
            }
        }
        v => {
            out.insert(call_identity(v));
        }
    }
}

/// The integers `v` may be when every fact about `v` alone holds: at most `count` of them,
/// nearest the interesting places first (the bounds, the comparands near them, zero).
fn candidates(facts: &[Fact], v: &Value, near: &[i128], count: usize) -> Vec<i64> {
    let mut lo = LEAST;
    let mut hi = GREATEST;
    let mut eq = None;
    let mut ne = Vec::new();
    for f in facts.iter().filter(|f| &f.call == v) {
        let Value::Int(c) = f.comparand else {
            continue;
        };
        let c = i128::from(c);
        match (f.relation, f.holds) {
            (Relation::Is, true) => eq = Some(c),
            (Relation::Is, false) => ne.push(c),
            (Relation::Below, true) => hi = hi.min(c - 1),
            (Relation::Below, false) => lo = lo.max(c),
            (Relation::Function, _) => {}
        }
    }
    let fits = |x: i128| lo <= x && x <= hi && !ne.contains(&x) && eq.is_none_or(|e| e == x);
    if let Some(e) = eq {
        return if fits(e) { vec![e as i64] } else { Vec::new() };
    }
    let mut out: Vec<i128> = Vec::new();
    let push = |x: i128, out: &mut Vec<i128>| {
        if fits(x) && !out.contains(&x) {
            out.push(x);
        }
    };
    let mut bounds = Vec::new();
    // The least and greatest allowed values (stepping over the excluded ones).
    for start in [lo, hi] {
        let step = if start == lo { 1 } else { -1 };
        let mut x = start;
        for _ in 0..=ne.len() {
            if fits(x) {
                bounds.push(x);
                break;
            }
            x += step;
        }
    }
    // Near the constants, then near their products (a quotient's bound times its divisor).
    let mut places: Vec<i128> = near.to_vec();
    places.extend([0, 1, -1]);
    for (i, a) in near.iter().enumerate() {
        for b in &near[i..] {
            places.push(a * b);
        }
    }
    for c in places {
        for x in [c, c - 1, c + 1] {
            push(x, &mut out);
        }
    }
    // The bounds last: any value the unknown's own facts allow, when nothing else is.
    out.truncate(count.saturating_sub(bounds.len()).max(1));
    for b in bounds {
        push(b, &mut out);
    }
    out.truncate(count);
    out.into_iter().map(|x| x as i64).collect()
}

/// At most this many assignments are tried by [`model`].
const MAX_ASSIGNMENTS: usize = 20_000;

/// Integers for the unknowns the integer facts of `facts` name under which every one of them,
/// evaluated from its terms, holds; `None` when none is found (the facts may contradict one
/// another). Facts about one unknown alone are met exactly; sums and quotients are searched
/// among values near the facts' constants, so a set of facts may have a model not found.
pub fn model(facts: &[Fact]) -> Option<BTreeMap<Value, i64>> {
    let int_facts: Vec<&Fact> = facts.iter().filter(|f| integer_fact(f)).collect();
    let mut unknowns = BTreeSet::new();
    for f in &int_facts {
        unknowns_of(&f.call, &mut unknowns);
    }
    // Unknowns that occur inside a sum or a quotient: their values are searched; the others
    // take any value their own facts allow.
    let mut shared = BTreeSet::new();
    for f in &int_facts {
        if is_term(&f.call) {
            unknowns_of(&f.call, &mut shared);
        }
    }
    let mut near: Vec<i128> = Vec::new();
    for f in &int_facts {
        if let Value::Int(c) = f.comparand {
            near.push(i128::from(c));
        }
        constants_of(&f.call, &mut near);
    }
    let unknowns: Vec<Value> = unknowns.into_iter().collect();
    let mut choices: Vec<Vec<i64>> = Vec::new();
    for u in &unknowns {
        let count = if shared.contains(u) { 24 } else { 1 };
        let c = candidates(facts, u, &near, count);
        if c.is_empty() {
            return None;
        }
        choices.push(c);
    }
    let total = choices
        .iter()
        .try_fold(1usize, |n, c| n.checked_mul(c.len()))
        .unwrap_or(usize::MAX);
    let mut index = vec![0usize; unknowns.len()];
    for _ in 0..total.min(MAX_ASSIGNMENTS) {
        let values: BTreeMap<Value, i64> = unknowns
            .iter()
            .zip(&index)
            .zip(&choices)
            .map(|((u, &i), c)| (u.clone(), c[i]))
            .collect();
        let holds = int_facts.iter().all(|f| {
            let Value::Int(c) = f.comparand else {
                return false;
            };
            match value_under(&f.call, &values) {
                Some(x) => {
                    let r = match f.relation {
                        Relation::Below => x < c,
                        Relation::Is => x == c,
                        // Not about a number (no integer comparand).
                        Relation::Function => f.holds,
                    };
                    r == f.holds
                }
                None => false,
            }
        });
        if holds {
            return Some(values);
        }
        // The next assignment, as an odometer.
        for (i, c) in index.iter_mut().zip(&choices) {
            *i += 1;
            if *i < c.len() {
                break;
            }
            *i = 0;
        }
    }
    None
}

fn constants_of(v: &Value, out: &mut Vec<i128>) {
    if let Value::Obj(o) = v {
        if is_term(v) {
            for (i, a) in o.args.iter().enumerate() {
                match a {
                    // A sum's coefficients are not values anything is compared with.
                    Value::Int(_) if &*o.class == SUM && i % 2 == 0 => {}
                    Value::Int(n) => out.push(i128::from(*n)),
                    a => constants_of(a, out),
                }
            }
        }
    }
}

/// The facts that fix every unknown the integer facts of `facts` name to its value in a
/// model of them (`None`: no model found): "the value returned by `x.count()` is `4`", at the
/// line of the first fact about it. Unknowns already fixed get none.
pub fn pins(facts: &[Fact]) -> Option<Vec<Fact>> {
    let values = model(facts)?;
    let mut out = Vec::new();
    for (u, v) in values {
        // Fixed already by a fact that says so as it reads (not one rewritten from a
        // comparison, which the brute force checks rather than trusts).
        let fixed = facts.iter().any(|f| {
            f.call == u
                && f.source.is_none()
                && f.relation == Relation::Is
                && f.holds
                && f.comparand == Value::Int(v)
        });
        if fixed {
            continue;
        }
        let mut inner = BTreeSet::new();
        let line = facts
            .iter()
            .find(|f| {
                inner.clear();
                unknowns_of(&f.call, &mut inner);
                inner.contains(&u)
            })
            .map_or(0, |f| f.line);
        out.push(Fact {
            call: u,
            comparand: Value::Int(v),
            relation: Relation::Is,
            holds: true,
            line,
            source: None,
        });
    }
    Some(out)
}

/// The unknowns facts fix to an integer, by their names in facts: observations are compared
/// with these values in place of them ([`crate::composed::ir::FreshNames::pinned`]).
pub type Pins = BTreeMap<Value, i64>;

/// The unknowns `facts` fix to an integer (an `is` fact that holds).
pub fn pinned(facts: &[Fact]) -> Pins {
    facts
        .iter()
        .filter(|f| f.relation == Relation::Is && f.holds && !is_term(&f.call))
        .filter_map(|f| match f.comparand {
            Value::Int(c) => Some((f.call.clone(), c)),
            _ => None,
        })
        .collect()
}

/// Whether `v` holds an unknown `pins` fixes (in a term, an argument, a recorded call).
pub fn mentions(v: &Value, pins: &Pins) -> bool {
    let Value::Obj(o) = v else {
        return false;
    };
    (is_unknown_number(v) && !is_term(v) && pins.contains_key(&call_identity(v)))
        || o.args.iter().any(|a| mentions(a, pins))
        || o.calls
            .iter()
            .any(|(_, args)| args.iter().any(|a| mentions(a, pins)))
}

/// `v` with every unknown `pins` fixes, and every term made only of such, replaced by its
/// integer (everything else, fresh values' serials included, kept).
pub fn substitute(v: &Value, pins: &Pins) -> Value {
    if !mentions(v, pins) {
        return v.clone();
    }
    if is_unknown_number(v) {
        if let Some(n) = value_under(v, pins) {
            return Value::Int(n);
        }
    }
    let Value::Obj(o) = v else {
        return v.clone();
    };
    let mut o = (**o).clone();
    o.args = o.args.iter().map(|a| substitute(a, pins)).collect();
    o.calls = o
        .calls
        .iter()
        .map(|(n, args)| {
            (
                n.clone(),
                args.iter().map(|a| substitute(a, pins)).collect(),
            )
        })
        .collect();
    Value::Obj(Rc::new(o))
}

/// A term as Java writes it (its own serial, which only tells runs' terms apart, left out):
/// `(a + 1)`, `-a`, `Math.max(a, 3)`, `(2*a - b)`.
pub fn fmt_term(o: &Obj, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match (&*o.class, o.args.as_slice()) {
        (NEG, [a]) => write!(f, "-{a}"),
        (MAX | MIN, [a, b]) => write!(f, "{}({a}, {b})", o.class),
        (ABS, [a]) => write!(f, "{}({a})", o.class),
        (SUM, pairs) => {
            f.write_str("(")?;
            for (i, pair) in pairs.chunks(2).enumerate() {
                let [Value::Int(c), a] = pair else {
                    return f.write_str("?)");
                };
                let sign = if *c < 0 { "-" } else { "+" };
                match (i, c.abs()) {
                    (0, 1) if *c < 0 => write!(f, "-{a}")?,
                    (0, 1) => write!(f, "{a}")?,
                    (0, n) => write!(f, "{}{n}*{a}", if *c < 0 { "-" } else { "" })?,
                    (_, 1) => write!(f, " {sign} {a}")?,
                    (_, n) => write!(f, " {sign} {n}*{a}")?,
                }
            }
            f.write_str(")")
        }
        (class, [a, b]) => write!(f, "({a} {class} {b})"),
        (class, args) => write!(f, "{class}({args:?})"),
    }
}

/// A term as its source writes it, without the outer parentheses.
pub fn show(v: &Value) -> String {
    let s = call_identity(v).to_string();
    if is_term(v) && s.starts_with('(') && s.ends_with(')') {
        s[1..s.len() - 1].to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(name: &str) -> Value {
        Value::Obj(Rc::new(Obj {
            class: Rc::from(name),
            site: 0,
            thread: 0,
            args: vec![Value::opaque("x")],
            calls: Vec::new(),
            serial: 1,
        }))
    }

    fn t(class: &str, args: Vec<Value>) -> Value {
        term(class, args, 0, 9)
    }

    fn fact(r: &Rewritten, holds: bool) -> Fact {
        let Rewritten::Ask {
            subject,
            comparand,
            relation,
            negated,
        } = r
        else {
            panic!("{r:?}")
        };
        Fact {
            call: subject.clone(),
            comparand: Value::Int(*comparand),
            relation: *relation,
            holds: holds != *negated,
            line: 1,
            source: None,
        }
    }

    /// Every rewriting of `a*u + b op c` agrees with evaluating it, for u around the
    /// boundary: a literal check of the rounding.
    #[test]
    fn rewritten_comparisons_hold_exactly_when_the_comparison_does() {
        let u = unknown("count");
        for a in [-3i64, -2, -1, 1, 2, 3] {
            for b in [-7i64, -1, 0, 4] {
                for c in [-5i64, 0, 1, 6] {
                    let lhs = t(
                        ADD,
                        vec![t(MUL, vec![Value::Int(a), u.clone()]), Value::Int(b)],
                    );
                    for op in ["<", "<=", ">", ">=", "==", "!="] {
                        let r = rewrite(&lhs, op, &Value::Int(c)).expect("linear");
                        for x in -12i64..=12 {
                            let v = a * x + b;
                            let expected = match op {
                                "<" => v < c,
                                "<=" => v <= c,
                                ">" => v > c,
                                ">=" => v >= c,
                                "==" => v == c,
                                _ => v != c,
                            };
                            let got = match &r {
                                Rewritten::Known(h) => *h,
                                Rewritten::Ask {
                                    comparand,
                                    relation,
                                    negated,
                                    ..
                                } => {
                                    let q = match relation {
                                        Relation::Below => x < *comparand,
                                        Relation::Is => x == *comparand,
                                        Relation::Function => panic!("{r:?}"),
                                    };
                                    q != *negated
                                }
                            };
                            assert_eq!(got, expected, "{a}*u + {b} {op} {c} at u = {x}: {r:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn contradictory_sums_have_no_model_and_consistent_ones_do() {
        let (u, w) = (unknown("a"), unknown("b"));
        // u - w < 0 and w - u < 0 cannot both hold.
        let lt = rewrite(&u, "<", &w).expect("linear");
        let gt = rewrite(&w, "<", &u).expect("linear");
        assert!(model(&[fact(&lt, true), fact(&gt, true)]).is_none());
        // u < w, w < 3, u > -2: u in {-1, 0, 1}, w above it.
        let w3 = rewrite(&w, "<", &Value::Int(3)).expect("linear");
        let u2 = rewrite(&u, ">", &Value::Int(-2)).expect("linear");
        let facts = [fact(&lt, true), fact(&w3, true), fact(&u2, true)];
        let m = model(&facts).expect("a model");
        let (x, y) = (m[&call_identity(&u)], m[&call_identity(&w)]);
        assert!(x < y && y < 3 && x > -2, "{m:?}");
        // A quotient: max(u, 10) / 4 == 3 needs u in 12..=15.
        let q = t(
            DIV,
            vec![t(MAX, vec![u.clone(), Value::Int(10)]), Value::Int(4)],
        );
        let r = rewrite(&q, "==", &Value::Int(3)).expect("linear");
        let m = model(&[fact(&r, true)]).expect("a model");
        assert!((12..=15).contains(&m[&call_identity(&u)]), "{m:?}");
        // Not 3 and not below 3 and below 4: none.
        let below4 = rewrite(&q, "<", &Value::Int(4)).expect("linear");
        let below3 = rewrite(&q, "<", &Value::Int(3)).expect("linear");
        assert!(model(&[fact(&r, false), fact(&below4, true), fact(&below3, false)]).is_none());
    }
}
