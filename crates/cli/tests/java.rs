//! `hindsight record -- java ...` end to end: every program of `examples/java` is compiled,
//! recorded with the agent and analysed; each finding's source lines are the lines the
//! program marks `// finding`, and each fixed twin has none. Every happens-before edge the
//! agent writes has a program whose race disappears with it (and comes back with the agent
//! option that drops that edge). Skipped where no JDK or no agent is built, unless
//! `HINDSIGHT_REQUIRE_JAVA=1` (CI), where that is a failure.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The compiled examples, or `None` (after saying why) where Java cannot run here.
fn classes() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let required = std::env::var_os("HINDSIGHT_REQUIRE_JAVA").is_some_and(|v| v == "1");
        let javac = Command::new("javac").arg("-version").output();
        let why = if !hindsight_java::agent_built() {
            "this build has no Java agent (no JDK or libasm-java at build time)"
        } else if !javac.is_ok_and(|o| o.status.success()) {
            "no javac"
        } else {
            let dir = temp("java-classes");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("examples/java"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "java"))
                .collect();
            sources.sort();
            let out = Command::new("javac")
                .arg("-d")
                .arg(&dir)
                .args(&sources)
                .output()
                .expect("javac");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            return Some(dir);
        };
        assert!(!required, "HINDSIGHT_REQUIRE_JAVA=1 but {why}");
        eprintln!("skipped: {why}");
        None
    })
    .as_deref()
}

/// Runs `record OPTIONS --out TRACE -- java -cp CLASSES CLASS`, however it ends: what it
/// printed, and the trace's path (`TRACE` in the test's folder, removed first).
fn record_run(class: &str, options: &[&str], trace: &str) -> (Out, String) {
    let dir = classes().expect("checked by the caller");
    let out = temp(trace);
    let _ = std::fs::remove_file(&out);
    let out = out.to_str().unwrap().to_string();
    let mut args = vec!["record"];
    args.extend(options);
    args.extend(["--out", &out, "--", "java", "-Xshare:off", "-cp"]);
    args.extend([dir.to_str().unwrap(), class]);
    (hindsight(&args), out)
}

/// Records `class` with the agent options; the trace's path.
fn record(class: &str, agent: &[&str]) -> String {
    let dir = classes().expect("checked by the caller");
    let out = temp(&format!("{class}-{}.hst", agent.join("-")));
    let out = out.to_str().unwrap().to_string();
    let cp = dir.to_str().unwrap();
    let mut args = vec!["record", "--out", &out];
    for a in agent {
        args.extend(["--agent", a]);
    }
    args.extend(["--", "java", "-Xshare:off", "-cp", cp, class]);
    let r = hindsight(&args);
    assert_eq!(r.code, 0, "{class}: {}", r.stderr);
    // A recorded program's `@Atomic` methods are blocks and its `synchronized` code lock
    // regions: `views` looks at both only when asked, so the hint asks.
    assert!(
        r.stderr.contains("hindsight: next: hindsight check")
            && r.stderr.contains("hindsight views --regions both"),
        "{}",
        r.stderr
    );
    out
}

/// The source lines of every event of every finding of `analysis` on the trace, and the
/// exit status.
fn finding_lines(analysis: &[&str], trace: &str, file: &str) -> (i32, BTreeSet<u32>) {
    let mut args = analysis.to_vec();
    args.push(trace);
    let (code, v) = json(&args);
    let mut lines = BTreeSet::new();
    for f in v["findings"].as_array().expect("findings") {
        for e in f["events"].as_array().expect("events") {
            let loc = e["location"].as_str().expect("every event has a location");
            let (name, line) = loc.rsplit_once(':').expect("File.java:line");
            assert_eq!(name, file, "{loc}");
            lines.insert(line.parse().expect("a line number"));
        }
    }
    (code, lines)
}

/// The lines of `class`'s source carrying `marker` (`// finding`, not its longer variants).
fn marked(class: &str, marker: &str) -> BTreeSet<u32> {
    let text = std::fs::read_to_string(root().join(format!("examples/java/{class}.java"))).unwrap();
    text.lines()
        .zip(1..)
        .filter(|(l, _)| l.trim_end().ends_with(marker))
        .map(|(_, n)| n)
        .collect()
}

