"""The project's one web layer: Starlette pages served by Hypercorn's trio worker inside the
caller's nursery, live updates as server-sent events, shared static assets, a 404 page.

    app = web_app(routes, title="Labyrinth")        # + /static/... and the 404 page
    port = await nursery.start(serve_web, app, "127.0.0.1", 0)

Nothing here knows any game: pages of a game build on :func:`page` and :class:`Broadcaster`.
"""

from server.web.app import serve_web, web_app
from server.web.page import escape, page
from server.web.sse import Broadcaster, sse_response

__all__ = ["Broadcaster", "escape", "page", "serve_web", "sse_response", "web_app"]
