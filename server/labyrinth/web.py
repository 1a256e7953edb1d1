"""The teacher's page of the Labyrinth server, on the shared web layer (:mod:`server.web`):
connected players, running and finished games, a form to start a game between two waiting
programs, tournaments (create, phases, standings, next phase), a live view of each game, its log
(JSON Lines) and its replay. Live updates are server-sent events; no CDN.

Actions are POSTs answered in JSON, and each needs the teacher's credential
(:class:`server.web.auth.TeacherGate`: a bearer token, or the login form's cookie with the page's
CSRF token), whatever address the page binds; a POST whose ``Origin`` is another site is refused.
Everything else is read-only and open.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from labyrinth.replay import GameLog, render_html
from labyrinth.tournament import KINDS
from server.labyrinth.server import GameRun, LabyrinthServer, game_state
from server.web import Broadcaster, escape, page, sse_response, web_app
from server.web.auth import TeacherGate, form_fields

__all__ = ["teacher_app"]

NAV = "<a href='/'>Lobby</a><a href='/#tournaments'>Tournaments</a><a href='/#finished'>Logs</a>"


SCRIPTS = ["/labyrinth/teacher.js"]
STYLES = ["/labyrinth/teacher.css"]


def teacher_app(server: LabyrinthServer, gate: TeacherGate) -> Starlette:
    lobby = Broadcaster()
    games: dict[str, Broadcaster] = {}

    def on_event(kind: str, data: dict[str, Any]) -> None:
        if kind == "lobby":
            lobby.publish("lobby", data)
        elif kind == "game" and (hub := games.get(data["game"])) is not None:
            hub.publish("game", data)
            if data["state"]["over"]:
                games.pop(data["game"], None)

    server.listeners.append(on_event)

    def run_of(request: Request) -> GameRun:
        run = server.game(request.path_params["name"])
        if run is None:
            raise HTTPException(404)
        return run

    async def home(request: Request) -> Response:
        kinds = "".join(f"<option>{kind}</option>" for kind in KINDS)
        body = f"""{gate.csrf_meta(request)}
<h1>Labyrinth server <span class="live muted">live</span></h1>
<p class="muted">Rules <b>{escape(server.settings.rules)}</b>, {server.settings.move_timeout:g} s
per move. Programs join with <code>WAIT_GAME</code> (training options, empty for a game against
another program, or <code>TOURNAMENT name</code>).</p>
<div class="cards">
<section class="card"><h2>Connected players</h2><table><thead><tr><th>name</th><th>state</th>
<th>game</th></tr></thead><tbody id="players"></tbody></table></section>
<section class="card"><h2>Start a game</h2><form id="pair">
<select name="first" id="first"></select> vs <select name="second" id="second"></select>
<button>Start</button></form><p id="pair-result" class="muted"></p></section>
</div>
<h2>Running games</h2><table><thead><tr><th>game</th><th>players</th><th>turn</th>
<th>tournament</th></tr></thead><tbody id="games"></tbody></table>
<h2 id="tournaments">Tournaments</h2>
<form id="new-tournament"><input name="name" placeholder="name" pattern="[A-Za-z0-9_]{{1,20}}"
required> <select name="kind">{kinds}</select> <button>Create</button>
<span id="tournament-result" class="muted"></span></form>
<div id="tournament-list" class="cards"></div>
<h2 id="finished">Finished games</h2><table><thead><tr><th>game</th><th>players</th>
<th>winner</th><th>how</th><th></th></tr></thead><tbody id="done"></tbody></table>
<script id="initial" type="application/json">{_json(server.snapshot())}</script>
"""
        return HTMLResponse(page("Labyrinth server", body, SCRIPTS, NAV, STYLES))

    async def lobby_events(request: Request) -> Response:
        return sse_response(lobby, lambda: ("lobby", server.snapshot()))

    async def game_page(request: Request) -> Response:
        run = run_of(request)
        table = run.table
        state = {"game": table.name, "state": game_state(table, table.lab)}
        names = " vs ".join(escape(n) for n in table.names)
        body = f"""
