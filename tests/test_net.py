"""The shared network layer (server/net): its policy, framer, reader budgets, outbox and listener.

Memory streams and virtual time; one loopback listener on port 0.
"""

from __future__ import annotations

import dataclasses

import pytest
import trio
import trio.testing

from protocol.framing import NEED_DATA, LineFramer
from server.net import (
    CLOSE,
    DEFAULT_LIMITS,
    FrameReader,
    Gate,
    InputBudget,
    Limits,
    Outbox,
    OverBudget,
    Transport,
    serve_tcp,
)


def test_the_default_limits_are_the_documented_ones() -> None:
    """Every limit has the default docs/server.md states (a changed default changes the docs)."""
    expected = {
        "max_line_bytes": 1 << 20,
        "partial_line_bytes": (1 << 20) + 2,
        "held_requests": 16,
        "idle_seconds": None,
        "max_connections": 4096,
        "input_budget_bytes": 64 << 20,
        "outbox_messages": 512,
        "drain_seconds": 10.0,
        "receive_bytes": 1 << 14,
        "input_bytes_per_second": 1 << 20,
        "long_line_bytes_per_second": 8 << 20,
        "frames_per_step": 64,
        "linger_seconds": 2.0,
        "linger_bytes": 4 << 20,
    }
    actual = {
        field.name: getattr(DEFAULT_LIMITS, field.name) for field in dataclasses.fields(Limits)
    }
    assert actual == expected


@pytest.mark.parametrize(
    "change",
    [
        {"held_requests": -1},
        {"max_connections": 1.5j},
        {"receive_bytes": 0},
        {"linger_bytes": True},
    ],
)
def test_a_limit_out_of_range_is_refused(change: dict[str, object]) -> None:
    """Limits are checked when made: a negative, non-numeric or zero chunk size is a ValueError."""
    with pytest.raises(ValueError, match="Limits"):
        DEFAULT_LIMITS.replace(**change)


def test_the_gate_refuses_beyond_the_cap_and_the_budget() -> None:
    """A gate admits up to the connection cap, and none while the input budget is used up."""
    gate = Gate(DEFAULT_LIMITS.replace(max_connections=2, input_budget_bytes=10))
    assert gate.enter() is None
    assert gate.enter() is None
    assert "2 connections" in (gate.enter() or "")
    gate.leave()
    assert gate.budget.take(10)
    assert "input budget" in (gate.enter() or "")
    gate.budget.give_back(10)
    assert gate.enter() is None


async def test_reader_refuses_a_partial_line_past_its_budget() -> None:
    """An unfinished line longer than the connection's budget raises OverBudget."""
    client, server = trio.testing.memory_stream_pair()
    framer = LineFramer(max_line=1 << 20)
    reader = FrameReader(Transport(server), framer, DEFAULT_LIMITS.replace(partial_line_bytes=8))
    await client.send_all(b"12345678")
    await reader.fill()
    await client.send_all(b"9")
    with pytest.raises(OverBudget) as over:
        await reader.fill()
    assert over.value.budget == "partial_line"


async def test_readers_share_the_server_input_budget_and_give_it_back() -> None:
    """Partial lines of all connections count against one budget; the one that would pass it
    is refused; a finished line and a closed connection give their bytes back."""
    budget = InputBudget(10)
    limits = DEFAULT_LIMITS
    pairs = [trio.testing.memory_stream_pair() for _ in range(2)]
    readers = [
        FrameReader(Transport(server), LineFramer(1 << 20), limits, budget) for _, server in pairs
    ]
    await pairs[0][0].send_all(b"123456")
    await readers[0].fill()
    assert budget.used == 6
    await pairs[1][0].send_all(b"12345")
    with pytest.raises(OverBudget) as over:
        await readers[1].fill()
    assert over.value.budget == "input_budget"
    await pairs[0][0].send_all(b"\n")
    await readers[0].fill()
    assert budget.used == 0
    await pairs[0][0].send_all(b"abc")
    await readers[0].fill()
    readers[0].release()
    assert budget.used == 0


