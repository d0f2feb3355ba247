//! From an ECL specification to an access point representation (Section 6.2), simplified as in
//! Appendix A.3.
//!
//! The translation follows the paper: each method `m` gets the L_B atoms of every rule that
//! mentions it, normalised to `m`'s own parameters (`B(Φ, m)`); an action's β vector is the truth
//! of those atoms on its arguments and results; it touches the point `m:β:ds` and one point
//! `m:β:i:w_i` per parameter. For every rule and every pair of β vectors the formula reduces
//! to `true`, `false` or a conjunction of `x_i != y_j` (Lemma 6.4): `false` makes the two `ds`
//! points conflict, each conjunct makes `i:u` and `j:u` conflict for every value `u`.
//!
//! The simplifications of Appendix A.3 are then applied in their general form. *Cleanup* removes
//! the points that conflict with nothing. *Replacement* merges congruent points, those with the
//! same conflicts, into one representative; *consolidation* and *dropping* are the special
//! cases of it where the points differ only in atoms that no conflict depends on, so merging by
//! congruence subsumes them and is applied to the whole relation at once. For the dictionary of
//! Fig. 6 the result is Fig. 7: `put.k[v == p] | get.k` is `o:r:k`, `put.k[v != p]` is
//! `o:w:k`, the resizing `put` is `o:resize` and `size` is `o:size`.
//!
//! Formulas outside ECL are not translated: their method pairs are checked directly
//! (Section 5.1), and the representation records which pairs those are.

use super::ecl::{classify_named, nnf, NotEcl};
use super::spec::{Cmp, Const, Formula, ObjectSpec, Side, Term, Val};
use hindsight_syntax::{Pos, SyntaxError};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Most atoms a method may have in `B(Φ, m)`: the translation enumerates every β vector.
pub const MAX_ATOMS: usize = 12;

/// An operand of an atom normalised to one method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LocalTerm {
    Param(usize),
    Const(ConstKey),
}

/// A constant, ordered and hashable (for normalising atoms).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConstKey {
    Nil,
    Int(i64),
    Sym(String),
    Str(String),
}

impl ConstKey {
    fn of(c: &Const) -> ConstKey {
        match c {
            Const::Nil => ConstKey::Nil,
            Const::Int(i) => ConstKey::Int(*i),
            Const::Sym(s) => ConstKey::Sym(s.clone()),
            Const::Str(s) => ConstKey::Str(s.clone()),
        }
    }

    fn val(&self) -> Val<'_> {
        match self {
            ConstKey::Nil => Val::Nil,
            ConstKey::Int(i) => Val::Int(*i),
            ConstKey::Sym(s) => Val::Sym(s),
            ConstKey::Str(s) => Val::Str(s),
        }
    }
}

/// An L_B atom of one method in canonical form: `left == right` or `left < right`. `!=` and
/// `<=` are stored as negations of these, so that `v == p` and `v != p` share one β bit.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalAtom {
    pub less: bool,
    pub left: LocalTerm,
    pub right: LocalTerm,
}

impl LocalAtom {
    /// The canonical atom and its polarity for `left cmp right`.
    fn canonical(cmp: Cmp, left: LocalTerm, right: LocalTerm) -> (LocalAtom, bool) {
        let eq = |l: LocalTerm, r: LocalTerm| {
            let (l, r) = if l <= r { (l, r) } else { (r, l) };
            LocalAtom {
                less: false,
                left: l,
                right: r,
            }
        };
        match cmp {
            Cmp::Eq => (eq(left, right), true),
            Cmp::Ne => (eq(left, right), false),
            Cmp::Lt => (
                LocalAtom {
                    less: true,
                    left,
                    right,
                },
                true,
            ),
            // a <= b  is  !(b < a)
            Cmp::Le => (
                LocalAtom {
                    less: true,
                    left: right,
                    right: left,
                },
                false,
            ),
        }
    }

