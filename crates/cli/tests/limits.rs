//! Limits a run is held to, measured in a child process: the default memory limit is within
//! the process's address-space limit (`ulimit -v`), a cluster peer that never connects is an
//! error naming it once `--connect-timeout` has passed, and a spec whose method has thousands
//! of parameters is refused at once, before its rules are translated.

mod common;

use common::{hindsight, root, temp};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[cfg(unix)]
#[test]
fn the_default_memory_limit_is_within_the_address_space_limit() {
    // In KiB, as `ulimit -v` counts.
    let kib: u64 = 4_000_000;
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec \"$0\" cuts examples/cuts/fig1.txt --count --format json"
        ))
        .arg(env!("CARGO_BIN_EXE_hindsight"))
        .current_dir(root())
        .output()
        .expect("sh");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let limit = v["summary"]["memory_limit"].as_u64().expect("memory_limit");
    // Half of the address space at most (the rest holds the input, stacks and arenas).
    assert!(limit <= kib * 1024 / 2, "{limit}");
    assert!(limit > 0);
}

#[test]
fn a_cluster_peer_that_never_connects_is_an_error_naming_it() {
    // A port nobody listens on once this listener is dropped.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mine = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let (silent_port, my_port) = (
        silent.local_addr().unwrap().port(),
        mine.local_addr().unwrap().port(),
    );
    drop((silent, mine));
    let hosts = temp("silent-peer-hosts.txt");
    let peer = format!("127.0.0.1:{silent_port}");
    std::fs::write(&hosts, format!("{peer}\n127.0.0.1:{my_port}\n")).unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args([
            "cuts",
            "examples/cuts/fig1.txt",
            "--count",
            "--algo",
            "paramount",
            "--processes",
            "2",
            "--process",
            "1",
            "--hostfile",
            hosts.to_str().unwrap(),
            "--connect-timeout",
            "1.5",
        ])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("no connection with the process at {peer}"))
            && stderr.contains("--connect-timeout 1.5 s"),
        "{stderr}"
    );
    assert!(
        elapsed >= Duration::from_millis(1500) && elapsed < Duration::from_secs(60),
        "{elapsed:?}"
    );
    // The default is stated in the help.
    let help = hindsight(&["cuts", "--help"]);
    assert!(
        help.stdout.contains("--connect-timeout") && help.stdout.contains("[default: 30]"),
        "{}",
        help.stdout
    );
}

#[test]
fn a_method_with_thousands_of_parameters_is_refused_at_once() {
    let n = 2000;
    let list = |p: &str| {
        (0..n)
            .map(|i| format!("{p}{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let condition = (0..n)
        .map(|i| format!("a{i} != b{i}"))
        .collect::<Vec<_>>()
        .join(" && ");
    let rule = format!(
        "  commute m({}), m({}) : {condition};\n",
        list("a"),
        list("b")
    );
    // Declared with them, and declared with one but given them in a rule.
    for (declared, line) in [(list("p"), 2), ("x".to_owned(), 3)] {
        let spec = temp(&format!("wide-{line}.spec"));
        std::fs::write(
            &spec,
            format!("object O {{\n  method m({declared});\n{rule}}}\n"),
        )
        .unwrap();
        let started = Instant::now();
        let o = hindsight(&[
            "commute",
            "examples/hosts.txt",
            "--spec",
            spec.to_str().unwrap(),
        ]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        let expected = format!("wide-{line}.spec:{line}:");
        assert!(
            o.stderr.contains(&expected)
                && o.stderr
                    .contains("method `m` has 2000 parameters; at most 8 are supported"),
            "{}",
            o.stderr
        );
        // Refused before any work: a rule over 2000 parameters, if compiled, takes far more
        // than this generous bound, which a loaded machine's slow start cannot reach.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{:?}",
            started.elapsed()
        );
    }
}

/// The peak resident size of `args` run as a child, in KiB, by `/usr/bin/time` (`None`
/// without it), with its standard output.
fn peak_kib(args: &[&str]) -> Option<(u64, i32, String)> {
    let time = std::path::Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = Command::new(time)
        .args(["-f", "peak %M"])
        .arg(env!("CARGO_BIN_EXE_hindsight"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("time");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let peak = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak "))
        .and_then(|n| n.trim().parse().ok())?;
    Some((
        peak,
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

#[test]
fn cuts_all_holds_its_findings_to_the_memory_limit() {
    let poset = temp("all-d120.txt");
    let o = hindsight(&[
        "gen-poset",
        "d-120",
        "--seed",
        "3",
        "-o",
        poset.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let args = [
        "cuts",
        poset.to_str().unwrap(),
        "--predicate",
        "true",
        "--all",
        "--limit",
        "400000",
        "--memory-limit",
        "50M",
        "--format",
        "json",
    ];
    let Some((peak, code, stdout)) = peak_kib(&args) else {
        eprintln!("no /usr/bin/time: the peak is not measured");
        return;
    };
    // Every state satisfies `true`: the first findings, then the limit (each finding lists a
    // schedule of up to 120 events; 400,000 of them took 2.8 GB).
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        v["summary"]["budget_spent"], "memory-limit",
        "{}",
        v["summary"]
    );
    let n = v["findings"].as_array().expect("findings").len();
    assert!(n > 0 && n < 400_000, "{n}");
    // The limit, plus the process itself, the poset and the JSON being written.
    assert!(peak < (50 + 150) * 1024, "peak {peak} KiB");
}
