//! The text rendering: findings grouped, each event on its own line, a summary at the end.

use crate::{EventRef, RenderOptions, Report};
use serde_json::Value;
use std::io::{self, Write};

fn event_line(e: &EventRef) -> String {
    match &e.location {
        Some(loc) => format!("#{} {} {} at {}", e.index, e.thread, e.op, loc),
        None => format!("#{} {} {}", e.index, e.thread, e.op),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Text bound for a terminal with its ASCII control characters other than the line break
/// written as escapes (`\u{1b}`): names come from the input, and an escape sequence in a
/// variable's name must not drive the user's terminal.
pub struct EscapeControls<W>(pub W);

impl<W: Write> Write for EscapeControls<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        // Bytes below 0x80 are never part of a multi-byte UTF-8 character, so a buffer may be
        // split anywhere.
        let mut rest = buf;
        while let Some(i) = rest
            .iter()
            .position(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
        {
            self.0.write_all(&rest[..i])?;
            write!(self.0, "\\u{{{:x}}}", rest[i])?;
            rest = &rest[i + 1..];
        }
        self.0.write_all(rest)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// A line of a witness's short form: an event, or the events left out between two shown ones.
#[derive(Debug, PartialEq, Eq)]
pub enum ScheduleLine<'a> {
    Event(&'a EventRef),
    Elided(Elided),
}

/// Consecutive events of one thread a witness's short form leaves out.
#[derive(Debug, PartialEq, Eq)]
pub struct Elided {
    pub events: usize,
    pub thread: String,
    /// How many of them acquire a lock: the critical sections the run passes through.
    pub acquires: usize,
}

impl std::fmt::Display for Elided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "... {} event(s) of {}",
            thousands(self.events),
            self.thread
        )?;
        if self.acquires > 0 {
            write!(f, ", {} lock acquire(s)", thousands(self.acquires))?;
        }
        write!(f, " ...")
    }
}

/// `n` with a comma between groups of three digits: `3,712`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The operation name of an event (`acq` of `acq(L1)`).
fn op_name(e: &EventRef) -> &str {
    e.op.split('(').next().unwrap_or(&e.op)
}

/// How many events a short witness keeps at the end of each run of one thread: what that
/// thread did just before the next one takes over (the release another thread's acquire
/// waits for, the write a read is to see).
const RUN_TAIL: usize = 2;

/// The short form of a witness's schedule: it runs thread by thread, in runs of consecutive
/// events of one thread, and what orders the racy pair is where the runs meet. Of each run it
/// shows the first event and the last [`RUN_TAIL`], every fork, join, send and receive, and
/// both ends of every lock hand-off between threads (see [`hands_a_lock_over`]); the events
/// between, mostly critical sections of locks no other thread takes next, are folded into one
/// line with their count.
pub fn short_schedule(schedule: &[EventRef]) -> Vec<ScheduleLine<'_>> {
    let hands_over = hands_a_lock_over(schedule);
    let mut out = Vec::new();
    let mut start = 0;
    while start < schedule.len() {
        let thread = &schedule[start].thread;
        let end = schedule[start..]
            .iter()
            .position(|e| &e.thread != thread)
            .map_or(schedule.len(), |n| start + n);
        let mut folded: Option<Elided> = None;
        for (i, e) in schedule.iter().enumerate().take(end).skip(start) {
            let shown = i == start
                || i + RUN_TAIL >= end
                || hands_over[i]
                || matches!(op_name(e), "fork" | "join" | "snd" | "rcv");
            if shown {
                if let Some(run) = folded.take() {
                    let from = i - run.events;
                    out.extend(fold_or_show(run, &schedule[from..i]));
                }
                out.push(ScheduleLine::Event(e));
            } else {
                let run = folded.get_or_insert_with(|| Elided {
                    events: 0,
                    thread: thread.clone(),
                    acquires: 0,
                });
                run.events += 1;
                run.acquires += usize::from(op_name(e) == "acq");
            }
        }
        start = end;
    }
    out
}

