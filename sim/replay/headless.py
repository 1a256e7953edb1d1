"""Logical steps over the engine (spec section 6), for forks: continue a match from any state.

Each step, every agent whose strategy wants to move makes one complete crossing (move, problem,
solution, outcome), in an order drawn from the step-order generator; an agent left committed by
the state the fork starts from answers its pending problem first. The strategies get exactly the
messages a network client would. After ``steps`` steps without a result, ``TimeUp`` ends the
match as a draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from client.strategies.base import TeamStrategy
    from dungeon.engine import Match, Output
    from protocol.matchlog import MatchLogWriter

__all__ = ["deliver", "play_steps"]

TEAM_SIZE = 6


def deliver(output: Output, strategies: Sequence[TeamStrategy]) -> None:
    """Hand every message of ``output`` to the strategy of the team it is addressed to."""
    for outbound in output.messages:
        strategies[outbound.to.team].observe(outbound.to.agent, outbound.message)


def play_steps(
    match: Match,
    strategies: Sequence[TeamStrategy],
    order: np.random.Generator,
    steps: int,
    log: MatchLogWriter | None = None,
) -> int:
    """Play up to ``steps`` logical steps; return how many were played (TimeUp after the last)."""
    from dungeon.engine import AgentId, Request, TimeUp
    from protocol.messages import Move, Sat, Solution

    def apply(event: Request | TimeUp) -> Output:
        if log is not None:
            log.input(event)
        output = match.apply(event)
        if log is not None:
            log.output(output)
        deliver(output, strategies)
        return output

    agents = [AgentId(team, agent) for team in (0, 1) for agent in range(TEAM_SIZE)]
    played = 0
    while played < steps and not match.is_over:
        played += 1
        for index in order.permutation(len(agents)).tolist():
            if match.is_over:
                break
            agent = agents[index]
            strategy = strategies[agent.team]
            problem = match.pending(agent)
            if problem is None:
                to = strategy.choose_move(agent.agent)
                if to is None:
                    continue
                answer = apply(Request(agent, Move(to=to)))
                sats = [m.message for m in answer.messages if isinstance(m.message, Sat)]
                if not sats:
                    continue  # the engine refused the move (the strategy got the error)
                problem = sats[0]
            assignment = strategy.solve(agent.agent, problem)
            apply(Request(agent, Solution(assignment=assignment)))
    if not match.is_over:
        apply(TimeUp())
    return played
