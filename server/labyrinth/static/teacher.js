/* The Labyrinth teacher's page: draws the lobby and a game from JSON (first from the page's
   embedded snapshot, then from server-sent events) with arena.el (text never parsed as HTML). */
"use strict";
(function () {
  const { el, fill, live, post } = window.arena;

  function gameLink(name) { return el("a", { href: `/game/${encodeURIComponent(name)}` }, name); }
  function playerLink(name) { return el("a", { href: `/player/${encodeURIComponent(name)}` }, name); }

  function drawLobby(lobby) {
    fill("players", lobby.players.length ? lobby.players.map((p) => el("tr", {},
      el("td", {}, playerLink(p.name)),
      el("td", {}, p.waiting ? `waiting for ${p.waiting}` : p.state),
      el("td", {}, p.game ? gameLink(p.game) : ""))) :
      [el("tr", {}, el("td", { colspan: 3, class: "muted" }, "nobody is connected"))]);
    const waiting = lobby.players.filter((p) => p.waiting === "a game").map((p) => p.name);
    for (const id of ["first", "second"]) {
      const select = document.getElementById(id);
      if (!select) continue;
      const keep = select.value;
      fill(id, waiting.length ? waiting.map((n) => el("option", {}, n)) :
        [el("option", { value: "" }, "nobody waits")]);
      if (waiting.includes(keep)) select.value = keep;
    }
    const second = document.getElementById("second");
    if (second && waiting.length > 1 && second.value === document.getElementById("first").value) {
      second.value = waiting[1];
    }
    fill("games", lobby.games.length ? lobby.games.map((g) => el("tr", {},
      el("td", {}, gameLink(g.game)), el("td", {}, g.players.join(" vs ")),
      el("td", {}, g.turn), el("td", {}, g.tournament || ""))) :
      [el("tr", {}, el("td", { colspan: 4, class: "muted" }, "no game is running"))]);
    fill("done", lobby.finished.map((g) => el("tr", {},
      el("td", {}, gameLink(g.game)), el("td", {}, g.players.join(" vs ")),
      el("td", { class: g.winner ? "good" : "muted" }, g.winner || "draw"),
      el("td", {}, g.reason),
      el("td", {}, el("a", { href: `/game/${encodeURIComponent(g.game)}/replay` }, "replay"), " ",
        el("a", { href: `/game/${encodeURIComponent(g.game)}/log` }, "log")))));
    fill("tournament-list", lobby.tournaments.map(drawTournament));
  }

  function drawTournament(t) {
    const button = el("button", { type: "button", "data-tournament": t.name },
      t.phase === 0 ? "Start the first phase" : "Next phase");
    if (t.running || t.finished || t.players.length < 2) button.setAttribute("disabled", "");
    button.onclick = async () => {
      const answer = await post(`/tournament/${encodeURIComponent(t.name)}/next`, {});
      if (!answer.ok) alert(answer.error);
    };
    const state = t.finished ? "finished" : t.running ? "phase running" : t.phase ? "between phases" : "open";
    return el("section", { class: "card tournament", "data-name": t.name },
      el("h2", {}, `${t.name} (${t.kind})`),
      el("p", {}, `phase ${t.phase} of ${t.phases}: ${state}; players: ${t.players.join(", ") || "none yet"}`),
      button,
      el("h3", {}, "Current phase"),
      el("ul", {}, t.games.map((g) => el("li", {}, g.game ? gameLink(g.game) : "",
        ` ${g.first} vs ${g.second}`, g.winner === null ? " (playing)" :
          g.winner === "" ? " (draw)" : ` (${g.winner} wins)`))),
      el("h3", {}, "Standings"),
      el("table", { class: "standings" }, el("thead", {}, el("tr", {},
        ["player", "points", "won", "drawn", "lost", "played"].map((h) => el("th", {}, h)))),
        el("tbody", {}, t.standings.map((r) => el("tr", {},
          el("td", {}, r.player), el("td", {}, r.points), el("td", {}, r.wins),
          el("td", {}, r.draws), el("td", {}, r.losses), el("td", {}, r.played))))));
  }

  function drawGame(data) {
    const s = data.state;
    const board = document.getElementById("board");
    board.style.gridTemplateColumns = `repeat(${s.width}, 22px)`;
    const cells = [];
    for (let y = 0; y < s.height; y++) for (let x = 0; x < s.width; x++) {
      const a = s.players[0][0] === x && s.players[0][1] === y;
      const b = s.players[1][0] === x && s.players[1][1] === y;
      const t = s.treasure[0] === x && s.treasure[1] === y;
      const wall = s.maze[y * s.width + x] === "1";
      const kind = a && b ? "x" : a ? "a" : b ? "b" : t ? "t" : wall ? "w" : "f";
      cells.push(el("div", { class: `cell ${kind}` }, { x: "X", a: "A", b: "B", t: "T" }[kind] || ""));
    }
    board.replaceChildren(...cells);
    const who = s.over ? (s.winner === null ? "draw" : `${s.names[s.winner]} won`) :
      `${s.names[s.to_move]} to move`;
    fill("status", [`turn ${s.turn}: ${who}`, s.reason ? ` (${s.reason})` : ""]);
    fill("seats", [0, 1].map((i) => el("tr", {},
      el("td", { class: `cell ${i ? "b" : "a"}` }, i ? "B" : "A"), el("td", {}, playerLink(s.names[i])),
      el("td", {}, `(${s.players[i][0]}, ${s.players[i][1]})`), el("td", {}, `energy ${s.energies[i]}`))));
    fill("comments", s.comments.map(([seat, text]) => el("li", {}, `${s.names[seat]}: ${text}`)));
  }

  function formFields(form) { return Object.fromEntries(new FormData(form).entries()); }

  document.addEventListener("DOMContentLoaded", () => {
    const initial = document.getElementById("initial");
    if (initial) {
      drawLobby(JSON.parse(initial.textContent));
      live("/events", { lobby: drawLobby });
      document.getElementById("pair").onsubmit = async (event) => {
        event.preventDefault();
        const answer = await post("/pair", formFields(event.target));
        fill("pair-result", [answer.ok ? `started ${answer.game}` : answer.error]);
      };
      document.getElementById("new-tournament").onsubmit = async (event) => {
        event.preventDefault();
        const answer = await post("/tournament", formFields(event.target));
        fill("tournament-result", [answer.ok ? "created" : answer.error]);
      };
    }
    const game = document.getElementById("initial-game");
    if (game) {
      const data = JSON.parse(game.textContent);
      drawGame(data);
      if (!data.state.over) live(`/game/${encodeURIComponent(data.game)}/events`, { game: drawGame });
    }
  });
})();
