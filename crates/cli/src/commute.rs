//! `hindsight commute`: loading specs, binding objects to them, `--explain`.

use crate::Located;
use anyhow::{bail, Context};
use hindsight_stream::commute::builtin::{builtin, BUILTINS};
use hindsight_stream::commute::spec::{self, SpecError};
use hindsight_stream::commute::{compile_file, Binding, Commute, CompiledSpec};
use rustc_hash::FxHashMap;
use std::path::Path;

/// The compiled specs and the warnings about them (rules outside ECL).
pub struct LoadedSpecs {
    pub specs: Vec<CompiledSpec>,
    pub warnings: Vec<String>,
}

pub fn load(
    spec_path: Option<&Path>,
    builtin_name: Option<&str>,
    force_direct: bool,
) -> anyhow::Result<LoadedSpecs> {
    let (origin, text) = match (spec_path, builtin_name) {
        (Some(p), _) => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        (None, Some(name)) => match builtin(name) {
            Some(text) => (format!("<builtin {name}>"), text.to_owned()),
            None => bail!(
                "no builtin spec `{name}` (there are: {})",
                BUILTINS.join(", ")
            ),
        },
        (None, None) => bail!("give a spec with --spec FILE or --builtin NAME"),
    };
    let wrap = |e: SpecError| {
        Located(format!(
            "{origin}:{}:{}: error: {}",
            e.span.line, e.span.col, e.message
        ))
    };
    let file = spec::parse(&text).map_err(wrap)?;
    if file.objects.is_empty() {
        bail!("{origin}: the spec declares no object");
    }
    let specs = compile_file(file, force_direct).map_err(wrap)?;
    let warnings = specs
        .iter()
        .flat_map(|s| &s.rep.not_ecl)
        .map(|e| {
            format!(
                "{origin}:{}:{}: warning: {} (in `{}`); this pair is checked directly against every earlier action (linear per action)",
                e.span.line, e.span.col, e.reason, e.subformula
            )
        })
        .collect();
    Ok(LoadedSpecs { specs, warnings })
}

/// `--bind obj=Type` pairs, or the single type of the spec for every object.
pub fn binding(specs: &[CompiledSpec], binds: &[String]) -> anyhow::Result<Binding> {
    if binds.is_empty() {
        if specs.len() == 1 {
            return Ok(Binding::All(0));
        }
        bail!(
            "the spec declares {} object types ({}): bind each object with --bind OBJECT=TYPE",
            specs.len(),
            specs
                .iter()
                .map(|s| s.spec.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut map = FxHashMap::default();
    for b in binds {
        let Some((object, ty)) = b.split_once('=') else {
            bail!("--bind takes OBJECT=TYPE, got `{b}`");
        };
        let Some(ix) = specs.iter().position(|s| s.spec.name == ty) else {
            bail!("--bind {b}: the spec declares no type `{ty}`");
        };
        map.insert(object.to_owned(), ix);
    }
    Ok(Binding::Named(map))
}

pub fn explain(specs: &[CompiledSpec]) -> String {
    specs
        .iter()
        .map(|s| s.rep.explain(&s.spec))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn analysis(specs: Vec<CompiledSpec>, binding: Binding) -> Commute {
    Commute::new(specs, binding)
}
