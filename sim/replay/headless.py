"""Logical steps over the engine (spec section 6), for forks: continue a match from any state.

Each step, every agent whose strategy wants to move makes one complete crossing (move, problem,
solution, outcome), in an order drawn from the step-order generator; an agent left committed by
the state the fork starts from answers its pending problem first. The strategies get exactly the
messages a network client would. After ``steps`` steps without a result, ``TimeUp`` ends the
match as a draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from client.strategies.base import TeamStrategy
    from dungeon.engine import Disconnect, Match, Output, Request, TimeUp

    Input = Request | Disconnect | TimeUp

__all__ = ["deliver", "play_steps"]


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
    before: Callable[[Input], None] | None = None,
    after: Callable[[Output], None] | None = None,
) -> int:
    """Play up to ``steps`` logical steps; return how many were played (TimeUp after the last).

    ``before`` sees each input before the engine applies it, ``after`` each output (a log
    writer's ``input`` and ``output``, say); the strategies get every message either way.
    """
    from dungeon.engine import AGENTS, Request, TimeUp
    from protocol.messages import Move, Solution

    def apply(event: Input) -> Output:
        if before is not None:
            before(event)
        output = match.apply(event)
        if after is not None:
            after(output)
        deliver(output, strategies)
        return output

    played = 0
    while played < steps and not match.is_over:
        played += 1
        for index in order.permutation(len(AGENTS)).tolist():
            if match.is_over:
                break
            agent = AGENTS[index]
            strategy = strategies[agent.team]
            if match.pending(agent) is None:
                to = strategy.choose_move(agent.agent)
                if to is None:
                    continue
                apply(Request(agent, Move(to=to)))
            problem = match.pending(agent)
            if problem is None:
                continue  # the engine refused the move (the strategy got the error)
            assignment = strategy.solve(agent.agent, problem)
            apply(Request(agent, Solution(assignment=assignment)))
    if not match.is_over:
        apply(TimeUp())
    return played