async def test_reader_reads_a_connection_no_faster_than_its_input_rate(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Past its burst, a connection that floods is read at ``input_bytes_per_second`` on
    average: 3 MiB of blank lines at 1 MiB/s with a 1 MiB burst take about 2 s."""
    client, server = trio.testing.memory_stream_pair()
    framer = LineFramer(10)
    limits = DEFAULT_LIMITS.replace(input_bytes_per_second=1 << 20, partial_line_bytes=1 << 20)
    reader = FrameReader(Transport(server), framer, limits)
    started = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.send_all, b"\n" * (3 << 20))
        while framer.blank_lines < 3 << 20:  # blank lines are counted, not handed out
            await reader.fill()
            assert framer.next_line() is NEED_DATA
    assert 1.9 <= trio.current_time() - started <= 2.1


async def test_connections_holding_long_lines_share_one_read_rate(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Past its first read, an unfinished line is read at ``long_line_bytes_per_second``
    shared by every connection holding one (two lines of 50 KiB at 100 KiB/s: ~1 s, not 0.5),
    while a connection sending short lines is read at once."""
    limits = DEFAULT_LIMITS.replace(
        receive_bytes=1024, long_line_bytes_per_second=100 << 10, input_bytes_per_second=None
    )
    gate = Gate(limits)
    pairs = [trio.testing.memory_stream_pair() for _ in range(3)]
    framers = [LineFramer(1 << 20) for _ in pairs]
    readers = [
        FrameReader(Transport(server, receive_bytes=1024), framer, limits, gate.budget)
        for (_, server), framer in zip(pairs, framers, strict=True)
    ]
    done: dict[int, float] = {}

    async def hold(number: int) -> None:
        await pairs[number][0].send_all(b"x" * (50 << 10))
        while framers[number].buffered_bytes < 50 << 10:
            await readers[number].fill()
        done[number] = trio.current_time()

    async def request() -> None:
        await trio.sleep(0.5)  # while both long lines wait for their turns
        await pairs[2][0].send_all(b"short\n")
        await readers[2].fill()
        assert framers[2].next_line() == b"short"
        done[2] = trio.current_time() - 0.5

    started = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hold, 0)
        nursery.start_soon(hold, 1)
        nursery.start_soon(request)
    assert 0.9 <= max(done[0], done[1]) - started <= 1.1
    assert done[2] - started < 0.01


async def test_a_closed_socket_s_flood_is_lingered_on_at_the_shared_long_line_rate(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A socket closed in the middle of a 1 MiB line (the input budget is used up) has its
    leftovers read, for the linger's 1 s, in turns of the long-line schedule (64 KiB/s, 16 KiB
    a turn): five reads at most, not the whole megabyte a linger without it discards."""
    budget = InputBudget(1 << 20, rate=64 << 10, chunk=16 << 10)
    discarded = {}
    for paced in (False, True):
        ours, theirs = trio.socket.socketpair()
        transport = Transport(trio.SocketStream(ours), receive_bytes=16 << 10)
        async with trio.SocketStream(theirs) as peer, trio.open_nursery() as nursery:
            nursery.start_soon(peer.send_all, b"1" * (1 << 20))
            started = trio.current_time()
            discarded[paced] = await transport.linger(1.0, 4 << 20, budget if paced else None)
            assert trio.current_time() - started == pytest.approx(1.0)
            nursery.cancel_scope.cancel()
        await transport.aclose()
    assert discarded[False] == 1 << 20
    assert 16 << 10 <= discarded[True] <= 5 * (16 << 10)


async def test_reader_lets_other_tasks_run_between_frames() -> None:
    """Handling many frames from one chunk yields every ``frames_per_step`` frames."""
    reader = FrameReader(
        Transport(trio.testing.memory_stream_pair()[1]),
        LineFramer(10),
        DEFAULT_LIMITS.replace(frames_per_step=4),
    )
    ran = 0

    async def other() -> None:
        nonlocal ran
        ran += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(other)
        for _ in range(3):
            await reader.frame_done()
        assert ran == 0
        await reader.frame_done()
        assert ran == 1


async def test_outbox_writes_in_order_and_closes_after_close() -> None:
    """Deliveries are written in order; CLOSE ends the writer after what came before it, and
    nothing delivered after it is written."""
    client, server = trio.testing.memory_stream_pair()
    outbox: Outbox[str] = Outbox(
        Transport(server), 8, lambda items: ("".join(items).encode(), False), lambda: None
    )
    assert outbox.deliver(["a", "b"])
    assert outbox.deliver([b"raw", "c", CLOSE, "d"])
    await outbox.run()
    assert outbox.stopped
    assert await client.receive_some() == b"abrawc"


async def test_a_peer_that_reads_nothing_gets_drain_seconds_for_its_last_lines(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The writer is held up by a peer that reads nothing; once CLOSE is delivered behind the
    held lines, the writer gives up ``drain_seconds`` later (it waited for ever: a connection
    that never read stayed open after its match was over)."""
    _client, server = trio.testing.lockstep_stream_pair()
    outbox: Outbox[str] = Outbox(
        Transport(server),
        8,
        lambda items: ("".join(items).encode(), False),
        lambda: None,
        drain_seconds=10.0,
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.run)
        assert outbox.deliver(["the map"])  # nobody reads it: the writer waits
        await trio.sleep(100)
        assert not outbox.stopped  # no deadline while the connection is not closing
        assert outbox.deliver(["game over", CLOSE])
        closing = trio.current_time()
    assert trio.current_time() - closing == pytest.approx(10.0)
    assert outbox.stopped
    assert not outbox.drained


