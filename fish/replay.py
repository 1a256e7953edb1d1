"""Fish's logs on screen: ``arena replay show`` (a text timeline) and ``render`` (an HTML page).

A game log (:mod:`fish.gamelog`) is replayed through the rules: every ``verdict`` with an
action places or moves a penguin, every failed or cheated verdict removes its player; each step
is a frame (the board, the penguins, the scores, what happened). The page is the viewer every
game shares (replay/page.py) with the floes' drawing (replay/viewer/floes.js, hexagons in
offset rows). A tournament log is shown as its sign-ups, rounds, game results and final
standing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fish.gamelog import read_jsonl
from fish.rules import FISH_RULES, penguins_each
from floes import Floes
from replay.page import VIEW_SCHEMA, render_page

__all__ = ["fish_log_kind", "game_frames", "render_html", "show_lines", "view_data"]


def fish_log_kind(path: str | Path) -> str | None:
    """ "fish-game" or "fish-tournament" when the file's first line says so, else None."""
    try:
        with open(path, encoding="utf-8") as stream:
            first = json.loads(stream.readline() or "null")
    except (OSError, ValueError):
        return None
    kind = first.get("log") if isinstance(first, dict) else None
    return kind if kind in ("fish-game", "fish-tournament") else None


def _who(header: dict[str, Any], seat: int) -> str:
    return f"{header['colors'][seat]} ({header['players'][seat]})"


