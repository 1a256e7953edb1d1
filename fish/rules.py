"""Fish's rules on top of the floes core: hexagons in offset rows, scoring the tile left.

Odd rows sit half a tile to the right. From (r, c), with o = 1 on odd rows and e = 1 on even
rows: North (r-2, c), Northeast (r-1, c+o), Southeast (r+1, c+o), South (r+2, c), Southwest
(r+1, c-e), Northwest (r-1, c-e). The tuple order is the course's direction order.
"""

from __future__ import annotations

from floes import Geometry, Rules
from floes.referee import GameType

__all__ = [
    "COLORS",
    "DIRECTIONS",
    "FISH_RULES",
    "GAME_TYPE",
    "HEX",
    "MAX_FISH",
    "hex_step",
    "penguins_each",
]

#: Fish's facts, declared once: the referee, the simulator and the server read them here.
GAME_TYPE = GameType("fish", "Fish", min_players=2, max_players=4)

DIRECTIONS = ("north", "northeast", "southeast", "south", "southwest", "northwest")
COLORS = ("red", "white", "brown", "black")
MAX_FISH = 5


def hex_step(row: int, col: int, direction: int) -> tuple[int, int]:
    """One step from (row, col) in ``direction`` (an index into DIRECTIONS)."""
    odd = row & 1
    if direction == 0:
        return row - 2, col
    if direction == 1:
        return row - 1, col + odd
    if direction == 2:
        return row + 1, col + odd
    if direction == 3:
        return row + 2, col
    if direction == 4:
        return row + 1, col - 1 + odd
    if direction == 5:
        return row - 1, col - 1 + odd
    raise ValueError(f"no direction {direction}")


HEX = Geometry("hex", DIRECTIONS, hex_step)

#: A move scores the tile it leaves; any free tile takes a penguin; a seat that must place but
#: finds no free tile fails and leaves the game (the course's referee).
FISH_RULES = Rules(HEX, score_on_leave=True, eliminate_unplaceable=True)


def penguins_each(players: int) -> int:
    """Each of N players places 6 - N penguins."""
    return 6 - players
