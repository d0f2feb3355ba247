//! `hindsight atomicity`: predicted atomicity violations under nested locking (CAV'09).
//!
//! Runs the analysis in the one-pass driver and prints the report as `races` does; adds the
//! warnings for non-nested releases accepted under `--ignore-non-nested`.

use crate::{display_path, print_report, read_trace, trace_info, warnings, FormatArg, InputArgs};
use hindsight_order::HappensBefore;
use hindsight_report::Report;
use hindsight_stream::atomicity::{Atomicity, Options};
use hindsight_stream::{Analysis, AnalysisOutput};
use hindsight_trace::{ErrorKind, Event, Names};
use std::cell::RefCell;
use std::rc::Rc;

/// The non-nested releases kept word for word (event index, description) and their count.
type NonNestedWarnings = Rc<RefCell<(Vec<(u64, String)>, u64)>>;

/// The analysis, handing its non-nested warnings to the command when it finishes.
struct Reporting {
    inner: Atomicity,
    warnings: NonNestedWarnings,
}

impl Analysis for Reporting {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn needs_lock_valid(&self) -> bool {
        self.inner.needs_lock_valid()
    }
    fn on_event(&mut self, e: &Event, hb: &HappensBefore, names: &Names) -> Result<(), ErrorKind> {
        self.inner.on_event(e, hb, names)
    }
    fn finish(self: Box<Self>, names: &Names) -> AnalysisOutput {
        *self.warnings.borrow_mut() = self.inner.non_nested_warnings(names);
        Box::new(self.inner).finish(names)
    }
}

pub fn run(input: &InputArgs, format: FormatArg, options: Options) -> anyhow::Result<u8> {
    let shared = Rc::new(RefCell::new((Vec::new(), 0)));
    let analysis = Reporting {
        inner: Atomicity::new(options),
        warnings: Rc::clone(&shared),
    };
    let (mut outcome, trace_format) = read_trace(input, vec![Box::new(analysis)])?;
    let mut warning_lines = warnings(&input.trace, &outcome);
    let (kept, count) = shared.take();
    let path = display_path(&input.trace);
    for (index, what) in &kept {
        let line =
            format!("{path}: event {index}: warning: {what} (accepted: --ignore-non-nested)");
        eprintln!("{line}");
        warning_lines.push(line);
    }
    if count > kept.len() as u64 {
        let line = format!(
            "{path}: warning: {} more non-nested release(s) not shown",
            count - kept.len() as u64
        );
        eprintln!("{line}");
        warning_lines.push(line);
    }
    let info = trace_info(&input.trace, trace_format, &outcome);
    let (name, output) = outcome.outputs.remove(0);
    let mut report = Report::new(name);
    report.trace = info;
    report.findings = output.findings;
    report.summary = output.summary;
    report.rules = output.rules;
    report.warnings = warning_lines;
    print_report(&report, format)?;
    Ok(report.exit_code() as u8)
}
