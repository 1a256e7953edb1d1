"""Live updates as server-sent events: a :class:`Broadcaster` fans events out to subscribers
(each with a small buffer; one that falls behind is dropped, never the publisher),
:func:`sse_response` streams one subscription to a browser's ``EventSource``, and
:func:`event_stream` streams any async iterator of :func:`sse_event` texts (a page that
polls its own state rather than being published to)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

import trio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

__all__ = ["Broadcaster", "event_stream", "sse_event", "sse_response", "sse_text"]


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

    async def subscribe(self, first: Callable[[], str] | None = None) -> AsyncGenerator[str, None]:
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
    """One event's SSE text: ``data`` as compact JSON."""
    return sse_text(kind, json.dumps(data, separators=(",", ":")))


def sse_text(kind: str, text: str) -> str:
    """One event's SSE text of ``text`` already encoded (one line of JSON)."""
    return f"event: {kind}\ndata: {text}\n\n"


class _EventStream(StreamingResponse):
    """A streaming response that closes its body when it ends, however it ends. Starlette
    stops iterating when the browser goes away but leaves the generator suspended where it
    was (at a ``yield``, if the disconnect came during a send); only the garbage collector
    would then run its ``finally`` (a subscriber removed), at a random later moment and with
    trio's warning about an abandoned async generator."""

    def __init__(self, body: AsyncGenerator[str, None]) -> None:
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        super().__init__(body, media_type="text/event-stream", headers=headers)
        self._body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with trio.CancelScope(shield=True):
                await self._body.aclose()


def event_stream(body: AsyncGenerator[str, None]) -> StreamingResponse:
    """A ``text/event-stream`` response of ``body``'s texts (proxies told not to buffer it),
    closed with the response."""
    return _EventStream(body)


def sse_response(
    broadcaster: Broadcaster, snapshot: Callable[[], tuple[str, Any]] | None = None
) -> StreamingResponse:
    """A ``text/event-stream`` response following ``broadcaster``; ``snapshot()`` gives the
    first event (kind, data) so a new page starts from the current state."""
    first = None if snapshot is None else (lambda: sse_event(*snapshot()))
    return event_stream(broadcaster.subscribe(first))
