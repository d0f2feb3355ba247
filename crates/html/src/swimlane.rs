//! The swimlane of a finding: a lane per thread, its events in trace order left to right, the
//! locks held as spans, happens-before edges as arrows. Two pictures side by side: the lane
//! names, which stay put, and the events, which scroll (the page's script scrolls them so that
//! the finding's first and last events are both in view).
//!
//! No two labels meet: in each lane the events' labels (and the `⋯N` of the events not drawn)
//! are laid out in rows under the lane's line, the locks' names in rows above it, each row
//! filled left to right ([`crate::labels::Band`]); a label that finds no room in the first two
//! rows is shortened to its column, and only then takes a row of its own. A lane is as tall as
//! its rows.

use crate::esc;
use crate::labels::{cells_in, cut, cut_middle, Anchor, Band, Placed, ROW, SMALL};
use hindsight_report::Timeline;
use std::fmt::Write;

/// The width of an event's column.
const COLUMN: f64 = 46.0;
/// The width of the lane names' picture.
const LANE_NAMES: f64 = 110.0;
/// The font size of lane names (page.css: `.lane-name`).
const NAME_FONT: f64 = 11.0;
/// The radius of the circles of the finding's events (the largest drawn), and of the others.
const PAIR_RADIUS: f64 = 8.0;
const RADIUS: f64 = 5.5;
/// Room between a lane's circles and its first row of labels, above and below.
const CLEAR: f64 = 3.0;
/// Room at the top and bottom of each lane.
const PAD: f64 = 5.0;
/// Room left of the first label or span and right of the last.
const MARGIN: f64 = 4.0;
/// A text's baseline above the bottom of its row (its descent, and a little air).
const DESCENT: f64 = 3.0;
/// Rows a band fills before it shortens labels: two rows take any label of up to
/// [`LABEL_CELLS`] under columns side by side.
const ROWS: usize = 2;
/// The longest label of an event or a lock, in character cells (the full text is in its
/// tooltip and in the finding's table).
const LABEL_CELLS: usize = 14;

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

/// A run of drawn events of one lane during which the thread holds a lock.
struct Span {
    lane: usize,
    /// The first and last columns of the run.
    from: usize,
    to: usize,
    /// The lock's place among the locks the lane holds: nested spans are drawn inset.
    depth: usize,
    lock: String,
}

/// Per lane and lock, runs of consecutive drawn events holding it (a gap of events not drawn
/// may hide a release and a new acquire: a run breaks there).
fn spans(t: &Timeline) -> Vec<Span> {
    let mut out = Vec::new();
    for lane in 0..t.lanes.len() {
        let in_lane: Vec<usize> = (0..t.events.len())
            .filter(|&i| t.events[i].lane == lane)
            .collect();
        let mut locks: Vec<&str> = Vec::new();
        for &i in &in_lane {
            for l in &t.events[i].held {
                if !locks.contains(&l.as_str()) {
                    locks.push(l);
                }
            }
        }
        for (depth, lock) in locks.iter().enumerate() {
            let mut run: Option<(usize, usize)> = None;
            let mut runs = Vec::new();
            for &i in &in_lane {
                let e = &t.events[i];
                let holds = e.held.iter().any(|h| h == lock);
                match run {
                    Some((a, _)) if holds && e.skipped_before == 0 => run = Some((a, i)),
                    _ => {
                        runs.extend(run);
                        run = holds.then_some((i, i));
                    }
                }
            }
            runs.extend(run);
            out.extend(runs.into_iter().map(|(from, to)| Span {
                lane,
                from,
                to,
                depth,
                lock: (*lock).to_owned(),
            }));
        }
    }
    out
}

/// The centre of column `i`, before the picture is shifted right by its margin.
fn column(i: usize) -> f64 {
    COLUMN * (i as f64 + 0.5)
}

/// How far a span's box reaches beyond its first and last circles.
fn span_reach(depth: usize) -> f64 {
    14.0 + 4.0 * depth as f64
}

