//! The poset interchange format of the published ParaMount code: one event per line,
//! `PID:(c1,c2,...,cn)`, a 0-based process id and the event's vector clock, whose own
//! component is the event's 1-based index on its process. Lines may come in any order; blank
//! lines and lines starting with `#` are ignored.
//!
//! It owns reading (with every check a clock must pass, reported by line and column) and
//! writing that format; it knows nothing of enumeration.

use super::poset::Poset;
use std::fmt;

/// What is wrong with a poset file, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PosetFileError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PosetFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PosetFileError {}

fn err(line: usize, column: usize, message: impl Into<String>) -> PosetFileError {
    PosetFileError {
        line,
        column,
        message: message.into(),
    }
}

/// Whether `text` looks like a poset file: its first significant line starts `DIGITS:(`.
pub fn looks_like_poset(text: &str) -> bool {
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    else {
        return false;
    };
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].trim_start().starts_with(':') && {
        let rest = line[digits..].trim_start()[1..].trim_start();
        rest.starts_with('(')
    }
}

/// The most processes a poset file may have: a poset keeps an `n`-component zero row per
/// process and QuickLex `n * n` stack slots, so `n` is bounded before anything is allocated.
pub const MAX_PROCESSES: usize = 4096;

struct Line {
    line: usize,
    pid: usize,
    clock: Vec<u32>,
}

/// A tiny cursor over one line, tracking the column for messages.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
}

impl Cursor<'_> {
    fn skip_spaces(&mut self) {
        while self.at < self.text.len()
            && (self.text[self.at] == b' ' || self.text[self.at] == b'\t')
        {
            self.at += 1;
        }
    }
    fn column(&self) -> usize {
        self.at + 1
    }
    fn expect(&mut self, c: u8, what: &str) -> Result<(), PosetFileError> {
        self.skip_spaces();
        if self.text.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(err(self.line, self.column(), format!("expected {what}")))
        }
    }
    fn number(&mut self, what: &str) -> Result<u32, PosetFileError> {
        self.skip_spaces();
        let start = self.at;
        let mut v: u64 = 0;
        while let Some(d) = self.text.get(self.at).filter(|b| b.is_ascii_digit()) {
            v = v * 10 + u64::from(d - b'0');
            if v > u64::from(u32::MAX) {
                return Err(err(self.line, start + 1, format!("{what} is too large")));
            }
            self.at += 1;
        }
        if self.at == start {
            return Err(err(
                self.line,
                start + 1,
                format!("expected {what} (a number)"),
            ));
        }
        Ok(v as u32)
    }
}

fn parse_line(text: &str, line: usize) -> Result<Line, PosetFileError> {
    let mut c = Cursor {
        text: text.as_bytes(),
        at: 0,
        line,
    };
    let pid = c.number("a process id")? as usize;
    c.expect(b':', "`:` after the process id")?;
    c.expect(b'(', "`(` opening the vector clock")?;
    let mut clock = Vec::new();
    loop {
        clock.push(c.number("a clock component")?);
        c.skip_spaces();
        match c.text.get(c.at) {
            Some(b',') => c.at += 1,
            Some(b')') => {
                c.at += 1;
                break;
            }
            _ => {
                return Err(err(
                    line,
                    c.column(),
                    "expected `,` or `)` in the vector clock",
                ))
            }
        }
    }
    c.skip_spaces();
    if c.at < c.text.len() {
        return Err(err(
            line,
            c.column(),
            "unexpected text after the vector clock",
        ));
    }
    Ok(Line { line, pid, clock })
}

