"""The live pages' HTML and scripts (inline: the pages need nothing but this server)."""

from __future__ import annotations

__all__ = ["INDEX_PAGE", "LIVE_SCRIPT"]

INDEX_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@@TITLE@@: live</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;color:#0f172a;
  padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #cbd5e1;padding:.25em .6em}th{background:#f1f5f9}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.running td{background:#ecfeff}.status{font-weight:600}
#state{color:#475569}
</style></head>
<body>
<h1>@@TITLE@@</h1>
<p id="state">connecting...</p>
<div id="standings-box" hidden><h2>Standings</h2>
<table id="standings"><thead><tr><th>#</th><th>team</th><th>played</th><th>W</th><th>D</th>
<th>L</th><th>points</th><th>rating mu</th><th>sigma</th></tr></thead><tbody></tbody></table>
</div>
<h2>Matches</h2>
<table id="matches"><thead><tr><th>match</th><th>team 0</th><th>team 1</th><th>status</th>
<th>crossings</th><th>deaths</th><th>seconds</th><th>result</th><th>view</th></tr></thead>
<tbody></tbody></table>
<script>
(function () {
  "use strict";
  const esc = (text) => String(text).replace(/[&<>"']/g,
    (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
  const num = (v, digits) => (v === null || v === undefined) ? "" : Number(v).toFixed(digits);
  function render(state) {
    const running = state.matches.filter((m) => m.status === "running").length;
    const done = state.matches.filter((m) => m.status === "finished").length;
    document.getElementById("state").textContent =
      running + " running, " + done + " finished, " + state.matches.length + " in all";
    document.documentElement.dataset.version = String(state.version);
    document.querySelector("#matches tbody").innerHTML = state.matches.map((m) => {
      const link = m.status === "running" ? '<a href="/live/' + esc(m.name) + '">watch live</a>'
        : m.status === "finished" && m.replay ? '<a class="replay" href="/replay/' +
          esc(m.name) + '">replay</a>' : "";
      return '<tr class="' + esc(m.status) + '" data-match="' + esc(m.name) + '" data-status="' +
        esc(m.status) + '"><td>' + esc(m.name) + "</td><td>" + esc(m.seats[0]) + "</td><td>" +
        esc(m.seats[1]) + '</td><td class="status">' + esc(m.status) + '</td><td class="n">' +
        m.crossings[0] + " / " + m.crossings[1] + '</td><td class="n">' + m.deaths[0] + " / " +
        m.deaths[1] + '</td><td class="n">' + num(m.seconds, 1) + "</td><td>" +
        esc(m.result) + "</td><td>" + link + "</td></tr>";
    }).join("");
    const box = document.getElementById("standings-box");
    box.hidden = !state.standings;
    if (state.standings) {
      document.querySelector("#standings tbody").innerHTML = state.standings.map((r) =>
        '<tr data-team="' + esc(r.team) + '" data-points="' + r.points + '"><td>' + r.rank +
        "</td><td>" + esc(r.team) + '</td><td class="n">' + r.played + '</td><td class="n">' +
        r.wins + '</td><td class="n">' + r.draws + '</td><td class="n">' + r.losses +
        '</td><td class="n">' + r.points + '</td><td class="n">' + num(r.mu, 2) +
        '</td><td class="n">' + num(r.sigma, 2) + "</td></tr>").join("");
    }
  }
  const source = new EventSource("/events");
  source.addEventListener("board", (event) => render(JSON.parse(event.data)));
  source.onerror = () => { document.getElementById("state").textContent = "reconnecting..."; };
})();
</script>
</body></html>
"""

#: Replaces the viewer's script on a live page; ``/*VIEWER*/`` is the viewer's own script,
#: run again on a fresh copy of the page each time new data arrives, at the newest step.
LIVE_SCRIPT = r"""
(function () {
  "use strict";
  const pristine = document.body.innerHTML;
  const viewer = function () { /*VIEWER*/ };
  const root = document.documentElement;
  function show(data, over) {
    document.body.innerHTML = pristine;
    document.getElementById("match-data").textContent = JSON.stringify(data);
    const last = Math.max(0, data.frames.length - 1);
    history.replaceState(null, "", location.pathname + "?step=" + last);
    viewer();
    root.dataset.live = over ? "over" : "running";
    root.dataset.frames = String(data.frames.length);
  }
  history.replaceState(null, "", location.pathname + "?step=999999");
  viewer();
  root.dataset.live = "running";
  const source = new EventSource(location.pathname + "/events");
  source.addEventListener("frames", (event) => show(JSON.parse(event.data), false));
  source.addEventListener("over", (event) => {
    source.close();
    show(JSON.parse(event.data), true);
  });
})();
"""
