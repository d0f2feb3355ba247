//! No file a run reads is a file it writes (inputs, `@FILE` arguments, spec, models, exclude
//! and host files, files found in directories, standard input), by any name; a replaced file
//! keeps its permissions and owner; a run ended by a signal leaves no temporary file; and
//! messages about undecodable inputs say where.

mod common;

use common::{hindsight, root, temp};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The temporary outputs (`.NAME.XXXXXX.part`) left in `dir`.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.') && n.ends_with(".part"))
        .collect()
}

fn copy_example(example: &str, dir: &Path, name: &str) -> String {
    let to = dir.join(name);
    std::fs::copy(root().join(example), &to).expect("copy");
    to.to_str().unwrap().to_owned()
}

/// Runs `args`, where `victim` is both read and written: refused (exit 2) before anything is
/// written, the message naming the file read as `read_as` and the output as `written_as`,
/// and `victim` as it was.
fn refused(args: &[&str], victim: &Path, read_as: &str, written_as: &str) {
    let before = read(victim);
    let o = hindsight(args);
    assert_eq!(o.code, 2, "{args:?}: {}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(read_as) && o.stderr.contains(written_as),
        "{args:?}: the message should name {read_as} and {written_as}: {}",
        o.stderr
    );
    assert!(o.stderr.contains("same file"), "{}", o.stderr);
    assert_eq!(
        read(victim),
        before,
        "{args:?} changed {}",
        victim.display()
    );
    assert_eq!(leftovers(victim.parent().unwrap()), Vec::<String>::new());
}