/// Reads and checks a poset file: every clock has the same number of components, process ids
/// are in range, each process's own components are exactly 1, 2, ..., clocks grow along a
/// process, each clock names existing events whose clocks it dominates, and no event happens
/// before itself.
pub fn parse_poset(text: &str) -> Result<Poset, PosetFileError> {
    let mut lines: Vec<Line> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim_end_matches('\r');
        let trimmed = t.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = t.len() - trimmed.len();
        let l = parse_line(trimmed, i + 1).map_err(|mut e| {
            e.column += indent;
            e
        })?;
        if l.clock.len() > MAX_PROCESSES {
            return Err(err(
                l.line,
                1,
                format!(
                    "the clock has {} components: at most {MAX_PROCESSES} processes are supported",
                    l.clock.len()
                ),
            ));
        }
        if let Some(first) = lines.first() {
            if l.clock.len() != first.clock.len() {
                return Err(err(
                    l.line,
                    1,
                    format!(
                        "the clock has {} components but the one on line {} has {}",
                        l.clock.len(),
                        first.line,
                        first.clock.len()
                    ),
                ));
            }
        }
        if l.pid >= l.clock.len() {
            return Err(err(
                l.line,
                1,
                format!(
                    "process {} does not exist: clocks have {} components (processes 0..{})",
                    l.pid,
                    l.clock.len(),
                    l.clock.len() - 1
                ),
            ));
        }
        if l.clock[l.pid] == 0 {
            return Err(err(
                l.line,
                1,
                format!(
                    "the event's own component (component {}) is 0; it must be its 1-based index on process {}",
                    l.pid, l.pid
                ),
            ));
        }
        lines.push(l);
    }
    let n = lines.first().map_or(0, |l| l.clock.len());
    // Per process, its lines sorted by own index.
    let mut by_process: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, l) in lines.iter().enumerate() {
        by_process[l.pid].push(i);
    }
    for (p, list) in by_process.iter_mut().enumerate() {
        list.sort_by_key(|&i| lines[i].clock[p]);
        for (k, &i) in list.iter().enumerate() {
            let own = lines[i].clock[p] as usize;
            if own != k + 1 {
                let l = &lines[i];
                return Err(if own <= k {
                    let other = &lines[list[k - 1]];
                    err(
                        l.line,
                        1,
                        format!(
                            "process {p} already has an event {own} (line {}): own components must be 1, 2, ... without repeats",
                            other.line
                        ),
                    )
                } else {
                    err(
                        l.line,
                        1,
                        format!(
                            "event {own} of process {p} but process {p} has no event {}: own components must be 1, 2, ... without gaps",
                            k + 1
                        ),
                    )
                });
            }
        }
    }
    let mut poset = Poset::new(n);
    for (p, list) in by_process.iter().enumerate() {
        for &i in list {
            poset.push(p, &lines[i].clock);
        }
    }
    // Consistency of every clock with the events it names.
    for (p, list) in by_process.iter().enumerate() {
        for (k, &i) in list.iter().enumerate() {
            let l = &lines[i];
            let own = (k + 1) as u32;
            let prev = poset.clock(p, own - 1);
            if let Some(q) = (0..n).find(|&q| l.clock[q] < prev[q]) {
                return Err(err(
                    l.line,
                    1,
                    format!(
                        "component {q} is {} but the previous event of process {p} already has {}: clocks cannot shrink along a process",
                        l.clock[q], prev[q]
                    ),
                ));
            }
            for q in (0..n).filter(|&q| q != p) {
                let j = l.clock[q];
                if j == 0 {
                    continue;
                }
                if j > poset.len(q) {
                    return Err(err(
                        l.line,
                        1,
                        format!(
                            "component {q} is {j} but process {q} has only {} events",
                            poset.len(q)
                        ),
                    ));
                }
                let other = poset.clock(q, j);
                let at = lines[by_process[q][j as usize - 1]].line;
                if other[p] >= own {
                    return Err(err(
                        l.line,
                        1,
                        format!(
                            "event {j} of process {q} (line {at}) happens after this event and before it: a cycle"
                        ),
                    ));
                }
                if let Some(r) = (0..n).find(|&r| other[r] > l.clock[r]) {
                    return Err(err(
                        l.line,
                        1,
                        format!(
                            "the clock includes event {j} of process {q} (line {at}) but not what that event happens after: its component {r} is {} here, {} there",
                            l.clock[r], other[r]
                        ),
                    ));
                }
            }
        }
    }
    Ok(poset)
}

/// Writes `poset` in the interchange format, events in a topological order.
pub fn write_poset(poset: &Poset) -> String {
    let mut out = String::new();
    for (p, i) in poset.topological_order() {
        out.push_str(&p.to_string());
        out.push_str(":(");
        for (q, c) in poset.clock(p, i).iter().enumerate() {
            if q > 0 {
                out.push(',');
            }
            out.push_str(&c.to_string());
        }
        out.push_str(")\n");
    }
    out
}
