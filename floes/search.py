"""Searches over a floes position, for any geometry and either scoring rule.

:func:`minimax_move` is the courses' minimax: the seat to move maximises its own score over the
next ``depth`` of its own turns, every other seat minimises that score, and among equally good
moves the smallest (from, to) wins. It is computed with alpha-beta pruning and a few exact bounds,
never changing the chosen move (see the proofs in the comments). :func:`place_by_value` places
a penguin where a position evaluation likes it best.
"""

from __future__ import annotations

from collections.abc import Callable

from floes.state import Floes

__all__ = ["minimax_move", "minimax_value", "next_mover", "place_by_value"]

Move = tuple[int, int]


def next_mover(state: Floes, after: int) -> int:
    """The first active seat after ``after`` (cyclically, ending with ``after`` itself) that can
    move, or -1 when nobody can."""
    seats = state.seats
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if state.active[seat] and state.can_move(seat):
            return seat
    return -1


def place_by_value(state: Floes, me: int, value: Callable[[Floes, int], float]) -> int | None:
    """The free floe where a new penguin of ``me`` gives the highest ``value(state, me)``
    (the lowest tile among equals); None when it cannot place. Each placement is tried on
    ``state`` itself (penguin, owner and, when the rules collect on placing, the fish) and
    undone before the next."""
    best_tile, best_value = None, -1e18
    collect = state.rules.collect_on_place
    for tile in state.placements(me):
        fish = state.fish[tile]
        state.owner[tile] = me
        state.penguins[me].append(tile)
        if collect:
            state.scores[me] += fish
            state.fish[tile] = 0
        found = value(state, me)
        if collect:
            state.fish[tile] = fish
            state.scores[me] -= fish
        state.penguins[me].pop()
        state.owner[tile] = -1
        if found > best_value + 1e-9:
            best_tile, best_value = tile, found
    return best_tile


