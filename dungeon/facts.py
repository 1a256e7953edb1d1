"""The facts of the dungeon, declared once (OpenSpiel's ``_GAME_TYPE``): what the simulator and the
tournaments read.

Two teams play at once on the wire (the engine applies their requests one at a time, in order of
arrival); every trap problem is drawn from the match's seed; a team sees the other's agents only
where it has line of sight.
"""

from __future__ import annotations

from floes.referee import GameType

__all__ = ["GAME_TYPE"]

GAME_TYPE = GameType(
    "dungeon",
    "Dungeon",
    min_players=2,
    max_players=2,
    sequential=False,
    deterministic=True,
    perfect_information=False,
)
