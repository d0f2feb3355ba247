//! SARIF 2.1.0, built from the typed model of `serde-sarif` so that the output follows the
//! schema by construction.

use crate::{EventRef, Finding, Report};
use serde_sarif::sarif::{
    ArtifactLocation, CodeFlow, Location, LogicalLocation, Message, MultiformatMessageString,
    PhysicalLocation, Region, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif,
    ThreadFlow, ThreadFlowLocation, Tool, ToolComponent, SCHEMA_URL,
};
use std::collections::HashSet;
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
    // The schema wants `relatedLocations` without repeats, and the findings of a group often
    // share an event (one write racing with several reads), as may the events of one finding.
    // An event's location is a function of the event (its message names the index), so one
    // entry per event is one entry per distinct location; the first keeps its place.
    let mut seen = HashSet::new();
    for f in findings {
        if let Some((main, others)) = f.events.split_last() {
            locations.extend(location(main));
            related.extend(
                others
                    .iter()
                    .filter(|e| seen.insert((e.index, &e.thread, &e.op, &e.location)))
                    .filter_map(location),
            );
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
    if let [f] = findings {
        let mut flows = Vec::new();
        if f.occurrences.is_some() {
            flows.push(code_flow(f));
        }
        if let Some(w) = crate::witness_of(f) {
            let steps: Vec<&EventRef> = w.schedule.iter().chain(&w.enabled).collect();
            let message = format!(
                "witness: a correct reordering of {} event(s), after which both accesses are enabled",
                w.schedule.len()
            );
            flows.push(flow(message, &steps));
        }
        if !flows.is_empty() {
            b.code_flows = Some(flows);
        }
    }
    b
}

/// The events of a finding that stands for a group (its first occurrence), as one flow per
/// thread, in the order the trace ran them: how code scanning shows the pair side by side.
fn code_flow(f: &Finding) -> CodeFlow {
    let mut by_index: Vec<&EventRef> = f.events.iter().collect();
    by_index.sort_by_key(|e| e.index);
    flow(f.message.clone(), &by_index)
}

/// Events in the order they run, as one thread flow per thread.
fn flow(message: String, by_index: &[&EventRef]) -> CodeFlow {
    let mut threads: Vec<&str> = Vec::new();
    for e in by_index {
        if !threads.contains(&e.thread.as_str()) {
            threads.push(&e.thread);
        }
    }
    let flows = threads
        .iter()
        .map(|&t| {
            let locations = by_index
                .iter()
                .enumerate()
                .filter(|(_, e)| e.thread == t)
                .map(|(order, e)| {
                    // An event without a source location is still a step of the flow, named.
                    let location = location(e).unwrap_or_else(|| {
                        Location::builder()
                            .message(
                                Message::builder()
                                    .text(format!("#{} {} {}", e.index, e.thread, e.op))
                                    .build(),
                            )
                            .build()
                    });
                    ThreadFlowLocation::builder()
                        .location(location)
                        .execution_order(order as i64)
                        .build()
                })
                .collect::<Vec<_>>();
            ThreadFlow::builder()
                .id(t.to_owned())
                .message(Message::builder().text(format!("thread {t}")).build())
                .locations(locations)
                .build()
        })
        .collect::<Vec<_>>();
    CodeFlow::builder()
        .message(Message::builder().text(message).build())
        .thread_flows(flows)
        .build()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(index: u64, thread: &str, op: &str) -> EventRef {
        EventRef {
            index,
            thread: thread.to_owned(),
            op: op.to_owned(),
            location: Some(format!("A.java:{}", 10 + index)),
        }
    }

    fn race(earlier: EventRef, later: EventRef) -> Finding {
        Finding {
            kind: "data-race".to_owned(),
            message: "race".to_owned(),
            occurrences: None,
            events: vec![earlier, later],
            fields: Default::default(),
            group: Some("x".to_owned()),
        }
    }

    /// One write racing with two reads: one result whose related locations name the write once.
    #[test]
    fn a_shared_event_is_one_related_location() {
        let w = event(0, "T1", "w(x)");
        let mut report = Report::new("races");
        report.findings = vec![
            race(w.clone(), event(1, "T2", "r(x)")),
            race(w, event(2, "T3", "r(x)")),
        ];
        let mut out = Vec::new();
        render_sarif(&report, &mut out).unwrap();
        let log: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["locations"].as_array().unwrap().len(), 2);
        let related = result["relatedLocations"].as_array().unwrap();
        assert_eq!(related.len(), 1);
        assert_eq!(related[0]["message"]["text"], "#0 T1 w(x)");
    }
}
