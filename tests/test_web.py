"""The shared web layer (server/web): an app served by Hypercorn's trio worker inside our
nursery on a loopback port, the shared assets, a 404 page for unknown URLs, and live events."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from web_client import first_events, http

from server.web import (
    Broadcaster,
    event_stream,
    page,
    serve_web,
    sse_event,
    sse_response,
    sse_text,
    web_app,
)


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
        status, headers, body = await http(port, "/crash")
        assert status == 500
        assert "Server error" in body
        # Starlette answers a crash outside the app's middleware: the page still has them.
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
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


async def test_a_pages_own_assets_are_served_beside_the_shared_ones() -> None:
    """web_app(routes, {prefix: package}) serves the package's static/ folder as /prefix/NAME
    (the Labyrinth page's and the dungeon page's own scripts and styles); an unknown one is the
    404 page."""
    app = web_app([], {"labyrinth": "server.labyrinth", "dungeon": "server.competition"})
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        for path, kind in (
            ("/labyrinth/teacher.js", "javascript"),
            ("/dungeon/matches.js", "javascript"),
            ("/dungeon/live.css", "text/css"),
            ("/static/arena.js", "javascript"),
        ):
            status, headers, body = await http(port, path)
            assert status == 200, path
            assert kind in headers["content-type"]
            assert body
        status, _, body = await http(port, "/dungeon/nope.js")
        assert status == 404
        assert "There is no page at <code>/dungeon/nope.js</code>" in body
        nursery.cancel_scope.cancel()


async def test_an_event_stream_sends_what_its_page_yields() -> None:
    """event_stream: a page following its own state (the dungeon's live page) streams the
    events it makes, JSON data (sse_event) or text already JSON (sse_text)."""

    async def events(request: Request) -> Response:
        async def texts() -> AsyncGenerator[str, None]:
            yield sse_event("board", {"version": 1})
            yield sse_text("frames", '{"frames":[]}')

        return event_stream(texts())

    app = web_app([Route("/events", events)])
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        with trio.fail_after(20):
            found = await first_events(port, "/events", 2)
        nursery.cancel_scope.cancel()
    assert found == ['event: board\ndata: {"version":1}', 'event: frames\ndata: {"frames":[]}']


async def test_a_browser_leaving_mid_send_ends_its_subscription_at_once() -> None:
    """When the browser goes away while an event is being sent, the stream is closed with the
    response (its subscriber removed then), not left to the garbage collector: an abandoned
    async generator is finalised at a random later moment, and trio warns about it."""
    hub = Broadcaster()
    response = sse_response(hub, lambda: ("state", {"n": 0}))
    sending = trio.Event()

    async def receive() -> dict[str, object]:
        await sending.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        if message.get("body"):
            sending.set()
            await trio.sleep_forever()

    scope = {"type": "http", "asgi": {"spec_version": "2.1"}}
    with trio.fail_after(5):
        await response(scope, receive, send)
    assert sending.is_set()
    assert hub.subscribers == 0


async def raw_status(port: int, host: str) -> tuple[int, bytes]:
    """The status and the whole answer of a GET / naming ``host`` in its Host header."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(
            f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
        )
        data = b""
        while chunk := await stream.receive_some(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


async def test_a_loopback_server_answers_only_requests_addressed_to_loopback() -> None:
    """A page of another site whose name was made to resolve to 127.0.0.1 (DNS rebinding)
    reaches nothing of a server bound to loopback: 421, with the security headers."""
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, make_app(Broadcaster()), "127.0.0.1", 0)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
            status, data = await raw_status(port, host)
            assert (status, b"<h1>Hello</h1>" in data) == (200, True), host
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
            status, data = await raw_status(port, host)
            assert status == 421, host
            assert b"Hello" not in data
            assert b"only to localhost and 127.0.0.1" in data
            assert b"x-frame-options: deny" in data.lower()
        nursery.cancel_scope.cancel()


def test_only_loopback_names_are_loopback() -> None:
    from server.web.app import is_loopback

    assert all(map(is_loopback, ["127.0.0.1", "127.3.2.1", "localhost", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["0.0.0.0", "10.0.0.5", "evil.example", "::", ""]))
