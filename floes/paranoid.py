"""The strong player of both games: one paranoid alpha-beta search, configured per game.

The seat to move maximises, every other seat minimises, the same number: a finished game is
worth ``WIN`` plus the margin (my score minus the best opponent's; minus ``WIN`` when behind,
0 when level), so any decided game outweighs any heuristic; an unfinished leaf is worth the
game's *estimate* (:data:`Estimate`), the only part a game supplies. Which fish a move scores
comes from the rules (``score_on_leave``): moves are searched most points first.

:class:`Paranoid` deepens one ply at a time until a node budget runs out and keeps the deepest
finished iteration, so a move depends on the position and budget only, never on the clock. It
stops early when an iteration is exact (no line reached the horizon), decisive (its value is a
proven win or loss) or used half its budget (the next one would not finish). Among equally
valued moves it chooses the smallest (from, to), as both specs break ties; alpha-beta never
changes that choice (see :meth:`Paranoid.search`).

Fish plays it with :func:`evaluate` (score plus prospects) and places by
:func:`paranoid_placement`; Penguins with its own estimate
(``penguins.strategies.reach_estimate``) and its greedy placement.
"""

from __future__ import annotations

from floes.search import next_mover, place_by_value
from floes.state import Floes

__all__ = ["WIN", "Paranoid", "evaluate", "final_value", "paranoid_move", "paranoid_placement"]

# Only annotations need this: the Penguins player imports this module on every call.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    #: A game's value of an unfinished position for seat ``me`` (higher is better for ``me``).
    Estimate = Callable[[Floes, int], float]

Move = tuple[int, int]

#: A finished game's value before its margin: more than any estimate can differ by.
WIN = 1000.0

inf = float("inf")  # not math.inf: the Penguins player imports no math (docs/penguins.md)


class _OutOfBudget(Exception):
    """The node budget ran out in the middle of an iteration."""


def _best_other(state: Floes, me: int, values: list[float]) -> float:
    others = [values[seat] for seat in range(state.seats) if seat != me and state.active[seat]]
    return max(others, default=0.0)


def final_value(state: Floes, me: int) -> float:
    """A finished game for ``me``: ``WIN`` plus the margin if ahead, ``-WIN`` plus it if
    behind, 0 when level with the best opponent."""
    scores = [float(score) for score in state.scores]
    margin = scores[me] - _best_other(state, me, scores)
    if margin > 0:
        return WIN + margin
    if margin < 0:
        return -WIN + margin
    return 0.0


def evaluate(state: Floes, me: int) -> float:
    """Fish's estimate: my score and *prospects* minus those of my best opponent.

    A seat's prospects are what it can still expect to bank: the fish under each penguin that
    can still move (when a move scores the tile left), plus the fish of every tile one move away,
    shared between the seats that can reach it.
    """
    fish, owner, rays = state.fish, state.owner, state.layout.rays
    seats = state.seats
    leave = state.rules.score_on_leave
    value = [float(score) for score in state.scores]
    reach: dict[int, list[int]] = {}
    for seat in range(seats):
        if not state.active[seat]:
            continue
        for src in state.penguins[seat]:
            mobile = False
            for line in rays[src]:
                for dst in line:
                    if fish[dst] <= 0 or owner[dst] >= 0:
                        break
                    mobile = True
                    seen = reach.setdefault(dst, [])
                    if not seen or seen[-1] != seat:
                        seen.append(seat)
            if mobile and leave:
                value[seat] += fish[src]
    for dst, reachers in reach.items():
        share = fish[dst] / len(reachers)
        for seat in reachers:
            value[seat] += share
    return value[me] - _best_other(state, me, value)


