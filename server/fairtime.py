"""Fair-time mode of a dungeon match: the match's actor applies the two teams' requests in the
order of the CPU each team had used (:class:`dungeon.fairtime.FairOrder`), fed by each team's
meter (:class:`server.sandbox.cpu.CpuMeter`), not in their order of arrival (docs/fair-time.md).

    gate = FairGate({0: meter0, 1: meter1}, ordered=True, budget=None)
    gate.arrive(team, item)          # a request (or a refused line, a closed socket) came in
    gate.observe()                   # read both programs: CPU and whether a thread is runnable
    ... let every socket's reader run, then gate.arrive() what they queued ...
    for item, cpu in gate.release(): # what may be applied now, with the CPU it cost its team
        ...

The shell only: the ordering rule is :mod:`dungeon.fairtime`. With ``ordered=False`` (wall time)
the gate only measures: the CPU of each team and of each of its requests, and its time bank.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import trio

from dungeon.fairtime import ALLOWANCE, FairOrder, over_budget
from server.inbox import Closed, Refused, Submitted
from server.sandbox.cpu import CpuMeter, socket_owners

if TYPE_CHECKING:
    from server.lobby import Filling

__all__ = [
    "POLL_MAX",
    "POLL_MIN",
    "SETTLE",
    "TIME_MODES",
    "FairGate",
    "Meter",
    "TeamCpu",
    "TimeLimit",
    "loopback_meters",
    "serve_fair",
    "watch_budget",
]

#: ``--time``: "cpu" orders requests by CPU used (fair time); "wall" by arrival.
TIME_MODES = ("cpu", "wall")
#: Seconds the actor waits at least and at most between two readings of the meters while a
#: request is held (the CPU the other team must still use is a lower bound of the wait).
POLL_MIN, POLL_MAX = 0.0005, 0.02
#: Scheduling rounds the actor lets pass between reading that a team is asleep and releasing on
#: that verdict: a request the team sent before it went to sleep is in its socket's buffer by
#: then; the readers get those rounds to hand it over, and it is ordered before the verdict.
SETTLE = 3
#: After the server sends a team a message, the team counts as awake (thinking) until its CPU
#: has moved (it has read and handled the message), for at most this many seconds: the
#: message may still be in the server's outbox or the socket, and a team that has not seen it
#: yet is not idle. (The bound covers a program that cannot be seen to run: ended, stopped.)
WAKE_SECONDS = 0.1
#: Seconds between two readings of the teams' CPU against their budget (time banks).
BUDGET_POLL = 0.05


class Meter(Protocol):
    """What the gate reads of one team's program (:class:`server.sandbox.cpu.CpuMeter`)."""

    def seconds(self) -> float: ...

    def runnable(self) -> bool: ...

    @property
    def source(self) -> str:
        """Where the CPU is read: "task clock", "cgroup1", "cgroup2" or "proc"."""
        ...

    def close_clock(self) -> None:
        """The match is over: let go of what the meter holds open (its last reading stays)."""
        ...


@dataclass(frozen=True, slots=True)
class TimeLimit:
    """``team`` went past its CPU budget (for its match's actor: the team forfeits)."""

    team: int


@dataclass
class TeamCpu:
    """One team's CPU in a match: the total, and what each of its requests cost (the CPU it
    used between the server's last message to it and the request)."""

    seconds: float = 0.0
    requests: list[float] = field(default_factory=list)

    def per_request(self) -> float | None:
        """The mean CPU seconds of a request (None: no request)."""
        return sum(self.requests) / len(self.requests) if self.requests else None


