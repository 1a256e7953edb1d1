"""The headless dungeon's step schedule (spec section 6) and its one driver: the step-order
stream, the strategies' seeds, :class:`StepSchedule` (which agent acts next) and
:func:`play_steps`, which plays a match's crossings with team strategies. :mod:`sim.dungeon`
(whole matches, the State interface) and ``arena replay fork`` run them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from dungeon.engine import AGENTS, AgentId, Disconnect, Match, Output, Request, TimeUp
from protocol.messages import Move, Solution

if TYPE_CHECKING:
    from client.strategies.base import TeamStrategy

#: What a headless driver hands the engine.
Input = Request | Disconnect | TimeUp

__all__ = [
    "Input",
    "StepSchedule",
    "deliver",
    "play_steps",
    "step_order",
    "step_order_generator",
    "strategy_seed",
]


def step_order_generator(seed: int) -> np.random.Generator:
    """The step-order stream of a headless match: child 0 of ``SeedSequence(seed)``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed).spawn(1)[0]))


def strategy_seed(seed: int, team: int) -> int:
    """The seed team ``team``'s strategy gets in a headless match of ``seed`` (children 1, 2):
    ``client.strategies.base.strategy_seed``, the derivation network matches use too."""
    from client.strategies.base import strategy_seed as derive

    return derive(seed, team)


def step_order(generator: np.random.Generator) -> list[AgentId]:
    """The twelve agents in the order they act in the next step."""
    return [AGENTS[i] for i in generator.permutation(len(AGENTS)).tolist()]


class StepSchedule:
    """The one step schedule of a headless match (spec section 6), for :func:`play_steps` and
    :class:`sim.dungeon_state.DungeonState` alike: in each logical step the twelve agents act
    once each, in an order drawn from the step-order generator when the step begins; after
    ``limit`` steps the time is up. Orders are drawn only for steps that begin, so the
    generator's stream is the same whichever driver runs the match."""

    def __init__(self, order: np.random.Generator, limit: int) -> None:
        self._generator = order
        self.limit = limit
        #: Steps begun so far.
        self.steps = 0
        self._order: list[AgentId] = []
        self._turn = 0

    @property
    def turn(self) -> int:
        """The index, in its step's order, of the agent :meth:`next` gives next."""
        return self._turn

    def next(self) -> AgentId | None:
        """The next agent to act (a new step's order is drawn when one begins); None once
        ``limit`` steps have been played: the time is up."""
        if self._turn == 0:
            if self.steps >= self.limit:
                return None
            self._order = step_order(self._generator)
            self.steps += 1
        agent = self._order[self._turn]
        self._turn = (self._turn + 1) % len(AGENTS)
        return agent

    def clone(self) -> StepSchedule:
        twin = StepSchedule(np.random.Generator(np.random.PCG64()), self.limit)
        twin._generator.bit_generator.state = self._generator.bit_generator.state
        twin.steps, twin._order, twin._turn = self.steps, list(self._order), self._turn
        return twin


def deliver(output: Output, strategies: Sequence[TeamStrategy]) -> None:
    """Hand every message of ``output`` to the strategy of the team it is addressed to."""
    for outbound in output.messages:
        strategies[outbound.to.team].observe(outbound.to.agent, outbound.message)


def play_steps(
    match: Match,
    strategies: Sequence[TeamStrategy],
    order: np.random.Generator,
    steps: int,
    *,
    before: Callable[[Input], object] | None = None,
    after: Callable[[Output], object] | None = None,
) -> int:
    """Play up to ``steps`` logical steps from wherever ``match`` stands; return how many were
    played. ``TimeUp`` ends a match still open after the last one, as a draw.

    The one headless driver: whole matches (:func:`play_match`) and forks of a logged match
    (``arena replay fork``) both run it. An agent left committed by the state a fork starts
    from answers its pending problem first. ``before`` sees each input before the engine
    applies it and ``after`` each output (a log writer's ``input`` and ``output``, say); the
    strategies get every message either way.
    """

    def apply(event: Input) -> Output:
        if before is not None:
            before(event)
        output = match.apply(event)
        if after is not None:
            after(output)
        deliver(output, strategies)
        return output

    schedule = StepSchedule(order, steps)
    while not match.is_over and (agent := schedule.next()) is not None:
        strategy = strategies[agent.team]
        if match.pending(agent) is None:
            to = strategy.choose_move(agent.agent)
            if to is None:
                continue
            apply(Request(agent, Move(to=to)))
        problem = match.pending(agent)
        if problem is None:
            continue  # the engine refused the move; the strategy got the error
        assignment = strategy.solve(agent.agent, problem)
        apply(Request(agent, Solution(assignment=assignment)))
    if not match.is_over:
        apply(TimeUp())
    return schedule.steps
