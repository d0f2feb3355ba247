//! The poset interchange format of the published ParaMount code: one event per line,
//! `PID:(c1,c2,...,cn)`, a 0-based process id and the event's vector clock, whose own
//! component is the event's 1-based index on its process. Lines may come in any order; blank
//! lines and lines starting with `#` are ignored.
//!
//! It owns reading (with every check a clock must pass, reported by line and column), both of a
//! whole file and line by line as it streams in ([`PosetStream`], for online enumeration, which
//! needs the lines in an order consistent with the clocks), and writing that format; it knows nothing of enumeration.

use super::poset::Poset;
use hindsight_syntax::{Pos, SyntaxError};

/// The error `message` at 1-based line `line` and column `column` (in bytes: poset files are
/// ASCII).
fn err(line: usize, column: usize, message: impl Into<String>) -> SyntaxError {
    let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    SyntaxError::new(Pos::new(at(line), at(column)), message)
}

/// Whether `text` looks like a poset file: its first significant line starts `DIGITS:(`.
pub fn looks_like_poset(text: &str) -> bool {
    let Some(line) = text
        .trim_start_matches('\u{feff}')
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

/// One event line of a poset file, parsed and checked on its own (not yet against other lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// 1-based line number.
    pub line: usize,
    /// The 0-based process id.
    pub pid: usize,
    pub clock: Vec<u32>,
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
    fn expect(&mut self, c: u8, what: &str) -> Result<(), SyntaxError> {
        self.skip_spaces();
        if self.text.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(err(self.line, self.column(), format!("expected {what}")))
        }
    }
    fn number(&mut self, what: &str) -> Result<u32, SyntaxError> {
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

fn parse_line(text: &str, line: usize) -> Result<EventLine, SyntaxError> {
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
    Ok(EventLine { line, pid, clock })
}

/// Parses line `line` (1-based) of a poset file and checks what it can alone: `Ok(None)` for
/// a blank or `#` line; otherwise its dimension is bounded and, when `first` (the dimension and
/// line number of the first event line) is given, equal to it, its process exists and its own
/// component is not 0. Both [`parse_poset`] and [`PosetStream`] read every line through it.
pub fn event_line(
    raw: &str,
    line: usize,
    first: Option<(usize, usize)>,
) -> Result<Option<EventLine>, SyntaxError> {
    let t = raw.trim_end_matches('\r');
    let trimmed = t.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    let indent = t.len() - trimmed.len();
    let l = parse_line(trimmed, line).map_err(|mut e| {
        e.pos.col = e.pos.col.saturating_add(indent as u32);
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
    if let Some((n, first_line)) = first {
        if l.clock.len() != n {
            return Err(err(
                l.line,
                1,
                format!(
                    "the clock has {} components but the one on line {first_line} has {n}",
                    l.clock.len(),
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
    Ok(Some(l))
}

/// Checks the clock of `l`, event `own = l.clock[l.pid]` of its process, against `poset`, which
/// holds its process's events before it and every event its clock names (when it does not, the
/// message depends on `streaming`: a whole file lacks the event, a stream has not read it yet).
/// `line_of(q, j)` is the line of event `j` of process `q`, for messages.
fn check_clock(
    poset: &Poset,
    l: &EventLine,
    streaming: bool,
    line_of: impl Fn(usize, u32) -> usize,
) -> Result<(), SyntaxError> {
    let (p, n) = (l.pid, poset.processes());
    let own = l.clock[p];
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
                if streaming {
                    format!(
                        "component {q} is {j} but only {} events of process {q} have been read: online, every event must come after the events its clock names (lines in an order consistent with the clocks)",
                        poset.len(q)
                    )
                } else {
                    format!(
                        "component {q} is {j} but process {q} has only {} events",
                        poset.len(q)
                    )
                },
            ));
        }
        let other = poset.clock(q, j);
        let at = line_of(q, j);
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
    Ok(())
}

/// Reads and checks a poset file: every clock has the same number of components, process ids
/// are in range, each process's own components are exactly 1, 2, ..., clocks grow along a
/// process, each clock names existing events whose clocks it dominates, and no event happens
/// before itself.
pub fn parse_poset(text: &str) -> Result<Poset, SyntaxError> {
    let mut lines: Vec<EventLine> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let first = lines.first().map(|f| (f.clock.len(), f.line));
        if let Some(l) = event_line(raw, i + 1, first)? {
            lines.push(l);
        }
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
    // Consistency of every clock with the events it names. Checking against the whole poset
    // (rather than the events before it) is what lets the lines come in any order.
    for l in &lines {
        check_clock(&poset, l, false, |q, j| {
            lines[by_process[q][j as usize - 1]].line
        })?;
    }
    Ok(poset)
}

/// Reads a poset file one line at a time, as online enumeration needs: each event line is
/// checked by [`event_line`] and then, by [`PosetStream::check`], against the events read
/// before it, with the same rules and messages as [`parse_poset`], plus one: every event must
/// come after the events its clock names (a topological order, which a file written by
/// [`write_poset`] or a program streaming its events has). It keeps one line number per event,
/// for messages; the clocks themselves stay with the caller's poset.
#[derive(Debug, Default)]
pub struct PosetStream {
    /// The dimension and line of the first event line.
    first: Option<(usize, usize)>,
    /// Per process, the line of each event.
    lines: Vec<Vec<usize>>,
}

impl PosetStream {
    /// Parses line `line` (1-based); `Ok(None)` for a blank or comment line. The first event
    /// line fixes the dimension. `raw` may keep its line ending.
    pub fn parse(&mut self, raw: &str, line: usize) -> Result<Option<EventLine>, SyntaxError> {
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let l = event_line(raw, line, self.first)?;
        if let (None, Some(l)) = (self.first, &l) {
            self.first = Some((l.clock.len(), l.line));
            self.lines = vec![Vec::new(); l.clock.len()];
        }
        Ok(l)
    }

    /// Checks `l`, from [`PosetStream::parse`], against `read`, the poset of every event read
    /// before it (its processes those of the first line); on success the caller appends it.
    pub fn check(&mut self, l: &EventLine, read: &Poset) -> Result<(), SyntaxError> {
        let p = l.pid;
        let own = l.clock[p];
        let have = read.len(p);
        if own <= have {
            return Err(err(
                l.line,
                1,
                format!(
                    "process {p} already has an event {own} (line {}): own components must be 1, 2, ... without repeats",
                    self.lines[p][own as usize - 1]
                ),
            ));
        }
        if own > have + 1 {
            return Err(err(
                l.line,
                1,
                format!(
                    "event {own} of process {p} but process {p} has no event {} yet: own components must be 1, 2, ... without gaps, and online each process's events must come in order",
                    have + 1
                ),
            ));
        }
        check_clock(read, l, true, |q, j| self.lines[q][j as usize - 1])?;
        self.lines[p].push(l.line);
        Ok(())
    }
}

/// Reads a poset file through [`PosetStream`], as `hindsight cuts --online` does: the lines
/// must come in an order consistent with the clocks. On such files it accepts and rejects
/// exactly what [`parse_poset`] does.
pub fn parse_poset_in_order(text: &str) -> Result<Poset, SyntaxError> {
    let mut stream = PosetStream::default();
    let mut poset = Poset::new(0);
    for (i, raw) in text.lines().enumerate() {
        let Some(l) = stream.parse(raw, i + 1)? else {
            continue;
        };
        if poset.processes() != l.clock.len() {
            poset = Poset::new(l.clock.len());
        }
        stream.check(&l, &poset)?;
        poset.push(l.pid, &l.clock);
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
