"""The board the live page shows: matches (waiting, running, finished) and the standings.

One owner writes it (the tournament runner, or ``arena serve --web``'s server observer); the
web pages read it and wait for its next change (:meth:`Board.changed`). A running match's
crossings and deaths come from its log as it is written (:class:`LogTail` reads only the lines
added since its last look), so the server needs no hook beyond telling who started and ended.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

__all__ = ["PLAIN_SEATS", "Board", "BoardMatch", "LogTail", "server_observer"]


class LogTail:
    """Crossings and deaths per team of a match log, read incrementally as it grows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.crossings = [0, 0]
        self.deaths = [0, 0]
        self.over = False
        #: A digest log's reader (its lines regenerated as they come), None for JSON Lines.
        self._digest: Any = None

    def count(self, lines: list[Any]) -> bool:
        """Count what ``lines`` tell (a digest log's regenerated lines, or a read log's
        events: :class:`replay.reader.LogLine`)."""
        for line in lines:
            record = line.data
            if line.event == "crossing":
                team = record["agent"][0]
                self.crossings[team] += 1
                if not record.get("survived", True):
                    self.deaths[team] += 1
            elif line.event == "kill":
                self.deaths[record["victim"][0]] += 1
            elif line.event == "close":
                self.over = True
        return bool(lines)

    def update(self) -> bool:
        """Read what was appended since the last call; True if anything was."""
        try:
            with self.path.open("rb") as stream:
                stream.seek(self.offset)
                data = stream.read()
        except OSError:
            return False
        if self.offset == 0 and data[:2] == b"\x1f\x8b":
            from replay.digestread import DigestTail

            self._digest = DigestTail(str(self.path), keep=False)  # counted, then let go
        if self._digest is not None:
            self.offset += len(data)
            return self.count(self._digest.feed(data))
        end = data.rfind(b"\n")
        if end < 0:
            return False
        self.offset += end + 1
        for line in data[: end + 1].splitlines():
            if b'"event":"crossing"' in line:
                record = json.loads(line)
                team = record["agent"][0]
                self.crossings[team] += 1
                if not record.get("survived", True):
                    self.deaths[team] += 1
            elif b'"event":"kill"' in line:
                record = json.loads(line)
                self.deaths[record["victim"][0]] += 1
            elif b'"event":"close"' in line:
                self.over = True
        return True


#: The seats of a match on a plain server (not a tournament's teams).
PLAIN_SEATS = ("team 0", "team 1")


@dataclass
class BoardMatch:
    name: str
    #: The teams in seat 0 and 1 (tournament names, or "team 0" / "team 1" on a plain server).
    seats: tuple[str, ...]
    status: str = "waiting"  # waiting | running | finished
    started: float | None = None
    seconds: float | None = None
    log_path: Path | None = None
    #: Finished: "alpha wins (shrine)", "draw (time)", ...
    result: str = ""
    #: Finished: the replay page's URL, relative to the site root.
    replay: str | None = None
    #: A program's pre-flight check, not a match of the tournament.
    preflight: bool = False
    tail: LogTail | None = field(default=None, repr=False)

    def row(self) -> dict[str, Any]:
        if self.tail is not None and self.status == "running":
            self.tail.update()
        crossings = self.tail.crossings if self.tail is not None else [0, 0]
        deaths = self.tail.deaths if self.tail is not None else [0, 0]
        seconds = self.seconds
        if seconds is None and self.started is not None:
            seconds = time.monotonic() - self.started
        return {
            "name": self.name,
            "seats": list(self.seats),
            "status": self.status,
            "crossings": list(crossings),
            "deaths": list(deaths),
            "seconds": None if seconds is None else round(seconds, 1),
            "result": self.result,
            "replay": self.replay,
            # A live view follows a dungeon match log; other games have none while running.
            "live": self.log_path is not None,
            "preflight": self.preflight,
        }


class Board:
    """What is being played and what was: written by one owner, read by the pages."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.matches: dict[str, BoardMatch] = {}
        #: The standings table (standings.standings()["teams"]), or None on a plain server.
        self.standings: list[dict[str, Any]] | None = None
        #: True once the run has played its last match (the page then says "finished").
        self.finished = False
        self.version = 0
        self._changed = trio.Event()

    def touch(self) -> None:
        """Something changed: wake every page waiting in :meth:`changed`."""
        self.version += 1
        self._changed.set()
        self._changed = trio.Event()

    async def changed(self, version: int) -> int:
        """Wait until the board is past ``version``; the new version."""
        while self.version == version:
            await self._changed.wait()
        return self.version

    def start(self, name: str, log_path: Path | None) -> None:
        match = self.matches.get(name)
        if match is None:
            match = self.matches[name] = BoardMatch(name, PLAIN_SEATS)
        match.status = "running"
        match.started = time.monotonic()
        match.log_path = log_path
        match.tail = None if log_path is None else LogTail(log_path)
        self.touch()

    def finish(
        self,
        name: str,
        result: str,
        replay: str | None,
        counts: tuple[list[int], list[int]] | None = None,
    ) -> None:
        """``counts``: the match's crossings and deaths per team when the caller has read
        them from its log already (a tournament's summary): its tail is then not read again."""
        match = self.matches.get(name)
        if match is None:
            return
        if match.tail is not None and counts is not None:
            match.tail.crossings, match.tail.deaths = list(counts[0]), list(counts[1])
            match.tail.over = True
        elif match.tail is not None:
            match.tail.update()
        match.status = "finished"
        match.result = result
        match.replay = replay
        if match.started is not None:
            match.seconds = time.monotonic() - match.started
        self.touch()

    def snapshot(self) -> dict[str, Any]:
        order = {"running": 0, "waiting": 1, "finished": 2}
        rows = [m.row() for m in self.matches.values()]
        rows.sort(key=lambda row: order[row["status"]])
        return {
            "title": self.title,
            "version": self.version,
            "matches": rows,
            "standings": self.standings,
            "finished": self.finished,
        }


def server_observer(board: Board) -> Callable[[str, Any], None]:
    """A ``Server(observer=...)`` that shows every match of a plain server on ``board``."""

    def observe(event: str, subject: Any) -> None:
        if event not in ("started", "over"):
            return
        name = subject.name or f"match-{subject.number}"
        if event == "started":
            board.start(name, subject.log_path)
            return
        if subject.end_reason is None:
            result = "not played (server error)"
        elif subject.winner is None:
            result = f"draw ({subject.end_reason})"
        else:
            result = f"team {subject.winner} wins ({subject.end_reason})"
        board.finish(name, result, f"/replay/{name}" if subject.log_path else None)

    return observe