/// The program's finding is at exactly its marked lines; its twin has none.
fn found_and_twin_clean(analysis: &[&str], class: &str, twin: &str) {
    let Some(_) = classes() else { return };
    let trace = record(class, &[]);
    let (code, lines) = finding_lines(analysis, &trace, &format!("{class}.java"));
    assert_eq!(code, 1, "{class}: {analysis:?} finds it");
    assert_eq!(lines, marked(class, "// finding"), "{class}");
    let trace = record(twin, &[]);
    let (code, lines) = finding_lines(analysis, &trace, &format!("{twin}.java"));
    assert_eq!((code, lines), (0, BTreeSet::new()), "{twin}: {analysis:?}");
}

/// `class` has no race with the agent's edges, and races at `lines` without `option`'s.
fn edge_hides_race(class: &str, option: &str, lines: &[u32]) {
    let Some(_) = classes() else { return };
    let file = format!("{class}.java");
    let trace = record(class, &[]);
    assert_eq!(
        finding_lines(&["races"], &trace, &file),
        (0, BTreeSet::new()),
        "{class}"
    );
    let trace = record(class, &[option]);
    let (code, got) = finding_lines(&["races"], &trace, &file);
    assert_eq!(code, 1, "{class} with {option}");
    assert_eq!(
        got,
        lines.iter().copied().collect(),
        "{class} with {option}"
    );
}

#[test]
fn a_data_race_is_found_at_its_lines() {
    found_and_twin_clean(&["races"], "Race", "RaceFixed");
}

#[test]
fn a_flag_without_volatile_races() {
    found_and_twin_clean(&["races"], "PublishBroken", "Publish");
}

#[test]
fn reading_before_the_future_completes_races() {
    found_and_twin_clean(&["races"], "HandoffBroken", "Handoff");
}

#[test]
fn reading_before_the_join_races() {
    found_and_twin_clean(&["races"], "StartJoinBroken", "StartJoin");
}

#[test]
fn threads_started_in_a_loop_race_on_a_plain_total_not_on_an_atomic() {
    found_and_twin_clean(&["races"], "Loop", "LoopFixed");
}

#[test]
fn an_atomic_method_taking_its_lock_twice_is_a_violation() {
    found_and_twin_clean(&["atomicity"], "Transfer", "TransferFixed");
}

#[test]
fn wcp_and_syncp_predict_a_race_happens_before_misses() {
    found_and_twin_clean(&["races", "--model", "wcp"], "Predict", "PredictFixed");
    found_and_twin_clean(&["races", "--model", "syncp"], "Predict", "PredictFixed");
    let Some(_) = classes() else { return };
    let trace = record("Predict", &[]);
    assert_eq!(
        finding_lines(&["races"], &trace, "Predict.java"),
        (0, BTreeSet::new())
    );
}

#[test]
fn a_lost_update_across_two_synchronized_methods_is_a_stale_value() {
    found_and_twin_clean(&["views"], "Counter", "CounterFixed");
}

#[test]
fn state_inside_a_jdk_list_read_through_a_field_is_a_stale_value() {
    found_and_twin_clean(&["views"], "Inventory", "InventoryFixed");
    // Its `StringBuffer`, appended to outside any region by both threads, is atomic.
    let trace = record("Inventory", &[]);
    assert_eq!(
        finding_lines(&["races"], &trace, "Inventory.java"),
        (0, BTreeSet::new())
    );
}

#[test]
fn appends_to_a_shared_string_builder_race_and_to_a_string_buffer_do_not() {
    found_and_twin_clean(&["races"], "Journal", "JournalFixed");
}

#[test]
fn a_check_then_act_on_a_concurrent_map_is_a_commutativity_race() {
    found_and_twin_clean(&["commute", "--builtin", "map"], "Cache", "CacheFixed");
}

#[test]
fn monitors_order_critical_sections() {
    edge_hides_race("RaceFixed", "no-lock-edges", &[10]);
}

#[test]
fn a_volatile_write_happens_before_the_read_that_sees_it() {
    edge_hides_race("Publish", "no-volatile-edges", &[13, 16]);
}

#[test]
fn a_submit_happens_before_its_task_and_the_task_before_get() {
    edge_hides_race("Handoff", "no-executor-edges", &[15, 17, 20, 21, 23]);
}

#[test]
fn a_start_happens_before_the_thread_and_the_thread_before_join() {
    edge_hides_race("StartJoin", "no-join-edges", &[10, 13]);
    edge_hides_race("StartJoin", "no-fork-edges", &[9, 10]);
}

