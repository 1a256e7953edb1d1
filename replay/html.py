"""``arena replay render -o match.html``: one self-contained HTML file that animates a match.

No network and no CDN: the page, its style and its script (``replay/viewer/``, read by
:mod:`replay.viewer_assets`)
and the match data are all inlined. The data is the timeline's frames (full positions of the
twelve agents at each step, so the slider can jump anywhere), the moves and kills of each step,
and the notes of the inputs that led to it.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from replay.matchlog import SCHEMA_VERSION, MatchLog, software_version
from replay.timeline import Timeline
from replay.viewer_assets import page_parts

__all__ = ["render_html", "viewer_data"]

_MARKER = re.compile(r"@@([A-Z]+)@@")


def _result(timeline: Timeline) -> dict[str, Any]:
    summary = timeline.summary
    if not summary.over:
        return {"winner": None, "text": "no result: the log ends first"}
    reason = f" ({summary.reason})" if summary.reason else ""
    if summary.winner is None:
        return {"winner": None, "text": f"draw{reason}"}
    return {"winner": summary.winner, "text": f"team {summary.winner} wins{reason}"}


def viewer_data(log: MatchLog, timeline: Timeline) -> dict[str, Any]:
    """The JSON the viewer script reads."""
    frames: list[dict[str, Any]] = []
    first_entry = 0
    previous_npcs = frozenset(timeline.frames[0].npcs if timeline.frames else frozenset[int]())
    for frame in timeline.frames:
        # A frame's notes: every entry since the previous frame (requests, errors) up to its own.
        notes = [
            [note.kind, note.text]
            for entry in timeline.entries[first_entry : frame.entry + 1]
            for note in entry.notes
        ]
        first_entry = frame.entry + 1
        frames.append(
            {
                "l": frame.line,
                "t": round(timeline.entries[frame.entry].t, 3),
                "p": list(frame.positions),
                "m": [list(move) for move in frame.moves],
                "k": [list(kill) for kill in frame.kills],
                "n": sorted(previous_npcs - frame.npcs),
                "notes": notes,
            }
        )
        previous_npcs = frame.npcs
    npcs = sorted(timeline.frames[0].npcs) if timeline.frames else []
    warning = None
    if log.bad is not None:
        warning = f"This log breaks at {log.bad}; the replay stops at the line before it."
    elif not log.complete:
        warning = (
            "This log is incomplete (it has no close line): the match is shown as far as it goes."
        )
    return {
        "schema": SCHEMA_VERSION,
        "header": {
            **{key: log.header.get(key) for key in ("match", "source", "version", "config")},
            # Who played, when the log says (a digest log's header); None otherwise.
            "players": log.header.get("players"),
            # A string: JavaScript numbers are doubles, and a 64-bit seed would be rounded.
            "seed": str(log.header.get("seed")),
        },
        "nodes": [[round(x, 5), round(y, 5)] for x, y in timeline.nodes],
        "edges": [list(edge) for edge in timeline.edges],
        "start": list(timeline.start),
        "shrine": list(timeline.shrine),
        "npcs": npcs,
        "frames": frames,
        "result": _result(timeline),
        "summary": timeline.summary.lines(),
        "warning": warning,
    }


def _script_json(data: dict[str, Any]) -> str:
    # Inside <script>, "</" could end the element early; "<\/" means the same to JSON.parse.
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def render_html(log: MatchLog, timeline: Timeline) -> str:
    """The viewer page for ``log``, as one string."""
    name = log.header.get("match") or f"seed {log.header.get('seed')}"
    template, css, script = page_parts()
    values = {
        "CSS": css,
        "SCRIPT": script.replace("@@SCHEMA@@", str(SCHEMA_VERSION)),
        "TITLE": html.escape(f"Dungeon Arena replay: {name}"),
        "VERSION": html.escape(software_version()),
        "SCHEMA": str(SCHEMA_VERSION),
        "DATA": _script_json(viewer_data(log, timeline)),
    }
    return _MARKER.sub(lambda match: values[match.group(1)], template)
