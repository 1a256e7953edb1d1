/* The dungeon's live page: the match list and the standings, redrawn from the server's
   "board" events (server/web's arena.live). Text from teams goes in as text, never as HTML. */
"use strict";
(function () {
  const { el, fill } = window.arena;
  const num = (v, digits) => (v === null || v === undefined) ? "" : Number(v).toFixed(digits);
  const cell = (text, numeric) => el("td", numeric ? { class: "n" } : {}, text);
  const state = document.getElementById("state");

  function link(m) {
    if (m.status === "running") {
      return m.live ? el("a", { href: "/live/" + encodeURIComponent(m.name) }, "watch live") : null;
    }
    if (m.status === "finished" && m.replay) {
      return el("a", { class: "replay", href: "/replay/" + encodeURIComponent(m.name) }, "replay");
    }
    return null;
  }

  function render(board) {
    const running = board.matches.filter((m) => m.status === "running").length;
    const done = board.matches.filter((m) => m.status === "finished").length;
    state.textContent = running + " running, " + done + " finished, " + board.matches.length + " in all";
    if (board.finished) {
      const games = board.matches.filter((m) => m.status === "finished" && !m.preflight).length;
      const checks = done - games;
      state.textContent = "finished: " + games + (games === 1 ? " match" : " matches") + " played"
        + (checks ? " (and " + checks + " pre-flight check" + (checks === 1 ? ")" : "s)") : "")
        + "; the results are final";
      document.getElementById("badge").textContent = "finished";
    }
    document.documentElement.dataset.finished = String(Boolean(board.finished));
    document.documentElement.dataset.version = String(board.version);
    fill("match-rows", board.matches.map((m) => el("tr",
      { class: m.status, "data-match": m.name, "data-status": m.status },
      cell(m.name), cell(m.seats.join(", ")),
      el("td", { class: "status" }, m.status),
      cell(m.crossings[0] + " / " + m.crossings[1], true),
      cell(m.deaths[0] + " / " + m.deaths[1], true),
      cell(num(m.seconds, 1), true), cell(m.result), el("td", {}, link(m)))));
    document.getElementById("standings-box").hidden = !board.standings;
    if (board.standings) {
      fill("standing-rows", board.standings.map((r) => el("tr",
        { "data-team": r.team, "data-points": String(r.points) },
        cell(r.rank), cell(r.team), cell(r.played, true), cell(r.wins, true), cell(r.draws, true),
        cell(r.losses, true), cell(r.points, true),
        cell(num(r.mu, 1) + " +- " + num(2 * r.sigma, 1), true))));
    }
  }

  // The state as the page was served: drawn at once, before the first event arrives.
  const initial = document.getElementById("board-data");
  if (initial) render(JSON.parse(initial.textContent));

  const source = window.arena.live("/events", { board: render });
  const shared = source.onerror;
  source.onerror = (event) => { shared(event); state.textContent = "reconnecting..."; };
})();
