"""Playing Labyrinth on a game server that speaks the course's 2017 protocol (spec labyrinth.md,
"Network play"), such as CodingGameServer: ``arena labyrinth connect HOST PORT --name NAME``.

The client sends plain ASCII commands, one per send, and reads every answer before the next
command. Each server message is a 4-digit zero-padded length, then that many bytes::

    CLIENT_NAME <name>             -> OK
    WAIT_GAME <training or empty>  -> OK, game name, "<L> <H>"
    GET_GAME_DATA                  -> OK, L*H characters '0' free / '1' wall, "0" if we start
                                      (also taken glued to the maze, as L*H + 1 characters)
    PLAY_MOVE <type> <value>       -> OK, return code, message
    GET_MOVE                       -> OK, "<type> <value>", return code

An error message replaces ``OK``. Return codes are for the player who just moved: 0 the game
goes on, 1 it won, -1 it lost. The server referees; we replay every move on our own
:class:`Labyrinth` so that our bot sees the position, and stop loudly if the two disagree.

:class:`~protocol.labyrinth.MessageReader` is the sans-I/O part (bytes in, messages out);
:class:`Connection` does the blocking socket reads and writes; :func:`play_online` is the
session.
"""

from __future__ import annotations

import dataclasses
import re
import socket
from collections.abc import Callable
from typing import Protocol

from labyrinth.interactive import describe as in_words
from labyrinth.rules import (
    PROFILES,
    Labyrinth,
    LabyrinthConfig,
    Move,
    ReturnCode,
    format_move,
    parse_move,
    whole_number,
)
from protocol.framing import NEED_DATA, RemoteProtocolError
from protocol.labyrinth import MessageReader

__all__ = [
    "Connection",
    "OnlineResult",
    "RulesDisagreement",
    "ServerError",
    "play_online",
    "recognise_rules",
    "valid_name",
]

#: CLIENT_NAME's rule: 1-20 letters, digits or underscores.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,20}")


class ServerError(Exception):
    """The server answered a command with an error message instead of ``OK``."""


class RulesDisagreement(Exception):
    """The server's return code for a move differs from what our rules say: we can no longer
    follow the game."""


def valid_name(name: str) -> bool:
    """Whether ``name`` is a name CLIENT_NAME accepts."""
    return NAME_PATTERN.fullmatch(name) is not None


class Stream(Protocol):
    """What a connection needs of a socket."""

    def sendall(self, data: bytes, /) -> None: ...

    def recv(self, size: int, /) -> bytes: ...


class Connection:
    """One client connection: a command out, its ``OK`` and replies in."""

    def __init__(self, stream: Stream) -> None:
        self._stream = stream
        self._reader = MessageReader()

    @classmethod
    def open(cls, host: str, port: int, timeout: float) -> tuple[Connection, socket.socket]:
        sock = socket.create_connection((host, port), timeout=timeout)
        return cls(sock), sock

    def command(self, text: str, replies: int) -> list[str]:
        """Send ``text``; return the ``replies`` messages after its ``OK`` (ServerError with the
        server's message when it is not OK)."""
        self._stream.sendall(text.encode("ascii"))
        status = self.receive()
        if status != "OK":
            raise ServerError(f"{text.split(' ')[0]}: the server says {status!r}")
        return [self.receive() for _ in range(replies)]

    def receive(self) -> str:
        """The next server message (blocking)."""
        while (message := self._reader.next_message()) is NEED_DATA:
            data = self._stream.recv(4096)
            if not data:
                raise RemoteProtocolError("the server closed the connection")
            self._reader.receive_data(data)
        return message


@dataclasses.dataclass(frozen=True)
class OnlineResult:
    """How a game on the server ended, for us. ``forfeit`` is True when the server ended it for
    a reason our rules cannot see (the opponent's timeout or disconnection)."""

    game: str
    we_started: bool
    won: bool
    moves: int
    message: str
    rules: str = "spec"
    forfeit: bool = False
    #: The server ended the game without a winner (its turn limit).
    draw: bool = False


def _return_code(text: str) -> ReturnCode:
    value = whole_number(text.strip())
    if value not in (-1, 0, 1):
        raise RemoteProtocolError(f"a return code is -1, 0 or 1, got {text!r}")
    return ReturnCode(value)


#: A CodingGameServer game name: 4 hex digits of the seed then 4 of a hash.
CGS_GAME_NAME = re.compile(r"[0-9a-f]{8}")


def recognise_rules(game: str, width: int, height: int) -> str | None:
    """The rules profile a game on an unknown server follows, when it can be told from the
    game's name and size; None when it cannot."""
    if CGS_GAME_NAME.fullmatch(game) or "cgs2017" in game:
        return "cgs2017"
    spec = PROFILES["spec"]
    if not spec.width_range[0] <= width <= spec.width_range[1]:
        return "cgs2017"
    if not spec.height_range[0] <= height <= spec.height_range[1]:
        return "cgs2017"
    if game.startswith("spec"):
        return "spec"
    return None


def _unlimited(profile: str) -> LabyrinthConfig:
    # The server decides when the game ends: our turn limit must never end it first.
    return dataclasses.replace(PROFILES[profile], max_turns=1 << 62)


