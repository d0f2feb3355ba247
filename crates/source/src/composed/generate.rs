//! Random composed operations as source text, for the property test against the brute-force
//! oracle and for the bench: map calls on the key `k` (get, put, putIfAbsent, remove,
//! replace), null checks, `containsKey`, comparisons of the key with constants (FCM) and
//! compare-and-set retry loops (VCM), nested to a given depth. With [`Extras`], also values
//! of unknown calls (`f.make(k)`, fresh on every call), a key derived from the parameter
//! (`String k = key.trim();`), ConcurrentHashMap's atomic methods with their functions and
//! conditions on unknown values and traversals of the map.
//!
//! It knows only the Java the front end reads. The same seed gives the same text (the
//! generator is hindsight-rng's), so a failing property-test case can be replayed.

use hindsight_rng::SplitMix64;

const VARS: &[&str] = &["a", "b"];
const VALUES: &[&str] = &["v", "n", "a", "b", "new Obj()"];
const VALUES_EXTRA: &[&str] = &["v", "n", "a", "b", "new Obj()", "f.make(k)", "f.make(v)"];

/// What the generator may use beyond the paper's language.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras {
    /// Unknown calls, a derived key and the atomic methods.
    pub java: bool,
    /// Generalised inputs: the key written in place as a tuple of two parameters
    /// (`new Key(a1, a2)`, `a1 + ":" + a2`, `List.of(a1, a2)`) at every map call, a third
    /// input `w` only stored, and `a1` where the operation compares or passes on the key.
    pub inputs: bool,
    /// Conditions on unknown values (with `java`): an unknown call used as a condition
    /// (`f.ready(k)`, `f.enabled()`), a stored object's state (`a != null && a.isDone()`) and an unknown
    /// result compared with a constant (`"DONE".equals(f.state(k))`) or ordered against an
    /// integer (`f.count(k) > 2`), arithmetic on unknown values compared (`f.count(k) + 1 > 2`,
    /// `f.count(k) * 2 < 5`, `Math.max(f.count(k), 1) / 2 == 1`, `f.count(k) - f.count(v) >= 0`)
    /// or stored (`f.count(k) + 1`), which make the operation data-dependent (or stop its
    /// proof) and which `--bounded` takes both ways.
    pub branches: bool,
    /// Traversals of the map (with `java`): `for` over `keySet()`, `values()` and
    /// `entrySet()` (reading, removing, `setValue`, leaving early), `forEach`, `clear()` and
    /// `containsValue` before a `put` of the same value,
    /// which make the operation data-dependent (`Iteration`) and which `--bounded` checks.
    pub iteration: bool,
}

/// A traversal of the map, over the operation's words: `x` is a local it may assign, `val`
/// a value it may write.
fn traversal(g: &mut SplitMix64, x: &str, val: &str, pad: &str) -> String {
    match g.below(9) {
        // Register once: another thread storing the same value under another key between
        // the check and the put is a move of the bounded check's environment.
        8 => format!(
            "if (!m.containsValue({val})) {{
{pad}  m.put(k, {val});
{pad}}}"
        ),
        0 => format!(
            "for (String ik : m.keySet()) {{
{pad}  {x} = m.get(ik);
{pad}}}"
        ),
        1 => format!(
            "for (Map.Entry<String, Object> ie : m.entrySet()) {{
{pad}  if (ie.getValue() == v) {{
{pad}    {x} = ie.getKey();
{pad}    break;
{pad}  }}
{pad}}}"
        ),
        2 => format!(
            "for (Object iv : m.values()) {{
{pad}  {x} = iv;
{pad}}}"
        ),
        3 => format!(
            "for (String ik : m.keySet()) {{
{pad}  if (!ik.equals(k)) {{
{pad}    m.remove(ik);
{pad}  }}
{pad}}}"
        ),
        4 => format!(
            "m.forEach((ik, iv) -> {{
{pad}  if (iv == v) {{
{pad}    return;
{pad}  }}
{pad}  m.replace(ik, iv, {val});
{pad}}});"
        ),
        5 => "m.clear();".to_owned(),
        6 => format!(
            "for (Map.Entry<String, Object> ie : m.entrySet()) {{
{pad}  ie.setValue({val});
{pad}}}"
        ),
        _ => format!(
            "for (Object iv : m.values()) {{
{pad}  if (iv == {x}) {{
{pad}    {x} = null;
{pad}  }}
{pad}}}"
        ),
    }
}

