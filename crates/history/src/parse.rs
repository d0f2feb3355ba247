//! Histories: operations with their process, function, input, output, and the positions of
//! their invocation and completion; readers for JSON Lines, Jepsen/Knossos EDN, and Jepsen's
//! logged form.

use std::fmt;

/// A value in a history: what Jepsen writes (`nil`, integers, strings, keywords, vectors).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Val {
    Nil,
    Bool(bool),
    Int(i64),
    /// A string, or an EDN keyword without its colon (`:timed-out` is `Str("timed-out")`).
    Str(String),
    List(Vec<Val>),
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Nil => f.write_str("nil"),
            Val::Bool(b) => write!(f, "{b}"),
            Val::Int(i) => write!(f, "{i}"),
            Val::Str(s) => write!(f, "{s:?}"),
            Val::List(vs) => {
                f.write_str("[")?;
                for (i, v) in vs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// One operation of a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// Index in [`History::ops`].
    pub id: usize,
    pub process: i64,
    /// The function, e.g. `read`, `write`, `cas`.
    pub f: String,
    /// The key, for key-value histories.
    pub key: Option<Val>,
    /// The invocation's value (`nil` for a read).
    pub input: Val,
    /// The completion's value; `None` when the outcome is unknown (`info`, or no completion).
    pub output: Option<Val>,
    /// Position of the invocation in the history (0-based record index).
    pub invoke: usize,
    /// Position of the completion; `None` when the outcome is unknown (the operation stays
    /// concurrent with everything after its invocation).
    pub ret: Option<usize>,
    /// Source lines of the invocation and completion, for messages.
    pub invoke_line: u64,
    pub ret_line: Option<u64>,
    /// Completed with `fail`: the operation did not happen. Such operations are kept apart
    /// ([`History::failed`]) unless a model says a failure still tells something.
    pub failed: bool,
}

impl Op {
    /// Whether this operation completed before `other` was invoked (real-time order).
    pub fn precedes(&self, other: &Op) -> bool {
        self.ret.is_some_and(|r| r < other.invoke)
    }
}

/// The operations of a history that happened or may have happened, and apart from them the
/// ones that completed with `fail` (which did not happen).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub ops: Vec<Op>,
    /// `fail`ed operations, in invocation order, with their completion's value as output and
    /// its position as `ret`; their ids continue those of `ops`.
    pub failed: Vec<Op>,
}

