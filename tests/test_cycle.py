"""The one connection cycle (server/cycle.py) every game's server runs: admit or refuse in the
game's words, read, answer through the bounded outbox, close, and who broke the connection.

Memory streams and virtual time.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from protocol.framing import NEED_DATA, LineFramer, LocalProtocolError, RemoteProtocolError
from server.cycle import Ending, Fault, Link, attribute
from server.net import DEFAULT_LIMITS, Gate, OverBudget

LIMITS = DEFAULT_LIMITS.replace(max_connections=1, outbox_messages=2, linger_seconds=0.1)


def _render(items: list[bytes]) -> tuple[bytes, bool]:
    return b"".join(items), False


def _refusal(why: str) -> bytes:
    return f"NO {why}\n".encode()


async def _read_all(stream: trio.abc.ReceiveStream) -> bytes:
    data = b""
    while chunk := await stream.receive_some():
        data += chunk
    return data


async def _echo(link: Link[bytes], framer: LineFramer) -> None:
    """A game that answers each line with it in capitals, and closes after ``bye``."""
    while True:
        line = framer.next_line()
        if line is NEED_DATA:
            if framer.eof:
                link.stop(Ending(Fault.DISCONNECT, "disconnected"))
                return
            await link.reader.fill()
            continue
        assert isinstance(line, bytes)
        link.deliver([line.upper() + b"\n"], close=line == b"bye")
        await link.reader.frame_done()


async def test_a_link_reads_answers_closes_and_leaves_the_gate(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Lines go to the game, its answers come back in order, a last answer closes after it is
    written; the connection is then counted out of the gate and ``on_close`` has run."""
    gate = Gate(LIMITS)
    ours, theirs = trio.testing.memory_stream_pair()
    framer = LineFramer(100)
    link: Link[bytes] = Link(ours, framer, LIMITS, gate, _refusal, _render)
    closed: list[bool] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            lambda: link.serve(lambda: _echo(link, framer), on_close=lambda: closed.append(True))
        )
        await theirs.send_all(b"hello\nbye\n")
        assert await _read_all(theirs) == b"HELLO\nBYE\n"
    assert closed == [True]
    assert link.closed
    assert gate.open == 0


async def test_beyond_the_cap_a_connection_is_refused_in_the_games_words_and_closed(
    autojump_clock: trio.abc.Clock,
) -> None:
    gate = Gate(LIMITS)
    assert gate.enter() is None  # the one connection allowed
    ours, theirs = trio.testing.memory_stream_pair()
    link: Link[bytes] = Link(ours, LineFramer(100), LIMITS, gate, _refusal, _render)
    read: list[bool] = []

    async def reading() -> None:
        read.append(True)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(link.serve, reading)
        assert await _read_all(theirs) == b"NO the server holds its limit of 1 connections\n"
    assert read == []  # refused before anything was read
    assert gate.open == 1


async def test_a_peer_that_does_not_read_is_dropped_when_its_outbox_is_full(
    autojump_clock: trio.abc.Clock,
) -> None:
    """The game's deliveries never wait: past ``outbox_messages`` unwritten items the
    connection is dropped, and its cycle still closes it (``on_close`` runs)."""
    gate = Gate(LIMITS)
    ours, theirs = trio.testing.lockstep_stream_pair()  # a write waits for the peer's read
    link: Link[bytes] = Link(ours, LineFramer(100), LIMITS, gate, _refusal, _render)
    closed: list[bool] = []
    delivered = 0

    async def flood() -> None:
        nonlocal delivered
        while link.deliver([b"x\n"]):
            delivered += 1
            await trio.lowlevel.checkpoint()

    with trio.fail_after(60):
        await link.serve(flood, on_close=lambda: closed.append(True))
    assert closed == [True]
    assert gate.open == 0
    # one item taken by the blocked writer, then the outbox's two
    assert delivered == 1 + LIMITS.outbox_messages
    del theirs


async def test_the_first_ending_recorded_is_the_one_kept() -> None:
    ours, _ = trio.testing.memory_stream_pair()
    link: Link[bytes] = Link(ours, LineFramer(100), LIMITS, Gate(LIMITS), _refusal)
    first = Ending(Fault.TIMEOUT, "no reply within 3 s")
    assert link.end(first) == first
    assert link.end(Ending(Fault.DISCONNECT, "disconnected")) == first
    assert link.ending == first


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (RemoteProtocolError("not JSON", "malformed"), Ending(Fault.REMOTE, "malformed: not JSON")),
        (
            OverBudget("partial_line", "an unfinished line longer than 9 bytes"),
            Ending(Fault.REMOTE, "partial_line: an unfinished line longer than 9 bytes"),
        ),
        (LocalProtocolError("a NaN", "bad_field"), Ending(Fault.LOCAL, "bad_field: a NaN")),
        (trio.BrokenResourceError(), Ending(Fault.DISCONNECT, "connection broken")),
        (trio.TooSlowError(), Ending(Fault.TIMEOUT, "too slow")),
    ],
)
def test_each_error_is_attributed_to_who_broke_the_connection(
    error: BaseException, expected: Ending
) -> None:
    assert attribute(error) == expected


def test_an_error_of_no_connection_is_not_attributed() -> None:
    with pytest.raises(TypeError, match="ValueError"):
        attribute(ValueError("a bug"))