/// The labels of every lane, placed in rows: the events' under each lane, the locks' names
/// above it.
struct Layout {
    below: Vec<Band>,
    above: Vec<Band>,
    /// Per event, its label, and the count of the events of its thread not drawn before it.
    ops: Vec<Option<Placed>>,
    gaps: Vec<Option<Placed>>,
    /// Per span of [`spans`], its name (none where not even an ellipsis fits).
    locks: Vec<Option<Placed>>,
}

fn lay_out(t: &Timeline, spans: &[Span]) -> Layout {
    let lanes = t.lanes.len().max(1);
    let mut below: Vec<Band> = (0..lanes).map(|_| Band::default()).collect();
    let mut above: Vec<Band> = (0..lanes).map(|_| Band::default()).collect();
    // Under its column, a label in one row may be as wide as two columns: the next column's
    // label goes in the other row. Shortened, it fits its column alone.
    let column_cells = cells_in(COLUMN - crate::labels::GAP, SMALL);
    let mut ops = Vec::with_capacity(t.events.len());
    let mut gaps = Vec::with_capacity(t.events.len());
    for (i, e) in t.events.iter().enumerate() {
        let band = &mut below[e.lane.min(lanes - 1)];
        gaps.push(
            (e.skipped_before > 0)
                .then(|| {
                    // Between this column and the one before, where the events not drawn were.
                    let text = format!("⋯{}", e.skipped_before);
                    let forms = [text.clone(), cut(&text, column_cells)];
                    band.place(&forms, Anchor::Middle(column(i) - COLUMN / 2.0), ROWS)
                })
                .flatten(),
        );
        let forms = [
            cut(&e.event.op, LABEL_CELLS),
            cut(&e.event.op, column_cells),
        ];
        ops.push(band.place(&forms, Anchor::Middle(column(i)), ROWS));
    }
    // Names from the left, the widest spans first where two start together.
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&k| (spans[k].lane, spans[k].from, spans[k].depth));
    let mut locks: Vec<Option<Placed>> = (0..spans.len()).map(|_| None).collect();
    for k in order {
        let s = &spans[k];
        let left = column(s.from) - span_reach(s.depth);
        let right = column(s.to) + span_reach(s.depth);
        let forms = [
            cut(&s.lock, LABEL_CELLS),
            cut(&s.lock, cells_in(right - left - 6.0, SMALL).max(1)),
        ];
        locks[k] = above[s.lane.min(lanes - 1)].place(&forms, Anchor::Start(left + 3.0), ROWS);
    }
    Layout {
        below,
        above,
        ops,
        gaps,
        locks,
    }
}

/// A lane's place from top to bottom.
#[derive(Clone, Copy)]
struct LaneBox {
    top: f64,
    /// Where its line (and its circles' centres) is.
    line: f64,
    bottom: f64,
}

