"""One remote player's connection, as the Fish server sees it: a thin trio shell over the codec.

The connection's cycle is the shared one (:class:`server.cycle.Link`: admitted or refused,
read within the connection's and the server's memory budgets into a
:class:`~protocol.fish.StreamCodec`, closed). Each connection has one reader task
(:meth:`Remote.read_loop`) that puts each whole value (a :class:`Value`) or the
:class:`~server.cycle.Ending` of the stream into a channel of one slot (so a client flooding
us waits on its own socket, never on our memory). Whoever holds the player at the moment (the
sign-up, then the manager, then one game at a time) makes calls with :meth:`Remote.call`: it
sends the call and waits for the next value, all within the call's time limit. A value already
waiting before a call was sent is data nobody asked for, and fails the player.

Once a call went wrong the link's ending is recorded (who broke it, why: ``broken``) and every
later call fails at once without touching the socket; :meth:`Remote.release` lets the
connection's cycle end.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import trio

from protocol.fish import NEED_DATA, RemoteProtocolError, StreamCodec, encode
from server.cycle import Ending, Fault, Link, attribute
from server.net import Gate, Limits, OverBudget

__all__ = ["Answer", "Remote", "Value", "valid_name"]

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


@dataclass(frozen=True, slots=True)
class Value:
    """A whole value the client sent."""

    value: Any


class Remote:
    """A connected client (its :class:`server.cycle.Link`); ``number`` is its place in the
    order of connections, ``refusal`` how the server words and records a refusal."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        limits: Limits,
        gate: Gate,
        refusal: Callable[[str], bytes | None],
    ) -> None:
        self.number = number
        self.name = ""
        self.codec = StreamCodec(limits.partial_line_bytes)
        self.link: Link[bytes] = Link(stream, self.codec, limits, gate, refusal)
        self.transport = self.link.transport
        self.reader = self.link.reader
        self._send, self._receive = trio.open_memory_channel[Value | Ending](1)
        self._released = trio.Event()

    def __repr__(self) -> str:
        return f"Remote({self.number}, {self.name!r})"

    @property
    def broken(self) -> str:
        """Why the player is out ("" while it is not)."""
        ending = self.link.ending
        return "" if ending is None else ending.reason

    async def read_loop(self) -> None:
        """Read until the end of the stream or a wire error; run in the connection's nursery."""
        async with self._send:
            try:
                while True:
                    await self.reader.fill()
                    while (value := self.codec.next_value()) is not NEED_DATA:
                        await self._send.send(Value(value))
                        await self.reader.frame_done()
                    if self.reader.eof:
                        await self._send.send(Ending(Fault.DISCONNECT, "disconnected"))
                        return
            except (RemoteProtocolError, OverBudget) as error:
                await self._send.send(attribute(error))

    async def first_value(self, timeout: float) -> Answer:
        """The first value the client sends (its name), within ``timeout`` seconds."""
        return await self._answer(timeout, trio.current_time())

    async def call(self, message: list[Any], timeout: float) -> Answer:
        """Send ``message`` and wait for the reply, all within ``timeout`` seconds."""
        if self.broken:
            return Answer(False, reason=self.broken)
        start = trio.current_time()
        try:
            item = self._receive.receive_nowait()
        except trio.WouldBlock:
            pass
        else:
            if isinstance(item, Value):
                item = Ending(Fault.REMOTE, "sent data nobody asked for")
            return self._break(item, start)
        data = encode(message)  # LocalProtocolError: our own bug, let it surface
        with trio.move_on_after(timeout) as scope:
            try:
                await self.transport.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
                return self._break(attribute(error), start)
            return await self._answer(math.inf, start)
        assert scope.cancelled_caught
        return self._break(Ending(Fault.TIMEOUT, f"no reply within {timeout:g} s"), start)

    async def _answer(self, timeout: float, start: float) -> Answer:
        with trio.move_on_after(timeout):
            try:
                item = await self._receive.receive()
            except trio.EndOfChannel:
                return self._break(
                    self.link.ending or Ending(Fault.DISCONNECT, "disconnected"), start
                )
            if isinstance(item, Value):
                return Answer(True, item.value, seconds=trio.current_time() - start)
            return self._break(item, start)
        return self._break(Ending(Fault.TIMEOUT, f"nothing within {timeout:g} s"), start)

    def _break(self, ending: Ending, start: float) -> Answer:
        self.link.end(ending)
        return Answer(False, reason=ending.reason, seconds=trio.current_time() - start)

    def fail(self, ending: Ending) -> None:
        """The game put the player out (``ending`` is kept unless it had already ended)."""
        self.link.end(ending)

    def release(self) -> None:
        """Nobody will call this player again: its connection may close."""
        self._released.set()

    async def wait_released(self) -> None:
        await self._released.wait()
