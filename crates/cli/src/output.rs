//! What the commands share to print what they get back: reports in a chosen format (HTML
//! included, to `--html`'s file too), warnings on standard error, output files written whole
//! or not at all, and sinks for traces and findings as they come. Reading inputs is
//! [`crate::input`]'s.

use crate::args::FormatArg;
use crate::files::Files;
use crate::session::Session;
use anyhow::Context;
use hindsight_report::{
    render_all, render_with, write_jsonl_finding, write_jsonl_tail, EscapeControls, Finding,
    OutputFormat, RenderOptions, Report,
};
use hindsight_stream::FindingSink;
use hindsight_trace::{BinaryWriter, Format, Names, OutputFile, TextWriter};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// The report format of `format`; `None` for HTML, which another crate renders.
pub fn output_format(format: FormatArg) -> Option<OutputFormat> {
    match format {
        FormatArg::Text => Some(OutputFormat::Text),
        FormatArg::Json => Some(OutputFormat::Json),
        FormatArg::Jsonl => Some(OutputFormat::Jsonl),
        FormatArg::Sarif => Some(OutputFormat::Sarif),
        FormatArg::Html => None,
    }
}

/// Where `--html` writes its page, and the inputs it must not overwrite.
pub struct HtmlTarget {
    pub path: std::path::PathBuf,
    pub inputs: Vec<std::path::PathBuf>,
}

impl Session {
    /// Whether the reports of this run are drawn as HTML (`--format html` or `--html FILE`):
    /// the trace commands then gather what the pictures need.
    pub fn wants_html(&self, format: FormatArg) -> bool {
        matches!(format, FormatArg::Html) || self.html.is_some()
    }

    /// What the page says about this run.
    fn page(&self) -> hindsight_html::Page {
        let elapsed_ms = self.started.elapsed().as_millis();
        hindsight_html::Page::of_run(std::env::args_os(), elapsed_ms)
    }

    /// Writes the page of `reports` to the file of `--html`, if one was given.
    fn write_html_file(&self, reports: &[Report]) -> anyhow::Result<()> {
        let Some(target) = &self.html else {
            return Ok(());
        };
        let inputs: Vec<&Path> = target.inputs.iter().map(|p| p.as_path()).collect();
        let mut out = Output::create(&self.files, Some(&target.path), &inputs)?;
        hindsight_html::render_html(reports, &self.page(), &mut out)
            .and_then(|()| out.commit())
            .with_context(|| format!("cannot write {}", target.path.display()))
    }

    /// Renders `reports` in `format` (HTML included) to `out`.
    fn render_reports(
        &self,
        reports: &[Report],
        format: FormatArg,
        options: &RenderOptions,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        match (output_format(format), reports) {
            (None, _) => hindsight_html::render_html(reports, &self.page(), out),
            (Some(f), [one]) => render_with(one, f, options, out),
            (Some(f), many) => render_all(many, f, options, out),
        }
    }

    pub fn print_report(&self, report: &Report, format: FormatArg) -> anyhow::Result<()> {
        self.print_report_with(report, format, &RenderOptions::default())
    }

    pub fn print_report_with(
        &self,
        report: &Report,
        format: FormatArg,
        options: &RenderOptions,
    ) -> anyhow::Result<()> {
        let mut out = BufWriter::new(io::stdout().lock());
        self.render_reports(std::slice::from_ref(report), format, options, &mut out)?;
        out.flush()?;
        self.write_html_file(std::slice::from_ref(report))
    }

    /// Prints the reports of several analyses of one input (`check`).
    pub fn print_reports(
        &self,
        reports: &[Report],
        format: FormatArg,
        options: &RenderOptions,
    ) -> anyhow::Result<()> {
        let mut out = BufWriter::new(io::stdout().lock());
        match output_format(format) {
            Some(f) => render_all(reports, f, options, &mut out)?,
            None => self.render_reports(reports, format, options, &mut out)?,
        }
        out.flush()?;
        self.write_html_file(reports)
    }
}

/// Prints lines to standard error, control characters escaped (they quote the input).
pub fn print_warnings<S: std::fmt::Display>(lines: &[S]) {
    for l in lines {
        eprint_line(l);
    }
}

/// Prints a line to standard error, control characters escaped. A standard error that fails
/// has no one to tell.
pub fn eprint_line(line: impl std::fmt::Display) {
    let _ = writeln!(EscapeControls(io::stderr().lock()), "{line}");
}

