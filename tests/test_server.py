"""The dungeon server over real loopback sockets: whole matches, several at once, sockets that
misbehave or vanish, and a shutdown in the middle of a match.

Every test binds port 0 on 127.0.0.1 and uses a small dungeon so a match lasts well under a
second. Timeouts are tested in virtual time elsewhere (test_server_memory.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from server_testkit import SMALL, RawAgent, join_all, neighbour

from client.strategies.base import make_strategy
from client.team import TeamResult, connect_team
from dungeon.engine import AGENTS, AgentId
from protocol.messages import Dungeon, Error, GameOver, Move, Sat, ServerMessage, Start
from replay.matchlog import read_log
from server.app import Server, serve

HOST = "127.0.0.1"


async def start_server(
    nursery: trio.Nursery, log_dir: Path, shutdown: trio.Event | None = None, **options: Any
) -> int:
    options.setdefault("seed", 2026)  # the same dungeons every run (the test's moves rely on them)
    server = Server(config=SMALL, log_dir=log_dir, **options)
    port: int = await nursery.start(partial(serve, server, host=HOST, port=0, shutdown=shutdown))
    return port


@asynccontextmanager
async def serving(log_dir: Path, **options: Any) -> AsyncIterator[int]:
    """A server on a free port; on exit it shuts down and every match log is closed."""
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        yield await start_server(nursery, log_dir, shutdown=shutdown, **options)
        shutdown.set()


@asynccontextmanager
async def raw_agents(port: int) -> AsyncIterator[dict[AgentId, RawAgent]]:
    """Twelve TCP sockets (one per slot), closed on exit."""
    agents = {slot: RawAgent(await trio.open_tcp_stream(HOST, port)) for slot in AGENTS}
    try:
        yield agents
    finally:
        for agent in agents.values():
            await agent.aclose()


async def play_pair(
    port: int, strategies: tuple[str, str], seed: int, match: str | None = None
) -> list[TeamResult]:
    results: list[TeamResult] = []
    async with trio.open_nursery() as nursery:
        for team in (0, 1):

            async def play(team: int = team) -> None:
                strategy = make_strategy(strategies[team], team, seed + team)
                results.append(
                    await connect_team(HOST, port, team=team, strategy=strategy, match=match)
                )

            nursery.start_soon(play)
    return sorted(results, key=lambda result: result.team)


def logs_in(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.jsonl*"))


async def test_full_match_end_to_end(tmp_path: Path) -> None:
    """Two teams play a whole match over twelve sockets; the log is complete and matches them."""
    async with serving(tmp_path, seed=11) as port:
        first, second = await play_pair(port, ("reference", "rusher"), seed=3)
    assert first.over
    assert second.over
    assert first.winner == second.winner
    assert first.crossings > 0
    [path] = logs_in(tmp_path)
    log = read_log(path)
    assert log.complete
    assert log.seed == 11
    [game_over] = [line for line in log.outputs if line.event == "game_over"]
    assert game_over.data["winner"] == first.winner
    for result in (first, second):
        crossed = [
            line for line in log.outputs
            if line.event == "crossing" and line.data["agent"][0] == result.team
        ]  # fmt: skip
        assert result.crossings == len(crossed)
    sent = [line.data["message"] for line in log.outputs if line.event == "send"]
    assert all("seed" not in message for message in sent)


async def test_several_matches_at_once(tmp_path: Path) -> None:
    """Three named and one unnamed match on one port all finish, each with its own log.

    (Teams joining unnamed matches at the same moment may be spread over several of them, as
    the spec's "oldest match with that slot free" rule says: concurrent teams use names.)
    """
    outcomes: list[list[TeamResult]] = []
    async with serving(tmp_path, seed=100) as port, trio.open_nursery() as matches:
        for index in range(4):

            async def play(index: int = index) -> None:
                name = None if index == 3 else f"match-{index}"
                outcomes.append(await play_pair(port, ("rusher", "random"), index, name))

            matches.start_soon(play)
    assert len(outcomes) == 4
    for first, second in outcomes:
        assert first.over
        assert first.winner == second.winner
    logs = [read_log(path) for path in logs_in(tmp_path)]
    assert len(logs) == 4
    assert all(log.complete for log in logs)
    names = sorted(str(log.header["match"]) for log in logs)
    assert names == ["None", "match-0", "match-1", "match-2"]


@pytest.mark.parametrize(
    "line",
    [b"this is not json\n", b'{"type": "move", "to": ' + b"1" * (2 << 20) + b"}\n"],
    ids=["not-json", "2-MiB-line"],
)
async def test_bad_line_closes_only_that_socket(tmp_path: Path, line: bytes) -> None:
    """A non-JSON or over-long line gets an error and closes its socket; the match goes on."""
    async with serving(tmp_path) as port, raw_agents(port) as agents:
        dungeons = await join_all(agents)
        culprit, player = agents[AgentId(0, 3)], agents[AgentId(0, 1)]
        async with trio.open_nursery() as sending:
            sending.start_soon(culprit.send, line)
            rest = await culprit.until_closed()
        assert any(isinstance(message, Error) for message in rest)
        start = dungeons[AgentId(0, 1)].start[0]
        await player.send(Move(to=neighbour(dungeons[AgentId(0, 1)], start)))
        assert isinstance(await player.receive_a(Sat), Sat)


async def test_two_clients_claiming_one_slot(tmp_path: Path) -> None:
    """The second claim of a slot is refused; that socket may then take a free slot."""
    async with serving(tmp_path) as port, raw_agents(port) as agents:
        claimants = [agents[AgentId(0, 0)], agents[AgentId(1, 5)]]
        for claimant in claimants:
            await claimant.send(Start(team=0, agent=0, match="duel"))
        # Two sockets' lines reach the server in no promised order: whichever start comes second
        # is refused, and the other socket holds the slot (it hears nothing until `dungeon`).
        refusals: list[tuple[RawAgent, ServerMessage | None]] = []
        async with trio.open_nursery() as waiting:

            async def await_refusal(claimant: RawAgent) -> None:
                refusals.append((claimant, await claimant.receive()))
                waiting.cancel_scope.cancel()

            for claimant in claimants:
                waiting.start_soon(await_refusal, claimant)
        [(late, refusal)] = refusals
        assert isinstance(refusal, Error)
        assert "taken" in refusal.message
        assert refusal.code == "slot_taken"
        [holder] = [claimant for claimant in claimants if claimant is not late]
        # The refused socket retries on a free slot and plays it.
        await late.send(Start(team=1, agent=5, match="duel"))
        others = {slot: agent for slot, agent in agents.items() if agent not in claimants}
        await join_all(others, match="duel")
        assert (await holder.receive_a(Dungeon)).agent == 0
        dungeon = await late.receive_a(Dungeon)
        assert (dungeon.team, dungeon.agent) == (1, 5)


async def test_team_whose_sockets_all_close_forfeits(tmp_path: Path) -> None:
    """When every socket of team 1 has closed, team 0 wins by forfeit."""
    async with serving(tmp_path) as port, raw_agents(port) as agents:
        await join_all(agents)
        for slot, agent in agents.items():
            if slot.team == 1:
                await agent.aclose()
        for slot, agent in agents.items():
            if slot.team == 0:
                assert await agent.receive_a(GameOver) == GameOver(winner=0)
                assert await agent.until_closed() == []
    [path] = logs_in(tmp_path)
    log = read_log(path)
    assert log.complete
    reasons = [line.data["reason"] for line in log.outputs if line.event == "game_over"]
    assert reasons == ["forfeit"]


async def test_a_team_whose_sockets_the_server_closed_forfeits(tmp_path: Path) -> None:
    """Sockets the server closed itself (here: after a non-JSON line) count toward a forfeit."""
    async with serving(tmp_path) as port, raw_agents(port) as agents:
        await join_all(agents)
        for slot, agent in agents.items():
            if slot.team == 1:
                await agent.send(b"this is not json\n")
                rest = await agent.until_closed()
                assert any(isinstance(message, Error) for message in rest)
        for slot, agent in agents.items():
            if slot.team == 0:
                assert await agent.receive_a(GameOver) == GameOver(winner=0)
    [path] = logs_in(tmp_path)
    log = read_log(path)
    assert log.complete
    reasons = [line.data["reason"] for line in log.outputs if line.event == "game_over"]
    assert reasons == ["forfeit"]


async def test_shutdown_mid_match_leaves_complete_logs(tmp_path: Path) -> None:
    """Shutting the server down mid-match draws it, closes every socket and completes the log."""
    shutdown = trio.Event()
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery, tmp_path, shutdown=shutdown)
        async with raw_agents(port) as agents:
            dungeons = await join_all(agents)
            heir = AgentId(1, 0)
            await agents[heir].send(Move(to=neighbour(dungeons[heir], dungeons[heir].start[1])))
            await agents[heir].receive_a(Sat)
            shutdown.set()
            for agent in agents.values():
                assert await agent.receive_a(GameOver) == GameOver(winner=None)
                assert await agent.until_closed() == []
    # serve() has returned: the nursery closed without cancelling it.
    [path] = logs_in(tmp_path)
    log = read_log(path)
    assert log.complete
    assert log.close is not None
    assert log.close.data["reason"] == "shutdown"
    assert [line.data["kind"] for line in log.inputs] == ["request", "time_up"]


def test_serve_on_a_busy_port_says_so_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena serve` on a port another program holds exits 1 with one line naming the address."""
    import socket

    from arena.serve import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = main(["--port", str(port), "--check-workers", "0", "--log-dir", str(tmp_path)])
    assert status == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize("limit", ["nope=3", "max_connections=many", "max_connections=-1"])
def test_serve_refuses_a_bad_limit_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    """`arena serve --limit` with an unknown name or a bad value exits 2, naming the flag."""
    from arena.serve import main

    status = main(["--limit", limit, "--check-workers", "0", "--log-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("arena serve: --limit ")
    assert len(err.strip().splitlines()) == 1


async def test_a_socket_gets_every_byte_in_order_even_past_its_buffer() -> None:
    """A connection writes to its socket directly: 10 MB (far past the kernel's buffer) arrive
    whole and in order while the peer reads slowly, and the peer closing reads as the end."""
    from server.net import Transport

    ours, theirs = trio.socket.socketpair()
    peer = trio.SocketStream(theirs)
    transport = Transport(trio.SocketStream(ours))
    data = bytes(range(256)) * 40_000
    received = bytearray()

    async def read_slowly() -> None:
        while len(received) < len(data):
            received.extend(await peer.receive_some(4096))
            await trio.sleep(0)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_slowly)
        await transport.send_all(data)
    assert received == data
    await peer.send_all(b"hello\n")
    assert await transport.receive_some() == b"hello\n"
    await peer.aclose()
    assert await transport.receive_some() == b""
    with pytest.raises(trio.BrokenResourceError):
        await transport.send_all(b"x" * 10_000_000)
    await transport.aclose()


async def test_over_tcp_the_hundredth_error_and_game_over_end_the_socket(tmp_path: Path) -> None:
    """Over TCP (answers written by the match's own task when the socket's writer is idle): the
    100th error is sent and closes its socket, and a forfeit's game over is each winner's last
    line before the server closes."""
    async with serving(tmp_path) as port, raw_agents(port) as agents:
        await join_all(agents)
        noisy = agents[AgentId(0, 4)]
        for _ in range(100):
            await noisy.send(b'{"type": "move", "to": 99999}\n')
        rest = await noisy.until_closed()
        errors = [m for m in noisy.received if isinstance(m, Error)]
        assert len(errors) == 100
        assert isinstance(rest[-1], Error)
        assert [e.code for e in errors] == ["no_such_node"] * 99 + ["error_limit"]
        for slot, agent in agents.items():
            if slot.team == 1:
                await agent.aclose()
        for slot, agent in agents.items():
            if slot.team == 0 and slot.agent != 4:
                tail = await agent.until_closed()
                assert tail[-1] == GameOver(winner=0)


async def test_a_delivery_never_overtakes_bytes_the_writer_still_holds() -> None:
    """What the kernel did not take of one delivery goes to the socket's writer; a delivery
    made before the writer has sent it must queue behind it, even when the kernel has room
    again by then (the peer read meanwhile): the bytes arrive in the order delivered."""
    import socket

    from server.net import Outbox, Transport

    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    outbox: Outbox[bytes] = Outbox(
        Transport(stream), 4, render=lambda items: (b"".join(items), False), on_full=lambda: None
    )
    first = bytes(range(256)) * 40_000  # far past the kernel's buffer: some is left over
    received = bytearray()

    def read_what_is_there() -> None:
        with contextlib.suppress(BlockingIOError):
            while chunk := theirs.recv(1 << 20):
                received.extend(chunk)

    with theirs:
        async with stream, trio.open_nursery() as nursery:
            nursery.start_soon(outbox.run)
            await trio.testing.wait_all_tasks_blocked()  # the writer waits on its outbox
            assert outbox.deliver([first])
            # The peer reads what the kernel took, so the next write would fit at once; the
            # writer has not run yet (no checkpoint since) and holds the rest of `first`.
            read_what_is_there()
            assert 0 < len(received) < len(first)
            assert outbox.deliver([b"second\n"])
            while len(received) < len(first) + 7:
                await trio.lowlevel.wait_readable(theirs)
                read_what_is_there()
            nursery.cancel_scope.cancel()
    assert received == first + b"second\n"
