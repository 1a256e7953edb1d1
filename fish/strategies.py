"""Fish strategies: bots choosing among a FishState's legal actions.

* ``random``: any legal action, uniformly, from the driver's generator.
* ``greedy``: the most fish now: places on the floe with the most fish, moves the penguin that
  stands on the most fish (the tile left is what a move scores); smallest tile or move among
  equals.
* ``minimaxD`` (any D >= 1): the course's player: places on the first free tile in row-major
  order, moves by minimax over D of its own turns with opponents minimising its score.
* ``paranoid``: the floes core's paranoid alpha-beta (:class:`floes.paranoid.Paranoid`,
  the same search as Penguins' ``alphabeta``) estimating score plus prospects against the best
  opponent, iterative deepening within a node budget; placement by the same evaluation.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Protocol

from floes import PLACEMENT, Floes, minimax_move
from floes.paranoid import Paranoid, evaluate, paranoid_placement

if TYPE_CHECKING:
    from sim.game import Bot

__all__ = [
    "GreedyBot",
    "MinimaxBot",
    "ParanoidBot",
    "RandomBot",
    "make_bot",
    "note",
    "strategy_names",
]

#: Nodes the paranoid search may visit per move.
PARANOID_BUDGET = 3000


class FishPosition(Protocol):
    """What a bot reads of a position (the simulator's :class:`fish.game.FishState` is one)."""

    floes: Floes

    def legal_actions(self) -> list[Any]: ...


class RandomBot:
    def step(self, state: FishPosition, rng: random.Random) -> Any:
        actions = state.legal_actions()
        return actions[rng.randrange(len(actions))]


class GreedyBot:
    def step(self, state: FishPosition, rng: random.Random) -> Any:
        floes = state.floes
        seat = floes.current
        if floes.phase == PLACEMENT:
            return max(floes.placements(seat), key=lambda tile: (floes.fish[tile], -tile))
        return min(floes.moves(seat), key=lambda move: (-floes.gain(*move), move))


class MinimaxBot:
    def __init__(self, depth: int) -> None:
        self.depth = depth

    def step(self, state: FishPosition, rng: random.Random) -> Any:
        floes = state.floes
        if floes.phase == PLACEMENT:
            return floes.placements(floes.current)[0]
        return minimax_move(floes, floes.current, self.depth)


class ParanoidBot:
    def __init__(self, budget: int = PARANOID_BUDGET) -> None:
        self.search = Paranoid(evaluate, budget)

    def step(self, state: FishPosition, rng: random.Random) -> Any:
        floes = state.floes
        if floes.phase == PLACEMENT:
            return paranoid_placement(floes, floes.current)
        return self.search.move(floes, floes.current)


def strategy_names() -> list[str]:
    """The names listed by the strategy table (any ``minimaxD`` works too)."""
    return ["greedy", "minimax1", "minimax2", "minimax3", "paranoid", "random"]


def note(name: str) -> str | None:
    """What a person should know to read a result of this strategy, or None."""
    depth = name.removeprefix("minimax")
    if name.startswith("minimax") and depth.isdigit():
        return (
            f"{name} is the course's player, kept to its rules: it places on the first free tile"
            " in row-major order whatever the fish there, and searches only its own score, so"
            " greedy (which places on the richest floes) beats it; paranoid is our strong"
            " player (docs/fish.md, Strategies)"
        )
    return None


def make_bot(name: str) -> Bot:
    """A fresh bot for one seat; raises ValueError for an unknown name."""
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "paranoid":
        return ParanoidBot()
    depth = name.removeprefix("minimax")
    if name.startswith("minimax") and depth.isdigit() and int(depth) >= 1:
        return MinimaxBot(int(depth))
    raise ValueError(f"unknown Fish strategy {name!r}; try {', '.join(strategy_names())}")
