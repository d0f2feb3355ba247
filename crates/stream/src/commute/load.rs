//! From spec text to what the analysis runs on: parsing and compiling a spec, the warnings
//! about its rules outside ECL, binding the trace's objects to its types (`--bind`), and the
//! `--explain` text.

use super::builtin::{builtin, BUILTINS};
use super::spec;
use super::{compile_file, Binding, CompiledSpec};
use hindsight_syntax::{Diagnostic, Position, SyntaxError};
use rustc_hash::FxHashMap;

/// The compiled specs and the warnings about them (rules outside ECL).
pub struct LoadedSpecs {
    pub specs: Vec<CompiledSpec>,
    pub warnings: Vec<Diagnostic>,
}

/// The text of the builtin spec `name`, or a diagnostic listing those there are.
pub fn builtin_text(name: &str) -> Result<&'static str, Diagnostic> {
    builtin(name).ok_or_else(|| {
        Diagnostic::usage(format!(
            "no builtin spec `{name}` (there are: {})",
            BUILTINS.join(", ")
        ))
    })
}

/// Parses and compiles the spec `text`, named `origin` in diagnostics; `force_direct` checks
/// every pair directly against the formulas (Section 5.1).
pub fn load(text: &str, origin: &str, force_direct: bool) -> Result<LoadedSpecs, Diagnostic> {
    let wrap = |e: SyntaxError| e.in_input(origin);
    let file = spec::parse(text).map_err(wrap)?;
    if file.objects.is_empty() {
        return Err(Diagnostic::usage(format!(
            "{origin}: the spec declares no object"
        )));
    }
    let specs = compile_file(file, force_direct).map_err(wrap)?;
    let warnings = specs
        .iter()
        .flat_map(|s| &s.rep.not_ecl)
        .map(|e| {
            Diagnostic::warning(
                origin,
                Position::At(e.pos),
                format!(
                    "{} (in `{}`); this pair is checked directly against every earlier action (linear per action)",
                    e.reason, e.subformula
                ),
            )
        })
        .collect();
    Ok(LoadedSpecs { specs, warnings })
}

/// `--bind obj=Type` pairs, or the single type of the spec for every object.
pub fn binding(specs: &[CompiledSpec], binds: &[String]) -> Result<Binding, Diagnostic> {
    if binds.is_empty() {
        if specs.len() == 1 {
            return Ok(Binding::All(0));
        }
        return Err(Diagnostic::usage(format!(
            "the spec declares {} object types ({}): bind each object with --bind OBJECT=TYPE",
            specs.len(),
            specs
                .iter()
                .map(|s| s.spec.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut map = FxHashMap::default();
    for b in binds {
        let Some((object, ty)) = b.split_once('=') else {
            return Err(Diagnostic::usage(format!(
                "--bind takes OBJECT=TYPE, got `{b}`"
            )));
        };
        let Some(ix) = specs.iter().position(|s| s.spec.name == ty) else {
            return Err(Diagnostic::usage(format!(
                "--bind {b}: the spec declares no type `{ty}`"
            )));
        };
        map.insert(object.to_owned(), ix);
    }
    Ok(Binding::Named(map))
}

/// The access points each action touches and the conflict relation, per object type.
pub fn explain(specs: &[CompiledSpec]) -> String {
    specs
        .iter()
        .map(|s| s.rep.explain(&s.spec))
        .collect::<Vec<_>>()
        .join("\n")
}
