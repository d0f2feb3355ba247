//! The HTML report of hindsight: one self-contained page (inline CSS and JavaScript, no
//! network) for the reports of one run, rendered from an askama template.
//!
//! It owns how a report looks in a browser: a summary header, the finding groups, a swimlane
//! timeline per finding (from the report's [`Figures`](hindsight_report::Figures), or the
//! finding's own events where a report has none) with its labels laid out so that none meets
//! another, witness schedules to step through (in the text output's short form, with a toggle
//! to every event), and the histories of `lin`. It knows nothing of traces, clocks or analyses, and it reads no files:
//! what it draws comes finished in [`Report`]s. Every name from the input is escaped, by the
//! template or by [`esc`] in the pictures.

mod labels;
mod svg;
mod swimlane;

use askama::Template;
use hindsight_report::{short_schedule, witness_of, Finding, Report, ScheduleLine};
use serde_json::Value;
use std::io::{self, Write};

pub use svg::{bare_timeline, history};
pub use swimlane::swimlane;

/// The most findings of one report listed; the rest are counted. Keeps a page of a run with a
/// million findings (`--every-event`) within a few megabytes.
pub const FINDINGS_LISTED: usize = 300;
/// The most events of a finding's table, and of a witness schedule's steps.
const EVENTS_LISTED: usize = 200;

/// What the page says about the run as a whole.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// The command line, as typed.
    pub command: String,
    /// When the run finished, as the caller writes it (e.g. UTC, ISO 8601).
    pub generated: String,
    /// How long the run took, in milliseconds.
    pub elapsed_ms: u128,
}

impl Page {
    /// The header of a run that finishes now: its command line (an argument quoted where a
    /// POSIX shell would need it), the time in UTC and how long it took.
    pub fn of_run(args: impl IntoIterator<Item = std::ffi::OsString>, elapsed_ms: u128) -> Page {
        let command = args
            .into_iter()
            .map(|a| {
                let a = a.to_string_lossy().into_owned();
                if !a.is_empty()
                    && a.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@+".contains(&b))
                {
                    a
                } else {
                    format!("'{}'", a.replace('\'', "'\\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        Page {
            command,
            generated: utc_now(),
            elapsed_ms,
        }
    }
}

/// The time now in UTC, as ISO 8601 (`2026-01-31T12:00:00Z`); by hand, since this one line is
/// all the project needs of a date library.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days_from_civil, inverted (civil_from_days).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Text escaped for HTML text and attribute values (double- or single-quoted).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than tab and newline are not allowed in HTML text.
            c if c.is_control() && c != '\n' && c != '\t' => {
                out.push('\u{fffd}');
            }
            c => out.push(c),
        }
    }
    out
}

struct Row {
    key: String,
    value: String,
}

/// A summary entry that is a list of objects (`composed`'s operations, say), as a table.
struct Table {
    caption: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// A cell of a [`Table`]: reasons at their source lines one per line, other lists and objects
/// as compact JSON.
fn cell(v: &Value) -> String {
    match v {
        Value::Array(items) if items.iter().all(|i| i.get("message").is_some()) => items
            .iter()
            .map(|i| {
                let mut line = String::new();
                if let Some(l) = i.get("line") {
                    line.push_str(&format!("line {}: ", value_text(l)));
                }
                line.push_str(&i.get("message").map(value_text).unwrap_or_default());
                if let Some(r) = i.get("rule") {
                    line.push_str(&format!(" [{}]", value_text(r)));
                }
                line
            })
            .collect::<Vec<_>>()
            .join("\n"),
        v => value_text(v),
    }
}

/// The summary's lists of objects as tables; the rest as key-value rows.
fn summary_parts(m: &serde_json::Map<String, Value>) -> (Vec<Row>, Vec<Table>) {
    let mut rows = Vec::new();
    let mut tables = Vec::new();
    for (k, v) in m {
        match v {
            Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
                let mut columns: Vec<String> = Vec::new();
                for i in items {
                    for key in i.as_object().into_iter().flat_map(|o| o.keys()) {
                        if !columns.contains(key) {
                            columns.push(key.clone());
                        }
                    }
                }
                let rows = items
                    .iter()
                    .take(FINDINGS_LISTED)
                    .map(|i| {
                        columns
                            .iter()
                            .map(|c| i.get(c).map(cell).unwrap_or_default())
                            .collect()
                    })
                    .collect();
                tables.push(Table {
                    caption: k.clone(),
                    columns,
                    rows,
                });
            }
            v => rows.push(Row {
                key: k.clone(),
                value: value_text(v),
            }),
        }
    }
    (rows, tables)
}

struct EventRow {
    index: u64,
    thread: String,
    op: String,
    location: String,
}

struct FindingView {
    anchor: String,
    kind: String,
    message: String,
    occurrences: String,
    events: Vec<EventRow>,
    fields: Vec<Row>,
    /// Pre-escaped SVG.
    picture: String,
    ordered: String,
    schedule: Schedule,
}

struct GroupView {
    title: String,
    findings: Vec<FindingView>,
}

struct ReportView {
    anchor: String,
    analysis: String,
    verdict: String,
    verdict_class: &'static str,
    trace: Vec<Row>,
    summary: Vec<Row>,
    tables: Vec<Table>,
    warnings: Vec<String>,
    notes: Vec<String>,
    groups: Vec<GroupView>,
    /// Pre-escaped SVG, one per history part, with its title.
    histories: Vec<(String, String)>,
    text: Option<String>,
}

#[derive(Template)]
#[template(path = "page.html")]
struct PageView<'a> {
    page: &'a Page,
    title: String,
    reports: Vec<ReportView>,
    findings: usize,
    style: &'static str,
    script: &'static str,
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn rows(m: &serde_json::Map<String, Value>) -> Vec<Row> {
    m.iter()
        .map(|(k, v)| Row {
            key: k.clone(),
            value: value_text(v),
        })
        .collect()
}

fn event_rows(events: &[hindsight_report::EventRef]) -> Vec<EventRow> {
    events
        .iter()
        .take(EVENTS_LISTED)
        .map(|e| EventRow {
            index: e.index,
            thread: e.thread.clone(),
            op: e.op.clone(),
            location: e.location.clone().unwrap_or_default(),
        })
        .collect()
}

/// One line of a schedule to step through.
struct Step {
    text: String,
    /// Its place in the whole schedule: of the first event it stands for.
    at: usize,
    /// How many events of the schedule it stands for: more than one for a folded run of a
    /// witness's short form, none for the line that ends a witness.
    events: usize,
}

impl Step {
    fn event(at: usize, text: String) -> Step {
        Step {
            text,
            at,
            events: 1,
        }
    }

