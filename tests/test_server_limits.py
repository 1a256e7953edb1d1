"""The server's limits under a hostile or clumsy client (spec section 5; docs/server.md "Limits").

Each finding of the issue that measured them is one test here, over memory streams (virtual
time where a timeout is involved): blank lines are input, memory is bounded per socket and for
the server, nothing after the error limit reaches the match, floods before the map are cut.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from server_testkit import SMALL, connect_memory, join_all, memory_match, neighbour, running_server

from dungeon.engine import AGENTS, AgentId
from protocol.codec import Codec, RemoteProtocolError
from protocol.encoding import encode
from protocol.messages import ClientMessage, Error, Move, Sat, Start
from replay.matchlog import read_log
from server.app import limits_for


def test_blank_lines_are_counted_without_being_decoded() -> None:
    """The codec skips blank lines as it frames them and counts them, whatever the chunking."""
    codec = Codec(ClientMessage)
    codec.receive_data(b"\n" * 70_000 + b" \r\n\t\n" + b'{"type":"move","to":1}\n')
    assert codec.next_message() == Move(to=1)
    assert codec.blank_lines == 70_002
    codec.receive_data(b"\r")
    codec.receive_data(b"\n")
    assert codec.blank_lines == 70_003


MIXED = (
    b'{"type":"move","to":1}\n' + b"\n" * 5_000 + b" \t\r\n\x0b\x0c\n\r\n"
    + b'{"type":"move","to":2}\r\n' + b"\n" * 3 + b'{"type":"move","to":3}'
)  # fmt: skip


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096, len(MIXED)])
def test_blank_lines_among_requests_are_counted_alike_in_any_chunking(chunk: int) -> None:
    """Runs of blank lines between requests (a flood mixed into real lines) are skipped and
    counted the same whether they come byte by byte or in one chunk with the requests."""
    codec = Codec(ClientMessage)
    for start in range(0, len(MIXED), chunk):
        codec.receive_data(MIXED[start : start + chunk])
    codec.receive_data(b"\n")
    assert [codec.next_message() for _ in range(3)] == [Move(to=1), Move(to=2), Move(to=3)]
    assert codec.blank_lines == 5_000 + 3 + 3


@pytest.mark.parametrize(
    ("blank", "too_long"),
    [
        (b" " * 32, False),
        (b" " * 32 + b"\r", False),  # a "\r\n" ending may go one byte beyond the limit
        (b" " * 33, True),
        (b"\t" * 33 + b"\r", True),
    ],
)
def test_a_whitespace_line_over_the_limit_is_too_long_even_among_blank_lines(
    blank: bytes, too_long: bool
) -> None:
    """Skipping runs of blank lines at once keeps the line limit: a whitespace-only line longer
    than ``max_line`` is reported, whether it stands alone or in a run."""
    codec = Codec(ClientMessage, max_line=32)
    codec.receive_data(
        b'{"type":"move","to":1}\n\n' + blank + b"\n\n" + b'{"type":"move","to":2}\n'
    )
    assert codec.next_message() == Move(to=1)
    if too_long:
        with pytest.raises(RemoteProtocolError, match="line longer than 32 bytes"):
            codec.next_message()
    assert codec.next_message() == Move(to=2)


async def test_blank_lines_before_dungeon_count_toward_the_held_budget() -> None:
    """Finding 1: a socket that sends a start and then only blank lines is answered
    too_many_early and closed once past the budget (it was held for ever, stalling others)."""
    async with running_server() as (server, nursery):
        agent = connect_memory(server, nursery)
        await agent.send(Start(team=0, agent=0))
        await agent.send(b"\n" * 65_536)
        rest = await agent.until_closed()
        assert [(m.code, "16 lines" in m.message) for m in rest if isinstance(m, Error)] == [
            ("too_many_early", True)
        ]


async def test_floods_before_the_map_are_cut_and_the_slot_freed() -> None:
    """Finding 4: a socket in a match still filling that floods requests gets one error and is
    closed (its slot freed); the match then fills and plays as usual."""
    async with running_server() as (server, nursery):
        flooder = connect_memory(server, nursery)
        await flooder.send(Start(team=0, agent=0))
        await flooder.send(b'{"type":"move","to":1}\n' * 10_000)
        rest = await flooder.until_closed()
        assert [m.code for m in rest if isinstance(m, Error)] == ["too_many_early"]
        agents, dungeons = await memory_match(server, nursery)
        dungeon = dungeons[AgentId(0, 0)]
        await agents[AgentId(0, 0)].send(Move(to=neighbour(dungeon, dungeon.start[0])))
        assert isinstance(await agents[AgentId(0, 0)].receive_a(Sat), Sat)


async def test_held_requests_within_the_budget_are_answered_after_dungeon() -> None:
    """Up to the budget, requests before `dungeon` are held and answered not_begun after it."""
    async with running_server() as (server, nursery):
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
        early = agents[AgentId(1, 2)]
        await early.send(Start(team=1, agent=2))
        await early.send(b'{"type":"move","to":1}\n' * 15)
        rest = {slot: agent for slot, agent in agents.items() if slot != AgentId(1, 2)}
        await join_all(rest)
        for _ in range(15):
            assert (await early.receive_a(Error)).code == "not_begun"


async def test_a_line_held_open_is_bounded_by_the_server_budget() -> None:
    """Finding 2: sockets holding unfinished lines count against one server-wide budget; the
    one that would pass it is told server_full and closed, a new connection is refused while
    it is used up, and a match already playing is untouched."""
    # Read at once (the shared long-line rate is tested in test_net): the budget is the subject.
    limits = limits_for(SMALL).replace(
        linger_seconds=0.0, input_budget_bytes=1_020_020, long_line_bytes_per_second=None
    )
    async with running_server(limits=limits) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        holders = [connect_memory(server, nursery) for _ in range(2)]
        for number, holder in enumerate(holders):
            await holder.send(Start(team=0, agent=number, match="held"))
        await holders[0].send(b'{"type":"move","to":' + b"1" * 1_000_000)
        await trio.testing.wait_all_tasks_blocked()
        await holders[1].send(b'{"type":"move","to":' + b"1" * 100_000)
        rest = await holders[1].until_closed()
        assert [m.code for m in rest if isinstance(m, Error)] == ["server_full"]
        assert server.gate.budget.used <= limits.input_budget_bytes
        await holders[0].send(b"1" * 20_000)  # just within the budget: held, the budget used up
        await trio.testing.wait_all_tasks_blocked()
        assert server.gate.budget.used == limits.input_budget_bytes
        newcomer = connect_memory(server, nursery)
        rest = await newcomer.until_closed()
        assert [m.code for m in rest if isinstance(m, Error)] == ["server_full"]
        dungeon = dungeons[AgentId(1, 3)]
        await agents[AgentId(1, 3)].send(Move(to=neighbour(dungeon, dungeon.start[1])))
        assert isinstance(await agents[AgentId(1, 3)].receive_a(Sat), Sat)
        await holders[0].aclose()
        await trio.testing.wait_all_tasks_blocked()
        assert server.gate.budget.used == 0


async def test_a_socket_silent_after_its_start_is_closed_at_the_idle_limit(
    autojump_clock: trio.abc.Clock,
) -> None:
    """Finding 2: once its start is accepted, a socket that holds a line open (or says nothing)
    while its match fills is closed at the idle limit (default: the draw time)."""
    async with running_server() as (server, nursery):
        agent = connect_memory(server, nursery)
        await agent.send(Start(team=0, agent=0))
        await agent.send(b'{"type":"move","to":' + b"1" * 1000)
        opened = trio.current_time()
        rest = await agent.until_closed()
        assert trio.current_time() - opened == pytest.approx(SMALL.draw_seconds)
        assert [m.code for m in rest if isinstance(m, Error)] == ["idle_timeout"]


async def test_connections_beyond_the_cap_are_refused_and_matches_play_on() -> None:
    """A connection beyond the cap gets server_full and is closed (never reported to the
    server's observer as a connection that played and closed); the twelve playing are not
    touched, and a place freed is taken again."""
    limits = limits_for(SMALL).replace(linger_seconds=0.0, max_connections=13)
    closed: list[object] = []

    def observe(what: str, subject: object) -> None:
        if what == "closed":
            closed.append(subject)

    async with running_server(limits=limits, observer=observe) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        spare = connect_memory(server, nursery)
        refused = connect_memory(server, nursery)
        rest = await refused.until_closed()
        assert [m.code for m in rest if isinstance(m, Error)] == ["server_full"]
        await trio.testing.wait_all_tasks_blocked()
        assert closed == []
        dungeon = dungeons[AgentId(0, 2)]
        await agents[AgentId(0, 2)].send(Move(to=neighbour(dungeon, dungeon.start[0])))
        assert isinstance(await agents[AgentId(0, 2)].receive_a(Sat), Sat)
        await spare.aclose()
        await trio.testing.wait_all_tasks_blocked()
        assert len(closed) == 1  # the spare, which was admitted
        again = connect_memory(server, nursery)
        await again.send(Start(team=0, agent=0, match="next"))
        await trio.testing.wait_all_tasks_blocked()
        assert server.gate.open == 13


async def test_nothing_after_the_hundredth_error_reaches_the_match(tmp_path: Path) -> None:
    """Finding 3: 100 bad moves and then a valid one in one burst: the client gets exactly 100
    errors and the end of the stream, and the valid move reaches neither the engine nor the log
    (no trap problem drawn, no input logged), so the match's random stream does not move."""
    async with running_server(log_dir=tmp_path) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        noisy, dungeon = agents[AgentId(0, 4)], dungeons[AgentId(0, 4)]
        far = dungeon.start[0]  # a move to where the agent stands is not adjacent
        good = neighbour(dungeon, dungeon.start[0])
        burst = b"".join(
            b'{"type":"move","to":%d}\n' % target for target in [far] * 100 + [good] * 20
        )
        await noisy.send(burst)
        rest = await noisy.until_closed()
        errors = [m for m in rest if isinstance(m, Error)]
        assert len(errors) == 100
        assert rest[-1] == errors[-1]
        assert {e.code for e in errors[:99]} == {"not_adjacent"}
        assert errors[-1].code == "error_limit"
        assert errors[-1].message.endswith("(error limit reached: closing)")
        assert not any(isinstance(m, Sat) for m in rest)
        for slot, agent in agents.items():
            if slot.team == 0:
                await agent.aclose()
        await server.wait_no_matches()
    (path,) = tmp_path.glob("*.jsonl*")
    log = read_log(path)
    assert log.complete
    inputs = [
        line.data
        for line in log.inputs
        if (line.data.get("team"), line.data.get("agent")) == (0, 4)
    ]
    assert len(inputs) == 100
    assert not [line for line in log.outputs if line.event == "trap_problem"]


async def test_a_socket_that_never_reads_is_closed_after_its_match_is_over(
    autojump_clock: trio.abc.Clock,
) -> None:
    """A client that never reads holds up its socket's writer (its `dungeon` line is never
    taken). Once its match is over, the socket gets ``drain_seconds`` for its last lines and is
    closed: it stayed open for ever, one connection of the cap each, after every such match."""
    async with running_server() as (server, nursery):
        deaf = connect_memory(server, nursery, lockstep=True)
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS if slot != (0, 0)}
        await deaf.send(Start(team=0, agent=0))
        await join_all(agents)
        for slot, agent in agents.items():
            if slot.team == 1:
                await agent.aclose()  # team 1 leaves: team 0 wins by forfeit, game over
        await agents[AgentId(0, 1)].until_closed()
        over = trio.current_time()
        with trio.move_on_after(60):
            while server.gate.open:  # the five readers of team 0 close at once, then the deaf
                await trio.sleep(0.5)
        assert server.gate.open == 0
        assert trio.current_time() - over == pytest.approx(server.limits.drain_seconds, abs=1)


async def test_answers_come_in_the_order_of_the_requests() -> None:
    """A line the codec refuses is answered after the requests sent before it: a valid move
    then a line of an unknown type get the `sat`, then the error (the error came first: the
    reader answered at once while the move waited for the match's actor)."""
    async with running_server() as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        dungeon, agent = dungeons[AgentId(0, 0)], agents[AgentId(0, 0)]
        move = encode(Move(to=neighbour(dungeon, dungeon.start[0])))
        await agent.send(move + b'{"type":"nope"}\n' + b'{"type":"move","to":"x"}\n')
        kinds: list[str] = []
        while len(kinds) < 3:
            message = await agent.receive()
            if isinstance(message, Error):
                kinds.append(message.code)
            elif isinstance(message, Sat):
                kinds.append("sat")
        assert kinds == ["sat", "unknown_type", "bad_field"]
