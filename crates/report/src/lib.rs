//! The report layer of hindsight: one [`Report`] shape for every analysis, and its renderers
//! (text for people, JSON for programs, SARIF 2.1.0 for code-scanning tools).
//!
//! It owns how findings look. It knows nothing of traces, clocks or analyses: an analysis hands
//! it finished findings whose events are already rendered to names. Of budgets it knows how a
//! spent one reads in a summary ([`Report::note_budget`]): the report becomes unknown.

mod figure;
mod sarif;
mod text;

use hindsight_budget::Budget;
use serde::Serialize;
use serde_json::{Map, Value};
use std::io::{self, Write};

pub use figure::{
    BarRole, Figures, HistoryBar, HistoryFigure, Timeline, TimelineEdge, TimelineEvent,
};
pub use sarif::{render_sarif, render_sarif_runs};
pub use text::{render_text, short_schedule, Elided, EscapeControls, ScheduleLine};

/// One event as a finding shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EventRef {
    /// 0-based index of the event in the trace.
    pub index: u64,
    pub thread: String,
    /// The operation as the text format writes it, e.g. `w(x)`.
    pub op: String,
    /// The trace's location field, if the event has one.
    pub location: Option<String>,
}

/// A schedule that shows how a finding happens: the events to run, in order, after which the
/// finding's events are enabled together. Analyses put one in a finding's `witness` field
/// (predicted races); the text and SARIF renderers draw it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct Witness {
    pub schedule: Vec<EventRef>,
    pub enabled: Vec<EventRef>,
}

/// The witness a finding carries, if any.
pub fn witness_of(f: &Finding) -> Option<Witness> {
    serde_json::from_value(f.fields.get("witness")?.clone()).ok()
}

/// One thing an analysis found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// What kind of finding, e.g. `data-race`; also the SARIF rule id.
    pub kind: String,
    pub message: String,
    /// For a finding that stands for a group of like occurrences (the same pair of source
    /// locations, say), how many there were; its events are the first occurrence's. `None` for
    /// a finding about one occurrence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<u64>,
    /// The events involved, in the order the analysis defines (for a race: the earlier partner,
    /// then the racy event).
    pub events: Vec<EventRef>,
    /// Analysis-specific fields (`variable`, `pattern`, ...), flattened into the JSON object.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    /// Findings with the same group are shown together in text and become one SARIF result
    /// (for races: the variable).
    #[serde(skip)]
    pub group: Option<String>,
}

impl Finding {
    /// About the heap the finding takes: its strings and the JSON values of its fields. What
    /// an analysis charges to its budget for each finding it keeps for the report.
    pub fn heap_bytes(&self) -> u64 {
        fn value_bytes(v: &Value) -> u64 {
            let own = std::mem::size_of::<Value>() as u64;
            own + match v {
                Value::String(s) => s.len() as u64,
                Value::Array(a) => a.iter().map(value_bytes).sum(),
                Value::Object(o) => o.iter().map(|(k, v)| k.len() as u64 + value_bytes(v)).sum(),
                _ => 0,
            }
        }
        let events: u64 = self
            .events
            .iter()
            .map(|e| {
                (std::mem::size_of_val(e) + e.thread.len() + e.op.len()) as u64
                    + e.location.as_ref().map_or(0, |l| l.len() as u64)
            })
            .sum();
        (std::mem::size_of::<Finding>() + self.kind.len() + self.message.len()) as u64
            + self.group.as_ref().map_or(0, |g| g.len() as u64)
            + events
            + self
                .fields
                .iter()
                .map(|(k, v)| k.len() as u64 + value_bytes(v))
                .sum::<u64>()
    }
}

/// A rule: one kind of finding, described once for SARIF consumers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub description: &'static str,
}

/// The whole output of one analysis run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tool: &'static str,
    pub analysis: String,
    /// Facts about the input: its path, format and counts.
    pub trace: Map<String, Value>,
    pub findings: Vec<Finding>,
    pub summary: Map<String, Value>,
    /// Warnings about the input (the analysis ran anyway).
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub rules: Vec<Rule>,
    /// The analysis stopped before deciding (a budget ran out): with no findings, the answer
    /// is "unknown", not "clean".
    #[serde(skip)]
    pub unknown: bool,
    /// The text rendering, where the analysis lays out its own (a counterexample run, say)
    /// rather than the generic one of findings and summary.
    #[serde(skip)]
    pub text: Option<String>,
    /// Pictures of the findings that only the HTML renderer draws.
    #[serde(skip)]
    pub figures: Figures,
}

impl Report {
    pub fn new(analysis: &str) -> Report {
        Report {
            tool: "hindsight",
            analysis: analysis.to_owned(),
            trace: Map::new(),
            findings: Vec::new(),
            summary: Map::new(),
            warnings: Vec::new(),
            rules: Vec::new(),
            unknown: false,
            text: None,
            figures: Figures::default(),
        }
    }

    /// Writes the limits of `budget` into the summary (`timeout` in seconds if one was set,
    /// `memory_limit` in bytes) and, if a limit was reached, makes the report unknown with
    /// `budget_spent` naming it (`timeout` or `memory-limit`): whatever the analysis also
    /// wrote into the summary is what it knew when it stopped.
    pub fn note_budget(&mut self, budget: &Budget) {
        self.unknown |= note_budget(&mut self.summary, budget);
    }

