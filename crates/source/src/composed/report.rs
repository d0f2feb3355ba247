//! The report of `hindsight composed`: each operation's class and verdict, as findings and a
//! summary, and as the text the paper's figures suggest.

use super::{analyse_checked, front, Analysed, Checks, Class, Verdict};
use crate::java;
use hindsight_budget::Budget;
use hindsight_report::{EventRef, Finding, Report, Rule};
use hindsight_syntax::Diagnostic;
use serde_json::{json, Map, Value};
use std::io::{self, Write};
use std::time::Instant;

/// One input: its name as the user gave it, and its text.
pub struct Source {
    pub name: String,
    pub text: String,
}

/// Classifies and verifies the operations of `text` (named `input`), or only `operation`;
/// `bounded` also checks data-dependent operations on a small domain. A syntax error is an
/// error.
pub fn analyse_file(
    text: &str,
    input: &str,
    bounded: bool,
    operation: Option<&str>,
    budget: &Budget,
) -> Result<Report, Diagnostic> {
    let sources = [Source {
        name: input.to_owned(),
        text: text.to_owned(),
    }];
    analyse_sources(&sources, input, &Checks::new(bounded), operation, budget)
}

/// Classifies and verifies the composed operations found in `sources` (Java files, or
/// snippets), or only those named `operation`; `shown` names the whole input in the report.
/// The report's text is the layout the paper's figures suggest (each operation's verdict,
/// counterexample runs step by step); its JSON has `summary.operations` (name, file, line,
/// class, reasons, verdict) and one finding per violation, located at a line of its file.
/// A file with a syntax error is a warning and the others go on; it is an error when no file
/// could be read as Java. Once the budget is spent, the files not parsed yet are left out
/// (counted as `files_not_read`) and the operations not checked yet are listed, classified,
/// as `not-reached`.
pub fn analyse_sources(
    sources: &[Source],
    shown: &str,
    checks: &Checks,
    operation: Option<&str>,
    budget: &Budget,
) -> Result<Report, Diagnostic> {
    let mut warnings = Vec::new();
    let mut parsed = Vec::new();
    let mut first_error = None;
    let mut files = Vec::new();
    let mut fail = |name: &str, e: hindsight_syntax::SyntaxError, warnings: &mut Vec<String>| {
        let d = e.in_input(name);
        warnings.push(d.to_string());
        first_error.get_or_insert(d);
    };
    let mut not_read = 0;
    for src in sources {
        // Parsing a large project takes a while: the limits hold there too.
        if budget.check().is_err() {
            not_read += 1;
            continue;
        }
        match java::parse(&src.text) {
            Ok(file) => files.push((src.name.as_str(), file)),
            Err(e) => fail(&src.name, e, &mut warnings),
        }
    }
    // Lowered together: a class sees its superclasses' fields and helpers in other files.
    let all: Vec<&java::JavaFile> = files.iter().map(|(_, f)| f).collect();
    for ((name, _), programs) in files.iter().zip(front::programs_of(&all)) {
        match programs {
            Ok(programs) => parsed.push((*name, programs)),
            Err(e) => fail(name, e, &mut warnings),
        }
    }
    if parsed.is_empty() {
        if let Some(e) = first_error {
            return Err(e);
        }
    }
    let several = sources.len() > 1;
    if let Some(name) = operation {
        let has = |n: &str| n == name;
        if !parsed
            .iter()
            .any(|(_, ps)| ps.iter().any(|p| p.operations.iter().any(|o| has(&o.name))))
        {
            let names: Vec<&str> = parsed
                .iter()
                .flat_map(|(_, ps)| ps.iter())
                .flat_map(|p| p.operations.iter().map(|o| o.name.as_str()))
                .collect();
            return Err(Diagnostic::usage(format!(
                "{shown} has no operation `{name}` (it has: {})",
                names.join(", ")
            )));
        }
    }
    let mut results = Vec::new();
    let mut total = 0;
    for (_, programs) in &parsed {
        for program in programs {
            total += program
                .operations
                .iter()
                .filter(|op| operation.is_none_or(|n| n == op.name))
                .count();
        }
    }
    budget.add_total(total as u64);
    for (file, programs) in &parsed {
        for program in programs {
            for op in &program.operations {
                if operation.is_some_and(|n| n != op.name) {
                    continue;
                }
                // An inherited operation is at its line in its base class's file.
                let file = match &op.inherited_from {
                    Some(i) => files.get(i.file).map_or(*file, |f| f.0),
                    None => *file,
                };
                let started = Instant::now();
                let a = analyse_checked(program, op, checks, budget);
                results.push(Row {
                    file: file.to_owned(),
                    analysed: a,
                    milliseconds: hindsight_report::milliseconds(started.elapsed()),
                });
                budget.add_done(1);
            }
        }
    }
    let mut report = report(shown, &results, sources.len());
    if not_read > 0 {
        report
            .summary
            .insert("files_not_read".into(), Value::from(not_read));
    }
    report.warnings = warnings;
    report.note_budget(budget);
    let mut text = Vec::new();
    write_text(&mut text, &results, several).expect("writing to memory");
    if let Some(spent) = budget.spent() {
        let mut line = format!(
            "composed: unknown: the budget ran out (--{}); the operations not proved above were not decided",
            spent.name()
        );
        if not_read > 0 {
            line.push_str(&format!(
                ", and {not_read} file(s) were not read, so their operations are not listed"
            ));
        }
        line.push('\n');
        text.extend_from_slice(line.as_bytes());
    }
    report.text = Some(String::from_utf8(text).expect("the text is UTF-8"));
    Ok(report)
}