impl History {
    /// The history with the failed operations that `keep` selects among the others, in
    /// invocation order and numbered again (ids are indices into `ops`).
    pub fn with_failed(&self, keep: impl Fn(&Op) -> bool) -> History {
        let mut ops: Vec<Op> = self.ops.clone();
        ops.extend(self.failed.iter().filter(|op| keep(op)).cloned());
        ops.sort_by_key(|op| op.invoke);
        for (i, op) in ops.iter_mut().enumerate() {
            op.id = i;
        }
        History {
            ops,
            failed: Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Readers.
//
// All three formats are reduced to a stream of records (process, type, function, value, key),
// which one builder pairs into operations with Jepsen's semantics.

use hindsight_syntax::{check_nesting, LineError};
use rustc_hash::FxHashMap;

/// Reads a history in any of the supported formats, sniffed from the first non-blank line:
/// a line starting with `{"` is JSON Lines ([`parse_jsonl`]); one starting with `{:`, `[`,
/// `(`, `#` or `;` is EDN ([`parse_edn`]); text with a tab-separated `process\t:type\t:f\tvalue`
/// line or a `jepsen.util` logger is Jepsen's log ([`parse_jepsen_log`]). Empty input is the
/// empty history.
pub fn parse_history(text: &str) -> Result<History, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((line_no, first)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i as u64 + 1, l.trim_start()))
    else {
        return Ok(History::default());
    };
    if let Some(rest) = first.strip_prefix('{') {
        // The next significant character (possibly on a later line) tells JSON from EDN.
        let offset = rest.as_ptr() as usize - text.as_ptr() as usize;
        let next = text[offset..].trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        return if next.starts_with('"') || next.starts_with('}') {
            parse_jsonl(text)
        } else {
            parse_edn(text)
        };
    }
    if let Some(rest) = first.strip_prefix('[') {
        let offset = rest.as_ptr() as usize - text.as_ptr() as usize;
        let next = text[offset..].trim_start();
        if next.is_empty() || next.starts_with(['{', '#', '[', '(', ']', ';']) {
            return parse_edn(text);
        }
    }
    if first.starts_with(['(', '#', ';']) {
        return parse_edn(text);
    }
    if text
        .lines()
        .any(|l| l.contains("jepsen.util") || log_op_fields(l).is_some())
    {
        return parse_jepsen_log(text);
    }
    if first.starts_with('[') {
        return parse_edn(text);
    }
    Err(LineError {
        line: line_no,
        message: "unrecognized history format: expected JSON Lines \
                  ({\"process\": 0, \"type\": \"invoke\", ...}), EDN ({:process 0, :type :invoke, \
                  ...} or a vector of them), or a Jepsen log (`INFO jepsen.util - 0\\t:invoke\\t\
                  :read\\tnil`)"
            .to_string(),
    })
}

/// Reads JSON Lines: one object per non-blank line with `process` (an integer; a string such as
/// `"nemesis"` marks an operation that is not a client's, which is skipped), `type` (`invoke`,
/// `ok`, `fail` or `info`), `f`, `value` (absent means `null`) and optionally `key`; other
/// fields are ignored. Values are `null`, booleans, integers, strings and arrays.
pub fn parse_jsonl(text: &str) -> Result<History, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        let err = |message: String| LineError { line, message };
        let value: serde_json::Value = serde_json::from_str(raw).map_err(|e| {
            let full = e.to_string();
            let msg = match full.rfind(" at line ") {
                Some(at) => &full[..at],
                None => &full,
            };
            err(format!("malformed JSON: {msg} (column {})", e.column()))
        })?;
        let serde_json::Value::Object(obj) = value else {
            return Err(err(format!(
                "expected a JSON object per line, got {}",
                json_kind(&value)
            )));
        };
        let process = match obj.get("process") {
            None => return Err(err("missing `process`".to_string())),
            Some(serde_json::Value::String(_)) => continue, // the nemesis, or another non-client
            Some(serde_json::Value::Number(n)) => match n.as_i64() {
                Some(p) => p,
                None => {
                    return Err(err(format!(
                        "`process` must be an integer or a name, got {n}"
                    )))
                }
            },
            Some(other) => {
                return Err(err(format!(
                    "`process` must be an integer or a name, got {}",
                    json_kind(other)
                )))
            }
        };
        let kind = match obj.get("type") {
            None => return Err(err("missing `type`".to_string())),
            Some(serde_json::Value::String(s)) => Kind::parse(s).map_err(err)?,
            Some(other) => {
                return Err(err(format!(
                    "`type` must be a string, got {}",
                    json_kind(other)
                )))
            }
        };
        let f = match obj.get("f") {
            None => return Err(err("missing `f`".to_string())),
            Some(serde_json::Value::String(s)) => s.strip_prefix(':').unwrap_or(s).to_string(),
            Some(other) => {
                return Err(err(format!(
                    "`f` must be a string, got {}",
                    json_kind(other)
                )))
            }
        };
        let value = match obj.get("value") {
            None => Val::Nil,
            Some(v) => json_val(v).map_err(|m| err(format!("`value`: {m}")))?,
        };
        let key = match obj.get("key") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(json_val(v).map_err(|m| err(format!("`key`: {m}")))?),
        };
        builder.push(Record {
            line,
            process,
            kind,
            f,
            value,
            key,
        })?;
    }
    Ok(builder.finish())
}

