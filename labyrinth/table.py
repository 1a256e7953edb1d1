"""One game on the server, sans-I/O: the state machine between two seats (programs or training
bots) that answers PLAY_MOVE, GET_MOVE, GET_GAME_DATA, DISP_GAME and SEND_COMMENT as the course's
2017 protocol does (spec labyrinth.md), referees with the rules, and says whose move the clock
waits for. It holds no socket and no clock: every call returns effects for the shell.

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

from labyrinth.render import render_text
from labyrinth.rules import Labyrinth, Move, format_move
from protocol.labyrinth import MAX_MESSAGE, Malformed, parse_move_command

__all__ = ["Bot", "Deadline", "Record", "Send", "Table"]

#: A training bot: the position in, a move out.
Bot = Callable[[Labyrinth], Move]


@dataclasses.dataclass(frozen=True)
class Send:
    """Messages for a seat's program; ``close`` after them."""

    seat: int
    messages: tuple[str, ...]
    close: bool = False


@dataclasses.dataclass(frozen=True)
class Deadline:
    """The clock now waits for this seat's move (None: for nobody; a bot or the game's end)."""

    seat: int | None


@dataclasses.dataclass(frozen=True)
class BotTurn:
    """A bot is to move: the shell calls :meth:`Table.bot_turn` (after the game's delay)."""

    seat: int


@dataclasses.dataclass(frozen=True)
class Record:
    """A line of the game's log."""

    data: dict[str, Any]


Effect = Send | Deadline | BotTurn | Record


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
        self._unfetched: list[tuple[str, int] | None] = [None, None]
        self._waiting_get = [False, False]
        self._waiting_play: list[tuple[int, str] | None] = [None, None]
        #: A forfeit of the other seat not yet told to this one (their next command learns it).
        self._notice: list[str | None] = [None, None]

    # ----- what the shell asks
    def start(self) -> list[Effect]:
        return self._next_turn()

    def awaiting(self) -> int | None:
        """The seat whose program the clock waits for."""
        if self.over:
            return None
        seat = self.lab.to_move
        return None if self.bots[seat] is not None else seat

    def game_data(self, seat: int) -> list[Effect]:
        return [Send(seat, ("OK", self.lab.maze_text(), "0" if seat == 0 else "1"))]

    def display(self, seat: int) -> list[Effect]:
        picture = render_text(self.lab, self.names)
        return [Send(seat, ("OK", picture.encode()[:MAX_MESSAGE].decode("ascii", "ignore")))]

    def comment(self, seat: int, text: str) -> list[Effect]:
        text = text[:100]
        self.comments.append((seat, text))
        return [
            Send(seat, ("OK",)),
            Record({"type": "comment", "turn": self.lab.turn, "player": seat, "text": text}),
        ]

    def play(self, seat: int, text: str) -> list[Effect]:
        if (notice := self._notice[seat]) is not None:
            self._notice[seat] = None
            return [Send(seat, ("OK", "1", notice))]
        if self.over:
            return self._over(seat)
        if self.lab.to_move != seat or self._unfetched[seat] is not None:
            return self.forfeit(seat, "played out of turn", reply=("It is not your turn",))
        try:
            move = Move(*parse_move_command(text))
        except Malformed as error:
            return self.forfeit(
                seat, str(error), reply=("OK", "-1", "The move is not in correct form")
            )
        return self._play(seat, move)

    def get_move(self, seat: int) -> list[Effect]:
        if self._notice[seat] is not None:
            self._notice[seat] = None
            return [Send(seat, ("OK", "", "-1"))]
        if self._unfetched[seat] is not None:
            return self._fetch(seat)
        if self.over:
            return self._over(seat)
        if self.lab.to_move == seat:
            return self.forfeit(
                seat, "asked for a move on its own turn", reply=("It is your turn",)
            )
        if self._waiting_get[seat]:
            return self.forfeit(seat, "sent GET_MOVE twice", reply=("GET_MOVE is pending",))
        self._waiting_get[seat] = True
        return []

    def bot_turn(self) -> list[Effect]:
        seat = self.lab.to_move
        bot = self.bots[seat]
        if self.over or bot is None:
            return []
        return self._play(seat, bot(self.lab.clone()))

    def timeout(self, seat: int) -> list[Effect]:
        if self.over or self.awaiting() != seat:
            return []
        return self.forfeit(seat, "Timeout")

    def disconnect(self, seat: int) -> list[Effect]:
        return [] if self.over else self.forfeit(seat, "Disconnection")

    def forfeit(self, seat: int, reason: str, reply: tuple[str, ...] | None = None) -> list[Effect]:
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
            if self._waiting_play[other] is not None:
                self._waiting_play[other] = None
                effects.append(Send(other, ("OK", "1", notice)))
            elif self._waiting_get[other]:
                self._waiting_get[other] = False
                effects.append(Send(other, ("OK", "", "-1")))
            elif self._unfetched[other] is None:
                self._notice[other] = notice
        return effects

    # ----- inside
    def _over(self, seat: int) -> list[Effect]:
        """A game command after the end: the reason (a draw says so), then the connection
        closes (the protocol has no return code for a draw)."""
        message = f"The game is over: {'draw, ' if self.winner is None else ''}{self.reason}"
        return [Send(seat, (message, message), close=True)]

    def _play(self, seat: int, move: Move) -> list[Effect]:
        code = self.lab.play(move)
        self.last_move = (seat, move, int(code))
        text = format_move(move)
        record = {
            "type": "move",
            "turn": self.lab.turn,
            "player": seat,
            "move": [int(move[0]), int(move[1])],
            "code": int(code),
            "energies": list(self.lab.energies),
        }
        effects: list[Effect] = [Record(record)]
        other = 1 - seat
        message = self.lab.end_reason
        if self.lab.over:
            winner = self.lab.winner
            effects += self._end(winner, self.lab.end_reason)
        if self.bots[other] is None:
            self._unfetched[other] = (text, int(code))
        if self.bots[seat] is None:
            if self.bots[other] is not None or self.over:
                effects.append(Send(seat, ("OK", str(int(code)), message)))
            else:
                self._waiting_play[seat] = (int(code), message)
        if self.bots[other] is None and self._waiting_get[other]:
            effects += self._fetch(other)
        return effects + self._next_turn()

    def _fetch(self, seat: int) -> list[Effect]:
        pending = self._unfetched[seat]
        assert pending is not None
        self._unfetched[seat] = None
        self._waiting_get[seat] = False
        effects: list[Effect] = [Send(seat, ("OK", pending[0], str(pending[1])))]
        other = 1 - seat
        answer = self._waiting_play[other]
        if answer is not None:
            self._waiting_play[other] = None
            effects.append(Send(other, ("OK", str(answer[0]), answer[1])))
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
        data: dict[str, Any] = {"type": "end", "turn": self.lab.turn, "winner": winner}
        data["reason"] = reason
        if forfeit is not None:
            data["forfeit"] = forfeit
        return [Record(data)]


__all__ += ["BotTurn", "Effect"]