/// Where a command's output goes: standard output, or a file that appears, whole, only when
/// the run succeeds ([`OutputFile`]).
pub enum Output {
    Stdout(BufWriter<io::Stdout>),
    File(OutputFile),
}

impl Output {
    /// Standard output without a path (or with `-`); else the file at `path`, refused if it is
    /// one of `inputs` or a file the run has read.
    pub fn create(files: &Files, path: Option<&Path>, inputs: &[&Path]) -> anyhow::Result<Output> {
        Ok(match path {
            Some(p) if p.as_os_str() != "-" => {
                files.check_output(p)?;
                Output::File(
                    OutputFile::create(p, inputs)
                        .with_context(|| format!("cannot write {}", p.display()))?,
                )
            }
            _ => Output::Stdout(BufWriter::with_capacity(1 << 20, io::stdout())),
        })
    }

    /// Ends the output: flushed, or the file renamed into place.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Output::Stdout(mut out) => out.flush(),
            Output::File(f) => f.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(o) => o.write(buf),
            Output::File(o) => o.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(o) => o.write_all(buf),
            Output::File(o) => o.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(o) => o.flush(),
            Output::File(o) => o.flush(),
        }
    }
}

/// Writes `text` to the file at `output`, or to standard output without one (or with `-`).
pub fn write_output(files: &Files, output: Option<&Path>, text: &str) -> anyhow::Result<()> {
    let mut out = Output::create(files, output, &[])?;
    out.write_all(text.as_bytes())?;
    Ok(out.commit()?)
}

/// A sink for events in either format.
pub enum TraceSink {
    Text(TextWriter<Output>),
    Binary(BinaryWriter<Output>),
}

impl TraceSink {
    /// Standard output or the file at `path` (refused if it is one of `inputs`).
    pub fn create(
        files: &Files,
        path: Option<&Path>,
        inputs: &[&Path],
        format: Format,
    ) -> anyhow::Result<TraceSink> {
        let out = Output::create(files, path, inputs)?;
        Ok(match format {
            Format::Text => TraceSink::Text(TextWriter::new(out)),
            Format::Binary => TraceSink::Binary(BinaryWriter::new(out)?),
            Format::RoadRunner | Format::RapidBin => {
                anyhow::bail!("hindsight reads {} but does not write it", format.name())
            }
        })
    }

    pub fn write(&mut self, e: &hindsight_trace::Event, names: &Names) -> io::Result<()> {
        match self {
            TraceSink::Text(w) => w.write_event(e, names),
            TraceSink::Binary(w) => w.write_event(e, names),
        }
    }

    pub fn finish(self) -> io::Result<()> {
        match self {
            TraceSink::Text(w) => w.finish()?.commit(),
            TraceSink::Binary(w) => w.finish()?.commit(),
        }
    }
}

/// Writes the findings a pass hands over to standard output as JSON Lines, while the pass
/// goes on.
pub struct JsonlSink {
    /// The analyses' names, by their place in the chain.
    analyses: Vec<&'static str>,
    out: BufWriter<io::Stdout>,
    /// The first write that failed; the rest are skipped.
    error: Option<io::Error>,
    /// How many findings were written.
    written: u64,
}

impl JsonlSink {
    pub fn new(analyses: Vec<&'static str>) -> JsonlSink {
        JsonlSink {
            analyses,
            out: BufWriter::new(io::stdout()),
            error: None,
            written: 0,
        }
    }

    /// Writes the rest of each report (the findings not handed over during the pass, then the
    /// report's last line) and flushes; returns how many findings were written in all.
    pub fn finish(mut self, reports: &[Report]) -> io::Result<u64> {
        for r in reports {
            for f in &r.findings {
                self.write(&r.analysis, f);
            }
            if self.error.is_none() {
                self.error = write_jsonl_tail(r, &mut self.out).err();
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush().map(|()| self.written),
        }
    }

    fn write(&mut self, analysis: &str, f: &Finding) {
        if self.error.is_none() {
            self.written += 1;
            self.error = write_jsonl_finding(analysis, f, &mut self.out).err();
        }
    }
}

impl FindingSink for JsonlSink {
    fn findings(&mut self, k: usize, findings: Vec<Finding>) {
        let analysis = self.analyses[k];
        for f in &findings {
            self.write(analysis, f);
        }
    }
}
