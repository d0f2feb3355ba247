//! The parser of spec files: a hand-written lexer, a recursive-descent parser into a raw syntax
//! tree that keeps every name with its place, and a checking pass that resolves names and turns
//! the tree into a [`SpecFile`].
//!
//! ```text
//! file    := object*
//! object  := 'object' IDENT '{' (method | rule)* '}'
//! method  := 'method' IDENT '(' params? ')' ('->' results)? ';'
//! rule    := 'commute' header ',' header ':' or ';'
//! header  := IDENT ('(' params? ')' ('->' results)?)?       -- a bare IDENT names no parameters
//! results := IDENT | '(' params? ')'
//! params  := IDENT (',' IDENT)*
//! or      := and ('||' and)*
//! and     := unary ('&&' unary)*
//! unary   := '!' unary | '(' or ')' | 'true' | 'false' | term cmp term
//! cmp     := '==' | '!=' | '<' | '<=' | '>' | '>='
//! term    := IDENT | INT | 'nil' | 'true' | 'false' | STRING
//! ```
//!
//! Comments run from `#` or `//` to the end of the line. `true` and `false` are formulas unless
//! a comparison follows them, in which case they are the symbols `true` and `false`; `true`,
//! `false` and `nil` cannot name parameters. Rules and methods may come in any order within an
//! object. Syntax errors are reported first, then the errors of the checking pass, object by
//! object and rule by rule. Parentheses and `!` nest at most
//! [`MAX_NESTING`](hindsight_syntax::MAX_NESTING) deep.
//!
//! A rule relating a method to itself must be symmetric (Definition 4.1): `φ(x1; x2)` must be
//! equivalent to `φ(x2; x1)`. This is checked by evaluating both on every assignment of values
//! to the parameters the formula mentions, drawn from a finite domain: the constants of the
//! formula and, between any two consecutive constants (in the total order of values) and
//! beyond them, as many further values as there are parameters, where the gap has that many.
//! Atoms only compare, so every way the parameters can be ordered against each other and the
//! constants is covered, and the check is complete (up to gaps between strings, which are
//! approximated). When the domain has more than [`SYMMETRY_LIMIT`] assignments, a fixed
//! pseudo-random sample of that many is checked instead, which may miss an asymmetry.

use super::ecl::render_const;
use super::spec::{Cmp, Commute, Const, Formula, Method, ObjectSpec, Side, SpecFile, Term, Val};
use hindsight_rng::SplitMix64;
use hindsight_syntax::{tokenize, Cursor, Pos, Span, SyntaxError, Token};
use std::collections::BTreeSet;

/// Most assignments the symmetry check enumerates before it samples instead.
pub const SYMMETRY_LIMIT: u64 = 2_000_000;

/// Parses a spec file. Errors carry line and column (1-based, in characters).
pub fn parse(text: &str) -> Result<SpecFile, SyntaxError> {
    let c = Cursor::new(lex(text)?, describe);
    let objects = Parser { c }.file()?;
    check(objects)
}

// ---------------------------------------------------------------------------------------------
// Lexer

fn describe(t: &Token) -> String {
    match t {
        Token::Str(s) => format!("string {}", render_const(&Const::Str(s.clone()))),
        t => t.to_string(),
    }
}

/// Longest first, so that `<=` wins over `<`.
const PUNCTS: [&str; 17] = [
    "->", "==", "!=", "<=", ">=", "&&", "||", "{", "}", "(", ")", ",", ";", ":", "<", ">", "!",
];
const CMPS: [&str; 6] = ["==", "!=", "<", "<=", ">", ">="];

fn lex(text: &str) -> Result<Vec<(Token, Span)>, SyntaxError> {
    tokenize(text, |s, c, _| {
        let start = s.pos();
        let token = if c.is_whitespace() {
            s.bump();
            return Ok(None);
        } else if c == '#' || s.rest().starts_with("//") {
            s.skip_line();
            return Ok(None);
        } else if c.is_ascii_alphabetic() || c == '_' {
            Token::Ident(
                s.eat_while(|c| c.is_ascii_alphanumeric() || c == '_')
                    .to_owned(),
            )
        } else if c.is_ascii_digit()
            || (c == '-' && s.peek_nth(1).is_some_and(|d| d.is_ascii_digit()))
        {
            Token::Int(s.integer().map_err(|digits| {
                SyntaxError::new(start, format!("integer `{digits}` does not fit in 64 bits"))
            })?)
        } else if c == '"' {
            Token::Str(s.string_literal("unterminated string", |c, at| match c {
                Some('"') => Ok('"'),
                Some('\\') => Ok('\\'),
                Some('n') => Ok('\n'),
                Some('t') => Ok('\t'),
                Some('r') => Ok('\r'),
                None | Some('\n') => Err(SyntaxError::new(start, "unterminated string")),
                Some(other) => Err(SyntaxError::new(
                    at,
                    format!("unknown escape `\\{other}` in string (known: \\\" \\\\ \\n \\t \\r)"),
                )),
            })?)
        } else {
            s.punct(&PUNCTS).map_err(|mut e| {
                e.message += match c {
                    '=' => " (did you mean `==`?)",
                    '&' => " (did you mean `&&`?)",
                    '|' => " (did you mean `||`?)",
                    _ => "",
                };
                e
            })?
        };
        Ok(Some(token))
    })
}

// ---------------------------------------------------------------------------------------------
// Raw syntax

type Name = (String, Pos);

struct RawObject {
    name: Name,
    methods: Vec<RawMethod>,
    rules: Vec<RawRule>,
}

struct RawMethod {
    name: Name,
    args: Vec<Name>,
    results: Vec<Name>,
}

