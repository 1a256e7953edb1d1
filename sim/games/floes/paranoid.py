"""A stronger player than the courses' minimax: paranoid alpha-beta with an evaluation.

The seat to move maximises, every other seat minimises, the same number: its score plus its
*prospects* minus the best opponent's score plus prospects. A seat's prospects are what it can
still expect to bank: the fish under each penguin that can still move (when a move scores the
tile left), plus the fish of every tile one move away, shared between the seats that can reach it.
Search deepens one ply at a time until a node budget runs out and keeps the deepest finished
iteration, so a move depends on the position and budget only, never on the clock.

Placement uses the same evaluation one penguin ahead: the free floe that leaves the placer with
the best prospects against its opponents.
"""

from __future__ import annotations

from sim.games.floes.state import Floes

__all__ = ["evaluate", "paranoid_move", "paranoid_placement"]

Move = tuple[int, int]


class _OutOfBudget(Exception):
    """The node budget ran out in the middle of an iteration."""


def evaluate(state: Floes, me: int) -> float:
    """My score and prospects minus those of my best opponent (see the module docstring)."""
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
    others = [value[seat] for seat in range(seats) if seat != me and state.active[seat]]
    return value[me] - (max(others) if others else 0.0)


class _Paranoid:
    def __init__(self, state: Floes, me: int, budget: int) -> None:
        self.state = state
        self.me = me
        self.budget = budget
        self.nodes = 0

    def moves(self, seat: int) -> list[tuple[int, int, int]]:
        """(gain, penguin index, destination), best gain first."""
        state = self.state
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

    def next_mover(self, after: int) -> int:
        state = self.state
        seats = state.seats
        for step in range(1, seats + 1):
            seat = (after + step) % seats
            if state.active[seat] and state.can_move(seat):
                return seat
        return -1

    def value(self, mover: int, plies: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        state = self.state
        if mover < 0 or plies == 0:
            return evaluate(state, self.me)
        maximising = mover == self.me
        best = -1e9 if maximising else 1e9
        for _, index, dst in self.moves(mover):
            undo = state.push(mover, index, dst)
            try:
                found = self.value(self.next_mover(mover), plies - 1, alpha, beta)
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


def paranoid_move(state: Floes, me: int, budget: int = 3000, max_plies: int = 40) -> Move | None:
    """The move of seat ``me`` after iterative deepening within ``budget`` nodes; None if it
    cannot move. ``state`` is left unchanged."""
    search = _Paranoid(state, me, budget)
    root = search.moves(me)
    if not root:
        return None
    penguins = state.penguins[me]
    best = root[0]
    for plies in range(1, max_plies + 1):
        alpha, chosen = -1e9, best
        order = [best] + [move for move in root if move != best]
        try:
            for move in order:
                undo = state.push(me, move[1], move[2])
                try:
                    found = search.value(search.next_mover(me), plies - 1, alpha, 1e9)
                finally:
                    state.pop(undo)
                if found > alpha:
                    alpha, chosen = found, move
        except _OutOfBudget:
            break
        best = chosen
        if search.nodes * 2 > budget:
            break  # the next iteration would not finish: keep the nodes for nothing
    return penguins[best[1]], best[2]


def paranoid_placement(state: Floes, me: int) -> int | None:
    """The free floe where a new penguin of ``me`` evaluates best (lowest tile among equals)."""
    best_tile, best_value = None, -1e18
    collect = state.rules.collect_on_place
    for tile in state.placements(me):
        fish = state.fish[tile]
        state.owner[tile] = me
        state.penguins[me].append(tile)
        if collect:
            state.scores[me] += fish
            state.fish[tile] = 0
        value = evaluate(state, me)
        if collect:
            state.fish[tile] = fish
            state.scores[me] -= fish
        state.penguins[me].pop()
        state.owner[tile] = -1
        if value > best_value + 1e-9:
            best_tile, best_value = tile, value
    return best_tile
