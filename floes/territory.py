"""Territory: who will get which fish, for searches that must see a penguin being walled in.

:func:`territory_values` floods the free floes from every penguin at once, one step (a
neighbour) per round: a floe goes to the seat whose penguins reach it first, a floe reached first
by two seats in the same round is contested and blocks both. A seat's value is its score plus
the fish of its territory (nearer floes weigh more, :data:`DECAY` per round) plus a little
mobility (:data:`MOBILITY` per floe reachable in one move). A penguin shut in a pocket of its
own keeps every fish of it; a penguin with no free neighbour gets nothing more.

:func:`territory_estimate` is the value for the paranoid search (:class:`floes.paranoid.
Paranoid`): mine minus the best opponent's. :func:`territory_placement` places where that value
is best. Standard library only (the Penguins player imports this on every call); the one
module state is a cache of each board shape's tile bits.
"""

from __future__ import annotations

from floes.search import place_by_value
from floes.state import Floes

__all__ = ["DECAY", "MOBILITY", "territory_estimate", "territory_placement", "territory_values"]

#: Weight of a territory floe per round of distance: 1, DECAY, DECAY**2, ...
DECAY = 0.9
#: Weight of each floe a seat's penguins reach in one move.
MOBILITY = 0.05


_BITS: dict[tuple[int, int], list[int]] = {}


def _bits(size: int, cols: int) -> list[int]:
    """Each tile's bit (built once per board shape, like the layouts themselves)."""
    found = _BITS.get((size, cols))
    if found is None:
        if len(_BITS) >= 64:
            _BITS.clear()
        found = _BITS[size, cols] = [1 << (tile + tile // cols) for tile in range(size)]
    return found


def territory_values(state: Floes) -> list[float]:
    """Each seat's score plus its weighted territory and mobility (0 for inactive seats).

    Bitboards: tile (r, c) is bit ``r * (cols + 1) + c``, so a spare always-empty column keeps
    a shift left or right from wrapping into the next row; one round of the flood is four shifts
    and a mask per seat."""
    fish, owner = state.fish, state.owner
    cols = state.layout.cols
    width = cols + 1
    seats = state.seats
    values = [float(score) for score in state.scores]
    free = ones = twos = threes = 0
    for bit, count, who in zip(_bits(state.layout.size, cols), fish, owner, strict=True):
        if count > 0 and who < 0:
            free |= bit
            if count == 1:
                ones |= bit
            elif count == 2:
                twos |= bit
            else:
                threes |= bit
    fronts: list[int] = []
    claimed = 0
    for seat in range(seats):
        if not state.active[seat]:
            values[seat] = 0.0
            fronts.append(0)
            continue
        mask = reach = 0
        for tile in state.penguins[seat]:
            mask |= 1 << (tile + tile // cols)
        # Slide every penguin one floe at a time in each direction, counting the floes.
        line = (mask << 1) & free
        while line:
            reach += line.bit_count()
            line = (line << 1) & free
        line = (mask >> 1) & free
        while line:
            reach += line.bit_count()
            line = (line >> 1) & free
        line = (mask << width) & free
        while line:
            reach += line.bit_count()
            line = (line << width) & free
        line = (mask >> width) & free
        while line:
            reach += line.bit_count()
            line = (line >> width) & free
        values[seat] += MOBILITY * reach
        fronts.append(mask)
        claimed |= mask
    weight = 1.0
    active = [seat for seat in range(seats) if fronts[seat]]
    while active:
        once = twice = 0
        for seat in active:
            front = fronts[seat]
            grown = ((front << 1) | (front >> 1) | (front << width) | (front >> width)) & free
            grown &= ~claimed
            fronts[seat] = grown
            twice |= once & grown
            once |= grown
        claimed |= once
        still = []
        for seat in active:
            own = fronts[seat] & ~twice
            if own:
                fronts[seat] = own
                gained = (own & ones).bit_count() + 2 * (own & twos).bit_count()
                values[seat] += weight * (gained + 3 * (own & threes).bit_count())
                still.append(seat)
        active = still
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
    return place_by_value(state, me, territory_estimate)
