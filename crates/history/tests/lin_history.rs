//! The history readers: JSON Lines, Jepsen/Knossos EDN and Jepsen's logged form, paired with
//! Jepsen's semantics (`fail` dropped, `info` and missing completions left open, one pending
//! operation per process, nothing after `info`).

use hindsight_history::parse::{
    parse_edn, parse_history, parse_jepsen_log, parse_jsonl, History, Op, Val,
};
use hindsight_syntax::LineError;
use proptest::prelude::*;

fn int(i: i64) -> Val {
    Val::Int(i)
}

fn s(x: &str) -> Val {
    Val::Str(x.to_string())
}

fn list(vs: Vec<Val>) -> Val {
    Val::List(vs)
}

/// (process, f, input, output, invoke, ret) of each operation, checking ids on the way.
/// (process, f, input, output, invoke, ret).
type Summary = (i64, String, Val, Option<Val>, usize, Option<usize>);

fn summary(h: &History) -> Vec<Summary> {
    h.ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            assert_eq!(op.id, i);
            (
                op.process,
                op.f.clone(),
                op.input.clone(),
                op.output.clone(),
                op.invoke,
                op.ret,
            )
        })
        .collect()
}

fn op(
    p: i64,
    f: &str,
    input: Val,
    output: Option<Val>,
    invoke: usize,
    ret: Option<usize>,
) -> Summary {
    (p, f.to_string(), input, output, invoke, ret)
}

fn err(r: Result<History, LineError>) -> LineError {
    match r {
        Ok(h) => panic!("expected an error, got {h:?}"),
        Err(e) => e,
    }
}

// --- JSON Lines --------------------------------------------------------------------------------

#[test]
fn jsonl_register() {
    let text = r#"{"process":0,"type":"invoke","f":"write","value":3}
{"process":1,"type":"invoke","f":"read","value":null}
{"process":0,"type":"ok","f":"write","value":3}

{"process":1,"type":"ok","f":"read","value":3}
{"process":0,"type":"invoke","f":"read"}
{"process":0,"type":"ok","f":"read","value":null,"time":12345}
"#;
    let h = parse_jsonl(text).unwrap();
    assert_eq!(
        summary(&h),
        vec![
            op(0, "write", int(3), Some(int(3)), 0, Some(2)),
            op(1, "read", Val::Nil, Some(int(3)), 1, Some(3)),
            op(0, "read", Val::Nil, Some(Val::Nil), 4, Some(5)),
        ]
    );
    // Lines are 1-based source lines, blank lines included; positions skip them.
    assert_eq!(h.ops[1].invoke_line, 2);
    assert_eq!(h.ops[1].ret_line, Some(5));
    assert_eq!(h.ops[2].invoke_line, 6);
    assert!(h.ops[0].precedes(&h.ops[2]));
    assert!(!h.ops[0].precedes(&h.ops[1]));
    assert_eq!(parse_history(text).unwrap(), h);
}

#[test]
fn jsonl_cas_and_values() {
    let text = r#"{"process":0,"type":"invoke","f":"cas","value":[1,2]}
{"process":0,"type":"ok","f":"cas","value":[1,2]}
{"process":1,"type":"invoke","f":"write","value":[true,false,null,"x",[-7]]}
{"process":1,"type":"ok","f":"write","value":[true,false,null,"x",[-7]]}
"#;
    let h = parse_history(text).unwrap();
    assert_eq!(h.ops[0].input, list(vec![int(1), int(2)]));
    assert_eq!(h.ops[0].output, Some(list(vec![int(1), int(2)])));
    assert_eq!(
        h.ops[1].input,
        list(vec![
            Val::Bool(true),
            Val::Bool(false),
            Val::Nil,
            s("x"),
            list(vec![int(-7)])
        ])
    );
}

