"""Listening: open TCP listeners (127.0.0.1 by default, port 0 for a free one) and serve them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import trio

__all__ = ["open_listeners", "serve_tcp"]


async def open_listeners(
    port: int = 0, host: str = "127.0.0.1"
) -> tuple[list[trio.SocketListener], int]:
    """Listeners on ``host:port`` and the port they are bound to; OSError if the port is busy
    or the host unknown (raised here, before anything runs, so a command can say so)."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    return listeners, listeners[0].socket.getsockname()[1]


async def serve_tcp(
    handler: Callable[[trio.SocketStream], Awaitable[object]],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    listeners: list[trio.SocketListener] | None = None,
    handler_nursery: trio.Nursery | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept connections and run ``handler(stream)`` for each until cancelled; reports the
    bound port through ``task_status`` (``await nursery.start(serve_tcp, handler)``).

    ``listeners`` (from :func:`open_listeners`) replaces ``host``/``port``. Each handler runs in
    ``handler_nursery`` (default: one of this call's own) and owns its stream: it must close it.
    The listeners are closed when this returns.
    """
    if listeners is None:
        listeners, bound = await open_listeners(port, host)
    else:
        bound = listeners[0].socket.getsockname()[1]
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(
                partial(trio.serve_listeners, handler, listeners, handler_nursery=handler_nursery)
            )
            task_status.started(bound)
    finally:
        for listener in listeners:
            with trio.CancelScope(shield=True):
                await listener.aclose()
