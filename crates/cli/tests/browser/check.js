// Appended to a page by crates/cli/tests/browser.rs, after the page's own script: measures
// what the page shows in the real browser and writes what is wrong, one line each, into
// <pre id="check">, which `--dump-dom` hands back with the DOM.
//   overlap:   two visible labels (SVG text) whose bounding boxes intersect;
//   window:    a finding's first or last event outside every visible window of its swimlane;
//   toggle:    a witness toggle that does not show the full schedule, or not back the short one.
"use strict";
(function () {
  var wrong = [];
  var facts = [];
  function own(t) {
    // The label's own text, without its tooltip (<title>).
    var s = "";
    t.childNodes.forEach(function (n) { if (n.nodeType === 3) { s += n.nodeValue; } });
    return s;
  }
  // The part of `r` that is not clipped by a scrolling ancestor.
  function visible(el, r) {
    var v = { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    for (var p = el.parentElement; p; p = p.parentElement) {
      var st = getComputedStyle(p);
      if (st.overflowX !== "visible" || st.overflowY !== "visible") {
        var c = p.getBoundingClientRect();
        v.left = Math.max(v.left, c.left); v.right = Math.min(v.right, c.right);
        v.top = Math.max(v.top, c.top); v.bottom = Math.min(v.bottom, c.bottom);
      }
    }
    return v;
  }
  function meet(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }
  // 1. Labels: every pair of one picture by its whole box (scrolled away or not), of two
  // pictures by what each shows.
  var labels = [];
  document.querySelectorAll("svg text").forEach(function (t) {
    var r = t.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) { return; }
    labels.push({ el: t, svg: t.ownerSVGElement, text: own(t), box: r, seen: visible(t, r) });
  });
  labels.sort(function (a, b) { return a.box.left - b.box.left; });
  var overlaps = 0;
  for (var i = 0; i < labels.length; i++) {
    for (var j = i + 1; j < labels.length; j++) {
      var a = labels[i], b = labels[j];
      var same = a.svg === b.svg;
      var ra = same ? a.box : a.seen, rb = same ? b.box : b.seen;
      if (ra.right <= ra.left || rb.right <= rb.left) { continue; }
      if (meet(ra, rb)) {
        overlaps++;
        if (overlaps <= 20) {
          wrong.push("overlap: \"" + a.text + "\" " + JSON.stringify([a.box.left, a.box.top, a.box.right, a.box.bottom].map(Math.round))
            + " and \"" + b.text + "\" " + JSON.stringify([b.box.left, b.box.top, b.box.right, b.box.bottom].map(Math.round))
            + " in " + (a.svg.id || a.svg.getAttribute("class")));
        }
      }
    }
  }
  facts.push("labels " + labels.length);
  // 2. Windows: the first and the last of a finding's events each in some visible window, at
  // load, and when the finding is chosen (its anchor) after its windows were scrolled away.
  function missing(f) {
    var pair = Array.prototype.slice.call(f.querySelectorAll("svg.swimlane g.ev.pair"));
    var indices = pair.map(function (g) { return Number(g.getAttribute("data-index")); });
    var ends = [Math.min.apply(null, indices), Math.max.apply(null, indices)];
    return ends.filter(function (index) {
      return !pair.some(function (g) {
        if (Number(g.getAttribute("data-index")) !== index) { return false; }
        var c = g.querySelector("circle").getBoundingClientRect();
        var v = visible(g, c);
        // The whole circle in view.
        return v.right - v.left >= c.width - 0.5 && v.bottom - v.top >= c.height - 0.5;
      });
    });
  }
  var framed = Array.prototype.filter.call(document.querySelectorAll(".finding"), function (f) {
    return f.querySelector("svg.swimlane g.ev.pair");
  });
  framed.forEach(function (f) {
    missing(f).forEach(function (index) {
      wrong.push("window: event #" + index + " of " + f.id + " is not in view");
    });
    facts.push("window " + f.id + " " + (f.querySelector(".picture").classList.contains("split") ? "split" : "one"));
  });
  framed.forEach(function (f) {
    f.querySelectorAll(".track").forEach(function (t) { t.scrollLeft = t.scrollWidth; });
    location.hash = "#" + f.id;
    // The event the browser queues, run now.
    window.dispatchEvent(new HashChangeEvent("hashchange"));
    missing(f).forEach(function (index) {
      wrong.push("window: event #" + index + " of " + f.id + " is not in view once the finding is chosen");
    });
  });
  // 3. Witness toggles: the full schedule shown, then the short form again.
  document.querySelectorAll(".player").forEach(function (player) {
    var button = player.querySelector("button.form");
    if (!button) { return; }
    var id = player.closest(".finding").id;
    function shown() {
      return Array.prototype.filter.call(player.querySelectorAll(".steps li"), function (li) {
        return li.getClientRects().length > 0;
      });
    }
    var short = shown();
    var full = Number(player.getAttribute("data-full"));
    button.click();
    var long = shown();
    if (long.length !== full || long.some(function (li) { return li.classList.contains("elided"); })) {
      wrong.push("toggle: " + id + " shows " + long.length + " steps after the click, not the " + full + " of the full schedule");
    }
    player.querySelector("button.next").click();
    if (!long[0] || !long[0].classList.contains("now")) {
      wrong.push("toggle: " + id + " does not step through the full schedule");
    }
    button.click();
    var again = shown();
    if (again.length !== short.length || again.length >= full) {
      wrong.push("toggle: " + id + " shows " + again.length + " steps after the second click, not the " + short.length + " of the short form");
    }
    facts.push("toggle " + id + " " + short.length + " " + long.length);
  });
  var pre = document.createElement("pre");
  pre.id = "check";
  pre.textContent = wrong.concat(facts.map(function (f) { return "fact: " + f; })).join("\n");
  document.body.appendChild(pre);
})();
