//! `hindsight cuts --processes`: two processes of two workers each on localhost give the same
//! counts, first states and states of `--all` as one process; bad cluster options and host
//! files are errors with their line (exit status 2).

mod common;

use common::*;
use serde_json::Value;
use std::net::TcpListener;
use std::process::{Command, Stdio};

/// Two free ports on localhost: each bound by the system, then released just before use.
fn free_ports() -> [u16; 2] {
    let a = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let b = TcpListener::bind("127.0.0.1:0").expect("a free port");
    [a, b].map(|l| l.local_addr().expect("bound").port())
}

/// The JSON report in a process's standard output (timely dataflow prints its connection
/// messages there before it).
fn report(stdout: &str) -> Value {
    let at = stdout
        .find("\n{")
        .map(|i| i + 1)
        .or_else(|| stdout.starts_with('{').then_some(0))
        .unwrap_or_else(|| panic!("no JSON report in {stdout}"));
    serde_json::from_str(&stdout[at..]).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// Runs `cuts args` as 2 processes of 2 workers on localhost: both exit statuses and reports.
fn two_processes(args: &[&str]) -> Vec<(i32, Value)> {
    let ports = free_ports();
    let hosts = write_temp(
        &format!("hosts-{}-{}", ports[0], ports[1]),
        &format!("127.0.0.1:{}\n127.0.0.1:{}\n", ports[0], ports[1]),
    );
    let children: Vec<_> = (0..2)
        .map(|i| {
            let child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
                .arg("cuts")
                .args(args)
                .args(["--algo", "paramount", "--threads", "2", "--format", "json"])
                .args([
                    "--processes",
                    "2",
                    "--process",
                    &i.to_string(),
                    "--hostfile",
                    &hosts,
                ])
                .current_dir(root())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run hindsight");
            // Process 0 listens first, so process 1's first connection is accepted.
            std::thread::sleep(std::time::Duration::from_millis(200));
            child
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().expect("wait");
            let stdout = String::from_utf8(out.stdout).expect("utf-8");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code().expect("exit code");
            assert!(code != 2, "{stdout}\n{stderr}");
            (code, report(&stdout))
        })
        .collect()
}

/// What must be the same: the findings' frontiers and the counts (the states a first-state
/// search enumerated before it stopped depend on the workers' timing, even in one process).
fn answer(v: &Value) -> Value {
    let s = &v["summary"];
    let complete = s["complete"] == Value::Bool(true);
    serde_json::json!({
        "frontiers": v["findings"].as_array().map(|f| f.iter().map(|f| f["frontier"].clone()).collect::<Vec<_>>()),
        "states": if complete { s["states"].clone() } else { Value::Null },
        "satisfying": s["satisfying"],
        "complete": s["complete"],
    })
}

#[test]
fn two_processes_of_two_workers_agree_with_one_process() {
    let poset = temp("cluster-d-60.poset");
    let gen = hindsight(&[
        "gen-poset",
        "d-60",
        "--seed",
        "5",
        "-o",
        poset.to_str().unwrap(),
    ]);
    assert_eq!(gen.code, 0, "{}", gen.stderr);
    let poset = poset.to_str().unwrap();
    let elevator = "examples/cuts/elevator.txt";
    let floors = "count(method == at by arg0, arg1) >= 3";
    let cases: Vec<Vec<&str>> = vec![
        vec![poset, "--count"],
        vec![poset, "--predicate", "true", "--all", "--max-states", "7"],
        vec![elevator, "--predicate", floors],
        vec![elevator, "--predicate", floors, "--count"],
        vec![
            elevator,
            "--predicate",
            "exists(method == at)",
            "--all",
            "--max-states",
            "1000",
        ],
        vec![elevator, "--predicate", "count(method == at) >= 9"],
    ];
    for case in cases {
        let mut one = vec!["cuts"];
        one.extend(case.iter().copied());
        one.extend(["--algo", "paramount", "--threads", "2"]);
        let (code, expected) = json(&one);
        let both = two_processes(&case);
        for (i, (c, v)) in both.iter().enumerate() {
            assert_eq!(*c, code, "{case:?}: process {i}");
            assert_eq!(answer(v), answer(&expected), "{case:?}: process {i}");
            assert_eq!(v["summary"]["cluster_processes"], 2);
        }
        assert!(expected["summary"]["states"].as_u64().unwrap() > 0);
    }
}

#[test]
fn bad_cluster_options_are_errors() {
    let good = write_temp("hosts-good", "127.0.0.1:1\n# the second\n127.0.0.1:2\n");
    let bad_line = write_temp("hosts-bad", "127.0.0.1:1\nnode2\n");
    let bad_port = write_temp("hosts-port", "127.0.0.1:1\nnode2:99999\n");
    let short = write_temp("hosts-short", "127.0.0.1:1\n");
    let fig = "examples/cuts/fig1.txt";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![
                fig,
                "--count",
                "--algo",
                "paramount",
                "--processes",
                "2",
                "--process",
                "0",
                "--hostfile",
                &bad_line,
            ],
            format!("{bad_line}:2"),
        ),
        (
            vec![
                fig,
                "--count",
                "--algo",
                "paramount",
                "--processes",
                "2",
                "--process",
                "0",
                "--hostfile",
                &bad_port,
            ],
            format!("{bad_port}:2"),
        ),
        (
            vec![
                fig,
                "--count",
                "--algo",
                "paramount",
                "--processes",
                "2",
                "--process",
                "0",
                "--hostfile",
                &short,
            ],
            format!("{short}:1"),
        ),
        (
            vec![
                fig,
                "--count",
                "--processes",
                "2",
                "--process",
                "0",
                "--hostfile",
                &good,
            ],
            "--algo paramount".to_owned(),
        ),
        (
            vec![
                fig,
                "--count",
                "--algo",
                "paramount",
                "--processes",
                "2",
                "--process",
                "2",
                "--hostfile",
                &good,
            ],
            "--process 2".to_owned(),
        ),
        (
            vec![
                fig,
                "--count",
                "--algo",
                "paramount",
                "--processes",
                "2",
                "--process",
                "0",
            ],
            "--hostfile".to_owned(),
        ),
    ];
    for (args, says) in cases {
        let mut all = vec!["cuts"];
        all.extend(args.iter().copied());
        let out = hindsight(&all);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(&says), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
}
