"""The referee vocabulary every game shares (issue 24, "one referee vocabulary").

A game's referee is a pure state machine: its shell (a server, a simulator, a replay) hands it
typed inputs, and it answers with a list of typed effects, which the shell carries out in order:

* :class:`Send`: a message for a seat (``close``: the seat's connection ends after it);
* :class:`Deadline`: the clock now waits for a seat (or for nobody), at most ``seconds``
  (None: the game's own limit);
* :class:`Record`: a fact for the game's log;
* :class:`Over`: the game is over, with its result.

Each game types the message, the record and the result it uses (``Send[Call]``,
``Record[Event]``, ``Over[GameResult]``). The facts of a game that never change (its name, how
many players it takes, ...) are declared once, as a :class:`GameType` (OpenSpiel's
``_GAME_TYPE``), in the game's package.

Pure and light (standard library only): any game may import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Deadline", "Effect", "GameType", "Over", "Record", "Send"]

M = TypeVar("M")
E = TypeVar("E")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Send(Generic[M]):
    """``message`` for ``seat``; ``close``: the seat's connection ends once it is sent."""

    seat: int
    message: M
    close: bool = False


@dataclass(frozen=True, slots=True)
class Deadline:
    """The clock now waits for ``seat`` (None: for nobody), at most ``seconds`` (None: the
    game's own limit)."""

    seat: int | None
    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Record(Generic[E]):
    """A fact for the game's log."""

    event: E


@dataclass(frozen=True, slots=True)
class Over(Generic[R]):
    """The game is over; ``result`` says how it ended."""

    result: R


#: What a referee returns, typed by the game: ``Effect[Call, Event, GameResult]``.
Effect = Send[M] | Deadline | Record[E] | Over[R]


@dataclass(frozen=True, slots=True)
class GameType:
    """The facts of a game, declared once in its package (OpenSpiel's ``GameType``).

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
