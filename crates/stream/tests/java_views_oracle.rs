//! `views` on Java, held against runs: random small Java programs (threads started and joined
//! in a random order, synchronized getters, setters and blocks, branches on values read, early
//! returns, loops) are analysed statically, and run by the interpreter of their lowered form
//! under several schedules; each run's trace goes through the trace-based views
//! (`DynamicViews`, may-happen-in-parallel filter on). The static verdict must contain every
//! dynamic one: each dynamic finding has a static finding of the same kind, between the same
//! threads, over a superset of its variables.
//!
//! A trace carries no data flow, so a dynamic stale value (MoTH's `psv` on the run's views) is
//! kept only if the run acted on it under the static analysis's rule (the interpreter records
//! a write in a later region of the thread depending, by data or control, on the variable's
//! value read in an earlier one).

use hindsight_rng::SplitMix64;
use hindsight_source::views::java::{self, interp, JavaOptions};
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{run, RunOptions};
use hindsight_trace::TextReader;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;

const FIELDS: usize = 3;

struct Gen {
    rng: SplitMix64,
    out: String,
    locals: Vec<String>,
    next_local: usize,
}

impl Gen {
    fn pick(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    fn operand(&mut self) -> String {
        if !self.locals.is_empty() && self.pick(3) > 0 {
            let i = self.pick(self.locals.len());
            self.locals[i].clone()
        } else {
            format!("{}", self.pick(4))
        }
    }

    fn expr(&mut self) -> String {
        match self.pick(3) {
            0 => self.operand(),
            _ => format!("{} + {}", self.operand(), self.operand()),
        }
    }

    fn line(&mut self, indent: usize, s: &str) {
        for _ in 0..indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn body(&mut self, indent: usize, depth: usize, n: usize) {
        let scope = self.locals.len();
        for _ in 0..n {
            self.stmt(indent, depth);
        }
        self.locals.truncate(scope);
    }

    fn stmt(&mut self, indent: usize, depth: usize) {
        let choice = self.pick(if depth >= 2 { 4 } else { 7 });
        match choice {
            0 => {
                let f = self.pick(FIELDS);
                let v = format!("v{}", self.next_local);
                self.next_local += 1;
                self.line(indent, &format!("int {v} = s.get{f}();"));
                self.locals.push(v);
            }
            1 => {
                let f = self.pick(FIELDS);
                let e = self.expr();
                self.line(indent, &format!("s.set{f}({e});"));
            }
            2 => {
                // A straight-line region over fields and locals.
                self.line(indent, "synchronized (s) {");
                for _ in 0..1 + self.pick(3) {
                    let (a, b) = (self.pick(FIELDS), self.pick(FIELDS));
                    let e = self.operand();
                    if self.pick(2) == 0 {
                        self.line(indent + 1, &format!("s.f{a} = s.f{b} + {e};"));
                    } else {
                        self.line(indent + 1, &format!("s.f{a} = {e};"));
                    }
                }
                self.line(indent, "}");
            }
            3 => {
                // Loop counters are not assigned: every loop ends.
                let last = self
                    .locals
                    .iter()
                    .rev()
                    .find(|l| l.starts_with('v'))
                    .cloned();
                if let Some(v) = last {
                    let e = self.expr();
                    self.line(indent, &format!("{v} = {e};"));
                }
            }
            4 => {
                let c = self.operand();
                let k = self.pick(3);
                self.line(indent, &format!("if ({c} > {k}) {{"));
                let n = 1 + self.pick(2);
                self.body(indent + 1, depth + 1, n);
                if self.pick(2) == 0 {
                    self.line(indent, "} else {");
                    let n = 1 + self.pick(2);
                    self.body(indent + 1, depth + 1, n);
                }
                self.line(indent, "}");
            }
            5 => {
                let c = self.operand();
                let k = self.pick(3);
                self.line(indent, &format!("if ({c} == {k}) return;"));
            }
            _ => {
                let i = format!("i{}", self.next_local);
                self.next_local += 1;
                self.line(indent, &format!("for (int {i} = 0; {i} < 2; {i}++) {{"));
                self.locals.push(i);
                let n = 1 + self.pick(2);
                self.body(indent + 1, depth + 1, n);
                self.locals.pop();
                self.line(indent, "}");
            }
        }
    }
}

/// A random program: a shared class with synchronized getters and setters, two or three
/// workers, and a main that starts and joins them in a random order.
fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        out: String::new(),
        locals: Vec::new(),
        next_local: 0,
    };
    g.line(0, "class S {");
    for f in 0..FIELDS {
        g.line(1, &format!("int f{f};"));
        g.line(1, &format!("synchronized int get{f}() {{ return f{f}; }}"));
        g.line(
            1,
            &format!("synchronized void set{f}(int v) {{ f{f} = v; }}"),
        );
    }
    g.line(0, "}");
    let workers = 2 + g.pick(2);
    for w in 0..workers {
        g.line(0, &format!("class W{w} implements Runnable {{"));
        g.line(1, "S s;");
        g.line(1, &format!("W{w}(S s) {{ this.s = s; }}"));
        g.line(1, "public void run() {");
        g.locals.clear();
        let n = 2 + g.pick(4);
        g.body(2, 0, n);
        g.line(1, "}");
        g.line(0, "}");
    }
    g.line(0, "public class Main {");
    g.line(
        1,
        "public static void main(String[] args) throws Exception {",
    );
    g.line(2, "S s = new S();");
    for w in 0..workers {
        g.line(2, &format!("Thread t{w} = new Thread(new W{w}(s));"));
    }
    let mut joined = vec![false; workers];
    for (w, j) in joined.iter_mut().enumerate() {
        g.line(2, &format!("t{w}.start();"));
        if g.pick(3) == 0 {
            g.line(2, &format!("t{w}.join();"));
            *j = true;
        }
    }
    for (w, j) in joined.iter().enumerate() {
        if !j {
            g.line(2, &format!("t{w}.join();"));
        }
    }
    g.line(1, "}");
    g.line(0, "}");
    g.out
}