    fn folded(&self) -> bool {
        self.events > 1
    }
}

/// A finding's schedule, if it has one: a predicted race's witness (events), the schedule
/// reaching a `cuts` or `reach` state, or an atomicity violation's inferred run (stretches of
/// threads).
#[derive(Default)]
struct Schedule {
    /// The steps shown first: a witness's short form where it folds any event (the form the
    /// text output prints by default), else every step.
    shown: Vec<Step>,
    /// Every step, where `shown` is a short form: the page's toggle shows them instead.
    full: Vec<Step>,
    /// Events of the schedule past the [`EVENTS_LISTED`] listed.
    unlisted: usize,
    /// How many events the schedule runs.
    events: usize,
}

fn event_step(e: &hindsight_report::EventRef) -> String {
    format!("#{} {}: {}", e.index, e.thread, e.op)
}

fn schedule_of(f: &Finding) -> Schedule {
    if let Some(w) = witness_of(f) {
        let enabled: Vec<String> = w.enabled.iter().map(event_step).collect();
        let last = || Step {
            text: format!("now enabled together: {}", enabled.join(" and ")),
            at: w.schedule.len(),
            events: 0,
        };
        let mut full: Vec<Step> = w
            .schedule
            .iter()
            .take(EVENTS_LISTED)
            .enumerate()
            .map(|(at, e)| Step::event(at, event_step(e)))
            .collect();
        // The short form accounts for every event of the schedule, in order.
        let mut at = 0;
        let mut short = Vec::new();
        for line in short_schedule(&w.schedule).into_iter().take(EVENTS_LISTED) {
            let step = match line {
                ScheduleLine::Event(e) => Step::event(at, event_step(e)),
                ScheduleLine::Elided(run) => Step {
                    text: run.to_string(),
                    at,
                    events: run.events,
                },
            };
            at += step.events;
            short.push(step);
        }
        let unlisted = w.schedule.len().saturating_sub(EVENTS_LISTED);
        full.push(last());
        short.push(last());
        let folds = short.iter().any(Step::folded);
        return Schedule {
            shown: if folds {
                short
            } else {
                std::mem::take(&mut full)
            },
            full: if folds { full } else { Vec::new() },
            unlisted,
            events: w.schedule.len(),
        };
    }
    // `cuts` and `reach`: the events of the schedule that reaches the state found.
    if let Some(events) = f.fields.get("schedule").and_then(|s| s.as_array()) {
        return Schedule {
            shown: events
                .iter()
                .take(EVENTS_LISTED)
                .enumerate()
                .map(|(at, e)| Step::event(at, value_text(e)))
                .collect(),
            unlisted: events.len().saturating_sub(EVENTS_LISTED),
            events: events.len(),
            ..Schedule::default()
        };
    }
    let Some(stretches) = f
        .fields
        .get("schedule")
        .and_then(|s| s.get("stretches"))
        .and_then(|s| s.as_array())
    else {
        return Schedule::default();
    };
    let shown = stretches
        .iter()
        .take(EVENTS_LISTED)
        .enumerate()
        .map(|(at, s)| {
            let thread = s.get("thread").map(value_text).unwrap_or_default();
            let from = s.get("from").map(value_text).unwrap_or_default();
            let to = s.get("to").map(value_text).unwrap_or_default();
            let text = if from == to {
                format!("{thread} runs #{from}")
            } else {
                format!("{thread} runs #{from}..#{to}")
            };
            Step::event(at, text)
        })
        .collect();
    Schedule {
        shown,
        unlisted: stretches.len().saturating_sub(EVENTS_LISTED),
        events: stretches.len(),
        ..Schedule::default()
    }
}

fn finding_view(r: &Report, k: usize, i: usize, f: &Finding) -> FindingView {
    let anchor = format!("f{k}-{i}");
    let bare;
    let timeline = match r.figures.timeline(i) {
        Some(t) => t,
        None => {
            bare = bare_timeline(&f.events);
            &bare
        }
    };
    let ordered = match timeline.ordered {
        Some(true) => "In the observed run the first event of the finding happens before the last (solid arrows carry the order).",
        Some(false) => "In the observed run no happens-before path orders the finding's events (dashed arrows order other events).",
        None => "",
    };
    let has_witness = witness_of(f).is_some();
    let schedule = schedule_of(f);
    FindingView {
        // A state found by `cuts` or `reach`: its frontier events are the finding's.
        picture: swimlane(
            timeline,
            &format!("{anchor}-svg"),
            f.fields.contains_key("frontier"),
        ),
        anchor,
        kind: f.kind.clone(),
        message: f.message.clone(),
        occurrences: f
            .occurrences
            .map(|n| format!("{n} occurrence{}", if n == 1 { "" } else { "s" }))
            .unwrap_or_default(),
        events: event_rows(&f.events),
        fields: f
            .fields
            .iter()
            .filter(|(key, _)| match key.as_str() {
                // Drawn as steps instead.
                "witness" => !has_witness,
                "schedule" => has_witness || schedule.shown.is_empty(),
                _ => true,
            })
            .map(|(key, v)| Row {
                key: key.clone(),
                value: value_text(v),
            })
            .collect(),
        ordered: ordered.to_owned(),
        schedule,
    }
}

fn report_view(r: &Report, k: usize) -> ReportView {
    let shown = r.findings.len().min(FINDINGS_LISTED);
    // Groups in the order of their first finding, as the text renderer shows them.
    let mut groups: Vec<GroupView> = Vec::new();
    let mut last_group: Option<&str> = None;
    for (i, f) in r.findings.iter().enumerate().take(shown) {
        let view = finding_view(r, k, i, f);
        match (f.group.as_deref(), last_group) {
            (Some(g), Some(l)) if g == l => groups.last_mut().expect("a group").findings.push(view),
            (g, _) => groups.push(GroupView {
                title: g.unwrap_or("").to_owned(),
                findings: vec![view],
            }),
        }
        last_group = f.group.as_deref();
    }
    let mut notes = r.figures.notes.clone();
    if shown < r.findings.len() {
        notes.push(format!(
            "the page lists the first {shown} of {} findings; the text, JSON and SARIF outputs have them all",
            r.findings.len()
        ));
    }
    let (verdict, verdict_class) = if !r.findings.is_empty() {
        (
            format!(
                "{} finding{}",
                r.findings.len(),
                if r.findings.len() == 1 { "" } else { "s" }
            ),
            "bad",
        )
    } else if r.unknown {
        ("unknown (a budget ran out)".to_owned(), "unknown")
    } else {
        ("no findings".to_owned(), "good")
    };
    let (summary, tables) = summary_parts(&r.summary);
    ReportView {
        anchor: format!("r{k}"),
        analysis: r.analysis.clone(),
        verdict,
        verdict_class,
        trace: rows(&r.trace),
        summary,
        tables,
        warnings: r.warnings.clone(),
        notes,
        groups,
        histories: r
            .figures
            .histories
            .iter()
            .enumerate()
            .map(|(j, h)| {
                let mut title = format!("{} ({})", h.title, h.verdict);
                if let Some(s) = &h.state {
                    title.push_str(&format!(
                        ": state after the longest linearizable prefix {s}"
                    ));
                }
                if h.left_out > 0 {
                    title.push_str(&format!("; {} more operations not drawn", h.left_out));
                }
                (title, history(h, &format!("r{k}-h{j}")))
            })
            .collect(),
        text: r.text.clone(),
    }
}

/// Renders `reports` (of one run) as one HTML page to `out`.
pub fn render_html(reports: &[Report], page: &Page, out: &mut dyn Write) -> io::Result<()> {
    let title = match reports {
        [one] => format!(
            "hindsight {}: {}",
            one.analysis,
            one.trace.get("path").map(value_text).unwrap_or_default()
        ),
        _ => format!("hindsight: {} reports", reports.len()),
    };
    let view = PageView {
        page,
        title,
        findings: reports.iter().map(|r| r.findings.len()).sum(),
        reports: reports
            .iter()
            .enumerate()
            .map(|(k, r)| report_view(r, k))
            .collect(),
        style: include_str!("../templates/page.css"),
        script: include_str!("../templates/page.js"),
    };
    let text = view.render().map_err(io::Error::other)?;
    out.write_all(text.as_bytes())
}

#[cfg(test)]
mod run_header {
    use super::Page;

