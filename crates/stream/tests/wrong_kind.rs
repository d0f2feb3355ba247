//! Inputs of the wrong kind: no file that is not a trace is answered as one. Every example
//! input of another kind in `examples/` (histories, poset files, Java and views-language
//! programs), mutated (lines dropped or doubled, bytes changed, cut short), is opened with the
//! library's reading entry point (`hindsight_trace::open`) and analysed as the trace commands
//! do: the outcome is an error (exit 2), never an answer, unless the mutation left nothing but
//! blanks and comments (an empty trace, answered with its warning).

use hindsight_stream::races::Races;
use hindsight_stream::{analyse_trace, RunOptions};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The example inputs that are not traces, as `(name, text)`.
fn others() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut add = |dir: &str, keep: &dyn Fn(&str) -> bool| {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("examples")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_file() && keep(&p.to_string_lossy()))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read(&p).expect("reads");
            out.push((p.to_string_lossy().into_owned(), text));
        }
    };
    add("examples", &|p| {
        p.ends_with(".edn") || p.ends_with(".jsonl")
    });
    add("examples/cuts", &|p| p.ends_with(".poset"));
    add("examples/views", &|p| p.ends_with(".mv"));
    add("examples/views/java", &|p| p.ends_with(".java"));
    add("examples/composed", &|p| p.ends_with(".java"));
    // Knossos writes a history as one vector of operations (`[{:process 0 ...}`): the shape a
    // leading `[` once had read as a RoadRunner log with no events.
    out.push((
        "knossos-vector.edn".to_owned(),
        b"[{:process 0, :type :invoke, :f :write, :value 1}\n \
          {:process 0, :type :ok, :f :write, :value 1}\n \
          {:process 1, :type :invoke, :f :read, :value nil}\n \
          {:process 1, :type :ok, :f :read, :value 1}]\n"
            .to_vec(),
    ));
    out
}

/// One change to an input.
#[derive(Clone, Debug)]
enum Mutation {
    DropLine(usize),
    DoubleLine(usize),
    SetByte(usize, u8),
    Cut(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DropLine),
        any::<usize>().prop_map(Mutation::DoubleLine),
        (any::<usize>(), 0x20u8..0x7f).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        any::<usize>().prop_map(Mutation::Cut),
    ]
}

fn mutate(text: &[u8], m: &Mutation) -> Vec<u8> {
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let mut out = Vec::with_capacity(text.len() + 64);
    match *m {
        Mutation::DropLine(i) | Mutation::DoubleLine(i) if !lines.is_empty() => {
            let i = i % lines.len();
            for (k, l) in lines.iter().enumerate() {
                let copies = match m {
                    Mutation::DropLine(_) if k == i => 0,
                    Mutation::DoubleLine(_) if k == i => 2,
                    _ => 1,
                };
                for _ in 0..copies {
                    out.extend_from_slice(l);
                }
            }
        }
        Mutation::SetByte(i, b) if !text.is_empty() => {
            out.extend_from_slice(text);
            let n = out.len();
            out[i % n] = b;
        }
        Mutation::Cut(i) if !text.is_empty() => out.extend_from_slice(&text[..i % text.len()]),
        _ => out.extend_from_slice(text),
    }
    out
}

/// Whether `text` holds nothing but blanks and `#` comments: read as a trace, an empty one.
fn blank(text: &[u8]) -> bool {
    String::from_utf8_lossy(text)
        .lines()
        .map(str::trim)
        .all(|l| l.is_empty() || l.starts_with('#') || l == "\u{feff}")
}

fn answered(text: &[u8]) -> Result<(), String> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "wrong-kind-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, text).expect("writes");
    let outcome = hindsight_trace::open(&path)
        .map_err(|e| e.to_string())
        .and_then(|mut reader| {
            analyse_trace(
                &mut reader,
                "input",
                vec![Box::new(Races::new())],
                RunOptions::default(),
            )
            .map(|_| ())
            .map_err(|d| d.message)
        });
    let _ = std::fs::remove_file(&path);
    outcome
}

#[test]
fn every_example_of_another_kind_is_refused() {
    let others = others();
    assert!(others.len() >= 10, "{} examples", others.len());
    for (name, text) in &others {
        assert!(answered(text).is_err(), "{name} was answered as a trace");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_mutated_input_of_another_kind_is_answered_as_a_trace(
        pick in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let others = others();
        let (name, text) = &others[pick % others.len()];
        let mut text = text.clone();
        for m in &mutations {
            text = mutate(&text, m);
        }
        if !blank(&text) {
            prop_assert!(
                answered(&text).is_err(),
                "{} mutated by {:?} was answered as a trace:\n{}",
                name,
                mutations,
                String::from_utf8_lossy(&text)
            );
        }
    }
}
