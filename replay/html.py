"""``arena replay render -o match.html`` of a dungeon log: the viewer's data of the match, drawn
by ``replay/viewer/dungeon.js`` in the shell every game shares (:mod:`replay.page`).

The frames hold the full positions of the twelve agents at each step (so the slider can jump
anywhere), the moves and kills of each step, and the notes of the inputs that led to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from replay.matchlog import MatchLog, software_version
from replay.page import VIEW_SCHEMA, render_page
from replay.story import Timeline

__all__ = ["TEAM_COLORS", "frame_data", "render_html", "viewer_data"]

#: The teams' colours, as the dungeon's PNG and pages draw them.
TEAM_COLORS = ["#38bdf8", "#fb923c"]


def _result(timeline: Timeline) -> dict[str, Any] | None:
    summary = timeline.summary
    if not summary.over:
        return None
    reason = f" ({summary.reason})" if summary.reason else ""
    if summary.winner is None:
        return {"winner": None, "text": f"draw{reason}"}
    return {"winner": summary.winner, "text": f"team {summary.winner} wins{reason}"}


def frame_data(timeline: Timeline, first: int = 0) -> list[dict[str, Any]]:
    """The viewer's frames of ``timeline`` from frame ``first`` on (a followed log's timeline
    must still hold frame ``first - 1``)."""
    frames: list[dict[str, Any]] = []
    base, entry_base = timeline.frame_base, timeline.entry_base
    if first >= base + len(timeline.frames):
        return frames
    if first - 1 < base and first > 0:
        raise ValueError(f"frame {first - 1} is no longer held (the timeline starts at {base})")
    first_entry = timeline.frames[first - 1 - base].entry + 1 - entry_base if first > 0 else 0
    previous = timeline.frames[first - 1 - base].npcs if first > 0 else timeline.frames[0].npcs
    for frame in timeline.frames[first - base :]:
        # A frame's notes: every entry since the previous frame (requests, errors) up to its own.
        notes = [
            [note.kind, note.text]
            for entry in timeline.entries[first_entry : frame.entry - entry_base + 1]
            for note in entry.notes
        ]
        first_entry = frame.entry - entry_base + 1
        frames.append(
            {
                "l": frame.line,
                "t": round(timeline.entries[frame.entry - entry_base].t, 3),
                "p": list(frame.positions),
                "m": [list(move) for move in frame.moves],
                "k": [list(kill) for kill in frame.kills],
                "n": sorted(previous - frame.npcs),
                "notes": notes,
            }
        )
        previous = frame.npcs
    return frames


def viewer_data(log: MatchLog, timeline: Timeline, first: int = 0) -> dict[str, Any]:
    """The JSON the viewer reads (replay/page.py says what the shell takes; the rest is the
    dungeon drawing's: nodes, edges, starts, shrines, NPCs, and in each frame the agents'
    nodes ``p``, moves ``m``, kills ``k``, NPCs killed ``n`` and the log line ``l``); with
    ``first``, only the frames from that one on."""
    npcs = sorted(timeline.start_npcs or (timeline.frames[0].npcs if timeline.frames else ()))
    warning = None
    if log.bad is not None:
        warning = f"This log breaks at {log.bad}; the replay stops at the line before it."
    elif not log.complete:
        warning = (
            "This log is incomplete (it has no close line): the match is shown as far as it goes."
        )
    players = log.header.get("players")
    names = [str(p) for p in players] if isinstance(players, list) and len(players) == 2 else []
    header = {key: log.header.get(key) for key in ("match", "source", "version", "config")}
    return {
        "schema": VIEW_SCHEMA,
        "game": "dungeon",
        "title": log.header.get("match") or "",
        # Who played, when the log says (a digest log's header); the teams' numbers otherwise.
        "players": [f"team {team}: {name}" for team, name in enumerate(names)]
        or ["team 0", "team 1"],
        "colors": TEAM_COLORS,
        # A string: JavaScript numbers are doubles, and a 64-bit seed would be rounded.
        "seed": str(log.header.get("seed")),
        "facts": [
            ["source", str(header["source"])],
            ["nodes", str(len(timeline.nodes))],
            ["written by", str(header["version"])],
        ],
        "header": {**header, "players": players, "seed": str(log.header.get("seed"))},
        "result": _result(timeline),
        "over": timeline.summary.over,
        "live": None,
        "standings": None,
        "warning": warning,
        "nodes": [[round(x, 5), round(y, 5)] for x, y in timeline.nodes],
        "edges": [list(edge) for edge in timeline.edges],
        "start": list(timeline.start),
        "shrine": list(timeline.shrine),
        "npcs": npcs,
        "frames": frame_data(timeline, first),
        "summary": timeline.summary.lines(),
    }


def render_html(
    log: MatchLog,
    timeline: Timeline,
    standings: str | None = None,
    players: Sequence[str] = (),
) -> str:
    """The viewer page for ``log``, as one string; ``standings``: a link back to them;
    ``players``: who played team 0 and team 1 (a tournament's teams)."""
    data = viewer_data(log, timeline)
    data["standings"] = standings
    if players:
        data["players"] = [f"team {team}: {name}" for team, name in enumerate(players)]
    return render_page(data, "dungeon", "Dungeon Arena", software_version())
