//! The trace analysis commands `races`, `atomicity`, `commute` and `check` (several analyses in
//! one pass), and the pass over one trace they share with `views` ([`crate::views`]) and
//! `stats` ([`crate::convert`]): each builds the analyses its options ask for, hands them to
//! `hindsight_stream::analyse_trace` and prints the reports.

use crate::args::{
    AnalysisArg, CheckArgs, FindingsArgs, FormatArg, InputArgs, ModelArg, ModelArgs, RegionsArg,
    WitnessArg,
};
use crate::budget::{BudgetArgs, Running};
use crate::output::{print_warnings, JsonlSink};
use crate::session::Session;
use anyhow::bail;
use hindsight_budget::Budget;
use hindsight_predict::{Model, Options as PredictOptions};
use hindsight_report::RenderOptions;
use hindsight_stream::atomicity::{Atomicity, Options as AtomicityOptions};
use hindsight_stream::commute::load::{binding, builtin_text, explain, load, LoadedSpecs};
use hindsight_stream::commute::Commute;
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace_within, Analysis, FindingSink, RunOptions, TraceRun};
use hindsight_syntax::input_name;
use std::io::{self, Write};
use std::path::Path;

/// What a pass is held to: the command's budget, polled and charged by the pass (`Pass`), or
/// only its clock while the trace is read (`Reading`), for an analysis that keeps its own
/// account of the budget (views: charged and polled twice, its stopping point would depend on
/// the pass's batches).
pub enum Within {
    Pass(Running),
    Reading(Running),
}

impl Within {
    fn running(&self) -> &Running {
        match self {
            Within::Pass(r) | Within::Reading(r) => r,
        }
    }

    /// The budget the pass polls and charges, if it does.
    fn pass(&self) -> Option<&Budget> {
        match self {
            Within::Pass(r) => Some(&r.budget),
            Within::Reading(_) => None,
        }
    }

    /// Ends the command's progress line.
    fn done(self) {
        match self {
            Within::Pass(r) | Within::Reading(r) => r.done(),
        }
    }
}

/// Runs `analyses` over the trace in one pass and prints the trace's warnings; with JSON Lines,
/// the findings handed over during the pass go to `sink` as they are built. The trace is read
/// on `reading`'s clock (an input that sends nothing more stops at its deadline), the pass held
/// to `budget`.
pub(crate) fn run(
    session: &Session,
    input: &InputArgs,
    analyses: Vec<Box<dyn Analysis>>,
    sink: Option<&mut JsonlSink>,
    budget: Option<&Budget>,
    reading: Option<&Budget>,
) -> anyhow::Result<TraceRun> {
    let mut reader = session.open_trace(&input.trace, reading)?;
    let options = RunOptions {
        strict: input.strict,
        lock_records: input.lock_records.into(),
        pipeline: session.pipelined(analyses.len()),
    };
    let name = input_name(&input.trace);
    let sink = sink.map(|s| s as &mut dyn FindingSink);
    let run = analyse_trace_within(&mut reader, &name, analyses, options, sink, budget)?;
    print_warnings(&run.warnings);
    Ok(run)
}

/// Runs `analyses` over the trace in one pass, within the command's budget (its progress line
/// drawn meanwhile), and prints their reports: one report as its command prints it, or
/// (`check`) all of them in `check`'s envelope. Returns the exit status.
fn report(
    session: &Session,
    input: &InputArgs,
    analyses: Vec<Box<dyn Analysis>>,
    format: FormatArg,
    options: RenderOptions,
    check: bool,
    within: Within,
) -> anyhow::Result<u8> {
    let (budget, reading) = (within.pass(), Some(&*within.running().budget));
    let mut streamed = 0;
    let run = if let FormatArg::Jsonl = format {
        let mut sink = JsonlSink::new(analyses.iter().map(|a| a.name()).collect());
        let run = run(session, input, analyses, Some(&mut sink), budget, reading);
        within.done();
        let run = run?;
        streamed = sink.finish(&run.reports)?;
        run
    } else {
        let run = run(session, input, analyses, None, budget, reading);
        within.done();
        let mut run = run?;
        if session.wants_html(format) {
            // Read as logged, the events are numbered in logged order (tolerance renumbers
            // nothing): the pictures read them so too.
            let as_logged = input.lock_records == crate::args::LockRecordsArg::AsLogged;
            draw_timelines(session, &input.trace, &mut run.reports, as_logged)?;
        }
        if check {
            session.print_reports(&run.reports, format, &options)?;
        } else {
            session.print_report_with(&run.reports[0], format, &options)?;
        }
        run
    };
    let code = if streamed > 0 {
        1
    } else {
        hindsight_report::exit_code_of_all(&run.reports) as u8
    };
    // Reports can hold a hundred thousand findings of a dozen allocations each; the process
    // ends right after this, so they are not freed one by one.
    std::mem::forget(run);
    Ok(code)
}

