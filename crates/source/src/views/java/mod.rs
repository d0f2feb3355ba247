//! Views of real Java programs (MoTH analyses Java; this is its front end here): the files are
//! parsed by the shared tree-sitter front end (`crate::java`), lowered to a small form
//! ([`ir`], by [`lower`]), analysed statically ([`analysis`]: regions, views, dependence,
//! start/join order, library mode), and the warnings rendered with the source lines of both
//! regions. [`interp`] runs the lowered form of a small program and records the run as a trace
//! for the trace-based views (the property tests hold the static verdict against it);
//! [`models`] is the table of JDK collections.
//!
//! Nothing here opens files or prints: the caller passes the texts and renders the report.

pub mod analysis;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod models;

use hindsight_budget::Budget;
use hindsight_report::Report;
use hindsight_syntax::{Diagnostic, Position};
use hindsight_views::sensors::{HIGH_LEVEL_RACE, STALE_VALUE};
use hindsight_views::{count_kinds, findings, rules};
use serde_json::{Map, Value};

/// Options of `views` on Java.
#[derive(Clone, Debug, Default)]
pub struct JavaOptions {
    /// `lock()`/`unlock()` spans are atomic regions too.
    pub lock_regions: bool,
    /// Library mode even when the program starts threads.
    pub library: bool,
    /// Extra lines of the models table (`--models FILE`): `(name, text)`.
    pub models: Option<(String, String)>,
}

/// Java files analysed: the report, warnings (each file that could not be read included).
pub struct JavaRun {
    pub report: Report,
    pub warnings: Vec<Diagnostic>,
}

/// Lowers the texts `(name, text)` that parse; the others become warnings at their
/// `file:line:col`. `None` when no file parsed.
pub fn lower_files(
    inputs: &[(String, String)],
    options: &JavaOptions,
    models: &models::Models,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<ir::Program>, Diagnostic> {
    let mut parsed = Vec::new();
    for (name, text) in inputs {
        match crate::java::parse(text) {
            Ok(f) => parsed.push((name.clone(), f)),
            Err(e) => warnings.push(Diagnostic::warning(
                name,
                Position::At(e.pos),
                format!("{} (file skipped)", e.message),
            )),
        }
    }
    if parsed.is_empty() {
        return Ok(None);
    }
    let lowered = lower::lower(
        &parsed,
        models,
        lower::LowerOptions {
            lock_regions: options.lock_regions,
        },
    );
    match lowered {
        Ok(p) => Ok(Some(p)),
        Err(e) => Err(Diagnostic::error(
            &parsed[0].0,
            Position::At(e.pos),
            e.message,
        )),
    }
}

/// The models table: the shipped one, extended by `options.models`.
pub fn load_models(options: &JavaOptions) -> Result<models::Models, Diagnostic> {
    let mut m = models::Models::shipped();
    if let Some((name, text)) = &options.models {
        m.extend(text)
            .map_err(|e| Diagnostic::error(name, Position::At(e.pos), e.message))?;
    }
    Ok(m)
}

/// Analyses the Java texts `(name, text)` together as one program. An error only when no file
/// could be analysed (or the models file is bad).
pub fn analyse_java(
    inputs: &[(String, String)],
    options: &JavaOptions,
) -> Result<JavaRun, Diagnostic> {
    analyse_java_within(inputs, options, &Budget::unlimited())
}

/// [`analyse_java`] within `budget`: once it is spent the walk stops and what it saw is
/// analysed; the report says which limit was reached (and is *unknown* without findings).
pub fn analyse_java_within(
    inputs: &[(String, String)],
    options: &JavaOptions,
    budget: &Budget,
) -> Result<JavaRun, Diagnostic> {
    let models = load_models(options)?;
    let mut warnings = Vec::new();
    let Some(program) = lower_files(inputs, options, &models, &mut warnings)? else {
        let first = warnings.first().cloned();
        return Err(match first {
            Some(w) => Diagnostic {
                severity: hindsight_syntax::Severity::Error,
                ..w
            },
            None => Diagnostic::error("views", Position::File, "no Java file given"),
        });
    };
    let analysis_options = analysis::Options {
        library: options.library,
    };
    // Call chains are walked recursively, as deep as the program's (up to
    // `analysis::MAX_CALL_DEPTH`): on a thread whose stack holds them.
    let mut a = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("views-java".into())
            .stack_size(analysis::STACK_BYTES)
            .spawn_scoped(scope, || {
                analysis::analyse(&program, &models, analysis_options, budget)
            })
            .expect("the analysis thread starts")
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    });
    a.set_lines(
        program
            .files
            .iter()
            .map(|f| (f.name.clone(), f.lines.join("\n")))
            .collect(),
    );
    for n in program.notes.iter().chain(&a.notes) {
        warnings.push(Diagnostic::warning("views", Position::File, n.clone()));
    }
    let report = report(&a, inputs, budget);
    let mut run = JavaRun { report, warnings };
    run.report.warnings = run.warnings.iter().map(Diagnostic::to_string).collect();
    Ok(run)
}

