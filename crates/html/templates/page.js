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
    // Schedules, step by step: the steps done so far greyed, the current one set apart.
    var players = document.querySelectorAll(".player");
    players.forEach(function (player) {
      var steps = player.querySelectorAll(".steps li");
      var pos = player.querySelector(".pos");
      var at = 0;
      var finding = player.closest(".finding");
      function show() {
        steps.forEach(function (li, i) {
          li.classList.toggle("done", i < at - 1);
          li.classList.toggle("now", i === at - 1);
        });
        // The step's event, where the timeline draws it.
        finding.querySelectorAll("g.ev.current").forEach(function (g) { g.classList.remove("current"); });
        var m = at > 0 ? /^#(\d+)/.exec(steps[at - 1].textContent) : null;
        if (m) {
          var ev = finding.querySelector('g.ev[data-index="' + m[1] + '"]');
          if (ev) { ev.classList.add("current"); }
        }
        pos.textContent = at === 0 ? "before the first step" : "step " + at + " of " + steps.length;
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
    document.body.setAttribute("data-ready", String(document.querySelectorAll("svg.swimlane").length));
  } catch (e) {
    fail("error: " + e.message);
  }
})();
