//! Inputs of the wrong kind given to a trace command: exit 2, naming the command that reads
//! them, whether they come by name or on standard input.

mod common;

use common::{hindsight, hindsight_stdin};

#[test]
fn histories_posets_and_programs_name_the_command_that_reads_them() {
    let history = "use `hindsight lin`";
    let poset = "use `hindsight cuts`";
    let program = "use `hindsight views`";
    for (input, says) in [
        ("examples/register.edn", history),
        ("examples/register.jsonl", history),
        ("examples/cuts/fig2.poset", poset),
        ("examples/views/account.mv", program),
        ("examples/composed/paper.java", program),
    ] {
        for command in ["races", "atomicity", "stats"] {
            let out = hindsight(&[command, input]);
            assert_eq!(out.code, 2, "{command} {input}: {}", out.stdout);
            assert!(
                out.stderr
                    .starts_with(&format!("{input}: error: this looks like"))
                    && out.stderr.contains(says),
                "{command} {input}: {}",
                out.stderr
            );
        }
        let text = std::fs::read(common::root().join(input)).expect("example");
        let out = hindsight_stdin(&["races", "-"], Some(&text));
        assert_eq!(out.code, 2, "stdin {input}");
        assert!(out.stderr.contains(says), "stdin {input}: {}", out.stderr);
    }
}

#[test]
fn a_knossos_vector_is_a_history_not_a_roadrunner_log() {
    let out = hindsight_stdin(
        &["races", "-"],
        Some(b"[{:process 0, :type :invoke, :f :read, :value nil}\n {:process 0, :type :ok, :f :read, :value nil}]\n"),
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("use `hindsight lin`"), "{}", out.stderr);
}
