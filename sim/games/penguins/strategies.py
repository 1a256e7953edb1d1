"""Penguins strategies: pure functions of (position, seat, random generator).

* ``random``: a uniformly random placement or move.
* ``greedy``: moves to the floe with the most fish now; places where the most fish lie within
  reach (every placement collects exactly one fish, so "most fish now" cannot tell them apart).
* ``alphabeta``: iterative-deepening alpha-beta over the moves of all players in turn order,
  "paranoid" with more than two (every opponent plays against us), within a fixed budget of
  nodes, so its choice depends on the position alone, on every machine however loaded. Leaves
  are scored by fish (ours minus the best opponent's) plus a small bonus for the fish within
  reach, which tells a penguin about to be walled in from one with open water; a finished game
  counts as a win or loss before any margin. Placement uses the greedy reach heuristic.
* ``minimax2``: the courses' minimax over 2 of one's own turns from the shared floes core
  (:func:`sim.games.floes.minimax_move`): exact, opponents minimising our score.

Ties break by the smallest (from, to) tile pair (tiles are row-major), so only ``random`` draws
from the generator.

Standard library only: the player program imports this on every call.
"""

from __future__ import annotations

from sim.games.floes import Floes, minimax_move, next_mover

__all__ = ["STRATEGIES", "AlphaBetaStrategy", "Strategy", "make_strategy", "reach"]

# Only annotations need these: importing random alone costs ~2 ms of a player call that has 30.
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


class _OutOfBudget(Exception):
    """Raised inside the search when its node budget is spent."""


#: Weight of the fish within reach against fish already collected, at a leaf.
REACH_WEIGHT = 0.05
#: A finished game outweighs every heuristic difference.
WIN = 1000.0


class AlphaBetaStrategy(Strategy):
    """Iterative-deepening paranoid alpha-beta within ``budget`` nodes, up to ``max_depth``
    plies (moves of any player)."""

    name = "alphabeta"

    def __init__(self, budget: int = 3000, max_depth: int = 16) -> None:
        self.budget = budget
        self.max_depth = max_depth
        self.nodes = 0
        #: The deepest search finished within the budget by the last call (tests, benchmarks).
        self.completed_depth = 0

    def place(self, state: Floes, seat: int, rng: random.Random | None) -> int | None:
        return best_placement(state, seat)

    def move(self, state: Floes, seat: int, rng: random.Random | None) -> Move | None:
        moves = state.moves(seat)
        self.nodes = 0
        self.completed_depth = 0
        if len(moves) <= 1:
            return moves[0] if moves else None
        work = state.clone()
        # Root moves as (penguin index, destination), most fish first, then the tie order.
        fish = work.fish
        root = sorted(
            ((work.penguins[seat].index(src), dst) for src, dst in moves),
            key=lambda m: (-fish[m[1]], work.penguins[seat][m[0]], m[1]),
        )
        best = root[0]
        for depth in range(1, self.max_depth + 1):
            try:
                value, best = self._root(work, seat, root, best, depth)
            except _OutOfBudget:
                break
            self.completed_depth = depth
            if abs(value) >= WIN / 2:
                break  # every line ends the game within the horizon: deeper changes nothing
        return state.penguins[seat][best[0]], best[1]

    def _root(
        self, state: Floes, me: int, root: list[Move], first: Move, depth: int
    ) -> tuple[float, Move]:
        ordered = [first] + [m for m in root if m != first]
        alpha = -float("inf")
        best, best_value = first, -float("inf")
        for index, dst in ordered:
            undo = state.push(me, index, dst)
            try:
                value = self._value(state, me, me, depth - 1, alpha, float("inf"))
            finally:
                state.pop(undo)
            if value > best_value or (
                value == best_value and self._before(state, me, (index, dst), best)
            ):
                best, best_value = (index, dst), value
                alpha = max(alpha, value)
        return best_value, best

    @staticmethod
    def _before(state: Floes, me: int, move: Move, other: Move) -> bool:
        """Tie order: the smaller (from, to) tile pair."""
        tiles = state.penguins[me]
        return (tiles[move[0]], move[1]) < (tiles[other[0]], other[1])

    def _value(
        self, state: Floes, me: int, last: int, depth: int, alpha: float, beta: float
    ) -> float:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        mover = next_mover(state, last)
        if mover < 0:
            return _final(state, me)
        if depth == 0:
            return _estimate(state, me)
        fish, owner, rays = state.fish, state.owner, state.layout.rays
        moves = []
        for index, src in enumerate(state.penguins[mover]):
            for line in rays[src]:
                for dst in line:
                    if fish[dst] <= 0 or owner[dst] >= 0:
                        break
                    moves.append((index, dst))
        moves.sort(key=lambda m: -fish[m[1]])
        maximising = mover == me
        value = -float("inf") if maximising else float("inf")
        for index, dst in moves:
            undo = state.push(mover, index, dst)
            try:
                found = self._value(state, me, mover, depth - 1, alpha, beta)
            finally:
                state.pop(undo)
            if maximising:
                if found > value:
                    value = found
                    alpha = max(alpha, found)
            elif found < value:
                value = found
                beta = min(beta, found)
            if alpha >= beta:
                break
        return value


def _others_best(state: Floes, me: int, values: list[float]) -> float:
    others = [values[s] for s in range(state.seats) if s != me and state.active[s]]
    return max(others, default=0.0)


def _final(state: Floes, me: int) -> float:
    margin = state.scores[me] - _others_best(state, me, [float(s) for s in state.scores])
    if margin > 0:
        return WIN + margin
    if margin < 0:
        return -WIN + margin
    return 0.0


def _estimate(state: Floes, me: int) -> float:
    values = [
        state.scores[seat] + REACH_WEIGHT * sum(reach(state, t) for t in state.penguins[seat])
        for seat in range(state.seats)
    ]
    return values[me] - _others_best(state, me, values)


#: Strategy names to factories of a fresh strategy.
STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "random": RandomStrategy,
    "greedy": GreedyStrategy,
    "alphabeta": AlphaBetaStrategy,
    "minimax2": MinimaxStrategy,
}


def make_strategy(name: str) -> Strategy:
    """A fresh strategy by name (ValueError naming the choices otherwise)."""
    factory = STRATEGIES.get(name)
    if factory is None:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}")
    return factory()