    /// The process exit status the report calls for: 1 with findings, else 3 if the analysis
    /// could not decide (unknown), else 0.
    pub fn exit_code(&self) -> i32 {
        if !self.findings.is_empty() {
            1
        } else if self.unknown {
            3
        } else {
            0
        }
    }
}

/// Findings with the same group together, groups in the order of their first finding;
/// findings without a group stand alone.
pub(crate) fn grouped(findings: &[Finding]) -> Vec<(Option<&str>, Vec<&Finding>)> {
    let mut groups: Vec<(Option<&str>, Vec<&Finding>)> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for f in findings {
        match f.group.as_deref() {
            Some(g) => {
                let i = *index.entry(g).or_insert_with(|| {
                    groups.push((Some(g), Vec::new()));
                    groups.len() - 1
                });
                groups[i].1.push(f);
            }
            None => groups.push((None, vec![f])),
        }
    }
    groups
}

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    /// JSON Lines: a line per finding ([`write_jsonl_finding`]), then a line for the rest of
    /// the report ([`write_jsonl_tail`]); findings can be written as they are found.
    Jsonl,
    Sarif,
}

/// How reports are shown beyond their format.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Text shows at most this many findings that stand for groups (those come sorted by
    /// occurrences, most first), then one line for the rest.
    pub limit: Option<usize>,
    /// Text shows every event of a witness, not its short form (see `text::short_schedule`).
    pub full_witness: bool,
}

/// Renders `report` in `format`.
pub fn render(report: &Report, format: OutputFormat, out: &mut dyn Write) -> io::Result<()> {
    render_with(report, format, &RenderOptions::default(), out)
}

/// Renders `report` in `format` with `options`.
pub fn render_with(
    report: &Report,
    format: OutputFormat,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => render_text(report, options, out),
        OutputFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, report)?;
            out.write_all(b"\n")
        }
        OutputFormat::Jsonl => render_jsonl(report, out),
        OutputFormat::Sarif => render_sarif(report, out),
    }
}

fn render_jsonl(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for f in &report.findings {
        write_jsonl_finding(&report.analysis, f, out)?;
    }
    write_jsonl_tail(report, out)
}

/// One line of JSON Lines output: the finding, with the analysis it is of first.
pub fn write_jsonl_finding(
    analysis: &str,
    finding: &Finding,
    out: &mut dyn Write,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct Line<'a> {
        analysis: &'a str,
        #[serde(flatten)]
        finding: &'a Finding,
    }
    serde_json::to_writer(&mut *out, &Line { analysis, finding })?;
    out.write_all(b"\n")
}

/// The last line of a report in JSON Lines: the report without its findings (they are the
/// lines before it; the summary counts them).
pub fn write_jsonl_tail(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    #[derive(Serialize)]
    struct Tail<'a> {
        tool: &'static str,
        analysis: &'a str,
        trace: &'a Map<String, Value>,
        summary: &'a Map<String, Value>,
        warnings: &'a [String],
    }
    let tail = Tail {
        tool: report.tool,
        analysis: &report.analysis,
        trace: &report.trace,
        summary: &report.summary,
        warnings: &report.warnings,
    };
    serde_json::to_writer(&mut *out, &tail)?;
    out.write_all(b"\n")
}

/// Renders the reports of several analyses of one input (`hindsight check`): text one after
/// the other, JSON as `{"tool":"hindsight","analysis":"check","reports":[...]}` where each
/// element is the object the analysis alone prints, SARIF as one log with a run per analysis.
pub fn render_all(
    reports: &[Report],
    format: OutputFormat,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => reports
            .iter()
            .try_for_each(|r| render_text(r, options, out)),
        OutputFormat::Json => {
            #[derive(Serialize)]
            struct Check<'a> {
                tool: &'static str,
                analysis: &'static str,
                reports: &'a [Report],
            }
            let check = Check {
                tool: "hindsight",
                analysis: "check",
                reports,
            };
            serde_json::to_writer_pretty(&mut *out, &check)?;
            out.write_all(b"\n")
        }
        OutputFormat::Jsonl => reports.iter().try_for_each(|r| render_jsonl(r, out)),
        OutputFormat::Sarif => render_sarif_runs(reports, out),
    }
}

/// A duration as the milliseconds a summary reports, to the microsecond: a figure to read, not
/// `3.2557810000000003` (the float `secs * 1e3` gives), and no finer than the clock is worth.
pub fn milliseconds(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1e3
}

/// The exit status of several reports together: 1 if any has findings, else 3 if any is
/// unknown, else 0.
pub fn exit_code_of_all(reports: &[Report]) -> i32 {
    let codes: Vec<i32> = reports.iter().map(Report::exit_code).collect();
    if codes.contains(&1) {
        1
    } else if codes.contains(&3) {
        3
    } else {
        0
    }
}

/// [`Report::note_budget`] for a summary being built: writes the limits of `budget` (and the
/// one reached, as `budget_spent`) into `summary`; whether a limit was reached.
pub fn note_budget(summary: &mut Map<String, Value>, budget: &Budget) -> bool {
    let limits = budget.limits();
    if let Some(t) = limits.timeout {
        summary.insert("timeout".into(), Value::from(t.as_secs_f64()));
    }
    if limits.memory != u64::MAX {
        summary.insert("memory_limit".into(), Value::from(limits.memory));
    }
    match budget.spent() {
        Some(spent) => {
            summary.insert("budget_spent".into(), Value::from(spent.name()));
            true
        }
        None => false,
    }
}
