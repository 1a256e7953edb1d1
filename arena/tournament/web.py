"""The live page of a tournament or a server: matches, standings, a live view of each match.

Starlette served by Hypercorn's trio worker in the caller's nursery (127.0.0.1 by default).

* ``/``: running and finished matches (teams, crossings, deaths, time) and the standings,
  updated by server-sent events (``/events``) as the :class:`~arena.tournament.board.Board`
  changes, and every second while a match runs;
* ``/live/NAME``: the replay viewer (replay/html.py) fed as the match is played: its
  ``/live/NAME/events`` sends the viewer's data of the log written so far whenever the log
  grew, then ``over``; the page redraws at the newest step. Reading a whole log takes a third
  of a second at 1000 nodes (decoding and checking every line), so it is done in one worker
  process (the server's event loop never waits for it), once per match however many pages
  watch it, and at most every ``LIVE_SECONDS`` or twice the time the last reading took;
* ``/replay/NAME``: a finished match's replay page (the tournament's file, or rendered from
  the log on a plain server).
"""

from __future__ import annotations

import html
import json
import multiprocessing
import re
import time
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.tournament.board import Board
from arena.tournament.webpages import INDEX_PAGE, LIVE_SCRIPT

__all__ = ["build_app", "serve_board", "serve_web", "viewer_data_of", "viewer_json_of"]

#: Seconds between two updates of a live match view (and of the match list while one runs).
LIVE_SECONDS = 0.5
LIST_SECONDS = 1.0
#: Matches whose latest viewer data is kept (the ones being watched).
CACHED_MATCHES = 8
_MARKER = re.compile(r"@@([A-Z]+)@@")


def viewer_data_of(path: Path) -> dict[str, Any] | None:
    """The viewer's data for the complete lines of a (growing) match log; None before its
    dungeon is in it."""
    from replay.html import viewer_data
    from replay.matchlog import LogFormatError, parse_log
    from replay.timeline import build_timeline

    data = path.read_bytes()
    data = data[: data.rfind(b"\n") + 1]
    try:
        log = parse_log(data.decode("utf-8", "replace").splitlines(), str(path))
        timeline = build_timeline(log)
    except (LogFormatError, ValueError, KeyError, IndexError):
        return None
    if not timeline.frames:
        return None
    return viewer_data(log, timeline)


def viewer_json_of(path: Path, running: bool) -> str | None:
    """:func:`viewer_data_of` as compact JSON (what pages get; text crosses from the worker
    process cheaply, objects would be unpickled in the event loop's thread). A running match's
    log has no close line yet: its "incomplete" warning is dropped."""
    data = viewer_data_of(path)
    if data is None:
        return None
    if running:
        data["warning"] = None
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def live_page(name: str, data: str) -> str:
    """The replay viewer's page, wrapped so that it redraws whenever new data arrives."""
    from replay.matchlog import SCHEMA_VERSION, software_version
    from replay.viewer_assets import page_parts

    template, css, script = page_parts()
    viewer = script.replace("@@SCHEMA@@", str(SCHEMA_VERSION))
    values = {
        "CSS": css,
        "SCRIPT": LIVE_SCRIPT.replace("/*VIEWER*/", viewer),
        "TITLE": html.escape(f"Dungeon Arena live: {name}"),
        "VERSION": html.escape(software_version()),
        "SCHEMA": str(SCHEMA_VERSION),
        # Inside <script>, "</" could end the element early; "<\\/" means the same to JSON.
        "DATA": data.replace("</", "<\\/"),
    }
    return _MARKER.sub(lambda match: values[match.group(1)], template)


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class _Feeds:
    """The viewer data of the matches being watched, read in ``pool`` (or a thread), cached by
    log size so that every page of a match shares one reading."""

    def __init__(self, pool: Executor | None) -> None:
        self.pool = pool
        self.cache: dict[str, tuple[tuple[int, bool], str | None, float]] = {}
        self.locks: dict[str, trio.Lock] = {}

    async def read(self, name: str, path: Path, running: bool) -> tuple[str | None, float]:
        """The data (JSON) of the log as it is now, and the seconds its last reading took."""
        async with self.locks.setdefault(name, trio.Lock()):
            key = (path.stat().st_size, running)
            cached = self.cache.get(name)
            if cached is not None and cached[0] == key:
                return cached[1], cached[2]
            began = time.perf_counter()
            if self.pool is None:
                data = await trio.to_thread.run_sync(viewer_json_of, path, running)
            else:
                future = self.pool.submit(viewer_json_of, path, running)
                data = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
            took = time.perf_counter() - began
            self.cache.pop(name, None)
            self.cache[name] = (key, data, took)
            while len(self.cache) > CACHED_MATCHES:
                self.cache.pop(next(iter(self.cache)))
            return data, took


