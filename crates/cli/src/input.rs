//! What the commands share to read their inputs: text and bytes by path (`-` for standard
//! input), Java sources, traces (their format sniffed, RoadRunner's excludes applied) and
//! poset files, each read noted so that no run writes a file it reads; and whether a pass over
//! a trace runs pipelined.

use crate::session::Session;
use anyhow::Context;
use hindsight_budget::Budget;
use hindsight_states::cuts::poset_file::looks_like_poset;
use hindsight_syntax::{input_name, Diagnostic};
use hindsight_trace::{AnyReader, Format, OpenOptions, RoadRunnerOptions};
use std::io::{self, BufRead};
use std::path::Path;

impl Session {
    /// Whether a pass over a trace with `analyses` analyses runs pipelined over two threads.
    pub fn pipelined(&self, analyses: usize) -> bool {
        // With no analysis (`stats`) the second thread would have only happens-before to do
        // while the first, filling batches, does about as much as the whole one-thread pass.
        analyses > 0 && !self.one_thread && hindsight_stream::pipeline::worthwhile()
    }

    /// The whole text of an input (`-`: standard input).
    pub fn read_text(&self, path: &Path) -> anyhow::Result<String> {
        Ok(decode_text(&input_name(path), self.read_bytes(path)?)?)
    }

    /// The whole content of an input (`-`: standard input), refused if the run writes it.
    fn read_bytes(&self, path: &Path) -> anyhow::Result<Vec<u8>> {
        self.files.note_read(path)?;
        let mut bytes = Vec::new();
        if path.as_os_str() == "-" {
            io::Read::read_to_end(&mut io::stdin(), &mut bytes)
                .context("cannot read standard input")?;
        } else {
            bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", input_name(path)))?;
        }
        Ok(bytes)
    }

    /// The Java sources named by `paths`: files as given, directories searched recursively for
    /// `.java` files (in name order, so that reports are reproducible), `-` standard input.
    pub fn read_java_sources(&self, paths: &[std::path::PathBuf]) -> anyhow::Result<JavaSources> {
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
                    match decode_text(&name, self.read_bytes(&f)?) {
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
                    text: self.read_text(path)?,
                });
            }
        }
        Ok(out)
    }

    /// A trace opened for reading, its format sniffed; read within `budget`'s deadline, if
    /// given, even from a pipe that sends nothing more.
    pub fn open_trace(&self, path: &Path, budget: Option<&Budget>) -> anyhow::Result<AnyReader> {
        self.open_trace_as(path, None, budget)
    }

    /// A trace opened for reading as `format`, or as its content says (see [`Self::open_trace`]).
    pub fn open_trace_as(
        &self,
        path: &Path,
        format: Option<Format>,
        budget: Option<&Budget>,
    ) -> anyhow::Result<AnyReader> {
        self.files.note_read(path)?;
        let options = OpenOptions {
            format,
            roadrunner: RoadRunnerOptions {
                exclude: self.rr_exclude.clone(),
            },
            deadline: budget.and_then(Budget::deadline),
            // Text is parsed on every core unless `--one-thread` says one.
            parse_threads: match self.one_thread {
                true => 1,
                false => std::thread::available_parallelism().map_or(1, |n| n.get()),
            },
        };
        Ok(hindsight_trace::open_with(path, &options)
            .map_err(|e| Diagnostic::error(&input_name(path), e.pos, e.kind.to_string()))?)
    }

    /// The lines of a poset file as they come (`-`: standard input).
    pub fn open_lines(&self, path: &Path) -> anyhow::Result<Box<dyn BufRead>> {
        self.files.note_read(path)?;
        if path.as_os_str() == "-" {
            return Ok(Box::new(std::io::stdin().lock()));
        }
        let f = std::fs::File::open(path)
            .with_context(|| format!("cannot read {}", input_name(path)))?;
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
}

/// `bytes` as text, or an error at the first byte that is not UTF-8; a byte-order mark
/// (editors on Windows write one) is not part of the text.
pub fn decode_text(name: &str, bytes: Vec<u8>) -> Result<String, Diagnostic> {
    let mut text = hindsight_syntax::decode_utf8(name, bytes)?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// The Java sources of a command, and the files found in directories that were left out.
pub struct JavaSources {
    pub sources: Vec<hindsight_source::composed::Source>,
    /// A file found in a directory that is not UTF-8 text: skipped, as the user did not name
    /// it (a file named on the command line is an error).
    pub skipped: Vec<Diagnostic>,
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