/// Per event of `schedule`, whether it is one end of a lock hand-off: a release and the next
/// acquire of its lock by another thread, which waits for it. Folded into a count, it would
/// leave the reader of a short witness unable to see why the later thread's critical section
/// comes where it does. (The values reads see are left folded: a witness of thousands of
/// events reads hundreds of variables other threads wrote, and showing each read and its
/// write made cache4j's short witnesses eight times longer.)
fn hands_a_lock_over(schedule: &[EventRef]) -> Vec<bool> {
    fn lock(e: &EventRef) -> Option<&str> {
        e.op.split_once('(').and_then(|(_, l)| l.strip_suffix(')'))
    }
    let mut hands_over = vec![false; schedule.len()];
    // Per lock, its last release.
    let mut released: std::collections::HashMap<&str, usize> = Default::default();
    for (i, e) in schedule.iter().enumerate() {
        match op_name(e) {
            "acq" => {
                if let Some(&j) = lock(e).and_then(|l| released.get(l)) {
                    if schedule[j].thread != e.thread {
                        hands_over[j] = true;
                        hands_over[i] = true;
                    }
                }
            }
            "rel" => {
                if let Some(l) = lock(e) {
                    released.insert(l, i);
                }
            }
            _ => {}
        }
    }
    hands_over
}

/// A run of left-out events as one line, or, when it is a single event, the event itself (a
/// line saying "1 event" takes as much room as the event).
fn fold_or_show(run: Elided, events: &[EventRef]) -> Vec<ScheduleLine<'_>> {
    match events {
        [e] => vec![ScheduleLine::Event(e)],
        _ => vec![ScheduleLine::Elided(run)],
    }
}

