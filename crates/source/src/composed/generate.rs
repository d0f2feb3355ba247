//! Random composed operations as source text, for the property test against the brute-force
//! oracle and for the bench: map calls on the key `k` (get, put, putIfAbsent, remove,
//! replace), null checks, `containsKey`, comparisons of the key with constants (FCM) and
//! compare-and-set retry loops (VCM), nested to a given depth. With [`Extras`], also values
//! of unknown calls (`f.make(k)`, fresh on every call), a key derived from the parameter
//! (`String k = key.trim();`), ConcurrentHashMap's atomic methods with their functions and
//! conditions on unknown values.
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
    /// (`f.ready(k)`), a stored object's state (`a != null && a.isDone()`) and an unknown
    /// result compared with a constant (`"DONE".equals(f.state(k))`), which make the
    /// operation data-dependent and which `--bounded` takes both ways.
    pub branches: bool,
}

fn stmts(g: &mut SplitMix64, depth: u32, out: &mut String, indent: usize, extras: Extras) {
    let count = 1 + g.below(3);
    for _ in 0..count {
        stmt(g, depth, out, indent, extras);
    }
}

fn stmt(g: &mut SplitMix64, depth: u32, out: &mut String, indent: usize, extras: Extras) {
    let pad = " ".repeat(indent);
    let x = *g.pick(VARS);
    let val = if extras.inputs && g.below(4) == 0 {
        "w"
    } else {
        *g.pick(if extras.java { VALUES_EXTRA } else { VALUES })
    };
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
            let cond = match if unknown { 5 + g.below(3) } else { g.below(5) } {
                5 => "f.ready(k)".to_owned(),
                6 => format!("{x} != null && {x}.isDone()"),
                7 => "\"DONE\".equals(f.state(k))".to_owned(),
                0 => format!("{x} == null"),
                1 => format!("{x} != null"),
                2 => "m.containsKey(k)".to_owned(),
                3 => "k.equals(\"x\")".to_owned(),
                _ => "\"y\".equals(k)".to_owned(),
            };
            let mut s = format!("if ({cond}) {{\n");
            stmts(g, depth - 1, &mut s, indent + 2, extras);
            if g.below(2) == 0 {
                s.push_str(&format!("{pad}}} else {{\n"));
                stmts(g, depth - 1, &mut s, indent + 2, extras);
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
