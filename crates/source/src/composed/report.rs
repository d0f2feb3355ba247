//! The report of `hindsight composed`: each operation's class and verdict, as findings and a
//! summary, and as the text the paper's figures suggest.

use super::{analyse_one, parse, Analysed, Class, Verdict};
use hindsight_budget::Budget;
use hindsight_report::{EventRef, Finding, Report, Rule};
use hindsight_syntax::Diagnostic;
use serde_json::{json, Map, Value};
use std::io::{self, Write};
use std::time::Instant;

/// Classifies and verifies the operations of `text` (named `input`), or only `operation`;
/// `bounded` also checks data-dependent operations on a small domain. The report's text is
/// the layout the paper's figures suggest (each operation's verdict, counterexample runs step
/// by step); its JSON has `summary.operations` and one finding per violation, located at a
/// line of the input.
pub fn analyse_file(
    text: &str,
    input: &str,
    bounded: bool,
    operation: Option<&str>,
    budget: &Budget,
) -> Result<Report, Diagnostic> {
    let mut program = parse(text).map_err(|e| e.in_input(input))?;
    if let Some(name) = operation {
        if !program.operations.iter().any(|o| o.name == name) {
            let names: Vec<&str> = program.operations.iter().map(|o| o.name.as_str()).collect();
            return Err(Diagnostic::usage(format!(
                "{input} has no operation `{name}` (it has: {})",
                names.join(", ")
            )));
        }
        program.operations.retain(|o| o.name == name);
    }
    let mut results = Vec::new();
    budget.add_total(program.operations.len() as u64);
    for op in &program.operations {
        let started = Instant::now();
        let a = analyse_one(&program, op, bounded, budget);
        results.push((a, started.elapsed().as_secs_f64() * 1e3));
        budget.add_done(1);
    }
    let mut report = report(input, &results);
    report.note_budget(budget);
    let mut text = Vec::new();
    write_text(&mut text, &results).expect("writing to memory");
    if let Some(spent) = budget.spent() {
        let mut line = format!(
            "composed: unknown: the budget ran out (--{}); the operations not proved above were not decided",
            spent.name()
        );
        line.push('\n');
        text.extend_from_slice(line.as_bytes());
    }
    report.text = Some(String::from_utf8(text).expect("the text is UTF-8"));
    Ok(report)
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

fn write_text(out: &mut dyn Write, results: &[(Analysed, f64)]) -> io::Result<()> {
    let mut counts = [0usize; 3];
    for (a, _) in results {
        write!(out, "{} (line {}): ", a.name, a.line)?;
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
                for s in &c.steps {
                    let mark = match (s.kind, s.lp) {
                        (_, true) => "LP  ",
                        ("env", _) => "env ",
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
        }
        for r in &a.classification.reasons {
            writeln!(out, "  {} at {}: {}", r.rule, r.pos, r.message)?;
        }
    }
    writeln!(
        out,
        "composed: {} operation(s): {} linearizable, {} not linearizable, {} not proved",
        results.len(),
        counts[0],
        counts[1],
        counts[2]
    )
}

fn report(shown: &str, results: &[(Analysed, f64)]) -> Report {
    let mut report = Report::new("composed");
    report.trace.insert("path".into(), Value::from(shown));
    report
        .trace
        .insert("format".into(), Value::from("composed"));
    report
        .trace
        .insert("operations".into(), Value::from(results.len()));
    report.rules.push(Rule {
        id: "not-linearizable",
        description:
            "A composed map operation has a trace that violates Definition 3.1 of VINE (ISSTA'14)",
    });
    let mut ops = Vec::new();
    for (a, ms) in results {
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
        entry.insert("line".into(), Value::from(a.line));
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
    let count = |v: Verdict| results.iter().filter(|(a, _)| a.verdict == v).count();
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
    report.summary.insert("operations".into(), Value::from(ops));
    report
}
