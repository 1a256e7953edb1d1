"""The dungeon's live page, of a tournament (``arena tournament --web``) or a server (``arena
serve --web``): matches, standings, a live view of each match. Built on the project's one web
layer, :mod:`server.web` (served in the caller's nursery, 127.0.0.1 by default; its shared
assets, error pages and server-sent events); this page's own script and style are the files
of ``server/competition/static/``, served as ``/dungeon/NAME``.

* ``/``: running and finished matches (teams, crossings, deaths, time) and the standings,
  updated by server-sent events (``/events``) as the :class:`~server.competition.board.Board`
  changes, and every second while a match runs;
* ``/live/NAME``: the viewer (replay/page.py) in live mode, fed as the match is played: its
  ``/live/NAME/events?from=N`` sends the frames after the page's N whenever the log grew,
  then ``over`` with the result; a page at the newest step follows them. The logs are read by
  :mod:`server.competition.live_feed`;
* ``/replay/NAME``: a finished match's replay page (the tournament's file, or rendered from
  the log on a plain server).
"""

from __future__ import annotations

import json
import multiprocessing
import re
from collections.abc import AsyncGenerator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.competition.board import PLAIN_SEATS, Board, BoardMatch
from server.competition.live_feed import LIVE_SECONDS, Feeds, LiveData, follow_running
from server.web import escape, event_stream, page, serve_web, sse_event, sse_text, web_app

__all__ = ["build_app", "index_page", "live_page", "serve_board"]

#: Seconds between two updates of the match list while a match runs.
LIST_SECONDS = 1.0
#: The newest frames a running match's live page holds when it opens (it fetches the others).
LIVE_WINDOW = 3000


#: The page's own assets: server/competition/static/ as /dungeon/NAME.
ASSETS = {"dungeon": "server.competition"}


def index_page(title: str, snapshot: dict[str, Any] | None = None) -> str:
    """The match list and the standings; ``/dungeon/matches.js`` draws ``snapshot`` (the board
    as the page was asked for) at once, then follows ``/events``."""
    initial = ""
    if snapshot is not None:
        # Inside <script>, "</" could end the element and "<!--" confuse the parser: every "<"
        # is written "\u003c", the same to JSON.
        data = json.dumps(snapshot, separators=(",", ":")).replace("<", "\\u003c")
        initial = f'<script type="application/json" id="board-data">{data}</script>'
    body = f"""
<h1>{escape(title)} <span class="live muted" id="badge">live</span></h1>
<p id="state">connecting...</p>
<div id="standings-box" hidden><h2>Standings</h2>
<p class="muted">Rating: openskill's estimate of a team's strength; the interval (mu +- 2
sigma) holds its true strength with about 95% confidence.</p>
<table id="standings"><thead><tr><th>#</th><th>team</th><th>played</th><th>W</th><th>D</th>
<th>L</th><th>points</th><th>rating +- interval</th></tr></thead>
<tbody id="standing-rows"></tbody></table></div>
<h2>Matches</h2>
<table id="matches"><thead><tr><th>match</th><th>teams by seat</th><th>status</th>
<th>crossings</th><th>deaths</th><th>seconds</th><th>result</th><th>view</th></tr></thead>
<tbody id="match-rows"></tbody></table>
{initial}
"""
    return page(f"{title}: live", body, ["/dungeon/matches.js"], styles=["/dungeon/live.css"])


def live_page(name: str, data: LiveData, running: bool, seats: Sequence[str] = PLAIN_SEATS) -> str:
    """The viewer (replay/page.py) of a match: while it runs, in live mode, following
    ``/live/NAME/events``; a link back to the standings; the teams by ``seats`` (a
    tournament's, as on its replay pages). A long match's page holds its newest
    ``LIVE_WINDOW`` frames, the viewer fetches the others (``/live/NAME/history``) once it has
    drawn the newest step."""
    from replay.matchlog import software_version
    from replay.page import render_page

    view = json.loads(data.meta)
    view["title"] = name
    if tuple(seats) != PLAIN_SEATS:
        view["players"] = [f"team {team}: {team_name}" for team, team_name in enumerate(seats)]
    view["live"] = f"/live/{quote(name)}/events" if running else None
    view["standings"] = "/"
    base = max(0, len(data.frames) - LIVE_WINDOW) if running else 0
    if base:
        view["base"] = base
        view["history"] = f"/live/{quote(name)}/history"
    frames = f"[{','.join(data.frames[base:])}]"
    return render_page(view, "dungeon", "Dungeon Arena", software_version(), frames)


