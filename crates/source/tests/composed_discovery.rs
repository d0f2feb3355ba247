//! Discovery of composed operations on real Java: every method that calls a concurrent map
//! held in a field two or more times (counted here on the syntax tree alone, independently of
//! `composed::front`) is an operation of the front end's output, classified or `unsupported`,
//! never silently absent. Run on the corpus and the examples; on any other directory of Java
//! with `COMPOSED_DISCOVERY_DIR=/path/to/src`.

use hindsight_source::composed::front::programs_of;
use hindsight_source::java::{self, JavaFile};
use std::path::{Path, PathBuf};
use tree_sitter::Node;

const MAP_METHODS: &[&str] = &[
    "get",
    "put",
    "remove",
    "putIfAbsent",
    "replace",
    "containsKey",
    "size",
    "getOrDefault",
    "computeIfAbsent",
    "computeIfPresent",
    "compute",
    "merge",
    "keySet",
    "values",
    "entrySet",
    "forEach",
    "clear",
    "isEmpty",
];

fn java_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            java_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

/// The names of the fields declared with a concurrent map type, or initialised with one.
fn map_fields(file: &JavaFile, out: &mut Vec<String>) {
    let mut stack = vec![file.root()];
    while let Some(x) = stack.pop() {
        if x.kind() == "field_declaration" {
            let ty = x
                .child_by_field_name("type")
                .map(|t| file.text_of(t))
                .unwrap_or("");
            let mut c = x.walk();
            for d in x.children_by_field_name("declarator", &mut c) {
                let init_map = d.child_by_field_name("value").is_some_and(|v| {
                    v.kind() == "object_creation_expression"
                        && v.child_by_field_name("type")
                            .is_some_and(|t| java::is_concurrent_map_type(file.text_of(t)))
                });
                if java::is_concurrent_map_type(ty) || init_map {
                    if let Some(n) = d.child_by_field_name("name") {
                        out.push(file.text_of(n).to_owned());
                    }
                }
            }
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
}

/// Calls `field.m(..)` or `this.field.m(..)` of a map method in `body`, not counting those
/// in classes declared inside it (their methods are counted on their own).
fn direct_calls(file: &JavaFile, body: Node, fields: &[String]) -> usize {
    let mut n = 0;
    let mut stack = vec![body];
    while let Some(x) = stack.pop() {
        if x.kind() == "class_body" {
            continue;
        }
        if x.kind() == "method_invocation" {
            let named = x
                .child_by_field_name("name")
                .is_some_and(|m| MAP_METHODS.contains(&file.text_of(m)));
            let on_field = x.child_by_field_name("object").is_some_and(|o| {
                let name = match o.kind() {
                    "identifier" => Some(file.text_of(o)),
                    "field_access"
                        if o.child_by_field_name("object")
                            .is_some_and(|t| t.kind() == "this") =>
                    {
                        o.child_by_field_name("field").map(|f| file.text_of(f))
                    }
                    _ => None,
                };
                name.is_some_and(|n| fields.iter().any(|f| f == n))
            });
            n += usize::from(named && on_field);
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    n
}

/// The names a method declares (parameters, locals, lambda parameters): they hide fields.
fn declared(file: &JavaFile, method: Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![method];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind(),
            "variable_declarator" | "formal_parameter" | "catch_formal_parameter"
        ) {
            if let Some(n) = x.child_by_field_name("name") {
                out.push(file.text_of(n).to_owned());
            }
        }
        if x.kind() == "lambda_expression" {
            if let Some(p) = x.child_by_field_name("parameters") {
                if p.kind() == "identifier" {
                    out.push(file.text_of(p).to_owned());
                }
            }
        }
        let mut c = x.walk();
        stack.extend(x.named_children(&mut c));
    }
    out
}

/// (file index, line, name) of every method with two or more direct calls on a map field of
/// its own file that no local of the method hides.
fn expected(files: &[JavaFile]) -> Vec<(usize, u32, String)> {
    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let mut fields = Vec::new();
        map_fields(file, &mut fields);
        let mut stack = vec![file.root()];
        while let Some(x) = stack.pop() {
            if x.kind() == "method_declaration" {
                if let Some(body) = x.child_by_field_name("body") {
                    let hidden = declared(file, x);
                    let fields: Vec<String> = fields
                        .iter()
                        .filter(|f| !hidden.contains(f))
                        .cloned()
                        .collect();
                    if direct_calls(file, body, &fields) >= 2 {
                        let name = x
                            .child_by_field_name("name")
                            .map(|n| file.text_of(n))
                            .unwrap_or("");
                        out.push((i, file.pos(x).line, name.to_owned()));
                    }
                }
            }
            let mut c = x.walk();
            stack.extend(x.named_children(&mut c));
        }
    }
    out
}

/// Every expected method is an operation of its file; returns how many there were.
fn every_method_is_reported(paths: &[PathBuf]) -> usize {
    let mut files = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        // Files that are not Java the front end reads are the CLI's warnings, not this test's.
        if let Ok(f) = java::parse(&text) {
            files.push(f);
        }
    }
    let all: Vec<&JavaFile> = files.iter().collect();
    let programs = programs_of(&all);
    let expected = expected(&files);
    let mut missing = Vec::new();
    for (i, line, name) in &expected {
        let found = programs[*i].as_ref().is_ok_and(|ps| {
            ps.iter().flat_map(|p| &p.operations).any(|o| {
                o.pos.line == *line && (o.name == *name || o.name.starts_with(&format!("{name}@")))
            })
        });
        if !found {
            missing.push(format!("{}:{line}: {name}", paths[*i].display()));
        }
    }
    assert!(
        missing.is_empty(),
        "methods not reported:\n{}",
        missing.join("\n")
    );
    expected.len()
}

#[test]
fn every_method_that_calls_a_map_field_twice_is_reported_in_the_corpus_and_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    java_files(&root.join("crates/cli/tests/corpus/composed"), &mut paths);
    java_files(&root.join("examples/composed"), &mut paths);
    let n = every_method_is_reported(&paths);
    // Not vacuous: the corpus has dozens.
    assert!(n >= 30, "{n} methods");
}

#[test]
fn every_method_that_calls_a_map_field_twice_is_reported_in_a_directory_given() {
    let Ok(dir) = std::env::var("COMPOSED_DISCOVERY_DIR") else {
        return;
    };
    let mut paths = Vec::new();
    java_files(Path::new(&dir), &mut paths);
    let n = every_method_is_reported(&paths);
    eprintln!(
        "{} files, {n} methods with two or more calls on a map field",
        paths.len()
    );
}
