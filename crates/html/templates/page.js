"use strict";
(function () {
  var errors = document.getElementById("js-errors");
  function fail(message) {
    errors.hidden = false;
    errors.textContent += message + "\n";
  }
  window.addEventListener("error", function (e) { fail("error: " + e.message); });
  window.addEventListener("unhandledrejection", function (e) { fail("rejection: " + e.reason); });
  try {
    // Schedules, step by step: the steps done so far greyed, the current one set apart. A
    // witness shows its short form (runs of a thread folded, as the text output prints it)
    // and, with its toggle, every event; the step in hand is kept across the switch.
    var players = document.querySelectorAll(".player");
    players.forEach(function (player) {
      var lists = player.querySelectorAll("ol.steps");
      var list = lists[0];
      var steps = list.querySelectorAll("li");
      var pos = player.querySelector(".pos");
      var form = player.querySelector("button.form");
      var at = 0;
      var finding = player.closest(".finding");
      function show() {
        steps.forEach(function (li, i) {
          li.classList.toggle("done", i < at - 1);
          li.classList.toggle("now", i === at - 1);
        });
        // The step's event, where the timeline draws it (in each of its windows).
        finding.querySelectorAll("g.ev.current").forEach(function (g) { g.classList.remove("current"); });
        var m = at > 0 ? /^#(\d+)/.exec(steps[at - 1].textContent) : null;
        if (m) {
          finding.querySelectorAll('g.ev[data-index="' + m[1] + '"]').forEach(function (g) { g.classList.add("current"); });
        }
        pos.textContent = at === 0 ? "before the first step" : "step " + at + " of " + steps.length;
      }
      if (form) {
        form.addEventListener("click", function () {
          // The place in the whole schedule of the step in hand, found again in the other list.
          var place = at > 0 ? Number(steps[at - 1].getAttribute("data-at")) : -1;
          list.hidden = true;
          list = list === lists[0] ? lists[1] : lists[0];
          list.hidden = false;
          steps = list.querySelectorAll("li");
          at = 0;
          steps.forEach(function (li, i) {
            var from = Number(li.getAttribute("data-at"));
            var n = Math.max(1, Number(li.getAttribute("data-events")));
            if (place >= from && place < from + n && at === 0) { at = i + 1; }
          });
          var full = list === lists[1];
          form.setAttribute("aria-pressed", String(full));
          form.textContent = form.getAttribute(full ? "data-short" : "data-full");
          show();
        });
      }
      player.querySelector(".next").addEventListener("click", function () { if (at < steps.length) { at++; show(); } });
      player.querySelector(".prev").addEventListener("click", function () { if (at > 0) { at--; show(); } });
      player.step = function (d) { at = Math.max(0, Math.min(steps.length, at + d)); show(); };
      show();
    });
    // The model state after an operation of a history, on click or focus.
    document.querySelectorAll(".history-figure").forEach(function (fig) {
      var out = fig.querySelector("output.state");
      fig.querySelectorAll(".op-bar").forEach(function (bar) {
        function choose() {
          fig.querySelectorAll(".op-bar.chosen").forEach(function (b) { b.classList.remove("chosen"); });
          bar.classList.add("chosen");
          var state = bar.getAttribute("data-state");
          out.textContent = bar.getAttribute("data-label") + (state ? " \u2192 state " + state : " (not in the longest linearizable prefix)");
        }
        bar.addEventListener("click", choose);
        bar.addEventListener("focus", choose);
      });
    });
    // Swimlanes: each scrolled so that its finding's first and last events are both in view,
    // centred between them; where they are too far apart for one window, two windows side
    // by side, the first around the first event, the second around the last. Again when the
    // page is resized, and when a finding is chosen (its anchor).
    var MARGIN = 40;
    var pictures = Array.prototype.slice.call(document.querySelectorAll(".picture")).filter(function (p) {
      var svg = p.querySelector("svg.swimlane");
      return svg && svg.hasAttribute("data-first");
    });
    function unsplit(picture) {
      picture.querySelectorAll(".track.second, .between").forEach(function (e) { e.remove(); });
      picture.classList.remove("split");
    }
    function split(picture) {
      var track = picture.querySelector(".track");
      var second = track.cloneNode(true);
      second.classList.add("second");
      second.setAttribute("aria-hidden", "true");
      // Ids stay unique: the copy's, and its references to them, get a suffix.
      second.querySelectorAll("[id]").forEach(function (e) { e.id = e.id + "-2"; });
      second.querySelectorAll("[marker-end]").forEach(function (e) {
        e.setAttribute("marker-end", e.getAttribute("marker-end").replace(/\)$/, "-2)"));
      });
      var between = document.createElement("div");
      between.className = "between";
      between.title = "events between the two windows not shown: scroll either window";
      between.textContent = "\u22ef";
      picture.appendChild(between);
      picture.appendChild(second);
      picture.classList.add("split");
    }
    function frame(list) {
      // Reads before writes, picture by picture in each phase: one layout per phase.
      list.forEach(unsplit);
      var far = list.map(function (p) {
        var svg = p.querySelector("svg.swimlane");
        var span = Number(svg.getAttribute("data-last")) - Number(svg.getAttribute("data-first"));
        return span + 2 * MARGIN > p.querySelector(".track").clientWidth;
      });
      list.forEach(function (p, i) { if (far[i]) { split(p); } });
      var scrolls = list.map(function (p) {
        var svg = p.querySelector("svg.swimlane");
        var first = Number(svg.getAttribute("data-first"));
        var last = Number(svg.getAttribute("data-last"));
        var tracks = p.querySelectorAll(".track");
        var width = tracks[0].clientWidth;
        return p.classList.contains("split") ?
          [first - width / 2, last - tracks[1].clientWidth / 2] :
          [(first + last) / 2 - width / 2];
      });
      list.forEach(function (p, i) {
        p.querySelectorAll(".track").forEach(function (t, k) { t.scrollLeft = Math.max(0, scrolls[i][k]); });
      });
    }
    frame(pictures);
    var resizing = false;
    window.addEventListener("resize", function () {
      if (resizing) { return; }
      resizing = true;
      window.requestAnimationFrame(function () { resizing = false; frame(pictures); });
    });
    window.addEventListener("hashchange", function () {
      var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      var picture = target && target.classList.contains("finding") ? target.querySelector(".picture") : null;
      if (picture && pictures.indexOf(picture) >= 0) { frame([picture]); }
    });
    // Keyboard: j/k move between findings through their anchors, so the back button returns.
    var findings = Array.prototype.slice.call(document.querySelectorAll(".finding"));
    function current() {
      var id = decodeURIComponent(location.hash.slice(1));
      for (var i = 0; i < findings.length; i++) { if (findings[i].id === id) { return i; } }
      return -1;
    }
    document.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) { return; }
      var tag = (e.target && e.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA") { return; }
      var i = current();
      if ((e.key === "j" || e.key === "k") && findings.length > 0) {
        var next = e.key === "j" ? Math.min(findings.length - 1, i + 1) : Math.max(0, i - 1);
        location.hash = "#" + findings[next].id;
        findings[next].focus();
      } else if ((e.key === "n" || e.key === "p") && i >= 0) {
        var player = findings[i].querySelector(".player");
        if (player && player.step) { player.step(e.key === "n" ? 1 : -1); }
      }
    });
    document.body.setAttribute("data-ready", String(document.querySelectorAll(".track:not(.second) > svg.swimlane").length));
  } catch (e) {
    fail("error: " + e.message);
  }
})();