/// Reads Jepsen/Knossos EDN: operation maps (`{:process 0, :type :invoke, :f :read, :value
/// nil}`, possibly tagged as `#jepsen.history.Op{...}`), one after another or inside a vector
/// or list, laid out over lines in any way. `:process`, `:type`, `:f`, `:value` (absent means
/// `nil`) and `:key` are read; other keys (`:time`, `:index`, `:error`, ...) are ignored.
/// Operations whose process is not an integer (`:nemesis`) are skipped.
pub fn parse_edn(text: &str) -> Result<History, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = EdnReader::new(text, 1);
    let mut builder = Builder::default();
    loop {
        match reader.next_item()? {
            Item::Eof => break,
            Item::Close(c, line) => {
                return Err(LineError {
                    line,
                    message: format!("unexpected `{}`", c as char),
                })
            }
            Item::Open(open, line) => {
                // A whole history as one vector or list: read its operations one by one.
                let close = if open == b'[' { b']' } else { b')' };
                loop {
                    match reader.next_item()? {
                        Item::Eof => {
                            return Err(LineError {
                                line,
                                message: format!("`{}` opened here is never closed", open as char),
                            })
                        }
                        Item::Close(c, _) if c == close => break,
                        Item::Close(c, l) => {
                            return Err(LineError {
                                line: l,
                                message: format!(
                                    "unexpected `{}` inside `{}` opened on line {line}",
                                    c as char, open as char
                                ),
                            })
                        }
                        Item::Open(_, l) => {
                            return Err(LineError {
                                line: l,
                                message: "expected an operation map, got a nested vector or list"
                                    .to_string(),
                            })
                        }
                        Item::Form(form, l) => edn_record(form, l, &mut builder)?,
                    }
                }
            }
            Item::Form(form, line) => edn_record(form, line, &mut builder)?,
        }
    }
    Ok(builder.finish())
}

/// Reads Jepsen's logged form of operations: lines whose tab-separated fields are
/// `... process`, `:type`, `:f`, `value` (and possibly an error after another tab), such as
/// `INFO  jepsen.util - 3\t:ok\t:read\t4`. The process is the last word before the first tab
/// of the form; the value is an EDN value. Every other line is ignored; operations whose
/// process is not an integer (`:nemesis`) are skipped.
pub fn parse_jepsen_log(text: &str) -> Result<History, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let Some(fields) = log_op_fields(raw) else {
            continue;
        };
        let err = |message: String| LineError { line, message };
        let process = match fields.process.strip_prefix(':') {
            Some(_) => continue, // the nemesis, or another non-client
            None => fields
                .process
                .parse::<i64>()
                .map_err(|_| err(format!("process `{}` is out of range", fields.process)))?,
        };
        let kind = Kind::parse(fields.kind).map_err(err)?;
        let mut f_reader = EdnReader::new(fields.f, line);
        let f = match f_reader.item(0, false)? {
            Item::Form(form, _) => edn_name(form).map_err(|m| err(format!("`f`: {m}")))?,
            _ => return Err(err("missing `f`".to_string())),
        };
        let mut v_reader = EdnReader::new(fields.value, line);
        let value = match v_reader.item(0, false)? {
            Item::Eof => Val::Nil,
            Item::Form(form, _) => edn_val(form).map_err(|m| err(format!("value: {m}")))?,
            Item::Close(c, _) | Item::Open(c, _) => {
                return Err(err(format!("unexpected `{}`", c as char)))
            }
        };
        let rest = &fields.value[v_reader.pos..];
        let before_tab = rest.split('\t').next().unwrap_or("");
        if !before_tab.trim().is_empty() {
            return Err(err(format!(
                "unexpected `{}` after the value",
                before_tab.trim()
            )));
        }
        builder.push(Record {
            line,
            process,
            kind,
            f,
            value,
            key: None,
        })?;
    }
    Ok(builder.finish())
}

// --- Pairing ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Invoke,
    Ok,
    Fail,
    Info,
}

