# ruff: noqa: E501  (the inlined HTML, CSS and JavaScript keep their natural line lengths)
r"""The viewer's page, style sheet and script, inlined into every rendered HTML file.

Kept as Python strings (not package data files) so an installed wheel always carries them. The
page needs no network: the match data sits in a ``<script type="application/json">`` element,
the script draws the dungeon as SVG from it. Markers ``@@NAME@@`` are filled by
:mod:`replay.html`.

The script is pinned to one log schema (``VIEWER_SCHEMA``) and refuses data of another.
For tests and links, ``?step=N`` opens the viewer at step N and ``?slide=N`` then moves the
step slider to N as a user would; the current step is mirrored in ``<html data-step>``, and
each agent's ``<g class="agent">`` carries ``data-node`` and its ``transform``.
"""

from __future__ import annotations

__all__ = ["CSS", "SCRIPT", "TEMPLATE"]

TEMPLATE = r"""<!DOCTYPE html>
<html lang="en" data-step="">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dungeon-arena @@VERSION@@ (arena replay render)">
<meta name="match-log-schema" content="@@SCHEMA@@">
<title>@@TITLE@@</title>
<style>@@CSS@@</style>
</head>
<body>
<div id="app">
  <header id="top">
    <div class="brand"><span class="logo">◆</span> Dungeon Arena <span class="dim">replay</span></div>
    <div id="facts"></div>
    <div id="result"></div>
  </header>
  <div id="banner" hidden></div>
  <main id="stage">
    <section id="board">
      <svg id="map" viewBox="-30 -30 1060 1060" preserveAspectRatio="xMidYMid meet"
           role="img" aria-label="the dungeon">
        <defs>
          <radialGradient id="floor" cx="50%" cy="50%" r="70%">
            <stop offset="0%" stop-color="#141b2e"/><stop offset="100%" stop-color="#070a13"/>
          </radialGradient>
          <filter id="glow" x="-50%" y="-50%" width="200%" height="200%">
            <feGaussianBlur stdDeviation="6" result="blur"/>
            <feMerge><feMergeNode in="blur"/><feMergeNode in="SourceGraphic"/></feMerge>
          </filter>
          <filter id="soft" x="-50%" y="-50%" width="200%" height="200%">
            <feGaussianBlur stdDeviation="2.5" result="blur"/>
            <feMerge><feMergeNode in="blur"/><feMergeNode in="SourceGraphic"/></feMerge>
          </filter>
          <marker id="arrow0" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5"
                  markerHeight="5" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="team0-fill"/></marker>
          <marker id="arrow1" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5"
                  markerHeight="5" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="team1-fill"/></marker>
        </defs>
        <rect x="-30" y="-30" width="1060" height="1060" rx="18" fill="url(#floor)"/>
        <g id="corridors"></g><g id="nodes"></g><g id="paths"></g><g id="places"></g>
        <g id="npcs"></g><g id="effects"></g><g id="agents"></g>
      </svg>
    </section>
    <aside id="panel">
      <div class="card" id="cursor-card">
        <div class="card-title">At this step</div>
        <div id="cursor"></div>
        <ul id="notes"></ul>
      </div>
      <div class="card">
        <div class="card-title">Score so far</div>
        <table id="score"></table>
      </div>
      <div class="card">
        <div class="card-title">Agents (node)</div>
        <table id="roster"></table>
      </div>
      <div class="card" id="legend-card">
        <div class="card-title">Legend</div>
        <div id="legend"></div>
      </div>
    </aside>
  </main>
  <footer id="controls">
    <button id="play" title="play / pause (space)" aria-label="play"></button>
    <button id="back" title="previous step (←)" aria-label="previous step"><svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h2v12H3zM14 2v12L6 8z" fill="currentColor"/></svg></button>
    <button id="next" title="next step (→)" aria-label="next step"><svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M11 2h2v12h-2zM2 2v12l8-6z" fill="currentColor"/></svg></button>
    <div id="track">
      <svg id="strip" viewBox="0 0 1000 12" preserveAspectRatio="none" aria-label="what happened when"></svg>
      <input id="slider" type="range" min="0" max="0" value="0" step="1" aria-label="step">
    </div>
    <span id="stepno" class="mono"></span>
    <label class="speed">speed
      <select id="speed">
        <option value="0.5">½×</option><option value="1" selected>1×</option>
        <option value="2">2×</option><option value="4">4×</option><option value="8">8×</option>
        <option value="16">16×</option>
      </select>
    </label>
  </footer>
</div>
<script type="application/json" id="match-data">@@DATA@@</script>
<script>@@SCRIPT@@</script>
</body>
</html>
"""

