//! The commands over one trace: `races`, `atomicity`, `commute`, `views`, `check` (several of
//! them in one pass) and `stats`, and `convert`. Each builds the
//! analyses its options ask for, hands them to `hindsight_stream::analyse_trace` and prints the
//! reports.

use crate::args::{
    AnalysisArg, CheckArgs, FindingsArgs, FormatArg, InputArgs, InputFormatArg, ModelArg,
    ModelArgs, RegionsArg, TraceFormatArg, WitnessArg,
};
use crate::budget::{BudgetArgs, Running};
use crate::output::{
    open_trace, open_trace_as, pipelined, print_report, print_report_with, print_reports,
    print_warnings, read_java_sources, read_text, JsonlSink, TraceSink,
};
use anyhow::{bail, Context};
use hindsight_budget::Budget;
use hindsight_predict::{Model, Options as PredictOptions};
use hindsight_report::RenderOptions;
use hindsight_source::views::analyse_program_within;
use hindsight_stream::atomicity::{Atomicity, Options as AtomicityOptions};
use hindsight_stream::budgeted::UntilSpent;
use hindsight_stream::commute::load::{binding, builtin_text, explain, load, LoadedSpecs};
use hindsight_stream::commute::Commute;
use hindsight_stream::groups::Granularity;
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_stream::{analyse_trace_within, Analysis, FindingSink, RunOptions, TraceRun};
use hindsight_syntax::{input_name, Diagnostic};
use hindsight_trace::rapid::{self, WriteRapidError};
use hindsight_trace::{AnyReader, EventSource, Format, OutputFile, Position};
use serde_json::Value;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Runs `analyses` over the trace in one pass and prints the trace's warnings; with JSON Lines,
/// the findings handed over during the pass go to `sink` as they are built.
fn run(
    input: &InputArgs,
    analyses: Vec<Box<dyn Analysis>>,
    sink: Option<&mut JsonlSink>,
    budget: Option<&Budget>,
) -> anyhow::Result<TraceRun> {
    let mut reader = open_trace(&input.trace)?;
    let options = RunOptions {
        strict: input.strict,
        lock_records: input.lock_records.into(),
        pipeline: pipelined(analyses.len()),
    };
    let name = input_name(&input.trace);
    let sink = sink.map(|s| s as &mut dyn FindingSink);
    let run = analyse_trace_within(&mut reader, &name, analyses, options, sink, budget)?;
    print_warnings(&run.warnings);
    Ok(run)
}

