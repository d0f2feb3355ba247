//! Membership in ECL, the extended commutativity logic of Section 6.1, with an explanation when a
//! formula is not in it.
//!
//! With `V1`, `V2` the parameters of the first and the second action:
//!
//! ```text
//! S ::= V1 != V2 | S && S | true | false                      (Definition 6.1, L_S)
//! B ::= P(V1) | P(V2) | !B | B && B | B || B | true | false   (Definition 6.2, L_B)
//! X ::= S | B | X && X | X || B                                (Definition 6.3, ECL)
//! ```
//!
//! where an atom of `P(Vi)` compares parameters of one action only (or constants). Formulas are
//! classified in negation normal form ([`nnf`]): negations are pushed into the atoms, which is
//! exact because values are totally ordered (`!(a < b)` is `b <= a`), so `!(k1 == k2)` is the
//! L_S atom `k1 != k2`. Disjunction is commutative, so `B || X` is accepted as well as `X || B`.

use super::spec::{Cmp, Const, Formula, Side, Term};
use hindsight_syntax::Pos;
use std::fmt;

/// Negation normal form without `Not`: negations pushed through `&&`/`||` (De Morgan) and into
/// the atoms by flipping the comparison, `true`/`false` folded out of conjunctions and
/// disjunctions, nested conjunctions and disjunctions flattened. Atoms keep their positions.
/// Equivalent to `f` on every pair of actions.
pub fn nnf(f: &Formula) -> Formula {
    nnf_signed(f, false)
}

fn nnf_signed(f: &Formula, negate: bool) -> Formula {
    match f {
        Formula::True if negate => Formula::False,
        Formula::False if negate => Formula::True,
        Formula::True | Formula::False => f.clone(),
        Formula::Atom {
            cmp,
            left,
            right,
            pos,
        } => {
            if !negate {
                return f.clone();
            }
            let (cmp, left, right) = match cmp {
                Cmp::Eq => (Cmp::Ne, left, right),
                Cmp::Ne => (Cmp::Eq, left, right),
                // !(a < b) is b <= a and !(a <= b) is b < a: values are totally ordered.
                Cmp::Lt => (Cmp::Le, right, left),
                Cmp::Le => (Cmp::Lt, right, left),
            };
            Formula::Atom {
                cmp,
                left: left.clone(),
                right: right.clone(),
                pos: *pos,
            }
        }
        Formula::Not(g, _) => nnf_signed(g, !negate),
        Formula::And(fs) => junction(fs, negate, !negate),
        Formula::Or(fs) => junction(fs, negate, negate),
    }
}

/// The normal form of a conjunction (`conj`) or disjunction of the normal forms of `fs`.
fn junction(fs: &[Formula], negate: bool, conj: bool) -> Formula {
    // For a conjunction `false` absorbs and `true` is the unit; dually for a disjunction.
    let (unit, absorbing) = if conj {
        (Formula::True, Formula::False)
    } else {
        (Formula::False, Formula::True)
    };
    let mut out = Vec::with_capacity(fs.len());
    for g in fs {
        match nnf_signed(g, negate) {
            h if h == unit => {}
            h if h == absorbing => return absorbing,
            Formula::And(hs) if conj => out.extend(hs),
            Formula::Or(hs) if !conj => out.extend(hs),
            h => out.push(h),
        }
    }
    match out.len() {
        0 => unit,
        1 => out.pop().expect("one element"),
        _ if conj => Formula::And(out),
        _ => Formula::Or(out),
    }
}

/// The ECL fragment a formula is in (the smallest of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EclClass {
    /// L_S: a conjunction of `x != y` with `x` a parameter of one action and `y` of the other.
    S,
    /// L_B: every atom is about one action only.
    B,
    /// ECL proper: conjunctions of ECL formulas, and disjunctions in which at most one disjunct
    /// relates the two actions.
    X,
}

/// Why a formula is not in ECL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotEcl {
    /// The first atom of the offending subformula.
    pub pos: Pos,
    /// The offending subformula, rendered (in negation normal form).
    pub subformula: String,
    pub reason: String,
}

