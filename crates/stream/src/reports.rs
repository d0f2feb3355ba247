//! From a trace to reports: the one entry point of the trace commands (`races`, `commute`,
//! `atomicity`, `views` of a trace, `check`, `stats`). It runs the chain of analyses in one pass
//! and wraps each analysis' output in a [`Report`] with the facts about the trace and the
//! warnings, worded against the input's name.

use crate::driver::{observe_any_within, observers, Analysis, FindingSink, RunOptions, TraceStats};
use hindsight_budget::Budget;
use hindsight_report::Report;
use hindsight_syntax::Diagnostic;
use hindsight_trace::{AnyReader, Format, Warning};
use serde_json::{Map, Value};

/// A trace analysed by a chain of analyses, ready to print.
pub struct TraceRun {
    /// Facts about the trace: its name, format and counts.
    pub info: Map<String, Value>,
    /// One report per analysis, in the order given.
    pub reports: Vec<Report>,
    /// The warnings about the trace as they go to standard error: the pass's (with a line per
    /// kind for those not kept), then each analysis' own about the trace.
    pub warnings: Vec<String>,
    /// How many warnings the pass had, kept or not.
    pub warning_total: u64,
}

/// Runs `analyses` over the trace `reader` reads (`input` is its name as the user gave it) in
/// one pass, and reports. An error in the trace, or one an analysis raises at an event, is a
/// diagnostic located in the input.
pub fn analyse_trace(
    reader: &mut AnyReader,
    input: &str,
    analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
) -> Result<TraceRun, Diagnostic> {
    analyse_trace_to(reader, input, analyses, options, None)
}

/// [`analyse_trace`], sending the findings the analyses hand over during the pass to `sink`
/// as they are built (see [`FindingSink`]): the reports then hold only the others, those
/// `finish` builds.
pub fn analyse_trace_to(
    reader: &mut AnyReader,
    input: &str,
    analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
    sink: Option<&mut dyn FindingSink>,
) -> Result<TraceRun, Diagnostic> {
    analyse_trace_within(reader, input, analyses, options, sink, None)
}

/// [`analyse_trace_to`] within `budget`, if any: the pass polls its clock and charges what the
/// analyses hold to its memory limit ([`crate::driver::observe_any_within`]). Once it is
/// spent the pass stops, each analysis reports what it found in the events read so far
/// (`events_analysed` in its summary), and every report is unknown: exit status 3 unless it
/// has findings.
pub fn analyse_trace_within(
    reader: &mut AnyReader,
    input: &str,
    mut analyses: Vec<Box<dyn Analysis>>,
    options: RunOptions,
    sink: Option<&mut dyn FindingSink>,
    budget: Option<&Budget>,
) -> Result<TraceRun, Diagnostic> {
    let format = reader.format();
    let pass = observe_any_within(reader, &mut observers(&mut analyses), options, sink, budget)
        .map_err(|e| Diagnostic::error(input, e.pos, e.kind.to_string()))?;
    let stopped = pass.stopped;
    let mut warnings = pass_warnings(input, &pass.warnings, &pass.warning_counts);
    warnings.extend(unwrapped_data(input, &pass.stats));
    let trace_lines = warnings.clone();
    let warning_total = pass.warning_counts.iter().map(|c| c.1).sum();
    let info = trace_info(input, format, &pass.stats);
    let lock_records = pass.stats.lock_records;
    let outcome = pass.finish(analyses);
    let mut reports = Vec::with_capacity(outcome.outputs.len());
    for (name, output) in outcome.outputs {
        let mut report = Report::new(name);
        report.trace = info.clone();
        report.findings = output.findings;
        report.summary = output.summary;
        report.rules = output.rules;
        report.unknown = output.unknown;
        // How the log's lock records were read changes the answer: said beside it.
        for (key, n) in [
            ("lock_records_repaired", lock_records.repaired),
            ("lock_records_tolerated", lock_records.tolerated()),
        ] {
            if n > 0 {
                report.summary.insert(key.into(), Value::from(n));
            }
        }
        if let (Some(stopped), Some(budget)) = (stopped, budget) {
            report
                .summary
                .insert("events_analysed".into(), Value::from(stopped.events));
            report.note_budget(budget);
        }
        // Warnings about inputs of the analysis' own first (it read them first), then the
        // trace's, then the analysis' own about the trace.
        let (own_inputs, about_trace): (Vec<Diagnostic>, Vec<Diagnostic>) =
            output.warnings.into_iter().partition(|d| d.input.is_some());
        report.warnings = own_inputs.iter().map(Diagnostic::to_string).collect();
        report.warnings.extend(trace_lines.iter().cloned());
        for mut d in about_trace {
            d.input = Some(input.to_owned());
            let line = d.to_string();
            warnings.push(line.clone());
            report.warnings.push(line);
        }
        reports.push(report);
    }
    Ok(TraceRun {
        info,
        reports,
        warnings,
        warning_total,
    })
}

/// The warning for a trace of several threads that accesses no variable and calls no method:
/// every data analysis is then silent, which in a recorded program means its data was not
/// wrapped in a recording type. Said by every trace command, not only `cargo hindsight`.
pub fn unwrapped_data(input: &str, stats: &TraceStats) -> Option<String> {
    (stats.threads > 1 && stats.variables == 0 && stats.calls == 0).then(|| {
        Diagnostic::warning(
            input,
            hindsight_syntax::Position::File,
            format!(
                "{} threads but no recorded variable: did you wrap your data? (data behind a \
                 hindsight_record Mutex or RwLock, in a Shared or an atomic, or a Map or Set)",
                stats.threads
            ),
        )
        .to_string()
    })
}

/// The kept warnings of a pass as lines, and a line per kind for those not kept.
pub fn pass_warnings(input: &str, kept: &[Warning], counts: &[(&'static str, u64)]) -> Vec<String> {
    let mut lines: Vec<String> = kept
        .iter()
        .map(|w| Diagnostic::warning(input, w.pos, w.kind.to_string()).to_string())
        .collect();
    for &(code, n) in counts {
        let shown = kept.iter().filter(|w| w.kind.code() == code).count() as u64;
        if n > shown {
            lines.push(format!(
                "{input}: warning: {} more `{code}` warning(s) not shown",
                n - shown
            ));
        }
    }
    lines
}

/// The facts about a trace every report of it starts with: name, format and counts.
pub fn trace_info(input: &str, format: Format, stats: &TraceStats) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("path".into(), Value::from(input));
    m.insert("format".into(), Value::from(format.name()));
    m.extend(stats.to_json());
    m
}
