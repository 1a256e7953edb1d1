"""One connection's bytes: reading, writing and closing a trio ``Stream``, fast on a TCP socket.

On a :class:`trio.SocketStream`, :class:`Transport` reads and writes through the socket's
descriptor: it waits until the socket is readable and then reads once (trio's ``receive_some``
reads first, which for a client waiting for our answer fails nearly every time), and writes at
once, waiting only when the kernel's buffer is full (trio's ``send_all`` wraps each send in four
coroutine layers and a second scheduling round). Any other stream (the tests' memory streams)
goes through the ``Stream`` interface. The descriptor is never stale: :meth:`aclose` is the only
way the stream closes, and it marks the transport closed first.
"""

from __future__ import annotations

import os

import trio

from server.net.limits import InputBudget

__all__ = ["Transport"]


class Transport:
    """A trio ``Stream`` read in chunks and written whole, with a non-waiting write."""

    def __init__(self, stream: trio.abc.Stream, *, receive_bytes: int = 1 << 16) -> None:
        self.stream = stream
        self.receive_bytes = receive_bytes
        self.closed = False
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else None

    @property
    def fileno(self) -> int | None:
        """The socket's descriptor (None for other streams, or once closed)."""
        return None if self.closed else self._fd

    @property
    def writes_now(self) -> bool:
        """True when :meth:`write_now` can write (a socket): otherwise only the writer writes."""
        return self._fd is not None and not self.closed

    async def receive_some(self) -> bytes | bytearray:
        """The next bytes from the peer (at most ``receive_bytes``); ``b""`` once it has closed
        or the connection broke. Always yields to other tasks first."""
        fd = self._fd
        try:
            if fd is None:
                return await self.stream.receive_some(self.receive_bytes)
            while True:
                await trio.lowlevel.wait_readable(fd)
                try:
                    return os.read(fd, self.receive_bytes)
                except BlockingIOError:
                    continue  # woken without data after all: wait again
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return b""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        """Write all of ``data``; BrokenResourceError if the connection broke."""
        fd = self._fd
        if fd is None:
            try:
                await self.stream.send_all(data)
            except trio.ClosedResourceError as error:
                raise trio.BrokenResourceError("the stream is closed") from error
            return
        view = memoryview(data)
        while view:
            if self.closed:
                raise trio.BrokenResourceError("the transport is closed")
            try:
                sent = os.write(fd, view)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(fd)
                continue
            except OSError as error:
                raise trio.BrokenResourceError(f"socket write failed: {error}") from error
            view = view[sent:]

    def write_now(self, data: bytes | bytearray) -> int | None:
        """Write what the kernel takes of ``data`` now, without waiting: the bytes written, or
        None if the connection broke. Only when :attr:`writes_now`."""
        assert self._fd is not None, "write_now needs a socket"
        if not data:
            return 0
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0
        except OSError:
            return None

    async def linger(
        self, seconds: float, max_bytes: int, budget: InputBudget | None = None
    ) -> int:
        """Half-close, then discard what the peer still sends for a moment; the bytes discarded.

        Closing a socket with unread input makes the kernel reset the connection, and a reset
        can destroy our last lines before the peer reads them. Reading the peer's leftovers
        first lets those lines arrive. With ``budget``, leftovers longer than one read are read
        in turns of its shared long-line schedule (:meth:`InputBudget.long_line_turn`), like the
        long line they usually are the rest of: sockets closed in a flood are not read faster
        than the sockets holding its lines.
        """
        stream = self.stream
        if not isinstance(stream, trio.abc.HalfCloseableStream) or self.closed:
            return 0
        size = self.receive_bytes if budget is None else min(self.receive_bytes, budget.chunk)
        drained = 0
        with trio.move_on_after(seconds):
            try:
                await stream.send_eof()
                while drained < max_bytes:
                    if budget is not None and drained >= size:
                        wait = budget.long_line_turn(trio.current_time())
                        if wait > 0:
                            await trio.sleep(wait)
                    data = await stream.receive_some(size)
                    if not data:
                        break
                    drained += len(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
        return drained

    async def aclose(self) -> None:
        """Close the stream now (never raises, never waits long)."""
        self.closed = True
        await trio.aclose_forcefully(self.stream)
