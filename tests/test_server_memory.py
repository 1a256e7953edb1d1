"""The server's rules for sockets, driven over in-memory streams (and virtual time for timeouts).

``Server.handle`` serves any trio stream, so these tests skip TCP: the behaviour under test (the
handshake, the lobby, error answers, slow readers) does not depend on the transport, and the
start timeout can be checked with ``autojump_clock`` without waiting ten real seconds.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
import zlib
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from server_testkit import (
    SMALL,
    connect_memory,
    join_all,
    memory_match,
    neighbour,
    not_adjacent,
    running_server,
)
from structlog.testing import capture_logs

from client.strategies.solver import TrapSolver
from dungeon.engine import AGENTS, AgentId
from dungeon.traps import optimum
from protocol.encoding import encode
from protocol.messages import Dungeon, Enemy, Error, GameOver, Move, Moved, Sat, Solution, Start
from replay.matchlog import read_log
from server.connection import Connection
from server.seat import Seat

# --- the start handshake --------------------------------------------------------------------


async def test_missing_start_closes_after_the_timeout(autojump_clock: trio.abc.Clock) -> None:
    """A socket that sends nothing gets an error and is closed 10 s after it opened."""
    async with running_server() as (server, nursery):
        agent = connect_memory(server, nursery)
        opened = trio.current_time()
        rest = await agent.until_closed()
        assert trio.current_time() - opened == pytest.approx(10.0)
        assert len(rest) == 1
        assert isinstance(rest[0], Error)
        assert "no valid start within 10 s" in rest[0].message


async def test_late_start_is_refused(autojump_clock: trio.abc.Clock) -> None:
    """A start that comes after the 10 s takes no slot: the socket is closed with one error."""
    async with running_server() as (server, nursery):
        agent = connect_memory(server, nursery)
        await trio.sleep(10.5)
        with contextlib.suppress(trio.BrokenResourceError):  # the server may be gone already
            await agent.send(Start(team=0, agent=0))
        rest = await agent.until_closed()
        assert [type(message) for message in rest] == [Error]
        assert server.lobby.filling == []


@pytest.mark.parametrize(
    "first_line",
    [b'{"type": "move", "to": 1}\n', b'{"type": "solution", "assignment": []}\n', b"[1, 2]\n",
     b'{"type": "hello"}\n', b"nonsense\n"],
    ids=["move", "solution", "not-an-object", "unknown-type", "not-json"],
)  # fmt: skip
async def test_first_line_must_be_a_start(first_line: bytes) -> None:
    """A first line that is not a start is answered with one error, then the socket closes."""
    async with running_server() as (server, nursery):
        agent = connect_memory(server, nursery)
        await agent.send(first_line)
        rest = await agent.until_closed()
        assert len(rest) == 1
        assert isinstance(rest[0], Error)


async def test_invalid_start_may_be_corrected_within_the_timeout(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A malformed start is an error that keeps the socket; a valid one 5 s later still counts."""
    async with running_server() as (server, nursery):
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
        fixer = agents[AgentId(0, 0)]
        await fixer.send(b'{"type": "start", "team": 7, "agent": 0}\n')
        error = await fixer.receive()
        assert isinstance(error, Error)
        assert "team" in error.message
        await trio.sleep(5)
        dungeons = await join_all(agents)
        assert dungeons[AgentId(0, 0)].agent == 0


