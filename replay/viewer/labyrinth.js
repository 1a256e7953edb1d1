// The Labyrinth in the viewer's shell (viewer.js): the maze (walls dark, corridors light), both
// players in their colours, the treasure, the step's rotated row or column or the player's
// step; side cards: energies and turn, and what the players said.
window.arenaDrawing = function (data, kit) {
  "use strict";
  const {el} = kit;
  const W = data.board.width, H = data.board.height, C = 24, PAD = 26;
  const svg = kit.svg;
  svg.setAttribute("viewBox", "0 0 " + (W * C + 2 * PAD) + " " + (H * C + 2 * PAD));
  svg.setAttribute("aria-label", "the maze");
  svg.innerHTML = '<rect x="0" y="0" width="' + (W * C + 2 * PAD) + '" height="' + (H * C + 2 * PAD) +
    '" rx="14" class="frame"/><g id="cells"></g><g id="axes"></g><g id="fx"></g><g id="pieces"></g>';
  const cells = [];
  const cellLayer = document.getElementById("cells");
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      cells.push(el("rect", {x: PAD + x * C, y: PAD + y * C, width: C - 1, height: C - 1, rx: 3,
        class: "cell"}, cellLayer));
    }
  }
  // Row and column numbers: rotations are typed by index.
  const axes = document.getElementById("axes");
  for (let x = 0; x < W; x++) {
    el("text", {x: PAD + x * C + C / 2, y: PAD - 9, class: "axis"}, axes).textContent = String(x);
  }
  for (let y = 0; y < H; y++) {
    el("text", {x: PAD - 12, y: PAD + y * C + C / 2 + 1, class: "axis"}, axes).textContent = String(y);
  }
  const pieces = document.getElementById("pieces");
  const at = (x, y) => "translate(" + (PAD + x * C + C / 2 - 0.5) + " " + (PAD + y * C + C / 2 - 0.5) + ")";
  const treasure = el("g", {class: "treasure"}, pieces);
  const star = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? 4 : 9.5, a = Math.PI / 5 * i - Math.PI / 2;
    star.push((r * Math.cos(a)).toFixed(1) + "," + (r * Math.sin(a)).toFixed(1));
  }
  el("polygon", {points: star.join(" ")}, treasure);
  el("title", {}, treasure).textContent = "the treasure";
  const players = [0, 1].map((seat) => {
    const g = el("g", {class: "player", "data-seat": seat}, pieces);
    el("circle", {r: 9.5, style: "fill: var(--seat" + seat + ")"}, g);
    el("text", {}, g).textContent = seat ? "B" : "A";
    el("title", {}, g);
    return g;
  });
  const fx = document.getElementById("fx");

  const energy = kit.card("Energy", "table:energy");
  const said = kit.card("The players said", "said");
  function draw(step, frame) {
    for (let i = 0; i < cells.length; i++) cells[i].setAttribute("class", frame.maze[i] === "1" ? "cell wall" : "cell");
    treasure.setAttribute("transform", at(frame.treasure[0], frame.treasure[1]));
    players.forEach((g, seat) => {
      const [x, y] = frame.players[seat];
      const both = frame.players[0][0] === frame.players[1][0] && frame.players[0][1] === frame.players[1][1];
      g.setAttribute("transform", at(x, y) + (both ? " translate(" + (seat ? 5 : -5) + " 0)" : ""));
      g.dataset.cell = x + "," + y;
      g.lastChild.textContent = kit.seatName(seat) + " at (" + x + ", " + y + "), energy " + frame.energies[seat];
    });
    fx.textContent = "";
    const move = frame.move;
    if (move && move[0] <= 1) {
      el("rect", {x: PAD - 3, y: PAD + move[1] * C - 2, width: W * C + 5, height: C + 3, rx: 5, class: "fx-line"}, fx);
    } else if (move && move[0] <= 3) {
      el("rect", {x: PAD + move[1] * C - 2, y: PAD - 3, width: C + 3, height: H * C + 5, rx: 5, class: "fx-line"}, fx);
    }
    if (frame.mover !== undefined && frame.mover !== null) {
      const [x, y] = frame.players[frame.mover];
      el("circle", {cx: PAD + x * C + C / 2 - 0.5, cy: PAD + y * C + C / 2 - 0.5, r: 13, class: "fx-mover"}, fx);
    }
    energy.innerHTML = "<tr><th>player</th><th>energy</th><th>at</th></tr>" + [0, 1].map((seat) =>
      "<tr><td class='name'><span class='swatch' style='background: var(--seat" + seat + ")'></span>" +
      kit.seatHtml(seat) + "</td><td>" + frame.energies[seat] + "</td><td>(" + frame.players[seat].join(", ") +
      ")</td></tr>").join("") + "<tr><td class='dim'>turn</td><td colspan='2'>" + frame.turn + "</td></tr>";
    said.innerHTML = (frame.comments || []).length ? frame.comments.map((text) =>
      '<div class="said">' + kit.escapeHtml(text) + "</div>").join("") : '<div class="dim">nothing</div>';
  }
  return {
    draw,
    stepsPerSecond: 4,
    where: (step, frame) => "turn <b>" + frame.turn + "</b>",
    legend: [
      ['<rect x="2" y="2" width="16" height="16" rx="3" fill="#334155"/>', "wall"],
      ['<rect x="2" y="2" width="16" height="16" rx="3" fill="#e2e8f0"/>', "corridor"],
      ['<circle cx="10" cy="10" r="7.5" fill="var(--seat0)"/>', "A " + kit.seatName(0) + " (starts)"],
      ['<circle cx="10" cy="10" r="7.5" fill="var(--seat1)"/>', "B " + kit.seatName(1)],
      ['<polygon points="10,1 12.4,7 19,7.5 14,11.8 15.6,18.5 10,15 4.4,18.5 6,11.8 1,7.5 7.6,7" fill="var(--gold)"/>', "treasure"],
      ['<rect x="2" y="5" width="16" height="10" rx="3" fill="none" stroke="var(--gold)" stroke-width="2"/>', "rotated row or column"],
    ],
    marks(frame) {
      return frame.move && frame.move[0] <= 3 ? [["tick-rotate", 8, 4]] : [];
    },
    stripTitle: "grey: rotations · gold: the end",
  };
};
