"""The shared web layer (server/web): an app served by Hypercorn's trio worker inside our
nursery on a loopback port, the shared assets, a 404 page for unknown URLs, and live events."""

from __future__ import annotations

import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from web_client import first_events, http

from server.web import Broadcaster, page, serve_web, sse_response, web_app


def make_app(hub: Broadcaster) -> object:
    async def home(request: Request) -> Response:
        return HTMLResponse(page("Home <test>", "<h1>Hello</h1>"))

    async def events(request: Request) -> Response:
        return sse_response(hub, lambda: ("state", {"n": 0}))

    async def crash(request: Request) -> Response:
        raise RuntimeError("boom")

    return web_app([Route("/", home), Route("/events", events), Route("/crash", crash)])


async def test_pages_assets_and_404_are_served_on_the_reported_port() -> None:
    hub = Broadcaster()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, make_app(hub), "127.0.0.1", 0)
        assert port > 0
        status, headers, body = await http(port, "/")
        assert status == 200
        assert "<title>Home &lt;test&gt;</title>" in body
        assert "/static/arena.css" in body
        for asset, kind in (("arena.css", "text/css"), ("arena.js", "javascript")):
            status, headers, body = await http(port, f"/static/{asset}")
            assert status == 200
            assert kind in headers["content-type"]
        status, _, body = await http(port, "/no/such/page?x=<b>")
        assert status == 404
        assert "There is no page at <code>/no/such/page</code>" in body
        status, _, body = await http(port, "/crash")
        assert status == 500
        assert "Server error" in body
        nursery.cancel_scope.cancel()


async def test_server_sent_events_start_with_a_snapshot_then_follow_the_publisher() -> None:
    hub = Broadcaster()
    subscribed = trio.Event()

    def snapshot() -> tuple[str, object]:
        subscribed.set()
        return "state", {"n": 0}

    async def events(request: Request) -> Response:
        return sse_response(hub, snapshot)

    app = web_app([Route("/events", events)])
    result: list[str] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        with trio.fail_after(20):
            async with trio.open_nursery() as client:

                async def follow() -> None:
                    result.extend(await first_events(port, "/events", 2))

                client.start_soon(follow)
                await subscribed.wait()
                hub.publish("move", {"turn": 1})
        nursery.cancel_scope.cancel()
    assert result == ['event: state\ndata: {"n":0}', 'event: move\ndata: {"turn":1}']


def test_a_subscriber_that_falls_behind_is_dropped_not_the_publisher() -> None:
    hub = Broadcaster(buffer=2)
    send, receive = trio.open_memory_channel[str](2)
    hub._subscribers.add(send)
    for turn in range(5):
        hub.publish("move", {"turn": turn})
    assert hub.subscribers == 0
    assert receive.receive_nowait().startswith("event: move")
