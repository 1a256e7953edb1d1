"""A connection's phases on the Labyrinth server, sans-I/O: which command is allowed when, and
what it asks of the lobby or of the game (spec labyrinth.md, "Network play").

    new --CLIENT_NAME--> named --WAIT_GAME--> waiting --(a game starts)--> playing
    playing --(game over; WAIT_GAME)--> waiting ...

Outside a game, a command that is malformed or not allowed now is answered with an error
message and the connection closes; inside a game it goes to the game, which makes its sender
lose (:class:`Forfeit`).
"""

from __future__ import annotations

import dataclasses
import enum

from labyrinth.table import (
    DisplayGame,
    GameCommand,
    GetGameData,
    GetMove,
    PlayMove,
    SendComment,
)
from protocol.labyrinth import Malformed, WaitRequest, echo, parse_wait, valid_name

__all__ = ["Fail", "Forfeit", "Phase", "Play", "Register", "Session", "Wait"]


class Phase(enum.Enum):
    """Where a connection is; the value is what the teacher's page shows."""

    NEW = "new"
    NAMED = "named"
    WAITING = "waiting"
    PLAYING = "playing"


def game_command(word: str, argument: str) -> GameCommand | None:
    """The game command ``word`` with its ``argument`` for the table, or None (not one)."""
    if word == "PLAY_MOVE":
        return PlayMove(argument)
    if word == "GET_MOVE":
        return GetMove()
    if word == "GET_GAME_DATA":
        return GetGameData()
    if word == "DISP_GAME":
        return DisplayGame()
    if word == "SEND_COMMENT":
        return SendComment(argument)
    return None


@dataclasses.dataclass(frozen=True)
class Register:
    name: str


@dataclasses.dataclass(frozen=True)
class Wait:
    request: WaitRequest


@dataclasses.dataclass(frozen=True)
class Play:
    """A command for the game (``labyrinth.table.Request`` once the shell adds the seat)."""

    command: GameCommand


@dataclasses.dataclass(frozen=True)
class Forfeit:
    """A command that loses the game for its sender."""

    reason: str


@dataclasses.dataclass(frozen=True)
class Fail:
    """Answer ``message`` instead of OK and close."""

    message: str


Action = Register | Wait | Play | Forfeit | Fail


class Session:
    def __init__(self) -> None:
        self.phase = Phase.NEW
        self.name: str | None = None
        #: The current game is over (its last answers may still be fetched).
        self.game_over = False

    def handle(self, command: str | Malformed) -> Action:
        if isinstance(command, Malformed):
            return self._bad(str(command))
        word, _, argument = command.partition(" ")
        if self.phase is Phase.NEW:
            if word != "CLIENT_NAME":
                return Fail("The first command must be CLIENT_NAME <name>")
            name = argument.strip()
            if not valid_name(name):
                return Fail(f"The name {echo(name)!r} is not valid (1-20 of A-Za-z0-9_)")
            return Register(name)
        if word == "WAIT_GAME" and (self.phase is Phase.NAMED or self.game_over):
            try:
                return Wait(parse_wait(argument))
            except Malformed as error:
                return Fail(str(error))
        if self.phase is Phase.PLAYING and (game := game_command(word, argument)) is not None:
            return Play(game)
        if self.phase is Phase.WAITING:
            return Fail(f"{echo(word)} is not allowed while waiting for a game")
        return self._bad(f"{echo(word)} is not allowed now")

    def _bad(self, reason: str) -> Action:
        if self.phase is Phase.PLAYING and not self.game_over:
            return Forfeit(reason)
        return Fail(reason)

    def registered(self, name: str) -> None:
        self.phase, self.name = Phase.NAMED, name

    def waiting(self) -> None:
        self.phase, self.game_over = Phase.WAITING, False

    def playing(self) -> None:
        self.phase, self.game_over = Phase.PLAYING, False

    def ended(self) -> None:
        self.game_over = True
