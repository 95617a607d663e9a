// veer report: progressive enhancement only; every section is readable without it.
(function () {
  "use strict";
  function cellValue(row, i) {
    var c = row.cells[i];
    var v = c.getAttribute("data-sort");
    if (v === null) { v = c.textContent.trim(); }
    var n = Number(v);
    return v !== "" && !isNaN(n) ? n : v.toLowerCase();
  }
  document.querySelectorAll("table.sortable th").forEach(function (th, i) {
    th.style.cursor = "pointer";
    th.title = "sort";
    th.addEventListener("click", function () {
      var table = th.closest("table");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var asc = th.getAttribute("data-dir") !== "asc";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-dir"); });
      th.setAttribute("data-dir", asc ? "asc" : "desc");
      rows.sort(function (a, b) {
        var x = cellValue(a, i), y = cellValue(b, i);
        var r = x < y ? -1 : x > y ? 1 : 0;
        return asc ? r : -r;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  // Opening a link to a turn opens its drill-down.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    var row = el && el.closest("tr");
    var next = row && row.nextElementSibling;
    var d = (el && el.querySelector("details")) || (next && next.querySelector("details"));
    if (d) { d.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  document.documentElement.setAttribute("data-ready", "1");
})();
