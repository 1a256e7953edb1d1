"""The pages under attack, as a user on the network would try them (loopback only, bounded):
what a user wrote stays text, no route serves a file outside its own, and a crowd of live
subscribers neither stalls the page nor loses an event."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cdp import CHROMIUM, Browser
from labyrinth_kit import memory_client
from web_client import http

from server.competition.board import Board
from server.competition.web import build_app
from server.labyrinth.server import LabyrinthServer
from server.labyrinth.web import teacher_app
from server.web import serve_web
from server.web.auth import TeacherGate

#: A match name and a result as hostile as a user can write them.
HOSTILE_NAME = "</script><script>window.pwned=1</script>"
HOSTILE_RESULT = "<img src=x onerror=window.pwned=2> wins \u202e\x07"

#: Paths that try to climb out of a route's folder, plain and percent-encoded.
TRAVERSALS = [
    "/static/../../../../etc/passwd",
    "/static/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/static/%2e%2e%2f%2e%2e%2fsecret.html",
    "/dungeon/..%2fweb.py",
    "/labyrinth/..%2f..%2fserver%2fweb%2fauth.py",
    "/replay/..%2fsecret",
    "/replay/%2e%2e%2fsecret",
    "/replay/....%2f%2fsecret",
    "/game/..%2f..%2fetc%2fpasswd/log",
    "/live/..%2fsecret",
]


def hostile_board() -> Board:
    board = Board("class <b>cs312</b>")
    board.start(HOSTILE_NAME, None)
    board.finish(HOSTILE_NAME, HOSTILE_RESULT, None)
    return board


async def test_what_a_user_wrote_is_escaped_in_the_tournament_page_html() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, build_app(hostile_board()), "127.0.0.1", 0)
        status, _, body = await http(port, "/")
        assert status == 200
        assert "<script>window.pwned" not in body
        assert "<img src=x" not in body
        assert "<b>cs312</b>" not in body
        assert "class &lt;b&gt;cs312&lt;/b&gt;" in body
        nursery.cancel_scope.cancel()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
async def test_in_a_browser_a_hostile_match_name_runs_nothing_and_reads_as_written(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, build_app(hostile_board()), "127.0.0.1", 0)
        browser = await trio.to_thread.run_sync(Browser, tmp_path / "profile")
        try:
            page = await trio.to_thread.run_sync(browser.open, f"http://127.0.0.1:{port}/")
            rows = await trio.to_thread.run_sync(
                page.wait_for, "document.getElementById('match-rows').textContent"
            )
            assert HOSTILE_NAME in rows
            assert "<img src=x onerror=window.pwned=2>" in rows
            assert await trio.to_thread.run_sync(page.evaluate, "window.pwned === undefined")
            images = await trio.to_thread.run_sync(page.evaluate, "document.images.length")
            assert images == 0
        finally:
            await trio.to_thread.run_sync(browser.close)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("path", TRAVERSALS)
async def test_no_route_serves_a_file_outside_its_own(path: str, tmp_path: Path) -> None:
    """The tournament's pages (with an output folder) and the Labyrinth teacher's page answer
    404 to every climbing path, and never with a file's content."""
    out = tmp_path / "out"
    (out / "replays").mkdir(parents=True)
    (tmp_path / "secret.html").write_text("SECRET")
    (out / "secret.html").write_text("SECRET")
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        apps = (build_app(Board("t"), out), teacher_app(server, TeacherGate("t0k")))
        for app in apps:
            port = await nursery.start(serve_web, app, "127.0.0.1", 0)
            status, _, body = await http(port, path)
            assert status in (400, 404), (path, status)
            assert "SECRET" not in body
            assert "root:" not in body
            assert "import" not in body
        nursery.cancel_scope.cancel()


SUBSCRIBERS = 500


async def test_five_hundred_live_subscribers_each_get_every_event_and_the_page_answers() -> None:
    """500 browsers following the Labyrinth lobby: each gets the snapshot and the next event,
    and the page still answers a request while they all listen."""
    server = LabyrinthServer(seed=3)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        app = teacher_app(server, TeacherGate("t0k"))
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        streams = []
        for _ in range(SUBSCRIBERS):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            await stream.send_all(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            streams.append(stream)
        seen = [b""] * SUBSCRIBERS

        async def read_until(index: int, count: int) -> None:
            while seen[index].count(b"event: lobby") < count:
                chunk = await streams[index].receive_some(65536)
                assert chunk, "a subscriber's stream ended"
                seen[index] += chunk

        with trio.fail_after(120):
            async with trio.open_nursery() as readers:
                for index in range(SUBSCRIBERS):
                    readers.start_soon(read_until, index, 1)
            status, _, _ = await http(port, "/")
            assert status == 200
            client = memory_client(nursery, server)
            assert await client.command("CLIENT_NAME newcomer", 1) == ["OK"]
            async with trio.open_nursery() as readers:
                for index in range(SUBSCRIBERS):
                    readers.start_soon(read_until, index, 2)
        assert all(b"newcomer" in data for data in seen)
        for stream in streams:
            await stream.aclose()
        nursery.cancel_scope.cancel()