#[test]
fn jsonl_kv() {
    let text = r#"{"process":0,"type":"invoke","f":"write","key":"x","value":1}
{"process":1,"type":"invoke","f":"read","key":"y","value":null}
{"process":0,"type":"ok","f":"write","key":"x","value":1}
{"process":1,"type":"ok","f":"read","value":null}
{"process":2,"type":"invoke","f":"read","key":5}
{"process":2,"type":"ok","f":"read","key":5,"value":1}
"#;
    let h = parse_history(text).unwrap();
    assert_eq!(h.ops[0].key, Some(s("x")));
    // A completion without the key keeps the invocation's.
    assert_eq!(h.ops[1].key, Some(s("y")));
    assert_eq!(h.ops[2].key, Some(int(5)));
    let e = err(parse_jsonl(
        r#"{"process":0,"type":"invoke","f":"read","key":"x"}
{"process":0,"type":"ok","f":"read","key":"y","value":1}"#,
    ));
    assert_eq!(e.line, 2);
}

#[test]
fn jsonl_errors() {
    let cases: &[(&str, u64, &str)] = &[
        (
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\"}\n{\"process\":0,",
            2,
            "malformed JSON",
        ),
        (
            "{\"type\":\"invoke\",\"f\":\"read\"}",
            1,
            "missing `process`",
        ),
        ("\n{\"process\":0,\"f\":\"read\"}", 2, "missing `type`"),
        ("{\"process\":0,\"type\":\"invoke\"}", 1, "missing `f`"),
        (
            "{\"process\":0,\"type\":\"done\",\"f\":\"read\"}",
            1,
            "unknown type `done`",
        ),
        (
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"w\",\"value\":1.5}",
            1,
            "64-bit integers",
        ),
        (
            "{\"process\":0,\"type\":\"invoke\",\"f\":\"w\",\"value\":{\"a\":1}}",
            1,
            "objects",
        ),
        (
            "{\"process\":1.5,\"type\":\"invoke\",\"f\":\"w\"}",
            1,
            "integer or a name",
        ),
        (
            "{\"process\":null,\"type\":\"invoke\",\"f\":\"w\"}",
            1,
            "integer or a name",
        ),
        ("[1,2]", 1, "expected a JSON object"),
    ];
    for &(text, line, needle) in cases {
        let e = err(parse_jsonl(text));
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {e}");
    }
}

// --- EDN ---------------------------------------------------------------------------------------

