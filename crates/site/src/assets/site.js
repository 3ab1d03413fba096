// The index's sorting, filtering and picking, and the compare page — from the results' data
// in data.js. The view's state lives in the address (#q=…&soc=…&sort=aes:desc), so a view can
// be shared as a link.
(function () {
  "use strict";
  var D = window.TRUEBENCH_SITE || { rows: [] };
  var byId = {};
  D.rows.forEach(function (r) { byId[r.id] = r; });

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

  // ---- index ----
  var NUMERIC = { multi: 1, single: 1, aes: 1, memcpy: 1, memset: 1 };
  function sortValue(r, key) {
    if (key === "date") return r.unix_ms;
    if (NUMERIC[key]) return r[key] === null || r[key] === undefined ? null : r[key];
    var v = r[key];
    return v === null || v === undefined || v === "-" ? null : String(v).toLowerCase();
  }
  function initIndex() {
    var table = document.getElementById("results");
    var tbody = table.tBodies[0];
    var trs = Array.prototype.slice.call(tbody.rows);
    var filters = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
    var q = document.getElementById("q");
    var count = document.getElementById("count");
    var compare = document.getElementById("compare");
    var state = {};

    function matches(r, tr) {
      if (state.q) {
        var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
        var hay = tr.textContent.toLowerCase();
        for (var i = 0; i < words.length; i++) if (hay.indexOf(words[i]) < 0) return false;
      }
      if (state.soc && r.soc !== state.soc) return false;
      if (state.core && r.core_types.indexOf(state.core) < 0) return false;
      if (state.arch && r.arch !== state.arch) return false;
      if (state.valid && (state.valid === "valid") !== r.valid) return false;
      if (state.kind && r.kind !== state.kind) return false;
      return true;
    }
    function apply() {
      q.value = state.q || "";
      filters.forEach(function (s) { s.value = state[s.dataset.filter] || ""; });
      var sort = (state.sort || "").split(":"), key = sort[0], dir = sort[1] === "asc" ? 1 : -1;
      if (key) {
        trs.sort(function (a, b) {
          var x = sortValue(byId[a.dataset.id], key), y = sortValue(byId[b.dataset.id], key);
          if (x === null && y === null) return 0;
          if (x === null) return 1; // unknown last, either way
          if (y === null) return -1;
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
      } else {
        trs.sort(function (a, b) { return byId[b.dataset.id].unix_ms - byId[a.dataset.id].unix_ms; });
      }
      var shown = 0;
      trs.forEach(function (tr) {
        var ok = matches(byId[tr.dataset.id], tr);
        tr.hidden = !ok;
        if (ok) shown++;
        tbody.appendChild(tr);
      });
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
        var b = th.querySelector("button[data-sort]");
        if (!b) return;
        th.setAttribute("aria-sort", b.dataset.sort === key ? (dir === 1 ? "ascending" : "descending") : "none");
      });
      count.textContent = shown + " of " + trs.length + " results";
      setParams(state);
    }
    function picked() {
      return trs.filter(function (tr) { return tr.querySelector("input.pick").checked; })
        .map(function (tr) { return tr.dataset.id; });
    }
    function updatePick() {
      var ids = picked();
      trs.forEach(function (tr) { tr.classList.toggle("picked", tr.querySelector("input.pick").checked); });
      compare.disabled = ids.length < 2 || ids.length > 4;
      compare.textContent = ids.length > 4 ? "Pick at most 4 to compare" : "Compare selected (" + ids.length + ")";
    }
    table.tHead.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-sort]");
      if (!b) return;
      var key = b.dataset.sort, cur = (state.sort || "").split(":");
      var dir = cur[0] === key ? (cur[1] === "asc" ? "desc" : "asc") : (NUMERIC[key] || key === "date" ? "desc" : "asc");
      state.sort = key + ":" + dir;
      apply();
    });
    q.addEventListener("input", function () { state.q = q.value.trim(); apply(); });
    filters.forEach(function (s) {
      s.addEventListener("change", function () { state[s.dataset.filter] = s.value; apply(); });
    });
    tbody.addEventListener("change", updatePick);
    compare.addEventListener("click", function () {
      location.href = "compare.html#ids=" + picked().join(",");
    });
    document.getElementById("reset").addEventListener("click", function () { state = {}; apply(); });
    window.addEventListener("hashchange", function () { state = params(); apply(); });
    state = params();
    apply();
    updatePick();
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
