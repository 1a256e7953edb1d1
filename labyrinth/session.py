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

from protocol.labyrinth import Malformed, WaitRequest, echo, parse_wait, valid_name

__all__ = ["Fail", "Forfeit", "GameCommand", "Register", "Session", "Wait"]

GAME_COMMANDS = ("GET_GAME_DATA", "PLAY_MOVE", "GET_MOVE", "DISP_GAME", "SEND_COMMENT")


@dataclasses.dataclass(frozen=True)
class Register:
    name: str


@dataclasses.dataclass(frozen=True)
class Wait:
    request: WaitRequest


@dataclasses.dataclass(frozen=True)
class GameCommand:
    word: str
    argument: str


@dataclasses.dataclass(frozen=True)
class Forfeit:
    """A command that loses the game for its sender."""

    reason: str


@dataclasses.dataclass(frozen=True)
class Fail:
    """Answer ``message`` instead of OK and close."""

    message: str


Action = Register | Wait | GameCommand | Forfeit | Fail


class Session:
    def __init__(self) -> None:
        self.phase = "new"
        self.name: str | None = None
        #: The current game is over (its last answers may still be fetched).
        self.game_over = False

    def handle(self, command: str | Malformed) -> Action:
        if isinstance(command, Malformed):
            return self._bad(str(command))
        word, _, argument = command.partition(" ")
        if self.phase == "new":
            if word != "CLIENT_NAME":
                return Fail("The first command must be CLIENT_NAME <name>")
            name = argument.strip()
            if not valid_name(name):
                return Fail(f"The name {echo(name)!r} is not valid (1-20 of A-Za-z0-9_)")
            return Register(name)
        if word == "WAIT_GAME" and (self.phase == "named" or self.game_over):
            try:
                return Wait(parse_wait(argument))
            except Malformed as error:
                return Fail(str(error))
        if self.phase == "playing" and word in GAME_COMMANDS:
            return GameCommand(word, argument)
        if self.phase == "waiting":
            return Fail(f"{echo(word)} is not allowed while waiting for a game")
        return self._bad(f"{echo(word)} is not allowed now")

    def _bad(self, reason: str) -> Action:
        if self.phase == "playing" and not self.game_over:
            return Forfeit(reason)
        return Fail(reason)

    def registered(self, name: str) -> None:
        self.phase, self.name = "named", name

    def waiting(self) -> None:
        self.phase, self.game_over = "waiting", False

    def playing(self) -> None:
        self.phase, self.game_over = "playing", False

    def ended(self) -> None:
        self.game_over = True