#[test]
fn edn_register_per_line() {
    let text = r#"{:type :invoke, :f :read, :value nil, :process 0, :time 11, :index 0}
{:type :invoke, :f :write, :value 3, :process 1, :time 12, :index 1}
{:type :ok, :f :read, :value nil, :process 0, :time 13, :index 2}
{:process :nemesis, :type :info, :f :start, :value {"n1" #{"n2"}}}
{:type :ok, :f :write, :value 3, :process 1, :time 14, :index 3}
{:type :invoke, :f :read, :value nil, :process 0}
{:type :ok, :f :read, :value 3, :process 0, :error [:foo {:bar 1.5}]}
"#;
    let h = parse_edn(text).unwrap();
    assert_eq!(
        summary(&h),
        vec![
            op(0, "read", Val::Nil, Some(Val::Nil), 0, Some(2)),
            op(1, "write", int(3), Some(int(3)), 1, Some(3)),
            op(0, "read", Val::Nil, Some(int(3)), 4, Some(5)),
        ]
    );
    assert_eq!(h.ops[1].ret_line, Some(5));
    assert_eq!(parse_history(text).unwrap(), h);
}

#[test]
fn edn_cas_keywords_and_lists() {
    let text = r#"{:process 0, :type :invoke, :f :cas, :value [1 2]}
{:process 1, :type :invoke, :f :cas, :value (3 4)}
{:process 0, :type :ok, :f :cas, :value [1 2]}
{:process 1, :type :info, :f :cas, :value :timed-out}
{:process 2 :type :invoke :f "write" :value "text \"quoted\"\n"}
{:process 2 :type :ok :f write :value true}
"#;
    let h = parse_history(text).unwrap();
    assert_eq!(
        summary(&h),
        vec![
            op(
                0,
                "cas",
                list(vec![int(1), int(2)]),
                Some(list(vec![int(1), int(2)])),
                0,
                Some(2)
            ),
            op(1, "cas", list(vec![int(3), int(4)]), None, 1, None),
            op(
                2,
                "write",
                s("text \"quoted\"\n"),
                Some(Val::Bool(true)),
                4,
                Some(5)
            ),
        ]
    );
    assert_eq!(h.ops[1].ret_line, None);
}

#[test]
fn edn_kv() {
    let text = r#"{:process 0, :type :invoke, :f :write, :key :x, :value 1}
{:process 1, :type :invoke, :f :read, :key 7, :value nil}
{:process 0, :type :ok, :f :write, :key :x, :value 1}
{:process 1, :type :ok, :f :read, :key 7, :value 1}
"#;
    let h = parse_history(text).unwrap();
    assert_eq!(h.ops[0].key, Some(s("x")));
    assert_eq!(h.ops[1].key, Some(int(7)));
    assert_eq!(h.ops[1].output, Some(int(1)));
}

#[test]
fn edn_vector_spanning_lines() {
    let text = r#"; a Knossos test history
[{:process 0, :type :invoke, :f :write, :value 1}
 {:process 1,
  :type :invoke,
  :f :read,
  :value nil}
 #_{:process 9 :type :invoke :f :read}
 #jepsen.history.Op{:index 2, :time 5, :type :ok, :process 0, :f :write, :value 1}
 {:process 1, :type :ok, :f :read, :value 1}]
"#;
    let h = parse_history(text).unwrap();
    assert_eq!(
        summary(&h),
        vec![
            op(0, "write", int(1), Some(int(1)), 0, Some(2)),
            op(1, "read", Val::Nil, Some(int(1)), 1, Some(3)),
        ]
    );
    assert_eq!(h.ops[1].invoke_line, 3);
    assert_eq!(h.ops[0].ret_line, Some(8));
    assert_eq!(h.ops[1].ret_line, Some(9));
    // A list works too, and so do sets (as sorted lists).
    let h2 = parse_edn("({:process 0 :type :invoke :f :add :value #{3 1 2}})").unwrap();
    assert_eq!(h2.ops[0].input, list(vec![int(1), int(2), int(3)]));
    assert_eq!(h2.ops[0].output, None);
}

#[test]
fn edn_errors() {
    let cases: &[(&str, u64, &str)] = &[
        (
            "{:process 0 :type :invoke :f :read}\n{:process 1 :type}",
            2,
            "even number",
        ),
        (
            "[{:process 0 :type :invoke :f :read}\n{:process 1 :type :invoke :f :read}",
            1,
            "never closed",
        ),
        (
            "{:process 0 :type :invoke :f :read :value \"abc}",
            1,
            "never closed",
        ),
        ("{:type :invoke :f :read}", 1, "missing `:process`"),
        ("\n{:process 0 :f :read}", 2, "missing `:type`"),
        ("{:process 0 :type :invoke}", 1, "missing `:f`"),
        (
            "{:process 0 :type :crashed :f :read}",
            1,
            "unknown type `crashed`",
        ),
        (
            "{:process 0 :type :invoke :f :w :value 1.5}",
            1,
            "64-bit integers",
        ),
        (
            "{:process 0 :type :invoke :f :w :value 99999999999999999999}",
            1,
            "64-bit integers",
        ),
        ("{:process 0 :type :invoke :f :w :value {:a 1}}", 1, "maps"),
        ("{:process 0 :type :invoke :f 3}", 1, "`:f`"),
        (
            "{:process 0 :process 1 :type :invoke :f :read}",
            1,
            "duplicate",
        ),
        ("{:process 0 :type :invoke :f :read]", 1, "unexpected `]`"),
        ("[1 2]", 1, "expected an operation map"),
        ("]", 1, "unexpected `]`"),
        (
            "{:process 0 :type :invoke :f :read :value @x}",
            1,
            "unexpected",
        ),
    ];
    for &(text, line, needle) in cases {
        let e = err(parse_edn(text));
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(needle), "{text}: {e}");
    }
}

// --- Jepsen's log -----------------------------------------------------------------------------

#[test]
fn jepsen_log_excerpt() {
    let text = include_str!("fixtures/lin/cas-register.log");
    let h = parse_history(text).unwrap();
    assert_eq!(h, parse_jepsen_log(text).unwrap());
    assert_eq!(
        summary(&h),
        vec![
            op(0, "read", Val::Nil, Some(Val::Nil), 0, Some(2)),
            op(1, "write", int(3), Some(int(3)), 1, Some(3)),
            // :info with an error after another tab: open.
            op(2, "cas", list(vec![int(3), int(4)]), None, 4, None),
            // The failed cas of process 0 (positions 5 and 6) is dropped.
            op(1, "read", Val::Nil, Some(int(4)), 8, Some(9)),
            // Never completed: open.
            op(0, "write", int(0), None, 10, None),
            op(7, "read", Val::Nil, None, 11, None),
        ]
    );
    assert_eq!(h.ops[0].invoke_line, 4);
    assert_eq!(h.ops[3].ret_line, Some(16));
    assert_eq!(h.ops[4].invoke_line, 18);
}

#[test]
fn jepsen_log_without_prefix_and_errors() {
    let h = parse_history("0\t:invoke\t:write\t1\n0\t:ok\t:write\t1\n").unwrap();
    assert_eq!(
        summary(&h),
        vec![op(0, "write", int(1), Some(int(1)), 0, Some(1))]
    );
    let e = err(parse_jepsen_log(
        "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t[1 2",
    ));
    assert_eq!(e.line, 2);
    let e = err(parse_jepsen_log(
        "INFO  jepsen.util - 0\t:invoke\t:read\tnil 5",
    ));
    assert!(e.message.contains("after the value"), "{e}");
    let e = err(parse_jepsen_log("INFO  jepsen.util - 0\t:invoke\t7\tnil"));
    assert!(e.message.contains("`f`"), "{e}");
}

// --- Semantics across formats -------------------------------------------------------------------

/// The same history in each format: process 0 writes 1 (ok), process 1 cas fails, process 2
/// reads with unknown outcome, process 3 invokes and never completes.
fn semantics_texts() -> [String; 3] {
    let recs = [
        (0, "invoke", "write", "1"),
        (1, "invoke", "cas", "[1 2]"),
        (2, "invoke", "read", "nil"),
        (0, "ok", "write", "1"),
        (1, "fail", "cas", "[1 2]"),
        (2, "info", "read", "nil"),
        (3, "invoke", "write", "5"),
    ];
    let json = recs
        .iter()
        .map(|(p, t, f, v)| {
            let v = v.replace("nil", "null").replace(' ', ",");
            format!("{{\"process\":{p},\"type\":\"{t}\",\"f\":\"{f}\",\"value\":{v}}}\n")
        })
        .collect();
    let edn = recs
        .iter()
        .map(|(p, t, f, v)| format!("{{:process {p}, :type :{t}, :f :{f}, :value {v}}}\n"))
        .collect();
    let log = recs
        .iter()
        .map(|(p, t, f, v)| format!("INFO  jepsen.util - {p}\t:{t}\t:{f}\t{v}\n"))
        .collect();
    [json, edn, log]
}

#[test]
fn fail_dropped_info_and_missing_open() {
    for text in semantics_texts() {
        let h = parse_history(&text).unwrap();
        assert_eq!(
            summary(&h),
            vec![
                op(0, "write", int(1), Some(int(1)), 0, Some(3)),
                op(2, "read", Val::Nil, None, 2, None),
                op(3, "write", int(5), None, 6, None),
            ],
            "{text}"
        );
        assert_eq!(h.ops[1].ret_line, None);
        // The failed cas is kept apart, for the models that read failures (etcd).
        assert_eq!(h.failed.len(), 1, "{text}");
        let cas = &h.failed[0];
        assert!(cas.failed && cas.f == "cas" && cas.id == 3);
        assert_eq!(cas.output, Some(Val::List(vec![int(1), int(2)])));
        let with = h.with_failed(|_| true);
        assert_eq!(with.ops.len(), 4);
        assert!(with.ops.windows(2).all(|w| w[0].invoke < w[1].invoke));
        assert!(with.ops.iter().enumerate().all(|(i, op)| op.id == i));
    }
}

#[test]
fn pairing_errors_name_lines() {
    let render = |recs: &[(i64, &str, &str)]| -> [String; 3] {
        let json = recs
            .iter()
            .map(|(p, t, f)| format!("{{\"process\":{p},\"type\":\"{t}\",\"f\":\"{f}\"}}\n"))
            .collect();
        let edn = recs
            .iter()
            .map(|(p, t, f)| format!("{{:process {p} :type :{t} :f :{f}}}\n"))
            .collect();
        let log = recs
            .iter()
            .map(|(p, t, f)| format!("INFO  jepsen.util - {p}\t:{t}\t:{f}\tnil\n"))
            .collect();
        [json, edn, log]
    };
    type Case<'a> = (&'a [(i64, &'a str, &'a str)], u64, &'a str);
    let cases: &[Case] = &[
        // A second invocation while one is pending.
        (
            &[
                (0, "invoke", "read"),
                (1, "invoke", "read"),
                (0, "invoke", "write"),
            ],
            3,
            "still pending",
        ),
        // A completion with no pending invocation.
        (
            &[(0, "invoke", "read"), (0, "ok", "read"), (0, "ok", "read")],
            3,
            "no pending",
        ),
        (&[(4, "fail", "read")], 1, "no pending"),
        // Nothing after info.
        (
            &[
                (0, "invoke", "read"),
                (0, "info", "read"),
                (1, "invoke", "read"),
                (0, "invoke", "read"),
            ],
            4,
            "info` on line 2",
        ),
        (
            &[
                (0, "invoke", "read"),
                (0, "info", "read"),
                (0, "ok", "read"),
            ],
            3,
            "no pending",
        ),
        // The completion's function must be the invocation's.
        (&[(0, "invoke", "read"), (0, "ok", "write")], 2, "`read`"),
    ];
    for &(recs, line, needle) in cases {
        for text in render(recs) {
            let e = err(parse_history(&text));
            assert_eq!(e.line, line, "{text}: {e}");
            assert!(e.message.contains(needle), "{text}: {e}");
        }
    }
}

#[test]
fn nemesis_ops_skipped() {
    let json = r#"{"process":"nemesis","type":"info","f":"start","value":{"n1":["n2"]}}
{"process":0,"type":"invoke","f":"read","value":null}
{"process":"nemesis","type":"info","f":"start"}
{"process":0,"type":"ok","f":"read","value":0}
"#;
    let edn = r#"{:process :nemesis, :type :info, :f :start, :value {"n1" #{"n2"}}}
{:process 0, :type :invoke, :f :read, :value nil}
{:process :nemesis, :type :info, :f :start, :value 1.5}
{:process 0, :type :ok, :f :read, :value 0}
"#;
    let log = "INFO  jepsen.util - :nemesis\t:info\t:start\t{\"n1\" #{\"n2\"}}
INFO  jepsen.util - 0\t:invoke\t:read\tnil
INFO  jepsen.util - :nemesis\t:info\t:start\t#object[Foo 0x1 \"bar\"]
INFO  jepsen.util - 0\t:ok\t:read\t0
";
    for text in [json, edn, log] {
        let h = parse_history(text).unwrap();
        // Skipped records are not counted as positions.
        assert_eq!(
            summary(&h),
            vec![op(0, "read", Val::Nil, Some(int(0)), 0, Some(1))],
            "{text}"
        );
        assert_eq!((h.ops[0].invoke_line, h.ops[0].ret_line), (2, Some(4)));
    }
}

#[test]
fn empty_and_unrecognized() {
    for text in ["", "\n\n  \n", "\u{feff}"] {
        assert_eq!(parse_history(text).unwrap(), History::default());
        assert_eq!(parse_jsonl(text).unwrap(), History::default());
        assert_eq!(parse_edn(text).unwrap(), History::default());
        assert_eq!(parse_jepsen_log(text).unwrap(), History::default());
    }
    assert_eq!(parse_edn("[]").unwrap(), History::default());
    // A log with no operations is an empty history.
    assert_eq!(
        parse_history("INFO jepsen.util - nothing\n").unwrap(),
        History::default()
    );
    let e = err(parse_history("\nhello world\n"));
    assert_eq!(e.line, 2);
    assert!(e.message.contains("unrecognized"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "[".repeat(100_000);
    assert!(parse_edn(&deep).is_err());
    assert!(parse_history(&deep).is_err());
    let deep_value = format!(
        "{{:process 0 :type :invoke :f :w :value {}}}",
        "[".repeat(100_000)
    );
    assert!(parse_edn(&deep_value).is_err());
    let deep_log = format!("0\t:invoke\t:w\t{}", "(".repeat(100_000));
    assert!(parse_jepsen_log(&deep_log).is_err());
    let discards = format!("{}{{:process 0 :type :invoke :f :w}}", "#_".repeat(100_000));
    assert!(parse_edn(&discards).is_err());
    let deep_json = format!(
        "{{\"process\":0,\"type\":\"invoke\",\"f\":\"w\",\"value\":{}",
        "[".repeat(100_000)
    );
    assert!(parse_jsonl(&deep_json).is_err());
}

// --- Properties --------------------------------------------------------------------------------

fn all_readers(text: &str) {
    let _ = parse_history(text);
    let _ = parse_jsonl(text);
    let _ = parse_edn(text);
    let _ = parse_jepsen_log(text);
}

/// Fragments that reach deep into the readers when glued together.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "#{",
    "#_",
    "#tag ",
    "#:ns",
    "##Inf",
    "\\",
    "\\newline",
    "\\u00",
    "\"",
    "\\\"",
    ":process",
    " 0",
    " 1",
    " -3",
    " :nemesis",
    ":type",
    " :invoke",
    " :ok",
    " :fail",
    " :info",
    ":f",
    " :read",
    " :write",
    " :cas",
    ":value",
    " nil",
    " true",
    " 1.5",
    " 99999999999999999999",
    " 1N",
    ":key",
    ",",
    " ",
    "\n",
    "\t",
    ";",
    "\"process\":",
    "\"type\":",
    "\"invoke\"",
    "\"ok\"",
    "\"f\":",
    "\"value\":",
    "null",
    "INFO  jepsen.util - ",
    "\t:invoke\t",
    "\t:ok\t",
    "\t:info\t",
    "é",
    "\u{feff}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        all_readers(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_fragments_never_panic(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..60),
        prefix in 0..4usize,
    ) {
        let mut text: String = ["", "{:process 0 :type :invoke :f :read}\n", "{\"", "["][prefix].to_string();
        for p in picks {
            text.push_str(FRAGMENTS[p]);
        }
        all_readers(&text);
    }

    /// Random well-formed histories read the same from all three formats, and the reader's
    /// semantics match a direct model of them.
    #[test]
    fn formats_agree(steps in proptest::collection::vec((0..4i64, 0..4u8, 0..3u8, -2..3i64), 0..40)) {
        // Build a well-formed record sequence: per process, invoke then maybe complete.
        let mut pending: Vec<Option<(&str, String)>> = vec![None; 4];
        let mut crashed = [false; 4];
        let mut recs: Vec<(i64, &str, &str, String)> = Vec::new();
        for (p, t, f, v) in steps {
            let pi = p as usize;
            if crashed[pi] {
                continue;
            }
            match pending[pi].take() {
                None => {
                    let f = ["read", "write", "cas"][f as usize];
                    let v = match f {
                        "read" => "nil".to_string(),
                        "write" => v.to_string(),
                        _ => format!("[{v} {}]", v + 1),
                    };
                    recs.push((p, "invoke", f, v.clone()));
                    pending[pi] = Some((f, v));
                }
                Some((f, v)) => {
                    let t = ["ok", "ok", "fail", "info"][t as usize];
                    let v = if f == "read" { "3".to_string() } else { v };
                    recs.push((p, t, f, v));
                    crashed[pi] = t == "info";
                }
            }
        }
        let json: String = recs.iter().map(|(p, t, f, v)| {
            let v = v.replace("nil", "null").replace(' ', ",");
            format!("{{\"process\":{p},\"type\":\"{t}\",\"f\":\"{f}\",\"value\":{v}}}\n")
        }).collect();
        let edn: String = recs.iter().map(|(p, t, f, v)| format!("{{:process {p}, :type :{t}, :f :{f}, :value {v}}}\n")).collect();
        let log: String = recs.iter().map(|(p, t, f, v)| format!("INFO  jepsen.util - {p}\t:{t}\t:{f}\t{v}\n")).collect();
        let a = parse_history(&json).unwrap();
        let b = parse_history(&edn).unwrap();
        let c = parse_history(&log).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &c);
        prop_assert_eq!(&a, &parse_jsonl(&json).unwrap());
        prop_assert_eq!(&b, &parse_edn(&format!("[{edn}]")).unwrap());
        // Expected: one op per non-failed invocation, in invocation order.
        let mut expected: Vec<Op> = Vec::new();
        for (i, (p, t, _, v)) in recs.iter().enumerate() {
            if *t != "invoke" {
                continue;
            }
            let completion = recs[i + 1..].iter().position(|r| r.0 == *p).map(|j| i + 1 + j);
            let kind = completion.map(|j| recs[j].1);
            if kind == Some("fail") {
                continue;
            }
            let parsed = |text: &str| -> Val {
                parse_edn(&format!("{{:process 0 :type :invoke :f :x :value {text}}}")).unwrap().ops[0].input.clone()
            };
            let ok = kind == Some("ok");
            expected.push(Op {
                id: expected.len(),
                process: *p,
                f: recs[i].2.to_string(),
                key: None,
                input: parsed(v),
                output: ok.then(|| parsed(&recs[completion.unwrap()].3)),
                invoke: i,
                ret: if ok { completion } else { None },
                invoke_line: i as u64 + 1,
                ret_line: if ok { completion.map(|j| j as u64 + 1) } else { None },
                failed: false,
            });
        }
        prop_assert_eq!(a.ops, expected);
    }
}

