//! What the end-to-end tests of the `hindsight` binary share: running it from the repository
//! root (so example paths read as in the README and docs/), its JSON output, temporary inputs.

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn hindsight(args: &[&str]) -> Out {
    hindsight_stdin(args, None)
}

pub fn hindsight_stdin(args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(args)
        .current_dir(root())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hindsight");
    if let Some(input) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait");
    Out {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

/// The exit status and the one JSON object printed with `--format json`.
pub fn json(args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = hindsight(&all);
    let v = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", out.stdout, out.stderr));
    (out.code, v)
}

/// A path for a temporary input of this test binary.
pub fn temp(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{}-tests", env!("CARGO_CRATE_NAME")));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Writes a temporary input; its path as an argument.
pub fn write_temp(name: &str, contents: &str) -> String {
    let p = temp(name);
    std::fs::write(&p, contents).expect("write");
    p.to_str().expect("utf-8 path").to_owned()
}
