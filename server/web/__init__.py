"""The project's one web layer: Starlette pages served by Hypercorn's trio worker inside the
caller's nursery, live updates as server-sent events, shared static assets, a 404 page.

    app = web_app(routes, {"labyrinth": "labyrinth"})  # + /static/..., /labyrinth/..., 404
    port = await nursery.start(serve_web, app, "127.0.0.1", 0)

Nothing here knows any game: pages of a game build on :func:`page`, :class:`Broadcaster` (or
:func:`event_stream` for a page polling its own state) and serve their own assets through
``web_app``'s ``assets``. Its users: the Labyrinth teacher's page (server/labyrinth/web.py) and the
dungeon's live page (server/competition/web.py).

May import the standard library, trio, Starlette and Hypercorn only: never a game
(:mod:`dungeon`, :mod:`fish`, :mod:`penguins`, :mod:`labyrinth`, :mod:`floes`), :mod:`protocol`,
:mod:`client`, :mod:`replay`, :mod:`sim`, :mod:`arena` or the dungeon's server modules
(import-linter contract "The one web layer is game-neutral").
"""

from server.web.app import serve_web, web_app
from server.web.page import escape, page
from server.web.sse import Broadcaster, event_stream, sse_event, sse_response, sse_text

__all__ = [
    "Broadcaster",
    "escape",
    "event_stream",
    "page",
    "serve_web",
    "sse_event",
    "sse_response",
    "sse_text",
    "web_app",
]
