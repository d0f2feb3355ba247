//! What the commands share to read their inputs and print what they get back: inputs by path
//! (`-` for standard input), reports in a chosen format, warnings on standard error, and the
//! exit status a run calls for.

use crate::args::FormatArg;
use anyhow::Context;
use hindsight_report::{
    render_all, render_with, write_jsonl_finding, write_jsonl_tail, EscapeControls, Finding,
    OutputFormat, RenderOptions, Report,
};
use hindsight_states::cuts::poset_file::looks_like_poset;
use hindsight_stream::FindingSink;
use hindsight_syntax::{input_name, Diagnostic};
use hindsight_trace::{
    AnyReader, BinaryWriter, Format, Names, OpenOptions, OutputFile, RoadRunnerOptions, TextWriter,
};
use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;

/// Set once from `--one-thread`, before any trace is read.
pub static ONE_THREAD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a pass over a trace with `analyses` analyses runs pipelined over two threads.
pub fn pipelined(analyses: usize) -> bool {
    // With no analysis (`stats`) the second thread would have only happens-before to do while
    // the first, filling batches, does about as much as the whole one-thread pass.
    analyses > 0
        && !ONE_THREAD.load(std::sync::atomic::Ordering::Relaxed)
        && hindsight_stream::pipeline::worthwhile()
}

/// The whole text of an input (`-`: standard input).
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    Ok(decode_text(&input_name(path), read_bytes(path)?)?)
}

/// `bytes` as text, or an error at the first byte that is not UTF-8; a byte-order mark
/// (editors on Windows write one) is not part of the text.
fn decode_text(name: &str, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    let mut text = hindsight_syntax::decode_utf8(name, bytes)?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// The whole content of an input (`-`: standard input), refused if the run writes it.
fn read_bytes(path: &Path) -> anyhow::Result<Vec<u8>> {
    crate::files::note_read(path)?;
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        io::Read::read_to_end(&mut io::stdin(), &mut bytes)
            .context("cannot read standard input")?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("cannot read {}", input_name(path)))?;
    }
    Ok(bytes)
}

/// The Java sources of a command, and the files found in directories that were left out.
pub struct JavaSources {
    pub sources: Vec<hindsight_source::composed::Source>,
    /// A file found in a directory that is not UTF-8 text: skipped, as the user did not name
    /// it (a file named on the command line is an error).
    pub skipped: Vec<Diagnostic>,
}

/// The Java sources named by `paths`: files as given, directories searched recursively for
/// `.java` files (in name order, so that reports are reproducible), `-` standard input.
pub fn read_java_sources(paths: &[std::path::PathBuf]) -> anyhow::Result<JavaSources> {
    let mut out = JavaSources {
        sources: Vec::new(),
        skipped: Vec::new(),
    };
    for path in paths {
        if path.is_dir() {
            let mut files = Vec::new();
            java_files(path, &mut files)?;
            files.sort();
            for f in files {
                let name = input_name(&f);
                match decode_text(&name, read_bytes(&f)?) {
                    Ok(text) => {
                        out.sources
                            .push(hindsight_source::composed::Source { name, text });
                    }
                    Err(e) => out.skipped.push(Diagnostic {
                        severity: hindsight_syntax::Severity::Warning,
                        message: format!("{}; skipped", e.message),
                        ..e
                    }),
                }
            }
        } else {
            out.sources.push(hindsight_source::composed::Source {
                name: input_name(path),
                text: read_text(path)?,
            });
        }
    }
    Ok(out)
}

fn java_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read {}", input_name(dir)))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", input_name(dir)))?;
        let path = entry.path();
        // Symbolic links to directories are not followed: a link cycle would never end.
        let kind = entry
            .file_type()
            .with_context(|| format!("cannot read {}", input_name(&path)))?;
        if kind.is_dir() {
            java_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
    Ok(())
}

/// Set once from `--rr-exclude`, before any trace is read.
pub static RR_EXCLUDE: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// A trace opened for reading, its format sniffed.
pub fn open_trace(path: &Path) -> anyhow::Result<AnyReader> {
    open_trace_as(path, None)
}

/// A trace opened for reading as `format`, or as its content says.
pub fn open_trace_as(path: &Path, format: Option<Format>) -> anyhow::Result<AnyReader> {
    crate::files::note_read(path)?;
    let options = OpenOptions {
        format,
        roadrunner: RoadRunnerOptions {
            exclude: RR_EXCLUDE.get().cloned().unwrap_or_default(),
        },
    };
    Ok(hindsight_trace::open_with(path, &options)
        .map_err(|e| Diagnostic::error(&input_name(path), e.pos, e.kind.to_string()))?)
}