impl Kind {
    fn parse(s: &str) -> Result<Kind, String> {
        match s.strip_prefix(':').unwrap_or(s) {
            "invoke" => Ok(Kind::Invoke),
            "ok" => Ok(Kind::Ok),
            "fail" => Ok(Kind::Fail),
            "info" => Ok(Kind::Info),
            other => Err(format!(
                "unknown type `{other}` (expected invoke, ok, fail or info)"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Invoke => "invoke",
            Kind::Ok => "ok",
            Kind::Fail => "fail",
            Kind::Info => "info",
        }
    }
}

/// One client record: an invocation or a completion.
struct Record {
    line: u64,
    process: i64,
    kind: Kind,
    f: String,
    value: Val,
    key: Option<Val>,
}

#[derive(Default)]
struct Builder {
    /// Operations in invocation order.
    slots: Vec<Option<Op>>,
    /// Process → its pending operation's slot.
    pending: FxHashMap<i64, usize>,
    /// Process → the line of the `info` completion after which it must stay silent.
    crashed: FxHashMap<i64, u64>,
    /// Client records read so far.
    position: usize,
}

impl Builder {
    fn push(&mut self, r: Record) -> Result<(), LineError> {
        let err = |message: String| LineError {
            line: r.line,
            message,
        };
        let p = r.process;
        if r.kind == Kind::Invoke {
            if let Some(&slot) = self.pending.get(&p) {
                let line = self.slots[slot].as_ref().map_or(0, |op| op.invoke_line);
                return Err(err(format!(
                    "process {p} invokes `{}` while its `{}` invoked on line {line} is still \
                     pending (a process has at most one pending operation)",
                    r.f,
                    self.slots[slot].as_ref().map_or("", |op| op.f.as_str()),
                )));
            }
            if let Some(&line) = self.crashed.get(&p) {
                return Err(err(format!(
                    "process {p} invokes `{}` after its operation completed with `info` on \
                     line {line} (a process whose operation's outcome is unknown must issue \
                     nothing further)",
                    r.f
                )));
            }
            self.pending.insert(p, self.slots.len());
            self.slots.push(Some(Op {
                id: 0,
                process: p,
                f: r.f,
                key: r.key,
                input: r.value,
                output: None,
                invoke: self.position,
                ret: None,
                invoke_line: r.line,
                ret_line: None,
                failed: false,
            }));
        } else {
            let Some(slot) = self.pending.remove(&p) else {
                let why = match self.crashed.get(&p) {
                    Some(line) => {
                        format!(" (its last operation completed with `info` on line {line})")
                    }
                    None => String::new(),
                };
                return Err(err(format!(
                    "`{}` completion of `{}` by process {p}, which has no pending invocation{why}",
                    r.kind.name(),
                    r.f
                )));
            };
            let Some(op) = self.slots[slot].as_mut() else {
                return Err(err(
                    "internal error: completed operation missing".to_string()
                ));
            };
            if op.f != r.f {
                return Err(err(format!(
                    "`{}` completion of `{}` by process {p}, whose pending invocation on line {} \
                     is of `{}`",
                    r.kind.name(),
                    r.f,
                    op.invoke_line,
                    op.f
                )));
            }
            match (&op.key, r.key) {
                (Some(a), Some(b)) if *a != b => {
                    return Err(err(format!(
                        "completion's key {b} differs from the key {a} of the invocation on \
                         line {}",
                        op.invoke_line
                    )))
                }
                (None, Some(b)) => op.key = Some(b),
                _ => {}
            }
            match r.kind {
                Kind::Ok => {
                    op.output = Some(r.value);
                    op.ret = Some(self.position);
                    op.ret_line = Some(r.line);
                }
                Kind::Fail => {
                    op.output = Some(r.value);
                    op.ret = Some(self.position);
                    op.ret_line = Some(r.line);
                    op.failed = true;
                }
                Kind::Info => {
                    self.crashed.insert(p, r.line);
                }
                Kind::Invoke => {}
            }
        }
        self.position += 1;
        Ok(())
    }

    fn finish(self) -> History {
        let (mut failed, mut ops): (Vec<Op>, Vec<Op>) =
            self.slots.into_iter().flatten().partition(|op| op.failed);
        for (i, op) in ops.iter_mut().chain(failed.iter_mut()).enumerate() {
            op.id = i;
        }
        History { ops, failed }
    }
}

// --- JSON ------------------------------------------------------------------------------------

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn json_val(v: &serde_json::Value) -> Result<Val, String> {
    Ok(match v {
        serde_json::Value::Null => Val::Nil,
        serde_json::Value::Bool(b) => Val::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Val::Int(i),
            None => return Err(format!("only 64-bit integers are supported, not {n}")),
        },
        serde_json::Value::String(s) => Val::Str(s.clone()),
        serde_json::Value::Array(vs) => {
            Val::List(vs.iter().map(json_val).collect::<Result<_, _>>()?)
        }
        serde_json::Value::Object(_) => {
            return Err("objects are not supported as values".to_string())
        }
    })
}

// --- Jepsen's log ----------------------------------------------------------------------------

struct LogFields<'a> {
    process: &'a str,
    kind: &'a str,
    f: &'a str,
    /// The rest of the line from the value on.
    value: &'a str,
}