/// Findings in the order of their groups' first appearance, each group under a heading;
/// past `options.limit` findings that stand for occurrence groups, one line for the rest.
pub fn render_text(
    report: &Report,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let out = &mut EscapeControls(out);
    if let Some(text) = &report.text {
        return out.write_all(text.as_bytes());
    }
    let limit = options.limit.unwrap_or(usize::MAX);
    let mut shown = 0usize;
    let (mut hidden, mut hidden_occurrences) = (0usize, 0u64);
    let groups = crate::grouped(&report.findings);
    for (group, findings) in &groups {
        if let [f] = findings.as_slice() {
            if let Some(n) = f.occurrences {
                if shown == limit {
                    hidden += 1;
                    hidden_occurrences += n;
                    continue;
                }
                shown += 1;
            }
        }
        if let Some(g) = group {
            writeln!(out, "{g}: {} finding(s)", findings.len())?;
        }
        let indent = if group.is_some() { "  " } else { "" };
        for f in findings {
            writeln!(out, "{indent}{}: {}", f.kind, f.message)?;
            for e in &f.events {
                writeln!(out, "{indent}    {}", event_line(e))?;
            }
            if let Some(w) = crate::witness_of(f) {
                writeln!(
                    out,
                    "{indent}    witness: run these {} event(s), then both accesses are enabled:",
                    w.schedule.len()
                )?;
                if options.full_witness {
                    for e in &w.schedule {
                        writeln!(out, "{indent}      {}", event_line(e))?;
                    }
                } else {
                    for line in short_schedule(&w.schedule) {
                        match line {
                            ScheduleLine::Event(e) => {
                                writeln!(out, "{indent}      {}", event_line(e))?
                            }
                            ScheduleLine::Elided(run) => writeln!(out, "{indent}      {run}")?,
                        }
                    }
                }
            }
        }
    }
    if hidden > 0 {
        writeln!(
            out,
            "... and {hidden} more finding(s) standing for {hidden_occurrences} occurrence(s) (--limit shows more)"
        )?;
    }
    let summary: Vec<String> = report
        .summary
        .iter()
        .map(|(k, v)| format!("{k} {}", scalar(v)))
        .collect();
    writeln!(
        out,
        "{}: {} finding(s); {}",
        report.analysis,
        report.findings.len(),
        summary.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(index: u64, thread: &str, op: &str) -> EventRef {
        EventRef {
            index,
            thread: thread.to_owned(),
            op: op.to_owned(),
            location: None,
        }
    }

    /// A schedule from a compact description: per run, the thread and its operations.
    fn schedule(runs: &[(&str, &[&str])]) -> Vec<EventRef> {
        let mut out = Vec::new();
        for (t, ops) in runs {
            for op in *ops {
                out.push(event(out.len() as u64, t, op));
            }
        }
        out
    }

    /// What a reader recovers from the short form: every event, shown or counted, in order;
    /// per thread run, the first and last two events and every fork, join, send and receive
    /// are shown, and folded lines stand for at least two events.
    fn check(s: &[EventRef]) {
        let short = short_schedule(s);
        let mut at = 0;
        for line in &short {
            match line {
                ScheduleLine::Event(e) => {
                    assert_eq!(e.index, s[at].index, "{short:?}");
                    at += 1;
                }
                ScheduleLine::Elided(run) => {
                    assert!(run.events >= 2, "{short:?}");
                    let folded = &s[at..at + run.events];
                    assert!(folded.iter().all(|e| e.thread == run.thread));
                    let acquires = folded.iter().filter(|e| e.op.starts_with("acq(")).count();
                    assert_eq!(run.acquires, acquires);
                    assert!(folded
                        .iter()
                        .all(|e| !matches!(op_name(e), "fork" | "join" | "snd" | "rcv")));
                    at += run.events;
                }
            }
        }
        assert_eq!(at, s.len());
        let shown: Vec<u64> = short
            .iter()
            .filter_map(|l| match l {
                ScheduleLine::Event(e) => Some(e.index),
                ScheduleLine::Elided(_) => None,
            })
            .collect();
        for (i, e) in s.iter().enumerate() {
            let run_starts = i == 0 || s[i - 1].thread != e.thread;
            let run_ends_soon = s[i..].iter().take(RUN_TAIL).any(|n| n.thread != e.thread)
                || i + RUN_TAIL >= s.len();
            if run_starts || run_ends_soon {
                assert!(shown.contains(&e.index), "#{i} hidden: {short:?}");
            }
        }
    }

    #[test]
    fn lock_churn_of_a_long_run_folds_into_a_count() {
        let mut churn: Vec<&str> = vec!["fork(T2)"];
        for _ in 0..1000 {
            churn.extend(["acq(L1)", "r(x)", "rel(L1)"]);
        }
        churn.push("w(y)");
        let s = schedule(&[("T1", &churn), ("T2", &["acq(L2)", "rel(L2)", "r(z)"])]);
        let lines = shown(&s);
        assert_eq!(
            lines,
            [
                "#0 T1 fork(T2)",
                "... 2,999 event(s) of T1, 1,000 lock acquire(s) ...",
                "#3000 T1 rel(L1)",
                "#3001 T1 w(y)",
                "#3002 T2 acq(L2)",
                "#3003 T2 rel(L2)",
                "#3004 T2 r(z)",
            ]
        );
        check(&s);
    }

    /// The short form's lines as text prints them (events without their locations).
    fn shown(s: &[EventRef]) -> Vec<String> {
        short_schedule(s)
            .iter()
            .map(|l| match l {
                ScheduleLine::Event(e) => format!("#{} {} {}", e.index, e.thread, e.op),
                ScheduleLine::Elided(run) => run.to_string(),
            })
            .collect()
    }

    #[test]
    fn a_hand_off_inside_a_long_run_is_kept() {
        // T1 releases L1 in the middle of its run and T2 then takes it: both ends of the
        // hand-off stay, the churn of L2 around it folds (with T1's write of x).
        let mut t1: Vec<&str> = Vec::new();
        for _ in 0..10 {
            t1.extend(["acq(L2)", "rel(L2)"]);
        }
        t1.extend(["acq(L1)", "w(x)", "rel(L1)"]);
        for _ in 0..10 {
            t1.extend(["acq(L2)", "rel(L2)"]);
        }
        let s = schedule(&[("T1", &t1), ("T2", &["acq(L1)", "r(x)", "rel(L1)"])]);
        let lines = shown(&s);
        assert_eq!(
            lines,
            [
                "#0 T1 acq(L2)",
                "... 21 event(s) of T1, 10 lock acquire(s) ...",
                "#22 T1 rel(L1)",
                "... 18 event(s) of T1, 9 lock acquire(s) ...",
                "#41 T1 acq(L2)",
                "#42 T1 rel(L2)",
                "#43 T2 acq(L1)",
                "#44 T2 r(x)",
                "#45 T2 rel(L1)",
            ]
        );
        check(&s);
    }

    #[test]
    fn short_forms_account_for_every_event() {
        // Every schedule of up to 6 events over two threads and four operations.
        let ops = ["r(x)", "acq(L)", "fork(T9)", "w(x)"];
        for n in 0..=6u32 {
            for code in 0..8u32.pow(n) {
                let s: Vec<EventRef> = (0..n)
                    .map(|i| {
                        let c = code / 8u32.pow(i) % 8;
                        let t = if c % 2 == 0 { "T1" } else { "T2" };
                        event(u64::from(i), t, ops[(c / 2) as usize])
                    })
                    .collect();
                check(&s);
            }
        }
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(3712), "3,712");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
