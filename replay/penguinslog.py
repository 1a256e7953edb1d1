"""Penguins game logs in the shared format (:mod:`replay.chainlog`): written by the game master,
re-judged when read.

What a Penguins game cannot recompute: the start (board, penguins each, the player programs),
each program's ``name`` answer, and each ``call``'s outcome: its exit status, signal, seconds,
standard error, the master's verdict and, when it moved, the board the program left (its move).
The master derives the rest: the command line of each call and the move's description (the
judge re-run on the board before and after), logged as their digest ``out``; the ranking is on
the close line. Reading regenerates the records of the old format (``start``, ``name``,
``call``, ``end``: server/penguins/master.py) so every tool reads either.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from penguins.judge import judge
from protocol.penguins import parse
from replay.chainlog import GameLogWriter, records_digest
from replay.gamerecord import GameRecord, read_one

__all__ = [
    "PenguinsGameLog",
    "read_penguins",
    "regenerate",
    "verify_records",
]

#: The fields of a call a program's run decided (the rest the master derives).
_FACTS = ("player", "phase", "exit", "signal", "seconds", "stderr", "verdict", "reason", "board")


def _argv(command: list[str], phase: str, penguins: int) -> list[str]:
    argv = [*command, f"phase={phase}"]
    if phase == "placement":
        argv.append(f"penguins={penguins}")
    return [*argv, "board.txt", "board.txt"]


def _derived(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"argv": entry.get("argv"), "move": entry.get("move")}]


class PenguinsGameLog:
    """The master's log on ``stream``: call it with each old-format entry (``start``, ``name``,
    ``call``, ``end``), as :func:`server.penguins.master.host` makes them; :meth:`close` once."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        clock: Callable[[], float],
        key: bytes | None = None,
        version: str = "",
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self._writer = GameLogWriter(stream, clock=clock, key=key)
        self._version, self._seed = version, seed
        #: More fields for the header (a fork's ``forked_from``).
        self._extra = extra or {}

    def __call__(self, entry: dict[str, Any]) -> None:
        writer = self._writer
        if writer.closed:
            return
        event = entry.get("event")
        if event == "start":
            config = {"penguins": entry["penguins"], "board": entry["board"]}
            writer.header(
                game="penguins", seed=self._seed, config=config, players=list(entry["players"]),
                version=self._version, source="master", **self._extra,
            )  # fmt: skip
        elif event == "name":
            writer.record("name", {k: v for k, v in entry.items() if k != "event"})
        elif event == "call":
            fields = {k: entry[k] for k in _FACTS if k in entry}
            writer.record("call", fields, derived=_derived(entry))
        elif event == "end":
            writer.close(reason="over", ranking=entry["ranking"])

    def close(self) -> None:
        """Close the log (``shutdown`` when it has no ``end``); the caller closes the stream."""
        if self._writer.started and not self._writer.closed:
            self._writer.close(reason="shutdown")


def regenerate(
    header: dict[str, Any], lines: list[tuple[int, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The old format's entries of a shared-format Penguins log (``start`` first), each move
    re-judged; and where the re-run differs from a logged digest."""
    config = header["config"]
    penguins = int(config["penguins"])
    records: list[dict[str, Any]] = [
        {"event": "start", "penguins": penguins, "board": config["board"],
         "players": header["players"]}
    ]  # fmt: skip
    problems: list[str] = []
    commands: dict[str, list[str]] = {}
    board = parse(config["board"])
    for number, data in lines:
        event = data["event"]
        fields = {k: v for k, v in data.items() if k not in ("t", "event", "out")}
        if event == "name":
            commands[str(fields.get("player"))] = list(fields.get("command") or [])
            records.append({"event": "name", **fields})
        elif event == "call":
            player, phase = str(fields.get("player")), str(fields.get("phase"))
            entry: dict[str, Any] = {"event": "call", "player": player, "phase": phase}
            entry["argv"] = _argv(commands.get(player, []), phase, penguins)
            entry |= {k: fields[k] for k in ("exit", "signal", "seconds", "stderr") if k in fields}
            if fields.get("verdict") == "moved":
                judged, description = judge(board, str(fields.get("board")), player, phase,
                                            penguins)  # fmt: skip
                if judged is None or judged.render() != fields.get("board"):
                    problems.append(f"line {number}: the judge does not accept the move: "
                                    f"{description}")  # fmt: skip
                    break
                entry["move"] = description
                board = judged
            entry |= {k: fields[k] for k in ("reason", "verdict", "board") if k in fields}
            if records_digest(_derived(entry)) != data.get("out"):
                problems.append(f"line {number}: the master's command line or move differs "
                                f"from the logged digest (out {data.get('out')})")  # fmt: skip
                break
            records.append(entry)
        elif event == "close":
            if "ranking" in data:
                records.append({"event": "end", "ranking": data["ranking"]})
                problems += _ranking_problems(board, data["ranking"], number)
        else:
            problems.append(f"line {number}: unknown line kind {event!r}")
            break
    return records, problems


def _ranking_problems(board: Any, ranking: list[dict[str, Any]], number: int) -> list[str]:
    """What is wrong with a logged ranking: each player's fish must be the final board's."""
    scores = {p.ident: p.score for p in board.players}
    for place in ranking or []:
        fish = scores.get(str(place.get("player")), 0)
        if place.get("fish") != fish:
            return [f"line {number}: {place.get('player')} has {place.get('fish')} fish, the "
                    f"board says {fish}"]  # fmt: skip
    return []


def verify_records(records: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Re-judge an old-format Penguins log (``start`` first): every move and the final fish of
    the ranking. The differences, and the calls re-run."""
    start = records[0]
    penguins = int(start["penguins"])
    board = parse(str(start["board"]))
    problems: list[str] = []
    for number, entry in enumerate(records[1:], start=2):
        event = entry.get("event")
        if event == "call" and entry.get("verdict") == "moved":
            player, phase = str(entry.get("player")), str(entry.get("phase"))
            judged, description = judge(board, str(entry.get("board")), player, phase, penguins)
            if judged is None:
                problems.append(f"line {number}: the judge does not accept the move: "
                                f"{description}")  # fmt: skip
                break
            if description != entry.get("move"):
                problems.append(f"line {number}: move {entry.get('move')!r}, the judge says "
                                f"{description!r}")  # fmt: skip
                break
            board = judged
        elif event == "end":
            problems += _ranking_problems(board, entry.get("ranking") or [], number)
    return problems, sum(1 for entry in records if entry.get("event") == "call")


def read_penguins(path: str | Path, *, key: bytes | None = None) -> GameRecord:
    """A Penguins game log of either format, its records regenerated (replay/gamerecord.py)."""
    return read_one(path, "penguins", regenerate, key=key)