impl fmt::Display for NotEcl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (in `{}`)",
            self.pos, self.reason, self.subformula
        )
    }
}

impl std::error::Error for NotEcl {}

/// Classifies `f` (through its negation normal form). Parameters in the explanation are named
/// `x1[i]`/`x2[i]` (the `i`-th parameter of the first or second action); use
/// [`classify_named`] to name them as the rule does.
pub fn classify(f: &Formula) -> Result<EclClass, NotEcl> {
    classify_named(f, &[Vec::new(), Vec::new()])
}

/// [`classify`], naming parameters in the explanation with `names` (a rule's
/// [`Commute::names`](super::spec::Commute::names)).
pub fn classify_named(f: &Formula, names: &[Vec<String>; 2]) -> Result<EclClass, NotEcl> {
    class_of(&nnf(f), names)
}

/// The sides whose parameters a term mentions.
fn side_of(t: &Term) -> Option<Side> {
    match t {
        Term::Param { side, .. } => Some(*side),
        Term::Const(_) => None,
    }
}

/// Whether an atom relates a parameter of each action.
fn relates_both(left: &Term, right: &Term) -> bool {
    matches!((side_of(left), side_of(right)), (Some(a), Some(b)) if a != b)
}

/// The pos of the first atom of `f`, if any.
fn first_pos(f: &Formula) -> Option<Pos> {
    match f {
        Formula::True | Formula::False => None,
        Formula::Atom { pos, .. } => Some(*pos),
        Formula::Not(_, pos) => Some(*pos),
        Formula::And(fs) | Formula::Or(fs) => fs.iter().find_map(first_pos),
    }
}

fn class_of(f: &Formula, names: &[Vec<String>; 2]) -> Result<EclClass, NotEcl> {
    match f {
        Formula::True | Formula::False => Ok(EclClass::B),
        Formula::Atom {
            cmp,
            left,
            right,
            pos,
        } => {
            if !relates_both(left, right) {
                Ok(EclClass::B)
            } else if *cmp == Cmp::Ne {
                Ok(EclClass::S)
            } else {
                let text = render(f, names);
                Err(NotEcl {
                    pos: *pos,
                    reason: format!(
                        "`{text}` compares a parameter of each action; ECL allows only `!=` \
                         between the two actions"
                    ),
                    subformula: text,
                })
            }
        }
        // Not in a normal form; classify what it means.
        Formula::Not(..) => class_of(&nnf(f), names),
        Formula::And(fs) => {
            let mut all_b = true;
            let mut all_s = true;
            for g in fs {
                match class_of(g, names)? {
                    EclClass::B => all_s = false,
                    EclClass::S => all_b = false,
                    EclClass::X => {
                        all_b = false;
                        all_s = false;
                    }
                }
            }
            Ok(if all_b {
                EclClass::B
            } else if all_s {
                EclClass::S
            } else {
                EclClass::X
            })
        }
        Formula::Or(fs) => {
            let mut relating: Vec<&Formula> = Vec::new();
            for g in fs {
                if class_of(g, names)? != EclClass::B {
                    relating.push(g);
                }
            }
            match relating.as_slice() {
                [] => Ok(EclClass::B),
                [_] => Ok(EclClass::X),
                [a, b, ..] => Err(NotEcl {
                    pos: first_pos(b).or_else(|| first_pos(f)).unwrap_or_default(),
                    reason: format!(
                        "a disjunction may relate the two actions in at most one disjunct \
                         (X ::= X ∨ B): `{}` and `{}` both do",
                        render(a, names),
                        render(b, names)
                    ),
                    subformula: render(f, names),
                }),
            }
        }
    }
}

/// Renders a formula in the concrete syntax, naming the parameters of side `i` by `names[i]`
/// (`x1[j]`/`x2[j]` where a name is missing). Conjunctions and disjunctions inside others are
/// parenthesised (`k1 != k2 || (v1 == p1 && v2 == p2)`), nothing else is; the text parses back
/// to the same formula.
pub fn render(f: &Formula, names: &[Vec<String>; 2]) -> String {
    let mut out = String::new();
    render_into(&mut out, f, names, true);
    out
}