/// The fields of a logged operation, if `line` is one: a tab-separated `:invoke`/`:ok`/`:fail`
/// /`:info` field, preceded by a field ending in the process (an integer or a keyword) and
/// followed by the function's field.
fn log_op_fields(line: &str) -> Option<LogFields<'_>> {
    let tabs: Vec<usize> = line.match_indices('\t').map(|(i, _)| i).collect();
    for i in 0..tabs.len() {
        let start = tabs[i] + 1;
        let end = *tabs.get(i + 1)?;
        let kind = line[start..end].trim();
        if !matches!(kind, ":invoke" | ":ok" | ":fail" | ":info") {
            continue;
        }
        let prev_start = if i == 0 { 0 } else { tabs[i - 1] + 1 };
        let Some(process) = line[prev_start..tabs[i]].split_whitespace().next_back() else {
            continue;
        };
        let is_int = {
            let digits = process.strip_prefix('-').unwrap_or(process);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        };
        let is_keyword = process.len() > 1
            && process.starts_with(':')
            && process[1..]
                .chars()
                .all(|c| c.is_alphanumeric() || "-_.*+!?/".contains(c));
        if !is_int && !is_keyword {
            continue;
        }
        let (f, value) = match tabs.get(i + 2) {
            Some(&t) => (&line[end + 1..t], &line[t + 1..]),
            None => (&line[end + 1..], ""),
        };
        return Some(LogFields {
            process,
            kind,
            f,
            value,
        });
    }
    None
}

// --- EDN -------------------------------------------------------------------------------------

/// A parsed EDN form; only the parts histories use are kept apart.
#[derive(Debug)]
enum Edn {
    Nil,
    Bool(bool),
    Int(i64),
    /// A number that is not a 64-bit integer (float, big integer, ratio), as written.
    OtherNumber(String),
    Str(String),
    Keyword(String),
    Symbol(String),
    Char(char),
    Seq(Vec<Edn>),
    Set(Vec<Edn>),
    Map(Vec<(Edn, Edn)>),
    /// `#tag form`: the form (the tag is dropped).
    Tagged(Box<Edn>),
}

enum Item {
    Form(Edn, u64),
    /// An opening `[` or `(` at the top: the caller decides whether to read it whole.
    Open(u8, u64),
    Close(u8, u64),
    Eof,
}

struct EdnReader<'a> {
    text: &'a str,
    pos: usize,
    line: u64,
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'"' | b';'
        )
}

impl<'a> EdnReader<'a> {
    fn new(text: &'a str, line: u64) -> Self {
        EdnReader { text, pos: 0, line }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn error(&self, message: impl Into<String>) -> LineError {
        LineError {
            line: self.line,
            message: format!("malformed EDN: {}", message.into()),
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                b';' => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b',' => self.pos += 1,
                _ if b.is_ascii_whitespace() => self.pos += 1,
                _ => break,
            }
        }
    }

    /// The next item at the top: `[` and `(` are returned unread as [`Item::Open`].
    fn next_item(&mut self) -> Result<Item, LineError> {
        self.item(0, true)
    }

    fn item(&mut self, depth: usize, top: bool) -> Result<Item, LineError> {
        check_nesting(depth).map_err(|m| self.error(m))?;
        loop {
            self.skip_whitespace();
            let line = self.line;
            let Some(b) = self.peek() else {
                return Ok(Item::Eof);
            };
            match b {
                b')' | b']' | b'}' => {
                    self.pos += 1;
                    return Ok(Item::Close(b, line));
                }
                b'[' | b'(' if top => {
                    self.pos += 1;
                    return Ok(Item::Open(b, line));
                }
                b'#' if self.bytes().get(self.pos + 1) == Some(&b'_') => {
                    self.pos += 2;
                    match self.item(depth + 1, false)? {
                        Item::Form(..) => continue,
                        other => return Ok(other),
                    }
                }
                _ => return Ok(Item::Form(self.form(depth)?, line)),
            }
        }
    }