/// One side of a rule: `put(k1, v1) -> p1`, or `put` alone.
struct RawHeader {
    method: Name,
    full: Option<FullHeader>,
}

struct FullHeader {
    args: Vec<Name>,
    /// The `)` closing the arguments.
    args_close: Pos,
    results: Vec<Name>,
    /// The last token of the header.
    end: Pos,
}

struct RawRule {
    pos: Pos,
    sides: [RawHeader; 2],
    formula: RawFormula,
    formula_pos: Pos,
}

enum RawTerm {
    Name(Name),
    Const(Const),
}

enum RawFormula {
    True,
    False,
    Atom {
        cmp: Cmp,
        left: RawTerm,
        right: RawTerm,
        pos: Pos,
    },
    Not(Box<RawFormula>, Pos),
    And(Vec<RawFormula>),
    Or(Vec<RawFormula>),
}

// ---------------------------------------------------------------------------------------------
// Parser

struct Parser {
    c: Cursor,
}

type PResult<T> = Result<T, SyntaxError>;

/// An error if a method (or a rule's header of it) has more parameters than an action can
/// carry, said as [`super::CompiledSpec::compile`] says it.
fn too_many_params(method: &Name, count: usize) -> PResult<()> {
    if count <= super::MAX_PARAMS {
        return Ok(());
    }
    Err(SyntaxError::new(
        method.1,
        format!(
            "method `{}` has {count} parameters; at most {} are supported",
            method.0,
            super::MAX_PARAMS
        ),
    ))
}

impl Parser {
    fn param(&mut self) -> PResult<Name> {
        let (name, pos) = self.c.ident("a parameter name", &[])?;
        if matches!(name.as_str(), "true" | "false" | "nil") {
            return Err(SyntaxError::new(
                pos,
                format!("`{name}` is a constant and cannot name a parameter"),
            ));
        }
        Ok((name, pos))
    }

    /// `( params? )` after the `(`; returns the names and the closing `)`.
    fn param_list(&mut self) -> PResult<(Vec<Name>, Pos)> {
        let mut names = Vec::new();
        if self.c.is(")") {
            return Ok((names, self.c.bump()));
        }
        loop {
            names.push(self.param()?);
            if self.c.is(")") {
                return Ok((names, self.c.bump()));
            }
            self.c.expect_as(",", "`,` or `)`")?;
        }
    }

    /// `-> p` or `-> (a, b)`, if present; returns the names and the last token.
    fn results(&mut self) -> PResult<Option<(Vec<Name>, Pos)>> {
        if !self.c.eat("->") {
            return Ok(None);
        }
        if self.c.eat("(") {
            return self.param_list().map(Some);
        }
        let (name, pos) = self.param()?;
        Ok(Some((vec![(name, pos)], pos)))
    }

    fn file(mut self) -> PResult<Vec<RawObject>> {
        let mut objects = Vec::new();
        while *self.c.peek() != Token::End {
            if !self.c.is_word("object") {
                return Err(self.c.expected("`object`"));
            }
            self.c.bump();
            objects.push(self.object()?);
        }
        Ok(objects)
    }

    fn object(&mut self) -> PResult<RawObject> {
        let name = self.c.ident("an object name", &[])?;
        self.c.expect_as("{", "`{`")?;
        let mut object = RawObject {
            name,
            methods: Vec::new(),
            rules: Vec::new(),
        };
        loop {
            if self.c.eat("}") {
                return Ok(object);
            } else if self.c.is_word("method") {
                self.c.bump();
                object.methods.push(self.method()?);
            } else if self.c.is_word("commute") {
                let pos = self.c.bump();
                object.rules.push(self.rule(pos)?);
            } else {
                return Err(self.c.expected("`method`, `commute` or `}`"));
            }
        }
    }

    fn method(&mut self) -> PResult<RawMethod> {
        let name = self.c.ident("a method name", &[])?;
        self.c.expect_as("(", "`(`")?;
        let (args, _) = self.param_list()?;
        let results = self.results()?.map(|(r, _)| r).unwrap_or_default();
        // Refused here, before the rules are parsed and translated (whose work grows with the
        // parameters, far past what the limit allows), rather than when the spec is compiled.
        too_many_params(&name, args.len() + results.len())?;
        self.c.expect_as(";", "`->` or `;`")?;
        Ok(RawMethod {
            name,
            args,
            results,
        })
    }

    fn header(&mut self) -> PResult<RawHeader> {
        let method = self.c.ident("a method name", &[])?;
        if !self.c.eat("(") {
            return Ok(RawHeader { method, full: None });
        }
        let (args, args_close) = self.param_list()?;
        let (results, end) = self.results()?.unwrap_or((Vec::new(), args_close));
        too_many_params(&method, args.len() + results.len())?;
        Ok(RawHeader {
            method,
            full: Some(FullHeader {
                args,
                args_close,
                results,
                end,
            }),
        })
    }

    fn rule(&mut self, pos: Pos) -> PResult<RawRule> {
        let first = self.header()?;
        let expected = if first.full.is_some() {
            "`,`"
        } else {
            "`(` or `,`"
        };
        self.c.expect_as(",", expected)?;
        let second = self.header()?;
        let expected = match &second.full {
            None => "`(` or `:`",
            Some(h) if h.results.is_empty() => "`->` or `:`",
            Some(_) => "`:`",
        };
        self.c.expect_as(":", expected)?;
        let formula_pos = self.c.pos();
        let formula = self.or()?;
        self.c.expect_as(";", "`&&`, `||` or `;`")?;
        Ok(RawRule {
            pos,
            sides: [first, second],
            formula,
            formula_pos,
        })
    }