class Paranoid:
    """Paranoid alpha-beta for one game: its ``estimate``, a node ``budget`` per move and a
    ``max_plies`` horizon (moves of any seat). One instance serves every move of a bot; ``nodes``
    and ``completed_depth`` describe the last :meth:`move` (for tests and benchmarks)."""

    def __init__(
        self,
        estimate: Estimate,
        budget: int,
        max_plies: int = 40,
        stop: Callable[[], bool] | None = None,
    ) -> None:
        self.estimate = estimate
        self.budget = budget
        self.max_plies = max_plies
        #: Asked every 64 nodes: True ends the search like a spent budget (a player program's
        #: wall-clock safety cap; None in the simulator, where only the budget counts).
        self.stop = stop
        #: Nodes visited by the last move, at most ``budget`` + 1.
        self.nodes = 0
        #: The deepest iteration the last move finished.
        self.completed_depth = 0
        self._state: Floes | None = None
        self._me = 0
        self._limit = budget
        self._horizon = False

    def move(self, state: Floes, me: int) -> Move | None:
        """The (from, to) move of seat ``me`` after iterative deepening within the budget; None
        if it cannot move. ``state`` is left unchanged."""
        self.nodes = self.completed_depth = 0
        moves = state.moves(me)
        if len(moves) <= 1:
            return moves[0] if moves else None
        self._start(state, me, self.budget)
        root = [(index, dst) for _, index, dst in self._moves(me)]
        best = root[0]
        for depth in range(1, self.max_plies + 1):
            order = [best] + [move for move in root if move != best]
            try:
                value, best = self._root(order, depth)
            except _OutOfBudget:
                break
            self.completed_depth = depth
            if not self._horizon or abs(value) >= WIN / 2:
                break  # exact, or decided within the horizon: deeper changes nothing
            if self.nodes * 2 > self.budget:
                break  # an iteration costs more than all before it: the next would not finish
        self._state = None
        return state.penguins[me][best[0]], best[1]

    def search(self, state: Floes, me: int, depth: int) -> tuple[float, Move]:
        """The value and (from, to) move of one full-width search ``depth`` plies deep, without a
        budget (seat ``me`` must be able to move). Alpha-beta returns exactly what plain paranoid
        minimax would, the smallest (from, to) among equal values: a root move after the best in
        that order must beat it, one before must only equal it, and a fail-soft result above its
        window's floor is exact."""
        self._start(state, me, 1 << 62)
        root = [(index, dst) for _, index, dst in self._moves(me)]
        value, (index, dst) = self._root(root, depth)
        self._state = None
        return value, (state.penguins[me][index], dst)

    def _start(self, state: Floes, me: int, limit: int) -> None:
        self._state, self._me, self._limit = state, me, limit
        self.nodes = 0

    def _moves(self, seat: int) -> list[tuple[int, int, int]]:
        """(points, penguin index, destination), most points first."""
        state = self._state
        assert state is not None
        fish, owner, rays = state.fish, state.owner, state.layout.rays
        leave = state.rules.score_on_leave
        out = []
        for index, src in enumerate(state.penguins[seat]):
            for line in rays[src]:
                for dst in line:
                    if fish[dst] <= 0 or owner[dst] >= 0:
                        break
                    out.append((fish[src] if leave else fish[dst], index, dst))
        out.sort(key=lambda move: -move[0])
        return out

    def _root(self, order: list[Move], depth: int) -> tuple[float, Move]:
        state, me = self._state, self._me
        assert state is not None
        tiles = state.penguins[me]
        self._horizon = False
        best_value, best, best_key = -inf, order[0], (-1, -1)
        for index, dst in order:
            key = (tiles[index], dst)
            undo = state.push(me, index, dst)
            try:
                after = next_mover(state, me)
                found = self._value(after, depth - 1, best_value, inf)
                # Fail-soft, a result equal to the best only bounds the value from above: a
                # smaller (from, to) takes the tie if the value also reaches the best from below.
                if (
                    found == best_value
                    and key < best_key
                    and self._value(after, depth - 1, -inf, best_value) >= best_value
                ):
                    best, best_key = (index, dst), key
            finally:
                state.pop(undo)
            if found > best_value:
                best_value, best, best_key = found, (index, dst), key
        return best_value, best

    def _value(self, mover: int, plies: int, alpha: float, beta: float) -> float:
        """The paranoid value with ``mover`` to play; fail-soft (a result <= alpha is an upper
        bound, >= beta a lower bound)."""
        self.nodes += 1
        if self.nodes > self._limit or (
            not self.nodes & 63 and self.stop is not None and self.stop()
        ):
            raise _OutOfBudget
        state = self._state
        assert state is not None
        if mover < 0:
            return final_value(state, self._me)
        if plies == 0:
            self._horizon = True
            return self.estimate(state, self._me)
        maximising = mover == self._me
        best = -inf if maximising else inf
        for _, index, dst in self._moves(mover):
            undo = state.push(mover, index, dst)
            try:
                found = self._value(next_mover(state, mover), plies - 1, alpha, beta)
            finally:
                state.pop(undo)
            if maximising:
                if found > best:
                    best = found
                    alpha = max(alpha, best)
            elif found < best:
                best = found
                beta = min(beta, best)
            if alpha >= beta:
                break
        return best


def paranoid_move(state: Floes, me: int, budget: int = 3000) -> Move | None:
    """Fish's strong move for seat ``me`` (:class:`Paranoid` with :func:`evaluate`)."""
    return Paranoid(evaluate, budget).move(state, me)


def paranoid_placement(state: Floes, me: int) -> int | None:
    """The free floe where a new penguin of ``me`` evaluates best (lowest tile among equals)."""
    return place_by_value(state, me, evaluate)