    /// The atom's truth on an action whose `i`-th parameter value is `param(i)`.
    #[inline]
    pub fn eval<'a>(&'a self, param: impl Fn(usize) -> Val<'a>) -> bool {
        let term = |t: &'a LocalTerm| match t {
            LocalTerm::Param(i) => param(*i),
            LocalTerm::Const(c) => c.val(),
        };
        let (a, b) = (term(&self.left), term(&self.right));
        if self.less {
            a < b
        } else {
            a == b
        }
    }

    fn render(&self, names: &[String], positive: bool) -> String {
        let t = |t: &LocalTerm| match t {
            LocalTerm::Param(i) => names[*i].clone(),
            LocalTerm::Const(c) => match c {
                ConstKey::Nil => "nil".into(),
                ConstKey::Int(i) => i.to_string(),
                ConstKey::Sym(s) => s.clone(),
                ConstKey::Str(s) => format!("{s:?}"),
            },
        };
        let (l, r) = (t(&self.left), t(&self.right));
        match (self.less, positive) {
            (false, true) => format!("{l} == {r}"),
            (false, false) => format!("{l} != {r}"),
            (true, true) => format!("{l} < {r}"),
            (true, false) => format!("{l} >= {r}"),
        }
    }
}

/// A formula with its β-dependent atoms resolved: `true`, `false`, or a conjunction of
/// `x_i != y_j` between the two actions (Lemma 6.4).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reduced {
    True,
    False,
    Conj(BTreeSet<(usize, usize)>),
}

/// An access point before simplification: `m:β:ds` or `m:β:i` (standing for `m:β:i:u` for
/// every value `u`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum RawPoint {
    Ds {
        method: usize,
        beta: u32,
    },
    Value {
        method: usize,
        beta: u32,
        param: usize,
    },
}

/// Which points of one method, by parameter (`None`: the `ds` point), a class holds, with the β
/// vectors for which it holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub method: usize,
    pub param: Option<usize>,
    pub betas: Vec<u32>,
}

/// A class of congruent access points: one point of the simplified representation. A valued
/// class stands for one point per value (`o:w:k` for every key `k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointClass {
    pub valued: bool,
    pub members: Vec<Member>,
    /// A readable name, e.g. `put.k[v != p]` or `put.k[v == p] | get.k`.
    pub name: String,
}

/// The access point representation of one object type, ready for Algorithm 1.
#[derive(Clone, Debug)]
pub struct Representation {
    /// `B(Φ, m)` per method.
    pub atoms: Vec<Vec<LocalAtom>>,
    pub classes: Vec<PointClass>,
    /// Per class, the classes it conflicts with (symmetric; valued classes conflict on equal
    /// values only).
    pub conflicts: Vec<Vec<u32>>,
    /// `[method][beta]`: the class of the `ds` point, if it conflicts with anything.
    ds_of: Vec<Vec<Option<u32>>>,
    /// `[method][beta * params + i]`: the class of the point of parameter `i`.
    value_of: Vec<Vec<Option<u32>>>,
    params: Vec<usize>,
    /// `[m1 * methods + m2]`: whether the pair is checked directly (its formula is not in ECL).
    direct: Vec<bool>,
    /// The rules outside ECL, with why.
    pub not_ecl: Vec<NotEcl>,
}

/// The rule for an ordered pair, oriented as written, as a formula in negation normal form.
struct OrientedRule {
    first: usize,
    second: usize,
    formula: Formula,
}

fn spec_error(pos: Pos, message: String) -> SyntaxError {
    SyntaxError { pos, message }
}