    fn or(&mut self) -> PResult<RawFormula> {
        let mut fs = Vec::new();
        loop {
            match self.and()? {
                RawFormula::Or(inner) => fs.extend(inner),
                f => fs.push(f),
            }
            if !self.c.eat("||") {
                break;
            }
        }
        Ok(if fs.len() == 1 {
            fs.pop().expect("one disjunct")
        } else {
            RawFormula::Or(fs)
        })
    }

    fn and(&mut self) -> PResult<RawFormula> {
        let mut fs = Vec::new();
        loop {
            match self.unary()? {
                RawFormula::And(inner) => fs.extend(inner),
                f => fs.push(f),
            }
            if !self.c.eat("&&") {
                break;
            }
        }
        Ok(if fs.len() == 1 {
            fs.pop().expect("one conjunct")
        } else {
            RawFormula::And(fs)
        })
    }

    fn is_cmp(t: &Token) -> bool {
        matches!(t, Token::Punct(p) if CMPS.contains(p))
    }

    fn unary(&mut self) -> PResult<RawFormula> {
        if self.c.is("!") {
            let pos = self.c.bump();
            self.c.enter()?;
            let f = self.unary()?;
            self.c.leave();
            return Ok(RawFormula::Not(Box::new(f), pos));
        }
        if self.c.eat("(") {
            self.c.enter()?;
            let f = self.or()?;
            self.c.leave();
            self.c.expect_as(")", "`&&`, `||` or `)`")?;
            return Ok(f);
        }
        if let Token::Ident(s) = self.c.peek() {
            if !Self::is_cmp(self.c.peek_n(1)) {
                match s.as_str() {
                    "true" => {
                        self.c.bump();
                        return Ok(RawFormula::True);
                    }
                    "false" => {
                        self.c.bump();
                        return Ok(RawFormula::False);
                    }
                    _ => {}
                }
            }
        }
        let pos = self.c.pos();
        let left_tok = self.c.found();
        let left = self.term("a formula (`!`, `(`, `true`, `false` or a comparison)")?;
        let cmp = match self.c.peek() {
            Token::Punct(p) if CMPS.contains(p) => *p,
            _ => {
                return Err(self.c.expected(&format!(
                    "a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) after {left_tok}"
                )))
            }
        };
        self.c.bump();
        let right = self.term(&format!("a parameter or a constant after `{cmp}`"))?;
        let (cmp, left, right) = match cmp {
            "==" => (Cmp::Eq, left, right),
            "!=" => (Cmp::Ne, left, right),
            "<" => (Cmp::Lt, left, right),
            "<=" => (Cmp::Le, left, right),
            ">" => (Cmp::Lt, right, left),
            _ => (Cmp::Le, right, left),
        };
        Ok(RawFormula::Atom {
            cmp,
            left,
            right,
            pos,
        })
    }

