"""Live updates as server-sent events: a :class:`Broadcaster` fans events out to subscribers
(each with a small buffer; one that falls behind is dropped, never the publisher), and
:func:`sse_response` streams one subscription to a browser's ``EventSource``."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import trio
from starlette.responses import StreamingResponse

__all__ = ["Broadcaster", "sse_response"]


class Broadcaster:
    """Publish JSON events to every current subscriber. ``publish`` never blocks: a subscriber
    whose buffer (``buffer`` events) is full is closed, and its browser reconnects."""

    def __init__(self, buffer: int = 64) -> None:
        self._buffer = buffer
        self._subscribers: set[trio.MemorySendChannel[str]] = set()
        self._joined = trio.Event()

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    async def wait_for_subscribers(self, count: int = 1) -> None:
        """Return once at least ``count`` subscribers follow (for tests and demos)."""
        while len(self._subscribers) < count:
            await self._joined.wait()
            self._joined = trio.Event()

    def publish(self, kind: str, data: Any) -> None:
        text = sse_event(kind, data)
        for channel in list(self._subscribers):
            try:
                channel.send_nowait(text)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                self._subscribers.discard(channel)
                channel.close()

    async def subscribe(self, first: Callable[[], str] | None = None) -> AsyncIterator[str]:
        """The events as SSE text, starting with ``first()`` (e.g. the whole current state)."""
        send, receive = trio.open_memory_channel[str](self._buffer)
        self._subscribers.add(send)
        self._joined.set()
        try:
            if first is not None:
                yield first()
            async with receive:
                while True:
                    try:
                        with trio.move_on_after(15) as idle:
                            text = await receive.receive()
                    except trio.EndOfChannel:
                        return
                    yield ": keep-alive\n\n" if idle.cancelled_caught else text
        finally:
            self._subscribers.discard(send)
            send.close()


def sse_event(kind: str, data: Any) -> str:
    """One event's SSE text."""
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def sse_response(
    broadcaster: Broadcaster, snapshot: Callable[[], tuple[str, Any]] | None = None
) -> StreamingResponse:
    """A ``text/event-stream`` response following ``broadcaster``; ``snapshot()`` gives the
    first event (kind, data) so a new page starts from the current state."""
    first = None if snapshot is None else (lambda: sse_event(*snapshot()))
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        broadcaster.subscribe(first), media_type="text/event-stream", headers=headers
    )
