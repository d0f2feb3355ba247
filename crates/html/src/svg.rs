//! The pictures of a page as SVG text: a swimlane timeline per finding, a Porcupine-style
//! history per `lin` part. Every name in them comes from the input and goes through [`esc`].

use crate::esc;
use hindsight_report::{BarRole, EventRef, HistoryFigure, Timeline, TimelineEvent};
use std::fmt::Write;

const LANE_LABEL: f64 = 110.0;
const COLUMN: f64 = 46.0;
const LANE: f64 = 64.0;
const TOP: f64 = 34.0;
/// Labels longer than this are cut in a picture (the full text is in its tooltip and table).
const LABEL_CHARS: usize = 14;

/// `s`, cut to `n` characters with an ellipsis.
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The timeline of a finding without a window of the trace: its own events only.
pub fn bare_timeline(events: &[EventRef]) -> Timeline {
    let mut lanes: Vec<String> = Vec::new();
    let mut drawn = Vec::new();
    let mut sorted: Vec<&EventRef> = events.iter().collect();
    sorted.sort_by_key(|e| e.index);
    for e in sorted {
        let lane = match lanes.iter().position(|l| *l == e.thread) {
            Some(p) => p,
            None => {
                lanes.push(e.thread.clone());
                lanes.len() - 1
            }
        };
        drawn.push(TimelineEvent {
            event: e.clone(),
            lane,
            held: Vec::new(),
            highlight: true,
            skipped_before: 0,
        });
    }
    Timeline {
        lanes,
        events: drawn,
        edges: Vec::new(),
        ordered: None,
    }
}

fn op_class(op: &str) -> &'static str {
    let head = op.split('(').next().unwrap_or("");
    match head {
        "r" => "ev-r",
        "w" => "ev-w",
        "acq" | "rel" | "req" => "ev-lock",
        "fork" | "join" => "ev-fork",
        _ => "ev-other",
    }
}

/// A swimlane timeline: one lane per thread, events in trace order left to right, locks held
/// as spans, happens-before edges as arrows (solid where they order the finding's pair). With
/// `frontier`, the finding's events are the frontier of a global state: a line is drawn just after
/// them across the lanes.
pub fn swimlane(t: &Timeline, id: &str, frontier: bool) -> String {
    let columns = t.events.len().max(1) as f64;
    let width = LANE_LABEL + COLUMN * (columns + 0.5);
    let height = TOP + LANE * t.lanes.len().max(1) as f64 + 8.0;
    let x = |i: usize| LANE_LABEL + COLUMN * (i as f64 + 0.5);
    let y = |lane: usize| TOP + LANE * lane as f64 + LANE / 2.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="swimlane" id="{id}" xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="timeline">"#
    );
    let _ = write!(
        s,
        r#"<defs><marker id="{id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>"#
    );
    for (lane, name) in t.lanes.iter().enumerate() {
        let yy = y(lane);
        let _ = write!(
            s,
            r#"<g class="lane"><line x1="{LANE_LABEL}" y1="{yy}" x2="{width:.0}" y2="{yy}" class="lane-line"/><text x="6" y="{ty}" class="lane-name"><title>{full}</title>{short}</text></g>"#,
            ty = yy + 4.0,
            full = esc(name),
            short = esc(&cut(name, LABEL_CHARS)),
        );
    }
    // Locks held: per lane and lock, runs of consecutive drawn events of the lane holding it.
    for lane in 0..t.lanes.len() {
        let in_lane: Vec<(usize, &TimelineEvent)> = t
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.lane == lane)
            .collect();
        let mut locks: Vec<&str> = Vec::new();
        for (_, e) in &in_lane {
            for l in &e.held {
                if !locks.contains(&l.as_str()) {
                    locks.push(l);
                }
            }
        }
        for (depth, lock) in locks.iter().enumerate() {
            let mut run: Option<(usize, usize)> = None;
            let mut spans = Vec::new();
            for (i, e) in &in_lane {
                let holds = e.held.iter().any(|h| h == lock);
                // A gap may hide a release and a new acquire: the span breaks there.
                match run {
                    Some((a, _)) if holds && e.skipped_before == 0 => run = Some((a, *i)),
                    _ => {
                        spans.extend(run);
                        run = holds.then_some((*i, *i));
                    }
                }
            }
            spans.extend(run);
            let pad = 4.0 * depth as f64;
            for (a, b) in spans {
                let (x1, x2) = (x(a) - 14.0 - pad, x(b) + 14.0 + pad);
                let top = y(lane) - 20.0 - pad;
                let _ = write!(
                    s,
                    r#"<g class="lock-span"><rect x="{x1}" y="{top}" width="{w}" height="{h}" rx="5"/><text x="{tx}" y="{ty}" class="lock-name">{name}</text></g>"#,
                    w = x2 - x1,
                    h = 40.0 + 2.0 * pad,
                    tx = x1 + 3.0,
                    ty = top + 9.0,
                    name = esc(&cut(lock, LABEL_CHARS)),
                );
            }
        }
    }
    for edge in &t.edges {
        let (a, b) = (&t.events[edge.from], &t.events[edge.to]);
        let class = if edge.orders_pair {
            "hb hb-orders"
        } else {
            "hb"
        };
        let _ = write!(
            s,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}" marker-end="url(#{id}-arrow)"><title>{} (happens-before{})</title></line>"#,
            x(edge.from),
            y(a.lane),
            x(edge.to),
            y(b.lane),
            esc(&edge.label),
            if edge.orders_pair {
                ", orders the pair"
            } else {
                ""
            },
        );
    }
    for (i, e) in t.events.iter().enumerate() {
        let (xx, yy) = (x(i), y(e.lane));
        if e.skipped_before > 0 {
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" class="gap"><title>{} events of this thread not drawn</title>⋯{}</text>"#,
                xx - COLUMN / 2.0 - 4.0,
                yy + 24.0,
                e.skipped_before,
                e.skipped_before
            );
        }
        let class = format!(
            "ev {}{}",
            op_class(&e.event.op),
            if e.highlight { " pair" } else { "" }
        );
        let r = if e.highlight { 8.0 } else { 5.5 };
        let _ = write!(
            s,
            r##"<g class="{class}" data-index="{index}"><circle cx="{xx}" cy="{yy}" r="{r}"/><text x="{xx}" y="{ly}" class="op">{short}</text><title>#{index} {thread}: {op}{loc}{held}</title></g>"##,
            index = e.event.index,
            ly = yy + 22.0 + if i % 2 == 1 { 9.0 } else { 0.0 },
            short = esc(&cut(&e.event.op, 10)),
            thread = esc(&e.event.thread),
            op = esc(&e.event.op),
            loc = e
                .event
                .location
                .as_deref()
                .map(|l| format!(" at {}", esc(l)))
                .unwrap_or_default(),
            held = if e.held.is_empty() {
                String::new()
            } else {
                format!(", holding {}", esc(&e.held.join(", ")))
            },
        );
    }
    if frontier {
        // Through each lane's last frontier event; lanes without one are cut at their start.
        let mut points = Vec::new();
        for lane in 0..t.lanes.len() {
            let at = t
                .events
                .iter()
                .rposition(|e| e.lane == lane && e.highlight)
                .map_or(LANE_LABEL, |i| x(i) + COLUMN / 2.0);
            points.push(format!("{at},{}", y(lane) - LANE / 2.0 + 4.0));
            points.push(format!("{at},{}", y(lane) + LANE / 2.0 - 4.0));
        }
        let _ = write!(
            s,
            r#"<polyline class="cut" points="{}"><title>the frontier of the global state found</title></polyline>"#,
            points.join(" ")
        );
    }
    s.push_str("</svg>");
    s
}

