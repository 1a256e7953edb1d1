"""A game's facts, declared once in its package (OpenSpiel's ``_GAME_TYPE``).

The effects a referee returns are in :mod:`floes.effects`. Pure and light (standard library
only): any game may import it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameType"]


@dataclass(frozen=True, slots=True)
class GameType:
    """The facts of a game that never change (OpenSpiel's ``GameType``).

    ``name`` is the game's name in commands, logs and the simulator; ``long_name`` its name for
    a person; ``min_players``/``max_players`` the seats a game may have; ``sequential``: one
    seat acts at a time (else all at once); ``deterministic``: no chance after the seed's
    setup; ``perfect_information``: every seat sees the whole position."""

    name: str
    long_name: str
    min_players: int
    max_players: int
    sequential: bool = True
    deterministic: bool = True
    perfect_information: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.name}: expected 1 <= min_players <= max_players")

    def check_players(self, players: int) -> None:
        """ValueError naming the game unless it takes ``players`` seats."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.long_name} is for {self.min_players}-{self.max_players} players,"
                f" got {players}"
            )
