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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.chainlog import GZIP_MAGIC, Chain, decompressed, read_chain

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

#: The games whose logs this module reads.
GAMES = ("fish", "labyrinth", "penguins")
#: The log schemas this software reads: 0 (a game's own unchained lines), 2 (the shared format).
SCHEMAS = (0, 2)


class GameLogError(ValueError):
    """Not a readable game log, or one of a version this software does not know (one line)."""


@dataclass
class GameRecord:
    """A game's log as read: the old format's header and records (regenerated from a schema-2
    log), what the re-run found, and the chain's state."""

    path: str
    game: str
    schema: int
    header: dict[str, Any]
    #: the records after the header, in order (each with ``t`` when the log has times)
    records: list[dict[str, Any]]
    #: where the re-run differs from the log (empty: it re-runs exactly)
    problems: list[str] = field(default_factory=list)
    #: schema 2: the chain as read (bad line, cut, signature); None for schema 0
    chain: Chain | None = None
    #: schema 2: the shared header (game, version, seed, config, players)
    shared_header: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        """Whether the log holds the game's end (schema 2: a close line with the chain whole)."""
        if self.chain is not None:
            return self.chain.closed and self.chain.bad is None
        last = self.records[-1] if self.records else {}
        return last.get("event") in ("result", "end") or last.get("type") == "end"


def _first_line(raw: bytes) -> dict[str, Any] | None:
    if raw[:2] == GZIP_MAGIC:
        raw, _ = decompressed(raw[:4096])
    try:
        first = json.loads(raw.split(b"\n", 1)[0])
    except ValueError:
        return None
    return first if isinstance(first, dict) else None


def detect(path: str | Path) -> str | None:
    """``dungeon``, ``fish``, ``fish-tournament``, ``labyrinth``, ``labyrinth-player``,
    ``penguins``, or None when the file's first line names none of them (or it cannot be read)."""
    try:
        with open(path, "rb") as stream:
            raw = stream.read(4096)
    except OSError:
        return None
    return detect_bytes(raw)


def detect_bytes(raw: bytes) -> str | None:
    first = _first_line(raw)
    if first is None:
        return None
    if first.get("event") == "header":
        game = first.get("game", "dungeon")
        return game if isinstance(game, str) else None
    if first.get("log") == "fish-game":
        return "fish"
    if first.get("log") == "fish-tournament":
        return "fish-tournament"
    if first.get("format") == "labyrinth-2017/1":
        return "labyrinth"
    if isinstance(first.get("player"), str) and "type" in first:
        return "labyrinth-player"
    if first.get("event") == "start" and "penguins" in first and "board" in first:
        return "penguins"
    return None


def read_game(path: str | Path, *, key: bytes | None = None) -> GameRecord:
    """Read a Fish, Labyrinth or Penguins game log of either format. Raises OSError,
    GameLogError (one line naming the file and the cause)."""
    raw = Path(path).read_bytes()
    return parse_game(raw, str(path), key=key)


def parse_game(raw: bytes, path: str, *, key: bytes | None = None) -> GameRecord:
    if raw[:2] == GZIP_MAGIC:
        return _read_shared(raw, path, key)
    game = detect_bytes(raw)
    if game not in GAMES:
        raise GameLogError(f"{path}: not a Fish, Labyrinth or Penguins game log")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise GameLogError(f"{path}: line {number} is not JSON") from None
        if not isinstance(record, dict):
            raise GameLogError(f"{path}: line {number} is not a log record")
        records.append(record)
    assert game is not None
    return GameRecord(path, game, 0, records[0], records[1:])


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


def _read_shared(raw: bytes, path: str, key: bytes | None) -> GameRecord:
    try:
        chain = read_chain(raw, path, key=key)
    except ValueError as error:
        raise GameLogError(str(error)) from None
    header = chain.header
    schema, game = header.get("schema"), header.get("game")
    if schema not in SCHEMAS:
        raise GameLogError(
            f"{path}: log schema version {schema!r}, but this software reads versions "
            f"{', '.join(map(str, SCHEMAS))} of game logs; use the dungeon-arena release that "
            "wrote it"
        )
    if game not in GAMES:
        raise GameLogError(f"{path}: a {game} log, not a Fish, Labyrinth or Penguins one")
    lines = chain.lines[1:]
    try:
        records, problems = _regenerate(str(game), header, lines)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise GameLogError(
            f"{path}: the header is not one this version plays: {error!r:.200}"
        ) from None
    return GameRecord(path, str(game), 2, records[0], records[1:], problems, chain, header)


def _regenerate(
    game: str, header: dict[str, Any], lines: list[tuple[int, dict[str, Any]]]
) -> tuple[list[dict[str, Any]], list[str]]:
    if game == "fish":
        from replay.fishlog import regenerate
    elif game == "labyrinth":
        from replay.labyrinthlog import regenerate
    else:
        from replay.penguinslog import regenerate
    records, problems = regenerate(header, lines)
    times = {number: data.get("t", 0.0) for number, data in lines}
    if game == "labyrinth":  # its old records carry no time; a regenerated one keeps its line's
        for record, (number, _) in zip(records[1:], lines, strict=False):
            record.setdefault("t", times.get(number, 0.0))
    return records, problems


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
    if record.game == "fish":
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