    #[test]
    fn the_command_line_is_quoted_as_a_shell_reads_it_and_the_time_is_utc() {
        let args = ["hindsight", "races", "a b.std", "it's", "--html=x.html"];
        let page = Page::of_run(args.map(std::ffi::OsString::from), 7);
        assert_eq!(
            page.command,
            r#"hindsight races 'a b.std' 'it'\''s' --html=x.html"#
        );
        assert_eq!(page.elapsed_ms, 7);
        let t = page.generated.as_bytes();
        assert_eq!((t.len(), t[4], t[10], t[19]), (20, b'-', b'T', b'Z'));
    }
}

#[cfg(test)]
mod schedules {
    use super::{schedule_of, EVENTS_LISTED};
    use hindsight_report::{EventRef, Finding};
    use serde_json::{json, Map};

    fn finding_with_witness(events: u64) -> Finding {
        let event = |i: u64, t: &str| EventRef {
            index: i,
            thread: t.to_owned(),
            op: format!("r(v{i})"),
            location: None,
        };
        let mut fields = Map::new();
        fields.insert(
            "witness".into(),
            json!({
                "schedule": (0..events).map(|i| event(i, "T1")).collect::<Vec<_>>(),
                "enabled": [event(events, "T1"), event(events + 1, "T2")],
            }),
        );
        Finding {
            kind: "data-race".into(),
            message: String::new(),
            occurrences: None,
            events: Vec::new(),
            fields,
            group: None,
        }
    }

    #[test]
    fn a_witness_that_folds_nothing_has_one_list() {
        let s = schedule_of(&finding_with_witness(4));
        assert_eq!(s.shown.len(), 5);
        assert!(s.full.is_empty());
        assert_eq!((s.events, s.unlisted), (4, 0));
    }

    #[test]
    fn a_long_witness_is_short_then_whole_up_to_the_cap() {
        let s = schedule_of(&finding_with_witness(250));
        // One thread's run: its first event, the rest but the last two folded, the last two,
        // and the line that ends the witness; the fold stands for every event it hides.
        let shown: Vec<(usize, usize)> = s.shown.iter().map(|l| (l.at, l.events)).collect();
        assert_eq!(shown, [(0, 1), (1, 247), (248, 1), (249, 1), (250, 0)]);
        assert_eq!(s.full.len(), EVENTS_LISTED + 1);
        assert!(s
            .full
            .iter()
            .take(EVENTS_LISTED)
            .enumerate()
            .all(|(i, l)| l.at == i));
        assert_eq!((s.events, s.unlisted), (250, 50));
    }
}
