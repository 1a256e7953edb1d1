"""A headless dungeon match through the simulator's OpenSpiel-like State interface (spec
section 6), for the conformance suite and search: one decision node per acting agent
(``current_player()`` is that agent's team), first a *move* (``STAY`` or an allowed neighbour),
then, if it moved, a *solve* whose actions are ``range(2**switches)`` (the assignment as an
integer, bit i = switch i+1). The schedule is :mod:`sim.dungeon_steps`'s, as in
:meth:`sim.dungeon.DungeonGame.play`: the same seed gives the same step order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from dungeon.config import RulesConfig
from dungeon.engine import AgentId, Match, Request, TimeUp
from protocol.messages import Move, Solution
from sim.dungeon_steps import StepSchedule, step_order_generator
from sim.game import TERMINAL

__all__ = ["DRAW", "LOSS", "STAY", "WIN", "DungeonState"]

#: The move action of an agent that waits this step.
STAY = -1
#: Returns: the winning team +1, the other -1; a draw 0 each.
WIN, LOSS, DRAW = 1.0, -1.0, 0.0


class DungeonState:
    """A headless match as decision nodes, one per acting agent (see the module docstring)."""

    def __init__(self, seed: int, config: RulesConfig) -> None:
        self.seed = seed
        self.config = config
        self.match = Match(seed, config)
        self.match.begin()
        self._schedule = StepSchedule(step_order_generator(seed), config.draw_steps)
        self._agent = self._schedule.next()
        self._solving = False
        self._history = hashlib.blake2b(f"{seed}".encode(), digest_size=16)

    @property
    def agent(self) -> AgentId:
        """The agent whose decision this is (the last one's once the match is over)."""
        assert self._agent is not None  # draw_steps >= 1 (RulesConfig)
        return self._agent

    @property
    def step(self) -> int:
        """Logical steps completed."""
        steps = self._schedule.steps
        return steps if self._schedule.turn == 0 else steps - 1

    def current_player(self) -> int:
        return TERMINAL if self.match.is_over else self.agent.team

    def legal_actions(self) -> Sequence[int]:
        if self.match.is_over:
            return []
        if self._solving:
            return range(2**self.config.switches)
        agent = self.agent
        enemy = 1 - agent.team
        barred = {self.match.dungeon.start[enemy], self.match.dungeon.shrine[enemy]}
        here = self.match.location(agent)
        return [STAY, *(n for n in self.match.dungeon.adjacency[here] if n not in barred)]

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        return []

    def apply_action(self, action: Any) -> None:
        if self.match.is_over:
            raise ValueError("the match is over")
        if not isinstance(action, int) or isinstance(action, bool):
            raise ValueError(f"an action is an int, not {action!r}")  # noqa: TRY004  State contract
        agent = self.agent
        if self._solving:
            switches = self.config.switches
            if not 0 <= action < 2**switches:
                raise ValueError(f"assignment {action} is not in range(2**{switches})")
            bits = [bool(action >> i & 1) for i in range(switches)]
            self.match.apply(Request(agent, Solution(assignment=bits)))
            self._solving = False
            self._next_turn()
        elif action == STAY:
            self._next_turn()
        else:
            if action not in self.legal_actions():
                raise ValueError(f"{agent} cannot move to node {action}")
            self.match.apply(Request(agent, Move(to=action)))
            self._solving = True
        self._history.update(f"/{action}".encode())

    def _next_turn(self) -> None:
        if self.match.is_over:
            return
        agent = self._schedule.next()
        if agent is None:
            self.match.apply(TimeUp())
        else:
            self._agent = agent

    def is_terminal(self) -> bool:
        return self.match.is_over

    def returns(self) -> Sequence[float]:
        winner = self.match.winner
        if not self.match.is_over or winner is None:
            return [DRAW, DRAW]
        return [WIN if team == winner else LOSS for team in (0, 1)]

    def clone(self) -> DungeonState:
        twin = object.__new__(DungeonState)
        twin.seed, twin.config = self.seed, self.config
        twin.match = self.match.clone()
        twin._schedule = self._schedule.clone()
        twin._agent, twin._solving = self._agent, self._solving
        twin._history = self._history.copy()
        return twin

    def serialize(self) -> str:
        """Where everyone stands, whose decision it is, and a digest of every action so far
        (with the seed, the actions determine the whole position, generators included)."""
        match = self.match
        return (
            f"dungeon seed={self.seed} step={self.step} turn={self._schedule.turn} "
            f"agent={self.agent.team}.{self.agent.agent} solving={self._solving} "
            f"over={match.is_over} winner={match.winner} "
            f"locations={match.locations(0)}{match.locations(1)} npcs={len(match.npcs)} "
            f"crossings={match.crossings} history={self._history.hexdigest()}"
        )
