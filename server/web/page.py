"""The HTML frame every page shares: the project's CSS and script, a header and a body."""

from __future__ import annotations

import html
from collections.abc import Sequence

__all__ = ["escape", "page"]


def escape(text: object) -> str:
    """``text`` safe inside HTML (element content and quoted attributes)."""
    return html.escape(str(text), quote=True)


def page(
    title: str, body: str, scripts: Sequence[str] = (), nav: str = "", styles: Sequence[str] = ()
) -> str:
    """A whole HTML page: ``body`` is trusted HTML; ``scripts`` and ``styles`` are URLs of
    extra scripts and style sheets (a game's own)."""
    tags = "".join(f'<link rel="stylesheet" href="{escape(url)}">' for url in styles)
    tags += "".join(f'<script src="{escape(url)}" defer></script>' for url in scripts)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title>"
        "<link rel='stylesheet' href='/static/arena.css'>"
        f"<script src='/static/arena.js' defer></script>{tags}</head><body>"
        f"<header><a class='brand' href='/'>Dungeon Arena</a>{nav}</header>"
        f"<main>{body}</main></body></html>"
    )
