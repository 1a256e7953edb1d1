"""One connection's cycle, the same for every game's server: admit or refuse, read within the
limits, write through a bounded outbox, linger, close, and say who broke the connection.

A game's server shell makes a :class:`Link` per accepted stream, with its sans-I/O decoder
(:mod:`protocol`), how its outbox renders items to bytes, and how it words a refusal; then
``await link.serve(read)``. ``read`` is the game's reading loop: it takes frames out of its
decoder (``await link.reader.fill()`` when it needs data, ``await link.reader.frame_done()``
after each) and hands each, as a plain value, to its game. The game answers with
:meth:`Link.deliver` (never waits) and ends the connection with :meth:`Link.stop`.

Every way a connection ends is an :class:`Ending`: a :class:`Fault` (who broke it) and a one-line
reason; :func:`attribute` turns an exception into one. The first ending recorded is the one kept.

Imports the shared network layer and the shared framing base only, never a game.
"""

from __future__ import annotations

import contextlib
import enum
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

from protocol.framing import LocalProtocolError, RemoteProtocolError
from server.net import CLOSE, Decoder, FrameReader, Gate, Limits, Outbox, OverBudget, Transport

__all__ = ["REFUSAL_SECONDS", "REFUSING", "Ending", "Fault", "Link", "attribute"]

Item = TypeVar("Item")
#: How long a refused connection may take to read its refusal before it is closed.
REFUSAL_SECONDS = 1.0
#: Connections refused with a word at once, at most (beyond: closed without one), so that a
#: flood of connections costs bounded memory too.
REFUSING = 64


class Fault(enum.Enum):
    """Who broke a connection."""

    #: The peer: bytes its protocol does not allow, or past a limit.
    REMOTE = "remote"
    #: This server: a message its own protocol does not allow (a bug of ours).
    LOCAL = "local"
    #: The peer did not answer, or sent nothing, in time.
    TIMEOUT = "timeout"
    #: The peer went away (end of stream, a broken connection).
    DISCONNECT = "disconnect"


@dataclass(frozen=True, slots=True)
class Ending:
    """How a connection (or a call on it) ended: who broke it and why, in one line."""

    fault: Fault
    reason: str


def attribute(error: BaseException) -> Ending:
    """The ending an exception of the wire, the limits or trio stands for (TypeError else)."""
    if isinstance(error, RemoteProtocolError):
        return Ending(Fault.REMOTE, f"{error.cause}: {error}")
    if isinstance(error, OverBudget):
        return Ending(Fault.REMOTE, f"{error.budget}: {error.text}")
    if isinstance(error, LocalProtocolError):
        return Ending(Fault.LOCAL, f"{error.cause}: {error}")
    if isinstance(error, (trio.BrokenResourceError, trio.ClosedResourceError)):
        return Ending(Fault.DISCONNECT, "connection broken")
    if isinstance(error, trio.TooSlowError):
        return Ending(Fault.TIMEOUT, str(error) or "too slow")
    raise TypeError(f"no ending for {type(error).__name__}")


