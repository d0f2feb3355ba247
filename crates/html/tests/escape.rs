//! The page escapes every name from the input, and is well-formed HTML as a browser's parser
//! (html5ever) reads it.

use hindsight_html::{render_html, Page};
use hindsight_report::{
    BarRole, EventRef, Figures, Finding, HistoryBar, HistoryFigure, Report, Timeline, TimelineEdge,
    TimelineEvent,
};
use scraper::{Html, Selector};
use serde_json::{Map, Value};

const SCRIPT: &str = "<script>alert(1)</script>";
const QUOTES: &str = "a\"b'c\" onmouseover=\"alert(2)";
const UNICODE: &str = "Ünïcødé ☃ 線程 \u{202e}rtl";

fn long() -> String {
    "x".repeat(10_000)
}

fn event(index: u64, thread: &str, op: &str) -> EventRef {
    EventRef {
        index,
        thread: thread.to_owned(),
        op: op.to_owned(),
        location: Some(format!("{SCRIPT}.java:{index}")),
    }
}

fn hostile_report() -> Report {
    let mut r = Report::new("races");
    r.trace
        .insert("path".into(), Value::from(format!("{SCRIPT}{QUOTES}")));
    r.summary.insert("note".into(), Value::from(UNICODE));
    r.warnings.push(format!("warning about {SCRIPT}"));
    let events = vec![
        event(3, SCRIPT, &format!("w({QUOTES})")),
        event(9, &long(), &format!("r({UNICODE})")),
    ];
    let mut fields = Map::new();
    fields.insert("variable".into(), Value::from(SCRIPT));
    fields.insert(
        "witness".into(),
        serde_json::json!({
            // A run of one thread long enough for the short form to fold its middle.
            "schedule": (1..8).map(|i| event(i, SCRIPT, if i == 1 { "w(<b>)" } else { "r(<b>)" })).collect::<Vec<_>>(),
            "enabled": [event(3, SCRIPT, "w(x)"), event(9, QUOTES, "r(x)")],
        }),
    );
    r.findings.push(Finding {
        kind: format!("data-race{SCRIPT}"),
        message: format!("race on {SCRIPT} {QUOTES} {UNICODE}"),
        occurrences: Some(2),
        events: events.clone(),
        fields,
        group: Some(format!("group {SCRIPT}")),
    });
    // A second finding without a timeline: drawn from its own events.
    r.findings.push(Finding {
        kind: "data-race".into(),
        message: QUOTES.into(),
        occurrences: None,
        events: events.clone(),
        fields: Map::new(),
        group: None,
    });
    let drawn = |e: &EventRef, lane: usize, highlight: bool| TimelineEvent {
        event: e.clone(),
        lane,
        held: vec![SCRIPT.to_owned(), long()],
        highlight,
        skipped_before: 3,
    };
    r.figures = Figures {
        timelines: vec![(
            0,
            Timeline {
                lanes: vec![SCRIPT.to_owned(), long()],
                events: vec![drawn(&events[0], 0, true), drawn(&events[1], 1, true)],
                edges: vec![TimelineEdge {
                    from: 0,
                    to: 1,
                    label: format!("lock {SCRIPT}"),
                    orders_pair: false,
                }],
                ordered: Some(false),
            },
        )],
        histories: vec![HistoryFigure {
            title: format!("key {SCRIPT}"),
            verdict: "not linearizable".into(),
            clients: vec![QUOTES.to_owned()],
            ops: vec![
                HistoryBar {
                    client: 0,
                    invoke: 0,
                    complete: Some(2),
                    label: format!("write({SCRIPT})"),
                    role: BarRole::Prefix,
                    step: Some((0, QUOTES.to_owned())),
                },
                HistoryBar {
                    client: 0,
                    invoke: 3,
                    complete: None,
                    label: UNICODE.to_owned(),
                    role: BarRole::Stuck,
                    step: None,
                },
            ],
            state: Some(SCRIPT.to_owned()),
            left_out: 0,
        }],
        notes: vec![format!("note {SCRIPT}")],
    };
    r
}

