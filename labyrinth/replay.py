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
import html
import json
from pathlib import Path
from typing import Any

from labyrinth.generation import generate
from labyrinth.render import render_text
from labyrinth.rules import PROFILES, Labyrinth, LabyrinthConfig, Move

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
    """The position before the first move and after each: what a viewer steps through."""
    lab = initial(log)
    out = [_frame(lab, "start")]
    comments: list[str] = []
    names = log.header["players"]
    for record in log.records:
        if record["type"] == "move" and not lab.over:
            lab.play(Move(*record["move"]))
            out.append(_frame(lab, f"{names[record['player']]}: {describe(record['move'])}"))
            out[-1]["comments"] = list(comments[-5:])
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


def render_html(log: GameLog) -> str:
    """A self-contained page (no network) that steps through the game."""
    h = log.header
    end = log.end or {}
    data = {
        "width": h["width"],
        "height": h["height"],
        "players": h["players"],
        "frames": frames(log),
        "end": end.get("reason", "cut short"),
    }
    title = html.escape(f"Labyrinth {h.get('game', '')}: {h['players'][0]} vs {h['players'][1]}")
    payload = json.dumps(data).replace("<", "\\u003c")
    return _PAGE.replace("{title}", title).replace("{data}", payload)


_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:1em;color:#1d2230}
#maze{display:grid;gap:1px;background:#c8ccd6;width:max-content;margin:.6em 0}
#maze div{width:22px;height:22px;display:flex;align-items:center;justify-content:center;
font-weight:700;font-size:13px}
.w{background:#394052}.f{background:#eef0f5}.a{background:#2457c5;color:#fff}
.b{background:#c5242e;color:#fff}.t{background:#e9b824}.x{background:#7a2bb5;color:#fff}
</style></head><body><h1>{title}</h1>
<p><button id="first">&laquo;</button> <button id="prev">&lsaquo;</button>
<input id="step" type="range" min="0" value="0"> <button id="next">&rsaquo;</button>
<button id="last">&raquo;</button> <span id="where"></span></p>
<div id="maze"></div><p id="caption"></p><p id="energies"></p><ul id="comments"></ul>
<p id="end"></p>
<script>
"use strict";
const game = {data};
const maze = document.getElementById("maze"), step = document.getElementById("step");
step.max = game.frames.length - 1;
maze.style.gridTemplateColumns = `repeat(${game.width}, 22px)`;
function show(i) {
  const f = game.frames[i];
  step.value = i;
  const cells = [];
  for (let y = 0; y < game.height; y++) for (let x = 0; x < game.width; x++) {
    const d = document.createElement("div");
    const a = f.players[0][0] === x && f.players[0][1] === y;
    const b = f.players[1][0] === x && f.players[1][1] === y;
    const t = f.treasure[0] === x && f.treasure[1] === y;
    const wall = f.maze[y * game.width + x] === "1";
    d.className = a && b ? "x" : a ? "a" : b ? "b" : t ? "t" : wall ? "w" : "f";
    d.textContent = a && b ? "X" : a ? "A" : b ? "B" : t ? "T" : "";
    cells.push(d);
  }
  maze.replaceChildren(...cells);
  document.getElementById("where").textContent = `turn ${f.turn} (${i}/${game.frames.length - 1})`;
  document.getElementById("caption").textContent = f.caption;
  document.getElementById("energies").textContent =
    `energy: A ${game.players[0]} ${f.energies[0]}, B ${game.players[1]} ${f.energies[1]}`;
  document.getElementById("comments").replaceChildren(...f.comments.map((c) => {
    const li = document.createElement("li"); li.textContent = c; return li; }));
  document.getElementById("end").textContent =
    i === game.frames.length - 1 ? `end: ${game.end}` : "";
}
const go = (d) => show(Math.max(0, Math.min(game.frames.length - 1, Number(step.value) + d)));
document.getElementById("first").onclick = () => show(0);
document.getElementById("last").onclick = () => show(game.frames.length - 1);
document.getElementById("prev").onclick = () => go(-1);
document.getElementById("next").onclick = () => go(1);
step.oninput = () => show(Number(step.value));
show(0);
</script></body></html>
"""
