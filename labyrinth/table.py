"""One game on the server, sans-I/O: the state machine between two seats (programs or training
bots) that answers PLAY_MOVE, GET_MOVE, GET_GAME_DATA, DISP_GAME and SEND_COMMENT as the course's
2017 protocol does (spec labyrinth.md), referees with the rules, and says whose move the clock
waits for. It holds no socket and no clock: :meth:`Table.apply` takes one typed input and returns
effects for the shell, in the referees' one vocabulary (:mod:`floes.effects`: ``Send`` of a reply,
``Deadline``, ``Record`` of a typed log entry, ``Over``) plus the Labyrinth's own ``BotTurn``.

Seat 0 starts (the rules' player 0). As on the public server, a program's ``PLAY_MOVE`` is
answered once the other program has fetched the move with ``GET_MOVE`` (at once against a bot or
when the move ends the game); a ``GET_MOVE`` waits for the other's move. A seat that times out,
disconnects, sends a malformed command or plays out of turn loses; the other then reads
``PLAY_MOVE`` -> 1 "<reason> of the opponent" or ``GET_MOVE`` -> an empty move and -1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from floes.effects import Deadline, Over, Record, Send
from labyrinth.render import render_text
from labyrinth.rules import Labyrinth, Move, format_move
from protocol.labyrinth import MAX_MESSAGE, Malformed, parse_move_command

__all__ = [
    "Bot",
    "BotTurn",
    "CommentRecord",
    "Deadline",
    "Disconnect",
    "DisplayGame",
    "Effect",
    "EndRecord",
    "Forfeit",
    "GameCommand",
    "GetGameData",
    "GetMove",
    "Input",
    "LogEntry",
    "MoveRecord",
    "Over",
    "PlayMove",
    "Record",
    "Reply",
    "Request",
    "Send",
    "SendComment",
    "Table",
    "TimeUp",
]

#: A training bot: the position in, a move out.
Bot = Callable[[Labyrinth], Move]

#: What a seat's program is sent at once: each message framed and written on its own.
Reply = tuple[str, ...]


# ----- what the table takes: a seat's command, or what the shell saw
@dataclasses.dataclass(frozen=True, slots=True)
class PlayMove:
    """``PLAY_MOVE`` with its argument, the move as the program wrote it."""

    text: str


@dataclasses.dataclass(frozen=True, slots=True)
class GetMove:
    """``GET_MOVE``: the other's last move, when it is played."""


@dataclasses.dataclass(frozen=True, slots=True)
class GetGameData:
    """``GET_GAME_DATA``: the maze and the seat."""


@dataclasses.dataclass(frozen=True, slots=True)
class DisplayGame:
    """``DISP_GAME``: a picture of the position."""


@dataclasses.dataclass(frozen=True, slots=True)
class SendComment:
    """``SEND_COMMENT`` with its text."""

    text: str


#: A game command of a seat's program.
GameCommand = PlayMove | GetMove | GetGameData | DisplayGame | SendComment


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    """``seat``'s program sent ``command``."""

    seat: int
    command: GameCommand


@dataclasses.dataclass(frozen=True, slots=True)
class Forfeit:
    """``seat`` loses for ``reason`` (its fault: a bad command); the reason answers it."""

    seat: int
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class TimeUp:
    """The clock ran out for ``seat``."""

    seat: int


@dataclasses.dataclass(frozen=True, slots=True)
class Disconnect:
    """``seat``'s connection is gone."""

    seat: int


Input = Request | Forfeit | TimeUp | Disconnect


# ----- what the table logs
@dataclasses.dataclass(frozen=True, slots=True)
class MoveRecord:
    turn: int
    player: int
    move: Move
    code: int
    energies: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "move",
            "turn": self.turn,
            "player": self.player,
            "move": [int(self.move[0]), int(self.move[1])],
            "code": self.code,
            "energies": list(self.energies),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class CommentRecord:
    turn: int
    player: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "comment", "turn": self.turn, "player": self.player, "text": self.text}


