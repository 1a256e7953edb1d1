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

  // Map units per screen pixel: markers are drawn in pixels and scaled by it (--glyph), so they
  // stay readable on a small screen and grow with the browser's zoom.
  const map = document.getElementById("map");
  const VIEW = 1060;
  const EDGE_LOW = -30, EDGE_HIGH = EDGE_LOW + VIEW;  // the map's frame: its viewBox
  let unit = 1;
  function measure() {
    const box = map.getBoundingClientRect();
    const pixels = Math.min(box.width, box.height);
    unit = pixels > 0 ? Math.max(0.4, VIEW / pixels) : 1;
    map.style.setProperty("--glyph", unit.toFixed(3));
    const legend = document.getElementById("legend").getBoundingClientRect();
    const inside = legend.bottom <= window.innerHeight + 0.5 && legend.right <= window.innerWidth + 0.5;
    html.dataset.legend = inside ? "visible" : "cut";  // what the browser test checks
  }
  measure();

  // --- header -------------------------------------------------------------------------------
  const h = data.header;
  const facts = [["match", h.match || "(unnamed)"], ["seed", h.seed], ["source", h.source],
    ["nodes", data.nodes.length], ["steps", last], ["written by", h.version]];
  if (Array.isArray(h.players) && h.players.length === 2) {  // a digest log names its players
    facts.splice(1, 0, ["team 0", h.players[0]], ["team 1", h.players[1]]);
  }
  document.getElementById("facts").innerHTML = facts.map(
    ([k, v]) => "<span>" + k + " <b>" + escapeHtml(String(v)) + "</b></span>").join("");
  // The result stays hidden until the last step (a replay is watched to learn how it ends);
  // the button shows it at any time, and ?result opens with it shown.
  const result = document.getElementById("result");
  const reveal = document.getElementById("reveal");
  result.textContent = data.result.text;
  if (data.result.winner === 0 || data.result.winner === 1) result.classList.add("team" + data.result.winner);
  let revealed = new URLSearchParams(window.location.search).has("result");
  function showResult(step) {
    const shown = revealed || step === last;
    result.hidden = !shown;
    reveal.hidden = step === last;
    reveal.textContent = revealed ? "hide result" : "show result";
    reveal.setAttribute("aria-pressed", String(revealed));
    html.dataset.result = shown ? "shown" : "hidden";
  }
  reveal.addEventListener("click", () => { revealed = !revealed; showResult(current); });
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

  // A glyph: drawn in screen pixels around (x, y), scaled by --glyph (map units per pixel).
  function glyph(x, y, attrs, parent) {
    const at = el("g", Object.assign({transform: "translate(" + f1(x) + " " + f1(y) + ")"}, attrs), parent);
    return el("g", {class: "glyph"}, at);
  }
  const places = layer("places");
  const LABEL_OFFSET = 46;  // pixels: clear of six agents standing in a ring on the place
  function label(x, y, text) {
    // On the top layer, above the place (below it near the top edge), clear of the markers.
    const below = y < (LABEL_OFFSET + 16) * unit;
    const t = el("text", {y: below ? LABEL_OFFSET + 10 : -LABEL_OFFSET, class: "place-label"},
      glyph(x, y, {}, layer("labels")));
    t.textContent = text;
  }
  data.start.forEach((node, team) => {
    const g = glyph(X(node), Y(node), {class: "start team" + team}, places);
    el("rect", {x: -11, y: -11, width: 22, height: 22, rx: 5}, g);
    el("title", {}, g).textContent = "team " + team + " start (node " + node + ")";
    label(X(node), Y(node), "T" + team + " start");
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
    const g = glyph(X(node), Y(node), {class: "shrine team" + team}, places);
    el("circle", {cx: 0, cy: 0, r: 13, class: "ring"}, g);
    el("polygon", {points: star(0, 0, 10, 4.3), class: "star"}, g);
    el("title", {}, g).textContent = "team " + team + " shrine (node " + node + ")";
    label(X(node), Y(node), "T" + team + " shrine");
  });

  const npcDiedAt = {};
  frames.forEach((frame, index) => frame.n.forEach((node) => { npcDiedAt[node] = index; }));
  const npcShapes = data.npcs.map((node) => {
    const s = 5;
    const shape = el("path", {d: "M0 " + -s + "L" + s + " 0L0 " + s + "L" + -s + " 0Z", class: "npc",
      "data-node": node}, glyph(X(node), Y(node), {}, layer("npcs")));
    el("title", {}, shape).textContent = "NPC at node " + node;
    return [node, shape];
  });

  const heirPaths = [0, 1].map((team) => el("path", {class: "heir-path team" + team, d: ""}, layer("paths")));

  const agents = [];
  for (let slot = 0; slot < 2 * TEAM_SIZE; slot++) {
    const team = Math.floor(slot / TEAM_SIZE), heir = slot % TEAM_SIZE === 0;
    const g = el("g", {class: "agent team" + team + (heir ? " heir" : ""), "data-slot": slot,
      "data-team": team, "data-agent": slot % TEAM_SIZE}, layer("agents"));
    const body = el("g", {class: "glyph"}, g);
    if (heir) el("circle", {r: 12.5, class: "crown"}, body);
    el("circle", {r: heir ? 9.5 : 8, class: "body"}, body);
    el("text", {}, body).textContent = heir ? "H" : String(slot % TEAM_SIZE);
    const tip = el("title", {}, g);
    agents.push({g, tip});
  }

  // --- legend and score -----------------------------------------------------------------------
  const legend = [
    ['<circle cx="10" cy="10" r="7" fill="var(--team0)"/><text x="10" y="10" font-size="9" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">1</text>', "team 0 agent 1-5"],
    ['<circle cx="10" cy="10" r="7" fill="var(--team1)"/><text x="10" y="10" font-size="9" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">1</text>', "team 1 agent 1-5"],
    ['<circle cx="10" cy="10" r="8.5" fill="none" stroke="var(--gold)" stroke-width="2"/><circle cx="10" cy="10" r="6" fill="var(--dim)"/><text x="10" y="10" font-size="8" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">H</text>', "heir (gold ring)"],
    ['<polygon points="' + star(10, 10, 8, 3.5) + '" fill="var(--gold)"/>', "shrine (ring: its team)"],
    ['<rect x="3" y="3" width="14" height="14" rx="3" fill="none" stroke="var(--dim)" stroke-width="2"/>', "start"],
    ['<path d="M10 3L17 10L10 17L3 10Z" fill="var(--npc)"/>', "NPC"],
    ['<path d="M2 10H18" stroke="var(--team0)" stroke-width="3"/>', "heir's path"],
    ['<path d="M5 5L15 15M15 5L5 15" stroke="var(--death)" stroke-width="3"/>', "death in a trap"],
    ['<circle cx="10" cy="10" r="7" fill="none" stroke="#f0abfc" stroke-width="2"/>', "kill"],
  ];
  document.getElementById("legend").innerHTML = legend.map(
    ([shape, text]) => '<span><svg viewBox="0 0 20 20" aria-hidden="true">' + shape + "</svg>" + text + "</span>").join("");
  measure();  // the legend now takes its room: the map's scale changes

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
      const n = slots.length, r = n === 1 ? 0 : (13 + 2.5 * n) * unit;
      // On a place at the map's edge the ring's outer markers are pulled in to stay whole.
      const inside = (v) => Math.min(Math.max(v, EDGE_LOW + 13 * unit), EDGE_HIGH - 13 * unit);
      slots.forEach((slot, i) => {
        const a = 2 * Math.PI * i / n - Math.PI / 2;
        place[slot] = [inside(X(node) + r * Math.cos(a)), inside(Y(node) + r * Math.sin(a))];
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
    showResult(step);
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
  // A page may run this script again on a fresh copy of its body (the live view redraws so):
  // the listeners on document and window and the play timer of the previous run go first.
  if (window.dungeonViewerRun) window.dungeonViewerRun.abort();
  const listening = window.dungeonViewerRun = new AbortController();
  listening.signal.addEventListener("abort", () => { if (timer !== null) clearInterval(timer); });
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
  }, { signal: listening.signal });

  window.addEventListener("resize", () => { measure(); draw(current); }, { signal: listening.signal });
  stop();
  // Links into a match: ?step=N opens at step N; ?slide=N then moves the slider to N as a
  // user's drag does (the browser test checks the agents move); ?play starts playing.
  const query = new URLSearchParams(window.location.search);
  // The first frame is placed, not animated: agents would otherwise fly in from the corner.
  map.classList.add("instant");
  draw(query.has("step") ? Number(query.get("step")) : 0);
  map.getBoundingClientRect();  // lay the frame out before transitions come back
  map.classList.remove("instant");
  if (query.has("slide")) {
    slider.value = query.get("slide");
    slider.dispatchEvent(new Event("input"));
  }
  if (query.has("play")) start();
})();
