//! `hindsight views`: high-level data races and stale values from the views of atomic regions,
//! in a trace (dynamic views) or in a program of the views language (`.mv`, static views).

use crate::{analyse, display_path, print_report, FormatArg, InputArgs, Located};
use anyhow::{bail, Context};
use clap::ValueEnum;
use hindsight_report::Report;
use hindsight_source::views::{lang, symbolic};
use hindsight_stream::views::{DynamicViews, Regions};
use hindsight_views::sensors::LIMIT;
use hindsight_views::{count_kinds, detect_counted, findings, rules};
use serde_json::Value;
use std::path::Path;

/// `--regions`.
#[derive(Clone, Copy, ValueEnum)]
pub enum RegionsArg {
    /// `begin`/`end` blocks.
    Blocks,
    /// Outermost lock regions (from the first acquire to the release of the last lock held).
    Locks,
    /// Either: a region lasts while the thread is in a block or holds a lock.
    Both,
}

/// The extension of programs in the views language.
pub const PROGRAM_EXTENSION: &str = "mv";

pub fn run(
    input: &Path,
    regions: Option<RegionsArg>,
    no_mhp: bool,
    strict: bool,
    format: FormatArg,
) -> anyhow::Result<u8> {
    if input.extension().and_then(|e| e.to_str()) == Some(PROGRAM_EXTENSION) {
        if regions.is_some() || no_mhp {
            bail!("`--regions` and `--no-mhp` apply to traces, not to programs");
        }
        return program(input, strict, format);
    }
    let regions = match regions {
        None => Regions::Auto,
        Some(RegionsArg::Blocks) => Regions::Blocks,
        Some(RegionsArg::Locks) => Regions::Locks,
        Some(RegionsArg::Both) => Regions::Both,
    };
    let args = InputArgs {
        trace: input.to_owned(),
        strict,
    };
    analyse(
        &args,
        format,
        vec![Box::new(DynamicViews::new(regions, !no_mhp))],
        Vec::new(),
    )
}

fn program(path: &Path, strict: bool, format: FormatArg) -> anyhow::Result<u8> {
    let shown = display_path(path);
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {shown}"))?;
    let located = |e: lang::LangError| Located(format!("{shown}:{}: error: {}", e.pos, e.message));
    let prog = lang::parse(&text).map_err(located)?;
    let views = symbolic::analyse(&prog, &shown).map_err(located)?;
    for w in &views.warnings {
        eprintln!("{w}");
    }
    if strict && !views.warnings.is_empty() {
        return Err(Located(views.warnings[0].replacen(": warning: ", ": error: ", 1)).into());
    }
    let k = &views.knowledge;
    let (warnings, truncated) = detect_counted(k);
    let (races, stale) = count_kinds(&warnings);
    let mut report = Report::new("views");
    report
        .trace
        .insert("path".into(), Value::from(shown.clone()));
    report.trace.insert("format".into(), Value::from("program"));
    report
        .trace
        .insert("threads".into(), Value::from(k.threads.len()));
    report.findings = findings(k, &warnings, &views);
    report.rules = rules();
    report
        .summary
        .insert("views".into(), Value::from(k.views.len()));
    report
        .summary
        .insert("high_level_races".into(), Value::from(races));
    report
        .summary
        .insert("stale_values".into(), Value::from(stale));
    if truncated {
        report
            .summary
            .insert("sensor_limit_reached".into(), Value::from(LIMIT));
    }
    report.warnings = views.warnings.clone();
    print_report(&report, format)?;
    Ok(report.exit_code() as u8)
}