/// Translates the rules of `spec`. With `force_direct`, no pair is translated and every pair is
/// checked directly (the baseline of Section 5.1).
pub fn translate(spec: &ObjectSpec, force_direct: bool) -> Result<Representation, SyntaxError> {
    let n = spec.methods.len();
    let params: Vec<usize> = spec.methods.iter().map(|m| m.params.len()).collect();
    let mut direct = vec![false; n * n];
    let mut not_ecl = Vec::new();
    let mut rules = Vec::new();
    for a in 0..n {
        for b in a..n {
            // A pair that is not specified does not commute.
            let (first, second, formula, names) = match spec.rule(a, b) {
                Some((r, _)) => (r.first, r.second, nnf(&r.formula), r.names.clone()),
                None => (a, b, Formula::False, Default::default()),
            };
            let in_ecl = match classify_named(&formula, &names) {
                Ok(_) => true,
                Err(e) => {
                    not_ecl.push(e);
                    false
                }
            };
            if force_direct || !in_ecl {
                direct[a * n + b] = true;
                direct[b * n + a] = true;
                continue;
            }
            rules.push(OrientedRule {
                first,
                second,
                formula,
            });
        }
    }

    // B(Φ, m): the L_B atoms of every rule, normalised to the method they are about.
    let mut atoms: Vec<Vec<LocalAtom>> = vec![Vec::new(); n];
    for r in &rules {
        collect_atoms(&r.formula, r, &mut atoms);
    }
    for (m, list) in atoms.iter().enumerate() {
        if list.len() > MAX_ATOMS {
            return Err(spec_error(
                spec.methods[m].pos,
                format!(
                    "method `{}` is constrained by {} distinct conditions; at most {MAX_ATOMS} are supported",
                    spec.methods[m].name,
                    list.len()
                ),
            ));
        }
    }

    // The conflict relation R over raw points, then its symmetric closure.
    let mut rel: BTreeMap<RawPoint, BTreeSet<RawPoint>> = BTreeMap::new();
    let mut add = |p: RawPoint, q: RawPoint| {
        rel.entry(p).or_default().insert(q);
        rel.entry(q).or_default().insert(p);
    };
    for r in &rules {
        let (na, nb) = (atoms[r.first].len(), atoms[r.second].len());
        for beta_a in 0..1u32 << na {
            for beta_b in 0..1u32 << nb {
                match reduce(&r.formula, r, &atoms, beta_a, beta_b) {
                    Reduced::True => {}
                    Reduced::False => add(
                        RawPoint::Ds {
                            method: r.first,
                            beta: beta_a,
                        },
                        RawPoint::Ds {
                            method: r.second,
                            beta: beta_b,
                        },
                    ),
                    Reduced::Conj(lits) => {
                        for (i, j) in lits {
                            add(
                                RawPoint::Value {
                                    method: r.first,
                                    beta: beta_a,
                                    param: i,
                                },
                                RawPoint::Value {
                                    method: r.second,
                                    beta: beta_b,
                                    param: j,
                                },
                            );
                        }
                    }
                }
            }
        }
    }

    // Cleanup is implicit (only points with conflicts are in `rel`); replacement: points with
    // the same conflicts form one class.
    let mut class_of_row: BTreeMap<&BTreeSet<RawPoint>, u32> = BTreeMap::new();
    let mut class_of: BTreeMap<RawPoint, u32> = BTreeMap::new();
    let mut rows: Vec<&BTreeSet<RawPoint>> = Vec::new();
    for (p, row) in &rel {
        let next = class_of_row.len() as u32;
        let c = *class_of_row.entry(row).or_insert_with(|| {
            rows.push(row);
            next
        });
        class_of.insert(*p, c);
    }
    let conflicts: Vec<Vec<u32>> = rows
        .iter()
        .map(|row| {
            let set: BTreeSet<u32> = row.iter().map(|q| class_of[q]).collect();
            set.into_iter().collect()
        })
        .collect();

    let mut ds_of: Vec<Vec<Option<u32>>> =
        (0..n).map(|m| vec![None; 1 << atoms[m].len()]).collect();
    let mut value_of: Vec<Vec<Option<u32>>> = (0..n)
        .map(|m| vec![None; (1 << atoms[m].len()) * params[m]])
        .collect();
    // Per class: (method, parameter or `ds`) -> the β vectors.
    type Members = BTreeMap<(usize, Option<usize>), Vec<u32>>;
    let mut members: Vec<Members> = vec![BTreeMap::new(); rows.len()];
    for (p, &c) in &class_of {
        match *p {
            RawPoint::Ds { method, beta } => {
                ds_of[method][beta as usize] = Some(c);
                members[c as usize]
                    .entry((method, None))
                    .or_default()
                    .push(beta);
            }
            RawPoint::Value {
                method,
                beta,
                param,
            } => {
                value_of[method][beta as usize * params[method] + param] = Some(c);
                members[c as usize]
                    .entry((method, Some(param)))
                    .or_default()
                    .push(beta);
            }
        }
    }
    let classes = members
        .into_iter()
        .map(|ms| {
            let members: Vec<Member> = ms
                .into_iter()
                .map(|((method, param), betas)| Member {
                    method,
                    param,
                    betas,
                })
                .collect();
            let name = members
                .iter()
                .map(|m| member_name(spec, &atoms, m))
                .collect::<Vec<_>>()
                .join(" | ");
            PointClass {
                valued: members[0].param.is_some(),
                members,
                name,
            }
        })
        .collect();
    Ok(Representation {
        atoms,
        classes,
        conflicts,
        ds_of,
        value_of,
        params,
        direct,
        not_ecl,
    })
}

