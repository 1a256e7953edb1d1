// Fish and Penguins (the same board of ice floes) in the viewer's shell (viewer.js): hexagons
// in offset rows shaded by their fish (1 to 3 dots; water where a floe has gone), each player's
// penguins in its colour, the step's placement or move as an arrow; side card: the score so far.
window.arenaDrawing = function (data, kit) {
  "use strict";
  const {el} = kit;
  const board = data.board;
  const R = 30, H = Math.sqrt(3) / 2 * R, PAD = 10;
  const svg = kit.svg;
  // Flat-topped hexagons: a row is a zigzag half a hexagon below the one before, odd rows half
  // a column to the right, so North (r-2, c) is straight up and Northeast is (r-1, c+o).
  const width = 3 * R * board.cols + 0.5 * R + 2 * PAD, height = H * (board.rows + 1) + 2 * PAD;
  svg.setAttribute("viewBox", "0 0 " + width.toFixed(1) + " " + height.toFixed(1));
  svg.setAttribute("aria-label", "the ice floes");
  const centre = (t) => {
    const r = Math.floor(t / board.cols), c = t % board.cols;
    return [3 * R * c + (r % 2 ? 1.5 * R : 0) + R + PAD, H * r + H + PAD];
  };
  const hex = (x, y, s) => {
    const p = [];
    for (let i = 0; i < 6; i++) {
      const a = Math.PI / 3 * i;
      p.push((x + s * Math.cos(a)).toFixed(1) + "," + (y + s * Math.sin(a)).toFixed(1));
    }
    return p.join(" ");
  };
  svg.innerHTML = '<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" ' +
    'markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#f8fafc"/></marker></defs>' +
    '<rect x="0" y="0" width="' + width + '" height="' + height + '" rx="14" class="sea"/>' +
    '<g id="floes"></g><g id="fx"></g><g id="penguins"></g>';
  const floes = document.getElementById("floes");
  const tiles = [];
  for (let t = 0; t < board.rows * board.cols; t++) {
    const [x, y] = centre(t);
    const g = el("g", {class: "floe", "data-tile": t}, floes);
    const shape = el("polygon", {points: hex(x, y, R - 1.5)}, g);
    const dots = [];
    for (let i = 0; i < 3; i++) dots.push(el("circle", {cx: x, cy: y + 12, r: 3.6, class: "fish"}, g));
    const tip = el("title", {}, g);
    tiles.push({g, shape, dots, x, y, tip});
  }
  const fx = document.getElementById("fx");
  const penguinLayer = document.getElementById("penguins");
  const seats = data.players.length;
  const penguins = [];  // per seat, a pool of markers
  function marker(seat) {
    const g = el("g", {class: "penguin", "data-seat": seat}, penguinLayer);
    el("circle", {r: 12.5, class: "body", style: "fill: var(--seat" + seat + ")"}, g);
    el("ellipse", {rx: 6, ry: 7.5, cy: 2.5, class: "belly"}, g);
    el("circle", {r: 2, cx: -3.5, cy: -5, class: "eye"}, g);
    el("circle", {r: 2, cx: 3.5, cy: -5, class: "eye"}, g);
    el("path", {d: "M-2.5 -2 L2.5 -2 L0 1.5 Z", class: "beak"}, g);
    el("title", {}, g);
    return g;
  }

  const score = kit.card("Score so far", "table:score");
  function drawScore(frame) {
    score.innerHTML = "<tr><th>player</th><th>fish</th><th>penguins</th></tr>" +
      data.players.map((_, seat) => '<tr class="' + (frame.active[seat] ? "" : "out") + '"><td class="name">' +
        '<span class="swatch" style="background: var(--seat' + seat + ')"></span>' +
        kit.seatHtml(seat) + "</td><td>" + frame.scores[seat] + "</td><td>" +
        frame.penguins[seat].length + (frame.active[seat] ? "" : " · out") + "</td></tr>").join("");
  }

  function draw(step, frame) {
    // A floe under a penguin may hold no fish (Penguins: it ate them) yet is ice, not water.
    const taken = new Set(frame.penguins.flat());
    tiles.forEach((tile, t) => {
      const fish = frame.fish[t];
      tile.g.setAttribute("class", "floe " + (fish ? "fish" + fish : taken.has(t) ? "taken" : "hole"));
      tile.dots.forEach((dot, i) => {
        dot.style.display = i < fish ? "" : "none";
        dot.setAttribute("cx", (tile.x + (i - (fish - 1) / 2) * 9).toFixed(1));
      });
      tile.tip.textContent = "row " + Math.floor(t / board.cols) + ", column " + (t % board.cols) +
        ": " + (fish ? fish + " fish" : taken.has(t) ? "no fish" : "water");
    });
    for (let seat = 0; seat < seats; seat++) {
      const at = frame.penguins[seat];
      penguins[seat] = penguins[seat] || [];
      while (penguins[seat].length < at.length) penguins[seat].push(marker(seat));
      penguins[seat].forEach((g, i) => {
        g.style.display = i < at.length ? "" : "none";
        if (i >= at.length) return;
        const {x, y} = tiles[at[i]];
        g.setAttribute("transform", "translate(" + x.toFixed(1) + " " + (y - 5).toFixed(1) + ")");
        g.classList.toggle("out", !frame.active[seat]);
        g.dataset.tile = at[i];
        g.lastChild.textContent = kit.seatName(seat) + " at row " + Math.floor(at[i] / board.cols) +
          ", column " + (at[i] % board.cols);
      });
    }
    fx.textContent = "";
    const move = frame.move || [];
    if (move.length === 2) {
      const [a, b] = [tiles[move[0]], tiles[move[1]]];
      el("line", {x1: a.x, y1: a.y - 5, x2: b.x, y2: b.y - 5, class: "fx-move", "marker-end": "url(#arrow)"}, fx);
      el("polygon", {points: hex(a.x, a.y, R - 4), class: "fx-from"}, fx);
    }
    if (move.length >= 1) {
      const b = tiles[move[move.length - 1]];
      el("polygon", {points: hex(b.x, b.y, R - 3), class: "fx-to"}, fx);
    }
    drawScore(frame);
  }

  const legend = [
    ['<polygon points="' + hex(10, 10, 9) + '" fill="#cfe8f7"/><circle cx="10" cy="13" r="2.2" fill="#0f2a3d"/>', "floe: 1 to 3 fish"],
    ['<polygon points="' + hex(10, 10, 9) + '" fill="#0b2233" stroke="#16324a"/>', "water (floe gone)"],
  ];
  data.players.forEach((_, seat) => legend.push(
    ['<circle cx="10" cy="10" r="7.5" fill="var(--seat' + seat + ')" stroke="#020617"/>', kit.seatName(seat)]));
  legend.push(['<path d="M2 10H15" stroke="#f8fafc" stroke-width="2.5"/><path d="M13 6L18 10L13 14Z" fill="#f8fafc"/>', "the step's move"]);
  return {
    draw,
    legend,
    stepsPerSecond: 2,
    where: (step, frame) => frame.phase ? "<b>" + kit.escapeHtml(frame.phase) + "</b>" : "",
    marks(frame) {
      const kinds = (frame.notes || []).map((note) => note[0]);
      return kinds.some((k) => k === "out" || k === "failed" || k === "cheated") ? [["tick-bad", 0, 12]] : [];
    },
    stripTitle: "red: a player out (failed, cheated, disqualified) · gold: the end",
  };
};
