"""Fish's logs on screen: ``arena replay show`` (a text timeline) and ``render`` (an HTML page).

A game log (:mod:`fish.gamelog`) is replayed through the rules: every ``verdict`` with an
action places or moves a penguin, every failed or cheated verdict removes its player; each step
is a frame (the board, the penguins, the scores, what happened). The page follows the dungeon
viewer's conventions (one self-contained file, the data inlined as JSON, play/pause with space,
steps with the arrow keys, a slider) and draws the hexagons in offset rows. A tournament log is
shown as its sign-ups, rounds, game results and final standing.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from fish.gamelog import read_jsonl
from fish.rules import FISH_RULES, penguins_each
from floes import Floes

__all__ = ["fish_log_kind", "game_frames", "render_html", "show_lines"]


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

    def frame(t: float, note: str, kind: str) -> dict[str, Any]:
        return {
            "t": t,
            "note": note,
            "kind": kind,
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
            floes.place(action[0] * cols + action[1])
            frames.append(frame(event["t"], f"{_who(header, seat)} places on {action}", "place"))
        elif action is not None:
            src, dst = (r * cols + c for r, c in action)
            floes.current = seat
            points = floes.move(src, dst)
            frames.append(frame(event["t"], f"{_who(header, seat)} moves {action[0]} -> "
                                f"{action[1]}, +{points}", "move"))  # fmt: skip
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


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>@@TITLE@@</title>
<style>
:root { --bg:#0f1720; --card:#17212c; --line:#2a3a4a; --text:#dce6ef; --dim:#8aa0b4; }
body { margin:0; background:var(--bg); color:var(--text); font:14px system-ui, sans-serif; }
header, footer { display:flex; gap:12px; align-items:center; padding:8px 14px; }
#stage { display:flex; gap:12px; padding:0 14px; }
#board { flex:1; } svg { width:100%; max-height:78vh; }
aside { width:300px; background:var(--card); border:1px solid var(--line); padding:10px; }
.hex { stroke:var(--line); stroke-width:2; } .hole { fill:#0b1118; }
.fishtxt { fill:#0f1720; font-size:14px; text-anchor:middle; dominant-baseline:central; }
.red{fill:#e5534b;color:#e5534b}.white{fill:#f0f0f0;color:#f0f0f0}
.brown{fill:#a0714f;color:#a0714f}.black{fill:#3a3a3a;stroke:#ddd;color:#777}
button { background:var(--card); color:var(--text); border:1px solid var(--line); }
#slider { flex:1; } .dim { color:var(--dim); } .failed,.cheated { color:#ff8a80; }
td { padding:2px 6px; }
</style></head><body>
<header><b>Fish</b> <span class="dim">replay</span> <span id="facts"></span></header>
<main id="stage"><section id="board"><svg id="map"></svg></section>
<aside><div id="cursor"></div><p id="note"></p><table id="score"></table></aside></main>
<footer><button id="play" title="play / pause (space)">play</button>
<button id="back" title="previous step (←)">◀</button>
<button id="next" title="next step (→)">▶</button>
<input id="slider" type="range" min="0" value="0" step="1"><span id="stepno"></span></footer>
<script type="application/json" id="fish-data">@@DATA@@</script>
<script>
const D = JSON.parse(document.getElementById('fish-data').textContent);
const R = 30, H = Math.sqrt(3) / 2 * R, svg = document.getElementById('map');
const slider = document.getElementById('slider'); slider.max = D.frames.length - 1;
document.getElementById('facts').textContent = D.title;
// Flat-topped hexagons: a row is a zigzag half a hexagon below the one before, odd rows half a
// column to the right, so North (r-2, c) is straight up and Northeast is (r-1, c+o).
function centre(t) { const r = Math.floor(t / D.cols), c = t % D.cols;
  return [3 * R * c + (r % 2 ? 1.5 * R : 0) + R + 4, H * r + H + 4]; }
svg.setAttribute('viewBox', '0 0 ' + (3 * R * D.cols + 1.5 * R + 8) + ' ' + (H * (D.rows + 1) + 8));
function hex(x, y) { let p = []; for (let i = 0; i < 6; i++) { const a = Math.PI / 3 * i;
  p.push((x + R * Math.cos(a)).toFixed(1) + ',' + (y + R * Math.sin(a)).toFixed(1)); }
  return p.join(' '); }
function draw(i) { const f = D.frames[i]; let s = '';
  f.fish.forEach((n, t) => { const [x, y] = centre(t);
    s += '<polygon class="hex ' + (n ? '' : 'hole') + '" points="' + hex(x, y) + '" fill="' +
      (n ? 'hsl(200,60%,' + (85 - 8 * n) + '%)' : '') + '"/>';
    if (n) s += '<text class="fishtxt" x="' + x + '" y="' + (y + 14) + '">' + n + '</text>'; });
  f.penguins.forEach((ts, seat) => ts.forEach(t => { const [x, y] = centre(t);
    s += '<circle class="' + D.colors[seat] + '" cx="' + x + '" cy="' + (y - 6) + '" r="10"/>'; }));
  svg.innerHTML = s; slider.value = i;
  document.getElementById('stepno').textContent = 'step ' + i + ' / ' + (D.frames.length - 1);
  document.getElementById('cursor').textContent = f.t.toFixed(3) + ' s';
  const note = document.getElementById('note'); note.textContent = f.note; note.className = f.kind;
  document.getElementById('score').innerHTML = D.players.map((p, seat) => '<tr><td class="' +
    D.colors[seat] + '">●</td><td>' + p.replace(/[<&]/g, '') + '</td><td>' + f.scores[seat] +
    '</td><td class="dim">' + (f.active[seat] ? '' : 'out') + '</td></tr>').join('') +
    (i === D.frames.length - 1 ? '<tr><td colspan="4">' + D.result + '</td></tr>' : ''); }
let timer = null; const play = document.getElementById('play');
function step(d) { draw(Math.max(0, Math.min(D.frames.length - 1, +slider.value + d))); }
function toggle() { if (timer) { clearInterval(timer); timer = null; play.textContent = 'play'; }
  else { timer = setInterval(() => {
      if (+slider.value >= D.frames.length - 1) toggle(); else step(1); }, 400);
    play.textContent = 'pause'; } }
play.onclick = toggle; document.getElementById('back').onclick = () => step(-1);
document.getElementById('next').onclick = () => step(1); slider.oninput = () => draw(+slider.value);
document.addEventListener('keydown', e => { if (e.key === ' ') { e.preventDefault(); toggle(); }
  else if (e.key === 'ArrowLeft') step(-1); else if (e.key === 'ArrowRight') step(1); });
draw(0);
</script></body></html>
"""


def render_html(path: str | Path) -> tuple[str, int]:
    """A self-contained page animating a Fish game log, and its number of frames."""
    events = read_jsonl(path)
    if not events or events[0].get("log") != "fish-game":
        raise ValueError(f"{path}: render draws a Fish game log (game-*.jsonl), not this file")
    header, frames = game_frames(events)
    result = next((e for e in events if e["event"] == "result"), None)
    text = "no result: the log ends first"
    if result is not None:
        text = f"winners: {', '.join(result['winners']) or 'none'}"
    title = f"round {header['round']}, game {header['game']}"
    data = {
        "title": title,
        "rows": header["rows"],
        "cols": header["cols"],
        "players": header["players"],
        "colors": header["colors"],
        "frames": frames,
        "result": text,
    }
    body = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    page = _PAGE.replace("@@TITLE@@", html.escape(f"Fish replay: {title}"))
    return page.replace("@@DATA@@", body), len(frames)
