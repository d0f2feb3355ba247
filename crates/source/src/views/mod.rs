//! Views of a program in MoTH's small imperative language (Fig. 3 of the paper): [`lang`] reads
//! it, [`symbolic`] runs it symbolically by the rules of Fig. 4 into a
//! [`Knowledge`](hindsight_views::Knowledge) for the sensors of `hindsight-views`. Views of
//! real Java programs are [`java`]'s.

pub mod java;
pub mod lang;
pub mod symbolic;

use hindsight_budget::Budget;
use hindsight_report::Report;
use hindsight_syntax::{Diagnostic, Position, Severity};
use hindsight_views::sensors::LIMIT;
use hindsight_views::{count_kinds, detect_counted, findings, rules};
use serde_json::Value;

/// A program of the views language analysed: the report, and the warnings about the program
/// (in the order they go to standard error).
pub struct ProgramRun {
    pub report: Report,
    pub warnings: Vec<Diagnostic>,
}

impl ProgramRun {
    /// Under `--strict` every warning is an error: the first one, as an error.
    pub fn strict_error(&self) -> Option<Diagnostic> {
        self.warnings.first().map(|w| Diagnostic {
            severity: Severity::Error,
            ..w.clone()
        })
    }
}

/// Parses the program `text` (named `input`), computes the views of its threads and runs the
/// sensors over them.
pub fn analyse_program(text: &str, input: &str) -> Result<ProgramRun, Diagnostic> {
    analyse_program_within(text, input, &Budget::unlimited())
}

/// [`analyse_program`] within `budget`: once it is spent the symbolic run stops and the views
/// seen so far are analysed; the report says which limit was reached (and is *unknown*
/// without findings).
pub fn analyse_program_within(
    text: &str,
    input: &str,
    budget: &Budget,
) -> Result<ProgramRun, Diagnostic> {
    let located = |e: lang::SyntaxError| e.in_input(input);
    let prog = lang::parse(text).map_err(located)?;
    let views = symbolic::analyse_within(&prog, input, budget).map_err(located)?;
    let k = &views.knowledge;
    let (warnings, truncated) = detect_counted(k);
    let (races, stale) = count_kinds(&warnings);
    let mut report = Report::new("views");
    report.trace.insert("path".into(), Value::from(input));
    report.trace.insert("format".into(), Value::from("program"));
    report
        .trace
        .insert("threads".into(), Value::from(k.threads.len()));
    report.findings = findings(k, &warnings, &views);
    report.rules = rules();
    report
        .summary
        .insert("views".into(), Value::from(k.views.len()));
    report
        .summary
        .insert("high_level_races".into(), Value::from(races));
    report
        .summary
        .insert("stale_values".into(), Value::from(stale));
    if truncated {
        report
            .summary
            .insert("sensor_limit_reached".into(), Value::from(LIMIT));
    }
    report.note_budget(budget);
    let mut warnings = views.warnings;
    if prog.threads.is_empty() {
        // A program without threads has no run to analyse: more likely a wrong file than a
        // verdict.
        warnings.push(Diagnostic::warning(
            input,
            Position::File,
            "the program has no thread",
        ));
    }
    report.warnings = warnings.iter().map(Diagnostic::to_string).collect();
    Ok(ProgramRun { report, warnings })
}