#[test]
fn a_single_threaded_program_records_the_same_trace_twice() {
    let Some(_) = classes() else { return };
    let a = std::fs::read(record("Single", &[])).unwrap();
    let b = std::fs::read(record("Single", &["include=Single"])).unwrap();
    assert_eq!(a, b);
    let text = hindsight(&["convert", &record("Single", &[]), "/dev/stdout"]).stdout;
    // Every event has its thread and a location; volatile, atomic, monitor and map events
    // are all there.
    for op in [
        "acq(Single@1)",
        "rel(Single@1)",
        "w(int[]@2[3])",
        "astore(Single.version@1)",
        "rcv(Single.version@1)",
        "rmw(AtomicInteger@3)",
        "call(ConcurrentHashMap@4.put(3,\"v9\")/nil)",
    ] {
        assert!(
            text.contains(&format!("main|{op}|Single.java:")),
            "{op}\n{text}"
        );
    }
    // put re-enters the monitor twice (touch, and a block in it): one pair per put.
    assert_eq!(text.matches("|acq(Single@1)|").count(), 4, "{text}");
    assert_eq!(text.matches("|rel(Single@1)|").count(), 4, "{text}");
    for line in text.lines() {
        assert!(line.starts_with("main|"), "{line}");
        assert!(line.contains("|Single.java:"), "{line}");
    }
}

#[test]
fn a_jvm_stopped_without_its_hooks_leaves_a_readable_prefix() {
    if classes().is_none() {
        return;
    }
    let (r, out) = record_run("Halt", &[], "Halt.hst");
    let out = out.as_str();
    assert_eq!(r.code, 3, "the JVM's exit status: {}", r.stderr);
    assert!(
        r.stderr
            .contains("warning: the JVM stopped before the trace was complete"),
        "{}",
        r.stderr
    );
    let s = hindsight(&["stats", out]);
    assert_eq!(s.code, 0, "{}", s.stderr);
    let partials = std::fs::read_dir(Path::new(out).parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .to_string_lossy()
                .contains("Halt.hst.")
        })
        .count();
    assert_eq!(partials, 0, "the partial file is gone");
}

/// `record --timeout` stops a program that would run on (Sleeper sleeps a minute after its
/// writes) as `kill` does: the shutdown hook writes the whole trace, the exit status is 3.
/// `--max-trace` stops one that never ends (Spinner) once its trace holds that much.
#[test]
fn record_limits_stop_the_program_and_keep_a_whole_trace() {
    if classes().is_none() {
        return;
    }
    let start = std::time::Instant::now();
    // Long enough for a loaded machine to start the JVM and run the program's loop before the
    // limit (with one second, a run under load was stopped before its first record), far
    // below its minute of sleep.
    let (r, out) = record_run("Sleeper", &["--timeout", "15"], "Sleeper-timeout.hst");
    let out = out.as_str();
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("stopped: the program ran past --timeout 15"),
        "{}",
        r.stderr
    );
    // Far below the program's minute of sleep (the JVM's start and hooks on a loaded machine
    // take seconds, not forty).
    assert!(start.elapsed().as_secs() < 55, "{:?}", start.elapsed());
    let writes = hindsight(&["stats", out, "--format", "json"]);
    assert_eq!(writes.code, 0, "{}", writes.stderr);
    let v: serde_json::Value = serde_json::from_str(&writes.stdout).unwrap();
    assert!(v["events"].as_u64().unwrap() >= 2000, "{v}");

    let (r, out) = record_run("Spinner", &["--max-trace", "2M"], "Spinner-max.hst");
    let out = out.as_str();
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("its trace reached 2097152 bytes"),
        "{}",
        r.stderr
    );
    let size = std::fs::metadata(out).unwrap().len();
    assert!(size >= 2 << 20, "{size}");
    let s = hindsight(&["stats", out]);
    assert_eq!(s.code, 0, "{}", s.stderr);
}

/// A map call on null throws the program's own exception under the agent (the agent's map
/// model asked the null map for its class first: MoTH's Jigsaw died inside the agent).
#[test]
fn a_map_call_on_null_throws_the_programs_exception() {
    if classes().is_none() {
        return;
    }
    let (r, _) = record_run("NullMap", &[], "NullMap.hst");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("caught: Cannot invoke \"java.util.Map.put("),
        "{}",
        r.stdout
    );
}

#[test]
fn record_without_a_command_or_with_a_bad_output_is_an_error() {
    let r = hindsight(&["record"]);
    assert_eq!(r.code, 2);
    if hindsight_java::agent_built() {
        let r = hindsight(&["record", "--out", "a,b.hst", "--", "java", "X"]);
        assert_eq!(r.code, 2);
        assert!(r.stderr.contains("cannot hold a comma"), "{}", r.stderr);
        let r = hindsight(&["record", "--out", "no/such/dir/t.hst", "--", "java", "X"]);
        assert_eq!(r.code, 2);
        assert!(r.stderr.contains("there is no folder"), "{}", r.stderr);
    } else {
        let r = hindsight(&["record", "--", "java", "X"]);
        assert_eq!(r.code, 2);
        assert!(r
            .stderr
            .contains("apt-get install default-jdk-headless libasm-java"));
    }
}