/// A swimlane timeline: one lane per thread, events in trace order left to right, locks held
/// as spans, happens-before edges as arrows (solid where they order the finding's pair). With
/// `frontier`, the finding's events are the frontier of a global state: a line is drawn just
/// after them across the lanes.
///
/// Two pictures: the lane names (`svg.lanes`), then the events (`svg.swimlane`, with `id`) in
/// a `div.track` that scrolls; the swimlane says in `data-first` and `data-last` where the
/// finding's first and last events are, for the page's script.
pub fn swimlane(t: &Timeline, id: &str, frontier: bool) -> String {
    let spans = spans(t);
    let layout = lay_out(t, &spans);
    // Lanes from the top, each as tall as its rows of names and labels.
    let mut lanes = Vec::with_capacity(t.lanes.len().max(1));
    let mut y = 2.0;
    for lane in 0..t.lanes.len().max(1) {
        let above = layout.above.get(lane).map_or(0, Band::rows) as f64;
        let below = layout.below.get(lane).map_or(0, Band::rows) as f64;
        let line = y + PAD + ROW * above + PAIR_RADIUS + CLEAR;
        let bottom = line + PAIR_RADIUS + CLEAR + ROW * below + PAD;
        lanes.push(LaneBox {
            top: y,
            line,
            bottom,
        });
        y = bottom;
    }
    let height = y + 2.0;
    // Shifted right so that nothing starts left of the margin.
    let labels = || layout.ops.iter().chain(&layout.gaps).flatten();
    let leftmost = labels()
        .map(|p| p.left)
        .chain(layout.locks.iter().flatten().map(|p| p.left))
        .chain(spans.iter().map(|s| column(s.from) - span_reach(s.depth)))
        .fold(0.0, f64::min);
    let shift = MARGIN - leftmost;
    let rightmost = labels()
        .map(|p| p.left + p.width)
        .chain(layout.locks.iter().flatten().map(|p| p.left + p.width))
        .chain(spans.iter().map(|s| column(s.to) + span_reach(s.depth)))
        .fold(COLUMN * t.events.len().max(1) as f64, f64::max);
    let width = (rightmost + shift + MARGIN).ceil();
    let x = |i: usize| column(i) + shift;
    let line = |lane: usize| lanes[lane.min(lanes.len() - 1)].line;

    let mut s = String::new();
    // The lane names.
    let _ = write!(
        s,
        r#"<svg class="lanes" xmlns="http://www.w3.org/2000/svg" width="{LANE_NAMES}" height="{height:.0}" viewBox="0 0 {LANE_NAMES} {height:.0}" aria-hidden="true">"#
    );
    let name_cells = cells_in(LANE_NAMES - 10.0, NAME_FONT);
    for (lane, name) in t.lanes.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="4" y="{ty:.1}" class="lane-name"><title>{full}</title>{short}</text>"#,
            ty = line(lane) + 4.0,
            full = esc(name),
            short = esc(&cut_middle(name, name_cells)),
        );
    }
    s.push_str("</svg>");

    // The events.
    let highlighted: Vec<usize> = (0..t.events.len())
        .filter(|&i| t.events[i].highlight)
        .collect();
    let ends = match (highlighted.first(), highlighted.last()) {
        (Some(&a), Some(&b)) => format!(r#" data-first="{:.0}" data-last="{:.0}""#, x(a), x(b)),
        _ => String::new(),
    };
    let _ = write!(
        s,
        r#"<div class="track"><svg class="swimlane" id="{id}" xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="timeline"{ends}>"#
    );
    let _ = write!(
        s,
        r#"<defs><marker id="{id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>"#
    );
    for (lane, _) in t.lanes.iter().enumerate() {
        let _ = write!(
            s,
            r#"<line x1="0" y1="{yy:.1}" x2="{width:.0}" y2="{yy:.1}" class="lane-line"/>"#,
            yy = line(lane),
        );
    }
    // Lock spans: each box from its name's row down past the circles; names over every box.
    for (span, name) in spans.iter().zip(&layout.locks) {
        let row = name.as_ref().map_or(0, |p| p.row);
        let (x1, x2) = (
            x(span.from) - span_reach(span.depth),
            x(span.to) + span_reach(span.depth),
        );
        let top = line(span.lane) - PAIR_RADIUS - CLEAR - ROW * (row + 1) as f64;
        let bottom = line(span.lane) + PAIR_RADIUS + CLEAR - span.depth as f64 * 2.0;
        let _ = write!(
            s,
            r#"<rect class="lock-span" x="{x1:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" rx="5"/>"#,
            w = x2 - x1,
            h = bottom - top,
        );
    }
    for (span, name) in spans.iter().zip(&layout.locks) {
        let Some(p) = name else { continue };
        let baseline = line(span.lane) - PAIR_RADIUS - CLEAR - ROW * p.row as f64 - DESCENT;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{baseline:.1}" class="lock-name"><title>{}</title>{}</text>"#,
            p.left + shift,
            esc(&span.lock),
            esc(&p.text),
        );
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
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" class="{class}" marker-end="url(#{id}-arrow)"><title>{} (happens-before{})</title></line>"#,
            x(edge.from),
            line(a.lane),
            x(edge.to),
            line(b.lane),
            esc(&edge.label),
            if edge.orders_pair {
                ", orders the pair"
            } else {
                ""
            },
        );
    }
    // A label's baseline in row `row` under its lane's line.
    let under = |lane: usize, row: usize| {
        line(lane) + PAIR_RADIUS + CLEAR + ROW * (row + 1) as f64 - DESCENT
    };
    for (i, e) in t.events.iter().enumerate() {
        let (xx, yy) = (x(i), line(e.lane));
        if let Some(p) = &layout.gaps[i] {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" class="gap"><title>{} events of this thread not drawn</title>{}</text>"#,
                p.left + p.width / 2.0 + shift,
                under(e.lane, p.row),
                e.skipped_before,
                esc(&p.text),
            );
        }
        let class = format!(
            "ev {}{}",
            op_class(&e.event.op),
            if e.highlight { " pair" } else { "" }
        );
        let r = if e.highlight { PAIR_RADIUS } else { RADIUS };
        // The label inside the event's group: hovering it shows the event's tooltip.
        let label = match &layout.ops[i] {
            Some(p) => format!(
                r#"<text x="{:.1}" y="{:.1}" class="op">{}</text>"#,
                p.left + p.width / 2.0 + shift,
                under(e.lane, p.row),
                esc(&p.text)
            ),
            None => String::new(),
        };
        let _ = write!(
            s,
            r##"<g class="{class}" data-index="{index}"><circle cx="{xx:.1}" cy="{yy:.1}" r="{r}"/>{label}<title>#{index} {thread}: {op}{loc}{held}</title></g>"##,
            index = e.event.index,
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
        for (lane, b) in lanes.iter().enumerate().take(t.lanes.len()) {
            let at = t
                .events
                .iter()
                .rposition(|e| e.lane == lane && e.highlight)
                .map_or(MARGIN, |i| x(i) + COLUMN / 2.0);
            points.push(format!("{at:.1},{:.1}", b.top + 3.0));
            points.push(format!("{at:.1},{:.1}", b.bottom - 3.0));
        }
        let _ = write!(
            s,
            r#"<polyline class="cut" points="{}"><title>the frontier of the global state found</title></polyline>"#,
            points.join(" ")
        );
    }
    s.push_str("</svg></div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::width;
    use hindsight_report::{EventRef, TimelineEdge, TimelineEvent};
    use proptest::prelude::*;
    use scraper::{Html, Selector};

    /// A label's box as a browser draws it, by the estimate of its width: from the ascent to
    /// the descent of the font (0.93 and 0.24 of its size in DejaVu Sans Mono), with a little
    /// more.
    #[derive(Debug)]
    struct LabelBox {
        text: String,
        left: f64,
        right: f64,
        top: f64,
        bottom: f64,
    }

    fn attr(e: &scraper::ElementRef, name: &str) -> f64 {
        e.value()
            .attr(name)
            .unwrap_or_else(|| panic!("no {name}"))
            .parse()
            .unwrap()
    }

    /// The labels of the picture `svg` (`lanes` or `swimlane`), as boxes.
    fn boxes(page: &Html, svg: &str) -> Vec<LabelBox> {
        let mut out = Vec::new();
        for t in page.select(&Selector::parse(&format!("svg.{svg} text")).unwrap()) {
            let text: String = t
                .children()
                .filter_map(|c| c.value().as_text().map(|s| s.to_string()))
                .collect();
            let class = t.value().attr("class").unwrap_or("");
            let font = if class == "lane-name" { 11.0 } else { SMALL };
            let (x, y) = (attr(&t, "x"), attr(&t, "y"));
            let w = width(&text, font);
            let left = match class {
                "op" | "gap" => x - w / 2.0,
                _ => x,
            };
            out.push(LabelBox {
                text,
                left,
                right: left + w,
                top: y - 0.95 * font,
                bottom: y + 0.25 * font,
            });
        }
        out
    }

    /// The oracle: every two labels, one against the other.
    fn meeting(boxes: &[LabelBox]) -> Option<(&LabelBox, &LabelBox)> {
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                if a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom {
                    return Some((a, b));
                }
            }
        }
        None
    }

    const OPS: [&str; 8] = [
        "req(L12)",
        "acq(L12)",
        "rel(L12)",
        "w(account.balance)",
        "r(x)",
        "acq(accountsLockWithALongName)",
        "w(線程線程線程)",
        "fork(worker-thread-pool-17)",
    ];

    fn timeline() -> impl Strategy<Value = Timeline> {
        (1usize..5)
            .prop_flat_map(|lanes| {
                (
                    Just(lanes),
                    proptest::collection::vec(
                        (
                            0..lanes,
                            0..OPS.len(),
                            proptest::collection::vec(0usize..3, 0..3),
                            prop_oneof![Just(0u64), 1u64..5, 1000u64..2_000_000],
                            any::<bool>(),
                        ),
                        0..50,
                    ),
                )
            })
            .prop_map(|(lanes, events)| {
                let locks = ["L12", "accountsLockWithALongName", "m"];
                let events: Vec<TimelineEvent> = events
                    .into_iter()
                    .enumerate()
                    .map(|(i, (lane, op, held, skipped, highlight))| TimelineEvent {
                        event: EventRef {
                            index: i as u64 * 3,
                            thread: format!("worker-thread-pool-{lane}"),
                            op: OPS[op].to_owned(),
                            location: None,
                        },
                        lane,
                        held: held.into_iter().map(|l| locks[l].to_owned()).collect(),
                        highlight,
                        skipped_before: skipped,
                    })
                    .collect();
                let edges = (1..events.len())
                    .step_by(3)
                    .map(|i| TimelineEdge {
                        from: i - 1,
                        to: i,
                        label: "lock L12".into(),
                        orders_pair: i % 2 == 0,
                    })
                    .collect();
                Timeline {
                    lanes: (0..lanes)
                        .map(|l| format!("worker-thread-pool-{l}"))
                        .collect(),
                    events,
                    edges,
                    ordered: None,
                }
            })
    }

    proptest! {
        #[test]
        fn no_two_labels_meet_and_the_pair_is_marked(t in timeline(), frontier in any::<bool>()) {
            let page = Html::parse_fragment(&swimlane(&t, "f0-0-svg", frontier));
            for svg in ["lanes", "swimlane"] {
                let all = boxes(&page, svg);
                prop_assert!(meeting(&all).is_none(), "{:?}", meeting(&all));
                prop_assert!(all.iter().all(|b| b.left >= 0.0 && b.top >= 0.0));
            }
            // Every event has its label, whole or shortened; every gap its count.
            let labels = boxes(&page, "swimlane");
            prop_assert_eq!(
                labels.len(),
                t.events.len() * 2 - t.events.iter().filter(|e| e.skipped_before == 0).count()
                    + page.select(&Selector::parse("text.lock-name").unwrap()).count()
            );
            // The lane names fit their picture.
            for b in boxes(&page, "lanes") {
                prop_assert!(b.right <= LANE_NAMES, "{b:?}");
            }
            // The script frames the first and the last of the finding's events.
            let svg = page.select(&Selector::parse("svg.swimlane").unwrap()).next().unwrap();
            let pair: Vec<f64> = page
                .select(&Selector::parse("g.ev.pair circle").unwrap())
                .map(|c| attr(&c, "cx"))
                .collect();
            match (pair.first(), pair.last()) {
                (Some(a), Some(b)) => {
                    prop_assert!((attr(&svg, "data-first") - a).abs() < 0.6);
                    prop_assert!((attr(&svg, "data-last") - b).abs() < 0.6);
                }
                _ => prop_assert!(svg.value().attr("data-first").is_none()),
            }
        }
    }

    #[test]
    fn a_request_right_before_its_acquire_is_labelled_apart() {
        let event = |i: u64, op: &str| TimelineEvent {
            event: EventRef {
                index: i,
                thread: "T1".into(),
                op: op.into(),
                location: None,
            },
            lane: 0,
            held: Vec::new(),
            highlight: false,
            skipped_before: 0,
        };
        let t = Timeline {
            lanes: vec!["T1".into()],
            events: vec![
                event(0, "req(L12)"),
                event(1, "acq(L12)"),
                event(2, "req(accountsLock)"),
            ],
            edges: Vec::new(),
            ordered: None,
        };
        let page = Html::parse_fragment(&swimlane(&t, "s", false));
        let labels = boxes(&page, "swimlane");
        let texts: Vec<&str> = labels.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["req(L12)", "acq(L12)", "req(accountsL…"]);
        assert!(meeting(&labels).is_none(), "{labels:?}");
        // Eight characters are wider than a column: the acquire's label goes under the
        // request's, and the third one back beside the request's.
        assert!(labels[1].top > labels[0].top);
        assert_eq!(labels[2].top, labels[0].top);
    }
}
