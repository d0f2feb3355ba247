//! SARIF 2.1.0, built from the typed model of `serde-sarif` so that the output follows the
//! schema by construction.

use crate::{EventRef, Finding, Report};
use serde_sarif::sarif::{
    ArtifactLocation, Location, LogicalLocation, Message, MultiformatMessageString,
    PhysicalLocation, Region, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif,
    Tool, ToolComponent, SCHEMA_URL,
};
use std::io::{self, Write};

/// A trace location `path:line` or `path:line:column` becomes a physical location in that file;
/// anything else (RAPID writes bare numbers) becomes a logical location named by the text.
fn location(e: &EventRef) -> Option<Location> {
    let text = e.location.as_deref()?;
    let message = Message::builder()
        .text(format!("#{} {} {}", e.index, e.thread, e.op))
        .build();
    let mut parts = text.rsplitn(3, ':');
    let (last, mid, first) = (parts.next(), parts.next(), parts.next());
    let file_line_col = match (first, mid, last) {
        (Some(f), Some(l), Some(c)) => l
            .parse::<i64>()
            .ok()
            .zip(c.parse::<i64>().ok())
            .map(|(l, c)| (f, l, Some(c))),
        _ => None,
    };
    let file_line = file_line_col.or_else(|| {
        let (f, l) = text.rsplit_once(':')?;
        Some((f, l.parse::<i64>().ok()?, None))
    });
    let loc = match file_line {
        Some((file, line, col)) if !file.is_empty() && line > 0 => {
            let region = match col {
                Some(c) if c > 0 => Region::builder().start_line(line).start_column(c).build(),
                _ => Region::builder().start_line(line).build(),
            };
            Location::builder()
                .physical_location(
                    PhysicalLocation::builder()
                        .artifact_location(ArtifactLocation::builder().uri(file.to_owned()).build())
                        .region(region)
                        .build(),
                )
                .message(message)
                .build()
        }
        _ => Location::builder()
            .logical_locations(vec![LogicalLocation::builder()
                .name(text.to_owned())
                .kind("location".to_owned())
                .build()])
            .message(message)
            .build(),
    };
    Some(loc)
}

fn result(kind: &str, title: String, findings: &[&Finding]) -> SarifResult {
    // The last event of each finding is the one it is about; the others are related.
    let mut locations = Vec::new();
    let mut related = Vec::new();
    for f in findings {
        if let Some((main, others)) = f.events.split_last() {
            locations.extend(location(main));
            related.extend(others.iter().filter_map(location));
        }
    }
    let mut b = SarifResult::builder()
        .rule_id(kind.to_owned())
        .level(ResultLevel::Error)
        .message(Message::builder().text(title).build())
        .build();
    if !locations.is_empty() {
        b.locations = Some(locations);
    }
    if !related.is_empty() {
        b.related_locations = Some(related);
    }
    b
}

/// One SARIF log with one run for the report.
pub fn render_sarif(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    render_sarif_runs(std::slice::from_ref(report), out)
}

/// One SARIF log with one run per report (several analyses of one input: `hindsight check`).
pub fn render_sarif_runs(reports: &[Report], out: &mut dyn Write) -> io::Result<()> {
    let sarif = Sarif::builder()
        .schema(SCHEMA_URL.to_owned())
        .version(serde_json::json!("2.1.0"))
        .runs(reports.iter().map(run).collect::<Vec<_>>())
        .build();
    serde_json::to_writer_pretty(&mut *out, &sarif)?;
    out.write_all(b"\n")
}

fn run(report: &Report) -> Run {
    // One result per group (e.g. per racy variable), else per finding.
    let groups = crate::grouped(&report.findings);
    let results: Vec<SarifResult> = groups
        .iter()
        .map(|(g, fs)| {
            let title = match g {
                Some(g) if fs.len() > 1 => {
                    format!("{g}: {} findings; first: {}", fs.len(), fs[0].message)
                }
                _ => fs[0].message.clone(),
            };
            result(&fs[0].kind, title, fs)
        })
        .collect();
    let rules: Vec<ReportingDescriptor> = report
        .rules
        .iter()
        .map(|r| {
            ReportingDescriptor::builder()
                .id(r.id.to_owned())
                .short_description(
                    MultiformatMessageString::builder()
                        .text(r.description.to_owned())
                        .build(),
                )
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("hindsight".to_owned())
        .version(env!("CARGO_PKG_VERSION").to_owned())
        .rules(rules)
        .build();
    Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build()
}
