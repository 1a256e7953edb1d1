"""The one vocabulary of the games' referees: what a pure referee asks of its shell.

A referee (Fish's referee, the Labyrinth's table, the Penguins judge; the dungeon's
``Match.apply -> Output`` says the same in its own types) takes one typed input at a time and
returns its effects, in the order the shell carries them out:

* :class:`Send`: a message for a seat's program (``close``: its connection ends after it);
* :class:`Deadline`: the clock now waits for this seat (None: for nobody);
* :class:`Record`: a line of the game's log, a typed entry of the game's own;
* :class:`Over`: the game ended, with its winners and why.

A game may add effects of its own beside these (the Labyrinth's ``BotTurn``). Standard library
only; ``floes/__init__`` does not import it (the Penguins player program, which imports
:mod:`floes`, needs none of it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["Deadline", "Over", "Record", "Send"]

M = TypeVar("M")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Send(Generic[M]):
    """``message`` for the program in ``seat``; ``close`` its connection after it."""

    seat: int
    message: M
    close: bool = False


@dataclass(frozen=True, slots=True)
class Deadline:
    """The clock now waits for ``seat`` (None: for nobody), ``seconds`` long when the referee
    sets the time (None: the shell's own limit)."""

    seat: int | None
    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Record(Generic[R]):
    """A line of the game's log."""

    entry: R


@dataclass(frozen=True, slots=True)
class Over:
    """The game ended: ``winners`` (none: a draw) and the reason."""

    winners: tuple[int, ...]
    reason: str