/// A Porcupine-style history: a row per client, a bar per operation from its invocation to its
/// completion (open-ended when unknown), the longest linearizable prefix and the operations
/// that cannot follow it set apart; each bar carries the model state after it, if in the prefix.
pub fn history(h: &HistoryFigure, id: &str) -> String {
    const ROW: f64 = 34.0;
    const LABEL: f64 = 100.0;
    let end = h
        .ops
        .iter()
        .map(|o| o.complete.unwrap_or(o.invoke) + 1)
        .max()
        .unwrap_or(1)
        + 1;
    let unit = (900.0 / end as f64).clamp(4.0, 60.0);
    let width = LABEL + unit * end as f64 + 20.0;
    let height = 20.0 + ROW * h.clients.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="history" id="{id}" xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="history">"#
    );
    for (row, c) in h.clients.iter().enumerate() {
        let yy = 20.0 + ROW * row as f64;
        let _ = write!(
            s,
            r#"<text x="4" y="{}" class="client"><title>{}</title>{}</text>"#,
            yy + ROW / 2.0,
            esc(c),
            esc(&cut(c, 12))
        );
    }
    for op in &h.ops {
        let yy = 20.0 + ROW * op.client as f64 + 5.0;
        let x1 = LABEL + unit * op.invoke as f64;
        let (x2, open) = match op.complete {
            Some(c) => (LABEL + unit * c as f64 + unit * 0.8, false),
            None => (width - 10.0, true),
        };
        let role = match op.role {
            BarRole::Prefix => "prefix",
            BarRole::Stuck => "stuck",
            BarRole::Other => "other",
        };
        let (step, state) = match &op.step {
            Some((n, st)) => (format!("{}. ", n + 1), st.as_str()),
            None => (String::new(), ""),
        };
        let _ = write!(
            s,
            r#"<g class="op-bar {role}{o}" tabindex="0" data-state="{st}" data-label="{label}"><rect x="{x1:.1}" y="{yy}" width="{w:.1}" height="{h}" rx="3"/><text x="{tx:.1}" y="{ty}">{short}</text><title>{step}{label}{stt}</title></g>"#,
            o = if open { " open" } else { "" },
            st = esc(state),
            label = esc(&op.label),
            w = (x2 - x1).max(3.0),
            h = ROW - 10.0,
            tx = x1 + 3.0,
            ty = yy + 16.0,
            short = esc(&cut(&op.label, ((x2 - x1) / 7.0).max(1.0) as usize)),
            stt = if state.is_empty() {
                String::new()
            } else {
                format!(" → state {}", esc(state))
            },
        );
    }
    s.push_str("</svg>");
    s
}