/// The side of an atom's parameters: `Some(side)` if all are on one side, `None` for a
/// constant-only atom; `Err` if it relates both actions.
fn atom_side(left: &Term, right: &Term) -> Result<Option<Side>, ()> {
    let side = |t: &Term| match t {
        Term::Param { side, .. } => Some(*side),
        Term::Const(_) => None,
    };
    match (side(left), side(right)) {
        (Some(a), Some(b)) if a != b => Err(()),
        (Some(a), _) | (_, Some(a)) => Ok(Some(a)),
        (None, None) => Ok(None),
    }
}

fn local(t: &Term) -> LocalTerm {
    match t {
        Term::Param { index, .. } => LocalTerm::Param(*index),
        Term::Const(c) => LocalTerm::Const(ConstKey::of(c)),
    }
}

fn collect_atoms(f: &Formula, r: &OrientedRule, atoms: &mut [Vec<LocalAtom>]) {
    match f {
        Formula::True | Formula::False => {}
        Formula::Atom {
            cmp, left, right, ..
        } => {
            if let Ok(Some(side)) = atom_side(left, right) {
                let m = if side == Side::First {
                    r.first
                } else {
                    r.second
                };
                let (atom, _) = LocalAtom::canonical(*cmp, local(left), local(right));
                if !atoms[m].contains(&atom) {
                    atoms[m].push(atom);
                }
            }
        }
        Formula::Not(g, _) => collect_atoms(g, r, atoms),
        Formula::And(fs) | Formula::Or(fs) => {
            for g in fs {
                collect_atoms(g, r, atoms);
            }
        }
    }
}

/// `φ[β_a; β_b]` reduced to L_S (the formula is in ECL and in negation normal form).
fn reduce(
    f: &Formula,
    r: &OrientedRule,
    atoms: &[Vec<LocalAtom>],
    beta_a: u32,
    beta_b: u32,
) -> Reduced {
    let truth = |b: bool| if b { Reduced::True } else { Reduced::False };
    match f {
        Formula::True => Reduced::True,
        Formula::False => Reduced::False,
        Formula::Atom {
            cmp, left, right, ..
        } => match atom_side(left, right) {
            Ok(None) => truth(cmp.holds(left.eval(&[], &[]), right.eval(&[], &[]))),
            Ok(Some(side)) => {
                let (m, beta) = if side == Side::First {
                    (r.first, beta_a)
                } else {
                    (r.second, beta_b)
                };
                let (atom, positive) = LocalAtom::canonical(*cmp, local(left), local(right));
                let bit = atoms[m].iter().position(|a| *a == atom).expect("collected");
                truth((beta >> bit & 1 == 1) == positive)
            }
            Err(()) => {
                // In ECL an atom relating both actions is `x != y` (Definition 6.1).
                let (i, j) = match (left, right) {
                    (
                        Term::Param {
                            side: Side::First,
                            index: i,
                        },
                        Term::Param { index: j, .. },
                    )
                    | (
                        Term::Param { index: j, .. },
                        Term::Param {
                            side: Side::First,
                            index: i,
                        },
                    ) => (*i, *j),
                    _ => unreachable!("atom_side found parameters of both sides"),
                };
                debug_assert_eq!(*cmp, Cmp::Ne);
                Reduced::Conj(BTreeSet::from([(i, j)]))
            }
        },
        Formula::Not(..) => unreachable!("formulas are in negation normal form"),
        Formula::And(fs) => {
            let mut lits = BTreeSet::new();
            for g in fs {
                match reduce(g, r, atoms, beta_a, beta_b) {
                    Reduced::False => return Reduced::False,
                    Reduced::True => {}
                    Reduced::Conj(l) => lits.extend(l),
                }
            }
            if lits.is_empty() {
                Reduced::True
            } else {
                Reduced::Conj(lits)
            }
        }
        Formula::Or(fs) => {
            // X ∨ B: at most one disjunct still relates the two actions once β is known.
            let mut rest = Reduced::False;
            for g in fs {
                match reduce(g, r, atoms, beta_a, beta_b) {
                    Reduced::True => return Reduced::True,
                    Reduced::False => {}
                    conj => rest = conj,
                }
            }
            rest
        }
    }
}