/// The words statements are made of: an operation's own, or a helper's (its locals `c` and
/// `d`, no `return`: the helper's forms put theirs).
struct Words {
    vars: &'static [&'static str],
    values: &'static [&'static str],
    values_extra: &'static [&'static str],
    returns: bool,
}

const OPERATION: Words = Words {
    vars: VARS,
    values: VALUES,
    values_extra: VALUES_EXTRA,
    returns: true,
};

const HELPER: Words = Words {
    vars: &["c", "d"],
    values: &["v", "c", "d", "new Obj()"],
    values_extra: &["v", "c", "d", "new Obj()", "f.make(k)", "f.make(v)"],
    returns: false,
};

fn stmts(g: &mut SplitMix64, depth: u32, out: &mut String, indent: usize, extras: Extras) {
    stmts_of(&OPERATION, g, depth, out, indent, extras);
}

fn stmts_of(
    words: &Words,
    g: &mut SplitMix64,
    depth: u32,
    out: &mut String,
    indent: usize,
    extras: Extras,
) {
    let count = 1 + g.below(3);
    for _ in 0..count {
        stmt(words, g, depth, out, indent, extras);
    }
}

fn stmt(
    words: &Words,
    g: &mut SplitMix64,
    depth: u32,
    out: &mut String,
    indent: usize,
    extras: Extras,
) {
    let pad = " ".repeat(indent);
    let x = *g.pick(words.vars);
    let val = if extras.inputs && g.below(4) == 0 {
        "w"
    } else if extras.branches && g.below(8) == 0 {
        // A number computed from an unknown one, stored (a counter from an unknown count).
        "f.count(k) + 1"
    } else {
        *g.pick(if extras.java {
            words.values_extra
        } else {
            words.values
        })
    };
    if extras.java && extras.iteration && words.returns && g.below(4) == 0 {
        let line = traversal(g, x, val, &pad);
        out.push_str(&pad);
        out.push_str(&line);
        out.push('\n');
        return;
    }
    if extras.java && g.below(4) == 0 {
        let line = match g.below(5) {
            0 => format!("{x} = m.computeIfAbsent(k, x -> {val});"),
            1 => format!("{x} = m.compute(k, (x, old) -> old == null ? {val} : old);"),
            2 => format!("{x} = m.merge(k, {val}, (old, given) -> given);"),
            3 => format!("{x} = m.getOrDefault(k, {val});"),
            _ => format!("{x} = m.computeIfPresent(k, (x, old) -> {val});"),
        };
        out.push_str(&pad);
        out.push_str(&line);
        out.push('\n');
        return;
    }
    let choice = g.below(if depth == 0 { 9 } else { 13 });
    // Without `return`s (a helper's body): an assignment for the `return`, a condition for
    // the retry loop (the draws stay those of an operation's statements).
    let choice = match choice {
        8 if !words.returns => 7,
        12 if !words.returns => 9,
        c => c,
    };
    let line = match choice {
        0 => format!("{x} = m.get(k);"),
        1 => format!("{x} = m.put(k, {val});"),
        2 => format!("m.put(k, {val});"),
        3 => format!("{x} = m.putIfAbsent(k, {val});"),
        4 => format!("m.putIfAbsent(k, {val});"),
        5 => format!("{x} = m.remove(k);"),
        6 => format!("{x} = m.replace(k, {val});"),
        7 => format!("{x} = {val};"),
        8 => format!("return {x};"),
        9..=11 => {
            let unknown = extras.java && extras.branches && g.below(2) == 0;
            let cond = match if unknown { 5 + g.below(10) } else { g.below(5) } {
                8 => "f.count(k) > 2".to_owned(),
                // Arithmetic on unknown values: one unknown scaled and shifted, twice the
                // same one, a quotient of a maximum, and two unknowns against each other.
                9 => "f.count(k) + 1 > 2".to_owned(),
                10 => "f.count(k) * 2 < 5".to_owned(),
                11 => "Math.max(f.count(k), 1) / 2 == 1".to_owned(),
                12 => "f.count(k) - f.count(v) >= 0".to_owned(),
                13 => "f.count(k) + f.count(k) < 3".to_owned(),
                5 => "f.ready(k)".to_owned(),
                // A flag of no input (`JRE.JAVA_8.isCurrentVersion()`): the proof takes it
                // both ways.
                14 => "f.enabled()".to_owned(),
                6 => format!("{x} != null && {x}.isDone()"),
                7 => "\"DONE\".equals(f.state(k))".to_owned(),
                0 => format!("{x} == null"),
                1 => format!("{x} != null"),
                2 => "m.containsKey(k)".to_owned(),
                3 => "k.equals(\"x\")".to_owned(),
                _ => "\"y\".equals(k)".to_owned(),
            };
            let mut s = format!("if ({cond}) {{\n");
            stmts_of(words, g, depth - 1, &mut s, indent + 2, extras);
            if g.below(2) == 0 {
                s.push_str(&format!("{pad}}} else {{\n"));
                stmts_of(words, g, depth - 1, &mut s, indent + 2, extras);
            }
            s.push_str(&format!("{pad}}}"));
            s
        }
        _ => {
            // `c` always comes from get(k), so the replace keeps the operation a VCM.
            let new = *g.pick(&["n", "v", "new Obj()"]);
            format!(
                "while (true) {{\n{pad}  Object c = m.get(k);\n{pad}  if (c == null) {{\n{pad}    if (m.putIfAbsent(k, {new}) == null) return {new};\n{pad}  }} else {{\n{pad}    if (m.replace(k, c, {new})) return c;\n{pad}  }}\n{pad}}}"
            )
        }
    };
    out.push_str(&pad);
    out.push_str(&line);
    out.push('\n');
}

