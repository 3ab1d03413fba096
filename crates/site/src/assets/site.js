// The index's sorting, filtering and picking, and the compare page. The rows come from the
// shards in assets/rows/ (scripts that call TRUEBENCH_ROWS: a page opened from file:// may
// not fetch), kept as columns — typed arrays and one table of strings — so a filter or a sort
// over a hundred thousand rows touches no DOM; the table draws only the rows in view. The
// view's state lives in the address (#q=…&soc=…&sort=aes:desc), so a view can be shared as
// a link.
(function () {
  "use strict";

  function params() {
    var h = location.hash.replace(/^#/, ""), p = {};
    if (h.indexOf("=") < 0) return p;
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) p[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " "));
    });
    return p;
  }
  function setParams(p) {
    var parts = [];
    Object.keys(p).sort().forEach(function (k) {
      if (p[k]) parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(p[k]));
    });
    history.replaceState(null, "", location.pathname + location.search + (parts.length ? "#" + parts.join("&") : ""));
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function file(k) {
    var s = String(k);
    while (s.length < 4) s = "0" + s;
    return s + ".js";
  }
  // Load the shards named, one script each; `done` once every one loaded or failed.
  function loadShards(dir, list, done) {
    var left = list.length, failed = [];
    if (!left) { done(failed); return; }
    list.forEach(function (k) {
      var s = document.createElement("script");
      s.src = dir + file(k);
      s.onload = s.onerror = function (e) {
        if (e.type === "error") failed.push(dir + file(k));
        if (--left === 0) done(failed);
      };
      document.body.appendChild(s);
    });
  }

  // ---- index ----
  // The columns as index.rs has them: key, heading, numeric.
  var COLUMNS = [["device", "Device"], ["soc", "SoC"], ["validity", "Validity"],
    ["multi", "7-zip multi", 1], ["single", "7-zip single", 1], ["aes", "AES", 1],
    ["memcpy", "memcpy", 1], ["memset", "memset", 1], ["headline", "Headline"], ["kind", "Kind"],
    ["date", "Date"], ["clock", "Clock"], ["kernel", "Kernel"], ["cores", "Core types"],
    ["arch", "Arch"], ["distro", "Distribution"], ["tool", "Tool"], ["source", "Source"]];
  // A shard row's fields by position (shards.rs FIELDS).
  var F = ["id", "unix_ms", "device", "kind", "soc", "soc_href", "soc_answer", "cores", "core_types",
    "arch", "clock", "throttled", "kernel", "distro", "multi", "single", "aes", "memcpy", "memset",
    "headline", "valid", "validity", "date", "tool", "source", "published"];
  var TEXT = ["device", "kind", "soc", "soc_href", "soc_answer", "cores", "arch", "clock", "kernel",
    "distro", "headline", "validity", "date", "tool", "source"];
  var NUMBERS = ["multi", "single", "aes", "memcpy", "memset"];
  var SEARCHED = ["device", "kind", "soc", "soc_answer", "cores", "arch", "clock", "kernel", "distro",
    "headline", "validity", "date", "tool", "source"];
  // The published Results.md column each cell shows beside it.
  var PUBLISHED = { clock: "clock", kernel: "kernel", distro: "distro", multi: "7-zip multi",
    single: "7-zip single", aes: "AES", memcpy: "memcpy", memset: "memset" };
  var POS = {};
  F.forEach(function (f, i) { POS[f] = i; });

  // The column store.
  function Store(n) {
    var t = this;
    t.n = 0;
    t.S = [];
    t.at = new Map();
    t.col = {};
    TEXT.forEach(function (k) { t.col[k] = new Int32Array(n).fill(-1); });
    NUMBERS.forEach(function (k) { t.col[k] = new Float64Array(n).fill(NaN); });
    t.id = new Float64Array(n);
    t.ms = new Float64Array(n);
    t.valid = new Uint8Array(n);
    t.throttled = new Uint8Array(n);
    t.types = new Array(n);
    t.pub = {};
    t.byId = new Map();
  }
  Store.prototype.str = function (s) {
    var i = this.at.get(s);
    if (i === undefined) { i = this.S.length; this.S.push(s); this.at.set(s, i); }
    return i;
  };
  Store.prototype.add = function (strings, rows) {
    var t = this;
    var map = new Int32Array(strings.length);
    for (var i = 0; i < strings.length; i++) map[i] = t.str(strings[i]);
    var g = function (v) { return v === null || v === undefined ? -1 : map[v]; };
    for (var r = 0; r < rows.length; r++) {
      var row = rows[r], n = t.n;
      if (n >= t.id.length) return; // more rows than the page announced: a stale shard
      t.id[n] = row[0];
      t.ms[n] = row[1];
      for (var k = 0; k < TEXT.length; k++) t.col[TEXT[k]][n] = g(row[POS[TEXT[k]]]);
      for (k = 0; k < NUMBERS.length; k++) {
        var v = row[POS[NUMBERS[k]]];
        t.col[NUMBERS[k]][n] = v === null || v === undefined ? NaN : v;
      }
      t.valid[n] = row[POS.valid];
      t.throttled[n] = row[POS.throttled];
      t.types[n] = row[POS.core_types].map(g);
      var p = row[POS.published];
      if (p) t.pub[n] = p.map(function (x) { return [strings[x[0]], strings[x[1]]]; });
      t.byId.set(row[0], n);
      t.n++;
    }
  };
  Store.prototype.text = function (k, i) {
    var v = this.col[k][i];
    return v < 0 ? null : this.S[v];
  };
  // Each string's place in sorted order ("-" and missing: none), computed once.
  Store.prototype.ranks = function () {
    if (this._ranks) return this._ranks;
    var S = this.S, lower = S.map(function (s) { return s.toLowerCase(); });
    var idx = S.map(function (_, i) { return i; });
    idx.sort(function (a, b) { return lower[a] < lower[b] ? -1 : lower[a] > lower[b] ? 1 : 0; });
    var rank = new Int32Array(S.length);
    idx.forEach(function (s, r) { rank[s] = S[s] === "-" ? -1 : r; });
    this._lower = lower;
    this._ranks = rank;
    return rank;
  };

  function clip(s, n) {
    var c = Array.from(s);
    return c.length > n ? c.slice(0, n - 1).join("").replace(/\s+$/, "") + "…" : s;
  }
  function cell(D, i, key) {
    var t = function (k) { return D.text(k, i); };
    var pub = "";
    if (PUBLISHED[key] && D.pub[i]) {
      D.pub[i].forEach(function (p) {
        if (p[0] === PUBLISHED[key]) pub = " <span class=\"pub\" title=\"the published Results.md row says " + esc(p[1]) + "\">published: " + esc(p[1]) + "</span>";
      });
    }
    switch (key) {
      case "device": return "<a href=\"r/" + D.id[i] + ".html\">" + esc(t("device")) + "</a>";
      case "soc":
        if (t("soc") !== null && t("soc_href") !== null) return "<a href=\"" + esc(t("soc_href")) + "\">" + esc(t("soc")) + "</a>";
        if (t("soc_answer") !== null) return "<a class=\"muted\" href=\"#unidentified\" title=\"" + esc(t("soc_answer")) + "\">unidentified</a>";
        return "-";
      case "validity":
        return "<span class=\"" + (D.valid[i] ? "good" : "bad") + "\" title=\"" + esc(t("validity")) + "\">" + esc(clip(t("validity"), 40)) + "</span>";
      case "multi": case "single": case "aes": case "memcpy": case "memset":
        var v = D.col[key][i];
        return (isNaN(v) ? "-" : String(v)) + pub;
      case "headline":
        return t("kind") === "run" ? "-" : "<span title=\"" + esc(t("headline")) + "\">" + esc(t("headline")) + "</span>";
      case "cores": return "<span title=\"" + esc(t("cores")) + "\">" + esc(t("cores")) + "</span>";
      case "clock": return esc(t("clock")) + (D.throttled[i] ? " <span class=\"bad\">(throttled)</span>" : "") + pub;
      case "kernel": case "distro": return esc(t(key)) + pub;
      default: return esc(t(key) === null ? "-" : t(key));
    }
  }
  function rowHtml(D, i, at, picked) {
    var id = D.id[i];
    // Its place among all the rows of the view, for a screen reader (only some are drawn).
    var o = "<tr data-id=\"" + id + "\" aria-rowindex=\"" + (at + 2) + "\"" + (picked ? " class=\"picked\"" : "") + "><td class=\"pick\"><input type=\"checkbox\" class=\"pick\" value=\"" + id + "\"" + (picked ? " checked" : "") + " aria-label=\"select #" + id + " " + esc(D.text("device", i)) + " for comparing\"></td>";
    for (var c = 0; c < COLUMNS.length; c++) {
      var key = COLUMNS[c][0], h = cell(D, i, key);
      o += "<td data-label=\"" + esc(COLUMNS[c][1]) + "\" class=\"c-" + key + (COLUMNS[c][2] ? " num" : "") + (h === "-" ? " empty" : "") + "\">" + h + "</td>";
    }
    return o + "</tr>";
  }

  function initIndex() {
    var table = document.getElementById("results");
    var scroller = document.getElementById("scroller");
    var tbody = table.tBodies[0];
    var filters = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
    var q = document.getElementById("q");
    var count = document.getElementById("count");
    var compare = document.getElementById("compare");
    var total = +table.dataset.count;
    var shards = (table.dataset.shards || "").split(",").filter(Boolean).map(Number);
    var D = new Store(total);
    var state = params(), order = null, rowH = 0, drawn = "";
    var picked = new Set();
    window.TRUEBENCH_ROWS = function (k, strings, rows) { D.add(strings, rows); };

    // The rows that pass the filters, in the sort's order.
    function select() {
      var n = D.n, keep = new Int32Array(n), m = 0;
      var words = (state.q || "").toLowerCase().split(/\s+/).filter(Boolean);
      D.ranks();
      var lower = D._lower;
      var hits = words.map(function (w) {
        var h = new Uint8Array(D.S.length);
        for (var s = 0; s < lower.length; s++) if (lower[s].indexOf(w) >= 0) h[s] = 1;
        return h;
      });
      var cols = SEARCHED.map(function (k) { return D.col[k]; });
      var id = function (s) { var v = D.at.get(s); return v === undefined ? -2 : v; };
      var soc = state.soc ? id(state.soc) : -1, core = state.core ? id(state.core) : -1;
      var arch = state.arch ? id(state.arch) : -1, kind = state.kind ? id(state.kind) : -1;
      var valid = state.valid ? (state.valid === "valid" ? 1 : 0) : -1;
      var socs = D.col.soc, archs = D.col.arch, kinds = D.col.kind;
      rows: for (var i = 0; i < n; i++) {
        if (soc !== -1 && socs[i] !== soc) continue;
        if (arch !== -1 && archs[i] !== arch) continue;
        if (kind !== -1 && kinds[i] !== kind) continue;
        if (valid !== -1 && D.valid[i] !== valid) continue;
        if (core !== -1 && D.types[i].indexOf(core) < 0) continue;
        for (var w = 0; w < hits.length; w++) {
          var h = hits[w], found = false;
          for (var c = 0; c < cols.length && !found; c++) found = cols[c][i] >= 0 && h[cols[c][i]] === 1;
          if (!found && socs[i] < 0) found = "unidentified".indexOf(words[w]) >= 0;
          if (!found && ("#" + D.id[i]) === words[w]) found = true;
          if (!found) {
            for (var k = 0; k < NUMBERS.length && !found; k++) {
              var v = D.col[NUMBERS[k]][i];
              found = !isNaN(v) && String(v).indexOf(words[w]) >= 0;
            }
          }
          if (!found) continue rows;
        }
        keep[m++] = i;
      }
      keep = keep.subarray(0, m);
      var sort = (state.sort || "").split(":"), key = sort[0], dir = sort[1] === "asc" ? 1 : -1;
      var ms = D.ms, byDate = function (a, b) { return ms[b] - ms[a] || D.id[b] - D.id[a]; };
      if (!key || key === "date") {
        var d = key ? dir : -1;
        keep.sort(function (a, b) { return (ms[a] - ms[b] || D.id[a] - D.id[b]) * d; });
      } else {
        var col = D.col[key], rank = D.ranks();
        var val = NUMBERS.indexOf(key) >= 0 ? function (i) { var v = col[i]; return isNaN(v) ? null : v; }
          : function (i) { return col[i] < 0 ? null : rank[col[i]] < 0 ? null : rank[col[i]]; };
        var vals = new Float64Array(D.n);
        for (i = 0; i < m; i++) { var x = val(keep[i]); vals[keep[i]] = x === null ? NaN : x; }
        keep.sort(function (a, b) {
          var x = vals[a], y = vals[b];
          if (isNaN(x) || isNaN(y)) return isNaN(x) && isNaN(y) ? byDate(a, b) : isNaN(x) ? 1 : -1; // unknown last
          return (x - y) * dir || byDate(a, b);
        });
      }
      return { key: key, dir: dir, rows: keep };
    }
    // Draw the rows in view, and a margin, between two spacers of the others' height.
    function draw(force) {
      if (!order) return;
      if (!rowH) rowH = 30;
      var n = order.rows.length, top = scroller.scrollTop, view = scroller.clientHeight || 600;
      var from = Math.max(0, Math.floor(top / rowH) - 20);
      var to = Math.min(n, Math.ceil((top + view) / rowH) + 20);
      var key = from + ":" + to + ":" + n;
      if (!force && key === drawn) return;
      drawn = key;
      var o = "<tr class=\"spacer\" aria-hidden=\"true\" style=\"height:" + from * rowH + "px\"></tr>";
      for (var i = from; i < to; i++) {
        var r = order.rows[i];
        o += rowHtml(D, r, i, picked.has(String(D.id[r])));
      }
      o += "<tr class=\"spacer\" aria-hidden=\"true\" style=\"height:" + (n - to) * rowH + "px\"></tr>";
      tbody.innerHTML = o;
      table.setAttribute("aria-rowcount", n + 1);
      // The rows' real height, once: the spacers stand for that many rows.
      var first = tbody.rows[1];
      if (first && first.className !== "spacer" && Math.abs(first.offsetHeight - rowH) > 0.5) {
        rowH = first.offsetHeight;
        drawn = "";
        draw(false);
      }
    }
    function apply() {
      q.value = state.q || "";
      filters.forEach(function (s) { s.value = state[s.dataset.filter] || ""; });
      setParams(state);
      if (D.n < total && shards.length) return; // still loading: the page's rows stay
      var t0 = performance.now();
      order = select();
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        var b = th.querySelector("button[data-sort]");
        if (!b) return;
        th.setAttribute("aria-sort", b.dataset.sort === order.key ? (order.dir === 1 ? "ascending" : "descending") : "none");
      });
      count.textContent = order.rows.length + " of " + D.n + " results";
      scroller.scrollTop = 0; // a new view starts at its top
      draw(true);
      table.dataset.applyMs = (performance.now() - t0).toFixed(1);
    }
    function updatePick() {
      var ids = Array.from(picked);
      compare.disabled = ids.length < 2 || ids.length > 4;
      compare.textContent = ids.length > 4 ? "Pick at most 4 to compare" : "Compare selected (" + ids.length + ")";
    }
    table.tHead.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-sort]");
      if (!b) return;
      var key = b.dataset.sort, cur = (state.sort || "").split(":");
      var dir = cur[0] === key ? (cur[1] === "asc" ? "desc" : "asc") : (NUMBERS.indexOf(key) >= 0 || key === "date" ? "desc" : "asc");
      state.sort = key + ":" + dir;
      apply();
    });
    q.addEventListener("input", function () { state.q = q.value.trim(); apply(); });
    filters.forEach(function (s) {
      s.addEventListener("change", function () { state[s.dataset.filter] = s.value; apply(); });
    });
    tbody.addEventListener("change", function (e) {
      var box = e.target.closest("input.pick");
      if (!box) return;
      if (box.checked) picked.add(box.value); else picked.delete(box.value);
      box.closest("tr").classList.toggle("picked", box.checked);
      updatePick();
    });
    var pending = false;
    scroller.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(false); });
    });
    window.addEventListener("resize", function () { draw(false); });
    compare.addEventListener("click", function () {
      location.href = "compare.html#ids=" + Array.from(picked).join(",");
    });
    document.getElementById("reset").addEventListener("click", function () { state = {}; apply(); });
    window.addEventListener("hashchange", function () { state = params(); apply(); });
    var first = tbody.rows[0];
    if (first) rowH = first.offsetHeight;
    count.textContent = "Loading " + total + " results…";
    var t0 = performance.now();
    apply();
    updatePick();
    loadShards("assets/rows/", shards, function (failed) {
      table.dataset.loadMs = (performance.now() - t0).toFixed(1);
      if (failed.length) {
        count.textContent = "Could not load " + failed.join(", ") + ": the table shows the page's own rows.";
        table.dataset.failed = failed.join(" ");
        return;
      }
      total = D.n;
      apply();
      // Every row is here: the note for a reader without script no longer applies.
      var inPage = document.getElementById("in-page");
      if (inPage) inPage.hidden = true;
      table.dataset.ready = "1";
      // Since the page began to load: what bench/site_scale.sh reports.
      table.dataset.readyAt = performance.now().toFixed(1);
    });
  }

  // ---- compare ----
  function shown(f) {
    if (!f) return "-";
    if (f.value !== null && f.value !== undefined) {
      if (Math.abs(f.value) < 0.05) return "0";
      return f.value.toFixed(1).replace(/\.0$/, "");
    }
    return f.text === null || f.text === undefined ? "-" : f.text;
  }
  // The same rule as `truebench compare` (store::fairness::differing): the known values of a
  // fact differ; every result shown, an unknown one as "none".
  function differing(rows, keys, name) {
    var facts = rows.map(function (r) {
      return r.fair.facts.filter(function (f) { return f.name === name; })[0] || null;
    });
    var known = facts.filter(Boolean).map(function (f) { return f.compared !== null && f.compared !== undefined ? f.compared : f.value; })
      .filter(function (v) { return v !== null && v !== undefined; });
    if (known.every(function (k) { return k === known[0]; })) return null;
    return facts.map(function (f, i) { return keys[i] + ": " + (f && f.value ? f.value : "none"); }).join(", ");
  }
  function initCompare() {
    var ids = (params().ids || "").split(",").filter(Boolean);
    var byId = {};
    window.TRUEBENCH_DETAIL = function (k, rows) { rows.forEach(function (r) { byId[r.id] = r; }); };
    var need = [];
    ids.forEach(function (id) {
      var k = Math.floor(Number(id) / 1000);
      if (isFinite(k) && need.indexOf(k) < 0) need.push(k);
    });
    loadShards("assets/detail/", need, function () { showCompare(ids, byId); });
  }
  function showCompare(ids, byId) {
    var rows = ids.map(function (id) { return byId[id]; }).filter(Boolean);
    var sub = document.getElementById("compare-sub");
    if (ids.length && rows.length < ids.length) {
      sub.textContent = "Not in this site: result " + ids.filter(function (id) { return !byId[id]; }).join(", ") + ".";
    }
    if (rows.length < 2) return;
    var keys = rows.map(function (_, i) { return String.fromCharCode(65 + i); });
    var warnings = [];
    var kinds = rows.map(function (r) { return r.kind; });
    var oneKind = kinds.every(function (k) { return k === kinds[0]; });
    if (!oneKind) {
      warnings.push("Only results of one kind can be compared: " + rows.map(function (r, i) { return keys[i] + " is a " + r.kind + " result"; }).join(", ") + ".");
    }
    rows.forEach(function (r, i) {
      r.fair.own.forEach(function (why) { warnings.push(keys[i] + " (" + r.label + "): " + why); });
    });
    var names = [];
    rows.forEach(function (r) {
      r.fair.facts.forEach(function (f) { if (!names.some(function (n) { return n.name === f.name; })) names.push(f); });
    });
    names.forEach(function (f) {
      var d = differing(rows, keys, f.name);
      if (d) warnings.push("different " + f.name + " (" + d + "): " + f.why);
    });
    sub.textContent = rows.length + " " + (oneKind ? kinds[0] + " " : "") + "results; A is the reference, every other shows its difference to it.";
    var badge = document.getElementById("fair-badge");
    badge.hidden = false;
    badge.textContent = warnings.length ? "NOT FAIR" : "FAIR";
    badge.className = "badge " + (warnings.length ? "warn" : "ok");
    document.getElementById("fairness").hidden = false;
    document.getElementById("fair-title").textContent = warnings.length ? "Why the comparison is unfair" : "Fair: every result is complete, valid and comparable, and nothing that changes the scores differs";
    var list = document.getElementById("fair-list");
    warnings.forEach(function (w) { list.appendChild(el("li", w)); });
    if (!oneKind) return;

    var table = document.getElementById("compare-table");
    var head = table.tHead.insertRow();
    head.appendChild(el("th", "Figure")).scope = "col";
    rows.forEach(function (r, i) {
      var th = el("th", null, "num");
      th.scope = "col";
      var a = el("a", keys[i] + " · " + r.label);
      a.href = r.href;
      th.appendChild(a);
      head.appendChild(th);
    });
    var order = [];
    rows.forEach(function (r) {
      r.figures.forEach(function (f) { if (order.indexOf(f.key) < 0) order.push(f.key); });
    });
    order.forEach(function (key) {
      var per = rows.map(function (r) { return r.figures.filter(function (f) { return f.key === key; })[0] || null; });
      var any = per.filter(Boolean)[0];
      var tr = table.tBodies[0].insertRow();
      var name = el("td", any.label);
      if (any.unit) name.appendChild(el("small", " (" + any.unit + ")"));
      tr.appendChild(name);
      var base = per[0] && per[0].value;
      per.forEach(function (f, i) {
        var td = el("td", shown(f), "num");
        td.dataset.label = keys[i];
        if (i > 0 && f && f.value !== null && f.value !== undefined && base !== null && base !== undefined && base !== 0) {
          var pct = (f.value - base) / Math.abs(base) * 100;
          td.appendChild(el("small", " (" + (pct >= 0 ? "+" : "") + pct.toFixed(1) + " %)"));
        }
        tr.appendChild(td);
      });
    });
    document.getElementById("figures").hidden = false;
  }

  if (document.getElementById("results")) initIndex();
  if (document.getElementById("compare-table")) initCompare();
})();
