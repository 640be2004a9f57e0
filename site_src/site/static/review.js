// Blind review kit: remembers choices in this browser and downloads them as human-pairs.jsonl.
(function () {
  "use strict";
  var STORE = "evalboard-review-choices";
  function load() { try { return JSON.parse(localStorage.getItem(STORE) || "{}"); } catch (e) { return {}; } }
  function save(v) { localStorage.setItem(STORE, JSON.stringify(v)); }
  var form = document.querySelector("form[data-pair]");
  if (form) {
    var key = form.getAttribute("data-pair");
    var saved = load()[key];
    form.querySelectorAll("input[name=choice]").forEach(function (input) {
      if (saved && saved.choice === input.value) { input.checked = true; }
      input.addEventListener("change", function () {
        var all = load();
        all[key] = { choice: input.value, scenario_id: form.getAttribute("data-scenario") };
        save(all);
      });
    });
  }
  var reviewer = document.querySelector("[data-reviewer]");
  if (reviewer) {
    reviewer.value = localStorage.getItem(STORE + "-reviewer") || "";
    reviewer.addEventListener("input", function () { localStorage.setItem(STORE + "-reviewer", reviewer.value); });
  }
  var choices = load();
  document.querySelectorAll("[data-choice-for]").forEach(function (el) {
    var c = choices[el.getAttribute("data-choice-for")];
    el.textContent = c ? "chosen: " + c.choice : "not yet chosen";
  });
  var button = document.querySelector("[data-download]");
  if (button) {
    button.addEventListener("click", function () {
      var all = load();
      var lines = Object.keys(all).sort().map(function (k) {
        return JSON.stringify({ pair_id: k.split("/")[1], scenario_id: all[k].scenario_id, choice: all[k].choice,
                                reviewer: reviewer && reviewer.value ? reviewer.value : null });
      });
      var blob = new Blob([lines.join("\n") + "\n"], { type: "application/x-ndjson" });
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "human-pairs.jsonl";
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
  }
})();
