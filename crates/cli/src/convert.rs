//! The commands that read a trace without analysing it: `stats` (its counts and warnings) and
//! `convert` (to another trace format, RAPID's included).

use crate::args::{FormatArg, InputArgs, InputFormatArg, TraceFormatArg};
use crate::input::open_trace_as;
use crate::output::TraceSink;
use crate::traces::run;
use anyhow::{bail, Context};
use hindsight_syntax::{input_name, Diagnostic};
use hindsight_trace::rapid::{self, WriteRapidError};
use hindsight_trace::{AnyReader, EventSource, Format, OutputFile, Position};
use serde_json::Value;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub fn stats(input: &InputArgs, format: FormatArg) -> anyhow::Result<u8> {
    let run = run(input, Vec::new(), None, None)?;
    let mut info = run.info;
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
    Ok(0)
}

pub fn convert(
    input: &Path,
    output: &Path,
    from: Option<InputFormatArg>,
    to: Option<TraceFormatArg>,
) -> anyhow::Result<u8> {
    let from = from.map(|f| match f {
        InputFormatArg::Rr => Format::RoadRunner,
        InputFormatArg::Rapidbin => Format::RapidBin,
        InputFormatArg::Std => Format::Text,
        InputFormatArg::Hst => Format::Binary,
    });
    let format = match to {
        Some(TraceFormatArg::Std) => Format::Text,
        Some(TraceFormatArg::Hst) => Format::Binary,
        Some(TraceFormatArg::Rapid) => return convert_to_rapid(input, output, from),
        None => Format::from_extension(output),
    };
    let name = input_name(input);
    let wrap = |e: hindsight_trace::TraceError| Diagnostic::error(&name, e.pos, e.kind.to_string());
    let mut reader = open_trace_as(input, from)?;
    let mut sink = TraceSink::create(Some(output), &[input], format)?;
    while reader.advance().map_err(wrap)? {
        sink.write(reader.current(), reader.names())
            .with_context(|| format!("cannot write {}", input_name(output)))?;
    }
    sink.finish()?;
    print_dropped(&name, &reader);
    Ok(0)
}

/// Says on stderr what the reader left out of the trace.
fn print_dropped(name: &str, reader: &AnyReader) {
    for what in reader.dropped() {
        crate::output::eprint_line(Diagnostic::warning(name, Position::File, what));
    }
}

/// `convert --to rapid`: the trace as RAPID reads it in `output`, its location map beside it.
fn convert_to_rapid(input: &Path, output: &Path, from: Option<Format>) -> anyhow::Result<u8> {
    if output.as_os_str() == "-" {
        bail!("`--to rapid` writes a location map beside its output: give a file, not `-`");
    }
    let map = rapid::locations_path(output);
    let mut reader = open_trace_as(input, from)?;
    let create = |p: &Path| -> anyhow::Result<OutputFile> {
        crate::files::check_output(p)?;
        OutputFile::create(p, &[input]).with_context(|| format!("cannot write {}", p.display()))
    };
    let (mut trace, mut locations) = (create(output)?, create(&map)?);
    let error = match rapid::write_rapid(&mut reader, &mut trace, &mut locations) {
        Ok(_) => match trace.commit().and_then(|()| locations.commit()) {
            Ok(()) => {
                print_dropped(&input_name(input), &reader);
                return Ok(0);
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
