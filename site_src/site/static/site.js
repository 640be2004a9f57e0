// evalboard: progressive enhancement only. Every page works without this file.
(function () {
  "use strict";

  // The state a reader sets (a sort order, a filter) lives in the page's address, so a link reproduces the view.
  function keepInUrl(values) {
    var url = new URL(location.href);
    Object.keys(values).forEach(function (k) {
      if (values[k]) { url.searchParams.set(k, values[k]); } else { url.searchParams.delete(k); }
    });
    history.replaceState(null, "", url.href);
  }
  function slug(text) { return text.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""); }

  // ---- sortable tables: header buttons sort rows by data-sort-value (numbers) or text; the first sortable table's
  // order is kept in the address (?sort=<column>&order=ascending|descending), but a transcript list's, whose filter
  // form keeps its own
  function sortTable(table, index, kind, th, wanted) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = wanted || (th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
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
    return dir;
  }
  var asked = new URLSearchParams(location.search);
  document.querySelectorAll("table.sortable").forEach(function (table, t) {
    var keeps = t === 0 && !table.hasAttribute("data-list-table");  // a whole-list filter keeps its own sort
    table.querySelectorAll("thead th[data-sort]").forEach(function (th) {
      var index = Array.prototype.indexOf.call(th.parentNode.children, th);
      var name = slug(th.textContent);
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var dir = sortTable(table, index, th.getAttribute("data-sort"), th);
        if (keeps) { keepInUrl({ sort: name, order: dir }); }
      });
      if (keeps && asked.get("sort") === name) {
        var order = asked.get("order") === "descending" ? "descending" : "ascending";
        sortTable(table, index, th.getAttribute("data-sort"), th, order);
      }
    });
  });

  // ---- whole-list filtering and sorting of a paginated list, from its JSON download (every page's rows)
  (function () {
    var form = document.querySelector("form[data-list-filter]");
    if (!form) { return; }
    var table = document.querySelector("table[data-list-table]");
    var status = document.querySelector("[data-list-status]");
    var pager = document.querySelector("[data-list-pager]");
    var root = new URL("../", document.querySelector('script[src$="static/site.js"]').src);
    var original = table.tBodies[0].cloneNode(true);
    var rows = null, loading = null;  // the whole list, once loaded; its load, while under way
    var SHOW = 500;
    form.hidden = false;
    function score(r) {
      if (r.value !== null && r.value !== undefined) { return r.value; }
      return r.state === "pass" ? 1 : r.state === "fail" ? 0 : -Infinity;  // no result sorts last, never as zero
    }
    function cell(tr, tag, text, cls) {
      var c = document.createElement(tag);
      if (tag === "th") { c.scope = "row"; }
      if (cls) { c.className = cls; }
      if (text !== null) { c.textContent = text; }
      tr.appendChild(c);
      return c;
    }
    function render() {
      var f = new FormData(form);
      var entrant = f.get("entrant"), item = f.get("item"), state = f.get("state"), sort = f.get("sort");
      var words = (f.get("item_text") || "").trim().toLowerCase();
      if (!entrant && !item && !words && !state && !sort) {
        table.replaceChild(original.cloneNode(true), table.tBodies[0]);
        pager.hidden = false;
        status.textContent = "";
        return;
      }
      var picked = rows.filter(function (r) {
        return (!entrant || r.entrant === entrant) && (!item || r.item_id === item) && (!state || r.state === state) &&
          (!words || r.item.toLowerCase().indexOf(words) !== -1);
      });
      var by = {
        best: function (a, b) { return score(b) - score(a); },
        worst: function (a, b) {
          var x = score(a), y = score(b);
          if (x === -Infinity) { return y === -Infinity ? 0 : 1; }
          if (y === -Infinity) { return -1; }
          return x - y;
        },
        entrant: function (a, b) { return a.entrant.localeCompare(b.entrant) || a.item.localeCompare(b.item) || a.attempt - b.attempt; },
        item: function (a, b) { return a.item.localeCompare(b.item) || a.entrant.localeCompare(b.entrant) || a.attempt - b.attempt; }
      }[sort];
      if (by) { picked.sort(by); }
      var body = document.createElement("tbody");
      picked.slice(0, SHOW).forEach(function (r) {
        var tr = document.createElement("tr");
        cell(tr, "td", r.entrant);
        var th = cell(tr, "th", null);
        var a = document.createElement("a");
        a.href = new URL(r.path, root).pathname;
        a.textContent = r.item;
        th.appendChild(a);
        cell(tr, "td", r.run);
        cell(tr, "td", String(r.attempt), "num");
        var td = cell(tr, "td", null);
        var badge = document.createElement("span");
        badge.className = "badge badge-" + r.state;
        badge.textContent = r.result;
        td.appendChild(badge);
        body.appendChild(tr);
      });
      table.replaceChild(body, table.tBodies[0]);
      pager.hidden = true;
      status.textContent = picked.length + " of " + rows.length + " transcripts match, from every page" +
        (picked.length > SHOW ? "; the first " + SHOW + " are shown (narrow the filter to see the rest)." : ".");
    }
    var fields = ["entrant", "item", "item_text", "state", "sort"];
    function update() {
      var f = new FormData(form), values = {};
      fields.forEach(function (k) { values[k] = f.get(k) || ""; });
      keepInUrl(values);
      if (rows) { render(); return; }
      if (loading) { return; }  // the load under way renders the form as it stands when the list arrives
      status.textContent = "Loading the whole list…";
      function json(url) {
        return fetch(url).then(function (r) { if (!r.ok) { throw new Error(url); } return r.json(); });
      }
      // the list names its parts (site layout 2), each at a path from the site's root
      loading = json(form.getAttribute("data-src")).then(function (list) {
        return Promise.all(list.parts.map(function (part) { return json(new URL(part, root).href); }));
      }).then(function (parts) {
        rows = [].concat.apply([], parts.map(function (part) { return part.transcripts; }));
        render();
      }).catch(function () {
        loading = null;  // a later change tries again
        status.textContent = "The whole list could not be loaded; the pages below still work.";
      });
    }
    form.addEventListener("change", update);
    var given = new URLSearchParams(location.search), any = false;
    fields.forEach(function (k) {
      var field = form.elements[k], value = given.get(k);
      if (!field || !value) { return; }
      if (field.tagName === "SELECT" && !Array.prototype.some.call(field.options, function (o) { return o.value === value; })) { return; }
      field.value = value;
      any = true;
    });
    if (any) { update(); }
  })();

  // ---- the 404 page: a link to a transcript, its download or an item from before each was put in a folder of 256
  // (site layout 2: the first two hex digits of the SHA-256 of its id) is forwarded to where the page is now
  var moved = document.getElementById("moved-pages");
  var shapes = [/^(.*\/t\/)([^\/]+)(\/)$/, /^(.*\/data\/t\/)([^\/]+)(\.json)$/, /^(.*\/items\/)([^\/]+)(\/(?:page\/\d+\/)?)$/];
  var old = null;
  shapes.forEach(function (shape) { old = old || location.pathname.match(shape); });
  if (moved && old && old[2] !== "page" && window.crypto && crypto.subtle) {
    var id;
    try { id = decodeURIComponent(old[2]); } catch (e) { id = null; }
    if (id !== null) {
      crypto.subtle.digest("SHA-256", new TextEncoder().encode(id)).then(function (digest) {
        var first = new Uint8Array(digest)[0];
        var to = old[1] + (first < 16 ? "0" : "") + first.toString(16) + "/" + old[2] + old[3];
        if (to !== location.pathname) { location.replace(to + location.search + location.hash); }
      });
    }
  }

  // a transcript's own download, on a benchmark published in the lean layout (which has none): forwarded to the
  // transcript's page, which names the file and the line that hold it
  var own = location.pathname.match(/^(.*\/)data\/t\/([0-9a-f]{2})\/([^\/]+)\.json$/);
  if (moved && own && !old) { location.replace(own[1] + "t/" + own[2] + "/" + own[3] + ".html" + location.hash); }

  // a transcript's page in a folder of its own, on a benchmark published in the lean layout (site layout 3 made it
  // a file of its folder of 256): forwarded to that file. The page names the lean benchmarks (data-lean).
  var folder = location.pathname.match(/^(.*\/([^\/]+)\/[^\/]+\/t\/[0-9a-f]{2}\/)([^\/]+)\/$/);
  var lean = moved ? (moved.getAttribute("data-lean") || "").split(" ") : [];
  if (folder && !old && lean.indexOf(folder[2]) >= 0) {
    location.replace(folder[1] + folder[3] + ".html" + location.search + location.hash);
  }

  // ---- search with the static Pagefind indexes (one bundle per run, merged here); results are built from text
  // nodes only. The query and the benchmark filter live in the URL (?q=…&benchmark=…), so a search can be shared.
  var form = document.querySelector("form[data-search]");
  if (!form) { return; }
  var status = document.querySelector("[data-search-status]");
  var list = document.querySelector("[data-search-results]");
  var more = document.querySelector("[data-search-more]");
  var input = document.getElementById("q");
  var select = document.getElementById("benchmark");
  var bundles = (form.getAttribute("data-bundles") || "").split(" ").filter(Boolean).map(function (b) {
    return new URL(b, location.href).pathname;
  });
  var script = document.querySelector('script[src$="static/site.js"]');
  var root = new URL("../", script.src);
  var PAGE = 20;
  var engine = null;
  var shown = [];  // the current search's results from Pagefind, how many of them were checked, and how many kept
  var next = 0;
  var found = 0;
  status.textContent = bundles.length ? "Type words and press Search." : "There are no transcripts to search.";

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

  function load() {
    if (engine) { return Promise.resolve(engine); }
    var first = bundles[0];
    return import(first + "pagefind.js").then(function (pf) {
      return pf.options({ baseUrl: root.pathname }).then(function () {
        return Promise.all(bundles.slice(1).map(function (b) { return pf.mergeIndex(b, { baseUrl: root.pathname }); }));
      }).then(function () { engine = pf; return pf; });
    });
  }

  function describe(d) {
    var m = d.meta || {};
    return [m.benchmark, m.entrant, m.attempt].filter(Boolean).join(" · ");
  }

  // Pagefind answers a word that is not in a bundle with that bundle's longest prefix of it that is (so "kettle"
  // could find pages with "k"): each result is kept only if every word of the query, or its stem, is in its text.
  // A word of the text matches when it starts with the query word, or shares all but its last two letters and is
  // at most one letter shorter (kettles finds kettle; kettle never finds kett or k).
  function words(text) { return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean); }
  function near(w, t) {
    var n = 0;
    while (n < w.length && n < t.length && w[n] === t[n]) { n++; }
    return n === w.length || (n >= Math.max(3, w.length - 2) && t.length >= w.length - 1);
  }
  function contains(d, query) {
    var have = words((d.meta && d.meta.title || "") + " " + (d.content || ""));
    return query.every(function (w) { return have.some(function (t) { return near(w, t); }); });
  }

  function say(done) {
    var q = input.value.trim(), where = select.value ? " in " + select.value : "";
    if (!found) { status.textContent = "No results for “" + q + "”" + where + "."; return; }
    status.textContent = (done ? found + " result" + (found === 1 ? "" : "s") : "The first " + found + " results") +
      " for “" + q + "”" + where + (done ? "." : "; more follow.");
  }

  function showMore() {
    var query = words(input.value);
    var target = found + PAGE;
    more.hidden = true;
    if (found) { status.textContent = "Loading more…"; }
    function step() {
      if (found >= target || next >= shown.length) { say(next >= shown.length); more.hidden = next >= shown.length; return null; }
      var batch = shown.slice(next, next + PAGE);
      next += batch.length;
      return Promise.all(batch.map(function (r) { return r.data(); })).then(function (data) {
        data.filter(function (d) { return contains(d, query); }).forEach(function (d) { found++; list.appendChild(item(d)); });
        return step();
      });
    }
    return step();
  }

  function item(d) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = d.url;
    a.textContent = (d.meta && d.meta.item) || (d.meta && d.meta.title) || d.url;
    li.appendChild(a);
    var where = document.createElement("p");
    where.className = "result-meta";
    where.textContent = describe(d);
    li.appendChild(where);
    var p = document.createElement("p");
    excerptNodes(d.excerpt || "", p);
    li.appendChild(p);
    return li;
  }

  function run(push) {
    var q = input.value.trim();
    list.textContent = "";
    shown = []; next = 0; found = 0; more.hidden = true;
    if (push) { keepInUrl({ q: q, benchmark: select.value }); }
    if (!q || !bundles.length) { return; }
    status.textContent = "Searching…";
    var options = select.value ? { filters: { benchmark: select.value } } : {};
    load().then(function (pf) { return pf.search(q, options); }).then(function (search) {
      shown = search.results;
      return showMore();
    }).catch(function () {
      status.textContent = "Search is unavailable here (the index is built with the site). Browse the Transcripts pages instead.";
    });
  }

  form.addEventListener("submit", function (event) { event.preventDefault(); run(true); });
  more.addEventListener("click", function () { showMore(); });
  var params = new URLSearchParams(location.search);
  if (params.get("q")) {
    input.value = params.get("q");
    var wanted = params.get("benchmark") || "";
    if (Array.prototype.some.call(select.options, function (o) { return o.value === wanted; })) { select.value = wanted; }
    run(false);
  }
})();
