//! The pictures of a page as SVG text beside the swimlanes (`crate::swimlane`): the timeline of
//! a finding drawn from its own events, a Porcupine-style history per `lin` part. Every name in
//! them comes from the input and goes through [`esc`].

use crate::esc;
use hindsight_report::{BarRole, EventRef, HistoryFigure, Timeline, TimelineEvent};
use std::fmt::Write;

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
