"""The viewer's page, style sheet and script: real files in ``replay/viewer/``, read as package
data (``importlib.resources``) and inlined into every rendered HTML file by :mod:`replay.html`.

The page needs no network: the match data sits in a ``<script type="application/json">``
element and the script draws the dungeon as SVG from it. Markers ``@@NAME@@`` in the page are
filled by :mod:`replay.html`.

The script is pinned to one log schema (``VIEWER_SCHEMA``) and refuses data of another. For
tests and links, ``?step=N`` opens the viewer at step N, ``?slide=N`` then moves the step slider
to N as a user would, and ``?result`` shows the result from the start; the current step is
mirrored in ``<html data-step>``, and each agent's ``<g class="agent">`` carries ``data-node``
and its ``transform``.
"""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["asset", "page_parts"]


@functools.cache
def asset(name: str) -> str:
    """The text of ``replay/viewer/NAME`` (``viewer.html``, ``viewer.css``, ``viewer.js``)."""
    return resources.files("replay").joinpath("viewer", name).read_text(encoding="utf-8")


def page_parts() -> tuple[str, str, str]:
    """The page template, its style sheet and its script."""
    return asset("viewer.html"), asset("viewer.css"), asset("viewer.js")