    /// The next form, which must be there.
    fn required(&mut self, depth: usize, what: &str) -> Result<Edn, LineError> {
        match self.item(depth, false)? {
            Item::Form(form, _) => Ok(form),
            Item::Eof => Err(self.error(format!("{what}, found the end"))),
            Item::Close(c, _) => Err(self.error(format!("{what}, found `{}`", c as char))),
            Item::Open(..) => Err(self.error("internal error: unexpected open")),
        }
    }

    /// Reads the elements of a sequence whose opening delimiter `open` (on `line`) was read.
    fn read_seq(&mut self, open: u8, line: u64, depth: usize) -> Result<Edn, LineError> {
        let close = match open {
            b'[' => b']',
            b'(' => b')',
            _ => b'}',
        };
        let mut items = Vec::new();
        loop {
            match self.item(depth + 1, false)? {
                Item::Form(form, _) => items.push(form),
                Item::Close(c, _) if c == close => return Ok(Edn::Seq(items)),
                Item::Close(c, _) => {
                    return Err(self.error(format!(
                        "unexpected `{}` inside `{}` opened on line {line}",
                        c as char, open as char
                    )))
                }
                Item::Eof => {
                    return Err(LineError {
                        line,
                        message: format!(
                            "malformed EDN: `{}` opened here is never closed",
                            open as char
                        ),
                    })
                }
                Item::Open(..) => return Err(self.error("internal error: unexpected open")),
            }
        }
    }

    /// A form starting at the current (non-whitespace, non-closing) byte.
    fn form(&mut self, depth: usize) -> Result<Edn, LineError> {
        check_nesting(depth).map_err(|m| self.error(m))?;
        let line = self.line;
        let Some(b) = self.peek() else {
            return Err(self.error("unexpected end"));
        };
        match b {
            b'[' | b'(' | b'{' => {
                self.pos += 1;
                let Edn::Seq(items) = self.read_seq(b, line, depth)? else {
                    return Err(self.error("internal error: not a sequence"));
                };
                if b != b'{' {
                    return Ok(Edn::Seq(items));
                }
                if items.len() % 2 != 0 {
                    return Err(LineError {
                        line,
                        message: "malformed EDN: a map needs an even number of forms".to_string(),
                    });
                }
                let mut pairs = Vec::new();
                let mut it = items.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                Ok(Edn::Map(pairs))
            }
            b'"' => {
                self.pos += 1;
                Ok(Edn::Str(self.string(line)?))
            }
            b'\\' => {
                self.pos += 1;
                self.character()
            }
            b'#' => {
                self.pos += 1;
                match self.peek() {
                    Some(b'{') => {
                        self.pos += 1;
                        let Edn::Seq(items) = self.read_seq(b'{', line, depth)? else {
                            return Err(self.error("internal error: not a sequence"));
                        };
                        Ok(Edn::Set(items))
                    }
                    Some(b'"') => {
                        self.pos += 1;
                        Ok(Edn::Str(self.string(line)?))
                    }
                    Some(b'#') => {
                        self.pos += 1;
                        let token = self.token();
                        match token {
                            "Inf" | "-Inf" | "NaN" => Ok(Edn::OtherNumber(format!("##{token}"))),
                            _ => Err(self.error(format!("unknown symbolic value `##{token}`"))),
                        }
                    }
                    Some(b':') => {
                        // A namespaced map, `#:ns{...}`: read as a plain map.
                        self.token();
                        match self.peek() {
                            Some(b'{') => self.form(depth + 1),
                            _ => Err(self.error("expected `{` after `#:ns`")),
                        }
                    }
                    Some(c) if c.is_ascii_alphabetic() => {
                        let tag = self.token().to_string();
                        let form =
                            self.required(depth + 1, &format!("expected a form after `#{tag}`"))?;
                        Ok(Edn::Tagged(Box::new(form)))
                    }
                    _ => Err(self.error("unexpected `#`")),
                }
            }
            _ => {
                let token = self.token();
                if token.is_empty() {
                    // A delimiter the callers do not start forms with, e.g. a stray `"`? No:
                    // strings are handled above; this is defensive.
                    self.pos += 1;
                    return Err(self.error(format!("unexpected `{}`", b as char)));
                }
                Self::atom(token).map_err(|m| self.error(m))
            }
        }
    }

