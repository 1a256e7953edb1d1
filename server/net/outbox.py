"""A connection's bounded outbox: what other tasks send to it, written in order by one writer.

``deliver`` never waits, so the task that produced a message (a match's actor) never waits for
a slow client. On a socket whose writer has nothing pending, the bytes are written at once, in
the producer's own step (no writer wakes up, one write(2) for the lot); what the kernel does not
take, and everything delivered while the writer still holds bytes, queues behind them. A full
outbox means the client sends but does not read: ``on_full`` is called (the server drops it).
Once :data:`CLOSE` (or a last item) is delivered, the writer has ``drain_seconds`` to write what
is left: a peer that reads nothing would otherwise hold the connection open for ever.

Items are whatever the game's ``render`` turns into bytes: ``render(items) -> (bytes, stop)``,
``stop`` saying the connection must close after them (a game's last message). :data:`CLOSE` in a
delivery does the same from outside.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import trio

from server.net.transport import Transport

__all__ = ["CLOSE", "Close", "Outbox"]

Item = TypeVar("Item")
#: Items written in one ``send_all`` at most (one write for a burst).
WRITE_BATCH = 64


class Close(enum.Enum):
    """The type of :data:`CLOSE`."""

    CLOSE = "close"


CLOSE = Close.CLOSE
"""Delivered after the last items: the writer closes the connection once they are written."""


class Outbox(Generic[Item]):
    """At most ``size`` undelivered items for one connection, and the task that writes them."""

    def __init__(
        self,
        transport: Transport,
        size: int,
        render: Callable[[list[Item]], tuple[bytes | bytearray, bool]],
        on_full: Callable[[], None],
        drain_seconds: float = math.inf,
    ) -> None:
        self._transport = transport
        self._drain_seconds = drain_seconds
        #: Around the writer; its deadline is set once the connection must close.
        self._drain = trio.CancelScope()
        self._render = render
        self._on_full = on_full
        self._in, self._out = trio.open_memory_channel[Item | Close](size)
        #: Items queued that the writer has not finished writing: while any is, a delivery
        #: must queue behind them, not write.
        self._unwritten = 0
        #: The last item was rendered (a stop, CLOSE, a broken connection): nothing more is.
        self.stopped = False

    def deliver(self, items: Sequence[Item | Close]) -> bool:
        """Send ``items`` in order without waiting; False if they cannot all be (the connection
        is closed, broke, or its outbox is full: then ``on_full`` has been called)."""
        if self.stopped:
            return not self._transport.closed
        if any(item is CLOSE for item in items):
            self._closing()
        transport = self._transport
        if transport.writes_now and not self._unwritten:
            data, self.stopped = self._render_upto_close(items)
            sent = transport.write_now(data)
            if sent is None:
                self.stopped, sent = True, len(data)
            leftover: list[Item | Close] = []
            if sent < len(data):
                leftover.append(bytes(data[sent:]))  # type: ignore[arg-type]  # see _render_upto_close
            if self.stopped:
                leftover.append(CLOSE)  # the writer sends the rest, then closes
                self._closing()
            items = leftover
        for item in items:
            try:
                self._in.send_nowait(item)
            except trio.WouldBlock:
                self._on_full()
                return False
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return False
            self._unwritten += 1
        return True

    def _render_upto_close(self, items: Sequence[Item | Close]) -> tuple[bytes | bytearray, bool]:
        """The bytes of ``items`` up to a CLOSE, and whether to stop after them. Raw ``bytes``
        items (the unwritten rest of an earlier delivery) are written as they are."""
        data = bytearray()
        batch: list[Item] = []
        for item in items:
            if item is CLOSE or isinstance(item, bytes):
                if batch:
                    rendered, stop = self._render(batch)
                    data += rendered
                    batch = []
                    if stop:
                        return data, True
                if item is CLOSE:
                    return data, True
                data += item
                continue
            batch.append(item)
        if batch:
            rendered, stop = self._render(batch)
            data += rendered
            return data, stop
        return data, False

    async def run(self) -> None:
        """The writer: writes what ``deliver`` could not write at once, until a stop, CLOSE,
        or a broken connection. Then the connection should close."""
        receive = self._out
        try:
            with self._drain:
                async for first in receive:
                    batch = [first]
                    while len(batch) < WRITE_BATCH:
                        try:
                            batch.append(receive.receive_nowait())
                        except (trio.WouldBlock, trio.EndOfChannel):
                            break
                    data, stop = self._render_upto_close(batch)
                    if stop:
                        self._closing()
                    try:
                        await self._transport.send_all(data)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        stop = True
                    self._unwritten -= len(batch)
                    if stop:
                        break
        finally:
            self.stopped = True

    @property
    def unwritten(self) -> int:
        """Items delivered and not yet written (0: the writer is idle)."""
        return self._unwritten

    @property
    def drained(self) -> bool:
        """False when the writer gave up: the peer did not take its last lines in time."""
        return not self._drain.cancelled_caught

    def _closing(self) -> None:
        """The connection must close: its writer's time is counted from now (once)."""
        if self._drain.deadline == math.inf:
            self._drain.deadline = trio.current_time() + self._drain_seconds

    def close(self) -> None:
        """No more deliveries (they return False). Drops the callbacks, which usually hold the
        connection that holds this outbox: no reference cycle outlives the connection."""
        self._in.close()
        self.stopped = True
        self._render = _render_nothing
        self._on_full = _do_nothing


def _render_nothing(items: object) -> tuple[bytes, bool]:
    return b"", True


def _do_nothing() -> None:
    pass
