//! The report of `hindsight lin`: a history read, checked against a model, and each failing
//! part told as a finding.

use crate::check::Verdict;
use crate::models::choose_model;
use crate::parse::parse_history;
use crate::{check, model_by_name, CheckOptions, History, Op, PartitionResult, Val, MODELS};
use hindsight_budget::Budget;
use hindsight_report::{BarRole, EventRef, Finding, HistoryBar, HistoryFigure, Report, Rule};
use hindsight_syntax::{Diagnostic, Position};
use serde_json::{Map, Value};
use std::time::Instant;

/// The most unknown parts an unknown report lists (the rest are counted).
const UNKNOWN_PARTS_SHOWN: usize = 10;

/// `--init` values: integers, `nil`, `true`/`false`, a string in double quotes, anything else a
/// string. A number that is not a 64-bit integer (`1e30`, `2.5`, `1/2`, `7N`) is refused, as the
/// history readers refuse it: the models' values are integers (Porcupine's are Go `int`s;
/// Knossos would compare a double and never find it equal to an integer), so such a value
/// could only ever be a string by accident. A map, vector, list or set (`{:x 0 :y 0}`, `[1 2]`)
/// is refused for the same reason: Knossos' multi-register takes such a map as per-key initial
/// values, which the models here do not have (one `--init` value is every key's), so reading
/// it as one string would silently mean something else.
pub fn parse_init(s: &str) -> Result<Val, String> {
    if s.starts_with(['{', '[', '(']) || s.starts_with("#{") {
        return Err(format!(
            "--init {s}: a map, vector, list or set is not one value; `--init` is the one initial value of every key (write \"{s}\" in double quotes for a string)"
        ));
    }
    Ok(match s {
        "nil" => Val::Nil,
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        _ if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') => {
            Val::Str(s[1..s.len() - 1].to_owned())
        }
        _ => match s.parse::<i64>() {
            Ok(i) => Val::Int(i),
            Err(_) if looks_numeric(s) => {
                return Err(format!(
                    "--init {s}: only 64-bit integers are supported as numbers (write \"{s}\" in double quotes for a string)"
                ))
            }
            Err(_) => Val::Str(s.to_owned()),
        },
    })
}

