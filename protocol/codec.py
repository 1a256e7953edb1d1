"""A sans-I/O JSON Lines codec for the dungeon protocol (spec dungeon.md section 4).

The codec never touches a socket: the caller feeds it the bytes it read, in any chunking
(``receive_data``; ``b""`` means the peer closed), takes messages out (``next_message``, which
returns :data:`NEED_DATA` when no complete line is buffered), and turns its own messages into
bytes to write (``send``). The server and a client use the same class, in opposite directions::

    codec = Codec(accept=ClientMessage)          # a server socket; a client: accept=ServerMessage
    codec.receive_data(await stream.receive_some())
    while (message := codec.next_message()) is not NEED_DATA:
        ...                                      # may raise RemoteProtocolError, see below
    await stream.send_all(codec.send(Moved(...)))

Framing. A line ends at ``\\n``; a ``\\r`` before it is tolerated (``\\r\\n`` endings), and so
is any JSON whitespace around the object. Blank lines are skipped as they are framed, without
being decoded, and counted (``blank_lines``). A line may hold at most
``max_line`` bytes (1 MiB), not counting its ``\\n`` or ``\\r\\n``. A longer line is reported as
soon as the unfinished line passes the limit, without buffering the rest: the codec then drops
bytes up to the next ``\\n`` and goes on from there.

Errors. ``next_message`` raises :class:`RemoteProtocolError` for anything the peer got wrong,
and nothing else, whatever the bytes. Its ``cause`` (an :class:`ErrorCause`) says what, its
``fatal`` flag says whether the spec wants the socket closed (a line that is not JSON, not UTF-8
or too long; a line cut off by the end of the stream), and its text names the field
("move: field 'to' must be an int >= 0, got str \\"a\\""). The codec stays usable after any error:
the next call goes on with the next line. :class:`LocalProtocolError` is our own misuse (sending
something that is not a valid message of our direction, feeding data after the end). The error
types and the diagnosis of a refused line live in :mod:`protocol.errors`, re-exported here.

End of stream. After ``receive_data(b"")`` the complete lines still buffered come out as usual;
then, if the stream ended in the middle of a non-blank line, one fatal ``incomplete_line`` error;
then ``NEED_DATA`` for ever (check :attr:`Codec.eof` to stop reading).

Sending. ``send`` checks every outgoing message against the same rules a peer's decoder
applies, so we never put on the wire a line the other side would reject (a numpy integer, an
agent number 7, a NaN coordinate are our bugs, reported as LocalProtocolError). The bytes of a
message, and the checks, are :mod:`protocol.encoding`'s (``encode``, ``encode_lines``).
"""

from __future__ import annotations

import re
import typing
from typing import Final

import msgspec

from protocol.encoding import encode_checked
from protocol.errors import (
    FATAL_CAUSES,
    ErrorCause,
    diagnose,
    tag_of,
)
from protocol.framing import (
    NEED_DATA,
    FrameError,
    LineFramer,
    LocalProtocolError,
    NeedData,
    ProtocolError,
    RemoteProtocolError,
)
from protocol.messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    SERVER_MESSAGE_TYPES,
    Message,
)

__all__ = [
    "FATAL_CAUSES",
    "MAX_LINE",
    "NEED_DATA",
    "Codec",
    "ErrorCause",
    "LocalProtocolError",
    "NeedData",
    "ProtocolError",
    "RemoteProtocolError",
]

MAX_LINE: Final = 1 << 20
"""The longest line a peer may send, in bytes, not counting the newline (spec: 1 MiB)."""


# --- the codec ----------------------------------------------------------------------------------


def _accepted_classes(accept: object) -> tuple[type[Message], ...]:
    """The message classes named by ``accept``: one message class or a union of them."""
    classes = (accept,) if isinstance(accept, type) else typing.get_args(accept)
    if not classes or any(cls not in MESSAGE_TYPES for cls in classes):
        raise LocalProtocolError(
            f"accept must be a message class or a union of them, got {accept!r}",
            ErrorCause.BAD_ARGUMENT,
        )
    return tuple(cls for cls in MESSAGE_TYPES if cls in classes)