def game_frames(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The game's header line and its frames, the first one before any penguin."""
    header = events[0]
    rows, cols = header["rows"], header["cols"]
    seats = len(header["players"])
    floes = Floes(FISH_RULES, rows, cols, header["board"], [penguins_each(seats)] * seats)

    def frame(t: float, note: str, kind: str, move: list[int] | None = None) -> dict[str, Any]:
        return {
            "t": t,
            "note": note,
            "kind": kind,
            "move": move or [],
            "fish": list(floes.fish),
            "penguins": [list(tiles) for tiles in floes.penguins],
            "scores": list(floes.scores),
            "active": list(floes.active),
        }

    frames = [frame(0.0, "the board", "start")]
    for event in events[1:]:
        if event["event"] != "verdict":
            continue
        seat, action = event["seat"], event.get("action")
        if event["kind"] != "ok":
            floes.eliminate(seat)
            frames.append(frame(event["t"], f"{_who(header, seat)} {event['kind']}: "
                                f"{event['reason']}", event["kind"]))  # fmt: skip
        elif action is not None and isinstance(action[0], int):
            floes.current = seat
            tile = action[0] * cols + action[1]
            floes.place(tile)
            frames.append(
                frame(event["t"], f"{_who(header, seat)} places on {action}", "place", [tile])
            )
        elif action is not None:
            src, dst = (r * cols + c for r, c in action)
            floes.current = seat
            points = floes.move(src, dst)
            frames.append(frame(event["t"], f"{_who(header, seat)} moves {action[0]} -> "
                                f"{action[1]}, +{points}", "move", [src, dst]))  # fmt: skip
    return header, frames


def _board_text(header: dict[str, Any], frame: dict[str, Any]) -> list[str]:
    cols = header["cols"]
    owner = {tile: seat for seat, tiles in enumerate(frame["penguins"]) for tile in tiles}
    lines = []
    for row in range(header["rows"]):
        cells = []
        for col in range(cols):
            tile = row * cols + col
            fish = frame["fish"][tile]
            if tile in owner:
                cells.append(f"{header['colors'][owner[tile]][0].upper()}{fish}")
            else:
                cells.append(f" {fish}" if fish else " .")
        lines.append(("  " if row % 2 else "") + "  ".join(cells))
    return lines


def show_lines(path: str | Path) -> list[str]:
    """A readable timeline of a Fish game or tournament log."""
    events = read_jsonl(path)
    if not events:
        raise ValueError(f"{path}: an empty log")
    if events[0].get("log") == "fish-tournament":
        return _tournament_lines(events)
    header, frames = game_frames(events)
    seats = ", ".join(_who(header, s) for s in range(len(header["players"])))
    lines = [f"Fish game: round {header['round']}, game {header['game']}: {seats}"]
    lines += [f"board {header['rows']} x {header['cols']}:", *_board_text(header, frames[0])]
    for frame in frames[1:]:
        lines.append(f"{frame['t']:9.3f}s  {frame['note']}")
    lines += ["final board:", *_board_text(header, frames[-1])]
    result = next((e for e in events if e["event"] == "result"), None)
    if result is None:
        lines.append("no result: the log ends first")
    else:
        lines.append(f"winners: {', '.join(result['winners']) or 'none'}; scores "
                     f"{result['scores']}; failed: {result['failed']}; cheaters: "
                     f"{result['cheaters']}")  # fmt: skip
    return lines


def _tournament_lines(events: list[dict[str, Any]]) -> list[str]:
    lines = ["Fish tournament"]
    for event in events[1:]:
        kind, t = event["event"], f"{event['t']:9.3f}s"
        if kind == "signup":
            lines.append(f"{t}  sign-up: {event['name']}")
        elif kind == "refused":
            lines.append(f"{t}  refused connection {event['connection']}: {event['reason']}")
        elif kind == "started":
            lines.append(f"{t}  start: {len(event['players'])} players; "
                         f"failed to start: {event['failed']}")  # fmt: skip
        elif kind == "round":
            games = " | ".join(", ".join(game) for game in event["games"])
            lines.append(f"{t}  round {event['round']}: {games}")
        elif kind == "game_result":
            lines.append(f"{t}    game {event['round']}.{event['game']}: winners "
                         f"{event['winners']}, failed {event['failed']}, cheaters "
                         f"{event['cheaters']}, scores {event['scores']}")  # fmt: skip
        elif kind == "result" and event.get("tournament"):
            lines.append(f"{t}  winners {event['winners']}; failed {event['failed']}; "
                         f"cheaters {event['cheaters']}; prints {event['summary']}")  # fmt: skip
        elif kind == "result":
            lines.append(f"{t}  no tournament: {event['players']} players signed up")
    return lines


#: The penguins' colours of the protocol, as the page draws them.
COLOR_CSS = {"red": "#ef4444", "white": "#e2e8f0", "brown": "#b7794a", "black": "#475569"}


def view_data(events: list[dict[str, Any]], path: str | Path = "") -> dict[str, Any]:
    """The viewer's data (replay/page.py) of a Fish game log's events: each frame's floes,
    penguins, scores, who is still in, and the step's move."""
    if not events or events[0].get("log") != "fish-game":
        raise ValueError(f"{path}: render draws a Fish game log (game-*.jsonl), not this file")
    header, frames = game_frames(events)
    names, colors = header["players"], header["colors"]
    seats = len(names)
    result = next((e for e in events if e["event"] == "result"), None)
    outcome = None
    if result is not None:
        winners = ", ".join(result["winners"]) or "none"
        single = [s for s in range(seats) if header["players"][s] in result["winners"]]
        outcome = {
            "text": f"{'winner' if len(single) == 1 else 'winners'}: {winners}",
            "winner": single[0] if len(single) == 1 else None,
        }
    view = []
    for frame in frames:
        kind = {"ok": "move"}.get(frame["kind"], frame["kind"])
        view.append(
            {
                "t": frame["t"],
                "notes": [[kind, frame["note"]]],
                "phase": frame.get("phase"),
                "move": frame.get("move", []),
                **{key: frame[key] for key in ("fish", "penguins", "scores", "active")},
            }
        )
    return {
        "schema": VIEW_SCHEMA,
        "game": "fish",
        "title": f"round {header['round']}, game {header['game']}",
        "players": [f"{name} ({color})" for name, color in zip(names, colors, strict=True)],
        "colors": [COLOR_CSS.get(color, "#94a3b8") for color in header["colors"]],
        "seed": str(header["seed"]) if header.get("seed") is not None else None,
        "facts": [["board", f"{header['rows']} x {header['cols']}"]],
        "result": outcome,
        "over": result is not None,
        "live": None,
        "standings": None,
        "warning": None if result is not None else "This log ends before the game does.",
        "board": {"rows": header["rows"], "cols": header["cols"]},
        "frames": view,
    }


def render_html(
    path: str | Path, standings: str | None = None, players: Sequence[str] = ()
) -> tuple[str, int]:
    """The viewer page of a Fish game log (self-contained), and its number of frames;
    ``standings``: a link back to them; ``players``: who played each seat (a tournament's
    teams)."""
    data = view_data(read_jsonl(path), path)
    data["standings"] = standings
    if players:
        colors = [name.rsplit(" (", 1)[-1] for name in data["players"]]
        data["players"] = [f"{team} ({color}" for team, color in zip(players, colors, strict=True)]
    return render_page(data, "floes", "Fish"), len(data["frames"])