def build_app(board: Board, out: Path | None = None, pool: Executor | None = None) -> Starlette:
    """The pages of ``board``; a tournament's replay pages are read from ``out``; logs are read
    in ``pool`` (None: in a thread)."""
    feeds = _Feeds(pool)

    async def index(request: Request) -> Response:
        return HTMLResponse(INDEX_PAGE.replace("@@TITLE@@", html.escape(board.title)))

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            version = -1
            while True:
                yield _sse("board", board.snapshot())
                version = board.version
                running = any(m.status == "running" for m in board.matches.values())
                with trio.move_on_after(LIST_SECONDS if running else 15):
                    await board.changed(version)

        return _stream(stream())

    def _match(request: Request) -> Any:
        match = board.matches.get(request.path_params["name"])
        if match is None or match.log_path is None:
            return None
        return match

    async def live(request: Request) -> Response:
        match = _match(request)
        if match is None:
            return HTMLResponse("<h1>No such match (yet)</h1>", status_code=404)
        data, _ = await feeds.read(match.name, match.log_path, match.status != "finished")
        if data is None:
            return HTMLResponse("<h1>The match is starting: reload in a moment</h1>", 503)
        return HTMLResponse(live_page(match.name, data))

    async def live_events(request: Request) -> Response:
        match = _match(request)
        if match is None:
            return Response("no such match", status_code=404)

        async def stream() -> AsyncIterator[str]:
            sent = None
            while True:
                over = match.status == "finished"
                data, took = await feeds.read(match.name, match.log_path, not over)
                if data is not None and (data is not sent or over):
                    sent = data
                    yield f"event: {'over' if over else 'frames'}\ndata: {data}\n\n"
                if over:
                    return
                await trio.sleep(max(LIVE_SECONDS, 2 * took))

        return _stream(stream())

    async def replay(request: Request) -> Response:
        name = request.path_params["name"]
        if out is not None and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            page = out / "replays" / f"{name}.html"
            if page.is_file():
                return HTMLResponse(page.read_text(encoding="utf-8"))
        match = _match(request)
        if match is None or match.status != "finished":
            return HTMLResponse("<h1>No finished match of that name</h1>", status_code=404)
        return HTMLResponse(await trio.to_thread.run_sync(_render, match.log_path))

    return Starlette(
        routes=[
            Route("/", index),
            Route("/events", events),
            Route("/live/{name}", live),
            Route("/live/{name}/events", live_events),
            Route("/replay/{name}", replay),
        ]
    )


def _render(path: Path) -> str:
    from replay.html import render_html
    from replay.matchlog import read_log
    from replay.timeline import build_timeline

    log = read_log(path)
    return render_html(log, build_timeline(log))


def _stream(body: AsyncIterator[str]) -> StreamingResponse:
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(body, media_type="text/event-stream", headers=headers)


async def serve_web(
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` until cancelled; reports the bound port."""
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.5

    class _Started:
        def started(self, binds: list[str] | None = None) -> None:
            task_status.started(int((binds or [":0"])[0].rsplit(":", 1)[1]))

    await serve(app, config, task_status=_Started())  # type: ignore[arg-type]


async def serve_board(
    board: Board,
    host: str,
    port: int,
    out: Path | None = None,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The live page of ``board`` on ``host:port`` until cancelled; reports the bound port.
    Match logs are read in one worker process of its own."""
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
    try:
        await serve_web(build_app(board, out, pool), host, port, task_status=task_status)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