/// Whether `s` is written as a number of JSON or EDN: `-1`, `2.5`, `1e30`, `7N`, `1.5M`, `1/2`.
fn looks_numeric(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Some((num, den)) = s.split_once('/') {
        return digits(num) && digits(den);
    }
    let s = s.strip_suffix(['N', 'M']).unwrap_or(s);
    let (mantissa, exponent) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (s, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(digits)
}

const NO_OPERATIONS: &str = "the history has no operations";

fn describe(op: &Op) -> String {
    let key = op
        .key
        .as_ref()
        .map(|k| format!("[{k}] "))
        .unwrap_or_default();
    match &op.output {
        Some(out) if op.failed => format!("{key}{}({}) -> fail {out}", op.f, op.input),
        Some(out) => format!("{key}{}({}) -> {out}", op.f, op.input),
        None => format!("{key}{}({}) -> ? (unknown outcome)", op.f, op.input),
    }
}

fn event(op: &Op, path: &str) -> EventRef {
    EventRef {
        index: op.invoke as u64,
        thread: format!("process {}", op.process),
        op: describe(op),
        location: Some(format!("{path}:{}", op.invoke_line)),
    }
}

/// Checks the history `text` (named `input`) against the model `model_name` (with initial
/// value `init`, as `--init` writes it), within `budget`. The report is unknown if the search
/// gave up: its summary then says which parts were left undecided and how far each got. A
/// history without operations is linearizable with a warning (more often a client that logged
/// nothing than a test that did nothing, as for empty traces), an error under `strict`. With
/// `model_name` `auto` the model is chosen from the
/// history's operations ([`choose_model`]): the summary's `model` names it and `model_chosen`
/// is `auto`.
pub fn analyse(
    text: &str,
    input: &str,
    model_name: &str,
    init: Option<&str>,
    budget: &Budget,
    strict: bool,
) -> Result<Report, Diagnostic> {
    analyse_with(
        text,
        input,
        model_name,
        init,
        budget,
        strict,
        &CheckOptions::default(),
    )
}

/// [`analyse`] searching as `options` say (`all_parts`: every key checked, even once one has
/// decided the history).
pub fn analyse_with(
    text: &str,
    input: &str,
    model_name: &str,
    init: Option<&str>,
    budget: &Budget,
    strict: bool,
    options: &CheckOptions,
) -> Result<Report, Diagnostic> {
    let auto = model_name == "auto";
    if !auto && !MODELS.contains(&model_name) {
        return Err(Diagnostic::usage(format!(
            "no model `{model_name}` (there are: auto, {})",
            MODELS.join(", ")
        )));
    }
    let shown = input.to_owned();
    let history: History = parse_history(text).map_err(|e| e.in_input(input))?;
    let empty = history.ops.is_empty() && history.failed.is_empty();
    if empty && strict {
        return Err(Diagnostic::error(
            input,
            Position::File,
            format!("{NO_OPERATIONS} (an error under --strict)"),
        ));
    }
    let init = init
        .map(parse_init)
        .transpose()
        .map_err(Diagnostic::usage)?;
    let model_name = match auto {
        true => choose_model(&history, init.as_ref())
            .map_err(|m| Diagnostic::error(input, Position::File, m))?,
        false => model_name,
    };
    let Some(model) = model_by_name(model_name, init) else {
        return Err(Diagnostic::usage(format!("no model `{model_name}`")));
    };
    let history = match history.failed.iter().any(|op| model.keeps_failed(op)) {
        true => history.with_failed(|op| model.keeps_failed(op)),
        false => history,
    };
    for op in &history.ops {
        if let Err(m) = model.validate(op) {
            return Err(Diagnostic::error(input, Position::Line(op.invoke_line), m));
        }
    }
    let started = Instant::now();
    let outcome = check(&history, model.as_ref(), options, budget);
    let elapsed = started.elapsed();

    let mut report = Report::new("lin");
    if empty {
        report
            .warnings
            .push(Diagnostic::warning(input, Position::File, NO_OPERATIONS).to_string());
    }
    report
        .trace
        .insert("path".into(), Value::from(shown.clone()));
    report.trace.insert("format".into(), Value::from("history"));
    report
        .trace
        .insert("operations".into(), Value::from(history.ops.len()));
    report.trace.insert(
        "processes".into(),
        Value::from({
            let mut ps: Vec<i64> = history.ops.iter().map(|o| o.process).collect();
            ps.sort_unstable();
            ps.dedup();
            ps.len()
        }),
    );
    report.rules.push(Rule {
        id: "non-linearizable",
        description: "No order of the operations that respects real time is legal for the model",
    });
    for p in outcome
        .partitions
        .iter()
        .filter(|p| p.verdict == Verdict::NotLinearizable)
    {
        let state = p
            .state
            .as_ref()
            .map(|s| model.describe(s))
            .unwrap_or_default();
        let key = history.ops[p.ops[0]].key.clone();
        let stuck: Vec<String> = p.stuck.iter().map(|&i| describe(&history.ops[i])).collect();
        let message = format!(
            "{}the longest linearizable prefix has {} of {} operations and leaves the {} in state {state}; none of the operations that may come next fits: {}",
            key.as_ref().map(|k| format!("key {k}: ")).unwrap_or_default(),
            p.prefix.len(),
            p.ops.len(),
            model.name(),
            stuck.join("; ")
        );
        let mut fields = Map::new();
        if let Some(k) = &key {
            fields.insert("key".into(), Value::from(k.to_string()));
        }
        fields.insert("state".into(), Value::from(state));
        fields.insert(
            "prefix".into(),
            Value::from(
                p.prefix
                    .iter()
                    .map(|&i| describe(&history.ops[i]))
                    .collect::<Vec<_>>(),
            ),
        );
        report.findings.push(Finding {
            occurrences: None,
            kind: "non-linearizable".into(),
            message,
            events: p
                .stuck
                .iter()
                .map(|&i| event(&history.ops[i], &shown))
                .collect(),
            fields,
            group: key.map(|k| format!("key {k}")),
        });
    }
    let verdict = match outcome.verdict {
        Verdict::Linearizable => "linearizable",
        Verdict::NotLinearizable => "not-linearizable",
        Verdict::Unknown => "unknown",
        Verdict::NotChecked => unreachable!("a history is decided or unknown"),
    };
    report
        .summary
        .insert("verdict".into(), Value::from(verdict));
    report
        .summary
        .insert("model".into(), Value::from(model.name()));
    if auto {
        report
            .summary
            .insert("model_chosen".into(), Value::from("auto"));
    }
    report
        .summary
        .insert("partitions".into(), Value::from(outcome.partitions.len()));
    report.summary.insert(
        "states".into(),
        Value::from(outcome.partitions.iter().map(|p| p.explored).sum::<u64>()),
    );
    report.summary.insert(
        "memo_bytes".into(),
        Value::from(outcome.partitions.iter().map(|p| p.memory).sum::<u64>()),
    );
    let unknown: Vec<&PartitionResult> = outcome
        .partitions
        .iter()
        .filter(|p| p.verdict == Verdict::Unknown)
        .collect();
    let not_checked: Vec<&PartitionResult> = outcome
        .partitions
        .iter()
        .filter(|p| p.verdict == Verdict::NotChecked)
        .collect();
    if !not_checked.is_empty() {
        // The history was decided by a part not linearizable; `--all-keys` checks these too.
        report
            .summary
            .insert("parts_not_checked".into(), Value::from(not_checked.len()));
        let keys: Vec<String> = not_checked
            .iter()
            .filter_map(|p| p.ops.first().and_then(|&i| history.ops[i].key.as_ref()))
            .take(NOT_CHECKED_SHOWN)
            .map(|k| k.to_string())
            .collect();
        if !keys.is_empty() {
            report
                .summary
                .insert("keys_not_checked".into(), Value::from(keys));
        }
    }
    if !unknown.is_empty() {
        report.summary.insert(
            "parts_decided".into(),
            Value::from(outcome.partitions.len() - unknown.len()),
        );
        report
            .summary
            .insert("unknown_parts".into(), Value::from(unknown.len()));
        report.summary.insert(
            "undecided".into(),
            Value::from(undecided(&history, &unknown)),
        );
    }
    report.summary.insert(
        "milliseconds".into(),
        Value::from(hindsight_report::milliseconds(elapsed)),
    );
    report.unknown = outcome.verdict == Verdict::Unknown;
    report.note_budget(budget);
    report.figures.histories = figures(&history, model.as_ref(), &outcome.partitions);
    let drawn: usize = report.figures.histories.len();
    if drawn < outcome.partitions.len() {
        report.figures.notes.push(format!(
            "the histories of {drawn} of {} parts are drawn (those not linearizable first)",
            outcome.partitions.len()
        ));
    }
    Ok(report)
}

/// The most keys of parts not checked named in the summary (`parts_not_checked` counts them
/// all).
const NOT_CHECKED_SHOWN: usize = 20;

/// The most parts of a history drawn, and operations drawn of one part.
const PARTS_DRAWN: usize = 20;
const OPS_DRAWN: usize = 400;

/// Pictures of the parts of a history (those not linearizable first): each operation a bar on
/// its client's row, those of the longest linearizable prefix with their place in it and the
/// model state after them, those that cannot follow it apart.
fn figures(
    history: &History,
    model: &dyn crate::Model,
    parts: &[PartitionResult],
) -> Vec<HistoryFigure> {
    let mut order: Vec<&PartitionResult> = parts.iter().collect();
    order.sort_by_key(|p| p.verdict != Verdict::NotLinearizable);
    order
        .into_iter()
        .take(PARTS_DRAWN)
        .map(|p| {
            // The prefix replayed: the state after each of its operations.
            // Keyed by operation: a part is small beside the history.
            let mut steps: std::collections::HashMap<usize, (usize, String)> =
                std::collections::HashMap::with_capacity(p.prefix.len().min(OPS_DRAWN));
            let drawn: std::collections::HashSet<usize> =
                p.ops.iter().take(OPS_DRAWN).copied().collect();
            let mut state = model.init();
            for (n, &i) in p.prefix.iter().enumerate() {
                match model.step(&state, &history.ops[i]) {
                    // A borrowed state is the same state: nothing to copy.
                    Some(std::borrow::Cow::Owned(next)) => state = next,
                    Some(std::borrow::Cow::Borrowed(_)) => {}
                    None => break,
                }
                if drawn.contains(&i) {
                    steps.insert(i, (n, model.describe(&state)));
                }
            }
            let mut clients: Vec<i64> = p.ops.iter().map(|&i| history.ops[i].process).collect();
            clients.sort_unstable();
            clients.dedup();
            let ops = p
                .ops
                .iter()
                .take(OPS_DRAWN)
                .map(|&i| {
                    let op = &history.ops[i];
                    HistoryBar {
                        client: clients.binary_search(&op.process).unwrap_or(0),
                        invoke: op.invoke as u64,
                        complete: op.ret.map(|r| r as u64),
                        label: describe(op),
                        role: if p.stuck.contains(&i) {
                            BarRole::Stuck
                        } else if p.verdict == Verdict::NotLinearizable && steps.contains_key(&i) {
                            BarRole::Prefix
                        } else {
                            BarRole::Other
                        },
                        step: steps.remove(&i),
                    }
                })
                .collect();
            HistoryFigure {
                title: match p.ops.first().and_then(|&i| history.ops[i].key.as_ref()) {
                    Some(k) => format!("key {k}"),
                    None => "history".to_owned(),
                },
                verdict: match p.verdict {
                    Verdict::Linearizable => "linearizable",
                    Verdict::NotLinearizable => "not linearizable",
                    Verdict::Unknown => "unknown",
                    Verdict::NotChecked => "not checked",
                }
                .to_owned(),
                clients: clients.iter().map(|c| format!("process {c}")).collect(),
                ops,
                state: p.state.as_ref().map(|s| model.describe(s)),
                left_out: p.ops.len().saturating_sub(OPS_DRAWN),
            }
        })
        .collect()
}

/// The parts left undecided, those that got furthest first (the one that ran out among them),
/// at most [`UNKNOWN_PARTS_SHOWN`]: each with its key, its operations, the states it memoized
/// and why it stopped.
fn undecided(history: &History, unknown: &[&PartitionResult]) -> Vec<Value> {
    let mut parts = unknown.to_vec();
    parts.sort_by_key(|p| std::cmp::Reverse(p.explored));
    parts
        .iter()
        .take(UNKNOWN_PARTS_SHOWN)
        .map(|p| {
            let mut part = Map::new();
            if let Some(k) = p.ops.first().and_then(|&i| history.ops[i].key.as_ref()) {
                part.insert("key".into(), Value::from(k.to_string()));
            }
            part.insert("operations".into(), Value::from(p.ops.len()));
            part.insert("states".into(), Value::from(p.explored));
            let why = p.spent.map_or("state-limit", |s| s.name());
            part.insert("stopped_by".into(), Value::from(why));
            Value::Object(part)
        })
        .collect()
}

/// The bytes read at a time from a history stream between two polls of the budget.
const READ_CHUNK: usize = 1 << 16;

/// Reads the bytes of a history from `source` (standard input, say) within `budget`: its
/// clock polled and the bytes read charged to its memory limit as they arrive, so that an
/// endless stream stops at the limit rather than growing until the machine runs out.
/// `Ok(None)`: the budget ran out while reading (the report is then [`unread_report`]). The
/// caller decodes the text (and drops a byte-order mark), naming the input in its errors.
///
/// With a deadline the reads run on a thread of their own ([`hindsight_budget::ReadUntil`]),
/// so that a source that never sends (a pipe whose writer waits) still stops at it: a `read`
/// blocked on it cannot look at the clock.
pub fn read_within<R: std::io::Read + Send + 'static>(
    source: R,
    budget: &Budget,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut source: Box<dyn std::io::Read> = match budget.deadline() {
        Some(at) => Box::new(hindsight_budget::ReadUntil::new(source, at)?),
        None => Box::new(source),
    };
    let mut account = hindsight_budget::Account::new(budget);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        let n = match source.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                let _ = budget.check(); // records the timeout for the report
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if account.hold(bytes.capacity() as u64).is_err() || budget.check().is_err() {
            return Ok(None);
        }
    }
    // Decoded by the caller, who knows the input's name for a message that places a byte
    // that is not UTF-8.
    Ok(Some(bytes))
}

/// The report of a history whose reading the budget stopped ([`read_within`]): unknown, with
/// the limits and the one reached.
pub fn unread_report(budget: &Budget) -> Report {
    let mut report = Report::new("lin");
    report
        .summary
        .insert("verdict".into(), Value::from("unknown"));
    report.summary.insert(
        "stopped".into(),
        Value::from("while reading the history: the budget ran out"),
    );
    report.unknown = true;
    report.note_budget(budget);
    report
}
