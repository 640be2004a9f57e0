// evalboard: progressive enhancement only. Every page works without this file.
(function () {
  "use strict";

  // ---- sortable tables: header buttons sort rows by data-sort-value (numbers) or text
  function sortTable(table, index, kind, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    function key(row) {
      var cell = row.cells[index];
      var v = cell.getAttribute("data-sort-value");
      if (v === null) { v = cell.textContent.trim(); }
      return kind === "num" ? parseFloat(v) : v.toLowerCase();
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      var c = kind === "num" ? (x - y) : (x < y ? -1 : x > y ? 1 : 0);
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th[data-sort]").forEach(function (th, i) {
      var index = Array.prototype.indexOf.call(th.parentNode.children, th);
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, index, th.getAttribute("data-sort"), th); });
    });
  });

  // ---- search with the static Pagefind index; results are built from text nodes only
  var form = document.querySelector("form[data-search]");
  if (!form) { return; }
  var status = document.querySelector("[data-search-status]");
  var list = document.querySelector("[data-search-results]");
  var script = document.querySelector('script[src$="static/site.js"]');
  var root = new URL("../", script.src);
  var pagefind = null;
  status.textContent = "Type words and press Search.";

  function excerptNodes(excerpt, parent) {
    // Pagefind marks hits with <mark>; everything else is inserted as text, never as HTML.
    excerpt.split(/(<mark>|<\/mark>)/).reduce(function (inMark, part) {
      if (part === "<mark>") { return true; }
      if (part === "</mark>") { return false; }
      var node = document.createTextNode(part.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&"));
      if (inMark) { var m = document.createElement("mark"); m.appendChild(node); parent.appendChild(m); }
      else { parent.appendChild(node); }
      return inMark;
    }, false);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var q = document.getElementById("q").value.trim();
    list.textContent = "";
    if (!q) { return; }
    status.textContent = "Searching…";
    var load = pagefind ? Promise.resolve(pagefind) : import(new URL("pagefind/pagefind.js", root).href).then(function (pf) {
      pagefind = pf;
      return pf.options({ baseUrl: root.pathname }).then(function () { return pf; });
    });
    load.then(function (pf) { return pf.search(q); }).then(function (search) {
      return Promise.all(search.results.slice(0, 20).map(function (r) { return r.data(); })).then(function (data) {
        status.textContent = search.results.length + " result" + (search.results.length === 1 ? "" : "s") + " for “" + q + "”.";
        data.forEach(function (d) {
          var li = document.createElement("li");
          var a = document.createElement("a");
          a.href = d.url;
          a.textContent = (d.meta && d.meta.title) || d.url;
          li.appendChild(a);
          var p = document.createElement("p");
          excerptNodes(d.excerpt || "", p);
          li.appendChild(p);
          list.appendChild(li);
        });
      });
    }).catch(function () {
      status.textContent = "Search is unavailable here (the index is built with the site). Browse the Transcripts pages instead.";
    });
  });
})();
