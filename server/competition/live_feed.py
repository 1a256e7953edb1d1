"""The viewer's data of the dungeon's match logs, for the live page (:mod:`server.competition.web`):
read in one worker process (the server's event loop never waits for it), as JSON pieces a page
and an event stream splice without parsing. Reading a whole log takes a third of a second at
1000 nodes (decoding and checking every line), so a running match's digest log is followed
(each reading decodes and re-runs only the lines added since the one before), once per match
however many pages watch it (:class:`Feeds`), and at most every ``LIVE_SECONDS`` or twice the
time the last reading took.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from server.competition.board import Board

__all__ = [
    "LIVE_SECONDS",
    "Feeds",
    "LiveData",
    "follow_running",
    "live_json_of",
    "viewer_data_of",
    "viewer_json_of",
]

#: Seconds between two updates of a live match view.
LIVE_SECONDS = 0.5
#: Matches whose latest viewer data is kept (the ones being watched).
CACHED_MATCHES = 8


def viewer_data_of(path: Path) -> dict[str, Any] | None:
    """The viewer's data for the complete lines of a (growing) match log; None before its
    dungeon is in it."""
    from replay.html import viewer_data
    from replay.logfile import parse_log_bytes
    from replay.matchlog import LogFormatError
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
        from replay.digestread import DigestTail

        self.path = path
        # only what was added is held: the lines go to the timeline, which keeps the newest frame
        self.tail = DigestTail(str(path), keep=False)
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
        lines = self.tail.feed(raw)
        log = self.tail.log
        if log is None or self.tail.broken is not None:
            return None
        if self.timeline is None:
            self.timeline = TimelineTail(log)
        timeline = self.timeline.update(lines)
        if timeline is None or not timeline.frames:
            return None
        first = self.frames
        data = viewer_data(log, timeline, first=first)
        data["warning"] = None
        self.frames = timeline.frame_base + len(timeline.frames)
        self.timeline.forget(self.frames)
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


class Feeds:
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


async def follow_running(board: Board, feeds: Feeds) -> None:
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