fn render_into(out: &mut String, f: &Formula, names: &[Vec<String>; 2], top: bool) {
    match f {
        Formula::True => out.push_str("true"),
        Formula::False => out.push_str("false"),
        Formula::Atom {
            cmp, left, right, ..
        } => {
            render_term(out, left, names);
            out.push(' ');
            out.push_str(cmp.symbol());
            out.push(' ');
            render_term(out, right, names);
        }
        Formula::Not(g, _) => {
            out.push('!');
            match &**g {
                Formula::True | Formula::False | Formula::Not(..) => {
                    render_into(out, g, names, false)
                }
                // `!k1 == k2` would parse the same, but reads as if `!` applied to `k1`.
                Formula::Atom { .. } => {
                    out.push('(');
                    render_into(out, g, names, true);
                    out.push(')');
                }
                Formula::And(_) | Formula::Or(_) => render_into(out, g, names, false),
            }
        }
        Formula::And(fs) | Formula::Or(fs) => {
            let (op, empty) = if matches!(f, Formula::And(_)) {
                (" && ", "true")
            } else {
                (" || ", "false")
            };
            match fs.as_slice() {
                [] => out.push_str(empty),
                [g] => render_into(out, g, names, top),
                _ => {
                    if !top {
                        out.push('(');
                    }
                    for (i, g) in fs.iter().enumerate() {
                        if i > 0 {
                            out.push_str(op);
                        }
                        render_into(out, g, names, false);
                    }
                    if !top {
                        out.push(')');
                    }
                }
            }
        }
    }
}

fn render_term(out: &mut String, t: &Term, names: &[Vec<String>; 2]) {
    match t {
        Term::Param { side, index } => {
            let s = match side {
                Side::First => 0,
                Side::Second => 1,
            };
            match names[s].get(*index) {
                Some(name) => out.push_str(name),
                None => out.push_str(&format!("x{}[{index}]", s + 1)),
            }
        }
        Term::Const(c) => out.push_str(&render_const(c)),
    }
}