    fn term(&mut self, expected: &str) -> PResult<RawTerm> {
        let term = match self.c.peek() {
            Token::Ident(s) => match s.as_str() {
                "nil" => RawTerm::Const(Const::Nil),
                "true" | "false" => RawTerm::Const(Const::Sym(s.clone())),
                _ => RawTerm::Name((s.clone(), self.c.pos())),
            },
            Token::Int(i) => RawTerm::Const(Const::Int(*i)),
            Token::Str(s) => RawTerm::Const(Const::Str(s.clone())),
            _ => return Err(self.c.expected(expected)),
        };
        self.c.bump();
        Ok(term)
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

fn check(objects: Vec<RawObject>) -> PResult<SpecFile> {
    let mut file = SpecFile::default();
    for raw in objects {
        let (name, pos) = &raw.name;
        if let Some(prev) = file.objects.iter().find(|o| &o.name == name) {
            return Err(SyntaxError::new(
                *pos,
                format!("duplicate object `{name}` (first declared at {})", prev.pos),
            ));
        }
        file.objects.push(check_object(raw)?);
    }
    Ok(file)
}

fn check_object(raw: RawObject) -> PResult<ObjectSpec> {
    let (name, pos) = raw.name;
    let mut object = ObjectSpec {
        name,
        methods: Vec::new(),
        rules: Vec::new(),
        pos,
    };
    for m in raw.methods {
        let (name, pos) = m.name;
        if let Some(prev) = object.methods.iter().find(|p| p.name == name) {
            return Err(SyntaxError::new(
                pos,
                format!(
                    "duplicate method `{name}` in object `{}` (first declared at {})",
                    object.name, prev.pos
                ),
            ));
        }
        let params: Vec<&Name> = m.args.iter().chain(&m.results).collect();
        for (i, (p, ppos)) in params.iter().enumerate() {
            if let Some((_, first)) = params[..i].iter().find(|(q, _)| q == p) {
                return Err(SyntaxError::new(
                    *ppos,
                    format!(
                        "parameter `{p}` of method `{name}` is declared twice (first at {first})"
                    ),
                ));
            }
        }
        object.methods.push(Method {
            name,
            params: params.into_iter().map(|(p, _)| p.clone()).collect(),
            args: m.args.len(),
            pos,
        });
    }
    for rule in raw.rules {
        let checked = check_rule(&object, rule)?;
        object.rules.push(checked);
    }
    Ok(object)
}

fn check_rule(object: &ObjectSpec, rule: RawRule) -> PResult<Commute> {
    let mut index = [0usize; 2];
    for (side, h) in rule.sides.iter().enumerate() {
        let (name, pos) = &h.method;
        index[side] = object.method(name).ok_or_else(|| {
            let known: Vec<&str> = object.methods.iter().map(|m| m.name.as_str()).collect();
            let known = if known.is_empty() {
                "it declares none".to_owned()
            } else {
                format!("its methods: {}", known.join(", "))
            };
            SyntaxError::new(
                *pos,
                format!(
                    "unknown method `{name}` in object `{}` ({known})",
                    object.name
                ),
            )
        })?;
    }
    let mut names: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    for (side, h) in rule.sides.iter().enumerate() {
        let Some(full) = &h.full else { continue };
        let m = &object.methods[index[side]];
        if full.args.len() != m.args {
            let pos = full.args.get(m.args).map_or(full.args_close, |a| a.1);
            return Err(SyntaxError::new(
                pos,
                format!(
                    "wrong number of arguments for `{}`: expected {}, got {}",
                    m.name,
                    m.args,
                    full.args.len()
                ),
            ));
        }
        if full.results.len() != m.results() {
            let pos = full.results.get(m.results()).map_or(full.end, |r| r.1);
            return Err(SyntaxError::new(
                pos,
                format!(
                    "wrong number of results for `{}`: expected {}, got {}",
                    m.name,
                    m.results(),
                    full.results.len()
                ),
            ));
        }
        names[side] = full
            .args
            .iter()
            .chain(&full.results)
            .map(|(n, _)| n.clone())
            .collect();
    }
    let all: Vec<&Name> = rule
        .sides
        .iter()
        .filter_map(|h| h.full.as_ref())
        .flat_map(|f| f.args.iter().chain(&f.results))
        .collect();
    for (i, (p, pos)) in all.iter().enumerate() {
        if let Some((_, first)) = all[..i].iter().find(|(q, _)| q == p) {
            return Err(SyntaxError::new(
                *pos,
                format!("parameter `{p}` is named twice in the rule (first at {first})"),
            ));
        }
    }
    let method_names = [&rule.sides[0].method.0, &rule.sides[1].method.0];
    let formula = resolve(&rule.formula, &names, &|name: &str, pos: Pos| {
        let all: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
        let shorthand = rule.sides.iter().any(|h| h.full.is_none());
        let message = if all.is_empty() && shorthand {
            let example =
                |side: usize, suffix: usize| example_header(&object.methods[index[side]], suffix);
            format!(
                "`{name}` is not a parameter: `commute {}, {}` names no parameters; write the \
                 headers in full to use them, e.g. `commute {}, {} : ...`",
                method_names[0],
                method_names[1],
                example(0, 1),
                example(1, 2)
            )
        } else if all.is_empty() {
            format!("`{name}` is not a parameter of this rule (it has none)")
        } else {
            format!(
                "`{name}` is not a parameter of this rule (its parameters: {})",
                all.join(", ")
            )
        };
        SyntaxError::new(pos, message)
    })?;
    let (first, second) = (index[0], index[1]);
    if let Some(prev) = object
        .rules
        .iter()
        .find(|r| (r.first, r.second) == (first, second) || (r.first, r.second) == (second, first))
    {
        return Err(SyntaxError::new(
            rule.pos,
            format!(
                "duplicate rule for `{}` and `{}` (first given at {})",
                method_names[0], method_names[1], prev.pos
            ),
        ));
    }
    if first == second {
        check_symmetric(&formula, &object.methods[first], &names, rule.formula_pos)?;
    }
    Ok(Commute {
        first,
        second,
        names,
        formula,
        pos: rule.pos,
    })
}

/// `put(k1, v1) -> p1` for method `put(k, v) -> p` and suffix 1.
fn example_header(m: &Method, suffix: usize) -> String {
    let named: Vec<String> = m.params.iter().map(|p| format!("{p}{suffix}")).collect();
    let (args, results) = named.split_at(m.args);
    let mut s = format!("{}({})", m.name, args.join(", "));
    match results {
        [] => {}
        [r] => s.push_str(&format!(" -> {r}")),
        rs => s.push_str(&format!(" -> ({})", rs.join(", "))),
    }
    s
}

fn resolve(
    f: &RawFormula,
    names: &[Vec<String>; 2],
    unknown: &dyn Fn(&str, Pos) -> SyntaxError,
) -> PResult<Formula> {
    let term = |t: &RawTerm| -> PResult<Term> {
        match t {
            RawTerm::Const(c) => Ok(Term::Const(c.clone())),
            RawTerm::Name((name, pos)) => {
                for (side, list) in [Side::First, Side::Second].into_iter().zip(names) {
                    if let Some(index) = list.iter().position(|n| n == name) {
                        return Ok(Term::Param { side, index });
                    }
                }
                Err(unknown(name, *pos))
            }
        }
    };
    let all = |fs: &[RawFormula]| -> PResult<Vec<Formula>> {
        fs.iter().map(|g| resolve(g, names, unknown)).collect()
    };
    Ok(match f {
        RawFormula::True => Formula::True,
        RawFormula::False => Formula::False,
        RawFormula::Atom {
            cmp,
            left,
            right,
            pos,
        } => Formula::Atom {
            cmp: *cmp,
            left: term(left)?,
            right: term(right)?,
            pos: *pos,
        },
        RawFormula::Not(g, pos) => Formula::Not(Box::new(resolve(g, names, unknown)?), *pos),
        RawFormula::And(fs) => Formula::And(all(fs)?),
        RawFormula::Or(fs) => Formula::Or(all(fs)?),
    })
}

// ---------------------------------------------------------------------------------------------
// Symmetry

fn visit_terms<'f>(f: &'f Formula, out: &mut dyn FnMut(&'f Term)) {
    match f {
        Formula::True | Formula::False => {}
        Formula::Atom { left, right, .. } => {
            out(left);
            out(right);
        }
        Formula::Not(g, _) => visit_terms(g, out),
        Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(|g| visit_terms(g, out)),
    }
}

/// The values the symmetry check draws from: the constants, then, for every gap between
/// consecutive constants (and below and above them all), up to `per_gap` values in it.
fn symmetry_domain(consts: &[Const], per_gap: usize) -> Vec<Const> {
    let mut sorted: Vec<Const> = Vec::new();
    for c in consts {
        if !sorted.contains(c) {
            sorted.push(c.clone());
        }
    }
    sorted.sort_by(|a, b| a.val().cmp(&b.val()));

    // Candidates, most readable first.
    let mut pool: Vec<Const> = Vec::new();
    let ints: Vec<i64> = sorted
        .iter()
        .filter_map(|c| match c {
            Const::Int(i) => Some(*i),
            _ => None,
        })
        .collect();
    if ints.is_empty() {
        pool.extend((1..=per_gap as i64).map(Const::Int));
    }
    for d in 1..=per_gap as i64 {
        for &c in &ints {
            pool.extend(c.checked_add(d).map(Const::Int));
            pool.extend(c.checked_sub(d).map(Const::Int));
        }
    }
    pool.push(Const::Nil);
    for c in &sorted {
        for i in 0..per_gap {
            match c {
                Const::Sym(s) => pool.push(Const::Sym(format!("{s}{i}"))),
                Const::Str(s) => pool.push(Const::Str(format!("{s}{i}"))),
                _ => {}
            }
        }
    }

    // Fallbacks, for gaps the values above do not reach (such as above `i64::MAX`).
    for i in 0..per_gap {
        pool.push(Const::Sym(format!("s{i}")));
        pool.push(Const::Str(format!("s{i}")));
    }

    let mut domain = sorted.clone();
    for gap in 0..=sorted.len() {
        let below = gap.checked_sub(1).map(|g| sorted[g].val());
        let above = sorted.get(gap).map(Const::val);
        let mut taken = 0;
        for c in &pool {
            if taken == per_gap {
                break;
            }
            let v = c.val();
            if below.is_none_or(|b| b < v) && above.is_none_or(|a| v < a) && !domain.contains(c) {
                domain.push(c.clone());
                taken += 1;
            }
        }
    }
    domain
}

/// Checks that `formula`, a rule relating `method` to itself, is symmetric (see the module
/// documentation for how).
fn check_symmetric(
    formula: &Formula,
    method: &Method,
    names: &[Vec<String>; 2],
    pos: Pos,
) -> PResult<()> {
    let mut relevant = BTreeSet::new();
    let mut consts = Vec::new();
    visit_terms(formula, &mut |t| match t {
        Term::Param { index, .. } => {
            relevant.insert(*index);
        }
        Term::Const(c) => consts.push(c.clone()),
    });
    if relevant.is_empty() {
        return Ok(());
    }
    let relevant: Vec<usize> = relevant.into_iter().collect();
    let r = relevant.len();
    let vars = 2 * r;
    let domain = symmetry_domain(&consts, vars);
    let vals: Vec<Val<'_>> = domain.iter().map(Const::val).collect();
    let d = vals.len();
    let n = method.params.len();
    let mut a = vec![Val::Nil; n];
    let mut b = vec![Val::Nil; n];
    let mut choice = vec![0usize; vars];
    // Whether the formula changes when the actions are swapped, and its value before.
    let mut asymmetric = |choice: &[usize]| -> Option<bool> {
        for (j, &i) in relevant.iter().enumerate() {
            a[i] = vals[choice[j]];
            b[i] = vals[choice[r + j]];
        }
        let before = formula.eval(&a, &b);
        (before != formula.eval(&b, &a)).then_some(before)
    };
    let total = (d as u64).checked_pow(vars as u32).unwrap_or(u64::MAX);
    let mut found = None;
    if total <= SYMMETRY_LIMIT {
        'all: loop {
            if let Some(before) = asymmetric(&choice) {
                found = Some(before);
                break;
            }
            // The next assignment, the last parameter fastest.
            for k in (0..vars).rev() {
                choice[k] += 1;
                if choice[k] < d {
                    continue 'all;
                }
                choice[k] = 0;
            }
            break;
        }
    } else {
        let mut rng = SplitMix64::new(0x5EED_C0DE);
        for _ in 0..SYMMETRY_LIMIT {
            for c in choice.iter_mut() {
                *c = rng.modulo(d as u64) as usize;
            }
            if let Some(before) = asymmetric(&choice) {
                found = Some(before);
                break;
            }
        }
    }
    let Some(before) = found else { return Ok(()) };
    let name = |side: usize, i: usize| {
        names[side]
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("{}{}", method.params[i], side + 1))
    };
    let mut assignment = Vec::new();
    for side in 0..2 {
        for (j, &i) in relevant.iter().enumerate() {
            let value = render_const(&domain[choice[side * r + j]]);
            assignment.push(format!("{}={value}", name(side, i)));
        }
    }
    Err(SyntaxError::new(
        pos,
        format!(
            "commute {m}, {m} is not symmetric: with {}, swapping the two actions changes the \
             result (from {before} to {})",
            assignment.join(", "),
            !before,
            m = method.name,
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "\
# the dictionary of Fig. 6
object Map {
  method put(k, v) -> p;  method get(k) -> v;  method size() -> r;   // results
  commute put(k1, v1) -> p1, put(k2, v2) -> p2 : k1 != k2 || (v1 == p1 && v2 == p2);
  commute put(k1, v1) -> p1, get(k2) -> v2     : k1 != k2 || v1 == p1;
  commute put(k1, v1) -> p1, size() -> r       : (v1 == nil && p1 == nil) || (v1 != nil && p1 != nil);
  commute get, get : true;  commute get, size : true;  commute size, size : true;
}
";

    fn p1(index: usize) -> Term {
        Term::Param {
            side: Side::First,
            index,
        }
    }

    fn p2(index: usize) -> Term {
        Term::Param {
            side: Side::Second,
            index,
        }
    }

    fn at(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    fn atom(cmp: Cmp, left: Term, right: Term, line: u32, col: u32) -> Formula {
        Formula::Atom {
            cmp,
            left,
            right,
            pos: at(line, col),
        }
    }

    fn nil() -> Term {
        Term::Const(Const::Nil)
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The error of parsing `text`, as `line:col: message`.
    fn err(text: &str) -> String {
        parse(text).expect_err("should not parse").to_string()
    }

    /// The error of an object with the map's methods and the given rules.
    fn rule_err(rules: &str) -> String {
        err(&format!(
            "object Map {{\n  method put(k, v) -> p; method get(k) -> v; method size() -> r;\n{rules}\n}}\n"
        ))
    }

    #[test]
    fn map_spec_parses_to_the_expected_tree() {
        let file = parse(MAP).unwrap();
        assert_eq!(file.objects.len(), 1);
        let map = &file.objects[0];
        assert_eq!(map.name, "Map");
        assert_eq!(map.pos, at(2, 8));
        assert_eq!(
            map.methods,
            vec![
                Method {
                    name: "put".into(),
                    params: strs(&["k", "v", "p"]),
                    args: 2,
                    pos: at(3, 10),
                },
                Method {
                    name: "get".into(),
                    params: strs(&["k", "v"]),
                    args: 1,
                    pos: at(3, 34),
                },
                Method {
                    name: "size".into(),
                    params: strs(&["r"]),
                    args: 0,
                    pos: at(3, 55),
                },
            ]
        );
        assert_eq!(map.rules.len(), 6);
        let put_put = &map.rules[0];
        assert_eq!((put_put.first, put_put.second), (0, 0));
        assert_eq!(put_put.pos, at(4, 3));
        assert_eq!(
            put_put.names,
            [strs(&["k1", "v1", "p1"]), strs(&["k2", "v2", "p2"])]
        );
        assert_eq!(
            put_put.formula,
            Formula::Or(vec![
                atom(Cmp::Ne, p1(0), p2(0), 4, 50),
                Formula::And(vec![
                    atom(Cmp::Eq, p1(1), p1(2), 4, 63),
                    atom(Cmp::Eq, p2(1), p2(2), 4, 75),
                ]),
            ])
        );
        let put_get = &map.rules[1];
        assert_eq!((put_get.first, put_get.second), (0, 1));
        assert_eq!(
            put_get.formula,
            Formula::Or(vec![
                atom(Cmp::Ne, p1(0), p2(0), 5, 50),
                atom(Cmp::Eq, p1(1), p1(2), 5, 62),
            ])
        );
        let put_size = &map.rules[2];
        assert_eq!((put_size.first, put_size.second), (0, 2));
        assert_eq!(put_size.names, [strs(&["k1", "v1", "p1"]), strs(&["r"])]);
        assert_eq!(
            put_size.formula,
            Formula::Or(vec![
                Formula::And(vec![
                    atom(Cmp::Eq, p1(1), nil(), 6, 51),
                    atom(Cmp::Eq, p1(2), nil(), 6, 64),
                ]),
                Formula::And(vec![
                    atom(Cmp::Ne, p1(1), nil(), 6, 79),
                    atom(Cmp::Ne, p1(2), nil(), 6, 92),
                ]),
            ])
        );
        for (rule, pair) in map.rules[3..].iter().zip([(1, 1), (1, 2), (2, 2)]) {
            assert_eq!((rule.first, rule.second), pair);
            assert_eq!(rule.names, [Vec::<String>::new(), Vec::new()]);
            assert_eq!(rule.formula, Formula::True);
        }
        assert_eq!(
            map.rule(2, 0).map(|(r, s)| (r.pos, s)),
            Some((at(6, 3), true))
        );
    }

    #[test]
    fn formulas_and_terms() {
        let text =
            "object O {\n method m(a, b) -> c;\n commute m(a1, b1) -> c1, m(a2, b2) -> c2 :\n  \
                    !(a1 > -3) && (true == b1 || c1 >= \"x\\\"\\n\") && (true && false) \
                    && a2 > -3 && b2 == true && \"x\\\"\\n\" <= c2 && !(a2 == a1 && false);\n}";
        let file = parse(text).unwrap();
        let f = &file.objects[0].rules[0].formula;
        let Formula::And(fs) = f else {
            panic!("not a conjunction: {f:?}")
        };
        assert_eq!(fs.len(), 8, "nested conjunctions are flattened: {f:?}");
        assert_eq!(
            fs[0],
            Formula::Not(
                Box::new(atom(Cmp::Lt, Term::Const(Const::Int(-3)), p1(0), 4, 5)),
                at(4, 3)
            )
        );
        assert_eq!(
            fs[1],
            Formula::Or(vec![
                atom(
                    Cmp::Eq,
                    Term::Const(Const::Sym("true".into())),
                    p1(1),
                    4,
                    18
                ),
                atom(
                    Cmp::Le,
                    Term::Const(Const::Str("x\"\n".into())),
                    p1(2),
                    4,
                    32
                ),
            ])
        );
        assert_eq!(fs[2], Formula::True);
        assert_eq!(fs[3], Formula::False);
        assert!(
            matches!(&fs[5], Formula::Atom { cmp: Cmp::Eq, right: Term::Const(Const::Sym(s)), .. } if s == "true")
        );
        let names = &file.objects[0].rules[0].names;
        assert_eq!(
            super::super::ecl::render(f, names),
            "!(-3 < a1) && (true == b1 || \"x\\\"\\n\" <= c1) && true && false && -3 < a2 \
             && b2 == true && \"x\\\"\\n\" <= c2 && !(a2 == a1 && false)"
        );
    }

    #[test]
    fn no_arithmetic() {
        let text = "object A { method f() -> (x, y); commute f() -> (x1, y1), f() -> (x2, y2) : y1 == y2 + 0; }";
        assert_eq!(err(text), "1:86: unexpected character `+`");
    }

    #[test]
    fn several_objects() {
        let text = "object A { method f() -> (x, y); method g(); commute f, g : false;\n\
                    commute f() -> (x1, y1), f() -> (x2, y2) : x1 != x2 && y1 == y2 || false; }\n\
                    // nothing\nobject B { }";
        let file = parse(text).unwrap();
        assert_eq!(file.objects.len(), 2);
        let a = &file.objects[0];
        assert_eq!(a.methods[0].params, strs(&["x", "y"]));
        assert_eq!(a.methods[0].args, 0);
        assert_eq!(a.methods[1].params, Vec::<String>::new());
        assert_eq!(a.rules[0].formula, Formula::False);
        assert_eq!(a.rules[1].names, [strs(&["x1", "y1"]), strs(&["x2", "y2"])]);
        assert_eq!(file.objects[1].name, "B");
        assert!(file.objects[1].methods.is_empty());
        assert_eq!(parse("# empty\n").unwrap(), SpecFile::default());
    }

    #[test]
    fn semantic_errors() {
        assert_eq!(
            err("object A {}\nobject B {}\nobject A {}"),
            "3:8: duplicate object `A` (first declared at 1:8)"
        );
        assert_eq!(
            err("object A {\n method f(x);\n method f();\n}"),
            "3:9: duplicate method `f` in object `A` (first declared at 2:9)"
        );
        assert_eq!(
            err("object A {\n method f(x) -> x;\n}"),
            "2:17: parameter `x` of method `f` is declared twice (first at 2:11)"
        );
        assert_eq!(
            rule_err("  commute put, remove : true;"),
            "3:16: unknown method `remove` in object `Map` (its methods: put, get, size)"
        );
        assert_eq!(
            rule_err("  commute put(k1) -> p1, get(k2) -> v2 : true;"),
            "3:17: wrong number of arguments for `put`: expected 2, got 1"
        );
        assert_eq!(
            rule_err("  commute get(k1, v1), get(k2) -> v2 : true;"),
            "3:19: wrong number of arguments for `get`: expected 1, got 2"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1), get(k2) -> v2 : true;"),
            "3:21: wrong number of results for `put`: expected 1, got 0"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1) -> p1, size() -> (r, s) : true;"),
            "3:44: wrong number of results for `size`: expected 1, got 2"
        );
        assert_eq!(
            rule_err("  commute put(k, v) -> p, get(k) -> w : true;"),
            "3:31: parameter `k` is named twice in the rule (first at 3:15)"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1) -> k1, get(k2) -> v2 : true;"),
            "3:26: parameter `k1` is named twice in the rule (first at 3:15)"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1) -> p1, get(k2) -> v2 : k1 != k3;"),
            "3:52: `k3` is not a parameter of this rule (its parameters: k1, v1, p1, k2, v2)"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1) -> p1, get(k2) -> v2 : k1 != k2 || v == p1;"),
            "3:58: `v` is not a parameter of this rule (its parameters: k1, v1, p1, k2, v2)"
        );
        assert_eq!(
            rule_err("  commute get, get : k1 != k2;"),
            "3:22: `k1` is not a parameter: `commute get, get` names no parameters; write the \
             headers in full to use them, e.g. `commute get(k1) -> v1, get(k2) -> v2 : ...`"
        );
        assert_eq!(
            rule_err("  commute get, size : true;\n  commute size() -> n, get(k) -> v : true;"),
            "4:3: duplicate rule for `size` and `get` (first given at 3:3)"
        );
        assert_eq!(
            rule_err("  commute get, get : true;\n  commute get(a) -> b, get(c) -> d : true;"),
            "4:3: duplicate rule for `get` and `get` (first given at 3:3)"
        );
        // A rule may name the methods in either order, and come before their declaration.
        let file = parse(
            "object A {\n commute g(y) -> r, f(x) : x != y;\n method f(a);\n method g(a) -> b;\n \
             commute f, f : true;\n}",
        )
        .unwrap();
        let a = &file.objects[0];
        assert_eq!((a.rules[0].first, a.rules[0].second), (1, 0));
        assert!(a.rule(0, 1).unwrap().1);
    }