@dataclasses.dataclass(frozen=True, slots=True)
class EndRecord:
    turn: int
    winner: int | None
    reason: str
    #: The seat that lost by its own fault (a timeout, a disconnection, a bad command).
    forfeit: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "end", "turn": self.turn, "winner": self.winner}
        data["reason"] = self.reason
        if self.forfeit is not None:
            data["forfeit"] = self.forfeit
        return data


LogEntry = MoveRecord | CommentRecord | EndRecord


@dataclasses.dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot is to move: the shell calls :meth:`Table.bot_turn` (after the game's delay)."""

    seat: int


Effect = Send[Reply] | Deadline | BotTurn | Record[LogEntry] | Over


@dataclasses.dataclass(slots=True)
class _Seat:
    """What the table holds for one seat's program between its commands."""

    #: The other's move (text, return code) this program has not fetched yet.
    unfetched: tuple[str, int] | None = None
    #: Its GET_MOVE waits for the other's move.
    waiting_get: bool = False
    #: Its PLAY_MOVE's answer (code, message), held until the other fetched the move.
    waiting_play: tuple[int, str] | None = None
    #: A forfeit of the other seat not yet told to it (its next command learns it).
    notice: str | None = None


class Table:
    """A game between ``names[0]`` (who starts) and ``names[1]``; ``bots[seat]`` plays a seat
    that has no program."""

    def __init__(
        self, name: str, labyrinth: Labyrinth, names: tuple[str, str], bots: tuple[Bot | None, ...]
    ) -> None:
        self.name = name
        self.lab = labyrinth
        self.names = names
        self.bots = bots
        self.over = False
        self.winner: int | None = None
        self.reason = ""
        self.comments: list[tuple[int, str]] = []
        self.last_move: tuple[int, Move, int] | None = None
        self._seats = (_Seat(), _Seat())

    # ----- what the shell asks
    def start(self) -> list[Effect]:
        return self._next_turn()

    def awaiting(self) -> int | None:
        """The seat whose program the clock waits for."""
        if self.over:
            return None
        seat = self.lab.to_move
        return None if self.bots[seat] is not None else seat

    def apply(self, event: Input) -> list[Effect]:
        """One input: a seat's command, its bad command, its timeout or its disconnection."""
        if isinstance(event, Request):
            seat, command = event.seat, event.command
            if isinstance(command, PlayMove):
                return self._play_command(seat, command.text)
            if isinstance(command, GetMove):
                return self._get_move(seat)
            if isinstance(command, GetGameData):
                return [Send(seat, ("OK", self.lab.maze_text(), "0" if seat == 0 else "1"))]
            if isinstance(command, DisplayGame):
                picture = render_text(self.lab, self.names)
                text = picture.encode()[:MAX_MESSAGE].decode("ascii", "ignore")
                return [Send(seat, ("OK", text))]
            return self._comment(seat, command.text)
        if isinstance(event, Forfeit):
            return self._forfeit(event.seat, event.reason, (event.reason,))
        if isinstance(event, TimeUp):
            if self.over or self.awaiting() != event.seat:
                return []
            return self._forfeit(event.seat, "Timeout")
        return [] if self.over else self._forfeit(event.seat, "Disconnection")

    def bot_turn(self) -> list[Effect]:
        seat = self.lab.to_move
        bot = self.bots[seat]
        if self.over or bot is None:
            return []
        return self._play(seat, bot(self.lab.clone()))

    # ----- inside
    def _comment(self, seat: int, text: str) -> list[Effect]:
        text = text[:100]
        self.comments.append((seat, text))
        return [Send(seat, ("OK",)), Record(CommentRecord(self.lab.turn, seat, text))]

    def _play_command(self, seat: int, text: str) -> list[Effect]:
        mine = self._seats[seat]
        if (notice := mine.notice) is not None:
            mine.notice = None
            return [Send(seat, ("OK", "1", notice))]
        if self.over:
            return self._over(seat)
        if self.lab.to_move != seat or mine.unfetched is not None:
            return self._forfeit(seat, "played out of turn", reply=("It is not your turn",))
        try:
            move = Move(*parse_move_command(text))
        except Malformed as error:
            return self._forfeit(
                seat, str(error), reply=("OK", "-1", "The move is not in correct form")
            )
        return self._play(seat, move)

    def _get_move(self, seat: int) -> list[Effect]:
        mine = self._seats[seat]
        if mine.notice is not None:
            mine.notice = None
            return [Send(seat, ("OK", "", "-1"))]
        if mine.unfetched is not None:
            return self._fetch(seat)
        if self.over:
            return self._over(seat)
        if self.lab.to_move == seat:
            return self._forfeit(
                seat, "asked for a move on its own turn", reply=("It is your turn",)
            )
        if mine.waiting_get:
            return self._forfeit(seat, "sent GET_MOVE twice", reply=("GET_MOVE is pending",))
        mine.waiting_get = True
        return []

    def _forfeit(self, seat: int, reason: str, reply: Reply | None = None) -> list[Effect]:
        """``seat`` loses for ``reason`` (its fault); ``reply`` answers its command (then its
        connection closes unless the reply is a normal OK)."""
        effects: list[Effect] = []
        if reply is not None:
            effects.append(Send(seat, reply, close=reply[0] != "OK"))
        other = 1 - seat
        effects += self._end(other, f"{self.names[seat]}: {reason}", forfeit=seat)
        if self.bots[other] is None:
            if reason in ("Timeout", "Disconnection"):
                notice = f"{reason} of the opponent!"
            else:
                notice = f"The opponent lost: {reason}"
            theirs = self._seats[other]
            if theirs.waiting_play is not None:
                theirs.waiting_play = None
                effects.append(Send(other, ("OK", "1", notice)))
            elif theirs.waiting_get:
                theirs.waiting_get = False
                effects.append(Send(other, ("OK", "", "-1")))
            elif theirs.unfetched is None:
                theirs.notice = notice
        return effects

    def _over(self, seat: int) -> list[Effect]:
        """A game command after the end: the reason (a draw says so), then the connection
        closes (the protocol has no return code for a draw)."""
        message = f"The game is over: {'draw, ' if self.winner is None else ''}{self.reason}"
        return [Send(seat, (message, message), close=True)]

    def _play(self, seat: int, move: Move) -> list[Effect]:
        code = int(self.lab.play(move))
        self.last_move = (seat, move, code)
        text = format_move(move)
        energies = tuple(self.lab.energies)
        effects: list[Effect] = [Record(MoveRecord(self.lab.turn, seat, move, code, energies))]
        other = 1 - seat
        message = self.lab.end_reason
        if self.lab.over:
            effects += self._end(self.lab.winner, self.lab.end_reason)
        if self.bots[other] is None:
            self._seats[other].unfetched = (text, code)
        if self.bots[seat] is None:
            if self.bots[other] is not None or self.over:
                effects.append(Send(seat, ("OK", str(code), message)))
            else:
                self._seats[seat].waiting_play = (code, message)
        if self.bots[other] is None and self._seats[other].waiting_get:
            effects += self._fetch(other)
        return effects + self._next_turn()

    def _fetch(self, seat: int) -> list[Effect]:
        mine = self._seats[seat]
        pending = mine.unfetched
        assert pending is not None
        mine.unfetched = None
        mine.waiting_get = False
        effects: list[Effect] = [Send(seat, ("OK", pending[0], str(pending[1])))]
        theirs = self._seats[1 - seat]
        answer = theirs.waiting_play
        if answer is not None:
            theirs.waiting_play = None
            effects.append(Send(1 - seat, ("OK", str(answer[0]), answer[1])))
        return effects

    def _next_turn(self) -> list[Effect]:
        if self.over:
            return [Deadline(None)]
        seat = self.lab.to_move
        if self.bots[seat] is not None:
            return [Deadline(None), BotTurn(seat)]
        return [Deadline(seat)]

    def _end(self, winner: int | None, reason: str, forfeit: int | None = None) -> list[Effect]:
        if self.over:
            return []
        self.over = True
        self.winner = winner
        self.reason = reason
        winners = () if winner is None else (winner,)
        return [Record(EndRecord(self.lab.turn, winner, reason, forfeit)), Over(winners, reason)]
