"""``random``: a random walk with random switch settings; the floor any strategy must clear."""

from __future__ import annotations

import random

from client.strategies.knowledge import Knowledge
from protocol.messages import Sat, ServerMessage

__all__ = ["RandomWalk"]


class RandomWalk:
    """Every free agent steps to a random allowed neighbour and flips coins for the switches."""

    def __init__(self, team: int, seed: int) -> None:
        self.knowledge = Knowledge(team)
        self._rng = random.Random(seed)

    def observe(self, agent: int, message: ServerMessage) -> None:
        self.knowledge.observe(agent, message)

    def choose_move(self, agent: int) -> int | None:
        here = self.knowledge.node_to_act_from(agent)
        if here is None:
            return None
        moves = self.knowledge.moves_from(here)
        return self._rng.choice(moves) if moves else None

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        return [self._rng.random() < 0.5 for _ in range(problem.switches)]