/// Gives the findings of `reports` the windows of the trace around them, read again from the
/// file; a trace from standard input (read once) keeps its findings' own events.
pub fn draw_timelines(
    session: &Session,
    trace: &Path,
    reports: &mut [hindsight_report::Report],
    keep_lock_order: bool,
) -> anyhow::Result<()> {
    if trace.as_os_str() == "-" {
        hindsight_stream::timelines::note_trace_read_once(reports);
        return Ok(());
    }
    let mut reader = session.open_trace(trace, None)?;
    let name = input_name(trace);
    let options = hindsight_stream::timelines::TimelineOptions {
        keep_lock_order,
        ..Default::default()
    };
    hindsight_stream::timelines::draw_timelines(&mut reader, &name, reports, options)?;
    Ok(())
}

/// Runs one analysis over the trace and prints its report.
pub fn analyse(
    session: &Session,
    input: &InputArgs,
    format: FormatArg,
    options: RenderOptions,
    analysis: Box<dyn Analysis>,
    within: Within,
) -> anyhow::Result<u8> {
    report(
        session,
        input,
        vec![analysis],
        format,
        options,
        false,
        within,
    )
}

pub(crate) fn granularity(findings: &FindingsArgs) -> Granularity {
    if findings.every_event {
        Granularity::EveryEvent
    } else {
        Granularity::Grouped
    }
}

/// How text shows the findings: `--limit`, and witnesses short unless `--witness=full`.
pub(crate) fn render_options(findings: &FindingsArgs, model: Option<&ModelArgs>) -> RenderOptions {
    RenderOptions {
        limit: Some(findings.limit),
        full_witness: model.is_some_and(|m| m.witness == Some(WitnessArg::Full)),
    }
}

fn race_analysis(findings: &FindingsArgs, args: ModelArgs) -> anyhow::Result<Box<dyn Analysis>> {
    let model = match args.model {
        ModelArg::Hb => Model::Hb,
        ModelArg::Shb => Model::Shb,
        ModelArg::Wcp => Model::Wcp,
        ModelArg::Syncp => Model::SyncP,
        ModelArg::Osr => Model::Osr,
    };
    if args.witness.is_some() && !model.predicts() {
        bail!("`--witness` needs a predictive `--model` (shb, wcp, syncp or osr): the run itself shows happens-before races");
    }
    if args.beyond.is_some() && !model.predicts() {
        bail!("`--beyond hb` needs a predictive `--model` (shb, wcp, syncp or osr): happens-before adds nothing to itself");
    }
    let options = PredictOptions {
        granularity: granularity(findings),
        witnesses: args.witness.is_some(),
        beyond_hb: args.beyond == Some(crate::args::BeyondArg::Hb),
    };
    Ok(hindsight_predict::analysis(model, options))
}

pub fn races(
    session: &Session,
    input: &InputArgs,
    findings: &FindingsArgs,
    model: ModelArgs,
    format: FormatArg,
    budget: &BudgetArgs,
) -> anyhow::Result<u8> {
    let analysis = race_analysis(findings, model)?;
    let running = budget.start_counting("races", "events");
    let options = render_options(findings, Some(&model));
    analyse(
        session,
        input,
        format,
        options,
        analysis,
        Within::Pass(running),
    )
}

pub fn atomicity(
    session: &Session,
    input: &InputArgs,
    findings: &FindingsArgs,
    format: FormatArg,
    options: AtomicityOptions,
    budget: &BudgetArgs,
) -> anyhow::Result<u8> {
    let options = AtomicityOptions {
        granularity: granularity(findings),
        ..options
    };
    // The pass, the pairing after it and --schedule's searches share one budget.
    let running = budget.start_counting("atomicity", "events");
    let analysis = Atomicity::new(options).within(std::sync::Arc::clone(&running.budget));
    let options = render_options(findings, None);
    analyse(
        session,
        input,
        format,
        options,
        Box::new(analysis),
        Within::Pass(running),
    )
}