class FairGate:
    """The requests of one match, held until fair time lets them go (see the module's text)."""

    def __init__(
        self,
        meters: Mapping[int, Meter],
        *,
        ordered: bool = True,
        budget: float | None = None,
        allowance: float = ALLOWANCE,
    ) -> None:
        self.meters = dict(meters)
        self.ordered = ordered
        self.budget = budget
        self.allowance = allowance
        self.order = FairOrder(len(self.meters), allowance)
        self.cpu = {team: TeamCpu() for team in self.meters}
        #: Each team's CPU when the server last sent it a message.
        self._since = dict.fromkeys(self.meters, 0.0)
        #: Each team's CPU before the match began (its program's start-up): not counted.
        self.before = dict.fromkeys(self.meters, 0.0)
        #: Teams sent a message they have not handled yet: (CPU then, until when at most).
        self._waking: dict[int, tuple[float, float]] = {}
        #: Teams owed messages held back: their clock when the first began to wait.
        self._owed_since: dict[int, float] = {}

    def begin(self) -> None:
        """The match begins (the dungeon is sent): CPU counts from here for every team."""
        for team, meter in self.meters.items():
            self.before[team] = meter.seconds()

    def read(self, team: int) -> float:
        """``team``'s CPU seconds since the match began (also kept as its match total)."""
        seconds = max(0.0, self.meters[team].seconds() - self.before[team])
        self.cpu[team].seconds = seconds
        return seconds

    def spend(self, team: int) -> float:
        """A request of ``team`` came in: the CPU it cost (since the server's last message to
        the team, or its last request), recorded."""
        now = self.read(team)
        spent = max(0.0, now - self._since[team])
        self._since[team] = now
        self.cpu[team].requests.append(spent)
        return spent

    def sent(self, team: int) -> None:
        """The server sent ``team`` a message: the next request's cost counts from here, and
        the team is awake until it has handled it (WAKE_SECONDS at most)."""
        cpu = self.read(team)
        self._since[team] = cpu
        self._waking[team] = (cpu, trio.current_time() + WAKE_SECONDS)
        self._owed_since.pop(team, None)  # what it is owed from now on waits from now

    def arrive(self, team: int, item: Any, *, request: bool = True) -> None:
        """``item`` of ``team`` came in (a request, or what must stay in order with its
        requests: a refused line, a closed socket); held until :meth:`release`."""
        cost = self.spend(team) if request else None
        self.order.arrive(team, self.cpu[team].seconds, (item, cost))

    def observe(self) -> None:
        """Read every team's program: CPU so far and whether a thread of it is runnable."""
        for team, meter in self.meters.items():
            cpu, runnable = self.read(team), meter.runnable()
            waking = self._waking.get(team)
            if waking is not None:
                if cpu > waking[0] or trio.current_time() >= waking[1]:
                    del self._waking[team]
                else:
                    runnable = True  # sent a message it has not handled yet
            self.order.observe(team, cpu, runnable=runnable)

    def held(self) -> bool:
        return any(state.held for state in self.order.teams)

    def release(self) -> list[tuple[Any, float | None]]:
        """What may be applied now, in order, each with its request's CPU (None: not a
        request). Call :meth:`observe` (and let the readers run) first."""
        return self.order.release()

    def flush(self) -> list[tuple[Any, float | None]]:
        """Every held item, by stamp then team (the inbox has ended: nobody can undercut)."""
        held = [(stamp, team, seq, item)
                for team, state in enumerate(self.order.teams)
                for stamp, seq, item in state.held]  # fmt: skip
        for state in self.order.teams:
            state.held.clear()
        return [item for _, _, _, item in sorted(held, key=lambda h: h[:3])]

    def holding(self, owed: Collection[int]) -> frozenset[int]:
        """Of the teams ``owed`` messages, those whose messages must wait now
        (:meth:`dungeon.fairtime.FairOrder.waits`, on the last :meth:`observe`); none in wall
        time."""
        if not self.ordered:
            return frozenset()
        for team in set(self._owed_since) - set(owed):
            del self._owed_since[team]
        for team in owed:
            self._owed_since.setdefault(team, self.order.clock(team))
        return frozenset(team for team in owed if self._lag(team) > 0.0)

    def _lag(self, team: int) -> float:
        return self.order.waits(team, self._owed_since.get(team))

    def wait(self) -> float:
        """Seconds to wait before reading the meters again while a request or a message is
        held: the CPU the thinking team must still use to pass it, within [POLL_MIN,
        POLL_MAX]."""
        lags = [lag for lag in map(self._lag, self._owed_since) if lag > 0.0]
        if any(self.order.teams[team].runnable for team in self._owed_since):
            lags.append(POLL_MIN)  # held for a team thinking: read it again soon (asleep?)
        heads = [(state.held[0][0], n) for n, state in enumerate(self.order.teams) if state.held]
        if heads:
            stamp = min(heads)[0]
            lags.append(min(
                (stamp - self.order.clock(n) for n, s in enumerate(self.order.teams) if not s.held),
                default=0.0,
            ))  # fmt: skip
        if not lags:
            return POLL_MAX
        return min(POLL_MAX, max(POLL_MIN, min(lags)))

    def over_budget(self) -> int | None:
        """The first team past its CPU budget (reading the meters), or None."""
        for team in self.meters:
            if over_budget(self.read(team), self.budget):
                return team
        return None

    def end(self) -> None:
        """The match is over: every meter lets go of what it holds open (a task clock's
        descriptors); the readings stay."""
        for meter in self.meters.values():
            meter.close_clock()

    def summary(self) -> dict[str, Any]:
        """Each team's CPU for the match log's close line and the results: seconds in the match,
        before it (start-up), requests, mean and largest per request (seconds, rounded to
        microseconds), and the clock it was read from (the meter's source)."""
        out: dict[str, Any] = {}
        for team, cpu in self.cpu.items():
            mean = cpu.per_request()
            out[str(team)] = {
                "seconds": round(cpu.seconds, 6),
                "before": round(self.before[team], 6),
                "requests": len(cpu.requests),
                "per_request": None if mean is None else round(mean, 6),
                "max_request": round(max(cpu.requests), 6) if cpu.requests else None,
                "clock": self.meters[team].source,
            }
        return out