/// One operation named `name` over the map `m`, nested `depth` deep.
pub fn operation(seed: u64, depth: u32, name: &str) -> String {
    operation_with(seed, depth, name, Extras::default())
}

/// One operation, with `extras`.
pub fn operation_with(seed: u64, depth: u32, name: &str, extras: Extras) -> String {
    let mut g = SplitMix64::new(seed);
    let mut body = String::new();
    stmts(&mut g, depth, &mut body, 2, extras);
    let last = *g.pick(VARS);
    // The key computed once from the parameter: an input like one.
    let (param, derive) = if extras.java && g.below(2) == 0 {
        ("key", "  String k = key.trim();\n")
    } else {
        ("k", "")
    };
    if extras.inputs {
        let key = *g.pick(&["new Key(a1, a2)", "a1 + \":\" + a2", "List.of(a1, a2)"]);
        let body = tuple_key(&body, key);
        return format!(
            "Object {name}(String a1, String a2, Object v, Object w) {{\n  Object a = null;\n  Object b = null;\n  Object n = new Obj();\n{body}  return {last};\n}}\n"
        );
    }
    format!(
        "Object {name}(String {param}, Object v) {{\n{derive}  Object a = null;\n  Object b = null;\n  Object n = new Obj();\n{body}  return {last};\n}}\n"
    )
}

