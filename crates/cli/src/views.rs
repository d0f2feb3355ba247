//! The `views` command: over a trace (one pass of the dynamic views analysis, through
//! [`crate::traces`]), over a program in the views language, or over Java sources (read
//! together, with optional library models).

use crate::args::{FindingsArgs, FormatArg, InputArgs, RegionsArg};
use crate::budget::BudgetArgs;
use crate::output::print_warnings;
use crate::session::Session;
use crate::traces::{analyse, granularity, regions, render_options, Within};
use anyhow::bail;
use hindsight_source::views::analyse_program_within;
use hindsight_stream::views::DynamicViews;
use hindsight_syntax::{input_name, Diagnostic};
use std::path::Path;

/// The extension of programs in the views language.
const PROGRAM_EXTENSION: &str = "mv";

/// The options of `views` besides its inputs.
pub struct ViewsOptions {
    pub regions: Option<RegionsArg>,
    pub library: bool,
    pub models: Option<std::path::PathBuf>,
    pub no_mhp: bool,
    pub findings: FindingsArgs,
}

fn is_java(path: &Path) -> bool {
    path.is_dir() || path.extension().is_some_and(|e| e == "java")
}

pub fn views(
    session: &Session,
    inputs: &[std::path::PathBuf],
    strict: bool,
    o: &ViewsOptions,
    budget: &BudgetArgs,
    format: FormatArg,
) -> anyhow::Result<u8> {
    if inputs.iter().any(|p| is_java(p)) {
        return java_views(session, inputs, strict, o, budget, format);
    }
    if o.library || o.models.is_some() {
        bail!("`--library` and `--models` apply to Java programs");
    }
    let [path] = inputs else {
        bail!("give one trace or `.mv` program (several inputs are for Java)");
    };
    let input = InputArgs {
        trace: path.clone(),
        strict,
        lock_records: Default::default(),
    };
    if path.extension().and_then(|e| e.to_str()) != Some(PROGRAM_EXTENSION) {
        let running = budget.start_counting("views", "events");
        // Views charges its relation to the budget and polls it itself; the pass reads on the
        // budget's clock only.
        let analysis = DynamicViews::new(regions(o.regions), !o.no_mhp)
            .with_granularity(granularity(&o.findings))
            .within(std::sync::Arc::clone(&running.budget));
        return analyse(
            session,
            &input,
            format,
            render_options(&o.findings, None),
            Box::new(analysis),
            Within::Reading(running),
        );
    }
    if o.regions.is_some() || o.no_mhp || o.findings.every_event {
        bail!("`--regions`, `--no-mhp` and `--every-event` apply to traces, not to programs");
    }
    let text = session.read_text(path)?;
    let running = budget.start("views");
    let run = analyse_program_within(&text, &input_name(path), &running.budget);
    running.done();
    let run = run?;
    print_warnings(&run.warnings);
    if strict {
        if let Some(e) = run.strict_error() {
            return Err(e.into());
        }
    }
    session.print_report(&run.report, format)?;
    Ok(run.report.exit_code() as u8)
}

fn java_views(
    session: &Session,
    inputs: &[std::path::PathBuf],
    strict: bool,
    o: &ViewsOptions,
    budget: &BudgetArgs,
    format: FormatArg,
) -> anyhow::Result<u8> {
    if let Some(p) = inputs.iter().find(|p| !is_java(p)) {
        bail!(
            "{} is not Java: Java files are analysed together, without traces or `.mv` programs",
            input_name(p)
        );
    }
    if o.no_mhp || o.findings.every_event {
        bail!("`--no-mhp` and `--every-event` apply to traces");
    }
    let java = session.read_java_sources(inputs)?;
    print_warnings_or_fail(&java.skipped, strict)?;
    let texts: Vec<(String, String)> = java.sources.into_iter().map(|s| (s.name, s.text)).collect();
    let models = match &o.models {
        Some(p) => Some((input_name(p), session.read_text(p)?)),
        None => None,
    };
    let options = hindsight_source::views::java::JavaOptions {
        lock_regions: matches!(o.regions, Some(RegionsArg::Locks | RegionsArg::Both)),
        library: o.library,
        models,
    };
    let running = budget.start("views");
    let run = hindsight_source::views::java::analyse_java_within(&texts, &options, &running.budget);
    running.done();
    let run = run?;
    print_warnings_or_fail(&run.warnings, strict)?;
    session.print_report(&run.report, format)?;
    Ok(run.report.exit_code() as u8)
}

/// Prints `warnings`; with `--strict`, the first of them is the run's error instead.
fn print_warnings_or_fail(warnings: &[Diagnostic], strict: bool) -> anyhow::Result<()> {
    print_warnings(warnings);
    match warnings.first() {
        Some(w) if strict => Err(Diagnostic {
            severity: hindsight_syntax::Severity::Error,
            ..w.clone()
        }
        .into()),
        _ => Ok(()),
    }
}