<h1>Game {escape(table.name)} <span class="muted">{names}</span></h1>
<p><a href="/game/{escape(table.name)}/replay">replay</a> ·
<a href="/game/{escape(table.name)}/log">log (JSON Lines)</a> ·
rules {escape(run.rules)}, seed {run.seed}</p>
<div class="cards"><div id="board" class="board"></div>
<div class="card"><p id="status"></p><table><tbody id="seats"></tbody></table>
<h2>Comments</h2><ul id="comments"></ul></div></div>
<script id="initial-game" type="application/json">{_json(state)}</script>
"""
        return HTMLResponse(page(f"Game {table.name}", body, SCRIPTS, NAV, STYLES))

    async def game_events(request: Request) -> Response:
        run = run_of(request)
        hub = games.setdefault(run.table.name, Broadcaster())
        snapshot = {"game": run.table.name, "state": game_state(run.table, run.table.lab)}
        return sse_response(hub, lambda: ("game", snapshot))

    async def game_log(request: Request) -> Response:
        run = run_of(request)
        text = "".join(json.dumps(record) + "\n" for record in run.records)
        return Response(text, media_type="application/x-ndjson; charset=utf-8")

    async def game_replay(request: Request) -> Response:
        run = run_of(request)
        log = GameLog(run.table.name, run.records[0], run.records[1:])
        # A game still being played is shown as far as it goes, and says so.
        return HTMLResponse(render_html(log, standings="/", running=not run.table.over))

    async def player_page(request: Request) -> Response:
        name = request.path_params["name"]
        rows = []
        for run in [*server.games.values(), *server.finished.values()]:
            table = run.table
            if name not in table.names:
                continue
            winner = None if table.winner is None else table.names[table.winner]
            result = "playing" if not table.over else ("draw" if winner is None else
                     ("won" if winner == name else "lost"))  # fmt: skip
            rows.append(
                f"<tr><td><a href='/game/{escape(table.name)}'>{escape(table.name)}</a></td>"
                f"<td>{' vs '.join(escape(n) for n in table.names)}</td><td>{result}</td>"
                f"<td>{escape(table.reason)}</td></tr>"
            )
        client = server.clients.get(name)
        if client is None and not rows:
            raise HTTPException(404)
        state = "not connected" if client is None else client.session.phase.value
        body = (
            f"<h1>Player {escape(name)}</h1><p>{escape(state)}</p><h2>Games</h2><table>"
            "<thead><tr><th>game</th><th>players</th><th>result</th><th>how</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        return HTMLResponse(page(f"Player {name}", body, nav=NAV))

    async def acting(request: Request) -> dict[str, str]:
        """The form of a state-changing request, once it is known to be the teacher's."""
        form = await form_fields(request)
        await gate.require(request, form)
        return form

    async def pair(request: Request) -> Response:
        form = await acting(request)
        try:
            run = server.pair(form.get("first", ""), form.get("second", ""))
        except ValueError as error:
            return JSONResponse({"ok": False, "error": str(error)}, status_code=400)
        return JSONResponse({"ok": True, "game": run.table.name})

    async def new_tournament(request: Request) -> Response:
        form = await acting(request)
        name, kind = form.get("name", ""), form.get("kind", "")
        if not name.isascii() or not name.replace("_", "a").isalnum() or len(name) > 20:
            return JSONResponse({"ok": False, "error": "a name is 1-20 of A-Za-z0-9_"}, 400)
        try:
            server.create_tournament(name, kind)
        except ValueError as error:
            return JSONResponse({"ok": False, "error": str(error)}, status_code=400)
        return JSONResponse({"ok": True})

    async def next_phase(request: Request) -> Response:
        await acting(request)
        try:
            pairings = server.next_phase(request.path_params["name"])
        except ValueError as error:
            return JSONResponse({"ok": False, "error": str(error)}, status_code=400)
        return JSONResponse({"ok": True, "games": [p.game for p in pairings]})

    app = web_app(
        [
            Route("/", home),
            Route("/events", lobby_events),
            Route("/game/{name}", game_page),
            Route("/game/{name}/events", game_events),
            Route("/game/{name}/log", game_log),
            Route("/game/{name}/replay", game_replay),
            Route("/player/{name}", player_page),
            Route("/pair", pair, methods=["POST"]),
            Route("/tournament", new_tournament, methods=["POST"]),
            Route("/tournament/{name}/next", next_phase, methods=["POST"]),
            *gate.routes(),
        ],
        # The page's own script and style: server/labyrinth/static/ as /labyrinth/NAME.
        assets={"labyrinth": "server.labyrinth"},
    )
    app.state.lobby = lobby
    return app


def _json(data: Any) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(data).replace("<", "\\u003c")
