"""The viewer's files: real files in ``replay/viewer/``, read as package data
(``importlib.resources``) and inlined into every page by :mod:`replay.page`.

``viewer.html``, ``viewer.css`` and ``viewer.js`` are the shell every game shares (header,
timeline, step controls, links, live mode); ``DRAWING.js`` and ``DRAWING.css`` draw one game's
board (``dungeon``, ``floes`` for Fish and Penguins, ``labyrinth``).

For tests and links, ``?step=N`` opens the viewer at step N, ``?slide=N`` then moves the step
slider to N as a user would, and ``?result`` shows the result from the start; the current step
is mirrored in ``<html data-step>``, the result's state in ``data-result`` (hidden, shown,
live), a live view's in ``data-live``; each dungeon agent's ``<g class="agent">`` carries
``data-node`` and its ``transform``.
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["DRAWINGS", "asset", "page_parts"]

#: The games' drawings (replay/viewer/NAME.js and NAME.css).
DRAWINGS = ("dungeon", "floes", "labyrinth")


@functools.cache
def asset(name: str) -> str:
    """The text of ``replay/viewer/NAME`` (``viewer.html``, ``viewer.css``, ``dungeon.js``...)."""
    return resources.files("replay").joinpath("viewer", name).read_text(encoding="utf-8")


def page_parts(drawing: str = "dungeon") -> tuple[str, str, str, str]:
    """The page template, its style sheet (the shell's and the drawing's), the shell's script
    and the drawing's script."""
    if drawing not in DRAWINGS:
        raise ValueError(f"no drawing {drawing!r}: the viewer draws {', '.join(DRAWINGS)}")
    css = asset("viewer.css") + asset(f"{drawing}.css")
    return asset("viewer.html"), css, asset("viewer.js"), asset(f"{drawing}.js")
