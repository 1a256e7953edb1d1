"""The games the simulator runs, by name.

Imported lazily so that a command touching one game never pays for the others (the dungeon
needs numpy, scipy and pysat; the Fish harnesses must start in milliseconds).
"""

from __future__ import annotations

import importlib

# Not `from typing import ...`: typing costs milliseconds the Fish harnesses and the Penguins
# player (both import this package) cannot spare.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from sim.game import Game

__all__ = ["GAMES", "load_game"]

#: game name -> "module:attribute" of a zero-argument factory returning a sim.game.Game.
GAMES: dict[str, str] = {
    "dungeon": "sim.dungeon:DungeonGame",
    "fish": "fish.game:FishGame",
    "penguins": "penguins.game:PenguinsGame",
    "labyrinth": "labyrinth.game:LabyrinthGame",
}


def load_game(name: str, **options: Any) -> Game:
    """A fresh game object; ``options`` (rules settings such as ``nodes=200``) go to its factory,
    which raises TypeError or ValueError naming an option it does not accept."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    module_name, _, attribute = GAMES[name].partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    game: Game = factory(**options)
    return game