/// Runs `analyses` over the trace in one pass, within the budget `running` if given (its
/// progress line drawn meanwhile), and prints their reports: one report as its command prints it, or
/// (`check`) all of them in `check`'s envelope. Returns the exit status.
fn report(
    input: &InputArgs,
    analyses: Vec<Box<dyn Analysis>>,
    format: FormatArg,
    options: RenderOptions,
    check: bool,
    running: Option<Running>,
) -> anyhow::Result<u8> {
    let budget = running.as_ref().map(|r| &*r.budget);
    let mut streamed = 0;
    let run = if let FormatArg::Jsonl = format {
        let mut sink = JsonlSink::new(analyses.iter().map(|a| a.name()).collect());
        let run = run(input, analyses, Some(&mut sink), budget);
        if let Some(r) = running {
            r.done();
        }
        let run = run?;
        streamed = sink.finish(&run.reports)?;
        run
    } else {
        let run = run(input, analyses, None, budget);
        if let Some(r) = running {
            r.done();
        }
        let mut run = run?;
        if crate::output::wants_html(format) {
            // Read as logged, the events are numbered in logged order (tolerance renumbers
            // nothing): the pictures read them so too.
            let as_logged = input.lock_records == crate::args::LockRecordsArg::AsLogged;
            draw_timelines(&input.trace, &mut run.reports, as_logged)?;
        }
        if check {
            print_reports(&run.reports, format, &options)?;
        } else {
            print_report_with(&run.reports[0], format, &options)?;
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
    trace: &Path,
    reports: &mut [hindsight_report::Report],
    keep_lock_order: bool,
) -> anyhow::Result<()> {
    if trace.as_os_str() == "-" {
        hindsight_stream::timelines::note_trace_read_once(reports);
        return Ok(());
    }
    let mut reader = open_trace(trace)?;
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
    input: &InputArgs,
    format: FormatArg,
    options: RenderOptions,
    analysis: Box<dyn Analysis>,
    running: Option<Running>,
) -> anyhow::Result<u8> {
    report(input, vec![analysis], format, options, false, running)
}

fn granularity(findings: &FindingsArgs) -> Granularity {
    if findings.every_event {
        Granularity::EveryEvent
    } else {
        Granularity::Grouped
    }
}

/// How text shows the findings: `--limit`, and witnesses short unless `--witness=full`.
fn render_options(findings: &FindingsArgs, model: Option<&ModelArgs>) -> RenderOptions {
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
    input: &InputArgs,
    findings: &FindingsArgs,
    model: ModelArgs,
    format: FormatArg,
    budget: &BudgetArgs,
) -> anyhow::Result<u8> {
    let analysis = race_analysis(findings, model)?;
    let running = budget.start_counting("races", "events");
    let options = render_options(findings, Some(&model));
    analyse(input, format, options, analysis, Some(running))
}

pub fn atomicity(
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
    // The pass and --schedule's searches share one budget.
    let running = budget.start_counting("atomicity", "events");
    let mut analysis = Atomicity::new(options);
    if options.schedule {
        analysis = analysis.within(std::sync::Arc::clone(&running.budget));
    }
    let options = render_options(findings, None);
    analyse(input, format, options, Box::new(analysis), Some(running))
}

/// The spec `--spec` or `--builtin` names, loaded, with its warnings printed.
fn spec(spec: Option<&Path>, builtin: Option<&str>, direct: bool) -> anyhow::Result<LoadedSpecs> {
    let loaded = match (spec, builtin) {
        (Some(p), _) => load(&read_text(p)?, &p.display().to_string(), direct)?,
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

pub fn commute(a: CommuteArgs<'_>) -> anyhow::Result<u8> {
    let loaded = spec(a.spec, a.builtin, a.direct)?;
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
        &input,
        a.format,
        render_options(&a.findings, None),
        Box::new(analysis),
        Some(running),
    )
}

/// The extension of programs in the views language.
const PROGRAM_EXTENSION: &str = "mv";

fn regions(arg: Option<RegionsArg>) -> Regions {
    match arg {
        None => Regions::Auto,
        Some(RegionsArg::Blocks) => Regions::Blocks,
        Some(RegionsArg::Locks) => Regions::Locks,
        Some(RegionsArg::Both) => Regions::Both,
    }
}

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
    inputs: &[std::path::PathBuf],
    strict: bool,
    o: &ViewsOptions,
    budget: &BudgetArgs,
    format: FormatArg,
) -> anyhow::Result<u8> {
    if inputs.iter().any(|p| is_java(p)) {
        return java_views(inputs, strict, o, budget, format);
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
        let running = budget.start("views");
        // Views charges its relation to the budget itself, so the pass gets none.
        let analysis = DynamicViews::new(regions(o.regions), !o.no_mhp)
            .with_granularity(granularity(&o.findings))
            .within(std::sync::Arc::clone(&running.budget));
        let code = analyse(
            &input,
            format,
            render_options(&o.findings, None),
            Box::new(analysis),
            None,
        );
        running.done();
        return code;
    }
    if o.regions.is_some() || o.no_mhp || o.findings.every_event {
        bail!("`--regions`, `--no-mhp` and `--every-event` apply to traces, not to programs");
    }
    let text = read_text(path)?;
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
    print_report(&run.report, format)?;
    Ok(run.report.exit_code() as u8)
}

fn java_views(
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
    let java = read_java_sources(inputs)?;
    print_warnings(&java.skipped);
    if strict {
        if let Some(w) = java.skipped.first() {
            return Err(Diagnostic {
                severity: hindsight_syntax::Severity::Error,
                ..w.clone()
            }
            .into());
        }
    }
    let texts: Vec<(String, String)> = java.sources.into_iter().map(|s| (s.name, s.text)).collect();
    let models = match &o.models {
        Some(p) => Some((input_name(p), read_text(p)?)),
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
    print_warnings(&run.warnings);
    if strict {
        if let Some(w) = run.warnings.first() {
            return Err(Diagnostic {
                severity: hindsight_syntax::Severity::Error,
                ..w.clone()
            }
            .into());
        }
    }
    print_report(&run.report, format)?;
    Ok(run.report.exit_code() as u8)
}

pub fn check(a: &CheckArgs) -> anyhow::Result<u8> {
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
                Box::new(match a.schedule {
                    true => atomicity.within(std::sync::Arc::clone(&running.budget)),
                    false => atomicity,
                })
            }
            AnalysisArg::Views => Box::new(
                DynamicViews::new(regions(a.regions), !a.no_mhp)
                    .with_granularity(granularity(&a.findings))
                    .within(std::sync::Arc::clone(&running.budget)),
            ),
            AnalysisArg::Commute => {
                let loaded = spec(a.spec.as_deref(), a.builtin.as_deref(), a.direct)?;
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
        &a.input,
        analyses,
        a.format,
        render_options(&a.findings, Some(&a.model)),
        true,
        Some(running),
    )
}

/// Exit status 0, or 3 when the budget ran out before the end of the trace (the counts are
/// then of the events read until then, and `budget_spent` says which limit).
pub fn stats(input: &InputArgs, format: FormatArg, running: Running) -> anyhow::Result<u8> {
    let budget = running.budget.clone();
    let run = run(input, Vec::new(), None, Some(&budget));
    running.done();
    let run = run?;
    let mut info = run.info;
    // A deadline that passed while no event came is spent too.
    let _ = budget.check();
    let spent = budget.spent();
    if let Some(spent) = spent {
        info.insert("budget_spent".into(), Value::from(spent.name()));
    }
    let mut out = BufWriter::new(io::stdout().lock());
    match format {
        FormatArg::Text => {
            for (k, v) in &info {
                match v {
                    Value::String(s) => writeln!(out, "{k}: {s}")?,
                    v => writeln!(out, "{k}: {v}")?,
                }
            }
            writeln!(out, "warnings: {}", run.warning_total)?;
        }
        FormatArg::Json => {
            info.insert("warnings".into(), Value::from(run.warnings));
            serde_json::to_writer_pretty(&mut out, &info)?;
            writeln!(out)?;
        }
        FormatArg::Sarif | FormatArg::Jsonl | FormatArg::Html => {
            bail!("`stats` prints text or json")
        }
    }
    out.flush()?;
    Ok(if spent.is_some() { 3 } else { 0 })
}

/// Exit status 0, or 3 when the budget ran out first: the output is then a whole trace of
/// the events read until the limit, and a message says so.
pub fn convert(
    input: &Path,
    output: &Path,
    from: Option<InputFormatArg>,
    to: Option<TraceFormatArg>,
    running: Running,
) -> anyhow::Result<u8> {
    let budget = running.budget.clone();
    let converted = convert_within(input, output, from, to, &budget);
    running.done();
    let spent = converted?;
    Ok(match spent {
        Some(spent) => {
            crate::output::eprint_line(Diagnostic::warning(
                &input_name(input),
                Position::File,
                format!(
                    "--{} reached: {} holds the events read until then",
                    spent.name(),
                    input_name(output)
                ),
            ));
            3
        }
        None => 0,
    })
}

/// [`convert`]'s work: the limit that stopped it, if one did.
fn convert_within(
    input: &Path,
    output: &Path,
    from: Option<InputFormatArg>,
    to: Option<TraceFormatArg>,
    budget: &hindsight_budget::Budget,
) -> anyhow::Result<Option<hindsight_budget::Spent>> {
    let from = from.map(|f| match f {
        InputFormatArg::Rr => Format::RoadRunner,
        InputFormatArg::Rapidbin => Format::RapidBin,
        InputFormatArg::Std => Format::Text,
        InputFormatArg::Hst => Format::Binary,
    });
    let format = match to {
        Some(TraceFormatArg::Std) => Format::Text,
        Some(TraceFormatArg::Hst) => Format::Binary,
        Some(TraceFormatArg::Rapid) => return convert_to_rapid(input, output, from, budget),
        None => Format::from_extension(output),
    };
    let name = input_name(input);
    let wrap = |e: hindsight_trace::TraceError| Diagnostic::error(&name, e.pos, e.kind.to_string());
    let mut reader = UntilSpent::new(open_trace_as(input, from)?, budget);
    let mut sink = TraceSink::create(Some(output), &[input], format)?;
    while reader.advance().map_err(wrap)? {
        sink.write(reader.current(), reader.names())
            .with_context(|| format!("cannot write {}", input_name(output)))?;
    }
    sink.finish()?;
    print_dropped(&name, reader.inner());
    Ok(reader.spent())
}

/// Says on stderr what the reader left out of the trace.
fn print_dropped(name: &str, reader: &AnyReader) {
    for what in reader.dropped() {
        crate::output::eprint_line(Diagnostic::warning(name, Position::File, what));
    }
}

/// `convert --to rapid`: the trace as RAPID reads it in `output`, its location map beside it.
fn convert_to_rapid(
    input: &Path,
    output: &Path,
    from: Option<Format>,
    budget: &hindsight_budget::Budget,
) -> anyhow::Result<Option<hindsight_budget::Spent>> {
    if output.as_os_str() == "-" {
        bail!("`--to rapid` writes a location map beside its output: give a file, not `-`");
    }
    let map = rapid::locations_path(output);
    let mut reader = UntilSpent::new(open_trace_as(input, from)?, budget);
    let create = |p: &Path| -> anyhow::Result<OutputFile> {
        crate::files::check_output(p)?;
        OutputFile::create(p, &[input]).with_context(|| format!("cannot write {}", p.display()))
    };
    let (mut trace, mut locations) = (create(output)?, create(&map)?);
    let error = match rapid::write_rapid(&mut reader, &mut trace, &mut locations) {
        Ok(_) => match trace.commit().and_then(|()| locations.commit()) {
            Ok(()) => {
                print_dropped(&input_name(input), reader.inner());
                return Ok(reader.spent());
            }
            Err(e) => WriteRapidError::Io(e),
        },
        Err(e) => e,
    };
    Err(match error {
        WriteRapidError::Trace(e) => {
            Diagnostic::error(&input_name(input), e.pos, e.kind.to_string()).into()
        }
        WriteRapidError::Io(e) => {
            anyhow::Error::new(e).context(format!("cannot write {}", input_name(output)))
        }
    })
}
