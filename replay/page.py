"""One viewer for every game: the page of a match, from the viewer's data.

The data (JSON, inlined in the page; ``VIEW_SCHEMA``) is what the shell reads, whatever the
game: ``schema``, ``game``, ``title``, ``players`` (names by seat), ``colors`` (a CSS colour
by seat), ``seed`` (a string: a JavaScript number would round a 64-bit seed), ``facts`` (more
``[name, value]`` pairs for the header), ``result`` (``{"text", "winner"}``, None when the log
ends first), ``over`` (False: the log ends before the match does), ``live`` (the URL of the
server-sent events that continue it, or None), ``running`` (optional: True for a snapshot
of a match still being played, with no events to follow), ``standings`` (a link back, or None),
``warning``, and ``frames``: one per step, each with ``notes`` (``[kind, text]`` pairs) and,
when known, ``t`` (seconds since the start); the rest of each frame and of the data is the
drawing's (``replay/viewer/DRAWING.js``).

Each game builds its data in a small frame builder of its own (``replay.html`` for the
dungeon, ``fish.replay``, ``penguins.replay``, ``labyrinth.replay``): swapping the log reader
under one is a one-line change there.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from replay.framepack import pack_frames, packed_text
from replay.viewer_assets import page_parts

__all__ = ["VIEW_SCHEMA", "render_page", "script_json"]

#: The version of the viewer's data; the shell refuses data of another one.
VIEW_SCHEMA = 1
#: A longer match's page holds its first frames in the data and the rest in a script element
#: after the viewer's script (``total``: all of them), read once the first step is drawn:
#: packed by column and compressed (replay/framepack.py) when they all have the same keys.
FILE_WINDOW = 3000
_MARKER = re.compile(r"@@([A-Z]+)@@")


def script_json(data: Any) -> str:
    """``data`` as JSON that can sit inside a ``<script>`` element: "</" could end it early and
    "<!--" confuse the parser, so every "<" is written "\\u003c", the same to JSON.parse."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")


def render_page(
    data: dict[str, Any], drawing: str, brand: str, version: str = "", frames: str | None = None
) -> str:
    """The self-contained viewer page of ``data`` drawn by ``drawing`` (no network: the style,
    the scripts and the data are inlined); ``frames``: the JSON text of the frames, when
    ``data`` holds none (a server splices what it already has as text)."""
    template, css, shell, draw = page_parts(drawing)
    more = ""
    if frames is None and len(data.get("frames", ())) > FILE_WINDOW:
        # A long match: the first frames come with the data, the others after the script, which
        # draws the first step before the browser has parsed them, then reads them.
        data = dict(data)
        rest = data["frames"][FILE_WINDOW:]
        data["frames"] = data["frames"][:FILE_WINDOW]
        data["total"] = FILE_WINDOW + len(rest)
        packed = pack_frames(rest)
        if packed is None:
            more = f'<script type="application/json" id="more-frames">{script_json(rest)}</script>'
        else:
            more = (
                '<script type="application/octet-stream" id="more-frames" '
                f'data-encoding="gzip+base64">{packed_text(packed)}</script>'
            )
    text = script_json(data)
    if frames is not None:
        text = text[:-1] + ',"frames":' + frames.replace("<", "\\u003c") + "}"

    name = data.get("title") or (f"seed {data['seed']}" if data.get("seed") else "a match")
    mode = "live" if data.get("live") else "replay"
    values = {
        "CSS": css,
        "SCRIPT": shell.replace("@@SCHEMA@@", str(VIEW_SCHEMA)),
        "DRAWING": draw,
        "GAME": html.escape(str(data.get("game", drawing))),
        "BRAND": html.escape(brand),
        "TITLE": html.escape(f"{brand} {mode}: {name}"),
        "VERSION": html.escape(version),
        "SCHEMA": str(VIEW_SCHEMA),
        "DATA": text,
        "MORE": more,
    }
    return _MARKER.sub(lambda match: values[match.group(1)], template)
