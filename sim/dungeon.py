"""The dungeon in the simulator: headless matches over the server's own engine (spec section 6).

Two ways in, one rules engine (``dungeon.engine.Match``):

* :meth:`DungeonGame.play` drives a whole match with named team strategies
  (``client.strategies``): in each logical step the twelve agents act in an order drawn from the
  *step-order generator*; each agent whose strategy wants to move makes one complete crossing
  (move, trap problem, solution, outcome). Strategies receive exactly the messages a network
  client would, in the same order, and a move the engine refuses is answered with its ``error``
  as on the wire. After ``draw_steps`` steps, ``TimeUp`` ends the match as a draw.
* :class:`sim.dungeon_state.DungeonState` is the same schedule through the OpenSpiel-like State
  interface, for the conformance suite and search: one decision node per acting agent.

Chance: the trap problems and survival dice are the spec's match generator inside the engine
(seeded, cloned with the state), so a State shows no CHANCE nodes. The step order comes from a
second stream, ``SeedSequence(seed).spawn``'s child 0, and the team strategies' seeds from
children 1 and 2: the match generator only ever draws the dungeon, traps and dice, so a server
that receives the same requests in the same order plays the very same match. The schedule
and the driver both ways share are :mod:`sim.dungeon_steps`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dungeon.config import RulesConfig
from dungeon.engine import AGENTS, Match, Output
from dungeon.facts import GAME_TYPE
from sim.dungeon_figures import TeamFigures
from sim.dungeon_state import DRAW, LOSS, WIN, DungeonState
from sim.dungeon_steps import (
    Input,
    deliver,
    play_steps,
    step_order_generator,
    strategy_seed,
)
from sim.game import Bot, ChanceMode, Dynamics, GameInfo, MatchResult

if TYPE_CHECKING:
    from client.strategies.base import TeamStrategy
    from protocol.messages import Sat, ServerMessage
    from sim.timed import Timing

__all__ = ["DungeonGame", "play_match"]


def play_match(
    seed: int,
    seats: Sequence[str],
    config: RulesConfig,
    *,
    with_optimum: bool = True,
    log: Any = None,
    timing: Timing | None = None,
    clock: Callable[[], float] | None = None,
) -> MatchResult:
    """One headless match: team ``t`` played by strategy ``seats[t]``.

    ``log`` is an optional ``replay.matchlog.MatchLogWriter`` (header already written): every
    input, output and optimum goes to it, as a server writes them. ``timing`` None: the step
    schedule (spec section 6); else the timed schedule with these distributions
    (:mod:`sim.timed`), whose length is the simulated milliseconds (figure ``sim_ms``).
    ``clock`` (seconds, e.g. ``time.perf_counter``): measure each strategy's thinking, the
    result's ``think``.

    The match owns the facts its solver calls prove (:class:`dungeon.sat.SatFacts`): the
    optimum figure reads the verdicts the strategies' solvers reached on the same problems.
    """
    from dungeon.sat import SatFacts, remembering

    with remembering(SatFacts()):
        return _play_match(seed, seats, config, with_optimum, log, timing, clock)


def _play_match(
    seed: int,
    seats: Sequence[str],
    config: RulesConfig,
    with_optimum: bool,
    log: Any,
    timing: Timing | None,
    clock: Callable[[], float] | None = None,
) -> MatchResult:
    from client.strategies.base import make_strategy
    from sim.plugins import dungeon_strategy

    match = Match(seed, config)
    teams: list[TeamStrategy] = [
        make_strategy(name, team, strategy_seed(seed, team), load=dungeon_strategy)
        for team, name in enumerate(seats)
    ]
    watches = [] if clock is None else [_Stopwatch(team, clock) for team in teams]
    if watches:
        teams = list(watches)
    order = step_order_generator(seed)
    figures = TeamFigures(config.switches, with_optimum)

    def record(output: Output) -> None:
        if log is not None:
            log.output(output)
        for value in figures.add(output.events):
            if log is not None:
                log.optimum(*value)

    opening = match.begin()
    record(opening)
    if timing is not None:
        from sim.timed import play_timed, timing_generator

        def apply(event: Input) -> Output:
            if log is not None:
                log.input(event)
            output = match.apply(event)
            record(output)
            return output

        seconds = play_timed(
            match, teams, opening, timing, timing_generator(seed), config.draw_seconds, apply=apply
        )
        length = round(seconds * 1000)
        stats = figures.per_team(length, match.winner)
        for row in stats:
            row["sim_ms"] = row.pop("steps")
    else:
        deliver(opening, teams)
        length = play_steps(
            match,
            teams,
            order,
            config.draw_steps,
            before=None if log is None else log.input,
            after=record,
        )
        stats = figures.per_team(length, match.winner)
    winner = match.winner
    returns = [DRAW, DRAW] if winner is None else [WIN if t == winner else LOSS for t in (0, 1)]
    think = [(watch.seconds, watch.requests) for watch in watches]
    return MatchResult(returns=returns, length=length, stats=stats, winner=winner, think=think)


class _Stopwatch:
    """A team strategy whose calls are timed by ``clock``: the seconds spent in them, and the
    requests (moves and solutions) they made."""

    def __init__(self, strategy: TeamStrategy, clock: Callable[[], float]) -> None:
        self.strategy, self.clock = strategy, clock
        self.seconds = 0.0
        self.requests = 0

    def observe(self, agent: int, message: ServerMessage) -> None:
        started = self.clock()
        self.strategy.observe(agent, message)
        self.seconds += self.clock() - started

    def choose_move(self, agent: int) -> int | None:
        started = self.clock()
        target = self.strategy.choose_move(agent)
        self.seconds += self.clock() - started
        self.requests += target is not None
        return target

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        started = self.clock()
        assignment = self.strategy.solve(agent, problem)
        self.seconds += self.clock() - started
        self.requests += 1
        return assignment


class TeamStrategyName:
    """A named team strategy. Dungeon strategies play whole matches through
    :meth:`DungeonGame.play`, which feeds them their sockets' messages; they cannot pick an
    action from a bare State (they need the message history), so ``step`` refuses."""

    def __init__(self, name: str) -> None:
        self.name = name

    def step(self, state: Any, rng: Any) -> Any:
        raise TypeError(f"dungeon strategy {self.name!r} plays through DungeonGame.play")


def _timing(schedule: str, **given: float | None) -> Timing | None:
    """The timed schedule's distributions, or None for the step schedule."""
    from sim.timed import Timing

    chosen = {key: float(value) for key, value in given.items() if value is not None}
    if schedule == "steps":
        if chosen:
            raise ValueError(f"{', '.join(chosen)}: options of the timed schedule only")
        return None
    if schedule != "timed":
        raise ValueError(f"schedule {schedule!r}: choose timed or steps")
    return Timing(**chosen)


