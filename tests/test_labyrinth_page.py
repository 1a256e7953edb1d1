"""The teacher's page of the Labyrinth server (labyrinth/web.py), in a headless Chromium and over
HTTP: the lobby lists the connected programs, running and finished games and tournaments (drawn
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

from labyrinth.server import LabyrinthServer
from labyrinth.web import teacher_app
from server.web import serve_web

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
        port = await nursery.start(serve_web, teacher_app(server), "127.0.0.1", 0)
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
        # The replay's script drew its first step: the maze and where it stands.
        assert re.search(r'<span id="where">turn 0 \(0/\d+\)</span>', dom)
        assert dom.count('<div class="a">A</div>') == 1
        dom = await chromium_dom(f"{base}/no/such/page", tmp_path / "p4")
        assert "There is no page at <code>/no/such/page</code>" in dom
        nursery.cancel_scope.cancel()


async def test_the_actions_pair_programs_and_run_a_tournament_and_events_follow() -> None:
    server = LabyrinthServer(seed=2)
    async with trio.open_nursery() as nursery:
        await lobby_with_everything(nursery, server)
        app = teacher_app(server)
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        status, _, body = await http(port, "/pair", "POST", "first=alice&second=nobody")
        assert status == 400
        assert "nobody is not waiting" in body
        events: list[str] = []

        async def follow() -> None:
            events.extend(await first_events(port, "/events", 2))

        async with trio.open_nursery() as watchers:
            watchers.start_soon(follow)
            with trio.fail_after(20):
                await app.state.lobby.wait_for_subscribers()
                status, _, body = await http(port, "/pair", "POST", "first=alice&second=bob")
        assert status == 200
        assert '"ok": true' in body or '"ok":true' in body
        assert "alice" in events[-1]
        assert '"games":[{"game":"spec-' in events[-1].replace(" ", "")

        status, _, body = await http(port, "/tournament", "POST", "name=cup&kind=league")
        assert status == 400
        assert "exists" in body
        status, _, body = await http(port, "/tournament/cup/next", "POST", "")
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
        await stream.send_all(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
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
        port = await nursery.start(serve_web, teacher_app(server), "127.0.0.1", 0)
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
        port = await nursery.start(serve_web, teacher_app(server), "127.0.0.1", 0)
        status, _, body = await http(port, "/tournament", "POST", "name=duel&kind=knockout")
        assert (status, json.loads(body)) == (200, {"ok": True})
        clients = []
        for name in ("dora", "ed"):
            client = memory_client(nursery, server)
            assert await client.command(f"CLIENT_NAME {name}", 1) == ["OK"]
            assert await client.command("WAIT_GAME TOURNAMENT duel", 1) == ["OK"]
            clients.append(client)
        status, _, body = await http(port, "/tournament/duel/next", "POST", "")
        assert status == 200
        answer = json.loads(body)
        assert answer["ok"] is True
        (game,) = answer["games"]
        assert server.games[game].table.names == ("dora", "ed")
        for client in clients:
            assert await client.receive() == game
        assert server.tournaments["duel"].phase_running
        status, _, body = await http(port, "/tournament/duel/next", "POST", "")
        assert status == 400
        assert "still running" in body
        nursery.cancel_scope.cancel()