class Codec:
    """One socket's JSON Lines framing and message (de)coding, without any I/O.

    ``accept`` is what the peer may send: ``ClientMessage`` on the server, ``ServerMessage`` on a
    client (any message class or union of them works). What we may send is the other direction's
    messages (any message at all if ``accept`` is neither union).
    """

    def __init__(self, accept: object, *, max_line: int = MAX_LINE) -> None:
        if not isinstance(max_line, int) or isinstance(max_line, bool) or max_line < 1:
            raise LocalProtocolError(
                f"max_line must be an int >= 1, got {max_line!r}", ErrorCause.BAD_ARGUMENT
            )
        classes = _accepted_classes(accept)
        self._accepted: Final = {tag_of(cls): cls for cls in classes}
        self._decoder: Final = msgspec.json.Decoder(accept)
        if set(classes) == set(CLIENT_MESSAGE_TYPES):
            self._outgoing: tuple[type[Message], ...] = SERVER_MESSAGE_TYPES
        elif set(classes) == set(SERVER_MESSAGE_TYPES):
            self._outgoing = CLIENT_MESSAGE_TYPES
        else:
            self._outgoing = MESSAGE_TYPES
        self._framer: Final = LineFramer(max_line)
        #: ``receive_data(data)``: feed bytes read from the socket, in any chunking; ``b""``
        #: means the peer closed; more bytes after it are LocalProtocolError, ``b""`` again is
        #: harmless. The framer's own method, so a read costs no extra call.
        self.receive_data: Final = self._framer.receive_data
        self._lines: Final = self._framer.lines

    @property
    def eof(self) -> bool:
        """True once ``receive_data(b"")`` told us the peer closed its side."""
        return self._framer.eof

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for the unfinished line (never more than ``max_line`` + 1)."""
        return self._framer.buffered_bytes

    @property
    def unfinished_line(self) -> bytes:
        """What is held of a line whose newline has not come yet: fed to a fresh codec, it
        goes on where this one stopped (a socket handed to another process)."""
        return self._framer.unfinished_line

    @property
    def blank_lines(self) -> int:
        """Blank lines (whitespace only) skipped so far: a server counts them as input."""
        return self._framer.blank_lines

    def next_message(self) -> Message | NeedData:
        """The next message the peer sent, or ``NEED_DATA``; raises only RemoteProtocolError."""
        lines = self._lines
        while lines:
            if isinstance(lines[0], FrameError):
                # Built in the raise: held in a local of this frame, which its traceback
                # holds, the error would be a reference cycle (see below).
                raise _frame_error(typing.cast(FrameError, lines.popleft()))
            line = typing.cast(bytes, lines.popleft())
            if not (line.isascii() or _is_utf8(line)):
                raise diagnose(line, self._accepted, UnicodeError("not UTF-8"), RemoteProtocolError)
            try:
                message: Message = self._decoder.decode(line)
            except (msgspec.DecodeError, RecursionError) as exc:
                # Without its traceback: kept in a local of this frame, which the traceback
                # holds, it would be a reference cycle per bad line, and the server runs with
                # no automatic cycle collection (server/gc_policy.py).
                error: Exception = exc.with_traceback(None)
            else:
                return message
            if b"\\u" in line and (repaired := _replace_lone_surrogates(line)) != line:
                try:
                    message = self._decoder.decode(repaired)
                except (msgspec.DecodeError, RecursionError) as exc:
                    line, error = repaired, exc.with_traceback(None)
                else:
                    return message
            raise diagnose(line, self._accepted, error, RemoteProtocolError)
        return NEED_DATA

    def send(self, message: Message) -> bytes:
        """The bytes to write for ``message`` (one line); LocalProtocolError if it is invalid."""
        return encode_checked(message, self._outgoing)


def _frame_error(fault: FrameError) -> RemoteProtocolError:
    """The dungeon's error for a fault of the line frame (both close the socket)."""
    return RemoteProtocolError(fault.text, ErrorCause(fault.cause), fatal=True)


# One escape of a JSON string: a surrogate pair (kept), a lone surrogate (group 1), or any other.
# Escapes are matched left to right, so the "\\u" of an escaped backslash is never taken for one.
_ESCAPE: Final = re.compile(
    rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
    rb"|(u[dD][89a-fA-F][0-9a-fA-F]{2})"
    rb"|.)",
    re.DOTALL,
)


def _replace_lone_surrogates(line: bytes) -> bytes:
    """``line`` with every lone surrogate escape (``\\ud800``) turned into ``\\ufffd``.

    JSON's grammar allows a lone surrogate in a string (RFC 8259, section 8.2) and JavaScript's
    JSON.stringify writes one for a broken string; msgspec refuses it. Such a line is JSON, so
    it must not close the socket as "not JSON": with U+FFFD in its place (same length, so error
    positions stay true) the line decodes, or gets the error its fields deserve.
    """
    return _ESCAPE.sub(lambda escape: b"\\ufffd" if escape[1] else escape[0], line)


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
