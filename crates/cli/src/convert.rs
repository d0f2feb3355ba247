//! The commands that read a trace without analysing it: `stats` (its counts and warnings) and
//! `convert` (to another trace format, RAPID's included).

use crate::args::{FormatArg, InputArgs, InputFormatArg, TraceFormatArg};
use crate::budget::Running;
use crate::output::TraceSink;
use crate::session::Session;
use crate::traces::run;
use anyhow::{bail, Context};
use hindsight_stream::budgeted::UntilSpent;
use hindsight_syntax::{input_name, Diagnostic};
use hindsight_trace::rapid::{self, WriteRapidError};
use hindsight_trace::{AnyReader, EventSource, Format, OutputFile, Position};
use serde_json::Value;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Exit status 0, or 3 when the budget ran out before the end of the trace (the counts are
/// then of the events read until then, and `budget_spent` says which limit).
pub fn stats(
    session: &Session,
    input: &InputArgs,
    format: FormatArg,
    running: Running,
) -> anyhow::Result<u8> {
    let budget = running.budget.clone();
    let run = run(
        session,
        input,
        Vec::new(),
        None,
        Some(&budget),
        Some(&budget),
    );
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
    session: &Session,
    input: &Path,
    output: &Path,
    from: Option<InputFormatArg>,
    to: Option<TraceFormatArg>,
    running: Running,
) -> anyhow::Result<u8> {
    let budget = running.budget.clone();
    let converted = convert_within(session, input, output, from, to, &budget);
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
    session: &Session,
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
        Some(TraceFormatArg::Rapid) => {
            return convert_to_rapid(session, input, output, from, budget)
        }
        None => Format::from_extension(output),
    };
    let name = input_name(input);
    let wrap = |e: hindsight_trace::TraceError| Diagnostic::error(&name, e.pos, e.kind.to_string());
    let mut reader = UntilSpent::new(session.open_trace_as(input, from, Some(budget))?, budget);
    let mut sink = TraceSink::create(&session.files, Some(output), &[input], format)?;
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
    session: &Session,
    input: &Path,
    output: &Path,
    from: Option<Format>,
    budget: &hindsight_budget::Budget,
) -> anyhow::Result<Option<hindsight_budget::Spent>> {
    if output.as_os_str() == "-" {
        bail!("`--to rapid` writes a location map beside its output: give a file, not `-`");
    }
    let map = rapid::locations_path(output);
    let mut reader = UntilSpent::new(session.open_trace_as(input, from, Some(budget))?, budget);
    let create = |p: &Path| -> anyhow::Result<OutputFile> {
        session.files.check_output(p)?;
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