/// A readable name for a member: `put.k[v != p]`, `size`, ...
fn member_name(spec: &ObjectSpec, atoms: &[Vec<LocalAtom>], m: &Member) -> String {
    let method = &spec.methods[m.method];
    let mut name = match m.param {
        Some(i) => format!("{}.{}", method.name, method.params[i]),
        None => method.name.clone(),
    };
    let cond = describe(&atoms[m.method], &m.betas, &method.params);
    if cond != "true" {
        let _ = write!(name, "[{cond}]");
    }
    name
}

/// A short DNF for a set of β vectors (Quine-McCluskey prime implicants, greedy cover).
fn describe(atoms: &[LocalAtom], betas: &[u32], names: &[String]) -> String {
    let n = atoms.len();
    if betas.len() == 1 << n {
        return "true".into();
    }
    // Implicants as (value, don't-care mask).
    let mut level: BTreeSet<(u32, u32)> = betas.iter().map(|&b| (b, 0)).collect();
    let mut primes: BTreeSet<(u32, u32)> = BTreeSet::new();
    while !level.is_empty() {
        let mut next = BTreeSet::new();
        let mut merged = BTreeSet::new();
        let items: Vec<(u32, u32)> = level.iter().copied().collect();
        for (x, &(v1, m1)) in items.iter().enumerate() {
            for &(v2, m2) in &items[x + 1..] {
                let diff = v1 ^ v2;
                if m1 == m2 && diff.count_ones() == 1 {
                    next.insert((v1 & !diff, m1 | diff));
                    merged.insert((v1, m1));
                    merged.insert((v2, m2));
                }
            }
        }
        primes.extend(items.into_iter().filter(|i| !merged.contains(i)));
        level = next;
    }
    let covers = |(v, m): (u32, u32), b: u32| b & !m == v & !m;
    let mut uncovered: BTreeSet<u32> = betas.iter().copied().collect();
    let mut terms = Vec::new();
    while !uncovered.is_empty() {
        let best = *primes
            .iter()
            .max_by_key(|&&p| uncovered.iter().filter(|&&b| covers(p, b)).count())
            .expect("primes cover every minterm");
        uncovered.retain(|&b| !covers(best, b));
        terms.push(best);
    }
    let mut out: Vec<String> = terms
        .iter()
        .map(|&(v, m)| {
            let lits: Vec<String> = (0..n)
                .filter(|&i| m >> i & 1 == 0)
                .map(|i| atoms[i].render(names, v >> i & 1 == 1))
                .collect();
            lits.join(" && ")
        })
        .collect();
    out.sort();
    if out.len() == 1 {
        out.pop().expect("one term")
    } else {
        out.iter()
            .map(|t| {
                if t.contains("&&") {
                    format!("({t})")
                } else {
                    t.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" || ")
    }
}

impl Representation {
    /// The β vector of an action of `method` with these parameter values.
    #[inline]
    pub fn beta<'a>(&'a self, method: usize, vals: &[Val<'a>]) -> u32 {
        self.beta_by(method, |i| vals[i])
    }

    /// [`Representation::beta`] with the values given by a function, so that a caller
    /// converts only the parameters the atoms read.
    #[inline]
    pub fn beta_by<'a>(&'a self, method: usize, param: impl Fn(usize) -> Val<'a> + Copy) -> u32 {
        let mut beta = 0;
        for (bit, atom) in self.atoms[method].iter().enumerate() {
            beta |= u32::from(atom.eval(param)) << bit;
        }
        beta
    }

    /// The class of the `ds` point an action touches, if it conflicts with anything.
    #[inline]
    pub fn ds_point(&self, method: usize, beta: u32) -> Option<u32> {
        self.ds_of[method][beta as usize]
    }

    /// Per parameter, the class of the valued point an action touches.
    #[inline]
    pub fn value_points(&self, method: usize, beta: u32) -> &[Option<u32>] {
        let p = self.params[method];
        &self.value_of[method][beta as usize * p..(beta as usize + 1) * p]
    }

    /// Whether the pair is checked directly (its formula is not in ECL).
    #[inline]
    pub fn is_direct(&self, a: usize, b: usize) -> bool {
        self.direct[a * self.params.len() + b]
    }

    /// Whether any pair is checked directly.
    pub fn has_direct(&self) -> bool {
        self.direct.iter().any(|&d| d)
    }

    /// The largest number of classes any class conflicts with: the bound of Theorem 6.6 on the
    /// work per access point.
    pub fn max_conflicts(&self) -> usize {
        self.conflicts.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The representation, for people: the atoms, the points each action touches and when, and
    /// the conflict relation.
    pub fn explain(&self, spec: &ObjectSpec) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "object {}", spec.name);
        let _ = writeln!(out, "  access points ({}):", self.classes.len());
        for (i, c) in self.classes.iter().enumerate() {
            let _ = writeln!(
                out,
                "    P{i}{}  {}",
                if c.valued { "(u)" } else { "   " },
                c.name
            );
        }
        let _ = writeln!(out, "  conflicts:");
        let mut any = false;
        for (i, cs) in self.conflicts.iter().enumerate() {
            for &j in cs {
                if j as usize >= i {
                    any = true;
                    let same = if self.classes[i].valued {
                        " on equal values"
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "    P{i} -- P{j}{same}");
                }
            }
        }
        if !any {
            let _ = writeln!(out, "    none");
        }
        let _ = writeln!(out, "  actions:");
        for (m, method) in spec.methods.iter().enumerate() {
            let args = method.params[..method.args].join(", ");
            let results = &method.params[method.args..];
            let sig = match results.len() {
                0 => format!("{}({args})", method.name),
                1 => format!("{}({args}) -> {}", method.name, results[0]),
                _ => format!("{}({args}) -> ({})", method.name, results.join(", ")),
            };
            let mut touches: Vec<String> = Vec::new();
            for (ci, c) in self.classes.iter().enumerate() {
                for mem in c.members.iter().filter(|mem| mem.method == m) {
                    let cond = describe(&self.atoms[m], &mem.betas, &method.params);
                    let point = match mem.param {
                        Some(p) => format!("P{ci}({})", method.params[p]),
                        None => format!("P{ci}"),
                    };
                    touches.push(if cond == "true" {
                        point
                    } else {
                        format!("{point} when {cond}")
                    });
                }
            }
            if touches.is_empty() {
                touches.push("nothing (commutes with every action)".into());
            }
            let _ = writeln!(out, "    {sig}: {}", touches.join("; "));
        }
        for (a, ma) in spec.methods.iter().enumerate() {
            for (b, mb) in spec.methods.iter().enumerate().skip(a) {
                if self.is_direct(a, b) {
                    let _ = writeln!(
                        out,
                        "  checked directly (formula outside ECL): {}, {}",
                        ma.name, mb.name
                    );
                }
            }
        }
        for e in &self.not_ecl {
            let _ = writeln!(out, "  not in ECL: {e}");
        }
        out
    }
}
