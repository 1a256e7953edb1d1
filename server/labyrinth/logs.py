"""The Labyrinth server's files: each game's log (:class:`replay.labyrinthlog.LabyrinthGameLog`,
``DIR/games/NAME.jsonl.gz``) and each player's log (``DIR/players/NAME.jsonl``, one line per
connection, game, result and disconnection), sealed with the server's key when it has one
(:mod:`replay.seal`: a game's log when it ends, a player's at every line). No directory: no
files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import trio

from replay.chainlog import software_version
from replay.labyrinthlog import LabyrinthGameLog

__all__ = ["ServerLogs"]


class ServerLogs:
    def __init__(self, directory: Path | None, key: bytes | None) -> None:
        self.directory = directory
        self.key = key

    def game(self, name: str, header: dict[str, Any]) -> LabyrinthGameLog | None:
        """The log of game ``name``, opened with its header (None: the server keeps no logs)."""
        if self.directory is None:
            return None
        games = self.directory / "games"
        games.mkdir(parents=True, exist_ok=True)
        return LabyrinthGameLog(
            games / f"{name}.jsonl.gz", header, clock=trio.current_time, key=self.key,
            version=software_version(),
        )  # fmt: skip

    def player(self, name: str, data: dict[str, Any]) -> None:
        """A line of player ``name``'s log."""
        if self.directory is None:
            return
        folder = self.directory / "players"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.jsonl"
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"player": name, **data}) + "\n")
        if self.key is not None:
            from replay.seal import seal

            seal(path, self.key)