def loopback_meters(filling: Filling[Any]) -> dict[int, Meter] | None:
    """Each team's meter for a full match of external programs (``arena serve --time cpu``):
    the processes holding the client ends of its six sockets (each seat's connection's
    ``transport.stream``), found through ``/proc``
    (:func:`server.sandbox.cpu.socket_owners`; loopback clients on this machine only), each
    counted with its descendants. None when a team's processes cannot be seen, or one process
    holds sockets of both teams (or is this server's): the match is then played in arrival
    order."""
    peers: dict[int, list[tuple[str, int]]] = {0: [], 1: []}
    for slot, conn in filling.seats.items():
        stream = conn.transport.stream
        if not isinstance(stream, trio.SocketStream):
            return None
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:
            return None
        peers[slot.team].append((host, port))
    owners = {team: socket_owners(addresses) for team, addresses in peers.items()}
    if (
        not owners[0]
        or not owners[1]
        or owners[0] & owners[1]
        or os.getpid() in owners[0] | owners[1]
    ):
        return None
    meters: dict[int, Meter] = {}
    for team, pids in owners.items():
        meter = CpuMeter("proc")
        for pid in sorted(pids):
            meter.watch(pid)
        meter.attach_running()
        meters[team] = meter
    return meters


# -- the match's loop in fair time (its actor's, server.actor) ----------------------------------


async def serve_fair(
    inbox: trio.MemoryReceiveChannel[Any],
    gate: FairGate,
    engine: Any,
    handle: Callable[..., None],
    send_pending: Callable[[], bool],
) -> None:
    """The match's loop in fair time: every request (and what must stay in order with a team's
    requests) is held in ``gate`` and applied (``handle(item, cost)``) when fair time lets it
    go; the meters are read again at least every POLL_MAX while something is held. Other
    items are handled at once; ``send_pending`` after each round (it hands over what
    :meth:`FairGate.holding` lets go, and says whether it held messages back)."""

    batch: list[Submitted | Refused | Closed] = []

    def take(item: Any) -> None:
        # A team's item waits for the round's batch (in order with its requests); the rest is
        # handled at once.
        if isinstance(item, Submitted | Refused | Closed):
            batch.append(item)
        else:
            handle(item)

    def take_waiting() -> bool:
        # Take every item already in the inbox, then hand the round's batch to the gate in the
        # order of teams and agents (stable: a socket's own items keep their order), not in
        # the order the scheduler happened to run the sockets' readers; False once it has ended.
        open_ = True
        while True:
            try:
                take(inbox.receive_nowait())
            except trio.WouldBlock:
                break
            except trio.EndOfChannel:
                open_ = False
                break
        batch.sort(key=lambda item: (item.seat.team, item.seat.agent))
        for item in batch:
            gate.arrive(item.seat.team, item, request=isinstance(item, Submitted))
        batch.clear()
        return open_

    open_ = True
    holding = False  # messages held back for a team (FairGate.holding)
    while open_ and not engine.is_over:
        with trio.move_on_after(gate.wait() if gate.held() or holding else math.inf):
            try:
                take(await inbox.receive())
            except trio.EndOfChannel:
                open_ = False
        open_ = take_waiting() and open_
        if gate.held() or holding:
            # The verdict "asleep" is read first, then the readers get SETTLE rounds to
            # queue what the team sent before it slept, which is then ordered before it.
            gate.observe()
            for _ in range(SETTLE):
                await trio.lowlevel.checkpoint()
            open_ = take_waiting() and open_
            released = gate.release() if open_ else gate.flush()
            for item, cost in released:
                if engine.is_over:
                    break  # ended this round (a time bank read meanwhile): nothing after
                handle(item, cost)
        holding = send_pending()


async def watch_budget(engine: Any, gate: FairGate, inbox: trio.MemorySendChannel[Any]) -> None:
    """Reads the meters every BUDGET_POLL seconds; a team past its CPU budget is reported to
    the match's actor (TimeLimit, through ``inbox``), which ends the match: that team
    forfeits."""
    async with inbox.clone() as report:
        while not engine.is_over:
            await trio.sleep(BUDGET_POLL)
            team = gate.over_budget()
            if team is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await report.send(TimeLimit(team))
                return