/// `body` with the key `k` of every map call written as `key`, and `a1` for `k` elsewhere.
fn tuple_key(body: &str, key: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(i) = rest.find("k") {
        let (before, after) = rest.split_at(i);
        out.push_str(before);
        let prev = out.chars().last();
        let next = after[1..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if word(prev) || word(next) {
            out.push('k');
        } else if out.ends_with('(')
            && out[..out.len() - 1]
                .rsplit_once("m.")
                .is_some_and(|(_, m)| m.chars().all(char::is_alphanumeric))
        {
            out.push_str(key);
        } else {
            out.push_str("a1");
        }
        rest = &after[1..];
    }
    out.push_str(rest);
    out
}

/// A file: the map declaration and `count` operations `op0`, `op1`, ...
pub fn file(seed: u64, count: usize, depth: u32) -> String {
    file_with(seed, count, depth, Extras::default())
}

/// A file with `extras` (and the factory `f` its unknown calls use).
pub fn file_with(seed: u64, count: usize, depth: u32, extras: Extras) -> String {
    let mut s = String::from("ConcurrentHashMap<String, Object> m;\n");
    if extras.java {
        s.push_str("final Factory f;\n");
    }
    for i in 0..count {
        // Consecutive seeds, not multiples of SplitMix64's increment: seeds k increments apart
        // start streams k draws apart, which would make each operation a shifted copy of the
        // one before.
        s.push_str(&operation_with(
            seed.wrapping_add(i as u64),
            depth,
            &format!("op{i}"),
            extras,
        ));
    }
    s
}

/// An operation that calls helpers of its class (or static methods of a utility class `Util`
/// that take the map, and the factory, as parameters), and the same operation with every call
/// replaced by hand by the helper's body (its locals renamed, its `return`s made assignments
/// of the result and a `break` out of its loop, the lambda it is passed applied in place):
/// what inlining must mean.
#[derive(Clone, Debug)]
pub struct WithHelpers {
    /// The class's text: the map, the operation `op0` and its helpers `h0`, `h1` (or the
    /// class and `Util` with them).
    pub with_helpers: String,
    /// The map and `op0` alone, every call inlined by hand.
    pub by_hand: String,
}

/// The forms of a helper: the result of straight-line code, an early `return` of the map's
/// value, a compare-and-set retry loop that returns from inside, no result, and a lambda
/// applied (`fn.apply(k)`) and given to `computeIfAbsent` (after dubbo's
/// `ConcurrentHashMapUtils.computeIfAbsent`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HelperForm {
    Plain,
    EarlyReturn,
    RetryLoop,
    Void,
    Applies,
}

struct Helper {
    name: String,
    form: HelperForm,
    /// The body's generated statements (over `k`, `v`, `c`, `d`), starting with a map call so
    /// the helper always uses the map (one that does not stays an unknown call).
    body: String,
    /// For `Plain` and `Applies`: the local it returns.
    result: &'static str,
    /// For `Applies`: the body of the lambda `y -> ..` the caller passes.
    lambda: &'static str,
    /// A static method of `Util`, passed the map and the factory (named as the class's
    /// fields, so its body reads the same).
    utility: bool,
}

impl Helper {
    fn declaration(&self) -> String {
        let name = &self.name;
        let declaration = match self.form {
            HelperForm::Plain => format!(
                "Object {name}(String k, Object v) {{\n  Object c = null;\n  Object d = null;\n{}  return {};\n}}\n",
                self.body, self.result
            ),
            HelperForm::EarlyReturn => format!(
                "Object {name}(String k, Object v) {{\n  Object c = m.get(k);\n  if (c != null) return c;\n  Object d = null;\n{}  return d;\n}}\n",
                self.body
            ),
            HelperForm::RetryLoop => format!(
                "Object {name}(String k, Object v) {{\n  while (true) {{\n    Object c = m.get(k);\n    if (c == null) {{\n      if (m.putIfAbsent(k, v) == null) return v;\n    }} else {{\n      if (m.replace(k, c, v)) return c;\n    }}\n  }}\n}}\n"
            ),
            HelperForm::Void => format!(
                "void {name}(String k, Object v) {{\n  Object c = null;\n  Object d = null;\n{}}}\n",
                self.body
            ),
            HelperForm::Applies => format!(
                "Object {name}(String k, Object v, Function<String, Object> fn) {{\n  Object c = m.get(k);\n  Object d = null;\n  if (c == null) {{\n    c = fn.apply(k);\n  }}\n  d = m.computeIfAbsent(k, fn);\n{}  return {};\n}}\n",
                self.body, self.result
            ),
        };
        if !self.utility {
            return declaration;
        }
        // `Object h0(String k, ..` -> `static Object h0(ConcurrentHashMap<..> m, Factory f,
        // String k, ..`
        let declaration = declaration.replacen(
            "(String k",
            "(ConcurrentHashMap<String, Object> m, Factory f, String k",
            1,
        );
        format!("static {declaration}")
    }