#[test]
fn no_argument_file_is_an_output() {
    let dir = fresh_dir("argument-files");
    let fig1 = copy_example("examples/cuts/fig1.txt", &dir, "fig1.txt");
    let bank = copy_example("examples/bank.std", &dir, "bank.std");
    let p = dir.join("p.txt");
    std::fs::write(&p, "events(t1) > 0\n").unwrap();
    let ps = p.to_str().unwrap();
    let at_p = format!("@{ps}");
    refused(
        &["cuts", &fig1, "--predicate", &at_p, "--html", ps],
        &p,
        ps,
        ps,
    );
    // By another name: a hard link and a symbolic link to the predicate file.
    let hard = dir.join("hard.html");
    std::fs::hard_link(&p, &hard).unwrap();
    let hs = hard.to_str().unwrap();
    refused(
        &["cuts", &fig1, "--predicate", &at_p, "--html", hs],
        &p,
        ps,
        hs,
    );
    #[cfg(unix)]
    {
        let soft = dir.join("soft.html");
        std::os::unix::fs::symlink(&p, &soft).unwrap();
        let ss = soft.to_str().unwrap();
        refused(
            &["cuts", &fig1, "--predicate", &at_p, "--html", ss],
            &p,
            ps,
            ss,
        );
    }
    // reach's predicate file.
    let reach = copy_example("examples/reach/fig5_2.txt", &dir, "reach.txt");
    let rp = dir.join("rp.txt");
    std::fs::write(&rp, "count(op == acq) >= 0\n").unwrap();
    let rps = rp.to_str().unwrap();
    refused(
        &[
            "reach",
            &reach,
            "--predicate",
            &format!("@{rps}"),
            "--html",
            rps,
        ],
        &rp,
        rps,
        rps,
    );
    // The RoadRunner exclude file, for a report and for `convert`'s output.
    let ex = dir.join("exclude.txt");
    std::fs::write(&ex, "java.lang\n").unwrap();
    let exs = ex.to_str().unwrap();
    refused(
        &["races", &bank, "--rr-exclude", exs, "--html", exs],
        &ex,
        exs,
        exs,
    );
    refused(&["convert", &bank, exs, "--rr-exclude", exs], &ex, exs, exs);
    // `gen` reads no RoadRunner log: the option itself is refused there, the file untouched.
    let before = read(&ex);
    let o = hindsight(&["gen", "--events", "10", "-o", exs, "--rr-exclude", exs]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert_eq!(read(&ex), before);
    // A commutativity spec, by `commute` and by `check`.
    let spec = copy_example("crates/stream/specs/map.spec", &dir, "map.spec");
    let hosts = copy_example("examples/hosts.txt", &dir, "hosts.txt");
    refused(
        &["commute", &hosts, "--spec", &spec, "--html", &spec],
        Path::new(&spec),
        &spec,
        &spec,
    );
    refused(
        &[
            "check",
            &hosts,
            "--analyses",
            "commute",
            "--spec",
            &spec,
            "--html",
            &spec,
        ],
        Path::new(&spec),
        &spec,
        &spec,
    );
    // A cluster's host file.
    let hostfile = dir.join("cluster.txt");
    std::fs::write(&hostfile, "127.0.0.1:40999\n").unwrap();
    let hf = hostfile.to_str().unwrap();
    refused(
        &[
            "cuts",
            &fig1,
            "--algo",
            "paramount",
            "--processes",
            "1",
            "--process",
            "0",
            "--hostfile",
            hf,
            "--html",
            hf,
        ],
        &hostfile,
        hf,
        hf,
    );
}

#[test]
fn no_java_file_or_model_table_is_an_output() {
    let dir = fresh_dir("java-files");
    let java = dir.join("src");
    std::fs::create_dir_all(java.join("deep")).unwrap();
    let a = java.join("deep/A.java");
    std::fs::write(
        &a,
        "class A { int x; synchronized int get() { return x; } }\n",
    )
    .unwrap();
    let js = java.to_str().unwrap();
    let a_s = a.to_str().unwrap();
    // A file found by walking the directory, for `views` and `composed`.
    refused(&["views", js, "--html", a_s], &a, a_s, a_s);
    refused(&["composed", js, "--html", a_s], &a, a_s, a_s);
    let models = dir.join("models.txt");
    std::fs::write(&models, "Journal length read\n").unwrap();
    let ms = models.to_str().unwrap();
    refused(
        &["views", js, "--models", ms, "--html", ms],
        &models,
        ms,
        ms,
    );
}

/// Runs `args` with standard input read from the file `stdin`.
fn with_stdin_file(args: &[&str], stdin: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(args)
        .stdin(Stdio::from(std::fs::File::open(stdin).unwrap()))
        .output()
        .expect("run");
    (
        out.status.code().expect("code"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn standard_input_redirected_from_an_output_is_refused() {
    let dir = fresh_dir("stdin-file");
    let a = PathBuf::from(copy_example("examples/bank.std", &dir, "a.std"));
    let before = read(&a);
    let s = a.to_str().unwrap();
    for args in [
        &["races", "-", "--html", s][..],
        &["convert", "-", s][..],
        &["cuts", "-", "--predicate", "race", "--html", s][..],
    ] {
        let (code, stderr) = with_stdin_file(args, &a);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("<stdin>") && stderr.contains(s),
            "{args:?}: {stderr}"
        );
        assert_eq!(read(&a), before, "{args:?}");
    }
    // Standard input from another file is read as usual.
    let other = copy_example("examples/bank.std", &dir, "b.std");
    let (code, stderr) = with_stdin_file(&["convert", "-", s], Path::new(&other));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        read(&a),
        hindsight(&["convert", &other, "-"]).stdout.as_bytes()
    );
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions_and_owner() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = fresh_dir("replaced");
    for (mode, name) in [
        (0o600, "private.std"),
        (0o640, "group.hst"),
        (0o755, "x.std"),
    ] {
        let target = dir.join(name);
        std::fs::write(&target, "old").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
        let o = hindsight(&["gen", "--events", "50", "-o", target.to_str().unwrap()]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_ne!(read(&target), b"old");
        let now = std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777;
        assert_eq!(now, mode, "{name}: {now:o}");
    }
    // Giving a file away needs root: elsewhere the owner cannot be kept, and is not checked.
    let target = dir.join("theirs.std");
    std::fs::write(&target, "old").unwrap();
    if std::fs::metadata(&target).unwrap().uid() != 0 {
        eprintln!("not root: the owner of a replaced file is not checked");
        return;
    }
    let status = Command::new("chown")
        .args(["4321:4322", target.to_str().unwrap()])
        .status()
        .expect("chown");
    assert!(status.success());
    let o = hindsight(&["gen", "--events", "50", "-o", target.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let meta = std::fs::metadata(&target).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4321, 4322));
    assert_ne!(read(&target), b"old");
}

/// `gen` writing a large trace over `target`, ended by `signal` once its temporary file is
/// there: the process ends by that signal, the temporary file is gone, the target as it was.
#[cfg(unix)]
fn ended_by(signal: &str, number: i32, command: &[&str], dir: &Path, target: &Path) {
    use std::os::unix::process::ExitStatusExt;
    std::fs::write(target, "the earlier output").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(command)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run");
    let started = std::time::Instant::now();
    while leftovers(dir).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "{command:?} ended before its temporary file was seen"
        );
        assert!(started.elapsed().as_secs() < 60, "no temporary file");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Some of the output written, so that the temporary file is not empty (short: the run
    // must still be writing when the signal comes).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let status = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.signal(),
        Some(number),
        "{signal}: {:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(leftovers(dir), Vec::<String>::new(), "{signal}");
    assert_eq!(read(target), b"the earlier output", "{signal}");
}

#[cfg(unix)]
#[test]
fn a_signal_leaves_no_temporary_file() {
    let dir = fresh_dir("signals");
    let big = dir.join("big.hst");
    let b = big.to_str().unwrap();
    let gen = ["gen", "--events", "200000000", "--threads", "8", "-o", b];
    for (name, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
        ended_by(name, number, &gen, &dir, &big);
    }
    // `convert`, from a trace big enough to take a while, to text and to RAPID's format.
    let source = fresh_dir("signals-source").join("source.hst");
    let o = hindsight(&["gen", "--events", "3000000", "-o", source.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = dir.join("out.std");
    let s = source.to_str().unwrap();
    let o_s = out.to_str().unwrap();
    ended_by("TERM", 15, &["convert", s, o_s], &dir, &out);
    ended_by("INT", 2, &["convert", s, o_s, "--to", "rapid"], &dir, &out);
}
