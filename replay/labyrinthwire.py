"""A Labyrinth game's messages as they were on the wire, regenerated from its log
(``arena replay show --wire``): the server's own game table (labyrinth/table.py) is driven
with the logged moves, comments and end, and what it sends each program is framed as the server
frames it (protocol/labyrinth.py).

What the log keeps decides what comes back: each program's game start (the game's name and
size that end WAIT_GAME's answer, then GET_GAME_DATA's answer), each ``PLAY_MOVE`` with its
answer, the ``GET_MOVE`` that fetched each move of the other seat, each ``SEND_COMMENT``, and the
end (a timeout, a disconnection, a bad command's answer, the notice the other program reads).
A program that waits for the other's move is shown asking with ``GET_MOVE`` before that move
is played, as the programs do. Not kept, so not shown: the lobby's commands (CLIENT_NAME,
WAIT_GAME's text), repeated GET_GAME_DATA, DISP_GAME, and the text of a command that lost the
game (its answer is shown).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from labyrinth.replay import GameLog, initial
from labyrinth.rules import Labyrinth, Move, format_move
from labyrinth.table import (
    BotTurn,
    Disconnect,
    Effect,
    Forfeit,
    GameCommand,
    GetGameData,
    GetMove,
    PlayMove,
    Request,
    Send,
    SendComment,
    Table,
    TimeUp,
)
from protocol.labyrinth import MAX_ECHO, frame

__all__ = ["wire_lines"]

#: A game's messages are framed with this limit on the server (server/labyrinth/gamerun.py).
GAME_MESSAGE_LIMIT = 9999
#: A malformed move's reason quotes the move (protocol.labyrinth.echo: cut after MAX_ECHO).
_MALFORMED = ("the move ", " is not in correct form ('<type> <value>')")


class _Wire:
    def __init__(self, log: GameLog) -> None:
        header = log.header
        self.names: list[str] = [str(name) for name in header["players"]]
        bots = header.get("bots") or [False, False]
        self.programs = [not bot for bot in bots]
        moves = [r for r in log.records if r.get("type") == "move"]
        self.bot_moves: list[Iterator[dict[str, Any]]] = [
            iter([r for r in moves if r["player"] == seat]) for seat in (0, 1)
        ]
        self.lab = initial(log)
        self.table = Table(
            str(header.get("game")),
            self.lab,
            (self.names[0], self.names[1]),
            tuple(
                None if program else self._bot(seat) for seat, program in enumerate(self.programs)
            ),
        )
        self.lines: list[dict[str, Any]] = []
        self.t: float | None = None
        self.asking = [False, False]

    def _bot(self, seat: int):  # type: ignore[no-untyped-def]
        def replay(_: Labyrinth) -> Move:
            record = next(self.bot_moves[seat])
            self.t = record.get("t")
            return Move(*record["move"])

        return replay

    def line(self, seat: int, sender: str, text: str) -> None:
        line: dict[str, Any] = {"turn": self.lab.turn, "seat": seat, "player": self.names[seat]}
        if self.t is not None:
            line["t"] = self.t
        self.lines.append(line | {"from": sender, "wire": text})

    def command(self, seat: int, text: str) -> None:
        self.line(seat, "program", text)

    def apply(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                wire = b"".join(frame(m, limit=GAME_MESSAGE_LIMIT) for m in effect.message)
                self.line(effect.seat, "server", wire.decode("utf-8", "replace"))
                self.asking[effect.seat] = False  # a message answers a pending GET_MOVE
            elif isinstance(effect, BotTurn):
                self.apply(self.table.bot_turn())

    def ask(self, seat: int, fetch: bool = False) -> None:
        """``seat``'s program waits for the other's move with GET_MOVE (once); ``fetch``: it
        fetches one already played (even the one that ended the game)."""
        if self.programs[seat] and not self.asking[seat] and (fetch or not self.table.over):
            self.asking[seat] = True
            self.send(seat, GetMove(), "GET_MOVE")

    def start(self, header: dict[str, Any]) -> None:
        size = f"{header['width']} {header['height']}"
        for seat, program in enumerate(self.programs):
            if program:
                start = frame(str(header.get("game"))) + frame(size)
                self.line(seat, "server", start.decode("utf-8", "replace"))
                self.send(seat, GetGameData(), "GET_GAME_DATA")
        self.apply(self.table.start())

    def record(self, record: dict[str, Any]) -> None:
        kind, seat = record.get("type"), record.get("player")
        if kind == "move" and isinstance(seat, int):
            if not self.programs[seat]:
                # the table played it (a bot's turn): the program fetches it
                self.ask(1 - seat, fetch=True)
                return
            self.t = record.get("t")
            self.ask(1 - seat)
            text = format_move(Move(*record["move"]))
            self.send(seat, PlayMove(text), f"PLAY_MOVE {text}")
        elif kind == "comment" and isinstance(seat, int):
            self.t = record.get("t")
            text = str(record.get("text", ""))
            self.send(seat, SendComment(text), f"SEND_COMMENT {text}")
        elif kind == "end" and "forfeit" in record and not self.table.over:
            self.t = record.get("t")
            self.forfeit(int(record["forfeit"]), str(record.get("reason", "")))

    def forfeit(self, seat: int, reason: str) -> None:
        reason = reason.removeprefix(f"{self.names[seat]}: ")
        if self.lab.to_move == seat:
            self.ask(1 - seat)
        if reason == "Timeout":
            self.apply(self.table.apply(TimeUp(seat)))
        elif reason == "Disconnection":
            self.apply(self.table.apply(Disconnect(seat)))
        elif reason in ("asked for a move on its own turn", "sent GET_MOVE twice"):
            self.send(seat, GetMove(), "GET_MOVE")
        elif reason == "played out of turn":
            self.send(seat, PlayMove("8 0"), None)  # its text is not kept, nor needed
        elif reason.startswith(_MALFORMED[0]) and reason.endswith(_MALFORMED[1]):
            self.send(seat, PlayMove(_malformed(reason)), None)
        else:  # a command the session refused in a game: its reason answers it
            self.apply(self.table.apply(Forfeit(seat, reason)))

    def send(self, seat: int, command: GameCommand, text: str | None) -> None:
        """``seat``'s program sends ``command`` (shown as ``text``, unless it is not known)."""
        if text is not None:
            self.command(seat, text)
        self.apply(self.table.apply(Request(seat, command)))


def _malformed(reason: str) -> str:
    """A move text the table quotes as ``reason`` does (the quote may be cut: then any text
    that starts the same is quoted the same)."""
    quoted = reason[len(_MALFORMED[0]) : -len(_MALFORMED[1])]
    try:
        text = str(ast.literal_eval(quoted))
    except (ValueError, SyntaxError):
        return "?"
    if len(text) == MAX_ECHO + 3 and text.endswith("..."):
        text = text[:MAX_ECHO] + "~" * 8
    return text


def wire_lines(log: GameLog) -> list[dict[str, Any]]:
    """Every message of the game the log allows to regenerate, in order: ``turn``, ``seat``,
    ``player``, ``t`` (when the log has it), ``from`` (program or server) and ``wire`` (a
    program's command as sent, or the server's message framed with its length)."""
    wire = _Wire(log)
    wire.start(log.header)
    for record in log.records:
        wire.record(record)
    return wire.lines
