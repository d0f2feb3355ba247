//! The verifier of `composed` against the brute-force oracle (`composed::brute`): on random
//! small composed operations (generated as source text, so the parser and the classifier run
//! too), a data-independent operation proved linearizable never has a non-linearizable
//! history of two threads on the small domain, and one with a counterexample has such a
//! history. The examples of `examples/composed` are checked the same way.

use hindsight_analyses::composed::brute::brute_force;
use hindsight_analyses::composed::classify::Class;
use hindsight_analyses::composed::verify::{verify, Limits};
use hindsight_analyses::composed::{classify, ir, parse, VerifyResult};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::RefCell;
use std::path::Path;

/// A tiny deterministic generator (the seed comes from proptest).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const VARS: &[&str] = &["a", "b"];
const VALUES: &[&str] = &["v", "n", "a", "b", "new Obj()"];

fn stmts(g: &mut Gen, depth: u32, out: &mut String, indent: usize) {
    let count = 1 + g.below(3);
    for _ in 0..count {
        stmt(g, depth, out, indent);
    }
}

fn stmt(g: &mut Gen, depth: u32, out: &mut String, indent: usize) {
    let pad = " ".repeat(indent);
    let x = g.pick(VARS);
    let val = g.pick(VALUES);
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
            let cond = match g.below(5) {
                0 => format!("{x} == null"),
                1 => format!("{x} != null"),
                2 => "m.containsKey(k)".to_owned(),
                // FCM: the key compared with constants.
                3 => "k.equals(\"x\")".to_owned(),
                _ => "\"y\".equals(k)".to_owned(),
            };
            let mut s = format!("if ({cond}) {{\n");
            stmts(g, depth - 1, &mut s, indent + 2);
            if g.below(2) == 0 {
                s.push_str(&format!("{pad}}} else {{\n"));
                stmts(g, depth - 1, &mut s, indent + 2);
            }
            s.push_str(&format!("{pad}}}"));
            s
        }
        _ => {
            // A compare-and-set retry loop (VCM): `a` always comes from get(k).
            let new = g.pick(&["n", "v", "new Obj()"]);
            format!(
                "while (true) {{\n{pad}  Object c = m.get(k);\n{pad}  if (c == null) {{\n{pad}    if (m.putIfAbsent(k, {new}) == null) return {new};\n{pad}  }} else {{\n{pad}    if (m.replace(k, c, {new})) return c;\n{pad}  }}\n{pad}}}"
            )
        }
    };
    out.push_str(&pad);
    out.push_str(&line);
    out.push('\n');
}

/// A random composed operation over `m` with key `k` and value `v`: map calls on `k`, null
/// checks, `containsKey`, comparisons of the key with constants (FCM) and compare-and-set retry
/// loops (VCM), nested two deep.
fn operation(seed: u64) -> String {
    let mut g = Gen(seed | 1);
    let mut body = String::new();
    stmts(&mut g, 2, &mut body, 2);
    let last = g.pick(VARS);
    format!(
        "ConcurrentHashMap<String, Object> m;\nObject op(String k, Object v) {{\n  Object a = null;\n  Object b = null;\n  Object n = new Obj();\n{body}  return {last};\n}}\n"
    )
}

#[derive(Default, Debug)]
struct Tally {
    independent: usize,
    dependent: usize,
    proved: usize,
    violations: usize,
    undecided: usize,
    fcm: usize,
    vcm: usize,
}

/// Checks one program; returns whether the verifier decided it.
fn agree(source: &str, tally: &mut Tally) -> Result<(), String> {
    let program = parse(source).map_err(|e| format!("does not parse: {e}\n{source}"))?;
    for op in &program.operations {
        let class = classify(&program, op);
        if class.class == Class::DataDependent {
            tally.dependent += 1;
            continue;
        }
        tally.independent += 1;
        tally.fcm += usize::from(class.class == Class::Fcm);
        tally.vcm += usize::from(class.class == Class::Vcm);
        let code = ir::lower(&program, op);
        let verdict = verify(&code, &class, &Limits::default());
        let keys = class.inputs();
        let brute = match brute_force(&code, &keys, class.key, class.value, 200_000) {
            Ok(b) => b,
            Err(_) => {
                tally.undecided += 1;
                continue;
            }
        };
        match verdict {
            VerifyResult::Linearizable { .. } => {
                tally.proved += 1;
                if let Some(v) = brute {
                    return Err(format!(
                        "{}: proved linearizable, but two threads give a non-linearizable history: {v:?}\n{source}",
                        op.name
                    ));
                }
            }
            VerifyResult::Violation(c) => {
                tally.violations += 1;
                if brute.is_none() {
                    return Err(format!(
                        "{}: counterexample {c:#?}, but every history of two threads is linearizable\n{source}",
                        op.name
                    ));
                }
            }
            VerifyResult::NotProved(_) => tally.undecided += 1,
        }
    }
    Ok(())
}

#[test]
fn verifier_never_contradicts_the_brute_force_on_random_operations() {
    let tally = RefCell::new(Tally::default());
    let mut runner = TestRunner::new(Config {
        cases: std::env::var("COMPOSED_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(400),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&any::<u64>(), |seed| {
            let source = operation(seed);
            agree(&source, &mut tally.borrow_mut()).map_err(TestCaseError::fail)
        })
        .unwrap();
    let t = tally.into_inner();
    eprintln!("{t:?}");
    // Not vacuous: both verdicts occur often.
    assert!(
        t.proved >= 40 && t.violations >= 40 && t.fcm >= 20 && t.vcm >= 10,
        "{t:?}"
    );
}

#[test]
fn verifier_agrees_with_the_brute_force_on_the_examples() {
    let mut tally = Tally::default();
    for file in ["paper.java", "applications.java"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/composed")
            .join(file);
        let source = std::fs::read_to_string(path).expect("example");
        agree(&source, &mut tally).unwrap();
    }
    assert!(tally.proved >= 12 && tally.violations >= 6, "{tally:?}");
}