/// The line saying what library mode assumes.
pub const LIBRARY_NOTE: &str = "library mode: no second thread is started, so every public method of the analysed classes is taken to run concurrently with every other and with itself (MoTH's assumption)";

fn report(a: &analysis::Analysed, inputs: &[(String, String)], budget: &Budget) -> Report {
    let k = &a.knowledge;
    let mut report = Report::new("views");
    let names: Vec<Value> = inputs.iter().map(|i| Value::from(i.0.clone())).collect();
    report.trace.insert("path".into(), Value::Array(names));
    report.trace.insert("format".into(), Value::from("java"));
    report
        .trace
        .insert("threads".into(), Value::from(k.threads.len()));
    let mut fs = findings(k, &a.warnings, a);
    let mut text = String::new();
    for (f, w) in fs.iter_mut().zip(&a.warnings) {
        let x = &w.witnesses[0];
        let pick = x
            .first
            .iter()
            .flat_map(|&p| x.second.iter().map(move |&q| (p, q)))
            .find(|(p, q)| p != q)
            .unwrap_or((x.first[0], x.second[0]));
        let regions: Vec<(&str, usize, Option<analysis::RegionId>)> = if w.kind == HIGH_LEVEL_RACE {
            vec![
                ("split-first", x.split, a.region_of(x.split, pick.0)),
                ("split-second", x.split, a.region_of(x.split, pick.1)),
                (
                    "maximal",
                    x.intruder,
                    a.region_of(x.intruder, x.intruder_views[0]),
                ),
            ]
        } else {
            let (ra, rb) = a
                .stale_regions
                .get(&(x.split, x.first[0], x.second[0], w.variables[0]))
                .copied()
                .map_or((None, None), |(p, q)| (Some(p), Some(q)));
            vec![
                ("reads", x.split, ra),
                ("writes-back", x.split, rb),
                (
                    "writer",
                    x.intruder,
                    a.region_of(x.intruder, x.intruder_views[0]),
                ),
            ]
        };
        let mut shown = Vec::new();
        let mut lines_text = String::new();
        for (role, t, r) in regions {
            let Some(r) = r else { continue };
            let s = a.src_of(r);
            let lines = a.lines_of(s);
            let body = a.body_of(s);
            lines_text.push_str(&format!(
                "  {role} ({}): {} at {lines}\n",
                k.threads[t].name, s.what
            ));
            // The two regions of the split thread are shown in full; the third by its lines.
            if role != "maximal" && role != "writer" {
                for l in &body {
                    lines_text.push_str(&format!("    | {l}\n"));
                }
            }
            let mut m = Map::new();
            m.insert("role".into(), Value::from(role));
            m.insert("thread".into(), Value::from(k.threads[t].name.clone()));
            m.insert("what".into(), Value::from(s.what.clone()));
            m.insert("lines".into(), Value::from(lines));
            m.insert("body".into(), Value::from(body.join("\n")));
            shown.push(Value::Object(m));
        }
        f.fields.insert("regions".into(), Value::Array(shown));
        if w.kind == STALE_VALUE {
            // The rule is not MoTH's `psv` (the write-back need not write the variable itself),
            // so the message says what was found.
            let (st, it) = (&k.threads[x.split].name, &k.threads[x.intruder].name);
            let var = k.var_name(w.variables[0]);
            f.message = format!(
                "{st} reads `{var}` in one atomic region and a later region acts on the value read (writes a value computed from it, or runs because of it), and {it} writes `{var}`: {st} may act on a stale value"
            );
        }
        text.push_str(&format!("{}: {}\n", f.kind, f.message));
        text.push_str(&lines_text);
    }
    let (races, stale) = count_kinds(&a.warnings);
    report.findings = fs;
    report.rules = rules();
    let mode = if a.library { "library" } else { "program" };
    report.summary.insert("mode".into(), Value::from(mode));
    report
        .summary
        .insert("threads".into(), Value::from(k.threads.len()));
    report
        .summary
        .insert("regions".into(), Value::from(a.regions.len()));
    report
        .summary
        .insert("views".into(), Value::from(k.views.len()));
    report
        .summary
        .insert("high_level_races".into(), Value::from(races));
    report
        .summary
        .insert("stale_values".into(), Value::from(stale));
    report
        .summary
        .insert("removed_by_mhp".into(), Value::from(a.removed_by_mhp));
    if !a.spawn_bounded.is_empty() {
        text.push_str(&format!(
            "{} start threads of their own class: at most {} threads of one class (of what they run) are walked along a chain of starts, deeper ones are folded onto the nearest (its copy ` [2]` stands for them) and every thread from it down is taken to run in parallel with every other\n",
            a.spawn_bounded.join(", "),
            analysis::SPAWN_COPIES
        ));
        report
            .summary
            .insert("spawn_copies".into(), Value::from(analysis::SPAWN_COPIES));
        report
            .summary
            .insert("spawn_bounded".into(), Value::from(a.spawn_bounded.clone()));
    }
    if !a.copied.is_empty() {
        text.push_str(&format!(
            "threads that may run more than once at a time (started in a loop, by a thread that is, or a task listed more than once): {}; each is walked once, with one copy (` [2]`) standing for its other runs: the sensors judge pairs of threads, so two runs are all a warning needs\n",
            a.copied.join(", ")
        ));
        report
            .summary
            .insert("copied_threads".into(), Value::from(a.copied.clone()));
    }
    if !a.serial_tasks.is_empty() {
        text.push_str(&format!(
            "tasks of a single-thread executor, run one at a time in the order submitted (no copy, none in parallel with another of its executor): {}\n",
            a.serial_tasks.join(", ")
        ));
        report
            .summary
            .insert("serial_tasks".into(), Value::from(a.serial_tasks.clone()));
    }
    if a.library {
        text.push_str(&format!("{LIBRARY_NOTE}\n"));
        report
            .summary
            .insert("library_mode".into(), Value::from(LIBRARY_NOTE));
    }
    report.note_budget(budget);
    if let Some(spent) = budget.spent() {
        text.push_str(&format!(
            "views: unknown: the budget ran out (--{}); what was not walked was not analysed\n",
            spent.name()
        ));
    }
    let summary: Vec<String> = report
        .summary
        .iter()
        .filter(|(k, _)| *k != "library_mode")
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k} {s}"),
            v => format!("{k} {v}"),
        })
        .collect();
    text.push_str(&format!(
        "views: {} finding(s); {}\n",
        report.findings.len(),
        summary.join(", ")
    ));
    report.text = Some(text);
    report
}