fn page_of(reports: &[Report]) -> String {
    let mut out = Vec::new();
    let page = Page {
        command: format!("hindsight races '{SCRIPT}'"),
        generated: "2026-01-01T00:00:00Z".into(),
        elapsed_ms: 5,
    };
    render_html(reports, &page, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

#[test]
fn the_page_parses_without_errors() {
    let html = page_of(&[hostile_report()]);
    let doc = Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "parse errors: {:?}", doc.errors);
    assert_eq!(select(&doc, "svg.swimlane").len(), 2);
    assert_eq!(select(&doc, "svg.history").len(), 1);
    assert_eq!(select(&doc, "g.ev.pair").len(), 4);
}

#[test]
fn hostile_names_are_text_never_markup() {
    let html = page_of(&[hostile_report()]);
    let doc = Html::parse_document(&html);
    // The page's own script is the only one, and nothing carries an event handler.
    assert_eq!(select(&doc, "script").len(), 1);
    assert!(
        select(&doc, "b").is_empty(),
        "a <b> from the input became markup"
    );
    for e in select(&doc, "*") {
        for (name, _) in e.value().attrs() {
            assert!(
                !name.starts_with("on"),
                "attribute {name} on <{}>",
                e.value().name()
            );
        }
    }
    // The names come back as the text they were.
    let message = select(&doc, ".message")[0].text().collect::<String>();
    assert_eq!(message, format!("race on {SCRIPT} {QUOTES} {UNICODE}"));
    let lanes: Vec<String> = select(&doc, "svg.lanes .lane-name title")
        .iter()
        .map(|t| t.text().collect())
        .collect();
    assert_eq!(lanes[0], SCRIPT);
    assert_eq!(lanes[1], long());
    let bar = select(&doc, ".op-bar.prefix")[0];
    assert_eq!(bar.value().attr("data-state"), Some(QUOTES));
    assert_eq!(
        bar.value().attr("data-label"),
        Some(format!("write({SCRIPT})").as_str())
    );
    let steps: Vec<String> = select(&doc, ".steps li")
        .iter()
        .map(|l| l.text().collect())
        .collect();
    assert_eq!(steps[0], format!("#1 {SCRIPT}: w(<b>)"));
    // The short form first (the middle of the run folded), then, hidden, every event.
    let lists = select(&doc, ".player ol.steps");
    assert_eq!(lists.len(), 2);
    assert!(lists[0].value().attr("hidden").is_none());
    assert!(lists[1].value().attr("hidden").is_some());
    let short: Vec<String> = lists[0].text().map(str::to_owned).collect();
    assert_eq!(
        short,
        [
            format!("#1 {SCRIPT}: w(<b>)"),
            format!("... 4 event(s) of {SCRIPT} ..."),
            format!("#6 {SCRIPT}: r(<b>)"),
            format!("#7 {SCRIPT}: r(<b>)"),
            format!("now enabled together: #3 {SCRIPT}: w(x) and #9 {QUOTES}: r(x)"),
        ]
    );
    assert_eq!(select(&doc, ".player ol.steps li.elided").len(), 1);
    assert_eq!(select(&doc, ".player ol.steps[hidden] li").len(), 8);
    assert_eq!(
        select(&doc, ".player")[0].value().attr("data-full"),
        Some("8")
    );
    let command = select(&doc, "dl.run code")[0].text().collect::<String>();
    assert!(command.contains(SCRIPT));
    let title = select(&doc, "title")[0].text().collect::<String>();
    assert!(title.contains(QUOTES));
}

#[test]
fn long_names_are_cut_in_pictures_but_whole_in_tables() {
    let html = page_of(&[hostile_report()]);
    let doc = Html::parse_document(&html);
    let short = select(&doc, "svg.lanes .lane-name")[1]
        .children()
        .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
        .collect::<String>();
    assert!(short.chars().count() <= 14, "{short}");
    let cells: Vec<String> = select(&doc, "table.events td")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    assert!(cells.contains(&long()));
}

#[test]
fn escape_covers_every_special_character() {
    assert_eq!(
        hindsight_html::esc("<a href='x'>&\"</a>\u{1}"),
        "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;\u{fffd}"
    );
}

#[test]
fn an_empty_run_and_several_reports_parse() {
    let clean = Report::new("views");
    let mut unknown = Report::new("lin");
    unknown.unknown = true;
    let html = page_of(&[clean, unknown, hostile_report()]);
    let doc = Html::parse_document(&html);
    assert!(doc.errors.is_empty(), "parse errors: {:?}", doc.errors);
    assert_eq!(select(&doc, "section.report").len(), 3);
    assert_eq!(select(&doc, "nav li").len(), 3);
}

#[test]
fn a_page_of_many_findings_lists_a_bounded_number() {
    let mut r = Report::new("races");
    for i in 0..(hindsight_html::FINDINGS_LISTED as u64 + 50) {
        r.findings.push(Finding {
            kind: "data-race".into(),
            message: format!("race {i}"),
            occurrences: None,
            events: vec![event(i, "T1", "w(x)"), event(i + 1, "T2", "w(x)")],
            fields: Map::new(),
            group: None,
        });
    }
    let html = page_of(&[r]);
    let doc = Html::parse_document(&html);
    assert_eq!(
        select(&doc, "article.finding").len(),
        hindsight_html::FINDINGS_LISTED
    );
    assert!(html.contains("lists the first 300 of 350 findings"));
}
