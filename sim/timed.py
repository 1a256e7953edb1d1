"""The timed schedule of headless dungeon matches: real-time play, modelled.

Over the network each team is one task that reads its six sockets: it takes in the messages
that have arrived (a burst), answers each ``sat`` at once with a solution, then asks every free
agent for a move (``client/team.py``). The server applies requests in the order they arrive.
Who strikes first is then a race between round trips, not a turn in a step order.

:func:`play_timed` plays that race in simulated time, with no sockets and no clock: every
strategy call costs a *think time* and every message a one-way *network delay*, each drawn from
a seeded distribution (:class:`Timing`), and events happen in time order:

* a request reaching the server is applied there (``Match.apply``), at once; each message of
  the output reaches its socket one delay later (a socket delivers in order: never before the
  message sent on it before);
* a team wakes when a message reaches it and it is not busy; it takes every message arrived so
  far, in arrival order, as the client does (``observe``; a ``sat`` answered by ``solve``), then
  asks its free agents for moves (``choose_move``), as soon as all six ``dungeon`` messages
  came. Each call keeps the team busy for one think time; a request leaves when its call ends;
* when nothing is left to happen, or the next event lies past ``draw_seconds``, ``TimeUp``
  ends the match as a draw, as the server's timer does.

The draws come from their own stream (child 3 of ``SeedSequence(seed)``), so the match
generator draws exactly what a server receiving the same requests in the same order would,
and a match depends only on its seed: the same results for any number of workers.
"""

from __future__ import annotations

import enum
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from dungeon.engine import AGENTS, AgentId, Match, Output, Request, TimeUp
from protocol.messages import (
    Dungeon,
    Error,
    GameOver,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
)

if TYPE_CHECKING:
    from client.strategies.base import TeamStrategy

__all__ = ["Timing", "play_timed", "timing_generator"]

TEAM_AGENTS = 6


@dataclass(frozen=True)
class Timing:
    """The distributions of a timed match, in milliseconds.

    Think time of one strategy call: exponential of mean ``think_ms``. One-way delay of one
    message (network and server together): lognormal of median ``delay_ms`` and shape
    ``jitter`` (0: always ``delay_ms``).
    """

    think_ms: float = 0.3
    delay_ms: float = 0.3
    jitter: float = 0.5

    def __post_init__(self) -> None:
        for name in ("think_ms", "delay_ms", "jitter"):
            value = getattr(self, name)
            if not value >= 0:
                raise ValueError(f"{name} must be 0 or more, got {value!r}")
        if self.delay_ms == 0:
            raise ValueError("delay_ms must be positive: a message takes some time")

    def think(self, rng: np.random.Generator) -> float:
        """Seconds one strategy call keeps its team busy."""
        return rng.exponential(self.think_ms) / 1000 if self.think_ms else 0.0

    def delay(self, rng: np.random.Generator) -> float:
        """Seconds one message takes from its sender to its reader."""
        return self.delay_ms * float(np.exp(self.jitter * rng.standard_normal())) / 1000