/// Whether the file at `path` starts like a poset file. Standard input is not looked at (what
/// is read from it is gone): `--poset` says it holds one.
pub fn is_poset_file(path: &Path) -> bool {
    if path.as_os_str() == "-" {
        return false;
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = vec![0u8; 4096];
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    head.truncate(n);
    looks_like_poset(&String::from_utf8_lossy(&head))
}

/// The lines of a poset file as they come (`-`: standard input).
pub fn open_lines(path: &Path) -> anyhow::Result<Box<dyn BufRead>> {
    crate::files::note_read(path)?;
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let f =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", input_name(path)))?;
    let mut lines = std::io::BufReader::new(f);
    // A byte-order mark is not part of the text (see `read_text`).
    if lines
        .fill_buf()
        .with_context(|| format!("cannot read {}", input_name(path)))?
        .starts_with(hindsight_trace::text::BOM)
    {
        lines.consume(hindsight_trace::text::BOM.len());
    }
    Ok(Box::new(lines))
}

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

/// Where `--html` writes its page, and the inputs it must not overwrite; set once, before the
/// command runs.
pub struct HtmlTarget {
    pub path: std::path::PathBuf,
    pub inputs: Vec<std::path::PathBuf>,
}

pub static HTML: std::sync::OnceLock<HtmlTarget> = std::sync::OnceLock::new();

/// Set once when the process starts: the run's time on the page.
pub static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Whether the reports of this run are drawn as HTML (`--format html` or `--html FILE`): the
/// trace commands then gather what the pictures need.
pub fn wants_html(format: FormatArg) -> bool {
    matches!(format, FormatArg::Html) || HTML.get().is_some()
}

/// What the page says about this run.
fn page() -> hindsight_html::Page {
    let elapsed_ms = STARTED.get().map_or(0, |t| t.elapsed().as_millis());
    hindsight_html::Page::of_run(std::env::args_os(), elapsed_ms)
}

/// Writes the page of `reports` to the file of `--html`, if one was given.
pub fn write_html_file(reports: &[Report]) -> anyhow::Result<()> {
    let Some(target) = HTML.get() else {
        return Ok(());
    };
    let inputs: Vec<&Path> = target.inputs.iter().map(|p| p.as_path()).collect();
    let mut out = Output::create(Some(&target.path), &inputs)?;
    hindsight_html::render_html(reports, &page(), &mut out)
        .and_then(|()| out.commit())
        .with_context(|| format!("cannot write {}", target.path.display()))
}

/// Renders `reports` in `format` (HTML included) to `out`.
fn render_reports(
    reports: &[Report],
    format: FormatArg,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (output_format(format), reports) {
        (None, _) => hindsight_html::render_html(reports, &page(), out),
        (Some(f), [one]) => render_with(one, f, options, out),
        (Some(f), many) => render_all(many, f, options, out),
    }
}

pub fn print_report(report: &Report, format: FormatArg) -> anyhow::Result<()> {
    print_report_with(report, format, &RenderOptions::default())
}

pub fn print_report_with(
    report: &Report,
    format: FormatArg,
    options: &RenderOptions,
) -> anyhow::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    render_reports(std::slice::from_ref(report), format, options, &mut out)?;
    out.flush()?;
    write_html_file(std::slice::from_ref(report))
}

/// Prints the reports of several analyses of one input (`check`).
pub fn print_reports(
    reports: &[Report],
    format: FormatArg,
    options: &RenderOptions,
) -> anyhow::Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    match output_format(format) {
        Some(f) => render_all(reports, f, options, &mut out)?,
        None => render_reports(reports, format, options, &mut out)?,
    }
    out.flush()?;
    write_html_file(reports)
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
    /// one of `inputs`.
    pub fn create(path: Option<&Path>, inputs: &[&Path]) -> anyhow::Result<Output> {
        Ok(match path {
            Some(p) if p.as_os_str() != "-" => {
                crate::files::check_output(p)?;
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
pub fn write_output(output: Option<&Path>, text: &str) -> anyhow::Result<()> {
    let mut out = Output::create(output, &[])?;
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
        path: Option<&Path>,
        inputs: &[&Path],
        format: Format,
    ) -> anyhow::Result<TraceSink> {
        let out = Output::create(path, inputs)?;
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
