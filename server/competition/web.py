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
  then ``over`` with the result; a page at the newest step follows them. Reading a whole log
  takes a third of a second at 1000 nodes (decoding and checking every line), so it is done in
  one worker process (the server's event loop never waits for it), once per match however many pages
  watch it, and at most every ``LIVE_SECONDS`` or twice the time the last reading took;
* ``/replay/NAME``: a finished match's replay page (the tournament's file, or rendered from
  the log on a plain server).
"""

from __future__ import annotations

import json
import multiprocessing
import re
import time
from collections.abc import AsyncGenerator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.competition.board import Board, BoardMatch
from server.web import escape, event_stream, page, serve_web, sse_event, sse_text, web_app

__all__ = [
    "build_app",
    "index_page",
    "live_json_of",
    "live_page",
    "serve_board",
    "viewer_data_of",
    "viewer_json_of",
]

#: Seconds between two updates of a live match view (and of the match list while one runs).
LIVE_SECONDS = 0.5
LIST_SECONDS = 1.0
#: The newest frames a running match's live page holds when it opens (it fetches the others).
LIVE_WINDOW = 3000
#: Matches whose latest viewer data is kept (the ones being watched).
CACHED_MATCHES = 8


def viewer_data_of(path: Path) -> dict[str, Any] | None:
    """The viewer's data for the complete lines of a (growing) match log; None before its
    dungeon is in it."""
    from replay.html import viewer_data
    from replay.matchlog import LogFormatError
    from replay.reader import parse_log_bytes
    from replay.timeline import build_timeline

    try:
        log = parse_log_bytes(path.read_bytes(), str(path), growing=True)
        timeline = build_timeline(log)
    except (LogFormatError, ValueError, KeyError, IndexError):
        return None
    if not timeline.frames:
        return None
    return viewer_data(log, timeline)


@dataclass(frozen=True)
class LiveData:
    """The viewer's data of a match log as read so far, in pieces a page and an event stream
    can splice without parsing: ``meta`` (JSON of everything but the frames), ``frames`` (the
    JSON of each frame) and ``tail`` (JSON of the result and the warning)."""

    meta: str
    frames: list[str]
    tail: str

    def page_data(self) -> str:
        """The whole data, frames included, as JSON."""
        return f'{self.meta[:-1]},"frames":[{",".join(self.frames)}]}}'

    def history(self, end: int) -> str:
        """The frames before ``end``, as a JSON array."""
        return f"[{','.join(self.frames[: max(0, end)])}]"

    def update(self, first: int) -> str:
        """An event of the frames from ``first`` on (the shell's ``from``/``frames``)."""
        return f'{{"from":{first},"frames":[{",".join(self.frames[first:])}],{self.tail[1:]}'


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _pieces(data: dict[str, Any], first: int = 0) -> LiveData:
    frames = data.pop("frames")
    tail = _text({"result": data["result"], "warning": data["warning"]})
    return LiveData(_text(data), [_text(frame) for frame in frames[first:]], tail)


def viewer_json_of(path: Path, running: bool) -> LiveData | None:
    """:func:`viewer_data_of` as JSON pieces (what pages get; text crosses from the worker
    process cheaply, objects would be unpickled in the event loop's thread). A running match's
    log has no close line yet: its "incomplete" warning is dropped."""
    data = viewer_data_of(path)
    if data is None:
        return None
    if running:
        data["warning"] = None
    return _pieces(data)


class _Follow:
    """A running match's digest log followed as it grows (in the worker process): each reading
    decodes and re-runs only the lines added since the last one."""

    def __init__(self, path: Path) -> None:
        from replay.digestlog import DigestTail

        self.path = path
        self.tail = DigestTail(str(path))
        self.timeline: Any = None
        self.offset = 0
        self.frames = 0

    def read(self) -> tuple[int, LiveData] | None:
        """The frames after the ones read before (their index and data); None before the
        dungeon is in the log or once it breaks."""
        from replay.html import viewer_data
        from replay.timeline import TimelineTail

        with self.path.open("rb") as stream:
            stream.seek(self.offset)
            raw = stream.read()
        self.offset += len(raw)
        self.tail.feed(raw)
        log = self.tail.log
        if log is None or self.tail.broken is not None:
            return None
        if self.timeline is None:
            self.timeline = TimelineTail(log)
        timeline = self.timeline.update()
        if timeline is None or not timeline.frames:
            return None
        first = self.frames
        data = viewer_data(log, timeline, first=first)
        data["warning"] = None
        self.frames = len(timeline.frames)
        return first, _pieces(data)


#: The logs the worker process follows (by path), the most recently read last.
_FOLLOWED: dict[str, _Follow] = {}


def live_json_of(path: Path, running: bool, known: int) -> tuple[int, LiveData] | None:
    """The viewer's data of a match log in pieces, from frame ``first`` on: (first, data). A
    running match's digest log is followed (only what was added since the caller's ``known``
    frames is read); a finished match's log, or one the worker has not followed from the
    caller's ``known`` frames, is read whole (first 0)."""
    follow = _FOLLOWED.pop(str(path), None)
    if running and path.name.endswith(".gz"):
        if follow is None or follow.frames != known:
            follow = _Follow(path)
        read = follow.read()
        _FOLLOWED[str(path)] = follow
        while len(_FOLLOWED) > CACHED_MATCHES:
            _FOLLOWED.pop(next(iter(_FOLLOWED)))
        return read
    whole = viewer_json_of(path, running)
    return None if whole is None else (0, whole)


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


def live_page(name: str, data: LiveData, running: bool) -> str:
    """The viewer (replay/page.py) of a match: while it runs, in live mode, following
    ``/live/NAME/events``; a link back to the standings. A long match's page holds its newest
    ``LIVE_WINDOW`` frames, the viewer fetches the others (``/live/NAME/history``) once it has
    drawn the newest step."""
    from replay.matchlog import software_version
    from replay.page import render_page

    view = json.loads(data.meta)
    view["title"] = name
    view["live"] = f"/live/{quote(name)}/events" if running else None
    view["standings"] = "/"
    base = max(0, len(data.frames) - LIVE_WINDOW) if running else 0
    if base:
        view["base"] = base
        view["history"] = f"/live/{quote(name)}/history"
    frames = f"[{','.join(data.frames[base:])}]"
    return render_page(view, "dungeon", "Dungeon Arena", software_version(), frames)


class _Feeds:
    """The viewer data of the matches being watched, read in ``pool`` (or a thread), cached by
    log size so that every page of a match shares one reading."""

    def __init__(self, pool: Executor | None) -> None:
        self.pool = pool
        self.cache: dict[str, tuple[tuple[int, bool], LiveData | None, float]] = {}
        self.locks: dict[str, trio.Lock] = {}

    async def read(self, name: str, path: Path, running: bool) -> tuple[LiveData | None, float]:
        """The data of the log as it is now, and the seconds its last reading took."""
        async with self.locks.setdefault(name, trio.Lock()):
            key = (path.stat().st_size, running)
            cached = self.cache.get(name)
            if cached is not None and cached[0] == key:
                return cached[1], cached[2]
            began = time.perf_counter()
            known = len(cached[1].frames) if cached is not None and cached[1] is not None else 0
            if self.pool is None:
                read = await trio.to_thread.run_sync(live_json_of, path, running, known)
            else:
                future = self.pool.submit(live_json_of, path, running, known)
                read = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
            took = time.perf_counter() - began
            data = cached[1] if cached is not None else None
            if read is not None:
                first, fresh = read
                if first == 0 or data is None:
                    data = fresh
                else:  # the new frames after the ones kept
                    frames = data.frames[:first] + fresh.frames
                    data = LiveData(fresh.meta, frames, fresh.tail)
            self.cache.pop(name, None)
            self.cache[name] = (key, data, took)
            while len(self.cache) > CACHED_MATCHES:
                self.cache.pop(next(iter(self.cache)))
            return data, took


async def follow_running(board: Board, feeds: _Feeds) -> None:
    """Keep the viewer data of the running matches (up to ``CACHED_MATCHES``) read as their
    logs grow, so a live page opens on data already read however long the match has run: each
    reading decodes and re-runs only the lines added since the one before (:class:`_Follow`)."""
    while True:
        running = [m for m in board.matches.values() if m.status == "running" and m.log_path]
        for match in running[:CACHED_MATCHES]:
            assert match.log_path is not None
            if match.log_path.is_file():
                await feeds.read(match.name, match.log_path, True)
        await trio.sleep(LIVE_SECONDS)


def build_app(
    board: Board,
    out: Path | None = None,
    pool: Executor | None = None,
    feeds: _Feeds | None = None,
) -> Starlette:
    """The pages of ``board``; a tournament's replay pages are read from ``out``; logs are read
    in ``pool`` (None: in a thread), or by ``feeds`` when given."""
    feeds = _Feeds(pool) if feeds is None else feeds

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
        return HTMLResponse(live_page(match.name, data, running))

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
    feeds = _Feeds(pool)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(follow_running, board, feeds)
            await serve_web(build_app(board, out, feeds=feeds), host, port, task_status=task_status)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