struct Row {
    file: String,
    analysed: Analysed,
    milliseconds: f64,
}

fn class_text(a: &Analysed) -> String {
    let c = &a.classification;
    match c.class {
        Class::Fcm => format!(
            "class FCM with inputs {{{}}}",
            c.inputs()
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => format!("class {}", other.as_str()),
    }
}

fn write_text(out: &mut dyn Write, results: &[Row], several: bool) -> io::Result<()> {
    let mut counts = [0usize; 5];
    for row in results {
        let a = &row.analysed;
        let name = if a.class.is_empty() {
            a.name.clone()
        } else {
            format!("{}.{}", a.class, a.name)
        };
        if several {
            write!(out, "{name} ({}:{}): ", row.file, a.line)?;
        } else {
            write!(out, "{name} (line {}): ", a.line)?;
        }
        match a.verdict {
            Verdict::Linearizable => {
                counts[0] += 1;
                writeln!(
                    out,
                    "linearizable (proved for all keys and values, {})",
                    class_text(a)
                )?;
            }
            Verdict::NotLinearizable => {
                counts[1] += 1;
                let c = a.counterexample.as_ref().expect("a counterexample");
                let how = if a.bounded {
                    ", found by the bounded check"
                } else {
                    ""
                };
                writeln!(out, "not linearizable ({}{how})", class_text(a))?;
                writeln!(
                    out,
                    "  counterexample with {}, from {}:",
                    c.inputs, c.initial
                )?;
                for f in &c.facts {
                    writeln!(out, "  assuming {f}")?;
                }
                for s in &c.steps {
                    let mark = match (s.kind, s.lp) {
                        (_, true) => "LP  ",
                        ("env", _) => "env ",
                        ("assume", _) => "?   ",
                        _ => "    ",
                    };
                    if s.kind == "env" {
                        writeln!(out, "    {mark}{}  {}", s.action, s.after)?;
                    } else {
                        writeln!(out, "    {mark}{}  {}", s.before, s.action)?;
                    }
                    if s.lp {
                        writeln!(out, "          after the linearization point: {}", s.after)?;
                    }
                }
                for r in &c.sequential {
                    writeln!(out, "    {r}")?;
                }
                writeln!(out, "  violation: {}", c.problem)?;
            }
            Verdict::NotProved => {
                counts[2] += 1;
                writeln!(
                    out,
                    "not proved ({}){}",
                    class_text(a),
                    a.note
                        .as_ref()
                        .map(|n| format!(": {n}"))
                        .unwrap_or_default()
                )?;
            }
            Verdict::Unsupported => {
                counts[3] += 1;
                writeln!(
                    out,
                    "unsupported: {}",
                    a.note.as_deref().unwrap_or("a construct is not modelled")
                )?;
                continue;
            }
            Verdict::NotReached => {
                counts[4] += 1;
                writeln!(
                    out,
                    "not reached ({}): {}",
                    class_text(a),
                    a.note.as_deref().unwrap_or("the budget ran out")
                )?;
                continue;
            }
        }
        for r in &a.classification.reasons {
            writeln!(out, "  {} at {}: {}", r.rule, r.pos, r.message)?;
        }
    }
    write!(
        out,
        "composed: {} operation(s): {} linearizable, {} not linearizable, {} not proved",
        results.len(),
        counts[0],
        counts[1],
        counts[2]
    )?;
    if counts[3] > 0 {
        write!(out, ", {} unsupported", counts[3])?;
    }
    if counts[4] > 0 {
        write!(out, ", {} not reached", counts[4])?;
    }
    writeln!(out)
}

fn report(shown: &str, results: &[Row], files: usize) -> Report {
    let mut report = Report::new("composed");
    report.trace.insert("path".into(), Value::from(shown));
    report
        .trace
        .insert("format".into(), Value::from("composed"));
    report
        .trace
        .insert("operations".into(), Value::from(results.len()));
    if files > 1 {
        report.trace.insert("files".into(), Value::from(files));
    }
    report.rules.push(Rule {
        id: "not-linearizable",
        description:
            "A composed map operation has a trace that violates Definition 3.1 of VINE (ISSTA'14)",
    });
    let mut ops = Vec::new();
    for row in results {
        let (a, ms, file) = (&row.analysed, &row.milliseconds, row.file.as_str());
        let shown = file;
        let c = &a.classification;
        let reasons: Vec<Value> = c
            .reasons
            .iter()
            .map(|r| {
                json!({"rule": r.rule, "line": r.pos.line, "column": r.pos.col, "message": r.message})
            })
            .collect();
        let mut entry = Map::new();
        entry.insert("name".into(), Value::from(a.name.clone()));
        entry.insert("file".into(), Value::from(file));
        entry.insert("line".into(), Value::from(a.line));
        if !a.class.is_empty() {
            entry.insert("java_class".into(), Value::from(a.class.clone()));
        }
        entry.insert("class".into(), Value::from(c.class.as_str()));
        entry.insert("reasons".into(), Value::from(reasons));
        entry.insert("verdict".into(), Value::from(a.verdict.as_str()));
        if c.class == Class::Fcm {
            let inputs: Vec<String> = c.inputs().iter().map(|v| v.to_string()).collect();
            entry.insert("inputs".into(), Value::from(inputs));
        }
        if !c.notes.is_empty() {
            entry.insert("notes".into(), Value::from(c.notes.clone()));
        }
        if let Some(n) = &a.note {
            entry.insert("note".into(), Value::from(n.clone()));
        }
        entry.insert("bounded".into(), Value::from(a.bounded));
        entry.insert("states".into(), Value::from(a.states));
        entry.insert("milliseconds".into(), Value::from(*ms));
        ops.push(Value::Object(entry));

        if let Some(cx) = &a.counterexample {
            let mut events: Vec<EventRef> = cx
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| EventRef {
                    index: i as u64,
                    thread: if s.kind == "env" {
                        "environment".into()
                    } else {
                        a.name.clone()
                    },
                    op: if s.kind == "env" {
                        format!("{} -> {}", s.action, s.after)
                    } else if s.lp {
                        format!(
                            "{} {} [linearization point] -> {}",
                            s.before, s.action, s.after
                        )
                    } else {
                        format!("{} {}", s.before, s.action)
                    },
                    location: (s.line > 0).then(|| format!("{shown}:{}", s.line)),
                })
                .collect();
            // The finding is about the line the violation shows at: make it the last event.
            if events.last().and_then(|e| e.location.clone())
                != Some(format!("{shown}:{}", cx.line))
            {
                events.push(EventRef {
                    index: events.len() as u64,
                    thread: a.name.clone(),
                    op: cx.problem.clone(),
                    location: Some(format!("{shown}:{}", cx.line)),
                });
            }
            let mut fields = Map::new();
            fields.insert("operation".into(), Value::from(a.name.clone()));
            fields.insert("class".into(), Value::from(c.class.as_str()));
            fields.insert("inputs".into(), Value::from(cx.inputs.clone()));
            fields.insert("initial".into(), Value::from(cx.initial.clone()));
            fields.insert("outcome".into(), Value::from(cx.outcome.clone()));
            fields.insert("sequential".into(), Value::from(cx.sequential.clone()));
            // What the witness needs of the unknown code: each an assumption about one
            // unknown call's result (empty when the path observes none).
            fields.insert(
                "assumptions".into(),
                Value::from(cx.facts.iter().map(|f| f.to_string()).collect::<Vec<_>>()),
            );
            fields.insert("bounded".into(), Value::from(a.bounded));
            report.findings.push(Finding {
                occurrences: None,
                kind: "not-linearizable".into(),
                message: format!(
                    "{}: not linearizable ({}): {}",
                    a.name,
                    class_text(a),
                    cx.problem
                ),
                events,
                fields,
                group: None,
            });
        }
    }
    let count = |v: Verdict| results.iter().filter(|r| r.analysed.verdict == v).count();
    report.summary.insert(
        "linearizable".into(),
        Value::from(count(Verdict::Linearizable)),
    );
    report.summary.insert(
        "not_linearizable".into(),
        Value::from(count(Verdict::NotLinearizable)),
    );
    report
        .summary
        .insert("not_proved".into(), Value::from(count(Verdict::NotProved)));
    report.summary.insert(
        "unsupported".into(),
        Value::from(count(Verdict::Unsupported)),
    );
    let not_reached = count(Verdict::NotReached);
    if not_reached > 0 {
        report
            .summary
            .insert("not_reached".into(), Value::from(not_reached));
    }
    report.summary.insert("operations".into(), Value::from(ops));
    report
}
