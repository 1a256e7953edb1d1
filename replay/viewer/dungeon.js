// The dungeon's drawing in the viewer's shell (viewer.js): corridors, starts, shrines, NPCs,
// the twelve agents (heirs ringed in gold), each step's crossings, trap deaths and kills, both
// heirs' paths; side cards: the score so far and where each agent stands.
window.arenaDrawing = function (data, kit) {
  "use strict";
  const {el, escapeHtml} = kit;
  const SIZE = 1000, TEAM_SIZE = 6;
  const svg = kit.svg;
  svg.setAttribute("viewBox", "-30 -30 1060 1060");
  svg.setAttribute("aria-label", "the dungeon");
  const EDGE_LOW = -30, EDGE_HIGH = 1030;  // the map's frame: its viewBox
  svg.innerHTML = `<defs>
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
    <marker id="arrow0" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5"
            orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="team0-fill"/></marker>
    <marker id="arrow1" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5"
            orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="team1-fill"/></marker>
  </defs>
  <rect x="-30" y="-30" width="1060" height="1060" rx="18" fill="url(#floor)"/>
  <g id="corridors"></g><g id="nodes"></g><g id="paths"></g><g id="places"></g>
  <g id="npcs"></g><g id="effects"></g><g id="agents"></g><g id="labels"></g>`;
  const layer = (id) => document.getElementById(id);
  let frames = data.frames;
  const X = (node) => (data.nodes[node][0] * SIZE);
  const Y = (node) => ((1 - data.nodes[node][1]) * SIZE);
  const f1 = (v) => v.toFixed(1);
  const who = (slot) => "T" + Math.floor(slot / TEAM_SIZE) + " " +
    (slot % TEAM_SIZE === 0 ? "heir" : "a" + (slot % TEAM_SIZE));

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
  const labels = [];
  function label(x, y, text) {
    // On the top layer, above the place (below it near the top edge), clear of the markers.
    const t = el("text", {class: "place-label"}, glyph(x, y, {}, layer("labels")));
    t.textContent = text;
    labels.push([t, y]);
  }
  function placeLabels() {
    for (const [t, y] of labels) {
      const below = y < (LABEL_OFFSET + 16) * kit.unit();
      t.setAttribute("y", below ? LABEL_OFFSET + 10 : -LABEL_OFFSET);
    }
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

  let npcDiedAt = {};
  function npcDeaths(from) {
    for (let index = from; index < frames.length; index++) {
      if (frames[index] === undefined) continue;  // not fetched yet (a live page's history)
      for (const node of frames[index].n) npcDiedAt[node] = index;
    }
  }
  npcDeaths(0);
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

  // --- score so far: cumulative counts per team up to each frame -------------------------------
  // Eight counts a frame (per team: crossings, trap deaths, kills, NPCs killed), for the frames
  // before the first one not fetched yet ("known" of them).
  let tally = new Int32Array(0), known = 0;
  function count(from) {
    known = Math.min(known, from);
    if (tally.length < 8 * frames.length) {
      const bigger = new Int32Array(8 * frames.length + 8192);
      bigger.set(tally);
      tally = bigger;
    }
    for (let index = known; index < frames.length; index++) {
      const frame = frames[index];
      if (frame === undefined) break;  // not fetched yet: no score from here on
      const at = 8 * index, moves = frame.m, kills = frame.k;
      if (index > 0) tally.copyWithin(at, at - 8, at); else tally.fill(0, 0, 8);
      for (let i = 0; i < moves.length; i++) {
        const move = moves[i], team = 4 * Math.floor(move[0] / TEAM_SIZE);
        if (move[3] === "crossed" || move[3] === "trap") tally[at + team] += 1;
        if (move[3] === "trap") tally[at + team + 1] += 1;
      }
      for (let i = 0; i < kills.length; i++) {
        const [killer, victim] = kills[i];
        tally[at + 4 * Math.floor(killer / TEAM_SIZE) + (victim < 0 ? 3 : 2)] += 1;
      }
      known = index + 1;
    }
  }
  count(0);
  const score = kit.card("Score so far", "table:score");
  function drawScore(step) {
    const rows = [["crossings", 0], ["trap deaths", 1], ["kills", 2], ["NPCs killed", 3]];
    if (step >= known) {
      score.innerHTML = '<tr><td class="dim">counting the match so far…</td></tr>';
      return;
    }
    score.innerHTML = '<tr><th></th><th class="t0">team 0</th><th class="t1">team 1</th></tr>' +
      rows.map(([what, i]) => "<tr><td>" + what + "</td><td>" + tally[8 * step + i] + "</td><td>" +
        tally[8 * step + 4 + i] + "</td></tr>").join("");
  }
  const roster = kit.card("Agents (node)", "table:roster");
  roster.className = "";
  function drawRoster(frame, movedSlots, downSlots) {
    const rows = [];
    for (let agent = 0; agent < TEAM_SIZE; agent++) {
      const cells = [0, 1].map((team) => {
        const slot = team * TEAM_SIZE + agent;
        const state = downSlots.has(slot) ? "down" : movedSlots.has(slot) ? "moved" : "";
        const label = agent === 0 ? "heir" : "a" + agent;
        return '<td class="t' + team + '">' + label + '</td><td class="node ' + state + '">' +
          frame.p[slot] + (state === "down" ? " ✗" : state === "moved" ? " ●" : "") + "</td>";
      });
      rows.push("<tr>" + cells.join("") + "</tr>");
    }
    roster.innerHTML = rows.join("");
  }

  // --- drawing one step -----------------------------------------------------------------------
  function spread(positions) {
    // Agents sharing a node stand in a small ring around it, so all of them stay visible.
    const unit = kit.unit();
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
      if (frames[i] === undefined) continue;
      const node = frames[i].p[team * TEAM_SIZE];  // one read: a long file's frames decode it
      if (node === prev) continue;
      const jump = frames[i].m.some(([slot, , , reason]) => slot === team * TEAM_SIZE && reason !== "crossed");
      d += (prev === null || jump ? "M" : "L") + f1(X(node)) + " " + f1(Y(node));
      prev = node;
    }
    return d;
  }

  function draw(step, frame) {
    placeLabels();
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
    for (const [killer] of frame.k) {
      const node = frame.p[killer];
      el("circle", {cx: f1(X(node)), cy: f1(Y(node)), r: 6, class: "fx-burst"}, fx);
    }
    drawScore(step);
    drawRoster(frame, movedSlots, downSlots);
  }

  return {
    draw,
    where: (step, frame) => frame.l === undefined ? "" : "log line <b>" + frame.l + "</b>",
    legend: [
      ['<circle cx="10" cy="10" r="7" fill="var(--team0)"/><text x="10" y="10" font-size="9" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">1</text>', "team 0 agent 1-5"],
      ['<circle cx="10" cy="10" r="7" fill="var(--team1)"/><text x="10" y="10" font-size="9" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">1</text>', "team 1 agent 1-5"],
      ['<circle cx="10" cy="10" r="8.5" fill="none" stroke="var(--gold)" stroke-width="2"/><circle cx="10" cy="10" r="6" fill="var(--dim)"/><text x="10" y="10" font-size="8" font-weight="800" text-anchor="middle" dominant-baseline="central" fill="#020617">H</text>', "heir (gold ring)"],
      ['<polygon points="' + star(10, 10, 8, 3.5) + '" fill="var(--gold)"/>', "shrine (ring: its team)"],
      ['<rect x="3" y="3" width="14" height="14" rx="3" fill="none" stroke="var(--dim)" stroke-width="2"/>', "start"],
      ['<path d="M10 3L17 10L10 17L3 10Z" fill="var(--npc)"/>', "NPC"],
      ['<path d="M2 10H18" stroke="var(--team0)" stroke-width="3"/>', "heir's path"],
      ['<path d="M5 5L15 15M15 5L5 15" stroke="var(--death)" stroke-width="3"/>', "death in a trap"],
      ['<circle cx="10" cy="10" r="7" fill="none" stroke="#f0abfc" stroke-width="2"/>', "kill"],
    ],
    decorate: (text) => escapeHtml(text).replace(/\bT([01]) (heir|a[1-5])\b/g, '<span class="t$1">T$1 $2</span>'),
    marks(frame) {
      const ticks = [], moves = frame.m, kills = frame.k;
      if (moves.some((m) => m[3] === "trap")) ticks.push(["tick-death", 7, 5]);
      if (moves.some((m) => m[3] !== "crossed" && m[0] % TEAM_SIZE === 0)) ticks.push(["tick-heir", 0, 12]);
      if (kills.some((k) => k[1] < 0)) ticks.push(["tick-npc", 0, 5]);
      if (kills.some((k) => k[1] >= 0)) ticks.push(["tick-kill", 0, 12]);
      return ticks;
    },
    stripTitle: "magenta: kills · red: deaths in traps (tall: an heir sent home) · violet: NPCs killed · gold: the end",
    extend(all, from) { frames = all; npcDeaths(from); count(from); },
  };
};
