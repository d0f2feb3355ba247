//! `cargo hindsight run|test`: arguments in, [`cargo_hindsight::hindsight`], findings out.

use cargo_hindsight::{exit_code, hindsight, Options, Target, Unit};
use clap::{Args, Parser, Subcommand};
use hindsight_report::{render_text, RenderOptions};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Cargo runs `cargo-hindsight hindsight ARGS` for `cargo hindsight ARGS`.
#[derive(Parser)]
#[command(name = "cargo", bin_name = "cargo")]
enum Cargo {
    /// Record a program or each of its tests with hindsight-record, and check each trace.
    Hindsight(Hindsight),
}

#[derive(Args)]
#[command(version)]
struct Hindsight {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build and run the package's binary, recording, then check the trace.
    Run {
        /// The binary to run (required if the package has several).
        #[arg(long)]
        bin: Option<String>,
        #[command(flatten)]
        common: Common,
        /// Arguments for the program (after `--`).
        #[arg(last = true)]
        args: Vec<OsString>,
    },
    /// Build the package's tests and run each in a process of its own, recording, then check
    /// each trace.
    Test {
        /// Only the tests whose name contains this.
        filter: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
struct Common {
    /// Runs per program or test: each run is another schedule.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The package to build, in a workspace.
    #[arg(short, long)]
    package: Option<String>,
    #[arg(long)]
    manifest_path: Option<PathBuf>,
}

fn main() -> ExitCode {
    let Cargo::Hindsight(args) = match Cargo::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let (target, common) = match args.command {
        Command::Run { bin, common, args } => (Target::Run { bin, args }, common),
        Command::Test { filter, common } => (Target::Test { filter }, common),
    };
    let options = Options {
        target,
        manifest_path: common.manifest_path,
        package: common.package,
        repeat: common.repeat,
        cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
    };
    match hindsight(&options) {
        Ok(units) => {
            if let Err(e) = print(&units) {
                eprintln!("cargo-hindsight: {e}");
                return ExitCode::from(2);
            }
            ExitCode::from(exit_code(&units))
        }
        Err(e) => {
            eprintln!("cargo-hindsight: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Per program or test: its failures, warnings, and findings grouped by analysis.
fn print(units: &[Unit]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    for unit in units {
        let reports = unit.reports();
        let failed = unit.runs.iter().filter(|r| !r.passed).count();
        let unchecked: Vec<&String> = unit
            .runs
            .iter()
            .filter_map(|r| r.check.as_ref().err())
            .collect();
        let findings: usize = reports.iter().map(|r| r.findings.len()).sum();
        let verdict = if findings > 0 {
            format!("{findings} finding(s)")
        } else if !unchecked.is_empty() {
            "not checked".to_owned()
        } else {
            "clean".to_owned()
        };
        writeln!(
            out,
            "== {} ({} run(s)): {verdict}",
            unit.name,
            unit.runs.len()
        )?;
        if failed > 0 {
            writeln!(out, "  failed in {failed} run(s); the first failure said:")?;
            if let Some(r) = unit.runs.iter().find(|r| !r.passed) {
                for line in r.output.lines() {
                    writeln!(out, "  | {line}")?;
                }
            }
        }
        for e in unchecked {
            writeln!(out, "  error: {e}")?;
        }
        for w in unit.warnings() {
            writeln!(out, "  {w}")?;
        }
        for report in &reports {
            render_text(report, &RenderOptions::default(), &mut out)?;
        }
        match unit.runs.as_slice() {
            [] => {}
            [one] => writeln!(out, "  trace: {}", shown(&one.trace))?,
            [first, .., last] => writeln!(
                out,
                "  traces: {} .. {}",
                shown(&first.trace),
                shown(&last.trace)
            )?,
        }
    }
    Ok(())
}

/// A path relative to the current directory when it is under it.
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}
