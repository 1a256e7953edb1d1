"""A Fish, Labyrinth or Penguins game log as read, whichever format: what every game's reader
shares (no game imported here; replay/games.py joins them, each game's module reads its own).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.chainlog import GZIP_MAGIC, Chain, decompressed, read_chain

__all__ = [
    "GAMES",
    "SCHEMAS",
    "GameLogError",
    "GameRecord",
    "Regenerate",
    "detect",
    "detect_bytes",
    "parse_old",
    "read_one",
    "read_shared",
]

#: The games whose logs these readers read.
GAMES = ("fish", "labyrinth", "penguins")
#: The log schemas this software reads: 0 (a game's own unchained lines), 2 (the shared format).
SCHEMAS = (0, 2)

Lines = list[tuple[int, dict[str, Any]]]
#: A game's regeneration: (shared header, its lines) -> (the old records, the differences).
Regenerate = Callable[[dict[str, Any], Lines], tuple[list[dict[str, Any]], list[str]]]
Regenerators = Callable[[str], Regenerate | None]


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


def parse_old(raw: bytes, path: str) -> GameRecord:
    """A game's log of the old format (schema 0: its own unchained JSON Lines)."""
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


def read_shared(raw: bytes, path: str, key: bytes | None, regenerators: Regenerators) -> GameRecord:
    """Check a shared-format game log's chain and regenerate its records with the game's own
    ``regenerate`` (``regenerators``: game -> a function giving it, or None for another game)."""
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
    regenerate = regenerators(str(game)) if game in GAMES else None
    if regenerate is None:
        raise GameLogError(f"{path}: a {game} log, not a Fish, Labyrinth or Penguins one")
    lines = chain.lines[1:]
    try:
        records, problems = regenerate(header, lines)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise GameLogError(
            f"{path}: the header is not one this version plays: {error!r:.200}"
        ) from None
    if game == "labyrinth":  # its old records carry no time; a regenerated one keeps its line's
        times = {number: data.get("t", 0.0) for number, data in lines}
        for record, (number, _) in zip(records[1:], lines, strict=False):
            record.setdefault("t", times.get(number, 0.0))
    return GameRecord(path, str(game), 2, records[0], records[1:], problems, chain, header)


def read_one(
    path: str | Path, game: str, regenerate: Regenerate, *, key: bytes | None = None
) -> GameRecord:
    """Read a log of ``game`` only, either format (its own module's reader: a game's package
    imports no other game). Raises OSError, GameLogError."""
    raw = Path(path).read_bytes()
    if raw[:2] == GZIP_MAGIC:
        return read_shared(raw, str(path), key, lambda name: regenerate if name == game else None)
    record = parse_old(raw, str(path))
    if record.game != game:
        raise GameLogError(f"{path}: a {record.game} log, not a {game} one")
    return record
