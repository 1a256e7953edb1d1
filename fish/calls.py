"""The calls Fish's referee makes, typed (spec fish.md, "Referee"), and their JSON for the wire.

A call is one of :class:`PlayingAs`, :class:`PlayingWith`, :class:`Setup`, :class:`TakeTurn`;
its ``name`` is a :class:`CallName`. The State a call carries is a :class:`StateView`: the
remaining players as the called seat sees them (that seat first) and the board, with tiles as
ints ``row * cols + col``, read from the referee's position. ``to_json()`` gives the value
sent: ``["name", args]``, the State as the course's data definition
(``{"players": [{"color", "score", "places"}], "board"}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from floes import Floes

__all__ = [
    "CallName",
    "FishCall",
    "PlayerView",
    "PlayingAs",
    "PlayingWith",
    "Setup",
    "StateView",
    "TakeTurn",
]


class CallName(StrEnum):
    """The name of a call on the wire."""

    PLAYING_AS = "playing-as"
    PLAYING_WITH = "playing-with"
    SETUP = "setup"
    TAKE_TURN = "take-turn"


@dataclass(slots=True)
class PlayerView:
    """A remaining player in a State: its colour, its fish, its penguins' tiles."""

    color: str
    score: int
    places: tuple[int, ...]


@dataclass(slots=True)
class StateView:
    """A State as one seat sees it: the seats of the remaining players in ``order`` (the called
    seat first), each seat's colour, and the position. A view of the referee's position, not a
    copy: it reads the position as it is until the referee's next input (the shell turns it
    into JSON at once)."""

    order: tuple[int, ...]
    colors: tuple[str, ...]
    floes: Floes

    @property
    def players(self) -> tuple[PlayerView, ...]:
        floes, colors = self.floes, self.colors
        return tuple(
            [PlayerView(colors[s], floes.scores[s], tuple(floes.penguins[s])) for s in self.order]
        )

    @property
    def fish(self) -> tuple[int, ...]:
        """Fish per tile, ``row * cols + col`` (0: a hole)."""
        return tuple(self.floes.fish)

    def to_json(self) -> dict[str, Any]:
        floes, colors = self.floes, self.colors
        layout, fish, scores, penguins = floes.layout, floes.fish, floes.scores, floes.penguins
        cols = layout.cols
        return {
            "players": [
                {
                    "color": colors[seat],
                    "score": scores[seat],
                    "places": [list(divmod(tile, cols)) for tile in penguins[seat]],
                }
                for seat in self.order
            ],
            "board": [fish[row * cols : (row + 1) * cols] for row in range(layout.rows)],
        }


@dataclass(slots=True)
class PlayingAs:
    """``playing-as``: the seat's colour."""

    name: ClassVar[CallName] = CallName.PLAYING_AS
    color: str

    def to_json(self) -> list[Any]:
        return [self.name.value, [self.color]]


@dataclass(slots=True)
class PlayingWith:
    """``playing-with``: the other remaining players' colours, in turn order after the seat."""

    name: ClassVar[CallName] = CallName.PLAYING_WITH
    colors: tuple[str, ...]

    def to_json(self) -> list[Any]:
        return [self.name.value, [list(self.colors)]]


@dataclass(slots=True)
class Setup:
    """``setup``: place a penguin."""

    name: ClassVar[CallName] = CallName.SETUP
    state: StateView

    def to_json(self) -> list[Any]:
        return [self.name.value, [self.state.to_json()]]


@dataclass(slots=True)
class TakeTurn:
    """``take-turn``: move a penguin; ``moves`` are the (from, to) tiles of the moves made since
    the seat's last turn (none after a player was removed)."""

    name: ClassVar[CallName] = CallName.TAKE_TURN
    state: StateView
    moves: tuple[tuple[int, int], ...]

    def to_json(self) -> list[Any]:
        cols = self.state.floes.layout.cols
        moves = [[list(divmod(src, cols)), list(divmod(dst, cols))] for src, dst in self.moves]
        return [self.name.value, [self.state.to_json(), moves]]


FishCall = PlayingAs | PlayingWith | Setup | TakeTurn