/// The lines of `class`'s source whose `// without A B ...` marker names `option`.
fn marked_without(class: &str, option: &str) -> BTreeSet<u32> {
    let text = std::fs::read_to_string(root().join(format!("examples/java/{class}.java"))).unwrap();
    text.lines()
        .zip(1..)
        .filter(|(l, _)| {
            l.split_once("// without ")
                .is_some_and(|(_, opts)| opts.split_whitespace().any(|o| o == option))
        })
        .map(|(_, n)| n)
        .collect()
}

/// `class` races nowhere; without each option's edges, exactly at the lines marked with it.
fn hand_offs(class: &str, options: &[&str]) {
    let Some(_) = classes() else { return };
    let file = format!("{class}.java");
    let trace = record(class, &[]);
    assert_eq!(
        finding_lines(&["races"], &trace, &file),
        (0, BTreeSet::new())
    );
    for option in options {
        let expected = marked_without(class, option);
        assert!(expected.len() >= 2, "{option}");
        let trace = record(class, &[option]);
        let (code, got) = finding_lines(&["races"], &trace, &file);
        assert_eq!((code, got), (1, expected), "{class} without {option}");
    }
}

#[test]
fn every_synchronizer_orders_its_hand_off() {
    hand_offs(
        "Handoffs",
        &[
            "no-message-edges",
            "no-lock-edges",
            "no-volatile-edges",
            "no-executor-edges",
        ],
    );
}

#[test]
fn a_stamped_lock_orders_writers_and_readers_after_writers() {
    hand_offs("Stamped", &["no-message-edges", "no-lock-edges"]);
}

#[test]
fn atomic_blocks_come_from_any_atomic_annotation_and_optionally_synchronized_methods() {
    let Some(_) = classes() else { return };
    let trace = record("Blocks", &[]);
    let (code, lines) = finding_lines(&["atomicity"], &trace, "Blocks.java");
    assert_eq!((code, lines), (1, marked("Blocks", "// finding")));
    let text = hindsight(&["convert", &trace, "/dev/stdout"]).stdout;
    assert!(
        text.contains("|begin(Blocks.deposit)|Blocks.java:"),
        "{text}"
    );
    assert!(!text.contains("begin(Blocks.total)"), "{text}");
    let trace = record("Blocks", &["synchronized-atomic"]);
    let text = hindsight(&["convert", &trace, "/dev/stdout"]).stdout;
    assert!(
        text.contains("main|begin(Blocks.total)|Blocks.java:16"),
        "{text}"
    );
}

#[test]
fn include_and_exclude_choose_the_classes_instrumented() {
    let Some(_) = classes() else { return };
    for (option, races) in [
        ("include=Race", 1),
        ("include=Ra*", 1),
        ("exclude=Race", 0),
        ("include=Other;Race", 1),
        ("include=Other", 0),
    ] {
        let trace = record("Race", &[option]);
        let (code, _) = finding_lines(&["races"], &trace, "Race.java");
        assert_eq!(code, races, "{option}");
    }
}