class _Minimax:
    """One minimax search for seat ``me``: the recursion with its board arrays held locally."""

    def __init__(self, state: Floes, me: int) -> None:
        self.state = state
        self.me = me
        self.top = max(state.fish, default=0)
        self.can_move = state.can_move

    def moves(self, seat: int) -> list[tuple[int, int]]:
        """(penguin index, destination) pairs, in no particular order."""
        fish, owner, rays = self.state.fish, self.state.owner, self.state.layout.rays
        out = []
        for index, src in enumerate(self.state.penguins[seat]):
            for line in rays[src]:
                for dst in line:
                    if fish[dst] <= 0 or owner[dst] >= 0:
                        break
                    out.append((index, dst))
        return out

    def last_gain(self) -> int:
        """My best points in one move, now (I can move)."""
        state, me = self.state, self.me
        fish, owner = state.fish, state.owner
        if state.rules.score_on_leave:
            best = 0
            for src in state.penguins[me]:
                if fish[src] > best:
                    for other in state.layout.neighbours[src]:
                        if fish[other] > 0 and owner[other] < 0:
                            best = fish[src]
                            break
            return best
        return max(fish[dst] for _, dst in self.moves(me))

    def last_bounds(self, mover: int) -> tuple[int, int]:
        """Bounds on my points in my coming last move, with ``mover`` (an opponent) to play.

        Each opponent move takes at most one free tile away (the tile it leaves was not free), so
        a penguin of mine with more free neighbours than there are opponent moves before my turn
        can surely move: that gives the lower bound. Nothing frees a tile: the upper bound is my
        best penguin able to move now. Valid when a move scores the tile it leaves.
        """
        state, me = self.state, self.me
        fish, owner = state.fish, state.owner
        seats = state.seats
        before = 0
        seat = mover
        while seat != me:
            before += state.active[seat]
            seat = (seat + 1) % seats
        low = high = 0
        for src in state.penguins[me]:
            free = 0
            for other in state.layout.neighbours[src]:
                if fish[other] > 0 and owner[other] < 0:
                    free += 1
            if free:
                points = fish[src]
                high = max(high, points)
                if free > before:
                    low = max(low, points)
        return low, high

    def ceiling(self, remaining: int) -> int:
        """An upper bound on my final score with ``remaining`` turns of mine to go: no move of
        mine scores more than the richest tile on the board, and when a move scores the tile it
        leaves, my next one scores at most my richest penguin's tile."""
        state = self.state
        score = state.scores[self.me]
        if not state.rules.score_on_leave:
            return score + remaining * self.top
        fish = state.fish
        mine = max(fish[src] for src in state.penguins[self.me])
        return score + mine + (remaining - 1) * self.top

    def value(self, mover: int, remaining: int, alpha: int, beta: int) -> int:
        """My final score with ``mover`` to play and ``remaining`` turns of mine to go (>= 1);
        I can move. Fail-soft: a result <= alpha is an upper bound, >= beta a lower bound."""
        state, me = self.state, self.me
        score = state.scores[me]
        if mover == me:
            if remaining == 1:
                return score + self.last_gain()
            ceiling = self.ceiling(remaining)
            if ceiling <= alpha:
                return ceiling
            best = -1
            moves = self.moves(me)
            # Richest landing first (the tile my next move scores, or this move's points):
            # measured the best order for an early high alpha.
            fish = state.fish
            moves.sort(key=lambda move: -fish[move[1]])
            for index, dst in moves:
                undo = state.push(me, index, dst)
                if self.can_move(me):
                    found = self.value(next_mover(state, me), remaining - 1, max(alpha, best), beta)
                else:
                    found = state.scores[me]
                state.pop(undo)
                if found > best:
                    best = found
                    if best >= beta:
                        break
            return best
        if remaining == 1 and state.rules.score_on_leave:
            low, high = self.last_bounds(mover)
            if low == high or score + high <= alpha:
                return score + high
            if score + low >= beta:
                return score + low
        else:
            ceiling = self.ceiling(remaining)
            if ceiling <= alpha:
                return ceiling
        best = 1 << 30
        moves = self.moves(mover)
        # Landings next to my penguins first: those are the moves that can hurt me.
        near = {other for src in state.penguins[me] for other in state.layout.neighbours[src]}
        moves.sort(key=lambda move: move[1] not in near)
        for index, dst in moves:
            undo = state.push(mover, index, dst)
            if self.can_move(me):
                found = self.value(next_mover(state, mover), remaining, alpha, min(beta, best))
            else:
                found = state.scores[me]
            state.pop(undo)
            if found < best:
                best = found
                if best <= alpha:
                    break
        return best


def minimax_value(state: Floes, me: int, move: Move, depth: int) -> int:
    """The exact minimax value (my score after ``depth`` turns of mine) of playing ``move``."""
    search = _Minimax(state, me)
    undo = state.push(me, state.penguins[me].index(move[0]), move[1])
    try:
        if depth <= 1 or not search.can_move(me):
            return state.scores[me]
        return search.value(next_mover(state, me), depth - 1, -(1 << 30), 1 << 30)
    finally:
        state.pop(undo)


def minimax_move(state: Floes, me: int, depth: int) -> Move | None:
    """The move of seat ``me`` with the best minimax value over ``depth`` of its own turns, the
    smallest (from, to) among equals; None if it cannot move. ``state`` is left unchanged.

    Root moves are searched best-first (most points now), each with a window that only a truly
    better value can pass: a move after the best so far in tie order must beat its value, a move
    before it must only equal it. Both tests are exact with integer values, so the result is the
    same move a full minimax with the tie rule would choose.
    """
    moves = state.moves(me)
    if not moves:
        return None
    search = _Minimax(state, me)
    base = state.scores[me]
    order = sorted(moves, key=lambda move: (-state.gain(*move), move))
    best_value, best_move = -(1 << 30), None
    for move in order:
        alpha = best_value if best_move is not None and move > best_move else best_value - 1
        if base + state.gain(*move) + (depth - 1) * search.top <= alpha:
            continue  # cannot beat the best so far: skip the search
        undo = state.push(me, state.penguins[me].index(move[0]), move[1])
        if depth <= 1 or not search.can_move(me):
            found = state.scores[me]
        else:
            found = search.value(next_mover(state, me), depth - 1, alpha, 1 << 30)
        state.pop(undo)
        if found > alpha:
            best_value, best_move = found, move
    return best_move
