"""The framing base every game's wire is built on, sans-I/O: "need more data", whose fault a
protocol error is, and the line frame.

- :data:`NEED_DATA` (of type :class:`NeedData`, an enum so ``is NEED_DATA`` narrows the type):
  what a decoder returns while no whole frame is buffered.
- :class:`RemoteProtocolError` (the peer broke the wire: drop or answer it) and
  :class:`LocalProtocolError` (we misused a codec: our bug), both a :class:`ProtocolError` with
  a ``text`` fit for an error message, a snake_case ``cause``, ``fatal`` (the stream can no
  longer be trusted: close it) and, when known, the ``message_type`` and ``field`` at fault.
- :class:`LineFramer`: a byte stream split into lines.

The games' frames on it: the dungeon's JSON Lines (:mod:`protocol.codec`, lines), the Labyrinth's
commands (:mod:`protocol.labyrinth`, lines or a write's end) and its server messages (4-digit
length), Fish's JSON values back to back (:mod:`protocol.fish`).
"""

from __future__ import annotations

import enum
import re
from collections import deque
from typing import Final

__all__ = [
    "NEED_DATA",
    "FrameError",
    "LineFramer",
    "LocalProtocolError",
    "NeedData",
    "ProtocolError",
    "RemoteProtocolError",
]


class NeedData(enum.Enum):
    """The type of :data:`NEED_DATA`."""

    NEED_DATA = "NEED_DATA"


NEED_DATA: Final = NeedData.NEED_DATA
"""Returned by a decoder while no whole frame is buffered: feed more bytes."""