async def test_a_peer_that_reads_gets_its_last_lines_and_the_outbox_is_drained() -> None:
    """With a reading peer, CLOSE's deadline changes nothing: everything is written."""
    client, server = trio.testing.lockstep_stream_pair()
    outbox: Outbox[str] = Outbox(
        Transport(server),
        8,
        lambda items: ("".join(items).encode(), False),
        lambda: None,
        drain_seconds=10.0,
    )
    received = bytearray()

    async def read() -> None:
        while data := await client.receive_some():
            received.extend(data)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read)
        assert outbox.deliver(["a", "b", CLOSE])
        await outbox.run()
        await server.aclose()
    assert bytes(received) == b"ab"
    assert outbox.drained


async def test_a_full_outbox_reports_the_client_as_not_reading() -> None:
    """Delivering past ``size`` undelivered items calls ``on_full`` and returns False."""
    full = []
    outbox: Outbox[str] = Outbox(
        Transport(trio.testing.memory_stream_pair()[1]),
        2,
        lambda items: ("".join(items).encode(), False),
        lambda: full.append(True),
    )
    assert outbox.deliver(["a", "b"])
    assert not outbox.deliver(["c"])
    assert full == [True]


async def test_serve_tcp_reports_its_port_and_serves_loopback() -> None:
    """serve_tcp binds 127.0.0.1 on a free port, reports it, and runs the handler per socket."""

    async def echo(stream: trio.SocketStream) -> None:
        async with stream:
            await stream.send_all(await stream.receive_some())

    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_tcp, echo)
        client = await trio.open_tcp_stream("127.0.0.1", port)
        async with client:
            await client.send_all(b"ping")
            assert await client.receive_some() == b"ping"
        nursery.cancel_scope.cancel()


def test_limits_take_overrides_from_the_command_line() -> None:
    """``NAME=VALUE`` pairs become a copy with those limits; an unknown name or a value that is
    not a number is a ValueError naming the pair."""
    limits = DEFAULT_LIMITS.with_overrides(
        ["max_connections=10", "linger_seconds=0.5", "idle_seconds=none"]
    )
    assert (limits.max_connections, limits.linger_seconds, limits.idle_seconds) == (10, 0.5, None)
    with pytest.raises(ValueError, match=r"'nope=1'.*max_connections"):
        DEFAULT_LIMITS.with_overrides(["nope=1"])
    with pytest.raises(ValueError, match="'held_requests=x'"):
        DEFAULT_LIMITS.with_overrides(["held_requests=x"])