CSS = r"""
:root {
  --bg: #05070d; --card: #0e1424; --line: #1e2940; --text: #dbe4f5; --dim: #7d8aa5;
  --team0: #38bdf8; --team1: #fb923c; --gold: #facc15; --npc: #c084fc; --death: #f43f5e;
  --move-ms: 320ms;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#app { display: grid; grid-template-rows: auto auto 1fr auto; height: 100vh; }
#top { display: flex; align-items: center; gap: 24px; padding: 10px 18px;
  border-bottom: 1px solid var(--line); background: linear-gradient(#0b1122, #070b16); }
.brand { font-weight: 700; letter-spacing: .04em; font-size: 16px; white-space: nowrap; }
.logo { color: var(--gold); text-shadow: 0 0 12px rgba(250, 204, 21, .6); }
.dim { color: var(--dim); font-weight: 400; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
#facts { color: var(--dim); font-size: 13px; display: flex; gap: 16px; flex-wrap: wrap; }
#facts b { color: var(--text); font-weight: 600; }
#result { margin-left: auto; font-weight: 700; padding: 4px 12px; border-radius: 999px;
  border: 1px solid var(--line); white-space: nowrap; }
#result.team0 { color: var(--team0); border-color: var(--team0); }
#result.team1 { color: var(--team1); border-color: var(--team1); }
#banner { padding: 8px 18px; background: #3b1d0a; color: #fed7aa; border-bottom: 1px solid #7c2d12; }
#banner.refused { background: #3f0d16; color: #fecdd3; font-size: 16px; padding: 28px; }
#stage { display: grid; grid-template-columns: minmax(0, 1fr) 340px; min-height: 0; }
#board { display: flex; align-items: center; justify-content: center; padding: 10px; min-height: 0; }
#map { width: 100%; height: 100%; max-height: calc(100vh - 130px); }
#panel { border-left: 1px solid var(--line); padding: 12px; overflow-y: auto;
  display: flex; flex-direction: column; gap: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 12px 14px; }
.card-title { text-transform: uppercase; font-size: 11px; letter-spacing: .12em; color: var(--dim);
  margin-bottom: 8px; }
#cursor { font-size: 13px; color: var(--dim); margin-bottom: 6px; }
#cursor b { color: var(--text); }
#notes { list-style: none; margin: 0; padding: 0; max-height: 38vh; overflow-y: auto; }
#notes li { padding: 4px 0 4px 10px; border-left: 3px solid var(--line); margin-bottom: 4px;
  font-size: 13px; }
#notes li.crossed { border-color: #334155; }
#notes li.trap { border-color: var(--death); }
#notes li.attacked, #notes li.kill { border-color: #e879f9; }
#notes li.npc { border-color: var(--npc); }
#notes li.seen { color: var(--dim); }
#notes li.error { border-color: #ef4444; color: #fca5a5; }
#notes li.game_over { border-color: var(--gold); color: var(--gold); font-weight: 700; }
.t0 { color: var(--team0); font-weight: 600; } .t1 { color: var(--team1); font-weight: 600; }
#score { width: 100%; border-collapse: collapse; font-size: 13px; }
#score th, #score td { padding: 3px 4px; text-align: right; }
#score th:first-child, #score td:first-child { text-align: left; color: var(--dim); font-weight: 400; }
#roster { width: 100%; border-collapse: collapse; font-size: 12px; }
#roster td { padding: 2px 4px; }
#roster td.node { text-align: right; font-family: ui-monospace, Menlo, Consolas, monospace; color: var(--dim); }
#roster td.node.moved { color: var(--text); font-weight: 700; }
#roster td.node.down { color: var(--death); font-weight: 700; }
#legend { display: grid; grid-template-columns: 22px 1fr; gap: 4px 8px; font-size: 12px;
  color: var(--dim); align-items: center; }
#legend svg { width: 20px; height: 20px; }
#controls { display: flex; align-items: center; gap: 10px; padding: 10px 18px;
  border-top: 1px solid var(--line); background: #070b16; }
#controls button { background: var(--card); color: var(--text); border: 1px solid var(--line);
  border-radius: 8px; width: 38px; height: 32px; cursor: pointer; display: inline-flex;
  align-items: center; justify-content: center; }
#controls button:hover { border-color: var(--team0); }
#play.playing { background: #0c4a6e; border-color: var(--team0); }
#track { flex: 1; display: flex; flex-direction: column; gap: 3px; }
#strip { width: 100%; height: 12px; cursor: pointer; background: #0b1122; border-radius: 3px; }
#strip .tick-kill { fill: #e879f9; } #strip .tick-death { fill: var(--death); opacity: .7; }
#strip .tick-npc { fill: var(--npc); opacity: .6; } #strip .tick-end { fill: var(--gold); }
#strip .tick-heir { fill: var(--death); }
#slider { width: 100%; margin: 0; accent-color: var(--gold); }
#stepno { min-width: 120px; text-align: right; color: var(--dim); }
.speed { color: var(--dim); font-size: 13px; }
.speed select { background: var(--card); color: var(--text); border: 1px solid var(--line);
  border-radius: 6px; padding: 3px; }
/* the map */
.corridor { stroke: #2b3957; stroke-width: 1.1; opacity: .75; fill: none; }
.node { fill: #41517a; }
.team0-fill { fill: var(--team0); } .team1-fill { fill: var(--team1); }
.start rect { fill-opacity: .18; stroke-width: 3; }
.start.team0 rect { fill: var(--team0); stroke: var(--team0); }
.start.team1 rect { fill: var(--team1); stroke: var(--team1); }
.shrine .star { fill: var(--gold); filter: url(#glow); }
.shrine .ring { fill: none; stroke-width: 3; }
.shrine.team0 .ring { stroke: var(--team0); } .shrine.team1 .ring { stroke: var(--team1); }
.place-label { font-size: 17px; fill: var(--dim); font-weight: 600; paint-order: stroke;
  stroke: #070a13; stroke-width: 4px; }
.npc { fill: var(--npc); stroke: #3b0764; stroke-width: 1.5; transition: opacity .4s, transform .4s;
  transform-box: fill-box; transform-origin: center; }
.npc.dead { opacity: 0; transform: scale(2.2); }
.heir-path { fill: none; stroke-width: 3.2; stroke-linejoin: round; stroke-linecap: round;
  opacity: .55; filter: url(#soft); }
.heir-path.team0 { stroke: var(--team0); } .heir-path.team1 { stroke: var(--team1); }
.agent { transition: transform var(--move-ms) ease-in-out; }
.agent circle.body { stroke: #020617; stroke-width: 2.5; }
.agent.team0 circle.body { fill: var(--team0); } .agent.team1 circle.body { fill: var(--team1); }
.agent.heir circle.crown { fill: none; stroke: var(--gold); stroke-width: 3; }
.agent text { font-size: 11px; font-weight: 800; fill: #020617; text-anchor: middle;
  dominant-baseline: central; pointer-events: none; }
.agent.moved circle.body { stroke: #f8fafc; }
.agent.down circle.body { stroke: var(--death); stroke-width: 3.5; }
.fx-move { stroke-width: 3; fill: none; opacity: .9; }
.fx-move.team0 { stroke: var(--team0); } .fx-move.team1 { stroke: var(--team1); }
.fx-fail { stroke: var(--death); stroke-width: 2.5; stroke-dasharray: 6 5; fill: none; }
.fx-x { stroke: var(--death); stroke-width: 4; stroke-linecap: round; }
.fx-burst { fill: none; stroke: #f0abfc; stroke-width: 3; animation: burst 900ms ease-out forwards; }
@keyframes burst { from { r: 6; opacity: 1; } to { r: 42; opacity: 0; } }
@media (max-width: 900px) { #stage { grid-template-columns: 1fr; } #panel { border-left: 0; } }
"""