class ProtocolError(Exception):
    """A wire error: ``text`` says what, ``cause`` is a snake_case word for logs and verdicts
    (a game's enum of causes, or a plain string)."""

    #: Whether the stream can no longer be trusted (close it); a class may change the default.
    fatal: bool = True

    def __init__(
        self,
        text: str,
        cause: str = "malformed",
        *,
        message_type: str | None = None,
        field: str | None = None,
        fatal: bool | None = None,
    ) -> None:
        super().__init__(text)
        self.text = text
        self.cause = cause
        self.message_type = message_type
        self.field = field
        if fatal is not None:
            self.fatal = fatal

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r}, cause={str(self.cause)!r})"


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol does not allow (its fault, not ours)."""


class LocalProtocolError(ProtocolError):
    """We misused the protocol or a codec (a bug on our side)."""


class FrameError:
    """In a framer's output, in place of a line: a fault of the stream (``cause`` is
    ``line_too_long`` or ``incomplete_line``). A value, not an exception, so a queue of them
    holds no traceback; each codec raises its own error for it."""

    __slots__ = ("cause", "text")

    def __init__(self, text: str, cause: str) -> None:
        self.text = text
        self.cause = cause

    def __repr__(self) -> str:
        return f"FrameError({self.text!r}, {self.cause!r})"


#: A line's end, then whitespace-only lines up to another line's end: a run of blank lines.
_BLANK_RUN: Final = re.compile(rb"\n[ \t\r\f\v\n]*\n")


class LineFramer:
    """Bytes in any chunking to lines: a line ends at ``\\n`` (a ``\\r`` before it stays in the
    line, for the codec to strip with the rest of its whitespace) or where :meth:`end_line`
    says. Lines of whitespace only are skipped and counted (``blank_lines``), as they are
    framed. A line holds at most ``max_line`` bytes, not counting its ``\\n`` or ``\\r\\n``; a
    longer one is reported (one :class:`FrameError`) as soon as the unfinished line passes the
    limit, without buffering the rest, whose bytes are then dropped up to the next ``\\n``.
    ``receive_data(b"")`` ends the stream: a non-blank unfinished line is then reported as
    ``incomplete_line`` (unless ``end_is_delimiter``: then it is a line).

    ``lines`` holds the complete lines and errors in stream order; :meth:`next_line` takes
    them out one at a time (a hot loop may read ``lines`` itself).
    """

    def __init__(self, max_line: int, *, end_is_delimiter: bool = False) -> None:
        self.max_line: Final = max_line
        self.end_is_delimiter: Final = end_is_delimiter
        self.lines: deque[bytes | FrameError] = deque()
        self._partial = bytearray()  # the unfinished last line
        self._discarding = False  # inside an over-long line: drop bytes up to the next "\n"
        self.eof = False
        #: Blank lines (whitespace only) skipped so far: a server counts them as input.
        self.blank_lines = 0

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for the unfinished line (never more than ``max_line`` + 1)."""
        return len(self._partial)

    @property
    def unfinished_line(self) -> bytes:
        """What is held of a line whose end has not come yet: fed to a fresh framer, it goes
        on where this one stopped (a socket handed to another process)."""
        return bytes(self._partial)

    def next_line(self) -> bytes | FrameError | NeedData:
        """The next complete line (without its ``\\n``), a FrameError, or NEED_DATA."""
        return self.lines.popleft() if self.lines else NEED_DATA

    def end_line(self) -> None:
        """What is held is a whole line: its end came by other means (a client's write is
        over). An over-long line being dropped ends here too."""
        if self._discarding:
            self._discarding = False
        elif self._partial.strip():
            self.lines.append(bytes(self._partial))
        elif self._partial:
            self.blank_lines += 1
        self._partial.clear()

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Bytes read, in any chunking; ``b""``: the stream ended (``b""`` again is harmless;
        more bytes after it are our misuse: LocalProtocolError ``data_after_eof``)."""
        if self.eof:
            if data:
                raise LocalProtocolError(
                    "receive_data() after the end of the stream", "data_after_eof"
                )
            return
        if not data:
            self.eof = True
            if self.end_is_delimiter:
                self.end_line()
            elif self._partial.strip():
                self.lines.append(
                    FrameError(
                        f"the stream ended in the middle of a line ({len(self._partial)} bytes"
                        " without a newline)",
                        "incomplete_line",
                    )
                )
            self._partial.clear()
            return
        data = bytes(data)
        end = data.rfind(b"\n") + 1
        if (
            not self._partial
            and not self._discarding
            and len(data) <= self.max_line
            and not data.strip()
        ):
            # Whitespace only (a flood of blank lines): counted without splitting it up; what
            # follows the last newline stays as the unfinished (blank) line. Only in a chunk
            # no longer than a line may be: a longer one may hold a blank line over the limit,
            # which the loop below reports, as it would in smaller chunks.
            self.blank_lines += data.count(b"\n")
            self._partial += data[end:]
            return
        if b"\n" in data:
            # Runs of blank lines after a line's end, removed in one pass at C speed and
            # counted (else a Python step per blank line). A chunk that could hold a whitespace
            # line over the limit keeps such runs whole, for the loop below to report the line.
            if len(data) <= self.max_line:
                collapsed = _BLANK_RUN.sub(b"\n", data)
            else:
                collapsed = _BLANK_RUN.sub(self._collapse_blank_run, data)
            if len(collapsed) != len(data):
                self.blank_lines += data.count(b"\n") - collapsed.count(b"\n")
                data = collapsed
        parts = data.split(b"\n")
        last = parts.pop()
        if parts:
            first = parts[0]
            whole = not self._partial  # no line began in an earlier chunk
            if self._discarding:
                self._discarding = False
                del parts[0]  # the rest of the over-long line: dropped
            elif self._partial:
                self._partial += first
                parts[0] = bytes(self._partial)
                self._partial.clear()
            if whole and len(parts) > 1 and not b"".join(parts).strip():
                self.blank_lines += len(parts)  # a run of blank lines, counted at once
                parts = []
            for line in parts:
                if self._too_long(line):
                    self.lines.append(self._too_long_error())
                elif not line.strip():
                    self.blank_lines += 1  # skipped without decoding it
                else:
                    self.lines.append(line)
        if self._discarding:
            return
        # Checked before appending, so an over-long line is never held beyond the limit.
        size = len(self._partial) + len(last)
        ends_in_cr = (last or self._partial).endswith(b"\r")
        if size > self.max_line + 1 or (size == self.max_line + 1 and not ends_in_cr):
            self.lines.append(self._too_long_error())
            self._partial.clear()
            self._discarding = True
        else:
            self._partial += last

    def _collapse_blank_run(self, run: re.Match[bytes]) -> bytes:
        """One "\\n" for a run of blank lines, unless one of them is over the line limit."""
        lines = run.group()
        if len(lines) > self.max_line + 2 and any(map(self._too_long, lines.split(b"\n"))):
            return lines
        return b"\n"

    def _too_long(self, line: bytes | bytearray) -> bool:
        # A line may carry one "\r" of a "\r\n" ending beyond the limit.
        size = len(line)
        return size > self.max_line and not (size == self.max_line + 1 and line.endswith(b"\r"))

    def _too_long_error(self) -> FrameError:
        return FrameError(f"line longer than {self.max_line} bytes", "line_too_long")