async def test_refused_slot_retry_after_the_timeout_is_closed(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A socket refused a slot keeps only the same 10 s to find another one."""
    async with running_server() as (server, nursery):
        holder, rival = connect_memory(server, nursery), connect_memory(server, nursery)
        await holder.send(Start(team=0, agent=0, match="m"))
        await trio.sleep(1)
        await rival.send(Start(team=0, agent=0, match="m"))
        assert isinstance(await rival.receive(), Error)
        rest = await rival.until_closed()
        assert trio.current_time() == pytest.approx(10.0, abs=0.1)
        assert [type(message) for message in rest] == [Error]


async def test_socket_closing_while_filling_frees_its_slot() -> None:
    """A socket that leaves before the match begins frees its slot for another socket."""
    async with running_server() as (server, nursery):
        quitter = connect_memory(server, nursery)
        await quitter.send(Start(team=1, agent=2, match="m"))
        await quitter.aclose()
        await trio.testing.wait_all_tasks_blocked()
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
        dungeons = await join_all(agents, match="m")
        assert dungeons[AgentId(1, 2)].team == 1


async def test_name_is_free_again_once_its_match_is_over() -> None:
    """After a named match ends (here by forfeit), a new match may take its name."""
    async with running_server() as (server, nursery):
        agents, _ = await memory_match(server, nursery, match="again")
        for slot, agent in agents.items():
            if slot.team == 1:
                await agent.aclose()
        assert await agents[AgentId(0, 0)].receive_a(GameOver) == GameOver(winner=0)
        await trio.testing.wait_all_tasks_blocked()
        _, dungeons = await memory_match(server, nursery, match="again")
        assert len(dungeons) == 12
        assert len(server.finished) == 2


async def test_unnamed_and_named_matches_do_not_mix() -> None:
    """A start without a name never joins a named match, and the other way round."""
    async with running_server() as (server, nursery):
        named = connect_memory(server, nursery)
        await named.send(Start(team=0, agent=0, match="private"))
        await trio.testing.wait_all_tasks_blocked()
        _, dungeons = await memory_match(server, nursery)
        assert len(dungeons) == 12
        assert [m.name for m in server.lobby.filling] == ["private"]


# --- requests during a match ----------------------------------------------------------------


async def test_requests_before_dungeon_are_answered_after_it() -> None:
    """Requests sent while the match fills are held, then each answered with an error after it."""
    async with running_server() as (server, nursery):
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
        early = agents[AgentId(0, 3)]
        await early.send(Start(team=0, agent=3))
        await early.send(Move(to=1))
        await early.send(Solution(assignment=[True] * 20))
        await trio.testing.wait_all_tasks_blocked()
        assert early.received == []  # nothing before `dungeon`
        await join_all({slot: a for slot, a in agents.items() if a is not early})
        first = await early.receive()
        assert isinstance(first, Dungeon)
        errors = []
        while len(errors) < 2:
            message = await early.receive()
            assert isinstance(message, Enemy | Error)
            if isinstance(message, Error):
                errors.append(message)
        assert all("before dungeon" in error.message for error in errors)


INVALID = {
    "not adjacent": lambda d, here: Move(to=not_adjacent(d, here)),
    "no such node": lambda d, here: Move(to=len(d.nodes) + 5),
    "enemy start": lambda d, here: Move(to=d.start[1 - d.team]),
    "enemy shrine": lambda d, here: Move(to=d.shrine[1 - d.team]),
    "solution without move": lambda d, here: Solution(assignment=[True] * 20),
    "second start": lambda d, here: Start(team=d.team, agent=d.agent),
    "missing field": lambda d, here: b'{"type": "move"}\n',
    "mistyped field": lambda d, here: b'{"type": "move", "to": "north"}\n',
    "unknown type": lambda d, here: b'{"type": "teleport", "to": 3}\n',
    "not an object": lambda d, here: b"[1, 2, 3]\n",
    "server message": lambda d, here: b'{"type": "game_over", "winner": 0}\n',
}


@pytest.mark.parametrize("case", sorted(INVALID))
async def test_invalid_request_is_an_error_and_changes_nothing(case: str) -> None:
    """Each invalid request gets one error; the agent stays free and its socket open."""
    async with running_server() as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(0, 2)
        agent, dungeon = agents[slot], dungeons[slot]
        here = dungeon.start[0]
        await agent.send(INVALID[case](dungeon, here))
        error = await agent.receive_a(Error)
        assert error.message
        # Nothing changed: the agent is still free, on its start, and may move as usual.
        await agent.send(Move(to=neighbour(dungeon, here)))
        sat = await agent.receive_a(Sat)
        assert sat.switches == 20
        errors = [m for m in agent.received if isinstance(m, Error)]
        assert errors == [error]


async def test_committed_agent_cannot_move_again_or_send_a_short_solution() -> None:
    """A second move while committed, and a solution of the wrong length, are errors."""
    async with running_server() as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(1, 1)
        agent, dungeon = agents[slot], dungeons[slot]
        target = neighbour(dungeon, dungeon.start[1])
        await agent.send(Move(to=target))
        await agent.receive_a(Sat)
        await agent.send(Move(to=target))
        assert "already committed" in (await agent.receive_a(Error)).message
        await agent.send(Solution(assignment=[True] * 3))
        assert "3 values for 20 switches" in (await agent.receive_a(Error)).message
        await agent.send(Solution(assignment=[True] * 20))
        moved = await agent.receive_a(Moved)
        assert moved.reason in {"crossed", "trap"}


async def test_hundredth_error_closes_the_socket() -> None:
    """The 99th error leaves the socket open; the 100th is sent and then the socket closes."""
    async with running_server() as (server, nursery):
        agents, _ = await memory_match(server, nursery)
        agent = agents[AgentId(0, 4)]
        for _ in range(99):
            await agent.send(b'{"type": "move"}\n')
        for _ in range(99):
            await agent.receive_a(Error)
        await agent.send(b'{"type": "move"}\n')
        rest = await agent.until_closed()
        assert sum(isinstance(m, Error) for m in agent.received) == 100
        assert isinstance(rest[-1], Error)


# --- slow and absent clients ----------------------------------------------------------------


class NeverReads(trio.abc.Stream):
    """A client stream that sends but never reads (the server's writes pile up)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self.stream.aclose()


async def test_client_that_never_reads_is_dropped_and_the_match_goes_on() -> None:
    """A socket whose client stops reading is disconnected; the others play on undisturbed."""
    with capture_logs() as logs:
        async with running_server(outbox_size=12) as (server, nursery):
            silent = AgentId(1, 5)
            agents = {slot: connect_memory(server, nursery) for slot in AGENTS if slot != silent}
            client, server_side = trio.testing.lockstep_stream_pair()
            nursery.start_soon(server.handle, server_side)
            await client.send_all(encode(Start(team=1, agent=5)))
            dungeons = await join_all(agents)
            # Team 0's heir walks to and fro: every step of it is two `enemy` lines for each
            # agent of team 1, so the silent socket's writer batch (64) and outbox (12) fill.
            heir, dungeon = agents[AgentId(0, 0)], dungeons[AgentId(0, 0)]
            start = dungeon.start[0]
            step = neighbour(dungeon, start, avoid={dungeon.start[1], dungeon.shrine[1]})
            here, solver = start, TrapSolver(1)
            for _ in range(70):
                await heir.send(Move(to=step if here == start else start))
                sat = await heir.receive_a(Sat)
                await heir.send(Solution(assignment=solver.solve(sat.traps, sat.switches)))
                here = (await heir.receive_a(Moved)).location
            # Team 1's other agents heard every step and can still act.
            watcher = agents[AgentId(1, 0)]
            await watcher.send(Move(to=neighbour(dungeons[AgentId(1, 0)], dungeon.start[1])))
            assert isinstance(await watcher.receive_a(Sat), Sat)
            assert sum(isinstance(m, Enemy) for m in watcher.received) >= 120
            await client.aclose()
    killed = [entry for entry in logs if entry["event"] == "connection_killed"]
    assert [(entry["reason"], entry["slot"]) for entry in killed] == [("outbox_full", silent)]


# --- optimum checks -------------------------------------------------------------------------


def exact_optimum(traps: list[list[int]], switches: int) -> int:
    return optimum(traps, switches)


def broken_checker(traps: list[list[int]], switches: int) -> int:
    raise RuntimeError("checker crashed")


async def play_three_crossings_then_forfeit(tmp_path: Path, checker: object) -> None:
    # A generous grace: the checks run in real threads, and a loaded machine must not turn a
    # late optimum into "unknown" here (the grace's own cut-off is not what this test is about).
    options = {"log_dir": tmp_path, "checker": checker, "check_grace": 60.0}
    async with running_server(**options) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(0, 1)
        agent, dungeon = agents[slot], dungeons[slot]
        here = dungeon.start[0]
        for _ in range(3):
            await agent.send(
                Move(to=neighbour(dungeon, here, avoid={dungeon.start[1], dungeon.shrine[1]}))
            )
            await agent.receive_a(Sat)
            await agent.send(Solution(assignment=[False] * 20))
            here = (await agent.receive_a(Moved)).location
        for other, socket in agents.items():  # team 1 forfeits: the match ends normally
            if other.team == 1:
                await socket.aclose()
        await agent.receive_a(GameOver)
        await server.wait_no_matches()  # every check answered and logged, the log closed


@pytest.mark.parametrize("checker", [exact_optimum, broken_checker], ids=["exact", "broken"])
async def test_every_trap_problem_gets_its_optimum_logged(tmp_path: Path, checker: object) -> None:
    """Each crossing's optimum is logged (unknown when the check fails); the match is unharmed."""
    with capture_logs() as logs:
        await play_three_crossings_then_forfeit(tmp_path, checker)
    failures = [entry for entry in logs if entry["event"] == "optimum_check_failed"]
    assert len(failures) == (3 if checker is broken_checker else 0)
    [path] = sorted(tmp_path.glob("*.jsonl*"))
    log = read_log(path)
    assert log.complete
    problems = {
        line.data["crossing"]: line.data for line in log.outputs if line.event == "trap_problem"
    }
    optima = {line.data["crossing"]: line.data["value"] for line in log.optima}
    assert set(optima) == set(problems)
    for crossing, value in optima.items():
        expected = (
            None if checker is broken_checker
            else optimum(problems[crossing]["traps"], problems[crossing]["switches"])
        )  # fmt: skip
        assert value == expected


async def test_match_is_a_draw_after_the_time_limit(
    tmp_path: Path, autojump_clock: trio.abc.Clock
) -> None:
    """A match still running when its wall-time limit passes ends as a draw for all twelve."""
    config = SMALL.replace(draw_seconds=30.0)
    async with running_server(config=config, log_dir=tmp_path) as (server, nursery):
        agents, _ = await memory_match(server, nursery)
        began = trio.current_time()
        for agent in agents.values():
            assert await agent.receive_a(GameOver) == GameOver(winner=None)
        assert trio.current_time() - began == pytest.approx(30.0, abs=0.5)
        await server.wait_no_matches()
    [path] = sorted(tmp_path.glob("*.jsonl*"))
    log = read_log(path)
    assert log.complete
    assert [line.data["kind"] for line in log.inputs] == ["time_up"]


async def test_client_sending_errors_without_reading_is_dropped_before_its_start(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A socket that sends bad lines but never reads its errors is closed, even before start."""
    with capture_logs() as logs:
        async with running_server(outbox_size=4) as (server, nursery):
            client, server_side = trio.testing.lockstep_stream_pair()
            nursery.start_soon(server.handle, server_side)
            with contextlib.suppress(trio.BrokenResourceError):  # closed while we still send
                for _ in range(20):
                    await client.send_all(b'{"type": "start"}\n')  # missing fields: not fatal
            await trio.testing.wait_all_tasks_blocked()
            killed = [entry for entry in logs if entry["event"] == "connection_killed"]
            assert [entry["reason"] for entry in killed] == ["outbox_full"]
            await client.aclose()


async def test_errors_the_server_answers_are_in_its_own_log() -> None:
    """Each error the server answers outside the engine (a bad start, a line that is not JSON)
    is also an `error_sent` event of its own log, with the connection: who misbehaved, and how."""
    with capture_logs() as logs:
        async with running_server() as (server, nursery):
            fixer = connect_memory(server, nursery)
            await fixer.send(b'{"type": "start", "team": 7, "agent": 0}\n')
            error = await fixer.receive()
            closer = connect_memory(server, nursery)
            await closer.send(b"nonsense\n")
            [refusal] = await closer.until_closed()
    assert isinstance(error, Error)
    assert isinstance(refusal, Error)
    sent = [entry for entry in logs if entry["event"] == "error_sent"]
    assert [entry["message"] for entry in sent] == [error.message, refusal.message]
    assert sent[0]["conn"] != sent[1]["conn"]
    assert sent[1]["closing"] is True


async def test_a_line_that_is_not_json_during_play_is_the_clients_fault() -> None:
    """A socket closed for a fatal line after ``dungeon`` is reported as its client's fault
    (a tournament says ``protocol_error``), as it is before the match begins."""
    closed: list[Connection] = []

    def observe(what: str, subject: object) -> None:
        if what == "closed" and isinstance(subject, Connection):
            closed.append(subject)

    async with running_server(observer=observe) as (server, nursery):
        agents, _ = await memory_match(server, nursery)
        garbler = agents[AgentId(1, 2)]
        await garbler.send(b"this is not JSON\n")
        [refusal] = [m for m in await garbler.until_closed() if isinstance(m, Error)]
        with trio.fail_after(5):
            while not closed:
                await trio.sleep(0.01)
        assert [conn.slot for conn in closed] == [AgentId(1, 2)]
    assert isinstance(refusal, Error)
    assert refusal.code == "bad_json"
    assert closed[0].fault == refusal.message
    assert all(conn.fault is None for conn in closed[1:])  # the others left at the shutdown


# --- the match log on disk, and what a finished match leaves behind -------------------------


async def test_every_line_of_a_request_is_on_disk_before_its_answer_is_sent(
    tmp_path: Path,
) -> None:
    """The server flushes the match log once per request, not per line, but before it sends
    anything: when a client has the answer, the request and all it caused are in the file."""
    async with running_server(log_dir=tmp_path) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(0, 1)
        agent, dungeon = agents[slot], dungeons[slot]
        avoid = {dungeon.start[1], dungeon.shrine[1]}
        await agent.send(Move(to=neighbour(dungeon, dungeon.start[0], avoid=avoid)))
        sat = await agent.receive_a(Sat)
        [path] = sorted(tmp_path.glob("*.jsonl*"))
        log = read_log(path)  # read from the file, as another process would
        assert log.bad is None
        assert log.inputs[-1].data["message"]["type"] == "move"
        sent = log.outputs[-1]
        assert sent.event == "send"
        assert (sent.data["to"], sent.data["message"]["traps"]) == (
            [0, 1],
            [list(t) for t in sat.traps],
        )
        await agent.send(Solution(assignment=[False] * sat.switches))
        moved = await agent.receive_a(Moved)
        log = read_log(path)
        assert log.inputs[-1].data["message"]["type"] == "solution"
        answers = [  # the crossing's answer; an `enemy` sighting may follow it
            line.data["message"]
            for line in log.outputs
            if line.event == "send"
            and line.data["to"] == [0, 1]
            and line.data["message"]["type"] == "moved"
        ]
        assert answers[-1]["location"] == moved.location


async def test_a_backlog_is_answered_after_all_its_lines_are_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests already waiting when the actor wakes are applied in one step (one log write, one
    socket write each); no answer reaches a socket before every line written so far is in the
    file, and each input's lines stay together, followed by its own answer."""
    async with running_server(log_dir=tmp_path) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        [actor] = server.actors
        [path] = sorted(tmp_path.glob("*.jsonl*"))
        on_disk_at_delivery: list[bool] = []
        deliver = Seat.deliver

        def checked_deliver(seat: Seat, items: list[Any]) -> bool:
            assert actor.log_lines_written is not None
            # As another process would see it: a digest log's flushed stream, decompressed.
            on_disk = zlib.decompressobj(31).decompress(path.read_bytes()).count(b"\n")
            on_disk_at_delivery.append(on_disk == actor.log_lines_written)
            return deliver(seat, items)

        monkeypatch.setattr(Seat, "deliver", checked_deliver)
        batch_before = actor.largest_batch
        async with trio.open_nursery() as senders:  # the twelve at once: a backlog
            for slot, agent in agents.items():
                here = dungeons[slot].start[slot.team]
                senders.start_soon(agent.send, Move(to=not_adjacent(dungeons[slot], here)))
        for agent in agents.values():
            error = await agent.receive_a(Error)
            assert "is not adjacent" in error.message
    assert on_disk_at_delivery
    assert all(on_disk_at_delivery)
    assert actor.largest_batch > 1  # the backlog was served in one step
    assert batch_before <= 1  # before it, one request at a time at most
    requester, answered = None, 0
    for line in read_log(path).events:
        event = line.data
        if event["event"] == "input":
            requester = [event.get("team"), event.get("agent")]
        elif event["event"] == "send" and event["message"]["type"] == "error":
            assert event["to"] == requester
            answered += 1
    assert answered == 12


async def test_a_finished_match_is_freed_without_the_cycle_collector() -> None:
    """Once a match is over its engine and sockets are freed by reference counting alone (the
    server freezes live objects out of the collector's sight, so a cycle would leak them)."""
    gc.collect()
    gc.disable()
    try:
        async with running_server() as (server, nursery):
            agents, _ = await memory_match(server, nursery)
            [actor] = server.actors
            assert actor.engine is not None
            engine = weakref.ref(actor.engine)
            sockets = [weakref.ref(conn) for conn in actor.filling.seats.values()]
            assert len(sockets) == 12
            for slot, agent in agents.items():
                if slot.team == 1:
                    await agent.aclose()
            assert await agents[AgentId(0, 0)].receive_a(GameOver) == GameOver(winner=0)
            for slot, agent in agents.items():
                if slot.team == 0:
                    await agent.aclose()
            await server.wait_no_matches()
            await trio.testing.wait_all_tasks_blocked()
            assert engine() is None
            assert [conn() for conn in sockets] == [None] * 12
            assert server.finished == [actor]  # its result (winner, log path) is still there
            assert actor.winner == 0
    finally:
        gc.enable()
