"""Labyrinth game logs in the shared format (:mod:`replay.chainlog`): written by the server,
re-played on the rules when read.

What a Labyrinth game cannot recompute: the header (rules, seed, maze, players, which seats were
bots, turn limit, clock), each ``move`` in order (its player and move, with its arrival time),
each ``comment``, and how it ended (a forfeit by timeout, disconnection or a bad command is not
the rules'): the close line's ``result``. The rules derive each move's turn, return code and
energies, logged as their digest ``out``. Reading regenerates the records of the old format
(``labyrinth-2017/1``: labyrinth/replay.py) so every tool reads either.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from labyrinth.generation import generate
from labyrinth.rules import PROFILES, Labyrinth, Move
from replay.chainlog import GameLogWriter, records_digest
from replay.gamerecord import GameRecord, read_one

__all__ = [
    "LabyrinthGameLog",
    "read_labyrinth",
    "regenerate",
]

#: The old header's keys that are not the shared header's own (seed, players, match name).
_OLD_KEYS = ("type", "game", "seed", "players")


def _derived(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{key: record[key] for key in ("turn", "code", "energies")}]


class LabyrinthGameLog:
    """One game's log at ``path``, from the old format's header and records (``move``,
    ``comment``, ``end``) as the table makes them: :meth:`write` each, :meth:`close` once."""

    def __init__(
        self,
        path: Path,
        header: dict[str, Any],
        *,
        clock: Callable[[], float],
        key: bytes | None = None,
        version: str = "",
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self._file: IO[bytes] = path.open("wb")
        self._writer = GameLogWriter(self._file, clock=clock, key=key)
        config = {k: v for k, v in header.items() if k not in _OLD_KEYS}
        self._writer.header(
            game="labyrinth", seed=header.get("seed"), config=config,
            players=header["players"], version=version, source="server",
            match=header.get("game"), **(extra or {}),
        )  # fmt: skip

    def write(self, record: dict[str, Any]) -> None:
        writer = self._writer
        if writer.closed:
            return
        kind = record.get("type")
        if kind == "move":
            fields = {"player": record["player"], "move": record["move"]}
            writer.record("move", fields, derived=_derived(record))
        elif kind == "end":
            result = {k: v for k, v in record.items() if k != "type"}
            writer.close(reason="over", result=result)
        else:
            writer.record(str(kind), {k: v for k, v in record.items() if k != "type"})

    def close(self) -> None:
        if self._writer.started and not self._writer.closed:
            self._writer.close(reason="shutdown")
        self._file.close()


def regenerate(
    header: dict[str, Any], lines: list[tuple[int, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The old format's records of a shared-format Labyrinth log (its header first), the rules
    re-run over its moves; and where the re-run differs from a logged digest."""
    config = header["config"]
    old = {"type": "game", "format": config.get("format"), "game": header.get("match")}
    old |= {"rules": config.get("rules"), "seed": header.get("seed")}
    old |= {k: v for k, v in config.items() if k not in ("format", "rules")}
    old["players"] = header["players"]
    records: list[dict[str, Any]] = [old]
    problems: list[str] = []
    profile = dataclasses.replace(PROFILES[config["rules"]], max_turns=int(config["max_turns"]))
    lab = Labyrinth.from_maze_text(config["width"], config["height"], config["maze"], profile)
    seed = header.get("seed")
    if seed is not None and generate(int(seed), profile).maze_text() != config["maze"]:
        problems.append("line 1: the maze is not the one of its seed")
    for number, data in lines:
        event = data["event"]
        if event == "move":
            if lab.over:
                problems.append(f"line {number}: a move after the game ended")
                break
            code = lab.play(Move(*data["move"]))
            record = {"type": "move", "turn": lab.turn, "player": data["player"]}
            record |= {"move": data["move"], "code": int(code), "energies": list(lab.energies)}
            if records_digest(_derived(record)) != data.get("out"):
                problems.append(f"line {number}: the rules' code or energies differ from the "
                                f"logged digest (out {data.get('out')})")  # fmt: skip
                break
            records.append(record)
        elif event == "close":
            result = data.get("result")
            if isinstance(result, dict):
                records.append({"type": "end", **result})
                problems += _end_problems(lab, result, number)
        else:
            fields = {k: v for k, v in data.items() if k not in ("t", "event")}
            records.append({"type": event, **fields})
    return records, problems


def read_labyrinth(path: str | Path, *, key: bytes | None = None) -> GameRecord:
    """A Labyrinth game log of either format, its records regenerated (replay/gamerecord.py)."""
    return read_one(path, "labyrinth", regenerate, key=key)


def _end_problems(lab: Labyrinth, end: dict[str, Any], number: int) -> list[str]:
    """What is wrong with a logged end, the rules' game being where the log ends (a forfeit is
    the server's fact: then the rules must not have ended it, and the other seat wins)."""
    if "forfeit" in end:
        if lab.over:
            return [f"line {number}: the end names a forfeit, yet the rules had ended the game"]
        if end.get("winner") != 1 - int(end["forfeit"]):
            return [f"line {number}: the winner is not the other of the forfeiting seat"]
        return []
    if not lab.over:
        return [f"line {number}: the end comes before the rules end the game"]
    if end.get("winner") != lab.winner:
        return [f"line {number}: winner {end.get('winner')}, the rules say {lab.winner}"]
    return []