    #[test]
    fn symmetry() {
        assert_eq!(
            rule_err("  commute put(k1, v1) -> p1, put(k2, v2) -> p2 : k1 != k2 || v1 == p1;"),
            "3:50: commute put, put is not symmetric: with k1=1, v1=1, p1=1, k2=1, v2=1, p2=2, \
             swapping the two actions changes the result (from true to false)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a < c;"),
            "3:38: commute get, get is not symmetric: with a=1, c=2, swapping the two actions \
             changes the result (from true to false)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a <= 5 && c > 5;"),
            "3:38: commute get, get is not symmetric: with a=5, c=6, swapping the two actions \
             changes the result (from true to false)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : b == \"s\" || d != true;"),
            "3:38: commute get, get is not symmetric: with b=true, d=1, swapping the two \
             actions changes the result (from true to false)"
        );
        // A shorthand side takes the method's own names, numbered.
        assert_eq!(
            rule_err("  commute get(k1) -> v1, get : v1 == nil;"),
            "3:32: commute get, get is not symmetric: with v1=nil, v2=1, swapping the two \
             actions changes the result (from true to false)"
        );
        for ok in [
            "a != c && (b == nil || d == nil) && (b != nil || d != nil)",
            "a < c || c < a || (b == 1 && d == 1)",
            "!(a <= c && c <= a) || !(b != d)",
            "b == d",
            "a != c || b == \"x\" && d == \"x\"",
            "(b < 3 && d < 3) || (b >= 3 && d >= 3 && a != c)",
        ] {
            let text = format!(
                "object Map {{ method get(k) -> v; commute get(a) -> b, get(c) -> d : {ok}; }}"
            );
            if let Err(e) = parse(&text) {
                panic!("{ok}: {e}");
            }
        }
    }

    #[test]
    fn symmetry_domain_covers_every_gap() {
        let d = symmetry_domain(
            &[Const::Int(3), Const::Int(5), Const::Sym("true".into())],
            2,
        );
        let v: Vec<String> = d.iter().map(render_const).collect();
        assert_eq!(
            v,
            ["3", "5", "true", "2", "1", "4", "6", "7", "true0", "true1"]
        );
        let d = symmetry_domain(&[], 4);
        assert_eq!(d, (1..=4).map(Const::Int).collect::<Vec<_>>());
        let d = symmetry_domain(&[Const::Int(i64::MAX), Const::Nil], 2);
        let v: Vec<String> = d.iter().map(render_const).collect();
        let max = i64::MAX;
        assert_eq!(
            v,
            [
                "nil".to_owned(),
                format!("{max}"),
                format!("{}", max - 1),
                format!("{}", max - 2),
                "s0".to_owned(),
                "\"s0\"".to_owned()
            ]
        );
    }

    #[test]
    fn symmetry_sampling_is_used_beyond_the_limit() {
        // 5 parameters a side, 11 constants: far more than SYMMETRY_LIMIT assignments.
        let mut consts: Vec<String> = (0..11).map(|i| format!("a1 != {}", i * 10)).collect();
        consts[0] = "a2 != 0".to_owned();
        let text = format!(
            "object O {{ method m(a, b, c, d, e); commute m(a1, b1, c1, d1, e1), m(a2, b2, c2, d2, e2) : \
             a1 != a2 && b1 != b2 && c1 != c2 && d1 != d2 && e1 != e2 && {}; }}",
            consts.join(" && ")
        );
        let e = parse(&text).unwrap_err();
        assert!(e.message.contains("is not symmetric"), "{e}");
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(err("objet Map {}"), "1:1: expected `object`, found `objet`");
        assert_eq!(err("object {}"), "1:8: expected an object name, found `{`");
        assert_eq!(err("object Map"), "1:11: expected `{`, found end of input");
        assert_eq!(
            err("object Map {\n  methd put(k);\n}"),
            "2:3: expected `method`, `commute` or `}`, found `methd`"
        );
        assert_eq!(
            err("object Map {\n  method put(k v);\n}"),
            "2:16: expected `,` or `)`, found `v`"
        );
        assert_eq!(
            err("object Map {\n  method put(k) -> ;\n}"),
            "2:20: expected a parameter name, found `;`"
        );
        assert_eq!(
            err("object Map {\n  method put(nil);\n}"),
            "2:14: `nil` is a constant and cannot name a parameter"
        );
        assert_eq!(
            err("object Map {\n  method put(k) -> p\n}"),
            "3:1: expected `->` or `;`, found `}`"
        );
        assert_eq!(
            rule_err("  commute put(k1, v1) -> p1 get(k2) -> v2 : true;"),
            "3:29: expected `,`, found `get`"
        );
        assert_eq!(
            rule_err("  commute get, get true;"),
            "3:20: expected `(` or `:`, found `true`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a != c"),
            "4:1: expected `&&`, `||` or `;`, found `}`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a != c &&;"),
            "3:47: expected a formula (`!`, `(`, `true`, `false` or a comparison), found `;`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a && c;"),
            "3:40: expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) after `a`, found `&&`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a = c;"),
            "3:40: unexpected character `=` (did you mean `==`?)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a != c & b == d;"),
            "3:45: unexpected character `&` (did you mean `&&`?)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a != ;"),
            "3:43: expected a parameter or a constant after `!=`, found `;`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : (a != c || b == d;"),
            "3:55: expected `&&`, `||` or `)`, found `;`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : a < c < b;"),
            "3:44: expected `&&`, `||` or `;`, found `<`"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : b == \"abc;"),
            "3:43: unterminated string"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : b == \"a\\qc\";"),
            "3:45: unknown escape `\\q` in string (known: \\\" \\\\ \\n \\t \\r)"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : b == 99999999999999999999;"),
            "3:43: integer `99999999999999999999` does not fit in 64 bits"
        );
        assert_eq!(
            rule_err("  commute get(a) -> b, get(c) -> d : b == -9223372036854775808 && d == @;"),
            "3:72: unexpected character `@`"
        );
        assert_eq!(
            err("object Map {\n  method put(k) -> p;"),
            "2:22: expected `method`, `commute` or `}`, found end of input"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = |open: &str| {
            rule_err(&format!(
                "  commute get(a) -> b, get(c) -> d : {}a == c;",
                open.repeat(100_000)
            ))
        };
        assert!(
            deep("(").ends_with("nested more than 128 deep"),
            "{}",
            deep("(")
        );
        assert!(
            deep("!").ends_with("nested more than 128 deep"),
            "{}",
            deep("!")
        );
        let nested = format!("{}a == c{}", "(".repeat(100), ")".repeat(100));
        assert!(parse(&format!(
            "object M {{ method get(k) -> v;\n  commute get(a) -> b, get(c) -> d : {nested};\n}}"
        ))
        .is_ok());
    }
}
