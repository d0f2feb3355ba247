//! `views` on Java, held against runs: random small Java programs (threads started and joined
//! in a random order, synchronized getters, setters and blocks, branches on values read, early
//! returns, loops; fields written back from their own read (`f = f + x`); a shared array indexed by values read, a `StringBuilder`'s state, values
//! kept in a thread's own array between regions; workers that start copies of themselves,
//! deeper than the analysis walks; a worker started in a loop into an array and joined in a
//! loop or not, or submitted twice to a single-thread executor or a pool, with main acting
//! after) are analysed statically, and run by the interpreter of their lowered form
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
        // The array, JDK-state and kept-index statements (7 to 10) one time in three, at any
        // depth; the others as before, so that runs still find anomalies often.
        let choice = if self.pick(3) == 0 {
            7 + self.pick(4)
        } else {
            self.pick(if depth >= 2 { 4 } else { 7 })
        };
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
                    match self.pick(3) {
                        // A field written back from its own read only (rule 6 of the
                        // analysis: the read leaves the read view).
                        0 => self.line(indent + 1, &format!("s.f{a} = s.f{a} + {e};")),
                        1 => self.line(indent + 1, &format!("s.f{a} = s.f{b} + {e};")),
                        _ => self.line(indent + 1, &format!("s.f{a} = {e};")),
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
            7 => {
                // An element of the shared array, at an index that may come from a value
                // read in another region.
                let v = format!("v{}", self.next_local);
                self.next_local += 1;
                let i = self.operand();
                self.line(indent, &format!("int {v} = s.at(({i}) % {FIELDS});"));
                self.locals.push(v);
            }
            8 => {
                let (i, e) = (self.operand(), self.expr());
                self.line(indent, &format!("s.put(({i}) % {FIELDS}, {e});"));
            }
            9 => {
                // State inside a JDK object (a StringBuilder's contents): its length read,
                // or text appended.
                if self.pick(2) == 0 {
                    let v = format!("v{}", self.next_local);
                    self.next_local += 1;
                    self.line(indent, &format!("int {v} = s.length();"));
                    self.locals.push(v);
                } else {
                    let e = self.expr();
                    self.line(indent, &format!("s.append({e});"));
                }
            }
            10 => {
                // A value kept in the thread's own array between regions.
                let v = format!("v{}", self.next_local);
                self.next_local += 1;
                let e = self.expr();
                self.line(indent, &format!("keep[1] = {e};"));
                self.line(indent, &format!("int {v} = keep[1];"));
                self.locals.push(v);
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
    g.line(1, &format!("int[] a = new int[{FIELDS}];"));
    g.line(1, "synchronized int at(int i) { return a[i]; }");
    g.line(1, "synchronized void put(int i, int v) { a[i] = v; }");
    g.line(1, "StringBuilder text = new StringBuilder();");
    g.line(1, "synchronized int length() { return text.length(); }");
    g.line(1, "synchronized void append(int v) { text.append(v); }");
    g.line(0, "}");
    let workers = 2 + g.pick(2);
    // A recursive worker starts a copy of itself at the end of its run, `depth` levels deep
    // (past the analysis's bound on threads of one class, so the fold is exercised), and
    // joins it or not.
    let mut recursive = vec![false; workers];
    for (w, rec) in recursive.iter_mut().enumerate() {
        *rec = g.pick(3) == 0;
        g.line(0, &format!("class W{w} implements Runnable {{"));
        g.line(1, "S s;");
        if *rec {
            g.line(1, "int depth;");
            g.line(
                1,
                &format!("W{w}(S s, int depth) {{ this.s = s; this.depth = depth; }}"),
            );
        } else {
            g.line(1, &format!("W{w}(S s) {{ this.s = s; }}"));
        }
        g.line(1, "public void run() {");
        g.line(2, "int[] keep = new int[2];");
        g.locals.clear();
        let n = 2 + g.pick(4);
        g.body(2, 0, n);
        if *rec {
            g.line(2, "if (depth > 0) {");
            g.line(
                3,
                &format!("Thread child = new Thread(new W{w}(s, depth - 1));"),
            );
            g.line(3, "child.start();");
            if g.pick(2) == 0 {
                g.line(
                    3,
                    "try { child.join(); } catch (InterruptedException e) { return; }",
                );
            }
            g.line(2, "}");
        }
        g.line(1, "}");
        g.line(0, "}");
    }
    // A worker started more than once: in a loop into a local array (joined in a loop, or
    // left to end with main), or as tasks of a single-thread executor or of a pool; main then
    // runs a few statements of its own, after the join loop or the executor's termination.
    let looped = (g.pick(2) == 0).then(|| g.pick(4));
    if looped.is_some() {
        g.line(0, "class WL implements Runnable {");
        g.line(1, "S s;");
        g.line(1, "WL(S s) { this.s = s; }");
        g.line(1, "public void run() {");
        g.line(2, "int[] keep = new int[2];");
        g.locals.clear();
        let n = 2 + g.pick(3);
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
    for (w, &rec) in recursive.iter().enumerate() {
        let args = if rec { "s, 3" } else { "s" };
        g.line(2, &format!("Thread t{w} = new Thread(new W{w}({args}));"));
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
    if let Some(shape) = looped {
        match shape {
            0 | 1 => {
                g.line(2, "Thread[] ts = new Thread[2];");
                g.line(2, "for (int i = 0; i < ts.length; i++) {");
                g.line(3, "ts[i] = new Thread(new WL(s));");
                g.line(3, "ts[i].start();");
                g.line(2, "}");
                if shape == 0 {
                    g.line(2, "for (Thread t : ts) t.join();");
                }
            }
            _ => {
                let pool = if shape == 2 {
                    "newSingleThreadExecutor()"
                } else {
                    "newFixedThreadPool(2)"
                };
                g.line(2, &format!("java.util.concurrent.ExecutorService e = java.util.concurrent.Executors.{pool};"));
                g.line(2, "for (int i = 0; i < 2; i++) e.submit(new WL(s));");
                g.line(2, "e.shutdown();");
                g.line(
                    2,
                    "e.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS);",
                );
            }
        }
        g.line(2, "int[] keep = new int[2];");
        g.locals.clear();
        let n = 1 + g.pick(3);
        g.body(2, 0, n);
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
        keys.push(folded(k));
    }
    keys
}

/// A run's threads as the static analysis names them: along a chain of starts of one class
/// the run names the levels `X`, `X [2]`, `X [3]`, ...; the analysis walks `X` and folds every
/// deeper level onto it (its copy `X [2]` stands for them all, and a copy's warnings with
/// other threads are its original's). So `X [k]`, k >= 2, is `X`; two such levels are the
/// pair `X`, `X [2]` (two threads running `X`'s method).
fn folded(mut k: Key) -> Key {
    let level = |t: &str| -> Option<(String, u32)> {
        let (base, rest) = t.rsplit_once(" [")?;
        let n = rest.strip_suffix(']')?.parse::<u32>().ok()?;
        Some((base.to_owned(), n))
    };
    let before = k.1.len();
    k.1 =
        k.1.iter()
            .map(|t| match level(t) {
                Some((base, n)) if n >= 2 => base,
                _ => t.clone(),
            })
            .collect();
    if k.1.len() < before {
        let original = k.1.iter().next().cloned().expect("a thread");
        k.1.insert(format!("{original} [2]"));
    }
    k
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
/// vacuous), some of it on the array or the StringBuilder or with recursive workers deeper
/// than the analysis walks, and the static side is not everything.
#[test]
fn runs_find_anomalies_often_enough() {
    const SEEDS: u64 = 120;
    let (mut found, mut static_only, mut new_kinds, mut deep) = (0, 0, 0, 0);
    let mut looped = 0;
    for seed in 0..SEEDS {
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
        if d.iter().any(|k| k.2.iter().any(|v| v.contains("[]"))) {
            new_kinds += 1;
        }
        // A run that went past the levels the analysis walks (a thread `X [3]` ran) and found
        // something: the folded threads are held to the run.
        if run.trace.contains(" [3]|") && !d.is_empty() {
            deep += 1;
        }
        // A worker started more than once (in a loop, or as tasks) found in something.
        if d.iter().any(|k| k.1.iter().any(|t| t.starts_with("WL@"))) {
            looped += 1;
        }
        if d.len() < s.report.findings.len() {
            static_only += 1;
        }
    }
    eprintln!(
        "{found} of {SEEDS} runs found anomalies, {new_kinds} on the array or the \
         StringBuilder, {deep} with threads past the fold, {looped} with a worker started more \
         than once; {static_only} static verdicts larger"
    );
    assert!(
        looped >= 3,
        "{looped} runs found anomalies with a worker started more than once"
    );
    assert!(
        deep >= 2,
        "{deep} runs with threads past the fold found anomalies"
    );
    assert!(found >= 10, "{found} of {SEEDS} runs found anomalies");
    assert!(
        new_kinds >= 2,
        "{new_kinds} runs found anomalies on the array or the StringBuilder"
    );
    assert!(static_only >= 5, "{static_only}");
}