def _replayed(
    width: int, height: int, maze: str, profile: str, history: list[tuple[Move, ReturnCode]]
) -> Labyrinth | None:
    """The position after ``history`` under ``profile``, or None if any code differs."""
    labyrinth = Labyrinth.from_maze_text(width, height, maze, _unlimited(profile))
    for move, code in history:
        if labyrinth.play(move) != code:
            return None
    return labyrinth


def play_online(
    connection: Connection,
    name: str,
    training: str,
    choose: Callable[[Labyrinth], Move],
    report: Callable[[str], None] = lambda line: None,
    rules: str = "auto",
) -> OnlineResult:
    """Register as ``name``, wait for a game (``training`` as WAIT_GAME's options, "" for a
    game against another program), and play it to the end with ``choose``.

    ``rules`` is a profile of :data:`PROFILES` or "auto": recognised from the game's name and
    size, else "spec" until the server accepts a move only the other profile allows (then the
    game so far is replayed under it and, if every code agrees, play goes on under it)."""
    if rules != "auto" and rules not in PROFILES:
        raise ValueError(f"rules is 'auto' or one of {sorted(PROFILES)}, got {rules!r}")
    if not valid_name(name):
        raise ValueError(f"a client name is 1-20 of A-Z a-z 0-9 _, got {name!r}")
    if not training.isascii() or not training.isprintable():
        raise ValueError(f"training options are printable ASCII, got {training!r}")
    connection.command(f"CLIENT_NAME {name}", 0)
    game, size = connection.command(f"WAIT_GAME {training}", 2)
    sizes = [whole_number(word) for word in size.split()]
    if len(sizes) != 2 or sizes[0] is None or sizes[1] is None:
        raise RemoteProtocolError(f"the maze size is '<L> <H>', got {size!r}")
    width, height = sizes[0], sizes[1]
    (maze,) = connection.command("GET_GAME_DATA", 1)
    if len(maze) == width * height + 1:
        # Who starts glued to the maze's last character: the C API reads one string of data.
        maze, starts = maze[:-1], maze[-1]
    else:
        starts = connection.receive()
    if starts.strip() not in ("0", "1"):
        raise RemoteProtocolError(f"who starts is '0' or '1', got {starts!r}")
    me = int(starts.strip())
    recognised = recognise_rules(game, width, height) if rules == "auto" else rules
    profile = recognised or "spec"
    try:
        labyrinth = Labyrinth.from_maze_text(width, height, maze, _unlimited(profile))
    except ValueError as error:
        raise RemoteProtocolError(f"the maze of {width} x {height}: {error}") from None
    report(
        f"game {game}: {width} x {height}, we are {'first' if me == 0 else 'second'}, "
        f"rules {profile}{'' if recognised else ' (until the server shows otherwise)'}"
    )
    history: list[tuple[Move, ReturnCode]] = []
    while True:
        mover = labyrinth.to_move
        message = ""
        try:
            if mover == me:
                move = choose(labyrinth)
                code_text, message = connection.command(f"PLAY_MOVE {format_move(move)}", 2)
            else:
                move_text, code_text = connection.command("GET_MOVE", 2)
        except ServerError as error:
            # No return code means a draw: a server ends such a game by refusing the next move.
            if "draw" not in str(error).lower():
                raise
            return OnlineResult(
                game, me == 0, False, labyrinth.turn, str(error), profile, draw=True
            )
        if mover != me:
            code = _return_code(code_text)
            if code == ReturnCode.MOVE_LOSE and not move_text.strip():
                # No move and a loss for them: the opponent timed out or disconnected.
                return OnlineResult(
                    game, me == 0, True, labyrinth.turn, "the opponent lost without a move",
                    profile, forfeit=True,
                )  # fmt: skip
            try:
                move = parse_move(move_text)
            except ValueError as error:
                raise RemoteProtocolError(str(error)) from None
        code = _return_code(code_text)
        before = labyrinth.clone()
        ours = labyrinth.play(move)
        who = "we" if mover == me else "they"
        then = (
            "play goes on"
            if code == ReturnCode.MOVE_OK
            else f"{who} " + ("win" if code == ReturnCode.MOVE_WIN else "lose")
        )
        report(f"turn {before.turn + 1}: {who} {in_words(move)} ('{format_move(move)}'), {then}")
        if ours != code and mover == me and ours == ReturnCode.MOVE_OK and code == 1:
            # Our move cannot win by the rules, yet the server says it did: the opponent
            # timed out or disconnected while it was theirs to answer.
            return OnlineResult(game, me == 0, True, labyrinth.turn, message, profile, forfeit=True)
        if ours != code and recognised is None:
            other = "cgs2017" if profile == "spec" else "spec"
            replay = _replayed(width, height, maze, other, [*history, (move, code)])
            if replay is not None:
                report(f"the server plays by the {other} rules: switching to them")
                profile, recognised, labyrinth, ours = other, other, replay, code
        if ours != code:
            said = f": {message!r}" if message else ""
            raise RulesDisagreement(
                f"move {format_move(move)} of {'ours' if mover == me else 'theirs'} on turn "
                f"{labyrinth.turn}: the server says {code.name}{said}; our {profile} rules say "
                f"{ours.name} ({labyrinth.end_reason or before.losing_reason(move) or 'legal'})"
            )
        history.append((move, code))
        if code != ReturnCode.MOVE_OK:
            won = (mover == me) == (code == ReturnCode.MOVE_WIN)
            return OnlineResult(game, me == 0, won, labyrinth.turn, message, profile)