/// (kind, threads, variables) of a finding in a report's JSON.
type Key = (String, BTreeSet<String>, BTreeSet<String>);

fn key(f: &Value, vars: impl Fn(&str) -> String) -> Key {
    let strings = |k: &str| -> Vec<String> {
        f[k].as_array()
            .expect("array")
            .iter()
            .map(|v| v.as_str().expect("string").to_owned())
            .collect()
    };
    (
        f["kind"].as_str().expect("kind").to_owned(),
        strings("threads").into_iter().collect(),
        strings("variables").iter().map(|v| vars(v)).collect(),
    )
}

fn dynamic(trace: &str, acted_on: &BTreeSet<(String, String)>) -> Vec<Key> {
    let mut r = TextReader::new(trace.as_bytes());
    let mut out = run(
        &mut r,
        vec![Box::new(
            DynamicViews::new(Regions::Auto, true).with_granularity(Granularity::EveryEvent),
        )],
        RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("the interpreter's trace reads: {e:?}\n{trace}"));
    let (_, o) = out.outputs.remove(0);
    let report = serde_json::to_value(o.findings).expect("findings");
    let mut keys = Vec::new();
    for f in report.as_array().expect("findings") {
        let k = key(f, interp::class_level);
        if k.0 == "stale-value" {
            let split = f["views"]
                .as_array()
                .expect("views")
                .iter()
                .find(|v| v["role"] == "reads")
                .and_then(|v| v["thread"].as_str())
                .expect("the reading thread")
                .to_owned();
            let var = k.2.iter().next().expect("a variable").clone();
            if !acted_on.contains(&(split, var)) {
                continue;
            }
        }
        keys.push(k);
    }
    keys
}

fn check(seed: u64) -> Result<(), TestCaseError> {
    let text = program(seed);
    let inputs = vec![("Main.java".to_owned(), text.clone())];
    let options = JavaOptions::default();
    let run_static =
        java::analyse_java(&inputs, &options).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let report = serde_json::to_value(&run_static.report.findings).expect("findings");
    let stat: Vec<Key> = report
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| key(f, str::to_owned))
        .collect();
    let models = java::load_models(&options).expect("models");
    let mut warnings = Vec::new();
    let program = java::lower_files(&inputs, &options, &models, &mut warnings)
        .expect("lowers")
        .expect("parses");
    for s in 0..4 {
        let run = interp::run(&program, &models, seed ^ (s * 0x9e37), 200_000)
            .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        for d in dynamic(&run.trace, &run.acted_on) {
            prop_assert!(
                stat.iter()
                    .any(|s| s.0 == d.0 && s.1 == d.1 && s.2.is_superset(&d.2)),
                "dynamic {d:?} not in static {stat:?}\n{text}\n{}",
                run.trace
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_static_verdict_contains_every_run_verdict(seed in any::<u64>()) {
        check(seed)?;
    }
}

/// The dynamic side finds something on a good share of the programs (the property is not
/// vacuous), and the static side is not everything.
#[test]
fn runs_find_anomalies_often_enough() {
    let (mut found, mut static_only) = (0, 0);
    for seed in 0..60u64 {
        let text = program(seed);
        let inputs = vec![("Main.java".to_owned(), text)];
        let options = JavaOptions::default();
        let models = java::load_models(&options).expect("models");
        let mut warnings = Vec::new();
        let program = java::lower_files(&inputs, &options, &models, &mut warnings)
            .expect("lowers")
            .expect("parses");
        let run = interp::run(&program, &models, seed, 200_000).expect("runs");
        let d = dynamic(&run.trace, &run.acted_on);
        let s = java::analyse_java(&inputs, &options).expect("analyses");
        if !d.is_empty() {
            found += 1;
        }
        if d.len() < s.report.findings.len() {
            static_only += 1;
        }
    }
    eprintln!("{found} of 60 runs found anomalies; {static_only} static verdicts larger");
    assert!(found >= 10, "{found} of 60 runs found anomalies");
    assert!(static_only >= 5, "{static_only}");
}
