"""The course's 2017 protocol on the server's side, sans-I/O: client commands in, framed
messages out (spec labyrinth.md, "Network play" and "The public server ... as observed").

Clients send bare ASCII commands, one per write, no length and no terminator (the C API), and
wait for the answer before the next. :class:`CommandDecoder` therefore ends a command at a
newline, or where the client's write ends (the server's shell calls ``end_of_write`` once no
byte has come for a moment), never where a read ends: TCP may split a write into reads
anywhere. A command longer than :data:`MAX_COMMAND` bytes is malformed. Blank lines around a
command in its write are tolerated (a trailing newline); a write of blank lines only is an
empty command, malformed, so that it is answered like any other. Server messages are a
4-digit zero-padded length then the payload (:func:`frame`); at most :data:`MAX_MESSAGE` bytes
except the maze, so an error message quotes the client's input cut by :func:`echo`.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import Any

from protocol.framing import NEED_DATA, FrameError, LineFramer, NeedData, RemoteProtocolError

__all__ = [
    "MAX_COMMAND",
    "MAX_MESSAGE",
    "TRAINING_PLAYERS",
    "CommandDecoder",
    "Malformed",
    "MessageReader",
    "WaitRequest",
    "echo",
    "frame",
    "parse_move_command",
    "parse_wait",
]

MAX_COMMAND = 1024
#: A server message's header: its payload's length in bytes, zero-padded.
LENGTH_DIGITS = 4
MAX_MESSAGE = 1000
#: The most of a client's input an error message quotes (a command may be 1024 bytes).
MAX_ECHO = 64
#: Training players a WAIT_GAME may name: the course's three and our own bot.
TRAINING_PLAYERS = ("DO_NOTHING", "PLAY_RANDOM", "ASTAR", "ROTATOR")
#: PLAY_MOVE's text: two unsigned decimal numbers; anything after more space is tolerated.
MOVE_TEXT = re.compile(r"(\d{1,9}) +(\d{1,9})(?:\s.*)?", re.DOTALL)
NAME = re.compile(r"[A-Za-z0-9_]{1,20}")


class Malformed(RemoteProtocolError):
    """A client sent something the protocol does not allow (the client is at fault); the
    stream goes on (a command's frame is sound whatever its text)."""

    fatal = False


def frame(payload: str, limit: int = MAX_MESSAGE) -> bytes:
    """One server message: the 4-digit length then the payload (cut at ``limit`` bytes)."""
    data = payload.encode("utf-8", "replace")[:limit]
    return b"%0*d" % (LENGTH_DIGITS, len(data)) + data


class MessageReader:
    """Server messages in, sans-I/O (a client's side): feed bytes with :meth:`receive_data`, take
    whole payloads from :meth:`next_message` (NEED_DATA while one is incomplete); a message
    that does not start with its 4-digit length is a RemoteProtocolError."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        self._buffer += data

    def next_message(self) -> str | NeedData:
        if len(self._buffer) < LENGTH_DIGITS:
            return NEED_DATA
        head = bytes(self._buffer[:LENGTH_DIGITS])
        if not head.isdigit():
            raise RemoteProtocolError(
                f"a message must start with a {LENGTH_DIGITS}-digit length, got {head!r}"
            )
        end = LENGTH_DIGITS + int(head)
        if len(self._buffer) < end:
            return NEED_DATA
        payload = bytes(self._buffer[LENGTH_DIGITS:end])
        del self._buffer[:end]
        return payload.decode("utf-8", "replace")


def echo(text: str) -> str:
    """``text`` for quoting in an error message: at most :data:`MAX_ECHO` characters, then
    "..." when it was longer (ASCII, as the whole protocol)."""
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + "..."


class CommandDecoder:
    """Bytes in, commands out: the framing base's lines (:class:`~protocol.framing.LineFramer`)
    whose end is ``\n``, the client's write's end (:meth:`end_of_write`) or the stream's; never
    where a read ends, so the commands do not depend on how the bytes were split into reads.
    A write that held bytes but no command (blank lines, spaces) is an empty command, handed
    out as a :class:`Malformed` at its end."""

    def __init__(self) -> None:
        # One byte of room: a "\r" or NUL that ends a command of the largest size.
        self._framer = LineFramer(MAX_COMMAND + 1, end_is_delimiter=True)
        self._write_bytes = False  # bytes came since the last end of a write
        self._write_command = False  # ... and a command (or a Malformed) was handed out
        self._empty = False  # an empty command to hand out

    @property
    def closed(self) -> bool:
        """The client closed its side (what it sent before is still taken out)."""
        return self._framer.eof

    @property
    def buffered_bytes(self) -> int:
        """Bytes held of an unfinished command (at most :data:`MAX_COMMAND` + 2)."""
        return self._framer.buffered_bytes

    @property
    def blank_write(self) -> bool:
        """The client's write so far holds only blank lines: an empty command, unless a command
        follows before the write ends."""
        return (
            self._write_bytes
            and not self._write_command
            and not any(map(_is_command, self._framer.lines))
        )

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes read, in any chunking (``b""``: the client closed, which ends a command)."""
        self._write_bytes = self._write_bytes or len(data) > 0
        self._framer.receive_data(data)

    def end_of_write(self) -> None:
        """The client's write is over (it sent nothing more for a moment: it waits for the
        answer): what is held is a command. The 2017 protocol's clients send one command per
        write with no terminator; a write of blank lines only is an empty command."""
        self._framer.end_line()
        if self.blank_write:
            self._empty = True
        self._write_bytes = self._write_command = False

    def next_command(self) -> str | Malformed | None:
        """The next whole command (a Malformed for one that is not ASCII, too long or empty)."""
        if self._empty:
            self._empty = False
            return Malformed("an empty command: a write of blank lines only")
        while (line := self._framer.next_line()) is not NEED_DATA:
            if isinstance(line, FrameError):
                self._write_command = True
                return Malformed(f"a command is at most {MAX_COMMAND} bytes, got more than that")
            if _is_command(line):
                self._write_command = True
                return _command(line.rstrip(b"\r\x00"))
        return None


def _is_command(line: bytes | FrameError) -> bool:
    """Whether a framed line is a command (a FrameError is a malformed one), not a blank."""
    return isinstance(line, FrameError) or bool(line.rstrip(b"\r\x00").strip())


def _command(data: bytes) -> str | Malformed:
    if len(data) > MAX_COMMAND:
        return Malformed(f"a command is at most {MAX_COMMAND} bytes, got {len(data)}")
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError:
        return Malformed("a command is ASCII text")
    if not text.isprintable():
        return Malformed("a command is printable ASCII text")
    return text


def valid_name(name: str) -> bool:
    return NAME.fullmatch(name) is not None


def parse_move_command(text: str) -> tuple[int, int]:
    """PLAY_MOVE's argument, as the public server reads it: (type, value), the fields of
    :class:`labyrinth.rules.Move` (Malformed otherwise)."""
    match = MOVE_TEXT.fullmatch(text.strip())
    if match is None:
        raise Malformed(
            f"the move {echo(text.strip())!r} is not in correct form ('<type> <value>')"
        )
    return int(match[1]), int(match[2])


@dataclasses.dataclass(frozen=True)
class WaitRequest:
    """What a WAIT_GAME asks for: a training player (or None: a game against another program),
    or a tournament; and the options."""

    training: str | None = None
    tournament: str | None = None
    timeout: float | None = None
    start: int = -1
    seed: int | None = None
    delay: float = 0.0
    rotate: bool = True


def parse_wait(text: str) -> WaitRequest:
    """WAIT_GAME's argument: ``[NAME] key=value ...`` or ``TOURNAMENT name``; unknown keys
    are ignored (as the public server does), bad values are Malformed."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise Malformed(f"WAIT_GAME's options do not parse: {error}") from None
    if words and words[0] == "TOURNAMENT":
        if len(words) != 2 or not valid_name(words[1]):
            raise Malformed("WAIT_GAME TOURNAMENT takes one name (1-20 of A-Za-z0-9_)")
        return WaitRequest(tournament=words[1])
    training = None
    if words and "=" not in words[0]:
        training = words.pop(0)
        if training not in TRAINING_PLAYERS:
            raise Malformed(f"the training player name {echo(training)!r} is not valid")
    options: dict[str, object] = {}
    for word in words:
        key, equal, value = word.partition("=")
        if not equal:
            raise Malformed(f"the option {echo(word)!r} is not key=value")
        options[key] = value
    return dataclasses.replace(WaitRequest(training=training), **_options(options))


def _options(raw: dict[str, object]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        text = str(value)
        if key == "timeout":
            out["timeout"] = _number(key, text, 0.001, 3600.0)
        elif key == "delay":
            out["delay"] = _number(key, text, 0.0, 60000.0) / 1000.0
        elif key == "start":
            if text not in ("0", "1", "-1"):
                raise Malformed(f"the option start={echo(text)} is incorrect (0, 1 or -1)")
            out["start"] = int(text)
        elif key == "seed":
            if not text.isdigit() or int(text) > 0xFFFFFF:
                raise Malformed(f"the option seed={echo(text)} is incorrect (0 to 16777215)")
            out["seed"] = int(text)
        elif key == "rotate":
            if text.lower() not in ("true", "false"):
                raise Malformed(f"the option rotate={echo(text)} is incorrect (true or false)")
            out["rotate"] = text.lower() == "true"
    return out


def _number(key: str, text: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise Malformed(f"the option {key}={echo(text)} is incorrect (a number)") from None
    if not low <= value <= high:
        raise Malformed(f"the option {key}={echo(text)} is incorrect ({low} to {high})")
    return value
