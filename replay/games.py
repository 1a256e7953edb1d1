"""Every game's log, one way in: which game a file is, its records, its verification, its frames.

:func:`read_game` reads a Fish, Labyrinth or Penguins game log of either format: the shared one
(schema 2, :mod:`replay.chainlog`: the chain and signature checked, the game's rules re-run to
regenerate what they derive and to compare each digest) or the old one each game wrote before
(schema 0: unchained JSON Lines). Either way it gives the records of the old format, which the
show and render tools and the viewer draw from; :func:`verify_game` then re-runs the rules over
them. The dungeon's logs have their own reader (:mod:`replay.reader`, :mod:`replay.digestlog`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay.chainlog import GZIP_MAGIC
from replay.gamerecord import (
    GAMES,
    GameLogError,
    GameRecord,
    Regenerate,
    detect,
    parse_old,
    read_shared,
)

__all__ = [
    "GAMES",
    "GZIP_MAGIC",
    "GameLogError",
    "GameRecord",
    "detect",
    "frames",
    "read_events",
    "read_game",
    "verify_game",
]


def read_game(path: str | Path, *, key: bytes | None = None) -> GameRecord:
    """Read a Fish, Labyrinth or Penguins game log of either format. Raises OSError,
    GameLogError (one line naming the file and the cause)."""
    raw = Path(path).read_bytes()
    return parse_game(raw, str(path), key=key)


def parse_game(raw: bytes, path: str, *, key: bytes | None = None) -> GameRecord:
    if raw[:2] == GZIP_MAGIC:
        return read_shared(raw, path, key, _regenerator)
    return parse_old(raw, path)


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """The records of a game log of either format (the header first; a shared-format log's
    regenerated), or of any other JSON Lines log (a Fish tournament's); [] when the file cannot
    be read. For the tools that only look (a tournament's result pages)."""
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == GZIP_MAGIC:
            record = parse_game(raw, str(path))
            return [record.header, *record.records]
        return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    except (OSError, ValueError):
        return []


def _regenerator(game: str) -> Regenerate | None:
    if game == "fish":
        from replay.fishlog import regenerate
    elif game == "labyrinth":
        from replay.labyrinthlog import regenerate
    else:
        from replay.penguinslog import regenerate
    return regenerate


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify_game` found."""

    ok: bool
    #: the first thing that fails, or a one-line account of what was checked
    line: str
    #: inputs (answers, moves, calls) re-run
    inputs: int


def verify_game(record: GameRecord) -> Verdict:
    """Re-run the game's rules over the log: the chain (schema 2), each digest, the result."""
    chain = record.chain
    if chain is not None and chain.bad is not None:
        line, why = chain.bad
        return Verdict(False, f"line {line}: {why}", 0)
    problems = list(record.problems)
    records = [record.header, *record.records]
    if chain is not None:  # reading re-ran the rules: each digest and the result are checked
        kinds = ("reply", "failure", "move", "call")
        inputs = sum(1 for _, data in chain.lines if data.get("event") in kinds)
        more: list[str] = []
    elif record.game == "fish":
        from replay.fishlog import verify_records as fish_verify

        more, inputs = fish_verify(records)
    elif record.game == "penguins":
        from replay.penguinslog import verify_records as penguins_verify

        more, inputs = penguins_verify(records)
    else:
        from labyrinth.replay import GameLog, verify

        log = GameLog(record.path, record.header, record.records)
        more = [] if chain is not None and not chain.closed else verify(log)
        inputs = sum(r.get("type") == "move" for r in record.records)
    problems += more
    if problems:
        extra = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        return Verdict(False, problems[0] + extra, inputs)
    return Verdict(True, f"{inputs} inputs re-run", inputs)


def frames(record: GameRecord) -> list[dict[str, Any]]:
    """The states a viewer steps through, the first before any move (each game's own frames:
    fish.replay.game_frames, labyrinth.replay.frames, penguins: the board after each call)."""
    if record.game == "fish":
        from fish.replay import game_frames

        return game_frames([record.header, *record.records])[1]
    if record.game == "labyrinth":
        from labyrinth.replay import GameLog
        from labyrinth.replay import frames as labyrinth_frames

        return labyrinth_frames(GameLog(record.path, record.header, record.records))
    return penguins_frames(record)


def penguins_frames(record: GameRecord) -> list[dict[str, Any]]:
    """The board (as its file's text) at the start and after each call that moved, with what
    happened."""
    board = str(record.header["board"])
    out = [{"t": 0.0, "note": "the board", "kind": "start", "board": board}]
    for entry in record.records:
        if entry.get("event") != "call":
            continue
        verdict = entry.get("verdict")
        if verdict == "moved":
            board = str(entry.get("board"))
        note = entry.get("move") or entry.get("reason") or verdict
        out.append({"t": entry.get("t", 0.0), "note": f"{entry.get('player')}: {note}",
                    "kind": verdict, "board": board})  # fmt: skip
    return out


def summary(record: GameRecord) -> str:
    """The game's result as the log tells it, in one line."""
    records = record.records
    if record.game == "fish":
        result = next((r for r in records if r.get("event") == "result"), None)
        if result is None:
            return "no result: the log ends first"
        return (
            f"winners: {', '.join(result.get('winners') or []) or 'none'}; scores "
            f"{result.get('scores')}; failed: {result.get('failed')}; cheaters: "
            f"{result.get('cheaters')}"
        )
    if record.game == "labyrinth":
        end = next((r for r in records if r.get("type") == "end"), None)
        if end is None:
            return "no result: the log ends first"
        winner, names = end.get("winner"), record.header.get("players", [])
        who = "draw" if winner is None else f"{names[winner]} wins"
        return f"{who} ({end.get('reason', '')})"
    end = next((r for r in records if r.get("event") == "end"), None)
    if end is None:
        return "no result: the log ends first"
    return "; ".join(
        f"{place.get('place') or '-'}. {place.get('player')} {place.get('fish')} fish"
        + (f" (disqualified: {place.get('disqualified')})" if place.get("disqualified") else "")
        for place in end.get("ranking") or []
    )


def penguins_show(record: GameRecord) -> str:
    """A Penguins log as text: the start, each call's outcome, the ranking."""
    start = record.header
    lines = [f"Penguins game: {len(start.get('players', []))} players, "
             f"{start.get('penguins')} penguins each"]  # fmt: skip
    lines += [f"  player {i}: {p}" for i, p in enumerate(start.get("players", []), start=1)]
    lines += ["board:", *str(start.get("board", "")).splitlines()]
    for entry in record.records:
        event, t = entry.get("event"), f"{float(entry.get('t', 0.0)):9.3f}s"
        if event == "name":
            reason = f": {entry['reason']}" if entry.get("reason") else ""
            lines.append(f"{t}  name: {entry.get('player')}{reason}")
        elif event == "call":
            detail = entry.get("move") or entry.get("reason") or entry.get("verdict")
            lines.append(f"{t}  {entry.get('player')} ({entry.get('phase')}): {detail}")
    final = penguins_frames(record)[-1]["board"]
    lines += ["final board:", *str(final).splitlines(), f"ranking: {summary(record)}"]
    return "\n".join(lines)
