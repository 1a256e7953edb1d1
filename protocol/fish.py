"""A sans-I/O codec for Fish's wire: JSON values back to back over a byte stream.

The course's implementations write compact JSON, one value per send and no newline, so a reader
must split a stream of concatenated values itself (spec fish.md, "Wire format"). The codec never
touches a socket: feed it the bytes read, in any chunking (``receive_data``; ``b""`` means the
peer closed), take values out (``next_value``, which returns :data:`NEED_DATA` until a whole
value is buffered), and turn our own values into bytes (``send``)::

    codec = StreamCodec()
    codec.receive_data(await stream.receive_some())
    while (value := codec.next_value()) is not NEED_DATA:
        ...                            # may raise RemoteProtocolError
    await stream.send_all(codec.send(["setup", [state]]))

Framing. Whitespace (space, tab, CR, LF) between values is skipped; it is input like any other,
counted toward the next value's budget (a stream of spaces is not free to send for ever). An
array, object or string ends at its closing bracket or quote, found by one incremental scan that
never rescans a byte; a bare number or literal (``12``, ``true``) ends at the next whitespace,
bracket or quote, or at the end of the stream. A value may take at most ``max_value`` bytes
(default 1 MiB): a longer one is refused as soon as its unfinished part passes the budget,
without buffering the rest.

Errors. Every error of the peer's making is a :class:`RemoteProtocolError` whose ``cause`` is
one of ``not_json`` (garbage, bad UTF-8, a bracket that does not match, the ``NaN`` and
``Infinity`` Python's json would take, a number too large for a float), ``too_large`` or
``truncated`` (the stream ended inside a value). Fish gives a peer no second chance, so any
error is final (``fatal``): the codec then raises the same error on every call. Sending
something that is not JSON (a NaN, a set) is our own bug: :class:`LocalProtocolError`. The
need-data marker and both errors are the framing base's (:mod:`protocol.framing`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from protocol.framing import (
    NEED_DATA,
    LocalProtocolError,
    NeedData,
    ProtocolError,
    RemoteProtocolError,
)

__all__ = [
    "MAX_VALUE",
    "NEED_DATA",
    "LocalProtocolError",
    "NeedData",
    "ProtocolError",
    "RemoteProtocolError",
    "StreamCodec",
    "encode",
]

MAX_VALUE: Final = 1 << 20
"""The most bytes one value may take, by default (a State on a 5 x 5 board is ~400 bytes)."""


#: The first byte that is not JSON whitespace (space, tab, CR, LF).
_NOT_WHITESPACE: Final = re.compile(rb"[^ \t\r\n]")
_OPEN: Final = {ord("["): ord("]"), ord("{"): ord("}")}
_CLOSE: Final = frozenset(b"]}")
#: Inside a container but outside strings, the bytes that matter: brackets and quotes.
_STRUCTURE: Final = re.compile(rb'[\[\]{}"]')
#: Inside a string, the bytes that matter: the closing quote and backslash escapes.
_IN_STRING: Final = re.compile(rb'["\\]')
#: Where a bare number or literal stops.
_SCALAR_END: Final = re.compile(rb'[\s\[\]{}",:]')
_SCALAR_START: Final = frozenset(b"-0123456789tfn")
#: Values whose end is their own last byte (not a number, which more digits could extend).
_FAST_START: Final = frozenset(b'[{"')


def _not_json_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]}... is out of range")
    return value


#: Strict JSON: Python's decoder also takes NaN, Infinity and -Infinity, and turns 1e400 into
#: inf; a peer's value holding one would reach our logs as a line no JSON reader accepts.
_DECODER: Final = json.JSONDecoder(parse_constant=_not_json_constant, parse_float=_finite_float)


def encode(value: object) -> bytes:
    """``value`` as compact JSON bytes; a value JSON cannot carry is a LocalProtocolError."""
    try:
        text = json.dumps(value, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError) as error:
        raise LocalProtocolError(f"cannot send {value!r:.80}: {error}", "not_json") from error
    return text.encode("ascii")


class StreamCodec:
    """Splits a byte stream into JSON values; see the module docstring."""

    def __init__(self, max_value: int = MAX_VALUE) -> None:
        if max_value < 1:
            raise ValueError(f"max_value must be positive, got {max_value}")
        self.max_value = max_value
        self._buffer = bytearray()
        #: Where the scan of the value at the start of the buffer goes on from.
        self._scan = 0
        #: Open brackets of the value being scanned (closing bytes expected, innermost last).
        self._stack: list[int] = []
        self._in_string = False
        self._started = False  # the buffer starts with a value (leading whitespace dropped)
        #: Whitespace dropped since the last value: it counts toward the next value's budget.
        self._blank = 0
        self._eof = False
        self._error: RemoteProtocolError | None = None
        self.values_out = 0

    @property
    def eof(self) -> bool:
        """True once the peer closed and every value it sent has been taken out."""
        return self._eof and not self._buffer

    @property
    def buffered_bytes(self) -> int:
        """Bytes held that are not yet a whole value (for a reader's memory budget)."""
        return len(self._buffer)

    def receive_data(self, data: bytes | bytearray | memoryview) -> None:
        """Feed bytes read from the peer; ``b""`` marks the end of the stream."""
        if self._eof:
            if data:
                raise LocalProtocolError("data fed after the end of the stream", "after_eof")
            return
        if data:
            self._buffer += data
        else:
            self._eof = True

    def send(self, value: object) -> bytes:
        return encode(value)

    def next_value(self) -> Any:
        """The next whole value, or NEED_DATA; raises RemoteProtocolError (for good) on bad
        bytes, an oversized value or a stream cut inside a value."""
        if self._error is not None:
            raise self._error
        try:
            return self._next()
        except RemoteProtocolError as error:
            self._error = error
            self._buffer.clear()
            raise

    def _fail(self, text: str, cause: str) -> RemoteProtocolError:
        return RemoteProtocolError(text, cause)

    def _next(self) -> Any:
        buffer = self._buffer
        if not self._started:
            value_at = _NOT_WHITESPACE.search(buffer)
            start = len(buffer) if value_at is None else value_at.start()
            self._blank += start
            del buffer[:start]
            if self._blank > self.max_value:
                raise self._fail(
                    f"more than {self.max_value} bytes of whitespace before a value", "too_large"
                )
            if not buffer:
                return NEED_DATA
            self._blank = 0
            self._started = True
            self._scan = 0
        if self._scan == 0 and buffer[0] in _FAST_START:
            found = self._whole_value()
            if found is not None:
                return found[0]
        end = self._find_end()
        if end is None:
            if len(buffer) > self.max_value:
                raise self._fail(f"a value longer than {self.max_value} bytes", "too_large")
            if self._eof:
                if not self._stack and not self._in_string:
                    end = len(buffer)  # a bare number or literal ends with the stream
                else:
                    raise self._fail(
                        f"the stream ended inside a value: {bytes(buffer[:40])!r}", "truncated"
                    )
            else:
                return NEED_DATA
        if end > self.max_value:
            raise self._fail(f"a value longer than {self.max_value} bytes", "too_large")
        raw = bytes(buffer[:end])
        del buffer[:end]
        self._started = False
        self._scan = 0
        try:
            value = _DECODER.decode(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise self._fail(f"not JSON: {raw[:40]!r}: {error}", "not_json") from None
        self.values_out += 1
        return value

    def _whole_value(self) -> tuple[Any] | None:
        """The usual case, at C speed: the first read holds the whole value (and maybe more).
        None when it does not parse yet; then the incremental scan takes over, so a value is
        tried this way only once and a slow stream costs no rescans."""
        buffer = self._buffer
        try:
            text = buffer[: self.max_value + 1].decode("utf-8")
            value, end = _DECODER.raw_decode(text)
        except (UnicodeDecodeError, ValueError, RecursionError):
            return None
        size = end if text.isascii() else len(text[:end].encode("utf-8"))
        if size > self.max_value:
            return None
        del buffer[:size]
        self._started = False
        self.values_out += 1
        return (value,)

    def _find_end(self) -> int | None:
        """The end of the value at the start of the buffer, or None while it is unfinished."""
        buffer, stack = self._buffer, self._stack
        position = self._scan
        if position == 0:
            first = buffer[0]
            if first in _OPEN:
                stack.append(_OPEN[first])
                position = 1
            elif first == ord('"'):
                self._in_string = True
                position = 1
            elif first in _SCALAR_START:
                found = _SCALAR_END.search(buffer, 1)
                return found.start() if found is not None else None
            else:
                raise self._fail(f"not JSON: starts with {bytes(buffer[:40])!r}", "not_json")
        limit = self.max_value + 1
        while True:
            if self._in_string:
                found = _IN_STRING.search(buffer, position, limit)
                if found is None:
                    self._scan = min(len(buffer), limit)
                    return None
                if buffer[found.start()] == ord("\\"):
                    if found.start() + 1 >= len(buffer):
                        self._scan = found.start()  # the escaped byte has not arrived yet
                        return None
                    position = found.start() + 2
                    continue
                self._in_string = False
                position = found.end()
                if not stack:
                    return position
                continue
            found = _STRUCTURE.search(buffer, position, limit)
            if found is None:
                self._scan = min(len(buffer), limit)
                return None
            byte = buffer[found.start()]
            position = found.end()
            if byte == ord('"'):
                self._in_string = True
            elif byte in _OPEN:
                stack.append(_OPEN[byte])
            elif byte in _CLOSE:
                if byte != stack.pop():
                    raise self._fail(
                        f"not JSON: a bracket that does not match in {bytes(buffer[:40])!r}",
                        "not_json",
                    )
                if not stack:
                    return position
