"""One remote player's connection, as the Fish server sees it: a thin trio shell over the codec.

The bytes move through the shared network layer (:mod:`server.net`): a :class:`Transport`
reads and writes the socket, a :class:`FrameReader` feeds a :class:`~protocol.fish.StreamCodec`
within the connection's and the server's memory budgets. Each connection has one reader task
(:meth:`Remote.read_loop`) that puts each whole value, the end of the stream or the peer's
fault into a channel of one slot (so a client flooding us waits on its own socket, never on our
memory). Whoever holds the player at the moment (the sign-up, then the manager,
then one game at a time) makes calls with :meth:`Remote.call`: it sends the call and waits for
the next value, all within the call's time limit. A value already waiting before a call was sent
is data nobody asked for, and fails the player.

Once a call went wrong the player is ``broken`` and every later call fails at once without
touching the socket; :meth:`Remote.release` lets the connection's task close the socket.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

import trio

from protocol.fish import NEED_DATA, RemoteProtocolError, StreamCodec, encode
from server.net import FrameReader, InputBudget, Limits, OverBudget, Transport

__all__ = ["Answer", "Remote", "valid_name"]

_STRICT = re.compile(r"[A-Za-z]{1,12}")
_LENIENT = re.compile(r"[\x20-\x7e]{1,12}")


def valid_name(name: object, mode: Literal["strict", "lenient"]) -> bool:
    """strict: 1-12 ASCII letters (the spec); lenient: 1-12 printable ASCII characters."""
    pattern = _STRICT if mode == "strict" else _LENIENT
    return isinstance(name, str) and pattern.fullmatch(name) is not None


@dataclass(frozen=True)
class Answer:
    """The outcome of one call: ``ok`` with the reply ``value``, or not with the ``reason``."""

    ok: bool
    value: Any = None
    reason: str = ""
    seconds: float = 0.0


#: What the reader task puts in the channel: ("value", v), ("eof", reason), ("error", reason).
Item = tuple[str, Any]


class Remote:
    """A connected client; ``number`` is its place in the order of connections."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        limits: Limits,
        budget: InputBudget | None = None,
    ) -> None:
        self.transport = Transport(stream, receive_bytes=limits.receive_bytes)
        self.number = number
        self.name = ""
        self.codec = StreamCodec(limits.partial_line_bytes)
        self.reader = FrameReader(self.transport, self.codec, limits, budget)
        self.broken = ""
        self._send, self._receive = trio.open_memory_channel[Item](1)
        self._released = trio.Event()

    def __repr__(self) -> str:
        return f"Remote({self.number}, {self.name!r})"

    async def read_loop(self) -> None:
        """Read until the end of the stream or a wire error; run in the connection's nursery."""
        async with self._send:
            try:
                while True:
                    await self.reader.fill()
                    while (value := self.codec.next_value()) is not NEED_DATA:
                        await self._send.send(("value", value))
                        await self.reader.frame_done()
                    if self.reader.eof:
                        await self._send.send(("eof", "disconnected"))
                        return
            except RemoteProtocolError as error:
                await self._send.send(("error", f"{error.cause}: {error}"))
            except OverBudget as error:
                await self._send.send(("error", f"{error.budget}: {error.text}"))

    async def aclose(self) -> None:
        """Give back the budget and close the socket (never raises)."""
        self.reader.release()
        await self.transport.aclose()

    async def first_value(self, timeout: float) -> Answer:
        """The first value the client sends (its name), within ``timeout`` seconds."""
        return await self._answer(timeout, trio.current_time())

    async def call(self, message: list[Any], timeout: float) -> Answer:
        """Send ``message`` and wait for the reply, all within ``timeout`` seconds."""
        if self.broken:
            return Answer(False, reason=self.broken)
        start = trio.current_time()
        try:
            kind, value = self._receive.receive_nowait()
        except trio.WouldBlock:
            pass
        else:
            reason = "sent data nobody asked for" if kind == "value" else value
            return self._break(reason, start)
        data = encode(message)  # LocalProtocolError: our own bug, let it surface
        with trio.move_on_after(timeout) as scope:
            try:
                await self.transport.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return self._break("connection broken", start)
            return await self._answer(math.inf, start)
        assert scope.cancelled_caught
        return self._break(f"no reply within {timeout:g} s", start)

    async def _answer(self, timeout: float, start: float) -> Answer:
        with trio.move_on_after(timeout):
            try:
                kind, value = await self._receive.receive()
            except trio.EndOfChannel:
                return self._break(self.broken or "disconnected", start)
            if kind == "value":
                return Answer(True, value, seconds=trio.current_time() - start)
            return self._break(str(value), start)
        return self._break(f"nothing within {timeout:g} s", start)

    def _break(self, reason: str, start: float) -> Answer:
        self.broken = self.broken or reason
        return Answer(False, reason=reason, seconds=trio.current_time() - start)

    def release(self) -> None:
        """Nobody will call this player again: its connection may close."""
        self._released.set()

    async def wait_released(self) -> None:
        await self._released.wait()