    /// `target = name(k, value);` (or `name(k, value);` for `Void`) by hand, as a block.
    fn by_hand(&self, target: &str, value: &str, pad: &str) -> String {
        let p = format!("{}_", self.name);
        let body = rename_words(
            &self.body,
            &[
                ("v", &format!("{p}v")),
                ("c", &format!("{p}c")),
                ("d", &format!("{p}d")),
            ],
        );
        let mut s = format!("{{\n{pad}  Object {p}v = {value};\n");
        match self.form {
            HelperForm::Plain => {
                s.push_str(&format!("{pad}  Object {p}c = null;\n{pad}  Object {p}d = null;\n{body}{pad}  {target} = {p}{};\n", self.result));
            }
            HelperForm::EarlyReturn => s.push_str(&format!(
                "{pad}  Object {p}c = m.get(k);\n{pad}  if ({p}c != null) {{\n{pad}    {target} = {p}c;\n{pad}  }} else {{\n{pad}    Object {p}d = null;\n{body}{pad}    {target} = {p}d;\n{pad}  }}\n"
            )),
            HelperForm::RetryLoop => s.push_str(&format!(
                "{pad}  Object {p}r = null;\n{pad}  while (true) {{\n{pad}    Object {p}c = m.get(k);\n{pad}    if ({p}c == null) {{\n{pad}      if (m.putIfAbsent(k, {p}v) == null) {{\n{pad}        {p}r = {p}v;\n{pad}        break;\n{pad}      }}\n{pad}    }} else {{\n{pad}      if (m.replace(k, {p}c, {p}v)) {{\n{pad}        {p}r = {p}c;\n{pad}        break;\n{pad}      }}\n{pad}    }}\n{pad}  }}\n{pad}  {target} = {p}r;\n"
            )),
            HelperForm::Void => s.push_str(&format!("{pad}  Object {p}c = null;\n{pad}  Object {p}d = null;\n{body}")),
            HelperForm::Applies => {
                let applied = rename_words(self.lambda, &[("y", "k")]);
                s.push_str(&format!(
                    "{pad}  Object {p}c = m.get(k);\n{pad}  Object {p}d = null;\n{pad}  if ({p}c == null) {{\n{pad}    {p}c = {applied};\n{pad}  }}\n{pad}  {p}d = m.computeIfAbsent(k, y -> {});\n{body}{pad}  {target} = {p}{};\n",
                    self.lambda, self.result
                ));
            }
        }
        s.push_str(&format!("{pad}}}"));
        s
    }

    fn call(&self, target: &str, value: &str, this: bool) -> String {
        let (recv, shared) = match (self.utility, this) {
            (true, _) => ("Util.", "m, f, "),
            (false, true) => ("this.", ""),
            (false, false) => ("", ""),
        };
        let lambda = if self.form == HelperForm::Applies {
            format!(", y -> {}", self.lambda)
        } else {
            String::new()
        };
        let call = format!("{recv}{}({shared}k, {value}{lambda});", self.name);
        if self.form == HelperForm::Void {
            call
        } else {
            format!("{target} = {call}")
        }
    }
}

/// `text` with each whole word `from` written `to`.
fn rename_words(text: &str, renames: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let w = std::mem::take(word);
        match renames.iter().find(|(from, _)| *from == w) {
            Some((_, to)) => out.push_str(to),
            None => out.push_str(&w),
        }
    };
    let mut in_string = false;
    for ch in text.chars() {
        if ch == '"' {
            in_string = !in_string;
        }
        if !in_string && (ch.is_alphanumeric() || ch == '_') {
            word.push(ch);
            continue;
        }
        flush(&mut word, &mut out);
        out.push(ch);
    }
    flush(&mut word, &mut out);
    // A method named like a local (`f.make`) keeps its name: only `.word(` after a dot is a
    // member, and the helper words (`v`, `c`, `d`) are never members of the generated code.
    out
}

