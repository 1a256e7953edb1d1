"""A dungeon team strategy of your own: copy this file, edit, and run it with

    arena sim dungeon --strategies docs/examples/dungeon_strategy.py:Cautious,rusher

(or ``arena match --strategies ...``, ``arena team --strategy ...``). A dungeon strategy is a
class made as ``Class(team, seed)`` with three methods: ``observe`` takes every message an
agent's socket receives, ``choose_move`` names the node a free agent moves to next (None:
wait) and ``solve`` answers a trap problem with one bool per switch. Use only the ``seed`` for
chance, so a seeded run replays the same way.

This one: the heir walks a shortest path to its shrine; henchmen guard the heir's next node
when an enemy is seen near it, else they hunt the enemy heir.
"""

from __future__ import annotations

import random

from client.strategies.knowledge import HEIR, Knowledge
from client.strategies.solver import TrapSolver
from protocol.messages import Sat, ServerMessage


class Cautious:
    def __init__(self, team: int, seed: int) -> None:
        self.knowledge = Knowledge(team)  # the graph, our agents, what we saw of the enemy
        self.rng = random.Random(seed)
        self.solver = TrapSolver(self.rng.getrandbits(64))  # exact, fast trap solving

    def observe(self, agent: int, message: ServerMessage) -> None:
        self.knowledge.observe(agent, message)

    def choose_move(self, agent: int) -> int | None:
        known = self.knowledge
        here = known.node_to_act_from(agent)
        if here is None:
            return None
        heir = known.location.get(HEIR, known.own_start)
        if agent == HEIR:
            target = known.own_shrine
        elif known.visible_enemies():
            target = heir  # someone is around: stay close to the heir
        elif known.enemy_heir is not None:
            target = known.enemy_heir
        else:
            target = known.enemy_start
        if here == target:
            return None
        steps = known.steps_toward(here, target)
        return self.rng.choice(steps) if steps else None

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        return self.solver.solve(problem.traps, problem.switches)
