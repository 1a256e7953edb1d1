"""Fish's logs: one per game and one per tournament. A game's log is written in the format all
games share (``game-rR-gG.jsonl.gz``: replay/fishlog.py); this is the tournament's, and the
reader of the game logs the server wrote before (``game-rR-gG.jsonl``), whose lines follow.

Each line is an object with ``t`` (seconds since the tournament began, on trio's clock) and
``event``. The first line names the kind of log: ``{"event": "game", "log": "fish-game", ...}``
with the board and players, or ``{"event": "tournament", "log": "fish-tournament", ...}`` with
the configuration.

A game log then has ``call`` (seat, name, args), ``reply`` (seat, value, seconds),
``failure`` (seat, reason, seconds: timeout, disconnect, bad bytes), ``verdict`` (seat, kind
ok/failed/cheated, reason, action as [r, c] or [[r, c], [r, c]]) and a final ``result``
(winners, failed, cheaters, rest as names, scores per seat). A tournament log has ``signup``,
``refused``, ``started``, ``round`` (its games' players), ``game_result``, ``end_sent`` and a
final ``result`` (winners, failed, cheaters). The replay tools read them (``fish/replay.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["JsonlLog", "read_jsonl"]


class JsonlLog:
    """Appends events to a file (or nowhere when ``path`` is None)."""

    def __init__(
        self, path: Path | None, now: Callable[[], float], key: bytes | None = None
    ) -> None:
        self.path = path
        self._now = now
        self._key = key  # with a key, the file is sealed when it closes (replay/seal.py)
        self._file: IO[str] | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("w", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> None:
        if self._file is None:
            return
        line = {"t": round(self._now(), 6), "event": event, **fields}
        self._file.write(json.dumps(line, separators=(",", ":"), default=repr) + "\n")
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            if self._key is not None and self.path is not None:
                from replay.seal import seal

                seal(self.path, self._key)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Every line of a Fish log, parsed; raises ValueError naming the line if one is not JSON.
    A game log of the shared format (``*.jsonl.gz``, replay/fishlog.py) gives the same lines,
    regenerated on the referee."""
    with open(path, "rb") as probe:
        shared = probe.read(2) == b"\x1f\x8b"
    if shared:
        from replay.fishlog import read_fish

        record = read_fish(path)
        return [record.header, *record.records]
    events = []
    with open(path, encoding="utf-8") as stream:
        for number, text in enumerate(stream, start=1):
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except ValueError as error:
                raise ValueError(f"{path}: line {number} is not JSON: {error}") from None
            if not isinstance(value, dict) or "event" not in value:
                raise ValueError(f"{path}: line {number} is not a log event")
            events.append(value)
    return events