    /// A run of non-delimiter bytes (always ends on a character boundary: delimiters are ASCII).
    fn token(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if is_delimiter(b) {
                break;
            }
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    fn atom(token: &str) -> Result<Edn, String> {
        match token {
            "nil" => return Ok(Edn::Nil),
            "true" => return Ok(Edn::Bool(true)),
            "false" => return Ok(Edn::Bool(false)),
            _ => {}
        }
        let unsigned = token.strip_prefix(['+', '-']).unwrap_or(token);
        if unsigned.starts_with(|c: char| c.is_ascii_digit()) {
            let digits = token.strip_suffix('N').unwrap_or(token);
            let digits = digits.strip_prefix('+').unwrap_or(digits);
            if let Ok(i) = digits.parse::<i64>() {
                return Ok(Edn::Int(i));
            }
            let number_like = unsigned
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/' | b'+' | b'-'));
            if number_like {
                return Ok(Edn::OtherNumber(token.to_string()));
            }
            return Err(format!("invalid number `{token}`"));
        }
        let symbol_char = |c: char| c.is_alphanumeric() || ".*+!-_?$%&=<>/:#'".contains(c);
        if let Some(name) = token.strip_prefix(':') {
            let name = name.strip_prefix(':').unwrap_or(name);
            if name.is_empty() || !name.chars().all(symbol_char) {
                return Err(format!("invalid keyword `{token}`"));
            }
            return Ok(Edn::Keyword(name.to_string()));
        }
        if token.starts_with('#') || !token.chars().all(symbol_char) {
            return Err(format!("unexpected `{token}`"));
        }
        Ok(Edn::Symbol(token.to_string()))
    }

    /// The rest of a string whose opening quote (on `line`) was read.
    fn string(&mut self, line: u64) -> Result<String, LineError> {
        let mut out = String::new();
        let mut seg = self.pos;
        loop {
            let Some(b) = self.peek() else {
                return Err(LineError {
                    line,
                    message: "malformed EDN: string opened here is never closed".to_string(),
                });
            };
            match b {
                b'"' => {
                    out.push_str(&self.text[seg..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                b'\\' => {
                    out.push_str(&self.text[seg..self.pos]);
                    self.pos += 1;
                    let Some(e) = self.peek() else { continue };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'r' => out.push('\r'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' => {
                            let c = self
                                .hex4()
                                .ok_or_else(|| self.error("invalid `\\u` escape"))?;
                            out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                        }
                        _ => {
                            return Err(self.error("invalid escape in string"));
                        }
                    }
                    seg = self.pos;
                }
                _ => self.pos += 1,
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes().get(self.pos..self.pos + 4)?;
        let mut v = 0u32;
        for &d in digits {
            v = v * 16 + (d as char).to_digit(16)?;
        }
        self.pos += 4;
        Some(v)
    }

    /// A character literal whose backslash was read.
    fn character(&mut self) -> Result<Edn, LineError> {
        let Some(first) = self.text[self.pos..].chars().next() else {
            return Err(self.error("a backslash at the end"));
        };
        self.pos += first.len_utf8();
        if !first.is_ascii_alphabetic() {
            return Ok(Edn::Char(first));
        }
        let rest = self.token();
        if rest.is_empty() {
            return Ok(Edn::Char(first));
        }
        let name = format!("{first}{rest}");
        let c = match name.as_str() {
            "newline" => '\n',
            "return" => '\r',
            "space" => ' ',
            "tab" => '\t',
            "formfeed" => '\u{c}',
            "backspace" => '\u{8}',
            _ => match name.strip_prefix('u').filter(|h| h.len() == 4) {
                Some(h) => u32::from_str_radix(h, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| self.error(format!("invalid character `\\{name}`")))?,
                None => return Err(self.error(format!("invalid character `\\{name}`"))),
            },
        };
        Ok(Edn::Char(c))
    }
}

fn edn_kind(e: &Edn) -> &'static str {
    match e {
        Edn::Nil => "nil",
        Edn::Bool(_) => "a boolean",
        Edn::Int(_) | Edn::OtherNumber(_) => "a number",
        Edn::Str(_) => "a string",
        Edn::Keyword(_) => "a keyword",
        Edn::Symbol(_) => "a symbol",
        Edn::Char(_) => "a character",
        Edn::Seq(_) => "a vector or list",
        Edn::Set(_) => "a set",
        Edn::Map(_) => "a map",
        Edn::Tagged(_) => "a tagged value",
    }
}

/// A value: keywords and symbols become strings without their colon, vectors, lists and
/// (sorted) sets become lists, tagged values are their value.
fn edn_val(e: Edn) -> Result<Val, String> {
    Ok(match e {
        Edn::Nil => Val::Nil,
        Edn::Bool(b) => Val::Bool(b),
        Edn::Int(i) => Val::Int(i),
        Edn::OtherNumber(n) => return Err(format!("only 64-bit integers are supported, not {n}")),
        Edn::Str(s) | Edn::Keyword(s) | Edn::Symbol(s) => Val::Str(s),
        Edn::Char(c) => Val::Str(c.to_string()),
        Edn::Seq(items) => Val::List(items.into_iter().map(edn_val).collect::<Result<_, _>>()?),
        Edn::Set(items) => {
            let mut vs = items
                .into_iter()
                .map(edn_val)
                .collect::<Result<Vec<_>, _>>()?;
            vs.sort();
            vs.dedup();
            Val::List(vs)
        }
        Edn::Map(_) => return Err("maps are not supported as values".to_string()),
        Edn::Tagged(inner) => edn_val(*inner)?,
    })
}

/// A name: a keyword, symbol or string.
fn edn_name(e: Edn) -> Result<String, String> {
    match e {
        Edn::Keyword(s) | Edn::Symbol(s) | Edn::Str(s) => Ok(s),
        other => Err(format!("expected a keyword, got {}", edn_kind(&other))),
    }
}

/// Feeds the operation map `form` (on `line`) to the builder.
fn edn_record(form: Edn, line: u64, builder: &mut Builder) -> Result<(), LineError> {
    let err = |message: String| LineError { line, message };
    let form = match form {
        Edn::Tagged(inner) => *inner,
        other => other,
    };
    let Edn::Map(pairs) = form else {
        return Err(err(format!(
            "expected an operation map, got {}",
            edn_kind(&form)
        )));
    };
    let mut process = None;
    let mut kind = None;
    let mut f = None;
    let mut value = None;
    let mut key = None;
    for (k, v) in pairs {
        let slot = match &k {
            Edn::Keyword(name) | Edn::Str(name) => match name.as_str() {
                "process" => &mut process,
                "type" => &mut kind,
                "f" => &mut f,
                "value" => &mut value,
                "key" => &mut key,
                _ => continue,
            },
            _ => continue,
        };
        if slot.is_some() {
            return Err(err(format!("duplicate key {}", EdnKey(&k))));
        }
        *slot = Some(v);
    }
    let process = match process {
        None => return Err(err("missing `:process`".to_string())),
        Some(Edn::Int(p)) => p,
        Some(Edn::Keyword(_) | Edn::Str(_) | Edn::Symbol(_)) => return Ok(()), // the nemesis
        Some(other) => {
            return Err(err(format!(
                "`:process` must be an integer or a name, got {}",
                edn_kind(&other)
            )))
        }
    };
    let kind = match kind {
        None => return Err(err("missing `:type`".to_string())),
        Some(k) => {
            let name = edn_name(k).map_err(|m| err(format!("`:type`: {m}")))?;
            Kind::parse(&name).map_err(err)?
        }
    };
    let f = match f {
        None => return Err(err("missing `:f`".to_string())),
        Some(f) => edn_name(f).map_err(|m| err(format!("`:f`: {m}")))?,
    };
    let value = match value {
        None => Val::Nil,
        Some(v) => edn_val(v).map_err(|m| err(format!("`:value`: {m}")))?,
    };
    let key = match key {
        None | Some(Edn::Nil) => None,
        Some(k) => Some(edn_val(k).map_err(|m| err(format!("`:key`: {m}")))?),
    };
    builder.push(Record {
        line,
        process,
        kind,
        f,
        value,
        key,
    })
}

struct EdnKey<'a>(&'a Edn);

impl fmt::Display for EdnKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Edn::Keyword(k) => write!(f, "`:{k}`"),
            Edn::Str(s) => write!(f, "{s:?}"),
            other => f.write_str(edn_kind(other)),
        }
    }
}
