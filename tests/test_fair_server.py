"""Fair time in the dungeon server (docs/fair-time.md): a match's requests are applied in the
order of the CPU each team had used, not of their arrival; on virtual time, with scripted meters
standing for the teams' programs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from server_testkit import SMALL, memory_match, neighbour, running_server
from structlog.testing import capture_logs
from trio.testing import MockClock

from dungeon.engine import AgentId
from dungeon.fairtime import THINK_HOLD
from protocol.messages import Dungeon, Error, GameOver, Move, Sat
from replay.matchlog import read_log
from server.app import Server
from server.fairtime import POLL_MAX, POLL_MIN, WAKE_SECONDS, FairGate, serve_fair
from server.inbox import Refused, Submitted
from server.lobby import Filling


class ScriptedMeter:
    """A team's program as the server sees it: CPU seconds (a number, or a function of the
    virtual clock for a program that spins) and whether a thread of it is runnable."""

    def __init__(
        self,
        cpu: float | Callable[[float], float] = 0.0,
        runnable: bool | Callable[[float], bool] = True,
    ):
        self.cpu = cpu
        self.is_runnable = runnable
        self.released = False

    def seconds(self) -> float:
        return self.cpu(trio.current_time()) if callable(self.cpu) else self.cpu

    def runnable(self) -> bool:
        runnable = self.is_runnable
        return runnable(trio.current_time()) if callable(runnable) else runnable

    @property
    def source(self) -> str:
        return "scripted"

    def close_clock(self) -> None:
        self.released = True


def _server_options(
    tmp_path: Path, meters: dict[int, ScriptedMeter], time: str = "cpu", **more: Any
) -> dict[str, Any]:
    return {
        "log_dir": tmp_path, "log_maps": "each", "time": time, "check_workers": 1,
        "meters": lambda filling: meters, **more,
    }  # fmt: skip


def _move(dungeons: dict[AgentId, Dungeon], slot: AgentId) -> Move:
    dungeon = dungeons[slot]
    return Move(to=neighbour(dungeon, dungeon.start[slot.team]))


def _applied(server: Server) -> list[tuple[int, float | None]]:
    """(team, cpu) of every request the finished match applied, in order."""
    (actor,) = server.finished
    assert actor.log_path is not None
    log = read_log(actor.log_path)
    return [
        (int(line.data["team"]), line.data.get("cpu"))
        for line in log.inputs
        if line.data["kind"] == "request"
    ]


async def test_requests_go_by_cpu_used_not_by_arrival(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 1 answers first on the wall clock, but its program had used 0.5 CPU-s; team 0's,
    # sent a virtual second later after 0.1 CPU-s, is applied first.
    meters = {0: ScriptedMeter(0.0, runnable=True), 1: ScriptedMeter(0.0, runnable=True)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        meters[1].cpu = 0.5
        late, early = AgentId(1, 0), AgentId(0, 0)
        await agents[late].send(_move(dungeons, late))
        await trio.sleep(1.0)
        meters[0].cpu, meters[0].is_runnable = 0.1, False  # it sent, and waits for the answer
        await agents[early].send(_move(dungeons, early))
        await agents[early].receive_a(Sat)
        await agents[late].receive_a(Sat)
        server.shutdown()
    assert _applied(server) == [(0, 0.1), (1, 0.5)]


async def test_a_team_asleep_never_holds_the_other_up(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 1 is idle by choice (or waits on the server): no thread runnable. Team 0's request,
    # however much CPU it cost, is applied at once.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        meters[0].cpu = 5.0
        slot = AgentId(0, 2)
        sent = trio.current_time()
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)
        assert trio.current_time() - sent < POLL_MAX
        server.shutdown()
    assert _applied(server) == [(0, 5.0)]


async def test_a_thinking_team_holds_a_costlier_request_until_it_passes_it(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 1 never yields: it spins, one CPU-second per second. Team 0's request cost 0.3
    # CPU-s: it waits until team 1 has used as much (no sooner), then goes; the spinner does
    # not stall the match.
    # (CPU counts from the match's beginning: the spinner's reading then is its start-up.)
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(lambda now: now)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        (actor,) = server.actors
        assert actor.fair is not None
        begun = actor.fair.before[1]  # the virtual time the match began
        meters[0].cpu = 0.3
        slot = AgentId(0, 4)
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)
        waited = trio.current_time() - begun
        server.shutdown()
    assert 0.3 - 0.002 <= waited <= 0.3 + POLL_MAX + 0.002
    assert _applied(server) == [(0, 0.3)]


async def test_wall_time_orders_by_arrival_and_still_measures(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    meters = {0: ScriptedMeter(0.0, runnable=True), 1: ScriptedMeter(0.0, runnable=True)}
    options = _server_options(tmp_path, meters, time="wall")
    async with running_server(**options) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        meters[1].cpu = 0.5
        late, early = AgentId(1, 0), AgentId(0, 0)
        await agents[late].send(_move(dungeons, late))
        await agents[late].receive_a(Sat)
        meters[0].cpu = 0.1
        await agents[early].send(_move(dungeons, early))
        await agents[early].receive_a(Sat)
        server.shutdown()
    assert _applied(server) == [(1, 0.5), (0, 0.1)]
    (actor,) = server.finished
    log = read_log(actor.log_path)  # type: ignore[arg-type]
    assert log.header["time"] == "wall"
    assert log.close is not None
    assert log.close.data["cpu"]["1"]["seconds"] == 0.5
    assert log.close.data["cpu"]["1"]["clock"] == "scripted"  # how it was read, recorded
    assert log.close.data["cpu"]["0"]["requests"] == 1


async def test_per_request_cpu_counts_from_the_servers_last_message(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(0, 1)
        meters[0].cpu = 0.25
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)  # the answer: the next request's CPU counts from here
        meters[0].cpu = 0.35
        await agents[AgentId(0, 2)].send(_move(dungeons, AgentId(0, 2)))
        await agents[AgentId(0, 2)].receive_a(Sat)
        server.shutdown()
    (actor,) = server.finished
    costs = [cpu for _, cpu in _applied(server)]
    assert costs == pytest.approx([0.25, 0.10])
    assert actor.cpu is not None
    assert actor.cpu["0"]["seconds"] == pytest.approx(0.35)
    assert actor.cpu["0"]["per_request"] == pytest.approx(0.175)


async def test_a_team_past_its_cpu_budget_forfeits(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # A program that never yields, with a bank of 2 CPU-s: it forfeits, reason time_limit.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(lambda now: now)}
    options = _server_options(tmp_path, meters, cpu_budget=2.0)
    async with running_server(**options) as (server, nursery):
        agents, _ = await memory_match(server, nursery)
        over = await agents[AgentId(0, 0)].receive_a(GameOver)
    assert over.winner == 0
    (actor,) = server.finished
    assert actor.end_reason == "time_limit"
    assert actor.winner == 0
    assert actor.time_limit == 1
    log = read_log(actor.log_path)  # type: ignore[arg-type]
    assert log.close is not None
    assert log.close.data["reason"] == "time_limit"
    assert log.header["cpu_budget"] == 2.0
    assert log.close.data["cpu"]["1"]["seconds"] >= 2.0  # its bank spent, not a tick later


async def test_without_meters_cpu_mode_plays_in_wall_order(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    options = {"log_dir": tmp_path, "log_maps": "each", "time": "cpu", "meters": lambda f: None}
    async with running_server(**options) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(1, 3)
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)
        server.shutdown()
    assert _applied(server) == [(1, None)]
    (actor,) = server.finished
    assert "time" not in read_log(actor.log_path).header  # type: ignore[arg-type]


async def test_without_meters_cpu_mode_warns_once_per_server(autojump_clock: MockClock) -> None:
    """A tournament's matches with a built-in team have no meters: the server says so as a
    warning once, then at info level, not a warning per match flooding the output."""
    server = Server(time="cpu", meters=lambda filling: None)
    with capture_logs() as events:
        for number in (1, 2, 3):
            assert server._fair_gate(Filling(number, f"match-{number}")) is None
    said = [(e["event"], e["log_level"], e["match"]) for e in events]
    assert said == [
        ("fair_time_off", "warning", 1), ("fair_time_off", "info", 2), ("fair_time_off", "info", 3)
    ]  # fmt: skip


async def test_a_match_known_unmeasured_is_played_in_wall_order_silently(
    autojump_clock: MockClock,
) -> None:
    """A tournament tells the server a match with a built-in team is not measured (an empty
    mapping): arrival order by design, said once on its page, so the server logs nothing."""
    server = Server(time="cpu", meters=lambda filling: {})
    with capture_logs() as events:
        for number in (1, 2):
            assert server._fair_gate(Filling(number, f"match-{number}")) is None
    assert events == []


async def test_a_request_sent_just_before_sleeping_is_ordered_before_the_verdict(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Both teams answer at once and block: team 0's request (0.5 CPU-s) reaches the match
    # first, team 1's (0.1) is still on its socket when the server reads "asleep". The server
    # lets the readers run before trusting that verdict, so team 1's goes first.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        meters[0].cpu, meters[1].cpu = 0.5, 0.1
        first, second = AgentId(0, 3), AgentId(1, 3)
        await agents[first].send(_move(dungeons, first))
        await agents[second].send(_move(dungeons, second))
        await agents[first].receive_a(Sat)
        await agents[second].receive_a(Sat)
        server.shutdown()
    assert _applied(server) == [(1, 0.1), (0, 0.5)]


@pytest.mark.parametrize("handled", [True, False], ids=["handled", "not-yet-handled"])
async def test_a_team_sent_a_message_is_awake_until_it_has_handled_it(
    autojump_clock: MockClock, tmp_path: Path, handled: bool
) -> None:
    # Team 1 got an answer and shows no runnable thread: it may not have read it yet (still in
    # the server's outbox or its socket). Until its CPU moves it counts as thinking, so team
    # 0's costlier request waits for it (WAKE_SECONDS at most: a program seen to do nothing).
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        one, zero = AgentId(1, 2), AgentId(0, 2)
        meters[1].cpu = 0.1
        await agents[one].send(_move(dungeons, one))
        await agents[one].receive_a(Sat)
        if handled:
            meters[1].cpu = 0.12  # it read the answer, then blocked again
        meters[0].cpu = 0.5
        sent = trio.current_time()
        await agents[zero].send(_move(dungeons, zero))
        await agents[zero].receive_a(Sat)
        waited = trio.current_time() - sent
        server.shutdown()
    if handled:
        assert waited < WAKE_SECONDS
    else:
        assert WAKE_SECONDS - 0.001 <= waited <= 2 * WAKE_SECONDS
    assert [team for team, _ in _applied(server)] == [1, 0]


@pytest.mark.parametrize("sleeps", [True, False], ids=["then-sleeps", "thinks-on"])
async def test_a_team_asleep_gets_its_answer_at_its_wake_in_virtual_time(
    autojump_clock: MockClock, tmp_path: Path, sleeps: bool
) -> None:
    # Team 0 sends a move 0.10 CPU-s into the match, thinks on to 0.15, then sleeps; team 1
    # thinks at half speed (a busier core). The move is applied when team 1 reaches 0.10
    # (0.2 s); the answer then reaches team 0 when team 1 can no longer send anything stamped
    # before team 0's clock, 0.15 (0.3 s): what a program finds at a wake follows the CPU
    # used, not how the load spread the messages over the wall clock. A team that thinks on
    # and never sleeps gets it after THINK_HOLD more of its CPU.
    stop = [float("inf")]
    meters = {
        0: ScriptedMeter(lambda now: min(now, stop[0]), lambda now: now < stop[0]),
        1: ScriptedMeter(lambda now: now / 2),
    }
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        (actor,) = server.actors
        assert actor.fair is not None
        begun = actor.fair.before[0]  # the virtual time the match began
        if sleeps:
            stop[0] = begun + 0.15
        await trio.sleep_until(begun + 0.10)
        slot = AgentId(0, 0)
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)
        answered = trio.current_time() - begun
        server.shutdown()
    expected = 0.30 if sleeps else 0.20 + THINK_HOLD
    assert expected - 0.005 <= answered <= expected + POLL_MAX
    assert _applied(server) == [(0, pytest.approx(0.10))]


class _Engine:
    """What serve_fair reads of the engine: whether the match is over (after ``inputs``)."""

    def __init__(self, inputs: int) -> None:
        self.inputs = inputs

    @property
    def is_over(self) -> bool:
        return self.inputs <= 0


async def test_requests_read_in_one_round_go_in_agent_order_not_reader_order(
    autojump_clock: MockClock,
) -> None:
    # The six readers of a team's sockets hand over what a program sent at once in whatever
    # order the scheduler runs them (trio reverses a round at random): the gate takes the
    # round's items by team and agent, a socket's own items in their order, so the same
    # program's burst is applied the same way on a quiet and on a loaded server. (Both teams
    # asleep: each request goes by its stamp, one allowance a request; ties: team 0 first.)
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    gate = FairGate(meters)
    send, receive = trio.open_memory_channel[Any](16)
    seats = [AgentId(0, agent) for agent in (5, 3, 0)] + [AgentId(1, 2), AgentId(0, 3)]
    items: list[Any] = [Submitted(seat, Move(to=1)) for seat in seats[:4]]
    items.append(Refused(seats[4], code="bad_request", text="second line of agent 3"))
    for item in items:
        send.send_nowait(item)
    engine = _Engine(len(items))
    applied: list[Any] = []

    def handle(item: Any, cost: float | None = None) -> None:
        applied.append(item)
        engine.inputs -= 1

    await serve_fair(receive, gate, engine, handle, lambda: False)
    assert [(item.seat.team, item.seat.agent, type(item).__name__) for item in applied] == [
        (0, 0, "Submitted"), (1, 2, "Submitted"), (0, 3, "Submitted"), (0, 3, "Refused"),
        (0, 5, "Submitted"),
    ]  # fmt: skip


async def test_a_finished_match_releases_its_meters(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # The server keeps every finished match for its result: what a meter holds open (a task
    # clock's descriptors) is let go when the match is over, not when the server ends.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        await memory_match(server, nursery)
        (actor,) = server.actors
        assert not meters[0].released
        actor.stop("stalled")
        await server.wait_no_matches()
        assert meters[0].released
        assert meters[1].released
        server.shutdown()


async def _held_answer(
    server: Server, nursery: trio.Nursery, meters: dict[int, ScriptedMeter]
) -> tuple[dict[AgentId, Any], dict[AgentId, Dungeon]]:
    """Team 0 sends a move 0.1 CPU-s into the match, thinks on to 0.5, then sleeps; team 1 is
    runnable, passes 0.1 (the move is applied), then is stuck at 0.2 CPU-s (waiting for a
    core): the answer is held back for team 0's wake, as team 1 could still send a request
    stamped before 0.5."""
    agents, dungeons = await memory_match(server, nursery)
    meters[1].cpu, meters[1].is_runnable = 0.0, True
    meters[0].cpu, meters[0].is_runnable = 0.1, True
    slot = AgentId(0, 0)
    await agents[slot].send(_move(dungeons, slot))
    await trio.sleep(POLL_MAX)
    meters[0].cpu, meters[0].is_runnable = 0.5, False
    await trio.sleep(POLL_MAX)
    meters[1].cpu = 0.2
    with trio.move_on_after(1.0) as waited:
        await agents[slot].receive_a(Sat)
    assert waited.cancelled_caught, "the answer went to a team asleep ahead of the other"
    return agents, dungeons


@pytest.mark.parametrize("ending", ["team-gone", "time-limit", "shutdown", "draw"])
async def test_messages_held_for_a_team_asleep_go_before_the_game_over(
    autojump_clock: MockClock, tmp_path: Path, ending: str
) -> None:
    # However the match ends while team 0's answer is held back (the other team leaves, a
    # time bank runs out, the server shuts down, the draw deadline), nothing a seat is owed is
    # lost: the held answer goes first, then every seat gets its game_over, and the match ends
    # when it should, not at the draw deadline.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    options = _server_options(tmp_path, meters, cpu_budget=1.0)
    async with running_server(**options) as (server, nursery):
        agents, _ = await _held_answer(server, nursery, meters)
        began = trio.current_time()
        if ending == "team-gone":
            for slot in [slot for slot in agents if slot.team == 1]:
                await agents[slot].aclose()
        elif ending == "time-limit":
            meters[0].cpu = 1.5  # read late (a lagging meter): its bank is spent
        elif ending == "shutdown":
            server.shutdown()
        rest = {
            slot: await agent.until_closed() for slot, agent in agents.items() if slot.team == 0
        }
        ended = trio.current_time() - began
    (actor,) = server.finished
    reason, winner = {
        "team-gone": ("forfeit", 0), "time-limit": ("time_limit", 1),
        "shutdown": ("shutdown", None), "draw": ("time", None),
    }[ending]  # fmt: skip
    assert (actor.end_reason, actor.winner) == (reason, winner)
    for slot, messages in rest.items():
        over = [message for message in messages if isinstance(message, GameOver)]
        assert over == [GameOver(winner=winner)], slot
        assert isinstance(messages[-1], GameOver), slot
    assert any(isinstance(message, Sat) for message in rest[AgentId(0, 0)][:-1])
    assert ended < (SMALL.draw_seconds + 1 if ending == "draw" else 1.0)


@pytest.mark.parametrize("time", ["wall", "unmetered"])
async def test_wall_time_and_unmetered_matches_hold_no_message(
    autojump_clock: MockClock, tmp_path: Path, time: str
) -> None:
    # The hold is fair time's only: in wall time (and in a cpu match without meters) the
    # answer to a team asleep far ahead of a thinking team goes at once, as it always did.
    meters = {0: ScriptedMeter(0.5, runnable=False), 1: ScriptedMeter(0.0, runnable=True)}
    if time == "wall":
        options = _server_options(tmp_path, meters, time="wall")
    else:
        options = {**_server_options(tmp_path, meters), "meters": lambda filling: None}
    async with running_server(**options) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        slot = AgentId(0, 1)
        sent = trio.current_time()
        await agents[slot].send(_move(dungeons, slot))
        await agents[slot].receive_a(Sat)
        assert trio.current_time() - sent == 0.0
        (actor,) = server.actors
        assert actor.fair is None or not actor.fair.holding({0, 1})
        server.shutdown()
    assert [team for team, _ in _applied(server)] == [0]


async def test_a_held_team_that_wakes_by_itself_hears_after_think_hold_of_its_cpu(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 0's answer is held for its wake (team 1 is stuck behind its clock); team 0 wakes on
    # its own (a timer) and thinks without sleeping again: it gets what it is owed once it has
    # used THINK_HOLD of CPU since the answer began to wait (at the next reading of the
    # meters), not when team 1 catches up, and not before.
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, _ = await _held_answer(server, nursery, meters)
        meters[0].cpu, meters[0].is_runnable = 0.5 + THINK_HOLD / 2, True
        with trio.move_on_after(1.0) as early:
            await agents[AgentId(0, 0)].receive_a(Sat)
        assert early.cancelled_caught, "a team thinking heard before THINK_HOLD of its CPU"
        woke = trio.current_time()
        meters[0].cpu = 0.5 + 2 * THINK_HOLD
        await agents[AgentId(0, 0)].receive_a(Sat)
        assert trio.current_time() - woke <= POLL_MAX
        server.shutdown()


async def test_a_team_asleep_far_ahead_never_delays_the_others_answers(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 0 burned 5 CPU-s, then sleeps (its own messages wait for team 1 to use as much):
    # team 1, behind it, thinks, sends and blocks for its answer; the answer comes at once
    # every time, however far ahead team 0 sleeps: a team cannot slow the other by sleeping
    # at a high clock.
    meters = {0: ScriptedMeter(5.0, runnable=False), 1: ScriptedMeter(0.0, runnable=True)}
    async with running_server(**_server_options(tmp_path, meters)) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        (actor,) = server.actors
        assert actor.fair is not None
        for agent in range(3):
            slot = AgentId(1, agent)
            meters[1].cpu, meters[1].is_runnable = 0.1 * (agent + 1), True
            await agents[slot].send(_move(dungeons, slot))
            await trio.sleep(0)
            meters[1].is_runnable = False  # it waits for the answer
            sent = trio.current_time()
            await agents[slot].receive_a(Sat)
            assert trio.current_time() - sent <= POLL_MIN
            assert 1 not in actor.fair.holding({1})
        server.shutdown()
    assert [team for team, _ in _applied(server)] == [1, 1, 1]


async def test_nothing_is_applied_after_a_time_bank_forfeit(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    # Team 0's request (0.95 CPU-s) is held while team 1 thinks (0.5); team 1's meter then
    # reads past its 1.0 bank, asleep, at a reading of the budget watch (a lagging meter).
    # The forfeit ends the match in the round it is read: the held request, which team 1
    # asleep would let go in that round, is not applied after it (the log's last input is
    # the forfeit).
    meters = {0: ScriptedMeter(0.0, runnable=False), 1: ScriptedMeter(0.0, runnable=False)}
    options = _server_options(tmp_path, meters, cpu_budget=1.0)
    async with running_server(**options) as (server, nursery):
        agents, dungeons = await memory_match(server, nursery)
        began = trio.current_time()
        meters[1].cpu = lambda now: 0.5 if now < began + 1.05 else 1.2
        meters[1].is_runnable = lambda now: now < began + 1.05
        await trio.sleep_until(began + 0.013)
        meters[0].cpu = 0.95
        slot = AgentId(0, 0)
        await agents[slot].send(_move(dungeons, slot))
        messages = await agents[slot].until_closed()
    (actor,) = server.finished
    assert (actor.end_reason, actor.winner) == ("time_limit", 0)
    assert messages[-1] == GameOver(winner=0)
    assert not any(isinstance(message, Error) for message in messages)
    log = read_log(actor.log_path)  # type: ignore[arg-type]
    assert [line.data["kind"] for line in log.inputs][-1] == "disconnect"
    assert _applied(server) == []


@pytest.mark.parametrize(
    ("ordered", "behind", "expected", "poll"),
    [
        (True, 0.20, {0}, POLL_MAX),  # 0.3 CPU-s to go: read again at the longest
        (True, 0.4975, {0}, 0.0015),  # 1.5 ms to go: read again then
        (True, 0.4995, set(), POLL_MAX),  # within an allowance: nothing held
        (False, 0.20, set(), POLL_MAX),  # wall time: never held
    ],
)
async def test_the_gate_holds_a_team_asleep_ahead_and_reads_again_when_it_may_go(
    autojump_clock: MockClock, ordered: bool, behind: float, expected: set[int], poll: float
) -> None:
    # Team 0 asleep at 0.5 CPU-s, team 1 thinking behind it: team 0's messages are held (in
    # fair time only) until team 1 is within one allowance of 0.5, and the actor reads the
    # meters again when that may be, not sooner, not later than POLL_MAX.
    meters = {0: ScriptedMeter(0.5, runnable=False), 1: ScriptedMeter(behind, runnable=True)}
    gate = FairGate(meters, ordered=ordered)
    gate.observe()
    assert gate.holding({0}) == expected
    assert gate.wait() == pytest.approx(poll)