def timing_generator(seed: int) -> np.random.Generator:
    """The think-time and delay stream of a timed match of ``seed``: child 3 of its seed."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed).spawn(4)[3]))


class _Phase(enum.Enum):
    WAITING = 0  # for its dungeon message
    FREE = 1
    MOVE_SENT = 2
    SOLUTION_SENT = 3


# Event kinds, in the order two events at the very same time are handled.
_TO_SERVER, _TO_TEAM, _WAKE = 0, 1, 2


class _Race:
    """The state of one timed match: the event queue, the sockets, the teams."""

    def __init__(
        self,
        match: Match,
        strategies: Sequence[TeamStrategy],
        timing: Timing,
        rng: np.random.Generator,
        apply: Callable[[Request | TimeUp], Output],
    ) -> None:
        self.match, self.strategies, self.timing, self.rng = match, strategies, timing, rng
        self.apply = apply
        self.events: list[tuple[float, int, int, object]] = []
        self.serial = 0
        self.socket_free = {agent: 0.0 for agent in AGENTS}  # last arrival on each socket
        self.to_server_free = {agent: 0.0 for agent in AGENTS}
        self.inbox: list[list[tuple[int, ServerMessage]]] = [[], []]
        self.busy_until = [0.0, 0.0]
        self.wake_planned = [False, False]
        self.phase = [[_Phase.WAITING] * TEAM_AGENTS for _ in (0, 1)]

    def push(self, when: float, kind: int, payload: object) -> None:
        self.serial += 1
        heapq.heappush(self.events, (when, kind, self.serial, payload))

    def deliver(self, now: float, output: Output) -> None:
        """Each message of a server output, to its socket, one delay later and in order."""
        for outbound in output.messages:
            arrival = max(now + self.timing.delay(self.rng), self.socket_free[outbound.to])
            self.socket_free[outbound.to] = arrival
            self.push(arrival, _TO_TEAM, (outbound.to, outbound.message))

    def send(self, when: float, agent: AgentId, message: Move | Solution) -> None:
        arrival = max(when + self.timing.delay(self.rng), self.to_server_free[agent])
        self.to_server_free[agent] = arrival
        self.push(arrival, _TO_SERVER, Request(agent, message))

    def arrive(self, now: float, to: AgentId, message: ServerMessage) -> None:
        team = to.team
        self.inbox[team].append((to.agent, message))
        if not self.wake_planned[team]:
            self.wake_planned[team] = True
            self.push(max(now, self.busy_until[team]), _WAKE, team)

    def wake(self, now: float, team: int) -> None:
        """The team takes its burst of messages, then asks its free agents for moves."""
        self.wake_planned[team] = False
        strategy, phase = self.strategies[team], self.phase[team]
        burst, self.inbox[team] = self.inbox[team], []
        clock = now
        for agent, message in burst:
            strategy.observe(agent, message)
            current = phase[agent]
            if isinstance(message, Dungeon):
                phase[agent] = _Phase.FREE
            elif isinstance(message, Error):
                if current in (_Phase.MOVE_SENT, _Phase.SOLUTION_SENT):
                    phase[agent] = _Phase.FREE
            elif isinstance(message, Sat):
                if current is _Phase.MOVE_SENT and not self.match.is_over:
                    phase[agent] = _Phase.SOLUTION_SENT
                    assignment = strategy.solve(agent, message)
                    clock += self.timing.think(self.rng)
                    self.send(clock, AgentId(team, agent), Solution(assignment=assignment))
            elif isinstance(message, Moved):
                if message.reason != "attacked" and current is _Phase.SOLUTION_SENT:
                    phase[agent] = _Phase.FREE
            elif isinstance(message, GameOver):
                pass
        if _Phase.WAITING not in phase and not self.match.is_over:
            for agent in range(TEAM_AGENTS):
                if phase[agent] is _Phase.FREE:
                    target = strategy.choose_move(agent)
                    clock += self.timing.think(self.rng)
                    if target is not None:
                        phase[agent] = _Phase.MOVE_SENT
                        self.send(clock, AgentId(team, agent), Move(to=target))
        self.busy_until[team] = clock
        if self.inbox[team] and not self.wake_planned[team]:
            self.wake_planned[team] = True
            self.push(clock, _WAKE, team)


def play_timed(
    match: Match,
    strategies: Sequence[TeamStrategy],
    opening: Output,
    timing: Timing,
    rng: np.random.Generator,
    limit_seconds: float,
    *,
    apply: Callable[[Request | TimeUp], Output],
) -> float:
    """Play ``match`` (begun: ``opening`` is its first output, not yet delivered) in simulated
    time; return the simulated seconds it took. ``apply`` applies an input to the match (and
    logs, counts, ... as the caller wishes); strategies get messages only through this
    schedule's deliveries."""
    race = _Race(match, strategies, timing, rng, apply)
    race.deliver(0.0, opening)
    now = 0.0
    while not match.is_over:
        if not race.events or race.events[0][0] > limit_seconds:
            now = limit_seconds
            apply(TimeUp())
            break
        now, kind, _, payload = heapq.heappop(race.events)
        if kind == _TO_SERVER:
            assert isinstance(payload, Request)
            race.deliver(now, apply(payload))
        elif kind == _TO_TEAM:
            to, message = cast(tuple[AgentId, ServerMessage], payload)
            race.arrive(now, to, message)
        else:
            assert isinstance(payload, int)
            race.wake(now, payload)
    return now