/// An operation `op0` over the map `m` that calls one or two helpers (of the forms above, as
/// `h(k, value)` or `this.h(k, value)`, one of them possibly inside a branch), and the same
/// operation inlined by hand. With `java`, unknown calls and the factory `f` as in
/// [`Extras::java`].
pub fn with_helpers(seed: u64, depth: u32, java: bool) -> WithHelpers {
    with_helpers_of(seed, depth, java, false)
}

/// [`with_helpers`], the helpers static methods of a utility class `Util` when `utility`
/// (with `java`: the factory `f` is passed to them).
pub fn with_helpers_of(seed: u64, depth: u32, java: bool, utility: bool) -> WithHelpers {
    let utility = utility && java;
    let mut g = SplitMix64::new(seed);
    let extras = Extras {
        java,
        inputs: false,
        branches: false,
        iteration: false,
    };
    let forms = [
        HelperForm::Plain,
        HelperForm::EarlyReturn,
        HelperForm::RetryLoop,
        HelperForm::Void,
        HelperForm::Applies,
    ];
    let lambdas: &[&str] = if java {
        &["new Obj()", "f.make(y)"]
    } else {
        &["new Obj()"]
    };
    let count = 1 + g.below(2) as usize;
    let mut helpers = Vec::new();
    for i in 0..count {
        let form = *g.pick(&forms);
        let mut body = String::from("  c = m.get(k);\n");
        stmts_of(
            &HELPER,
            &mut g,
            depth.saturating_sub(1).max(1),
            &mut body,
            2,
            extras,
        );
        helpers.push(Helper {
            name: format!("h{i}"),
            form,
            body,
            result: if g.below(2) == 0 { "c" } else { "d" },
            lambda: lambdas[g.below(lambdas.len() as u64) as usize],
            utility,
        });
    }
    let values: &[&str] = if java { VALUES_EXTRA } else { VALUES };
    let mut calls = String::new();
    let mut by_hand = String::new();
    let mut before = String::new();
    stmts(&mut g, depth.saturating_sub(1), &mut before, 2, extras);
    calls.push_str(&before);
    by_hand.push_str(&before);
    for (i, h) in helpers.iter().enumerate() {
        let x = *g.pick(VARS);
        let value = *g.pick(values);
        let this = g.below(2) == 0;
        // The second call sometimes inside a branch on the first's result.
        let guarded = i == 1 && g.below(2) == 0;
        let (pad, open, close) = if guarded {
            (
                "    ",
                "  if (a == null) {\n".to_owned(),
                "  }\n".to_owned(),
            )
        } else {
            ("  ", String::new(), String::new())
        };
        calls.push_str(&format!("{open}{pad}{}\n{close}", h.call(x, value, this)));
        by_hand.push_str(&format!("{open}{pad}{}\n{close}", h.by_hand(x, value, pad)));
    }
    let mut after = String::new();
    stmts(&mut g, depth.saturating_sub(1), &mut after, 2, extras);
    calls.push_str(&after);
    by_hand.push_str(&after);
    let last = *g.pick(VARS);
    let head = if java {
        "ConcurrentHashMap<String, Object> m;\nfinal Factory f;\n"
    } else {
        "ConcurrentHashMap<String, Object> m;\n"
    };
    let op = |body: &str| {
        format!(
            "Object op0(String k, Object v) {{\n  Object a = null;\n  Object b = null;\n  Object n = new Obj();\n{body}  return {last};\n}}\n"
        )
    };
    let mut with = format!("class Ops {{\n{head}{}", op(&calls));
    if utility {
        with.push_str("}\nclass Util {\n");
    }
    for h in &helpers {
        with.push_str(&h.declaration());
    }
    with.push_str("}\n");
    WithHelpers {
        with_helpers: with,
        by_hand: format!("class Ops {{\n{head}{}}}\n", op(&by_hand)),
    }
}
