"""A class roster: a CSV file with a header, one team a row. The ``team`` column (or ``name``)
names the team (1-32 of ``[A-Za-z0-9_-]``, unique); the other columns (members, e-mail, ...) are
kept with it. Pure: text in, rows out, :class:`~server.ladder.db.LadderError` naming the row.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from server.ladder.db import LadderError

__all__ = ["MAX_TEAMS", "NAME", "RosterRow", "parse_roster"]

NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: A roster with more rows than this is a mistake (a wrong file), not a class.
MAX_TEAMS = 1000
_MAX_CELL = 200


@dataclass(frozen=True)
class RosterRow:
    name: str
    members: dict[str, str] = field(default_factory=dict)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def parse_roster(text: str, source: str = "roster") -> list[RosterRow]:
    """The teams of a roster's text, in file order."""
    if "\x00" in text:
        raise LadderError(f"{source}: not a CSV text file (it holds NUL bytes)")
    lines = list(csv.reader(io.StringIO(text, newline="")))
    while lines and not any(cell.strip() for cell in lines[-1]):
        lines.pop()
    if not lines:
        raise LadderError(f"{source}: empty (want a header line with a 'team' column)")
    header = [cell.strip().lower() for cell in lines[0]]
    column = next((header.index(key) for key in ("team", "name") if key in header), None)
    if column is None:
        raise LadderError(f"{source}: line 1: no 'team' column in the header {lines[0]!r}")
    if len(set(header)) != len(header) or "" in header:
        raise LadderError(f"{source}: line 1: empty or repeated column names in {lines[0]!r}")
    rows: list[RosterRow] = []
    seen: dict[str, int] = {}
    for number, cells in enumerate(lines[1:], 2):
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise LadderError(
                f"{source}: line {number}: {len(cells)} fields, the header has {len(header)}"
            )
        name = cells[column].strip()
        if not NAME.fullmatch(name):
            raise LadderError(
                f"{source}: line {number}: team {_shown(name)} wants 1-32 of [A-Za-z0-9_-]"
            )
        if name.lower() in seen:
            raise LadderError(
                f"{source}: line {number}: team {name!r} again (first on line {seen[name.lower()]})"
            )
        seen[name.lower()] = number
        members = {}
        for key, cell in zip(header, cells, strict=True):
            if key in {"team", "name"} and cell is cells[column]:
                continue
            if len(cell) > _MAX_CELL:
                raise LadderError(f"{source}: line {number}: {key!r} longer than {_MAX_CELL}")
            members[key] = cell.strip()
        rows.append(RosterRow(name, members))
        if len(rows) > MAX_TEAMS:
            raise LadderError(f"{source}: more than {MAX_TEAMS} teams")
    if not rows:
        raise LadderError(f"{source}: no team (the header only)")
    return rows
