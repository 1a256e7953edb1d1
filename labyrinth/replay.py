"""Labyrinth game logs of the 2017-protocol server (JSON Lines, format ``labyrinth-2017/1``):
read, verify (re-play every move on the rules and compare), show as text, render as a
self-contained HTML page that steps through the game.

A log: a ``game`` header (rules profile, seed, size, maze, players, which seats were bots, turn
limit, clock), then ``move`` lines (turn, player, move, return code, energies after), ``comment``
lines, and an ``end`` line (winner, reason, and ``forfeit``: the seat that lost by timeout,
disconnection or a bad command, which the rules cannot see).

A player's log (``players/NAME.jsonl``, no header) lists one program's ``connected``, ``game``
(game name, seat), ``result`` (won, lost or draw, and why) and ``disconnected`` records: it can
be read and shown (:func:`show_player`); there is nothing in it to verify or draw.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labyrinth.generation import generate
from labyrinth.render import render_text
from labyrinth.rules import GAME_TYPE, PROFILES, Labyrinth, LabyrinthConfig, Move
from replay.page import VIEW_SCHEMA, render_page

__all__ = [
    "GameLog",
    "LogError",
    "PlayerLog",
    "frames",
    "is_game_log",
    "is_player_log",
    "read_game_log",
    "read_player_log",
    "render_html",
    "show_player",
    "view_data",
]

FORMAT = "labyrinth-2017/1"
#: The kinds of record of a player's log.
PLAYER_RECORDS = ("connected", "game", "result", "disconnected")
NAMES = [
    "rotate row {} left",
    "rotate row {} right",
    "rotate column {} up",
    "rotate column {} down",
    "step up",
    "step down",
    "step left",
    "step right",
    "stay",
]


class LogError(Exception):
    """The file is not a readable Labyrinth game log (the message names file and line)."""


@dataclasses.dataclass
class GameLog:
    path: str
    header: dict[str, Any]
    records: list[dict[str, Any]]

    @property
    def end(self) -> dict[str, Any] | None:
        return next((r for r in reversed(self.records) if r.get("type") == "end"), None)


@dataclasses.dataclass
class PlayerLog:
    path: str
    player: str
    records: list[dict[str, Any]]


def _first_record(path: str) -> object:
    from replay.chainlog import GZIP_MAGIC
    from replay.gamerecord import detect

    try:
        with open(path, "rb") as stream:
            if stream.read(2) == GZIP_MAGIC:  # the shared format (replay/labyrinthlog.py)
                return {"format": FORMAT} if detect(path) == "labyrinth" else None
    except OSError:
        return None
    try:
        with open(path, encoding="utf-8") as stream:
            return json.loads(stream.readline())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def is_game_log(path: str) -> bool:
    """Whether the file's first line is a Labyrinth game log header."""
    first = _first_record(path)
    return isinstance(first, dict) and first.get("format") == FORMAT


def is_player_log(path: str) -> bool:
    """Whether the file's first line is a record of a Labyrinth player's log."""
    first = _first_record(path)
    return (
        isinstance(first, dict)
        and isinstance(first.get("player"), str)
        and first.get("type") in PLAYER_RECORDS
    )


def read_game_log(path: str) -> GameLog:
    from replay.chainlog import GZIP_MAGIC
    from replay.gamerecord import GameLogError
    from replay.labyrinthlog import read_labyrinth

    try:
        with open(path, "rb") as stream:
            shared = stream.read(2) == GZIP_MAGIC
    except OSError as error:
        raise LogError(f"{path}: cannot read: {error}") from None
    if shared:  # the shared format (replay/labyrinthlog.py): the same records, regenerated
        try:
            record = read_labyrinth(path)
        except GameLogError as error:
            raise LogError(str(error)) from None
        return GameLog(path, record.header, record.records)
    records = _records(path)
    if not records or records[0].get("format") != FORMAT:
        raise LogError(f"{path} line 1: not a Labyrinth game log header (format {FORMAT})")
    header = records[0]
    for key in ("rules", "width", "height", "maze", "players", "max_turns"):
        if key not in header:
            raise LogError(f"{path} line 1: the header has no {key!r}")
    return GameLog(path, header, records[1:])