/// A constant as written in a spec: `nil`, `-3`, `true`, `"a \"b\""`.
pub fn render_const(c: &Const) -> String {
    match c {
        Const::Nil => "nil".to_owned(),
        Const::Int(i) => i.to_string(),
        Const::Sym(s) => s.clone(),
        Const::Str(s) => {
            let mut out = String::with_capacity(s.len() + 2);
            out.push('"');
            for ch in s.chars() {
                match ch {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    _ => out.push(ch),
                }
            }
            out.push('"');
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commute::spec::{parse, Val};
    use proptest::prelude::*;

    /// The formula of `commute a(k1, v1) -> p1, b(k2, v2) -> p2 : {text}` (two methods, so
    /// that no symmetry is required), with the rule's names.
    fn rule(text: &str) -> (Formula, [Vec<String>; 2]) {
        let spec = format!(
            "object O {{\n method a(k, v) -> p; method b(k, v) -> p;\n \
             commute a(k1, v1) -> p1, b(k2, v2) -> p2 : {text};\n}}"
        );
        let mut file = parse(&spec).unwrap_or_else(|e| panic!("{text}: {e}"));
        let r = file.objects.remove(0).rules.remove(0);
        (r.formula, r.names)
    }

    fn class(text: &str) -> Result<EclClass, NotEcl> {
        let (f, names) = rule(text);
        classify_named(&f, &names)
    }

    fn nnf_text(text: &str) -> String {
        let (f, names) = rule(text);
        render(&nnf(&f), &names)
    }

    #[test]
    fn fig_6_is_in_ecl() {
        use EclClass::*;
        assert_eq!(class("k1 != k2 || (v1 == p1 && v2 == p2)"), Ok(X));
        assert_eq!(class("k1 != k2 || v1 == p1"), Ok(X));
        assert_eq!(
            class("(v1 == nil && p1 == nil) || (v1 != nil && p1 != nil)"),
            Ok(B)
        );
        assert_eq!(class("true"), Ok(B));
    }

    #[test]
    fn classes() {
        use EclClass::*;
        assert_eq!(class("k1 != k2"), Ok(S));
        assert_eq!(class("k2 != k1"), Ok(S));
        assert_eq!(class("!(k1 == k2)"), Ok(S));
        assert_eq!(class("k1 != k2 && v1 != p2"), Ok(S));
        assert_eq!(class("k1 != k2 && true"), Ok(S));
        assert_eq!(class("false"), Ok(B));
        assert_eq!(class("k1 < v1 && !(p2 == 3 || k2 >= \"x\")"), Ok(B));
        assert_eq!(class("k1 != k2 && v1 == nil"), Ok(X));
        assert_eq!(
            class("(k1 != k2 || v1 == p1) && (k1 != v2 || v2 == p2)"),
            Ok(X)
        );
        assert_eq!(
            class("v1 == p1 || (k1 != k2 && (v2 == nil || p1 != k2))"),
            Ok(X)
        );
        // `false` folds away.
        assert_eq!(class("false || k1 != k2"), Ok(S));
        assert_eq!(class("(k1 == k2 && false) || k1 != k2"), Ok(S));
        // Under a negation `k1 == k2` becomes `k1 != k2`.
        assert_eq!(class("!(k1 == k2 && v1 == p1)"), Ok(X));
    }

    #[test]
    fn not_in_ecl() {
        let e = class("k1 < k2").unwrap_err();
        assert_eq!(e.pos, Pos { line: 3, col: 45 });
        assert_eq!(e.subformula, "k1 < k2");
        assert_eq!(
            e.reason,
            "`k1 < k2` compares a parameter of each action; ECL allows only `!=` between the \
             two actions"
        );
        assert_eq!(
            e.to_string(),
            "3:45: `k1 < k2` compares a parameter of each action; ECL allows only `!=` between \
             the two actions (in `k1 < k2`)"
        );
        let e = class("k1 == k2").unwrap_err();
        assert_eq!(e.subformula, "k1 == k2");
        assert!(e
            .reason
            .starts_with("`k1 == k2` compares a parameter of each action"));
        let e = class("(k1 != k2 && v1 == v2)").unwrap_err();
        assert_eq!((e.pos.col, e.subformula.as_str()), (58, "v1 == v2"));
        // `!(k1 != k2)` is `k1 == k2`; `k1 > k2` is `k2 < k1`.
        assert_eq!(
            class("v1 == p1 || !(k1 != k2)").unwrap_err().subformula,
            "k1 == k2"
        );
        assert_eq!(class("k1 > k2").unwrap_err().subformula, "k2 < k1");
        let e = class("(k1 != k2) || (v1 != v2)").unwrap_err();
        assert_eq!(e.pos, Pos { line: 3, col: 60 });
        assert_eq!(e.subformula, "k1 != k2 || v1 != v2");
        assert_eq!(
            e.reason,
            "a disjunction may relate the two actions in at most one disjunct (X ::= X ∨ B): \
             `k1 != k2` and `v1 != v2` both do"
        );
        let e =
            class("v1 == p1 && (k1 != k2 || v1 == nil || (p1 != p2 && k2 == nil))").unwrap_err();
        assert_eq!(
            e.subformula,
            "k1 != k2 || v1 == nil || (p1 != p2 && k2 == nil)"
        );
        assert_eq!(e.pos.col, 84);
        // De Morgan turns a conjunction of two relating atoms into such a disjunction.
        let e = class("!(k1 == k2 && v1 == v2)").unwrap_err();
        assert_eq!(e.subformula, "k1 != k2 || v1 != v2");
        // Without names, parameters are numbered.
        let (f, _) = rule("k1 < k2");
        assert_eq!(classify(&f).unwrap_err().subformula, "x1[0] < x2[0]");
    }

    #[test]
    fn negation_normal_form() {
        assert_eq!(nnf_text("!(k1 == k2)"), "k1 != k2");
        assert_eq!(nnf_text("!(k1 != k2)"), "k1 == k2");
        assert_eq!(nnf_text("!(k1 < k2)"), "k2 <= k1");
        assert_eq!(nnf_text("!(k1 <= k2)"), "k2 < k1");
        assert_eq!(nnf_text("!(k1 > 3)"), "k1 <= 3");
        assert_eq!(nnf_text("!!(k1 == k2)"), "k1 == k2");
        assert_eq!(
            nnf_text("!(k1 != k2 || (v1 == p1 && !(v2 == \"a\")))"),
            "k1 == k2 && (v1 != p1 || v2 == \"a\")"
        );
        assert_eq!(
            nnf_text("k1 != k2 && (true && v1 == nil)"),
            "k1 != k2 && v1 == nil"
        );
        assert_eq!(nnf_text("k1 != k2 && !(true || v1 == nil)"), "false");
        assert_eq!(nnf_text("!(k1 != k2 && false) && v1 == 0"), "v1 == 0");
        assert_eq!(
            nnf_text("k1 != k2 || !true || (v1 == 1 || (v2 == 2 || p1 == p2))"),
            "k1 != k2 || v1 == 1 || v2 == 2 || p1 == p2"
        );
        assert_eq!(
            nnf_text("(k1 != k2 && false) || !(v1 == v1 || true)"),
            "false"
        );
        assert_eq!(nnf_text("!false"), "true");
        // Positions are kept.
        let (f, _) = rule("!(k1 == k2)");
        assert_eq!(
            first_pos(&nnf(&f)),
            Some(Pos { line: 3, col: 47 }),
            "the atom's, not the `!`'s"
        );
    }

    #[test]
    fn rendering() {
        let names = [vec!["k1".to_owned()], vec!["k2".to_owned()]];
        let p = |side| Term::Param { side, index: 0 };
        let atom = |cmp, left, right| Formula::Atom {
            cmp,
            left,
            right,
            pos: Pos::default(),
        };
        let ne = atom(Cmp::Ne, p(Side::First), p(Side::Second));
        let s = |c: Const| atom(Cmp::Eq, p(Side::First), Term::Const(c));
        let f = Formula::Or(vec![
            Formula::Or(vec![ne.clone(), s(Const::Nil)]),
            Formula::And(vec![
                s(Const::Int(-4)),
                Formula::Not(Box::new(s(Const::Sym("true".into()))), Pos::default()),
            ]),
            Formula::Not(
                Box::new(Formula::And(vec![
                    s(Const::Str("a\"b\\c\n\t\r".into())),
                    Formula::True,
                ])),
                Pos::default(),
            ),
            Formula::And(vec![]),
            Formula::Or(vec![]),
            Formula::And(vec![Formula::False]),
        ]);
        assert_eq!(
            render(&f, &names),
            "(k1 != k2 || k1 == nil) || (k1 == -4 && !(k1 == true)) \
             || !(k1 == \"a\\\"b\\\\c\\n\\t\\r\" && true) || true || false || false"
        );
        assert_eq!(
            render(
                &Formula::Not(
                    Box::new(Formula::Not(Box::new(ne), Pos::default())),
                    Pos::default()
                ),
                &names
            ),
            "!!(k1 != k2)"
        );
    }

    fn arb_const() -> impl Strategy<Value = Const> {
        prop_oneof![
            Just(Const::Nil),
            (-1i64..=1).prop_map(Const::Int),
            Just(Const::Sym("false".into())),
            Just(Const::Sym("true".into())),
            Just(Const::Str("a".into())),
        ]
    }

    fn arb_term() -> impl Strategy<Value = Term> {
        prop_oneof![
            (any::<bool>(), 0..2usize).prop_map(|(first, index)| Term::Param {
                side: if first { Side::First } else { Side::Second },
                index,
            }),
            arb_const().prop_map(Term::Const),
        ]
    }

    fn arb_formula() -> impl Strategy<Value = Formula> {
        let cmp = prop_oneof![Just(Cmp::Eq), Just(Cmp::Ne), Just(Cmp::Lt), Just(Cmp::Le)];
        let leaf = prop_oneof![
            1 => Just(Formula::True),
            1 => Just(Formula::False),
            6 => (cmp, arb_term(), arb_term(), 1..100u32).prop_map(|(cmp, left, right, col)| {
                Formula::Atom {
                    cmp,
                    left,
                    right,
                    pos: Pos { line: 1, col },
                }
            }),
        ];
        leaf.prop_recursive(5, 40, 4, |inner| {
            prop_oneof![
                inner
                    .clone()
                    .prop_map(|f| Formula::Not(Box::new(f), Pos { line: 1, col: 1 })),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Formula::And),
                prop::collection::vec(inner, 0..4).prop_map(Formula::Or),
            ]
        })
    }

    /// Whether `f` is in the normal form [`nnf`] promises.
    fn is_normal(f: &Formula, top: bool) -> bool {
        match f {
            Formula::True | Formula::False => top,
            Formula::Atom { .. } => true,
            Formula::Not(..) => false,
            Formula::And(fs) => {
                fs.len() >= 2
                    && fs
                        .iter()
                        .all(|g| !matches!(g, Formula::And(_)) && is_normal(g, false))
            }
            Formula::Or(fs) => {
                fs.len() >= 2
                    && fs
                        .iter()
                        .all(|g| !matches!(g, Formula::Or(_)) && is_normal(g, false))
            }
        }
    }

    fn atom_positions(f: &Formula, out: &mut Vec<Pos>) {
        match f {
            Formula::Atom { pos, .. } => out.push(*pos),
            Formula::Not(g, _) => atom_positions(g, out),
            Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|g| atom_positions(g, out)),
            Formula::True | Formula::False => {}
        }
    }

    proptest! {
        #[test]
        fn nnf_is_equivalent_and_normal(
            f in arb_formula(),
            first in prop::collection::vec(arb_const(), 2),
            second in prop::collection::vec(arb_const(), 2),
        ) {
            let g = nnf(&f);
            let a: Vec<Val<'_>> = first.iter().map(Const::val).collect();
            let b: Vec<Val<'_>> = second.iter().map(Const::val).collect();
            prop_assert_eq!(g.eval(&a, &b), f.eval(&a, &b), "{:?} vs {:?}", f, g);
            prop_assert_eq!(g.eval(&b, &a), f.eval(&b, &a));
            prop_assert!(is_normal(&g, true), "{:?}", g);
            prop_assert_eq!(nnf(&g), g.clone());
            // Every atom of the normal form comes from an atom of `f`.
            let (mut before, mut after) = (Vec::new(), Vec::new());
            atom_positions(&f, &mut before);
            atom_positions(&g, &mut after);
            prop_assert!(after.iter().all(|s| before.contains(s)));
            // Classification never panics, and a formula and its normal form agree.
            prop_assert_eq!(classify(&f), classify(&g));
        }

        #[test]
        fn render_parses_back(
            f in arb_formula(),
            first in prop::collection::vec(arb_const(), 2),
            second in prop::collection::vec(arb_const(), 2),
        ) {
            let names = [vec!["k1".to_owned(), "v1".to_owned()], vec!["k2".to_owned(), "v2".to_owned()]];
            let text = render(&f, &names);
            let spec = format!(
                "object O {{ method a(k, v); method b(k, v); commute a(k1, v1), b(k2, v2) : {text}; }}"
            );
            let parsed = parse(&spec).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
            let g = &parsed.objects[0].rules[0].formula;
            let a: Vec<Val<'_>> = first.iter().map(Const::val).collect();
            let b: Vec<Val<'_>> = second.iter().map(Const::val).collect();
            prop_assert_eq!(g.eval(&a, &b), f.eval(&a, &b), "{}", text);
            prop_assert_eq!(g.eval(&b, &a), f.eval(&b, &a), "{}", text);
        }
    }
}