def build_app(
    board: Board,
    out: Path | None = None,
    pool: Executor | None = None,
    feeds: Feeds | None = None,
) -> Starlette:
    """The pages of ``board``; a tournament's replay pages are read from ``out``; logs are read
    in ``pool`` (None: in a thread), or by ``feeds`` when given."""
    feeds = Feeds(pool) if feeds is None else feeds

    async def index(request: Request) -> Response:
        return HTMLResponse(index_page(board.title, board.snapshot()))

    async def events(request: Request) -> Response:
        async def stream() -> AsyncGenerator[str, None]:
            version = -1
            while True:
                yield sse_event("board", board.snapshot())
                version = board.version
                running = any(m.status == "running" for m in board.matches.values())
                with trio.move_on_after(LIST_SECONDS if running else 15):
                    await board.changed(version)

        return event_stream(stream())

    def _match(request: Request) -> tuple[BoardMatch, Path]:
        """The match of the URL and its log; the 404 page if there is none (yet)."""
        match = board.matches.get(request.path_params["name"])
        if match is None or match.log_path is None:
            raise HTTPException(404)
        return match, match.log_path

    async def live(request: Request) -> Response:
        match, log = _match(request)
        running = match.status != "finished"
        data, _ = await feeds.read(match.name, log, running)
        if data is None:
            raise HTTPException(503, "The match is starting: reload in a moment.")
        return HTMLResponse(live_page(match.name, data, running, match.seats))

    async def live_events(request: Request) -> Response:
        match, log = _match(request)
        # The page holds the frames it was served with; the stream sends the ones after them
        # (?from=N, the page's count), then "over" with the result.
        try:
            sent = max(0, int(request.query_params.get("from", "0")))
        except ValueError:
            sent = 0

        async def stream() -> AsyncGenerator[str, None]:
            nonlocal sent
            while True:
                over = match.status == "finished"
                data, took = await feeds.read(match.name, log, not over)
                if data is not None and (len(data.frames) > sent or over):
                    update = data.update(min(sent, len(data.frames)))
                    yield sse_text("over" if over else "frames", update)
                    sent = len(data.frames)
                if over:
                    return
                await trio.sleep(max(LIVE_SECONDS, 2 * took))

        return event_stream(stream())

    async def live_history(request: Request) -> Response:
        match, log = _match(request)
        data, _ = await feeds.read(match.name, log, match.status != "finished")
        if data is None:
            raise HTTPException(503, "The match is starting: reload in a moment.")
        try:
            end = int(request.query_params.get("to", "0"))
        except ValueError:
            raise HTTPException(400, "to=N: N is a number of frames") from None
        return Response(data.history(end), media_type="application/json")

    async def replay(request: Request) -> Response:
        name = request.path_params["name"]
        if out is not None and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            file = out / "replays" / f"{name}.html"
            if file.is_file():
                return HTMLResponse(file.read_text(encoding="utf-8"))
        match, log = _match(request)
        if match.status != "finished":
            raise HTTPException(404)
        return HTMLResponse(await trio.to_thread.run_sync(_render, log))

    return web_app(
        [
            Route("/", index),
            Route("/events", events),
            Route("/live/{name}", live),
            Route("/live/{name}/events", live_events),
            Route("/live/{name}/history", live_history),
            Route("/replay/{name}", replay),
        ],
        ASSETS,
    )


def _render(path: Path) -> str:
    from replay.html import render_html
    from replay.matchlog import read_log
    from replay.timeline import build_timeline

    log = read_log(path)
    return render_html(log, build_timeline(log), standings="/")


async def serve_board(
    board: Board,
    host: str,
    port: int,
    out: Path | None = None,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The live page of ``board`` on ``host:port`` until cancelled; reports the bound port.
    Match logs are read in one worker process of its own, the running matches' as they grow
    (:func:`follow_running`)."""
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
    feeds = Feeds(pool)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(follow_running, board, feeds)
            await serve_web(build_app(board, out, feeds=feeds), host, port, task_status=task_status)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
