"""Penguins strategies: pure functions of (position, seat, random generator).

* ``random``: a uniformly random placement or move.
* ``greedy``: moves to the floe with the most fish now; places where the most fish lie within
  reach (every placement collects exactly one fish, so "most fish now" cannot tell them apart).
* ``alphabeta``: the floes core's paranoid alpha-beta (shared with Fish's ``paranoid``):
  iterative deepening over the moves of all players in turn order, every opponent playing
  against us, within a fixed budget of nodes, so its choice depends on the position alone, on
  every machine however loaded. A finished game counts as a win or loss before any margin; an
  unfinished leaf is scored by fish (ours minus the best opponent's) plus a small bonus for the
  fish within reach (:func:`reach_estimate`, the only Penguins part). Placement uses the greedy
  reach heuristic.
* ``minimax2``: the courses' minimax over 2 of one's own turns from the shared floes core
  (:func:`floes.minimax_move`): exact, opponents minimising our score.

Ties break by the smallest (from, to) tile pair (tiles are row-major), so only ``random`` draws
from the generator.

Standard library only: the player program imports this on every call.
"""

from __future__ import annotations

from floes import Floes, minimax_move
from floes.paranoid import Paranoid
from floes.territory import territory_estimate, territory_placement

__all__ = [
    "STRATEGIES",
    "TERRITORY_BUDGET",
    "AlphaBetaStrategy",
    "Strategy",
    "TerritoryStrategy",
    "make_strategy",
    "reach",
    "reach_estimate",
]

# Only annotations need these: a player call imports no random (start-up: docs/penguins.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from collections.abc import Callable

Move = tuple[int, int]


class Strategy:
    """Chooses a placement or a move for ``seat``, which is the seat to act in ``state``.

    ``rng`` is the generator a strategy may draw from; only ``random`` does, and the player
    program passes None to the others (sparing it the import of ``random``).
    """

    name = "base"

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        """The tile to place a penguin on, or None when no floe with one fish is free."""
        raise NotImplementedError

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        """A (from, to) move of one of the seat's penguins, or None when all are blocked."""
        raise NotImplementedError


class RandomStrategy(Strategy):
    name = "random"

    @staticmethod
    def _generator(rng: random.Random | None) -> random.Random:
        if rng is None:
            raise ValueError("the random strategy needs a random generator")
        return rng

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        tiles = state.placements(seat)
        return tiles[self._generator(rng).randrange(len(tiles))] if tiles else None

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        moves = state.moves(seat)
        return moves[self._generator(rng).randrange(len(moves))] if moves else None


def reach(state: Floes, tile: int) -> int:
    """Fish on the floes reachable from ``tile`` in one move, plus one per such floe."""
    fish, owner = state.fish, state.owner
    total = 0
    for line in state.layout.rays[tile]:
        for other in line:
            count = fish[other]
            if count <= 0 or owner[other] >= 0:
                break
            total += count + 1
    return total


def best_placement(state: Floes, seat: int) -> int | None:
    """The placement with the most :func:`reach` (the first in row-major order on ties)."""
    best, best_value = None, -1
    for tile in state.placements(seat):
        value = reach(state, tile)
        if value > best_value:
            best, best_value = tile, value
    return best


class GreedyStrategy(Strategy):
    name = "greedy"

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        return best_placement(state, seat)

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        best, best_gain = None, -1
        for move in state.moves(seat):
            gain = state.gain(*move)
            if gain > best_gain:
                best, best_gain = move, gain
        return best


class MinimaxStrategy(Strategy):
    """The courses' minimax over ``depth`` of its own turns (the floes core's search)."""

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth
        self.name = f"minimax{depth}"

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        return best_placement(state, seat)

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        return minimax_move(state, seat, self.depth)


#: Weight of the fish within reach against fish already collected, at a leaf.
REACH_WEIGHT = 0.05


def reach_estimate(state: Floes, me: int) -> float:
    """Penguins' estimate of an unfinished position: fish collected plus a small bonus for the
    fish within reach (:func:`reach`), which tells a penguin about to be walled in from one with
    open water; ours minus the best opponent's."""
    values = [
        state.scores[seat] + REACH_WEIGHT * sum(reach(state, tile) for tile in state.penguins[seat])
        for seat in range(state.seats)
    ]
    others = [values[s] for s in range(state.seats) if s != me and state.active[s]]
    return values[me] - max(others, default=0.0)


class _ParanoidStrategy(Strategy):
    """Moves by a :class:`~floes.paranoid.Paranoid` search, ``self.search``, and reports what
    its last move cost."""

    search: Paranoid

    @property
    def nodes(self) -> int:
        """Nodes the last move visited (at most the budget + 1)."""
        return self.search.nodes

    @property
    def completed_depth(self) -> int:
        """The deepest search finished within the budget by the last move."""
        return self.search.completed_depth

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        return self.search.move(state, seat)


class AlphaBetaStrategy(_ParanoidStrategy):
    """The floes core's paranoid alpha-beta (:class:`~floes.paranoid.Paranoid`, the
    same search as Fish's ``paranoid``) with :func:`reach_estimate`, within ``budget`` nodes, up
    to ``max_depth`` plies (moves of any player). Places like greedy."""

    name = "alphabeta"

    def __init__(self, budget: int = 3000, max_depth: int = 16) -> None:
        self.search = Paranoid(reach_estimate, budget, max_depth)

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        return best_placement(state, seat)


#: Territory's node budget: about 0.2 s a move on this machine (bench/bench_penguins.py).
TERRITORY_BUDGET = 2500


class TerritoryStrategy(_ParanoidStrategy):
    """The strongest: the same paranoid alpha-beta as ``alphabeta``, but its leaves are valued
    by territory (:func:`floes.territory.territory_estimate`: which seat reaches which fish
    first, so a penguin about to be walled in shows), and it places where that value is best.
    ``budget`` nodes a move; ``stop`` (a player program's wall-clock cap) may end it sooner."""

    name = "territory"

    def __init__(
        self, budget: int = TERRITORY_BUDGET, stop: Callable[[], bool] | None = None
    ) -> None:
        self.search = Paranoid(territory_estimate, budget, 40, stop)

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        return territory_placement(state, seat)


#: Strategy names to factories of a fresh strategy.
STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "alphabeta": AlphaBetaStrategy,
    "minimax2": MinimaxStrategy,
    "territory": TerritoryStrategy,
}


def make_strategy(name: str) -> Strategy:
    """A fresh strategy by name (ValueError naming the choices otherwise)."""
    factory = STRATEGIES.get(name)
    if factory is None:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    return factory()
