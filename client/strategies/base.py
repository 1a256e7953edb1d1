"""The interface every team strategy implements, and the registry of strategies by name.

A strategy is a pure object: it reads the messages the team's six sockets receive and answers
with requests. No trio, no clock, no global randomness: its only chance is the
``random.Random(seed)`` it builds at construction, and its solver budgets are counted in
conflicts, so a headless simulation and a network client drive it the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from protocol.messages import Sat, ServerMessage

__all__ = ["STRATEGIES", "TeamStrategy", "make_strategy", "strategy_seed"]


class TeamStrategy(Protocol):
    """Plays one team of six agents (agent 0 is the heir)."""

    def observe(self, agent: int, message: ServerMessage) -> None:
        """Take in one message that ``agent``'s socket received (every message, in order)."""

    def choose_move(self, agent: int) -> int | None:
        """The node a free (uncommitted) ``agent`` should move to next; None to wait."""

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        """The switch assignment ``agent`` submits for ``problem``: one bool per switch."""


def _rusher(team: int, seed: int) -> TeamStrategy:
    from client.strategies.rusher import Rusher

    return Rusher(team, seed)


def _random(team: int, seed: int) -> TeamStrategy:
    from client.strategies.random_walk import RandomWalk

    return RandomWalk(team, seed)


def _reference(team: int, seed: int) -> TeamStrategy:
    from client.strategies.reference import Reference

    return Reference(team, seed)


def _classic(team: int, seed: int) -> TeamStrategy:
    from client.strategies.classic import Classic

    return Classic(team, seed)


#: strategy name -> factory(team, seed).
STRATEGIES: dict[str, Callable[[int, int], TeamStrategy]] = {
    "reference": _reference,
    "classic": _classic,
    "rusher": _rusher,
    "random": _random,
}


def strategy_seed(seed: int, team: int) -> int:
    """The seed team ``team``'s strategy gets in a match of seed ``seed``: child 1 + team of
    ``SeedSequence(seed)``. The one derivation for every match, headless or over the network
    (``arena match --seed``), so a seeded strategy plays the same way in both."""
    child = np.random.SeedSequence(seed).spawn(3)[1 + team]
    return int(child.generate_state(1, np.uint64)[0])


def make_strategy(
    name: str,
    team: int,
    seed: int,
    load: Callable[[str], Callable[[int, int], TeamStrategy]] | None = None,
) -> TeamStrategy:
    """A fresh strategy ``name`` playing ``team``: a built-in name or, when ``load`` is given,
    a strategy of one's own (``module:Class`` / ``path/to/file.py:Class``) that ``load`` turns
    into its class (the simulator's loader, ``sim.plugins.dungeon_strategy``: the client
    never imports the simulator). Raises ValueError naming the known ones, or what is wrong
    with a strategy of one's own."""
    if team not in (0, 1):
        raise ValueError(f"team must be 0 or 1, not {team!r}")
    factory = STRATEGIES.get(name)
    if factory is None and load is not None and ":" in name:
        factory = load(name)
    if factory is not None:
        return factory(team, seed)
    known = ", ".join(sorted(STRATEGIES))
    raise ValueError(
        f"unknown strategy {name!r}; known: {known}, or module:Class / path/to/file.py:Class"
    )