class Link(Generic[Item]):
    """One accepted connection: its transport, the reader feeding the game's ``decoder`` within
    ``limits`` and ``gate``'s budget, and (with ``render``) a bounded outbox of items.

    ``refusal(why)`` words a refusal in the game's protocol: the bytes to send before closing
    (None: close without a word); the game may record it there too. ``on_full``: called when
    the outbox is full (default: the cycle ends at once); ``drain_seconds``: the time a closing
    outbox's writer has to write what is left.
    """

    __slots__ = (
        "_tasks",
        "closed",
        "closing",
        "ending",
        "gate",
        "limits",
        "outbox",
        "reader",
        "refusal",
        "scope",
        "transport",
    )

    def __init__(
        self,
        stream: trio.abc.Stream,
        decoder: Decoder,
        limits: Limits,
        gate: Gate,
        refusal: Callable[[str], bytes | None],
        render: Callable[[list[Item]], tuple[bytes | bytearray, bool]] | None = None,
        *,
        on_full: Callable[[], None] | None = None,
        drain_seconds: float = math.inf,
    ) -> None:
        self.limits = limits
        self.gate = gate
        self.refusal = refusal
        self.transport = Transport(stream, receive_bytes=limits.receive_bytes)
        self.reader = FrameReader(self.transport, decoder, limits, gate.budget)
        #: Around the whole cycle (with an outbox): cancelled when the outbox is full (a peer
        #: that does not read).
        self.scope: trio.CancelScope | None = None
        self.outbox: Outbox[Item] | None = None
        if render is not None:
            self.scope = trio.CancelScope()
            self.outbox = Outbox(
                self.transport,
                limits.outbox_messages,
                render,
                on_full or self.scope.cancel,
                drain_seconds,
            )
        #: A last item was delivered: nothing more goes out.
        self.closing = False
        #: The cycle is over (the socket closed or closing).
        self.closed = False
        #: Why the connection ended (the first reason recorded), None while nothing broke it.
        self.ending: Ending | None = None
        self._tasks: trio.CancelScope | None = None

    def deliver(self, items: Sequence[Item], close: bool = False) -> bool:
        """Queue each item as a write of its own, then close after them if ``close``; False
        once the outbox refused one (closed, or full: then the connection is dropped)."""
        outbox = self.outbox
        assert outbox is not None, "this link has no outbox"
        for item in items:
            if not outbox.deliver([item]):
                return False
        if close:
            self.closing = True
            outbox.deliver([CLOSE])
        return True

    def end(self, ending: Ending) -> Ending:
        """Record ``ending`` unless the connection already ended; the ending kept."""
        if self.ending is None:
            self.ending = ending
        return self.ending

    def stop(self, ending: Ending | None = None) -> None:
        """End the cycle now (recording ``ending``): its tasks are cancelled, the socket closes."""
        if ending is not None:
            self.end(ending)
        if self._tasks is not None:
            self._tasks.cancel()

    async def serve(
        self,
        read: Callable[[], Awaitable[None]],
        body: Callable[[], Awaitable[None]] | None = None,
        *,
        on_close: Callable[[], None] | None = None,
        linger: bool | Callable[[], bool] = True,
        leave: Callable[[], Awaitable[None]] | None = None,
        admitted: bool = False,
        linger_refusal: bool = False,
    ) -> bool:
        """The connection's whole cycle; False when the gate refused it.

        ``read`` runs beside ``body`` (default: the outbox's writer); the cycle ends when
        ``body`` returns or :meth:`stop` is called, then lingers (if ``linger``, or what it
        says when called then, and nothing was cut short), calls ``on_close``, closes the
        socket and awaits ``leave`` (shielded from cancellation). ``admitted``: the connection
        was admitted elsewhere (another process's gate): this gate does not count it.
        ``linger_refusal``: a refused connection lingers after its refusal (within
        REFUSAL_SECONDS), so that the peer reads it before the socket closes.
        """
        if not admitted:
            why = self.gate.enter()
            if why is not None:
                await self._refuse(why, linger_refusal)
                return False
        if body is None:
            assert self.outbox is not None, "a link without an outbox needs a body"
            body = self.outbox.run
        try:
            with self.scope or contextlib.nullcontext():
                async with trio.open_nursery() as tasks:
                    self._tasks = tasks.cancel_scope
                    tasks.start_soon(read)
                    await body()
                    tasks.cancel_scope.cancel()
                if linger if isinstance(linger, bool) else linger():
                    limits = self.limits
                    await self.transport.linger(
                        limits.linger_seconds, limits.linger_bytes, self.reader.budget
                    )
        finally:
            self.closed = True
            if not admitted:
                self.gate.leave()
            self.reader.release()
            if on_close is not None:
                on_close()
            with trio.CancelScope(shield=True):
                await self.transport.aclose()
                if leave is not None:
                    await leave()
        return True

    async def _refuse(self, why: str, linger: bool) -> None:
        self.closed = True
        self.reader.release()
        gate = self.gate
        data = self.refusal(why)
        if data and gate.refusing >= REFUSING:
            await trio.aclose_forcefully(self.transport.stream)
            return
        gate.refusing += 1
        try:
            with trio.move_on_after(REFUSAL_SECONDS):
                if data:
                    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                        await self.transport.send_all(data)
                if data and linger:
                    limits = self.limits
                    await self.transport.linger(
                        limits.linger_seconds, limits.linger_bytes, gate.budget
                    )
            await self.transport.aclose()
        finally:
            gate.refusing -= 1
