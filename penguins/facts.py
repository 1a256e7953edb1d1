"""The facts of Penguins, declared once (OpenSpiel's ``_GAME_TYPE``): what the simulator, terminal
play and the game master's command line read instead of repeating them.

A module of its own, not in :mod:`penguins.rules`: the player program imports the rules on every
call and must not pay for :mod:`dataclasses` (:class:`floes.referee.GameType` is one).
"""

from __future__ import annotations

from floes.referee import GameType
from protocol.penguins import MAX_PLAYERS

__all__ = ["GAME_TYPE"]

#: 2 to 9 players (a board file numbers them 1-9) who act in turn; no chance after the board's
#: generation; every player sees the whole board.
GAME_TYPE = GameType("penguins", "Penguins", min_players=2, max_players=MAX_PLAYERS)
