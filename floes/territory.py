"""Territory: who will get which fish, for searches that must see a penguin being walled in.

:func:`territory_values` floods the free floes from every penguin at once, one step (a
neighbour) per round: a floe goes to the seat whose penguins reach it first, a floe reached first
by two seats in the same round is contested and blocks both. A seat's value is its score plus
the fish of its territory (nearer floes weigh more, :data:`DECAY` per round) plus a little
mobility (:data:`MOBILITY` per floe reachable in one move). A penguin shut in a pocket of its
own keeps every fish of it; a penguin with no free neighbour gets nothing more.

:func:`territory_estimate` is the value for the paranoid search (:class:`floes.paranoid.
Paranoid`): mine minus the best opponent's. :func:`territory_placement` places where that value
is best. Standard library only, no module state: the Penguins player imports this on every call.
"""

from __future__ import annotations

from floes.state import Floes

__all__ = ["DECAY", "MOBILITY", "territory_estimate", "territory_placement", "territory_values"]

#: Weight of a territory floe per round of distance: 1, DECAY, DECAY**2, ...
DECAY = 0.9
#: Weight of each floe a seat's penguins reach in one move.
MOBILITY = 0.05


def territory_values(state: Floes) -> list[float]:
    """Each seat's score plus its weighted territory and mobility (0 for inactive seats)."""
    fish, owner = state.fish, state.owner
    neighbours, rays = state.layout.neighbours, state.layout.rays
    seats = state.seats
    values = [float(score) for score in state.scores]
    claimed = [-1] * state.layout.size  # -1 unseen, -2 contested, else the seat
    frontier: list[tuple[int, int]] = []
    for seat in range(seats):
        if not state.active[seat]:
            values[seat] = 0.0
            continue
        reach = 0
        for tile in state.penguins[seat]:
            claimed[tile] = seat
            frontier.append((tile, seat))
            for line in rays[tile]:
                for other in line:
                    if fish[other] <= 0 or owner[other] >= 0:
                        break
                    reach += 1
        values[seat] += MOBILITY * reach
    weight = 1.0
    while frontier:
        found: dict[int, int] = {}
        for tile, seat in frontier:
            for other in neighbours[tile]:
                if claimed[other] != -1 or fish[other] <= 0 or owner[other] >= 0:
                    continue
                before = found.get(other)
                if before is None:
                    found[other] = seat
                elif before != seat:
                    found[other] = -2
        frontier = []
        for tile, seat in found.items():
            claimed[tile] = seat
            if seat >= 0:
                values[seat] += weight * fish[tile]
                frontier.append((tile, seat))
        weight *= DECAY
    return values


def territory_estimate(state: Floes, me: int) -> float:
    """My territory value minus the best active opponent's."""
    values = territory_values(state)
    others = [values[s] for s in range(state.seats) if s != me and state.active[s]]
    return values[me] - max(others, default=0.0)


def territory_placement(state: Floes, me: int) -> int | None:
    """The floe where a new penguin of ``me`` leaves the best :func:`territory_estimate` (the
    lowest tile among equals); None when it cannot place."""
    best_tile, best_value = None, -1e18
    collect = state.rules.collect_on_place
    for tile in state.placements(me):
        fish = state.fish[tile]
        state.owner[tile] = me
        state.penguins[me].append(tile)
        if collect:
            state.scores[me] += fish
            state.fish[tile] = 0
        value = territory_estimate(state, me)
        if collect:
            state.fish[tile] = fish
            state.scores[me] -= fish
        state.penguins[me].pop()
        state.owner[tile] = -1
        if value > best_value + 1e-9:
            best_tile, best_value = tile, value
    return best_tile
