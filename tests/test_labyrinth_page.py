"""The teacher's page of the Labyrinth server (server/labyrinth/web.py), in a headless Chromium and
over HTTP: the lobby lists the connected programs, running and finished games and tournaments (drawn
by the page's script, so Chromium must have run it); a game's page draws its maze, players,
treasure, energies and comments; the actions pair programs and run a tournament's phases; an
unknown URL is a 404 page; live updates arrive as server-sent events (the lobby's, and a game's
move by move); the next-phase button starts a tournament's games."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
import trio
import trio.testing
from labyrinth_kit import AsyncClient, memory_client
from web_client import first_events, http

from server.labyrinth.server import LabyrinthServer
from server.labyrinth.web import teacher_app
from server.web import serve_web
from server.web.auth import COOKIE, TeacherGate

#: The teacher's token of the pages under test, and the header a script acts with.
TOKEN = "t0ken-of-the-teacher"
TEACHER: dict[str, Any] = {"headers": {"Authorization": f"Bearer {TOKEN}"}}

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions",
]  # fmt: skip


async def chromium_dom(url: str, profile: Path) -> str:
    """The DOM of ``url`` after its scripts ran (Chromium runs beside the trio server)."""
    assert CHROMIUM is not None
    done = await trio.run_process(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return str(done.stdout.decode())


async def lobby_with_everything(nursery: trio.Nursery, server: LabyrinthServer) -> AsyncClient:
    """Two programs waiting, one tournament, one finished game, one running game (returned)."""
    await nursery.start(server.run)
    for name in ("alice", "bob"):
        client = memory_client(nursery, server)
        assert await client.command(f"CLIENT_NAME {name}", 1) == ["OK"]
        assert await client.command("WAIT_GAME", 1) == ["OK"]
    server.create_tournament("cup", "league")
    done = memory_client(nursery, server)
    await done.join("quitter", "ASTAR start=1 seed=3")
    await done.stream.aclose()
    running = memory_client(nursery, server)
    await running.join("carol", "DO_NOTHING start=0 seed=8")
    assert await running.command("PLAY_MOVE 8 0", 3) == ["OK", "0", ""]
    assert await running.command("GET_MOVE", 3) == ["OK", "8 0", "0"]
    assert await running.command("SEND_COMMENT thinking <hard>", 1) == ["OK"]
    while not server.finished:
        await trio.testing.wait_all_tasks_blocked()
    return running


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
async def test_the_page_in_a_browser_shows_players_games_tournaments_and_a_live_game(
    tmp_path: Path,
) -> None:
    server = LabyrinthServer(seed=1)
    async with trio.open_nursery() as nursery:
        await lobby_with_everything(nursery, server)
        port = await nursery.start(
            serve_web, teacher_app(server, TeacherGate(TOKEN)), "127.0.0.1", 0
        )
        base = f"http://127.0.0.1:{port}"

        dom = await chromium_dom(f"{base}/", tmp_path / "p1")
        players = re.search(r'<tbody id="players">(.*?)</tbody>', dom, re.S)
        assert players is not None
        for name in ("alice", "bob", "carol"):
            assert f'href="/player/{name}">{name}</a>' in players[1]
        assert players[1].count("waiting for a game") == 2
        assert re.search(r'<select name="first" id="first"><option>alice</option>', dom)
        running = next(iter(server.games))
        assert f'<a href="/game/{running}">{running}</a>' in dom
        finished = next(iter(server.finished))
        assert f'href="/game/{finished}/replay">replay</a>' in dom
        assert 'data-name="cup"' in dom
        assert "phase 0 of 0: open" in dom

        dom = await chromium_dom(f"{base}/game/{running}", tmp_path / "p2")
        lab = server.games[running].table.lab
        cells = re.findall(r'<div class="cell (\w)">', dom)
        assert len(cells) == lab.width * lab.height
        assert cells.count("a") == cells.count("b") == cells.count("t") == 1
        assert f"energy {lab.energies[0]}" in dom
        assert f"energy {lab.energies[1]}" in dom
        assert "carol: thinking &lt;hard&gt;" in dom

        dom = await chromium_dom(f"{base}/game/{finished}/replay", tmp_path / "p3")
        # The viewer drew its first step: the maze, both players, and a way back to the lobby.
        assert re.search(r'<span id="stepno" class="mono">0 / \d+</span>', dom)
        assert 'data-step="0"' in dom
        done = server.finished[finished].table.lab
        assert len(re.findall(r'<rect [^>]*class="cell( wall)?"', dom)) == done.width * done.height
        assert len(re.findall(r'<g class="player" data-seat="[01]"', dom)) == 2
        assert '<a id="home" href="/">' in dom
        dom = await chromium_dom(f"{base}/no/such/page", tmp_path / "p4")
        assert "There is no page at <code>/no/such/page</code>" in dom
        nursery.cancel_scope.cancel()


async def test_the_actions_pair_programs_and_run_a_tournament_and_events_follow() -> None:
    server = LabyrinthServer(seed=2)
    async with trio.open_nursery() as nursery:
        await lobby_with_everything(nursery, server)
        app = teacher_app(server, TeacherGate(TOKEN))
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        status, _, body = await http(port, "/pair", "POST", "first=alice&second=nobody", **TEACHER)
        assert status == 400
        assert "nobody is not waiting" in body
        events: list[str] = []

        async def follow() -> None:
            events.extend(await first_events(port, "/events", 2))

        async with trio.open_nursery() as watchers:
            watchers.start_soon(follow)
            with trio.fail_after(20):
                await app.state.lobby.wait_for_subscribers()
                status, _, body = await http(
                    port, "/pair", "POST", "first=alice&second=bob", **TEACHER
                )
        assert status == 200
        assert '"ok": true' in body or '"ok":true' in body
        assert "alice" in events[-1]
        assert '"games":[{"game":"spec-' in events[-1].replace(" ", "")

        status, _, body = await http(port, "/tournament", "POST", "name=cup&kind=league", **TEACHER)
        assert status == 400
        assert "exists" in body
        status, _, body = await http(port, "/tournament/cup/next", "POST", "", **TEACHER)
        assert status == 400
        assert "at least 2 players" in body
        foreign = await http_with_origin(port)
        assert foreign == 403
        status, _, _ = await http(port, "/game/nope")
        assert status == 404
        status, _, body = await http(port, f"/game/{next(iter(server.finished))}/log")
        assert status == 200
        assert body.splitlines()[0].startswith('{"type": "game", "format": "labyrinth-2017/1"')
        nursery.cancel_scope.cancel()


async def http_with_origin(port: int) -> int:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        request = (
            "POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n"
            "Connection: close\r\n\r\n"
        )
        await stream.send_all(request.encode())
        data = b""
        while chunk := await stream.receive_some(4096):
            data += chunk
    return int(data.split()[1])


async def follow_events(
    port: int,
    path: str,
    count: int,
    events: list[dict[str, Any]],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Read the SSE stream at ``path`` into ``events`` (each event's JSON data) until ``count``
    arrived; reports started once the first one (the snapshot: we are subscribed) is in."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        data, started = b"", False
        while len(events) < count:
            chunk = await stream.receive_some(65536)
            assert chunk, "the stream ended early"
            data += chunk.replace(b"\r\n", b"\n")
            _head, _, body = data.partition(b"\n\n")
            # Whole event blocks only; the chunked encoding's size lines are not "data:" lines.
            blocks = body.decode().split("\n\n")[:-1]
            events[:] = [
                json.loads(line.removeprefix("data: "))
                for block in blocks
                for line in block.split("\n")
                if line.startswith("data: ")
            ]
            if events and not started:
                started = True
                task_status.started()


async def test_a_game_page_streams_each_move_as_it_is_played() -> None:
    """/game/G/events starts with the position, then brings every move (the record and the
    position after it) as the program and the training player make it."""
    server = LabyrinthServer(seed=3)
    async with trio.open_nursery() as nursery:
        running = await lobby_with_everything(nursery, server)
        port = await nursery.start(
            serve_web, teacher_app(server, TeacherGate(TOKEN)), "127.0.0.1", 0
        )
        game = next(iter(server.games))
        events: list[dict[str, Any]] = []
        with trio.fail_after(20):
            async with trio.open_nursery() as watchers:
                await watchers.start(follow_events, port, f"/game/{game}/events", 3, events)
                assert await running.command("PLAY_MOVE 8 0", 3) == ["OK", "0", ""]
                assert await running.command("GET_MOVE", 3) == ["OK", "8 0", "0"]
        nursery.cancel_scope.cancel()
    snapshot, ours, theirs = events
    assert snapshot["game"] == game
    assert snapshot["state"]["turn"] == 2
    assert ours["record"] == {
        "type": "move", "turn": 3, "player": 0, "move": [8, 0], "code": 0, "energies": ANY,
    }  # fmt: skip
    assert theirs["record"]["player"] == 1
    assert theirs["state"]["turn"] == 4
    assert theirs["state"]["names"] == ["carol", "DO_NOTHING"]


async def test_the_next_phase_button_starts_a_tournaments_games() -> None:
    """With two programs waiting in a new tournament, POST /tournament/NAME/next starts the
    first phase: the answer names the game, and both programs are seated in it."""
    server = LabyrinthServer(seed=4)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        port = await nursery.start(
            serve_web, teacher_app(server, TeacherGate(TOKEN)), "127.0.0.1", 0
        )
        status, _, body = await http(
            port, "/tournament", "POST", "name=duel&kind=knockout", **TEACHER
        )
        assert (status, json.loads(body)) == (200, {"ok": True})
        clients = []
        for name in ("dora", "ed"):
            client = memory_client(nursery, server)
            assert await client.command(f"CLIENT_NAME {name}", 1) == ["OK"]
            assert await client.command("WAIT_GAME TOURNAMENT duel", 1) == ["OK"]
            clients.append(client)
        status, _, body = await http(port, "/tournament/duel/next", "POST", "", **TEACHER)
        assert status == 200
        answer = json.loads(body)
        assert answer["ok"] is True
        (game,) = answer["games"]
        assert server.games[game].table.names == ("dora", "ed")
        for client in clients:
            assert await client.receive() == game
        assert server.tournaments["duel"].phase_running
        status, _, body = await http(port, "/tournament/duel/next", "POST", "", **TEACHER)
        assert status == 400
        assert "still running" in body
        nursery.cancel_scope.cancel()


ACTIONS = [
    ("/pair", "first=alice&second=bob"),
    ("/tournament", "name=cup2&kind=league"),
    ("/tournament/cup/next", ""),
]


@pytest.mark.parametrize(("path", "fields"), ACTIONS, ids=[p for p, _ in ACTIONS])
async def test_every_action_without_the_teachers_credential_is_refused(
    path: str, fields: str
) -> None:
    """No credential, a wrong bearer token, or the login cookie without the page's CSRF token:
    refused, and nothing changes (whatever address the page binds)."""
    server = LabyrinthServer(seed=4)
    gate = TeacherGate(TOKEN)
    async with trio.open_nursery() as nursery:
        await lobby_with_everything(nursery, server)
        port = await nursery.start(serve_web, teacher_app(server, gate), "127.0.0.1", 0)
        before = (set(server.games), set(server.tournaments))
        wrong = {"Authorization": "Bearer not-the-token"}
        session = await logged_in_cookie(port)
        cookie = {"Cookie": f"{COOKIE}={session}"}
        for headers, expected in ((None, 401), (wrong, 401), (cookie, 403)):
            status, _, body = await http(port, path, "POST", fields, headers=headers)
            assert status == expected, (headers, body)
            assert json.loads(body)["ok"] is False
        assert (set(server.games), set(server.tournaments)) == before
        status, _, body = await http(
            port, path, "POST", f"{fields}&csrf={gate.csrf_token(session)}", headers=cookie
        )
        assert status in (200, 400), body  # the teacher's: taken (400 is the game's own "no")
        assert "credential" not in body
        assert "CSRF" not in body
        nursery.cancel_scope.cancel()


async def logged_in_cookie(port: int) -> str:
    """The session cookie the login form sets for the right token."""
    status, headers, _ = await http(port, "/login", "POST", f"token={TOKEN}")
    assert status == 303
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie or "SameSite=Strict" in cookie
    return cookie.split(";")[0].split("=", 1)[1]


async def test_wrong_tokens_at_the_login_form_are_rate_limited() -> None:
    """Five wrong tokens from one address in a minute, and even the right one waits."""
    server = LabyrinthServer(seed=5)
    now = [0.0]
    gate = TeacherGate(TOKEN, clock=lambda: now[0])
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        port = await nursery.start(serve_web, teacher_app(server, gate), "127.0.0.1", 0)
        for _ in range(5):
            status, _, body = await http(port, "/login", "POST", "token=guess")
            assert status == 401
            assert "wrong token" in body
        status, _, body = await http(port, "/login", "POST", f"token={TOKEN}")
        assert status == 429
        assert "too many wrong tokens" in body
        now[0] += 61
        status, _, _ = await http(port, "/login", "POST", f"token={TOKEN}")
        assert status == 303
        assert gate.throttle.failures == {}  # a guesser is forgotten once its window has passed
        nursery.cancel_scope.cancel()


async def test_a_session_cookie_of_unicode_is_a_visitor_not_a_server_error() -> None:
    """A cookie that is not ASCII (a forged or garbled session) reads the open page as a visitor
    and is refused on an action with 401; it never reaches the comparison as a 500."""
    server = LabyrinthServer(seed=6)
    gate = TeacherGate(TOKEN)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        port = await nursery.start(serve_web, teacher_app(server, gate), "127.0.0.1", 0)
        cookie = {"Cookie": f"{COOKIE}=séssion‮"}
        status, _, body = await http(port, "/", headers=cookie)
        assert status == 200, body
        assert "Log in as the teacher" in body
        status, _, body = await http(
            port, "/tournament", "POST", "name=x&kind=league", headers=cookie
        )
        assert status == 401, body
        assert "credential" in json.loads(body)["error"]
        assert "x" not in server.tournaments
        nursery.cancel_scope.cancel()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
async def test_in_a_browser_the_start_button_needs_the_teachers_login(tmp_path: Path) -> None:
    """A visitor's Start is refused with the reason and starts nothing; after the login form
    the same button starts the game."""
    from cdp import Browser

    server = LabyrinthServer(seed=6)
    async with trio.open_nursery() as nursery:
        await lobby_with_everything(nursery, server)
        port = await nursery.start(
            serve_web, teacher_app(server, TeacherGate(TOKEN)), "127.0.0.1", 0
        )
        base = f"http://127.0.0.1:{port}"
        browser = await trio.to_thread.run_sync(Browser, tmp_path / "profile")
        try:
            page = await trio.to_thread.run_sync(browser.open, f"{base}/")
            running = set(server.games)
            start = (
                "(() => { const f = document.getElementById('pair');"
                " f.first.value = 'alice'; f.second.value = 'bob';"
                " f.requestSubmit(); return true; })()"
            )
            await trio.to_thread.run_sync(page.wait_for, "document.getElementById('first').length")
            await trio.to_thread.run_sync(page.evaluate, start)
            refused = await trio.to_thread.run_sync(
                page.wait_for, "document.getElementById('pair-result').textContent"
            )
            assert "credential" in refused
            assert set(server.games) == running
            # The login form's own request, from the page: the browser keeps the cookie.
            login = (
                "fetch('/login', {method: 'POST', redirect: 'manual', body: new URLSearchParams("
                f"{{token: {json.dumps(TOKEN)}}})}}).then(() => true)"
            )
            assert await trio.to_thread.run_sync(page.evaluate, login)
            page = await trio.to_thread.run_sync(browser.open, f"{base}/")
            await trio.to_thread.run_sync(
                page.wait_for, "document.querySelector('meta[name=\"csrf-token\"]')"
            )
            await trio.to_thread.run_sync(page.wait_for, "document.getElementById('first').length")
            await trio.to_thread.run_sync(page.evaluate, start)
            started = await trio.to_thread.run_sync(
                page.wait_for,
                "document.getElementById('pair-result').textContent.startsWith('started')"
                " && document.getElementById('pair-result').textContent",
            )
            assert set(server.games) - running == {started.removeprefix("started ")}
        finally:
            await trio.to_thread.run_sync(browser.close)
        nursery.cancel_scope.cancel()
