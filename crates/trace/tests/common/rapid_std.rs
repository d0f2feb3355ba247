//! RAPID's reader of the STD format, rule for rule, to check that what `convert --to rapid`
//! writes is read by RAPID as the trace it was (focs-lab/rapid: `parse/std/Parse.java`,
//! `getInfo`; `parse/std/ParseStandard.java`, `hasNext` and `eInfo2Event`).
//!
//! Shared by the tests of the trace crate and, through `#[path]`, those of the CLI.

#![allow(dead_code)]

use hindsight_trace::{Op, Trace};

/// The event types `eInfo2Event` accepts (RAPID's `EventType` without `BRANCH`, which it
/// rejects as an "Illegal type of event").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RapidOp {
    Acquire(String),
    Release(String),
    Read(String),
    Write(String),
    Fork(String),
    Join(String),
    Begin,
    End,
}

/// One event as RAPID builds it: the thread's name, the operation with its operand (`decor`),
/// and the location id `LID`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RapidEvent {
    pub thread: String,
    pub op: RapidOp,
    pub loc: i32,
}

/// `BufferedReader.readLine` over the whole input: a line ends at `\n`, `\r` or `\r\n`; a last
/// line without a terminator is still a line; an empty input has no lines.
pub fn read_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                i += 1;
                start = i;
            }
            b'\r' => {
                lines.push(&text[start..i]);
                i += 1;
                if bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// Java's `\s` without flags: `[ \t\n\x0B\f\r]`.
fn java_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r')
}

/// What Java's `$` accepts after the last matched character when neither MULTILINE nor
/// UNIX_LINES is set: the end of the input, or one line terminator that ends it.
fn java_end(rest: &str) -> bool {
    matches!(
        rest,
        "" | "\n" | "\r\n" | "\r" | "\u{85}" | "\u{2028}" | "\u{2029}"
    )
}

/// `Pattern.compile("^(" + alternatives + ")[(]([^\\s]+)[)]$").matcher(op).find()`: the
/// alternatives are tried in order, and for each the operand `[^\s]+` greedily, backing off
/// one character at a time. Returns groups 1 and 2.
fn find<'a>(alternatives: &[&'a str], op: &'a str) -> Option<(&'a str, &'a str)> {
    for &keyword in alternatives {
        let Some(rest) = op.strip_prefix(keyword).and_then(|r| r.strip_prefix('(')) else {
            continue;
        };
        let run = rest.find(java_space).unwrap_or(rest.len());
        let mut ends: Vec<usize> = rest[..run]
            .char_indices()
            .map(|(i, c)| i + c.len_utf8())
            .collect();
        ends.reverse();
        for end in ends {
            if let Some(after) = rest[end..].strip_prefix(')') {
                if java_end(after) {
                    return Some((keyword, &rest[..end]));
                }
            }
        }
    }
    None
}

/// `Parse.matchStr`, in the order of RAPID's `EventType`.
const PRIMITIVE: &[&str] = &[
    "acq", "rel", "r", "w", "fork", "join", "begin", "end", "dummy",
];
/// `genericEventPattern`: the same alternatives and `sync`.
const GENERIC: &[&str] = &[
    "acq", "rel", "r", "w", "fork", "join", "begin", "end", "dummy", "sync",
];

/// `Integer.parseInt(s)`: an optional `+` or `-`, then one or more decimal digits, the value
/// within `i32`. (Java also takes non-ASCII decimal digits, which no writer here produces;
/// refusing them only makes this reader stricter than RAPID's.)
pub fn parse_int(s: &str) -> Result<i32, String> {
    let err = || format!("NumberFormatException: For input string: \"{s}\"");
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err());
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        value = value * 10 + i64::from(b - b'0');
        if value > i64::from(i32::MAX) + 1 {
            return Err(err());
        }
    }
    let value = if negative { -value } else { value };
    i32::try_from(value).map_err(|_| err())
}

/// `Parse.getInfo` then `ParseStandard.eInfo2Event` on one line as `readLine` returns it.
pub fn parse_line(line: &str) -> Result<RapidEvent, String> {
    let cannot = || format!("CannotParseException: {line}");
    // `line.split("\\|", -1)`: every field, trailing empty ones included.
    let fields: Vec<&str> = line.split('|').collect();
    let [thread, op, loc] = fields[..] else {
        return Err(cannot());
    };
    let (keyword, operand) = if op.starts_with("begin") {
        ("begin", None)
    } else if op.starts_with("end") {
        ("end", None)
    } else {
        if find(GENERIC, op).is_none() {
            return Err(cannot());
        }
        let (keyword, operand) = find(PRIMITIVE, op).ok_or_else(cannot)?;
        (keyword, Some(operand.to_owned()))
    };
    let loc = parse_int(loc)?;
    let decor = || operand.clone().unwrap_or_default();
    let op = match keyword {
        "r" => RapidOp::Read(decor()),
        "w" => RapidOp::Write(decor()),
        "acq" => RapidOp::Acquire(decor()),
        "rel" => RapidOp::Release(decor()),
        "fork" => RapidOp::Fork(decor()),
        "join" => RapidOp::Join(decor()),
        "begin" => RapidOp::Begin,
        "end" => RapidOp::End,
        _ => return Err("IllegalArgumentException: Illegal type of event BRANCH".into()),
    };
    Ok(RapidEvent {
        thread: thread.to_owned(),
        op,
        loc,
    })
}

/// A whole file, line by line; the first line RAPID cannot read is an error.
pub fn parse(text: &str) -> Result<Vec<RapidEvent>, String> {
    read_lines(text)
        .into_iter()
        .enumerate()
        .map(|(i, line)| parse_line(line).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// The location map written beside a RAPID trace: `N<TAB>LOCATION` per line, numbered 1, 2,
/// 3, ... in order. Index `n` of the result is location `n`; index 0 is `None`.
pub fn parse_locations(text: &str) -> Result<Vec<Option<String>>, String> {
    let mut out = vec![None];
    for (i, line) in text.split_terminator('\n').enumerate() {
        let (n, loc) = line
            .split_once('\t')
            .ok_or_else(|| format!("map line {}: no tab in {line:?}", i + 1))?;
        if n != (i + 1).to_string() {
            return Err(format!("map line {}: number {n:?} out of order", i + 1));
        }
        out.push(Some(loc.to_owned()));
    }
    Ok(out)
}

/// An event as RAPID sees it, with its location through the map: what must survive.
pub type Seen = (String, RapidOp, Option<String>);

/// The events of `trace` as RAPID must read them: without `req`, `begin` without its label.
pub fn expected(trace: &Trace) -> Vec<Seen> {
    let n = &trace.names;
    trace
        .events
        .iter()
        .filter(|e| !matches!(e.op, Op::Request(_)))
        .map(|e| {
            let op = match e.op {
                Op::Read(x) => RapidOp::Read(n.var(x).into()),
                Op::Write(x) => RapidOp::Write(n.var(x).into()),
                Op::Acquire(l) => RapidOp::Acquire(n.lock(l).into()),
                Op::Release(l) => RapidOp::Release(n.lock(l).into()),
                Op::Fork(t) => RapidOp::Fork(n.thread(t).into()),
                Op::Join(t) => RapidOp::Join(n.thread(t).into()),
                Op::Begin(_) => RapidOp::Begin,
                Op::End => RapidOp::End,
                ref op => panic!("{op:?} has no RAPID equivalent"),
            };
            let loc = e.loc.map(|l| n.location(l).to_owned());
            (n.thread(e.thread).to_owned(), op, loc)
        })
        .collect()
}
