//! The text rendering: findings grouped, each event on its own line, a summary at the end.

use crate::{EventRef, RenderOptions, Report};
use serde_json::Value;
use std::io::{self, Write};

fn event_line(e: &EventRef) -> String {
    match &e.location {
        Some(loc) => format!("#{} {} {} at {}", e.index, e.thread, e.op, loc),
        None => format!("#{} {} {}", e.index, e.thread, e.op),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Findings in the order of their groups' first appearance, each group under a heading;
/// past `options.limit` findings that stand for occurrence groups, one line for the rest.
pub fn render_text(
    report: &Report,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    if let Some(text) = &report.text {
        return out.write_all(text.as_bytes());
    }
    let limit = options.limit.unwrap_or(usize::MAX);
    let mut shown = 0usize;
    let (mut hidden, mut hidden_occurrences) = (0usize, 0u64);
    let groups = crate::grouped(&report.findings);
    for (group, findings) in &groups {
        if let [f] = findings.as_slice() {
            if let Some(n) = f.occurrences {
                if shown == limit {
                    hidden += 1;
                    hidden_occurrences += n;
                    continue;
                }
                shown += 1;
            }
        }
        if let Some(g) = group {
            writeln!(out, "{g}: {} finding(s)", findings.len())?;
        }
        let indent = if group.is_some() { "  " } else { "" };
        for f in findings {
            writeln!(out, "{indent}{}: {}", f.kind, f.message)?;
            for e in &f.events {
                writeln!(out, "{indent}    {}", event_line(e))?;
            }
        }
    }
    if hidden > 0 {
        writeln!(
            out,
            "... and {hidden} more finding(s) standing for {hidden_occurrences} occurrence(s) (--limit shows more)"
        )?;
    }
    let summary: Vec<String> = report
        .summary
        .iter()
        .map(|(k, v)| format!("{k} {}", scalar(v)))
        .collect();
    writeln!(
        out,
        "{}: {} finding(s); {}",
        report.analysis,
        report.findings.len(),
        summary.join(", ")
    )
}