SCRIPT = r"""
(function () {
  "use strict";
  const VIEWER_SCHEMA = @@SCHEMA@@;
  const data = JSON.parse(document.getElementById("match-data").textContent);
  const html = document.documentElement;
  const banner = document.getElementById("banner");

  if (data.schema !== VIEWER_SCHEMA) {
    banner.hidden = false;
    banner.className = "refused";
    banner.textContent = "This viewer reads match logs of schema version " + VIEWER_SCHEMA +
      ", but this file holds schema version " + data.schema + ". Render the log with the " +
      "dungeon-arena release that wrote it (arena replay render).";
    document.getElementById("stage").hidden = true;
    document.getElementById("controls").hidden = true;
    html.dataset.refused = "schema";
    return;
  }

  const NS = "http://www.w3.org/2000/svg";
  const SIZE = 1000, TEAM_SIZE = 6;
  const frames = data.frames, last = frames.length - 1;
  const X = (node) => (data.nodes[node][0] * SIZE);
  const Y = (node) => ((1 - data.nodes[node][1]) * SIZE);
  const f1 = (v) => v.toFixed(1);
  const who = (slot) => "T" + Math.floor(slot / TEAM_SIZE) + " " +
    (slot % TEAM_SIZE === 0 ? "heir" : "a" + (slot % TEAM_SIZE));

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }
  const layer = (id) => document.getElementById(id);

  // --- header -------------------------------------------------------------------------------
  const h = data.header;
  const facts = [["match", h.match || "(unnamed)"], ["seed", h.seed], ["source", h.source],
    ["nodes", data.nodes.length], ["steps", last], ["written by", h.version]];
  document.getElementById("facts").innerHTML = facts.map(
    ([k, v]) => "<span>" + k + " <b>" + escapeHtml(String(v)) + "</b></span>").join("");
  const result = document.getElementById("result");
  result.textContent = data.result.text;
  if (data.result.winner === 0 || data.result.winner === 1) result.classList.add("team" + data.result.winner);
  if (data.warning) { banner.hidden = false; banner.textContent = data.warning; }

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
  }

  // --- the dungeon --------------------------------------------------------------------------
  const parts = [];
  for (const [u, v] of data.edges) parts.push("M" + f1(X(u)) + " " + f1(Y(u)) + "L" + f1(X(v)) + " " + f1(Y(v)));
  el("path", {d: parts.join(""), class: "corridor"}, layer("corridors"));
  const dots = [];
  for (let i = 0; i < data.nodes.length; i++) {
    dots.push("M" + f1(X(i) - 1.8) + " " + f1(Y(i)) + "a1.8 1.8 0 1 0 3.6 0a1.8 1.8 0 1 0 -3.6 0");
  }
  el("path", {d: dots.join(""), class: "node"}, layer("nodes"));

  const places = layer("places");
  function label(x, y, text, anchorBelow) {
    const t = el("text", {x: f1(x), y: f1(anchorBelow ? y + 52 : y - 40), "text-anchor": "middle",
      class: "place-label"}, places);
    t.textContent = text;
  }
  data.start.forEach((node, team) => {
    const g = el("g", {class: "start team" + team}, places);
    el("rect", {x: f1(X(node) - 13), y: f1(Y(node) - 13), width: 26, height: 26, rx: 6}, g);
    el("title", {}, g).textContent = "team " + team + " start (node " + node + ")";
    label(X(node), Y(node), "T" + team + " start", Y(node) < 60);
  });
  function star(cx, cy, outer, inner) {
    const pts = [];
    for (let i = 0; i < 10; i++) {
      const r = i % 2 ? inner : outer, a = Math.PI / 5 * i - Math.PI / 2;
      pts.push(f1(cx + r * Math.cos(a)) + "," + f1(cy + r * Math.sin(a)));
    }
    return pts.join(" ");
  }
  data.shrine.forEach((node, team) => {
    const g = el("g", {class: "shrine team" + team}, places);
    el("circle", {cx: f1(X(node)), cy: f1(Y(node)), r: 20, class: "ring"}, g);
    el("polygon", {points: star(X(node), Y(node), 15, 6.5), class: "star"}, g);
    el("title", {}, g).textContent = "team " + team + " shrine (node " + node + ")";
    label(X(node), Y(node), "T" + team + " shrine", Y(node) < 60);
  });

  const npcDiedAt = {};
  frames.forEach((frame, index) => frame.n.forEach((node) => { npcDiedAt[node] = index; }));
  const npcShapes = data.npcs.map((node) => {
    const s = 7.5, x = X(node), y = Y(node);
    const shape = el("path", {d: "M" + f1(x) + " " + f1(y - s) + "L" + f1(x + s) + " " + f1(y) +
      "L" + f1(x) + " " + f1(y + s) + "L" + f1(x - s) + " " + f1(y) + "Z", class: "npc",
      "data-node": node}, layer("npcs"));
    el("title", {}, shape).textContent = "NPC at node " + node;
    return [node, shape];
  });

  const heirPaths = [0, 1].map((team) => el("path", {class: "heir-path team" + team, d: ""}, layer("paths")));

  const agents = [];
  for (let slot = 0; slot < 2 * TEAM_SIZE; slot++) {
    const team = Math.floor(slot / TEAM_SIZE), heir = slot % TEAM_SIZE === 0;
    const g = el("g", {class: "agent team" + team + (heir ? " heir" : ""), "data-slot": slot,
      "data-team": team, "data-agent": slot % TEAM_SIZE}, layer("agents"));
    if (heir) el("circle", {r: 15.5, class: "crown"}, g);
    el("circle", {r: heir ? 11 : 8.5, class: "body"}, g);
    el("text", {}, g).textContent = heir ? "H" : String(slot % TEAM_SIZE);
    const tip = el("title", {}, g);
    agents.push({g, tip});
  }

  // --- legend and score -----------------------------------------------------------------------
  const legend = [
    ['<circle cx="10" cy="10" r="6" fill="var(--team0)"/>', "team 0 agent (gold ring: heir)"],
    ['<circle cx="10" cy="10" r="6" fill="var(--team1)"/>', "team 1 agent (gold ring: heir)"],
    ['<polygon points="' + star(10, 10, 8, 3.5) + '" fill="var(--gold)"/>', "shrine (ring: its team)"],
    ['<rect x="3" y="3" width="14" height="14" rx="3" fill="none" stroke="var(--dim)" stroke-width="2"/>', "start"],
    ['<path d="M10 3L17 10L10 17L3 10Z" fill="var(--npc)"/>', "NPC"],
    ['<path d="M2 10H18" stroke="var(--team0)" stroke-width="3"/>', "heir's path"],
    ['<path d="M5 5L15 15M15 5L5 15" stroke="var(--death)" stroke-width="3"/>', "death in a trap"],
    ['<circle cx="10" cy="10" r="7" fill="none" stroke="#f0abfc" stroke-width="2"/>', "kill"],
  ];
  document.getElementById("legend").innerHTML = legend.map(
    ([shape, text]) => '<svg viewBox="0 0 20 20">' + shape + "</svg><span>" + text + "</span>").join("");

  // Cumulative counts per team up to each frame.
  const tally = [];
  let run = [[0, 0, 0, 0], [0, 0, 0, 0]];  // crossings, trap deaths, kills, NPCs killed
  for (const frame of frames) {
    run = run.map((row) => row.slice());
    for (const [slot, , , reason] of frame.m) {
      const team = Math.floor(slot / TEAM_SIZE);
      if (reason === "crossed") run[team][0] += 1;
      if (reason === "trap") { run[team][0] += 1; run[team][1] += 1; }
    }
    for (const [killer, victim] of frame.k) run[Math.floor(killer / TEAM_SIZE)][victim < 0 ? 3 : 2] += 1;
    tally.push(run);
  }
  const score = document.getElementById("score");
  function drawScore(step) {
    const rows = [["crossings", 0], ["trap deaths", 1], ["kills", 2], ["NPCs killed", 3]];
    score.innerHTML = '<tr><th></th><th class="t0">team 0</th><th class="t1">team 1</th></tr>' +
      rows.map(([name, i]) => "<tr><td>" + name + "</td><td>" + tally[step][0][i] + "</td><td>" +
        tally[step][1][i] + "</td></tr>").join("");
  }

  const roster = document.getElementById("roster");
  function drawRoster(frame, movedSlots, downSlots) {
    const rows = [];
    for (let agent = 0; agent < TEAM_SIZE; agent++) {
      const cells = [0, 1].map((team) => {
        const slot = team * TEAM_SIZE + agent;
        const state = downSlots.has(slot) ? "down" : movedSlots.has(slot) ? "moved" : "";
        const name = agent === 0 ? "heir" : "a" + agent;
        return '<td class="t' + team + '">' + name + '</td><td class="node ' + state + '">' +
          frame.p[slot] + (state === "down" ? " ✗" : state === "moved" ? " ●" : "") + "</td>";
      });
      rows.push("<tr>" + cells.join("") + "</tr>");
    }
    roster.innerHTML = rows.join("");
  }

  // --- drawing one step -----------------------------------------------------------------------
  function spread(positions) {
    // Agents sharing a node stand in a small ring around it, so all of them stay visible.
    const byNode = new Map();
    positions.forEach((node, slot) => {
      if (!byNode.has(node)) byNode.set(node, []);
      byNode.get(node).push(slot);
    });
    const place = [];
    for (const [node, slots] of byNode) {
      slots.forEach((slot, i) => {
        const n = slots.length, r = n === 1 ? 0 : 11 + 2 * n, a = 2 * Math.PI * i / n - Math.PI / 2;
        place[slot] = [X(node) + r * Math.cos(a), Y(node) + r * Math.sin(a)];
      });
    }
    return place;
  }

  function heirPath(team, step) {
    let d = "", prev = null;
    for (let i = 0; i <= step; i++) {
      const node = frames[i].p[team * TEAM_SIZE];
      if (node === prev) continue;
      const jump = frames[i].m.some(([slot, , , reason]) => slot === team * TEAM_SIZE && reason !== "crossed");
      d += (prev === null || jump ? "M" : "L") + f1(X(node)) + " " + f1(Y(node));
      prev = node;
    }
    return d;
  }

  const notes = document.getElementById("notes");
  const cursor = document.getElementById("cursor");
  const slider = document.getElementById("slider");
  const stepno = document.getElementById("stepno");
  slider.max = String(last);

  function decorate(text) {
    return escapeHtml(text).replace(/\bT([01]) (heir|a[1-5])\b/g, '<span class="t$1">T$1 $2</span>');
  }

  function draw(step) {
    step = Math.max(0, Math.min(last, step | 0));
    const frame = frames[step];
    const place = spread(frame.p);
    const movedSlots = new Set(frame.m.map((m) => m[0]));
    const downSlots = new Set(frame.m.filter((m) => m[3] !== "crossed").map((m) => m[0]));
    agents.forEach(({g, tip}, slot) => {
      g.setAttribute("transform", "translate(" + f1(place[slot][0]) + " " + f1(place[slot][1]) + ")");
      g.dataset.node = frame.p[slot];
      g.classList.toggle("moved", movedSlots.has(slot));
      g.classList.toggle("down", downSlots.has(slot));
      tip.textContent = who(slot) + " at node " + frame.p[slot];
    });
    for (const [node, shape] of npcShapes) {
      const died = npcDiedAt[node];
      shape.classList.toggle("dead", died !== undefined && died <= step);
    }
    heirPaths.forEach((path, team) => path.setAttribute("d", heirPath(team, step)));

    const fx = layer("effects");
    fx.textContent = "";
    for (const [slot, from, to, reason, aim] of frame.m) {
      const team = Math.floor(slot / TEAM_SIZE);
      if (reason === "crossed") {
        el("line", {x1: f1(X(from)), y1: f1(Y(from)), x2: f1(X(to)), y2: f1(Y(to)),
          class: "fx-move team" + team, "marker-end": "url(#arrow" + team + ")"}, fx);
      } else if (reason === "trap") {
        const mx = (X(from) + X(aim)) / 2, my = (Y(from) + Y(aim)) / 2;
        el("line", {x1: f1(X(from)), y1: f1(Y(from)), x2: f1(mx), y2: f1(my), class: "fx-fail"}, fx);
        el("path", {d: "M" + f1(mx - 8) + " " + f1(my - 8) + "l16 16m0 -16l-16 16", class: "fx-x"}, fx);
      }
    }
    for (const [killer, victim] of frame.k) {
      const node = frame.p[killer];
      el("circle", {cx: f1(X(node)), cy: f1(Y(node)), r: 6, class: "fx-burst"}, fx);
    }

    cursor.innerHTML = "step <b>" + step + "</b> of " + last + " · log line <b>" + frame.l +
      "</b> · t <b>" + frame.t.toFixed(3) + " s</b>";
    notes.innerHTML = frame.notes.length ? frame.notes.map(([kind, text]) =>
      '<li class="' + kind + '">' + decorate(text) + "</li>").join("") :
      '<li class="seen">nothing moved</li>';
    drawScore(step);
    drawRoster(frame, movedSlots, downSlots);
    slider.value = String(step);
    stepno.textContent = step + " / " + last;
    html.dataset.step = String(step);
    current = step;
  }

  // --- the strip above the slider: when things happened --------------------------------------
  const strip = document.getElementById("strip");
  frames.forEach((frame, index) => {
    const x = last === 0 ? 0 : index / last * 996;
    const ticks = [];
    if (frame.m.some((m) => m[3] === "trap")) ticks.push(["tick-death", 7, 5]);
    if (frame.m.some((m) => m[3] !== "crossed" && m[0] % TEAM_SIZE === 0)) ticks.push(["tick-heir", 0, 12]);
    if (frame.k.some((k) => k[1] < 0)) ticks.push(["tick-npc", 0, 5]);
    if (frame.k.some((k) => k[1] >= 0)) ticks.push(["tick-kill", 0, 12]);
    if (frame.notes.some((note) => note[0] === "game_over")) ticks.push(["tick-end", 0, 12]);
    for (const [cls, y, h] of ticks) el("rect", {x: f1(x), y: y, width: 4, height: h, class: cls}, strip);
  });
  el("title", {}, strip).textContent = "magenta: kills · red: deaths in traps (tall: an heir sent home) · violet: NPCs killed · gold: the end";
  strip.addEventListener("click", (event) => {
    const box = strip.getBoundingClientRect();
    stop();
    draw(Math.round((event.clientX - box.left) / box.width * last));
  });

  // --- controls ---------------------------------------------------------------------------
  let current = 0, timer = null;
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  const BASE_STEPS_PER_SECOND = 3;

  const PLAY_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l10-6z" fill="currentColor"/></svg>';
  const PAUSE_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>';
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.innerHTML = PLAY_ICON; play.classList.remove("playing"); play.setAttribute("aria-label", "play");
  }
  function start() {
    if (current >= last) draw(0);
    const rate = BASE_STEPS_PER_SECOND * Number(speed.value);
    html.style.setProperty("--move-ms", Math.round(Math.min(320, 900 / rate)) + "ms");
    timer = setInterval(() => { if (current >= last) stop(); else draw(current + 1); }, 1000 / rate);
    play.innerHTML = PAUSE_ICON; play.classList.add("playing"); play.setAttribute("aria-label", "pause");
  }
  play.addEventListener("click", () => (timer === null ? start() : stop()));
  speed.addEventListener("change", () => { if (timer !== null) { stop(); start(); } });
  slider.addEventListener("input", () => { stop(); draw(Number(slider.value)); });
  document.getElementById("back").addEventListener("click", () => { stop(); draw(current - 1); });
  document.getElementById("next").addEventListener("click", () => { stop(); draw(current + 1); });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement) return;
    if (event.key === " ") { event.preventDefault(); timer === null ? start() : stop(); }
    else if (event.key === "ArrowRight") { stop(); draw(current + 1); }
    else if (event.key === "ArrowLeft") { stop(); draw(current - 1); }
    else if (event.key === "Home") { stop(); draw(0); }
    else if (event.key === "End") { stop(); draw(last); }
  });

  stop();
  // Links into a match: ?step=N opens at step N; ?slide=N then moves the slider to N as a
  // user's drag does (the browser test checks the agents move); ?play starts playing.
  const query = new URLSearchParams(window.location.search);
  draw(query.has("step") ? Number(query.get("step")) : 0);
  if (query.has("slide")) {
    slider.value = query.get("slide");
    slider.dispatchEvent(new Event("input"));
  }
  if (query.has("play")) start();
})();
"""