/// The application's own ASM (Debian's, from the class path) is instrumented and runs beside
/// the agent's, which lives in the agent's class loader: neither sees the other.
#[test]
fn an_application_using_asm_runs_instrumented_beside_the_agents_asm() {
    let Some(dir) = classes() else { return };
    let jars: Vec<String> = ["asm", "asm-tree", "asm-analysis", "asm-util"]
        .iter()
        .map(|j| format!("/usr/share/java/{j}.jar"))
        .collect();
    if !jars.iter().all(|j| Path::new(j).exists()) {
        return;
    }
    let out = temp("textifier.hst");
    let class = dir.join("Race.class");
    let r = hindsight(&[
        "record",
        "--out",
        out.to_str().unwrap(),
        "--",
        "java",
        "-Xshare:off",
        "-cp",
        &jars.join(":"),
        "org.objectweb.asm.util.Textifier",
        class.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("MAXSTACK"), "{}", r.stdout);
    assert!(!r.stderr.contains("not instrumented"), "{}", r.stderr);
    let s = hindsight(&["stats", out.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&s.stdout).unwrap();
    assert!(v["events"].as_u64().unwrap() > 1000, "{v}");
}

#[test]
fn a_lock_order_inversion_is_a_reachable_state_for_reach() {
    let Some(_) = classes() else { return };
    // Both threads forked, each after its first acquisition: the deadlock's door.
    let state = ["reach", "--state", "main=2,left=1,right=1"];
    let trace = record("Inversion", &[]);
    let (code, lines) = finding_lines(&state, &trace, "Inversion.java");
    assert_eq!(code, 1);
    assert!(
        lines.is_superset(&marked("Inversion", "// finding")),
        "{lines:?}"
    );
    let trace = record("InversionFixed", &[]);
    let (code, lines) = finding_lines(&state, &trace, "InversionFixed.java");
    assert_eq!((code, lines), (0, BTreeSet::new()));
}

/// The complete records in an agent's partial file so far (it is being written: the last
/// record may be cut).
fn complete_records(partial: &std::path::Path) -> u64 {
    use hindsight_trace::{BinaryReader, EventSource};
    let Ok(file) = std::fs::File::open(partial) else {
        return 0;
    };
    let mut reader = BinaryReader::new(std::io::BufReader::new(file));
    let mut n = 0;
    while let Ok(true) = reader.advance() {
        n += 1;
    }
    n
}

/// SIGTERM runs the shutdown hook (a complete trace); SIGKILL runs nothing, and `record`
/// salvages the records the agent's timer flushed. The JVM's pid is in its partial file's name.
/// The signal is sent once the partial file holds the program's 2,000 accesses (the agent's
/// timer flushed them), not after a fixed wait, which a loaded machine can outlast: what the
/// hard kill leaves is then the same in every run.
#[test]
fn a_jvm_stopped_by_a_signal_leaves_a_trace() {
    let Some(dir) = classes() else { return };
    for (signal, status, salvaged) in [("TERM", 143, false), ("KILL", 137, true)] {
        let out = temp(&format!("Sleeper-{signal}.hst"));
        let _ = std::fs::remove_file(&out);
        let child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
            .arg("record")
            .arg("--out")
            .arg(&out)
            .args(["--", "java", "-Xshare:off", "-cp"])
            .arg(dir)
            .arg("Sleeper")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let prefix = format!("{}.", out.file_name().unwrap().to_string_lossy());
        let folder = out.parent().unwrap();
        let pid = (0..600)
            .find_map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(100));
                std::fs::read_dir(folder).unwrap().find_map(|e| {
                    let name = e.unwrap().file_name().to_string_lossy().into_owned();
                    let rest = name.strip_prefix(&prefix)?.strip_suffix(".partial")?;
                    rest.parse::<u32>().ok()
                })
            })
            .expect("the agent's partial file");
        // Past the agent's flush of the loop's accesses, so that a hard kill leaves them.
        let partial = folder.join(format!("{prefix}{pid}.partial"));
        let flushed = (0..600).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            complete_records(&partial) >= 2000
        });
        assert!(
            flushed,
            "{signal}: the agent flushed no 2000 records in 60 s"
        );
        // The shell's own kill: a minimal system may have no kill binary.
        let killed = Command::new("sh")
            .arg("-c")
            .arg(format!("kill -{signal} {pid}"))
            .status()
            .unwrap();
        assert!(killed.success());
        let done = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(status), "{signal}: {stderr}");
        assert_eq!(
            stderr.contains("the JVM stopped before the trace was complete"),
            salvaged,
            "{signal}: {stderr}"
        );
        let s = hindsight(&["stats", out.to_str().unwrap(), "--format", "json"]);
        assert_eq!(s.code, 0, "{signal}: {}", s.stderr);
        let v: serde_json::Value = serde_json::from_str(&s.stdout).unwrap();
        assert!(v["events"].as_u64().unwrap() >= 2000, "{signal}: {v}");
    }
}

#[test]
fn analyse_checks_the_trace_after_the_run() {
    let Some(dir) = classes() else { return };
    let out = temp("analysed.hst");
    let cp = dir.to_str().unwrap();
    let r = hindsight(&[
        "record",
        "--analyse",
        "--out",
        out.to_str().unwrap(),
        "--",
        "java",
        "-Xshare:off",
        "-cp",
        cp,
        "Race",
    ]);
    assert_eq!(r.code, 1, "check's status: findings; {}", r.stderr);
    assert!(
        r.stdout.contains("data-race: read of `Race.hits`"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("atomicity: 0 finding(s)"), "{}", r.stdout);
    let r = hindsight(&[
        "record",
        "--analyse",
        "--out",
        out.to_str().unwrap(),
        "--",
        "java",
        "-Xshare:off",
        "-cp",
        cp,
        "RaceFixed",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}