class DungeonGame:
    """The dungeon for the simulator. Options: any ``RulesConfig`` field (``nodes=300``),
    ``optimum`` (default True): compute each crossing's trap optimum for the figures, and
    ``schedule``: ``steps`` (default here; spec section 6) or ``timed`` (:mod:`sim.timed`, the
    default of ``arena sim``), with the timed schedule's ``think_ms``, ``delay_ms`` and
    ``jitter`` (None: :class:`sim.timed.Timing`'s defaults), and ``maps``: the match log's
    format, ``each`` (default: full), ``once`` (compact) or ``digest`` (docs/log-format.md),
    and ``log_budget``: a digest log's size budget in bytes (None: the writer's default)."""

    def __init__(
        self,
        optimum: bool = True,
        schedule: str = "steps",
        think_ms: float | None = None,
        delay_ms: float | None = None,
        jitter: float | None = None,
        maps: str = "each",
        log_budget: int | None = None,
        **rules: Any,
    ) -> None:
        self.log_budget = log_budget
        if maps not in ("each", "once", "digest"):
            raise ValueError(f"maps {maps!r}: choose each, once or digest")
        self.maps: Literal["each", "once", "digest"] = maps  # type: ignore[assignment]
        self.config = RulesConfig.from_dict(rules)
        self.with_optimum = optimum
        self.timing = _timing(schedule, think_ms=think_ms, delay_ms=delay_ms, jitter=jitter)
        self.info = GameInfo(
            name=GAME_TYPE.name,
            num_players=GAME_TYPE.max_players,
            min_return=LOSS,
            max_return=WIN,
            zero_sum=True,
            # Two decisions per agent per step, plus the TimeUp.
            max_game_length=2 * len(AGENTS) * self.config.draw_steps + 1,
            # Simultaneous on the wire; the State serialises each step in a drawn order.
            dynamics=Dynamics.SEQUENTIAL,
            chance=ChanceMode.SAMPLED,
            writes_match_log=True,
        )

    def strategies(self) -> Mapping[str, Callable[[], Bot]]:
        from client.strategies.base import STRATEGIES

        # Strategies of one's own (module:Class, file.py:Class) are loaded by name when played.
        return {name: partial(TeamStrategyName, name) for name in sorted(STRATEGIES)}

    def new_initial_state(self, seed: int) -> DungeonState:
        return DungeonState(seed, self.config)

    def play(self, seed: int, seats: Sequence[str]) -> MatchResult:
        self._check_seats(seats)
        return play_match(
            seed,
            seats,
            self.config,
            with_optimum=self.with_optimum,
            timing=self.timing,
            clock=None if self.timing is None else time.perf_counter,
        )

    def play_logged(self, seed: int, seats: Sequence[str], path: Path) -> MatchResult:
        """:meth:`play`, writing the match log (``source: "sim"``) to ``path``."""
        from replay.digestlog import DEFAULT_BUDGET, DigestLogWriter
        from replay.matchlog import MatchLogWriter, software_version

        self._check_seats(seats)
        if self.maps == "digest":
            path = path.with_name(path.name + ".gz")
        with path.open("wb") as stream:
            log: Any = (
                DigestLogWriter(
                    stream,
                    clock=time.monotonic,
                    budget=DEFAULT_BUDGET if self.log_budget is None else self.log_budget,
                )
                if self.maps == "digest"
                else MatchLogWriter(stream, clock=time.monotonic, maps=self.maps)
            )
            log.header(
                seed=seed,
                config=self.config.to_dict(),
                version=software_version(),
                match=None,
                source="sim",
                # A digest log names who played (its header has the field; schema 1 has none).
                **({"players": list(seats)} if self.maps == "digest" else {}),
            )
            result = play_match(
                seed,
                seats,
                self.config,
                with_optimum=self.with_optimum,
                log=log,
                timing=self.timing,
                clock=None if self.timing is None else time.perf_counter,
            )
            log.close(reason="game_over")
        return result

    def _check_seats(self, seats: Sequence[str]) -> None:
        from client.strategies.base import STRATEGIES

        if len(seats) != 2:
            raise ValueError(f"the dungeon has 2 teams, got {len(seats)} strategies")
        unknown = [name for name in seats if name not in STRATEGIES and ":" not in name]
        if unknown:
            raise ValueError(f"unknown dungeon strategies: {', '.join(unknown)}")
