"""A Penguins game log (the master's ``log.jsonl.gz``, or an older ``log.jsonl``) in the viewer
every game shares: ``arena replay render log.jsonl.gz -o game.html``.

The frames come from the log alone: its ``start`` line holds the board, each ``name`` line a
player (in turn order), each ``call`` that ``moved`` the whole board after it; a disqualified
program is out from its call on; the ``end`` line holds the ranking.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from penguins.facts import GAME_TYPE
from protocol.penguins import BoardFile, BoardFileError, parse
from replay.page import VIEW_SCHEMA, render_page

__all__ = ["is_penguins_log", "read_events", "render_html", "view_data"]

#: The players' colours by turn order (up to nine players).
COLORS = [
    "#ef4444", "#38bdf8", "#facc15", "#a78bfa", "#4ade80", "#fb923c", "#f472b6", "#e2e8f0",
    "#94a3b8",
]  # fmt: skip


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """The log's lines (ValueError naming the line that is not a JSON object); a log of the
    shared format (``log.jsonl.gz``, replay/penguinslog.py) gives the same lines, regenerated."""
    from replay.chainlog import GZIP_MAGIC
    from replay.penguinslog import read_penguins

    with open(path, "rb") as probe:
        if probe.read(2) == GZIP_MAGIC:
            record = read_penguins(path)
            return [record.header, *record.records]
    events = []
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                raise ValueError(f"{path} line {number}: not JSON") from None
            if not isinstance(event, dict) or "event" not in event:
                raise ValueError(f"{path} line {number}: not a log record (no 'event')")
            events.append(event)
    return events


def is_penguins_log(path: str | Path) -> bool:
    """Whether the file's first line is a Penguins master's ``start`` line (or the shared
    format's header of a Penguins game)."""
    from replay.gamerecord import detect

    try:
        with open(path, encoding="utf-8") as stream:
            first = json.loads(stream.readline() or "null")
    except (OSError, ValueError, UnicodeDecodeError):
        return detect(path) == "penguins"
    return isinstance(first, dict) and first.get("event") == "start" and "penguins" in first


def _board(text: str, where: str) -> BoardFile:
    try:
        return parse(text)
    except BoardFileError as error:
        raise ValueError(f"{where}: its board does not parse: {error}") from None


def view_data(events: list[dict[str, Any]], path: str | Path = "") -> dict[str, Any]:
    """The viewer's data (replay/page.py) of a Penguins game log's lines."""
    if not events or events[0].get("event") != "start":
        raise ValueError(f"{path}: not a Penguins game log (its first line is no 'start')")
    board = _board(str(events[0]["board"]), f"{path} line 1")
    names = [str(e["player"]) for e in events if e.get("event") == "name"]
    seat_of = {name: seat for seat, name in enumerate(names)}
    active = [True] * len(names)
    t = 0.0

    def frame(
        board: BoardFile, notes: list[list[str]], move: list[int], phase: str
    ) -> dict[str, Any]:
        number_seat = {p.number: seat_of.get(p.ident, -1) for p in board.players}
        penguins: list[list[int]] = [[] for _ in names]
        for tile, number in enumerate(board.owner):
            seat = number_seat.get(number, -1)
            if number and seat >= 0:
                penguins[seat].append(tile)
        scores = [0] * len(names)
        for player in board.players:
            if player.ident in seat_of:
                scores[seat_of[player.ident]] = player.score
        return {
            "t": round(t, 3),
            "notes": notes,
            "phase": phase,
            "move": move,
            "fish": list(board.fish),
            "penguins": penguins,
            "scores": scores,
            "active": list(active),
        }

    out = [frame(board, [["start", "the board"]], [], "")]
    for number, event in enumerate(events[1:], start=2):
        if event.get("event") != "call":
            continue
        name, verdict = str(event.get("player")), event.get("verdict")
        seat = seat_of.get(name, -1)
        t += float(event.get("seconds") or 0)
        phase = str(event.get("phase", ""))
        if verdict == "moved":
            after = _board(str(event["board"]), f"{path} line {number}")
            number_of = next((p.number for p in after.players if p.ident == name), 0)
            was = {i for i, n in enumerate(board.owner) if n == number_of}
            now = {i for i, n in enumerate(after.owner) if n == number_of}
            move = sorted(was - now) + sorted(now - was)
            note = f"{name}: {event.get('move') or phase}"
            board = after
            out.append(frame(board, [["move", note]], move, phase))
        elif verdict == "disqualified":
            if seat >= 0:
                active[seat] = False
            out.append(frame(board, [["out", f"{name} disqualified: {event.get('reason')}"]], [],
                             phase))  # fmt: skip
    end = next((e for e in events if e.get("event") == "end"), None)
    outcome = None
    if end is not None:
        ranking = end.get("ranking") or []
        first = [r for r in ranking if r.get("place") == 1]
        text = ", ".join(f"{r['player']} {r['fish']} fish" for r in first) or "nobody placed"
        winner = seat_of.get(first[0]["player"]) if len(first) == 1 else None
        outcome = {"text": f"{'wins' if len(first) == 1 else 'first'}: {text}", "winner": winner}
    return {
        "schema": VIEW_SCHEMA,
        "game": GAME_TYPE.name,
        "title": "",
        "players": names,
        "colors": COLORS[: len(names)],
        "seed": str(events[0]["seed"]) if events[0].get("seed") is not None else None,
        "facts": [
            ["board", f"{board.rows} x {board.cols}"],
            ["penguins each", str(events[0].get("penguins"))],
        ],
        "result": outcome,
        "over": end is not None,
        "live": None,
        "standings": None,
        "warning": None if end is not None else "This log ends before the game does.",
        "board": {"rows": board.rows, "cols": board.cols},
        "frames": out,
    }


def render_html(
    path: str | Path, standings: str | None = None, teams: dict[str, str] | None = None
) -> tuple[str, int]:
    """The viewer page of a Penguins game log (self-contained), and its number of frames;
    ``standings``: a link back to them; ``teams``: the team of each player id (a tournament)."""
    data = view_data(read_events(path), path)
    data["standings"] = standings
    if teams:
        data["players"] = [
            f"{teams[name]} ({name})" if name in teams else name for name in data["players"]
        ]
    return render_page(data, "floes", GAME_TYPE.long_name), len(data["frames"])