def read_player_log(path: str) -> PlayerLog:
    records = _records(path)
    if not records or not isinstance(records[0].get("player"), str):
        raise LogError(f"{path} line 1: not a Labyrinth player's log (no 'player')")
    name = records[0]["player"]
    for number, record in enumerate(records, start=1):
        if record.get("player") != name or record["type"] not in PLAYER_RECORDS:
            raise LogError(f"{path} line {number}: not a record of player {name}'s log")
    return PlayerLog(path, name, records)


def _records(path: str) -> list[dict[str, Any]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise LogError(f"{path}: cannot read: {error}") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            raise LogError(f"{path} line {number}: not JSON") from None
        if not isinstance(record, dict) or "type" not in record:
            raise LogError(f"{path} line {number}: not a log record (no 'type')")
        records.append(record)
    return records


def config_of(header: dict[str, Any]) -> LabyrinthConfig:
    rules = header["rules"]
    if rules not in PROFILES:
        raise LogError(f"unknown rules profile {rules!r}")
    return dataclasses.replace(PROFILES[rules], max_turns=int(header["max_turns"]))


def initial(log: GameLog) -> Labyrinth:
    h = log.header
    try:
        return Labyrinth.from_maze_text(h["width"], h["height"], h["maze"], config_of(h))
    except ValueError as error:
        raise LogError(f"{log.path} line 1: {error}") from None


def verify(log: GameLog) -> list[str]:
    """Differences between the log and the rules (empty: the log re-plays exactly)."""
    h = log.header
    problems = []
    lab = initial(log)
    if "seed" in h:
        seeded = generate(int(h["seed"]), config_of(h))
        if seeded.maze_text() != h["maze"]:
            problems.append("line 1: the maze is not the one of its seed")
    end = None
    for number, record in enumerate(log.records, start=2):
        kind = record["type"]
        if kind == "move":
            if lab.over:
                problems.append(f"line {number}: a move after the game ended")
                break
            if record.get("player") != lab.to_move:
                problems.append(f"line {number}: player {record.get('player')} moved, "
                                f"it was player {lab.to_move}'s turn")  # fmt: skip
            code = lab.play(Move(*record["move"]))
            if int(code) != record.get("code"):
                problems.append(
                    f"line {number}: code {record.get('code')}, the rules say {int(code)}"
                )
            if record.get("energies") != lab.energies:
                problems.append(f"line {number}: energies {record.get('energies')}, "
                                f"the rules say {lab.energies}")  # fmt: skip
        elif kind == "end":
            end = record
    if end is None:
        problems.append("no end line: the game was cut short")
    elif "forfeit" in end:
        if lab.over:
            problems.append("the end names a forfeit, yet the rules had ended the game")
        elif end.get("winner") != 1 - int(end["forfeit"]):
            problems.append("the winner is not the other of the forfeiting seat")
    elif not lab.over:
        problems.append("the end line comes before the rules end the game")
    elif end.get("winner") != lab.winner:
        problems.append(f"winner {end.get('winner')}, the rules say {lab.winner}")
    return problems


def describe(move: list[int]) -> str:
    kind, value = move
    return NAMES[kind].format(value) if 0 <= kind < len(NAMES) else f"move type {kind}"


def show(log: GameLog) -> str:
    h = log.header
    names = h["players"]
    lines = [
        f"game {h.get('game', '?')}: {names[0]} (A, starts) vs {names[1]} (B), "
        f"{h['width']} x {h['height']}, rules {h['rules']}, seed {h.get('seed', '?')}"
    ]
    lab = initial(log)
    lines.append(render_text(lab, names))
    for record in log.records:
        if record["type"] == "move":
            lab.play(Move(*record["move"]))
            code = {0: "", 1: "  -> wins", -1: "  -> loses"}.get(record["code"], "")
            who = names[record["player"]]
            what = f"{describe(record['move'])}  energies {record['energies']}{code}"
            lines.append(f"turn {record['turn']:>4} {who}: {what}")
        elif record["type"] == "comment":
            lines.append(f"           {names[record['player']]} says: {record['text']}")
        elif record["type"] == "end":
            winner = record.get("winner")
            who = "draw" if winner is None else f"{names[winner]} wins"
            lines.append(f"end: {who} ({record.get('reason', '')})")
    lines.append(render_text(lab, names))
    return "\n".join(lines)


def show_player(log: PlayerLog) -> str:
    """A player's log as text: its connections, the games it was seated in (A starts), each
    result with its reason, and a count."""
    lines = [f"player {log.player}: connections, games and results ({log.path})"]
    results: collections.Counter[str] = collections.Counter()
    for record in log.records:
        kind, game = record["type"], record.get("game", "?")
        if kind == "game":
            seat = "A, starts" if record.get("seat") == 0 else "B"
            lines.append(f"  game {game} ({seat})")
        elif kind == "result":
            result = str(record.get("result", "?"))
            results[result] += 1
            lines.append(f"  {result:<5} {game}: {record.get('reason', '')}")
        else:
            lines.append(kind)
    games = sum(record["type"] == "game" for record in log.records)
    lines.append(
        f"{games} game(s): {results['won']} won, {results['lost']} lost, {results['draw']} drawn"
    )
    return "\n".join(lines)


def frames(log: GameLog) -> list[dict[str, Any]]:
    """The position before the first move and after each: what a viewer steps through (each
    with the move, who made it, and what was said up to it)."""
    lab = initial(log)
    out = [_frame(lab, "start")]
    out[0]["notes"] = [["start", "the maze as dealt"]]
    comments: list[str] = []
    names = log.header["players"]
    for record in log.records:
        if record["type"] == "move" and not lab.over:
            lab.play(Move(*record["move"]))
            out.append(_frame(lab, f"{names[record['player']]}: {describe(record['move'])}"))
            out[-1]["comments"] = list(comments[-5:])
            out[-1]["move"] = list(record["move"])
            out[-1]["mover"] = record["player"]
            code = {1: " (wins)", -1: " (loses)"}.get(record.get("code", 0), "")
            out[-1]["notes"] = [["move", out[-1]["caption"] + code]]
        elif record["type"] == "comment":
            comments.append(f"{names[record['player']]}: {record['text']}")
    return out


def _frame(lab: Labyrinth, caption: str) -> dict[str, Any]:
    return {
        "maze": lab.maze_text(),
        "players": [list(p) for p in lab.players],
        "treasure": list(lab.treasure),
        "energies": list(lab.energies),
        "turn": lab.turn,
        "caption": caption,
        "comments": [],
    }


#: Seat A's and seat B's colours.
COLORS = ["#38bdf8", "#f43f5e"]


def view_data(log: GameLog) -> dict[str, Any]:
    """The viewer's data (replay/page.py) of a game log."""
    h = log.header
    end = log.end
    outcome = None
    if end is not None:
        winner = end.get("winner")
        reason = f" ({end['reason']})" if end.get("reason") else ""
        text = "draw" if winner is None else f"{h['players'][winner]} wins"
        outcome = {"text": text + reason, "winner": winner}
    return {
        "schema": VIEW_SCHEMA,
        "game": GAME_TYPE.name,
        "title": str(h.get("game", "")),
        "players": [str(name) for name in h["players"]],
        "colors": COLORS,
        "seed": str(h["seed"]) if h.get("seed") is not None else None,
        "facts": [["maze", f"{h['width']} x {h['height']}"], ["rules", str(h["rules"])]],
        "result": outcome,
        "over": end is not None,
        "live": None,
        "standings": None,
        "warning": None if end is not None else "This log ends before the game does (cut short).",
        "board": {"width": h["width"], "height": h["height"]},
        "frames": frames(log),
    }


def render_html(
    log: GameLog, standings: str | None = None, players: Sequence[str] = (), running: bool = False
) -> str:
    """A self-contained page (no network) that steps through the game: the viewer every game
    shares (replay/page.py) with the maze's drawing; ``standings``: a link back to them;
    ``players``: who played seats A and B (a tournament's teams); ``running``: the game is
    still being played (the page says so, not that the log ends first)."""
    data = view_data(log)
    data["standings"] = standings
    if running:
        data["running"] = True
        data["warning"] = None
    if players:
        data["players"] = list(players)
    return render_page(data, "labyrinth", GAME_TYPE.long_name)
