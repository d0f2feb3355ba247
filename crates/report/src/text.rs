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

/// Text bound for a terminal with its ASCII control characters other than the line break
/// written as escapes (`\u{1b}`): names come from the input, and an escape sequence in a
/// variable's name must not drive the user's terminal.
pub struct EscapeControls<W>(pub W);

impl<W: Write> Write for EscapeControls<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        // Bytes below 0x80 are never part of a multi-byte UTF-8 character, so a buffer may be
        // split anywhere.
        let mut rest = buf;
        while let Some(i) = rest
            .iter()
            .position(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
        {
            self.0.write_all(&rest[..i])?;
            write!(self.0, "\\u{{{:x}}}", rest[i])?;
            rest = &rest[i + 1..];
        }
        self.0.write_all(rest)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Findings in the order of their groups' first appearance, each group under a heading;
/// past `options.limit` findings that stand for occurrence groups, one line for the rest.
pub fn render_text(
    report: &Report,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let out = &mut EscapeControls(out);
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
            if let Some(w) = crate::witness_of(f) {
                writeln!(
                    out,
                    "{indent}    witness: run these {} event(s), then both accesses are enabled:",
                    w.schedule.len()
                )?;
                for e in &w.schedule {
                    writeln!(out, "{indent}      {}", event_line(e))?;
                }
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
