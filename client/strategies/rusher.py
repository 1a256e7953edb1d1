"""``rusher``: every agent takes a shortest path; heir to its shrine, henchmen to the enemy heir.

The baseline a smarter team must beat: no caution, no memory beyond where things are now.
"""

from __future__ import annotations

import random

from client.strategies.knowledge import HEIR, Knowledge
from client.strategies.solver import TrapSolver
from protocol.messages import Sat, ServerMessage

__all__ = ["Rusher"]


class Rusher:
    """Shortest paths for everyone; traps solved as well as the solver can."""

    def __init__(self, team: int, seed: int) -> None:
        self.knowledge = Knowledge(team)
        self._rng = random.Random(seed)
        self._solver = TrapSolver(self._rng.getrandbits(64))

    def observe(self, agent: int, message: ServerMessage) -> None:
        self.knowledge.observe(agent, message)

    def choose_move(self, agent: int) -> int | None:
        known = self.knowledge
        here = known.node_to_act_from(agent)
        if here is None:
            return None
        if agent == HEIR:
            target = known.own_shrine
        elif known.enemy_heir is not None:
            target = known.enemy_heir
        else:
            target = known.enemy_start
        if here == target:
            return None
        steps = known.steps_toward(here, target)
        return self._rng.choice(steps) if steps else None

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        return self._solver.solve(problem.traps, problem.switches)