#[test]
fn sniffing() {
    // A log whose lines start with `[`.
    let log = "[2017-03-10 14:51:02] INFO jepsen.util: 0\t:invoke\t:read\tnil\n\
               [2017-03-10 14:51:03] INFO jepsen.util: 0\t:ok\t:read\t2\n";
    let h = parse_history(log).unwrap();
    assert_eq!(
        summary(&h),
        vec![op(0, "read", Val::Nil, Some(int(2)), 0, Some(1))]
    );
    // EDN with the map's first key on the next line, and leading whitespace.
    let edn = "  {\n :process 0 :type :invoke :f :read}\n";
    assert_eq!(parse_history(edn).unwrap().ops.len(), 1);
    // JSON with spaces inside the brace.
    let json = "{ \"process\": 0, \"type\": \"invoke\", \"f\": \"read\" }\n";
    assert_eq!(parse_history(json).unwrap().ops.len(), 1);
    // A vector starting on its own line.
    let vector = "[\n{:process 0 :type :invoke :f :read}\n]\n";
    assert_eq!(parse_history(vector).unwrap().ops[0].invoke_line, 2);
    // A namespaced-map and tagged-literal heavy line still reads.
    let tagged = "#jepsen.history.Op{:process 0, :type :invoke, :f :read, :time #inst \"2020-01-01\", :error \\a}";
    assert_eq!(parse_history(tagged).unwrap().ops.len(), 1);
}