/// The spec `--spec` or `--builtin` names, loaded, with its warnings printed.
fn spec(
    session: &Session,
    spec: Option<&Path>,
    builtin: Option<&str>,
    direct: bool,
) -> anyhow::Result<LoadedSpecs> {
    let loaded = match (spec, builtin) {
        (Some(p), _) => load(&session.read_text(p)?, &p.display().to_string(), direct)?,
        (None, Some(name)) => load(builtin_text(name)?, &format!("<builtin {name}>"), direct)?,
        (None, None) => bail!("give a spec with --spec FILE or --builtin NAME"),
    };
    Ok(loaded)
}

pub struct CommuteArgs<'a> {
    pub trace: Option<&'a Path>,
    pub spec: Option<&'a Path>,
    pub builtin: Option<&'a str>,
    pub bind: &'a [String],
    pub explain: bool,
    pub direct: bool,
    pub strict: bool,
    pub findings: FindingsArgs,
    pub format: FormatArg,
    pub budget: &'a BudgetArgs,
}

pub fn commute(session: &Session, a: CommuteArgs<'_>) -> anyhow::Result<u8> {
    let loaded = spec(session, a.spec, a.builtin, a.direct)?;
    if a.explain {
        print_warnings(&loaded.warnings);
        // Not `print!`, which panics when standard output fails.
        io::stdout().write_all(explain(&loaded.specs).as_bytes())?;
        return Ok(0);
    }
    let binding = binding(&loaded.specs, a.bind)?;
    print_warnings(&loaded.warnings);
    let Some(trace) = a.trace else {
        bail!("give a trace to analyse (or --explain)");
    };
    let input = InputArgs {
        trace: trace.to_owned(),
        strict: a.strict,
        lock_records: Default::default(),
    };
    let analysis = Commute::new(loaded.specs, binding)
        .with_granularity(granularity(&a.findings))
        .with_spec_warnings(loaded.warnings);
    let running = a.budget.start_counting("commute", "events");
    analyse(
        session,
        &input,
        a.format,
        render_options(&a.findings, None),
        Box::new(analysis),
        Within::Pass(running),
    )
}

/// `--regions` as the views analysis takes it.
pub(crate) fn regions(arg: Option<RegionsArg>) -> Regions {
    match arg {
        None => Regions::Auto,
        Some(RegionsArg::Blocks) => Regions::Blocks,
        Some(RegionsArg::Locks) => Regions::Locks,
        Some(RegionsArg::Both) => Regions::Both,
    }
}

pub fn check(session: &Session, a: &CheckArgs) -> anyhow::Result<u8> {
    let running = a.budget.start_counting("check", "events");
    let chosen = a.chosen_analyses();
    let mut analyses: Vec<Box<dyn Analysis>> = Vec::new();
    for (i, which) in chosen.iter().enumerate() {
        if chosen[..i].contains(which) {
            bail!("--analyses names `{which:?}` twice");
        }
        analyses.push(match which {
            AnalysisArg::Races => race_analysis(&a.findings, a.model)?,
            AnalysisArg::Atomicity => {
                let atomicity = Atomicity::new(AtomicityOptions {
                    all: a.all,
                    schedule: a.schedule,
                    ignore_non_nested: a.ignore_non_nested,
                    granularity: granularity(&a.findings),
                });
                Box::new(atomicity.within(std::sync::Arc::clone(&running.budget)))
            }
            AnalysisArg::Views => Box::new(
                DynamicViews::new(regions(a.regions), !a.no_mhp)
                    .with_granularity(granularity(&a.findings))
                    .within(std::sync::Arc::clone(&running.budget)),
            ),
            AnalysisArg::Commute => {
                let loaded = spec(session, a.spec.as_deref(), a.builtin.as_deref(), a.direct)?;
                let binding = binding(&loaded.specs, &a.bind)?;
                print_warnings(&loaded.warnings);
                let commute = Commute::new(loaded.specs, binding)
                    .with_granularity(granularity(&a.findings))
                    .with_spec_warnings(loaded.warnings);
                Box::new(commute)
            }
        });
    }
    report(
        session,
        &a.input,
        analyses,
        a.format,
        render_options(&a.findings, Some(&a.model)),
        true,
        Within::Pass(running),
    )
}
