"""A sans-I/O line framer for servers whose frames are text lines (the Labyrinth's protocol).

``receive_data`` takes bytes in any chunking; ``next_line`` hands out each complete line without
its ``\\n`` (and a ``\\r`` before it), :data:`NEED_DATA` when none is buffered, or
:class:`LineTooLong` once per over-long line (whose rest is then dropped up to the next
``\\n``). Blank lines are lines: a server decides what they cost. ``buffered_bytes`` is what a
:class:`server.net.FrameReader` checks against the budgets.
"""

from __future__ import annotations

import enum
from collections import deque
from typing import Final

__all__ = ["NEED_DATA", "LineFramer", "LineTooLong", "NeedData"]


class NeedData(enum.Enum):
    NEED_DATA = "NEED_DATA"


NEED_DATA: Final = NeedData.NEED_DATA


class LineTooLong:
    """In place of a line longer than the limit (its first ``max_line`` bytes are dropped)."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line

    def __repr__(self) -> str:
        return f"LineTooLong({self.max_line})"


class LineFramer:
    """Splits a byte stream into lines of at most ``max_line`` bytes."""

    def __init__(self, max_line: int) -> None:
        self.max_line = max_line
        self.eof = False
        self._lines: deque[bytes | LineTooLong] = deque()
        self._partial = bytearray()
        self._discarding = False

    @property
    def buffered_bytes(self) -> int:
        return len(self._partial)

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            self.eof = True
            return
        parts = bytes(data).split(b"\n")
        last = parts.pop()
        for index, part in enumerate(parts):
            if index == 0:
                if self._discarding:
                    self._discarding = False
                    continue
                if self._partial:
                    part = bytes(self._partial + part)
                    self._partial.clear()
            if part.endswith(b"\r"):
                part = part[:-1]
            self._lines.append(part if len(part) <= self.max_line else LineTooLong(self.max_line))
        if self._discarding:
            return
        if len(self._partial) + len(last) > self.max_line + 1:
            self._lines.append(LineTooLong(self.max_line))
            self._partial.clear()
            self._discarding = True
        else:
            self._partial += last

    def next_line(self) -> bytes | LineTooLong | NeedData:
        """The next complete line (without its terminator), LineTooLong, or NEED_DATA."""
        if self._lines:
            return self._lines.popleft()
        return NEED_DATA
