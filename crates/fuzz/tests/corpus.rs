//! Every fuzz target, briefly, on every machine: each target's seed corpus (the bundled
//! examples of its input kind, as `fuzz/seed.sh` copies them) and thousands of mutations of
//! them (bytes flipped, inserted, deleted, runs duplicated, seeds spliced, deep nesting added).
//! A target that panics fails the test, with the input written out to reproduce it.
//! `cargo fuzz run TARGET -s none` (see `fuzz/README.md`) searches far longer.

use hindsight_fuzz::TARGETS;
use hindsight_rng::SplitMix64;
use std::path::{Path, PathBuf};

/// Mutations per seed. Enough to reach the error paths of every reader each run; a fuzzer
/// campaign does the rest.
const MUTATIONS: usize = 100;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seeds of a target: the bundled inputs it reads.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let want: &[&str] = match target {
        "trace_text" => &["std", "txt"],
        "trace_binary" => &[],
        "trace_roadrunner" => &["rr"],
        "trace_rapidbin" => &["rapidbin"],
        "poset" => &["poset"],
        "predicate" => &["pred"],
        "history" => &["jsonl", "edn"],
        "spec" => &["spec"],
        "views_program" => &["mv"],
        "java" => &["java"],
        other => panic!("no seeds for {other}"),
    };
    let mut found = Vec::new();
    for dir in [
        "examples",
        "crates/stream/specs",
        "crates/trace/tests/fixtures/readers",
    ] {
        collect(&root().join(dir), want, &mut found);
    }
    found.sort();
    let mut seeds: Vec<Vec<u8>> = found
        .iter()
        .map(|p| std::fs::read(p).expect("read seed"))
        .collect();
    match target {
        "trace_binary" => {
            // Binary traces are made from the text ones, as `convert` does.
            for p in found_texts() {
                seeds.push(to_binary(&p));
            }
        }
        "predicate" => seeds.extend(
            [
                "race",
                "count(method == open) >= 2 && count(method == close) >= 0",
                "exists(x == 1 by T1) || atleast(2, op == w)",
                "!(at(T1) > 3) && (true || false)",
            ]
            .map(|s| s.as_bytes().to_vec()),
        ),
        _ => {}
    }
    assert!(!seeds.is_empty(), "{target} has no seeds");
    seeds
}

fn collect(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, exts, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| exts.contains(&x))
        {
            out.push(p);
        }
    }
}

fn found_texts() -> Vec<PathBuf> {
    let mut v = Vec::new();
    collect(&root().join("examples"), &["std"], &mut v);
    v.sort();
    v
}

fn to_binary(path: &Path) -> Vec<u8> {
    use hindsight_trace::{BinaryWriter, EventSource, TextReader};
    let mut reader = TextReader::new(std::fs::File::open(path).expect("open"));
    let mut w = BinaryWriter::new(Vec::new()).expect("header");
    while reader.advance().unwrap_or(false) {
        w.write_event(reader.current(), reader.names())
            .expect("write");
    }
    w.finish().expect("finish")
}

fn mutate(rng: &mut SplitMix64, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = |rng: &mut SplitMix64, len: usize| rng.below(len as u64 + 1) as usize;
        match rng.below(8) {
            0 if !v.is_empty() => {
                let i = at(rng, v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = at(rng, v.len());
                let b = *rng.pick(b"()|,;{}[]\"'\\:#\n 0-9a\xff\x00");
                v.insert(i, b);
            }
            2 if !v.is_empty() => {
                let i = at(rng, v.len() - 1);
                let n = (rng.below(16) as usize).min(v.len() - i);
                v.drain(i..i + n);
            }
            3 if !v.is_empty() => {
                let i = at(rng, v.len() - 1);
                let n = (1 + rng.below(64) as usize).min(v.len() - i);
                let run = v[i..i + n].to_vec();
                for _ in 0..=rng.below(8) {
                    v.splice(i..i, run.iter().copied());
                }
            }
            4 => {
                let i = at(rng, v.len());
                let depth = 1 + rng.below(3000) as usize;
                let open = *rng.pick(b"([{!-");
                v.splice(i..i, std::iter::repeat_n(open, depth));
            }
            5 => v.truncate(at(rng, v.len())),
            6 if !other.is_empty() => {
                let i = at(rng, v.len());
                let j = at(rng, other.len() - 1);
                let n = (rng.below(256) as usize).min(other.len() - j);
                v.splice(i..i, other[j..j + n].iter().copied());
            }
            _ => {
                let i = at(rng, v.len());
                let big = *rng.pick(&[
                    &b"99999999999999999999999"[..],
                    b"-1",
                    b"4294967296",
                    b"1e309",
                    b"NaN",
                    b"\xEF\xBB\xBF",
                ]);
                v.splice(i..i, big.iter().copied());
            }
        }
    }
    v
}

fn run_target(name: &str, body: fn(&[u8])) {
    let seeds = seeds(name);
    let mut rng = SplitMix64::new(0x5EED ^ name.len() as u64);
    let mut inputs: Vec<Vec<u8>> = seeds.clone();
    for (k, seed) in seeds.iter().enumerate() {
        let other = &seeds[(k + 1) % seeds.len()];
        for _ in 0..MUTATIONS {
            inputs.push(mutate(&mut rng, seed, other));
        }
    }
    for input in &inputs {
        let caught = std::panic::catch_unwind(|| body(input));
        if caught.is_err() {
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("crash-{name}"));
            std::fs::write(&out, input).expect("write the crashing input");
            panic!("{name} panicked on the input written to {}", out.display());
        }
    }
}

#[test]
fn every_target_survives_its_corpus_and_mutations() {
    // Run in threads with room for the parsers' nesting limits to be what stops deep inputs.
    let handles: Vec<_> = TARGETS
        .iter()
        .map(|&(name, body)| {
            std::thread::Builder::new()
                .name(name.into())
                .stack_size(8 << 20)
                .spawn(move || run_target(name, body))
                .expect("spawn")
        })
        .collect();
    let failed: Vec<_> = handles
        .into_iter()
        .zip(TARGETS)
        .filter_map(|(h, (name, _))| h.join().is_err().then_some(*name))
        .collect();
    assert!(failed.is_empty(), "targets that panicked: {failed:?}");
}
