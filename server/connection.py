"""One client socket: a reader task (bytes -> codec -> messages), a writer task (outbox -> bytes).

The reader owns the codec, the ``start`` handshake and, until the match begins, the requests it
holds back; the writer alone writes to the socket and counts the errors sent on it. Everything
that reaches the writer goes through the bounded outbox: the match actor puts messages there
without waiting (``send_nowait``), and kills the connection when the outbox is full, so a client
that stops reading is dropped instead of slowing the eleven others.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import structlog
import trio

from dungeon.config import RulesConfig
from dungeon.engine import AgentId
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.messages import (
    ClientMessage,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
    Start,
)
from server.lobby import SlotTaken

if TYPE_CHECKING:
    from server.actor import MatchActor
    from server.lobby import Filling, Lobby

__all__ = ["Connection"]

log = structlog.get_logger()

RECEIVE_SIZE = 65536
#: Messages written in one ``send_all`` at most (one syscall for a burst of sightings).
WRITE_BATCH = 64
#: After its last line, how long (default) and how much a socket's leftover input is dropped.
LINGER_SECONDS = 2.0
LINGER_BYTES = 16 << 20


class _Close(enum.Enum):
    """Put in an outbox: the writer closes the socket once everything before it is sent."""

    CLOSE = "close"


CLOSE = _Close.CLOSE
#: A message, a line already encoded (the big `dungeon` lines, sightings), a message with its
#: line already encoded (the match's answers: the socket still inspects them), or CLOSE.
Outgoing = ServerMessage | bytes | tuple[ServerMessage, bytes] | _Close


class Connection:
    """One accepted socket and the state its two tasks own."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        *,
        config: RulesConfig,
        lobby: Lobby[Connection],
        outbox_size: int,
        linger: float = 2.0,
        latency: Callable[[float], None] | None = None,
    ) -> None:
        self.stream = stream
        self.number = number
        self.config = config
        self.lobby = lobby
        self.codec = Codec(ClientMessage, max_line=config.max_line)
        self.outbox, self._outbox_out = trio.open_memory_channel[Outgoing](outbox_size)
        self.slot: AgentId | None = None
        self.filling: Filling[Connection] | None = None
        #: Set by the match actor when the match begins; from then on requests go to it.
        self.actor: MatchActor | None = None
        #: Requests received before ``dungeon``; the actor answers them with errors after it.
        self.held = 0
        self.closed = False
        self.errors_sent = 0
        #: Why the server closed this socket for its client's fault (a line that is not JSON or
        #: too long, the error limit, not reading); None otherwise. A tournament reads it.
        self.fault: str | None = None
        self._scope = trio.CancelScope()
        self._tasks = trio.CancelScope()
        self._linger = False
        self._linger_seconds = linger
        #: Optional probe: seconds from reading a request to its answer being written.
        self._latency = latency
        self._request_read_at: float | None = None
        # A TCP socket is read and written through its descriptor (see _receive, _send_all);
        # any other stream (tests' memory streams) through the trio Stream interface.
        self._fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else None
        #: Items put in the outbox that the writer has not finished writing: while any is,
        #: ``deliver`` must queue behind them, not write. (The outbox's own count misses an item
        #: handed straight to a writer waiting on it, and reading it built a statistics object
        #: per delivery.)
        self._unwritten = 0
        #: Game over, CLOSE or the error limit was written: nothing more is.
        self._stopped = False
        self.log = log.bind(conn=number)

    # -- lifetime ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve the socket until it closes; always leaves the lobby or tells the actor."""
        try:
            with self._scope:
                async with trio.open_nursery() as tasks:
                    self._tasks = tasks.cancel_scope
                    tasks.start_soon(self._writer)
                    await self._reader()
                    tasks.cancel_scope.cancel()
                if self._linger:
                    await self._drain()
        finally:
            self.closed = True
            self.outbox.close()
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(self.stream)
                await self._leave()
            self.log.debug("connection_closed", slot=self.slot, errors_sent=self.errors_sent)

    def kill(self, reason: str) -> None:
        """Close the socket at once (from any task); its tasks end at their next checkpoint."""
        if not self.closed:
            self.log.info("connection_killed", reason=reason, slot=self.slot)
            if reason == "outbox_full":
                self.fault = self.fault or "it stopped reading its socket"
        self.closed = True
        self._scope.cancel()

    async def _leave(self) -> None:
        if self.actor is not None:
            await self.actor.socket_closed(self)
        elif self.filling is not None:
            self.lobby.release(self, self.filling)

    # -- writer --------------------------------------------------------------------------------

    def deliver(self, items: list[Outgoing]) -> bool:
        """Send ``items`` (what one input produced for this socket) without waiting.

        On a socket whose writer has nothing pending they are written here and now, in one
        write(2): the answer leaves in the actor's own step instead of a round later, and no
        writer task wakes up (a sixth of the server's Python work per request went to those
        rounds). Otherwise, and for what the kernel does not take at once, they queue for the
        writer, behind what it has. False when the socket is gone or was dropped for not
        reading (its outbox is full).
        """
        if self._stopped:
            return not self.closed  # past game over, the limit or CLOSE: nothing more is sent
        fd = self._fd
        if fd is not None and not self.closed and not self._unwritten:
            data, self._stopped = self._render(items)
            try:
                sent = os.write(fd, data) if data else 0
            except BlockingIOError:
                sent = 0
            except OSError:
                self._stopped = True
                data, sent = bytearray(), 0
            leftover: list[Outgoing] = [bytes(data[sent:])] if sent < len(data) else []
            if self._stopped:
                leftover.append(CLOSE)  # the writer sends the rest, then closes gracefully
            items = leftover
        for item in items:
            refused = self._enqueue(item)
            if refused == "outbox_full":
                self.kill(refused)
            if refused is not None:
                return False
        return True

    def _enqueue(self, item: Outgoing) -> str | None:
        """Put ``item`` in the outbox for the writer, counted as unwritten; None, or why it
        could not be: "outbox_full" (the client does not read) or "closed"."""
        try:
            self.outbox.send_nowait(item)
        except trio.WouldBlock:
            return "outbox_full"
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return "closed"
        self._unwritten += 1
        return None

    def _render(self, items: list[Outgoing]) -> tuple[bytearray, bool]:
        """The bytes for ``items`` and whether the socket must close after them (game over,
        CLOSE, the error limit: what follows is dropped). Counts errors; notes answer times."""
        data = bytearray()
        stop = False
        answered = False
        for item in items:
            if item is CLOSE:
                stop = True
                break
            if isinstance(item, bytes):
                data += item
                continue
            if isinstance(item, tuple):
                item, line = item
                data += line
            else:
                data += self.codec.send(item)
            if isinstance(item, Sat | Error) or (
                isinstance(item, Moved) and item.reason != "attacked"
            ):
                answered = True
            if isinstance(item, GameOver):
                stop = True
                break
            if isinstance(item, Error):
                self.errors_sent += 1
                if self.errors_sent >= self.config.error_limit:
                    self.log.info("error_limit_reached", slot=self.slot)
                    self.fault = self.fault or f"{self.errors_sent} errors (the limit)"
                    stop = True
                    break
        # Measured when the answer is ready to write: how long a slow reader then takes to
        # accept the bytes is the client's time, not the server's.
        if answered and self._request_read_at is not None and self._latency is not None:
            self._latency(time.perf_counter() - self._request_read_at)
            self._request_read_at = None
        return data, stop

    async def _writer(self) -> None:
        """Writes what ``deliver`` could not write at once; stops after game over, CLOSE, or the
        error limit."""
        receive = self._outbox_out
        async for first in receive:
            batch = [first]
            while len(batch) < WRITE_BATCH:
                try:
                    batch.append(receive.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            data, stop = self._render(batch)
            try:
                await self._send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                stop = True
            self._unwritten -= len(batch)
            if stop:
                break
        # Done: stop reading requests, then close gracefully (_drain) so the last lines arrive.
        self._stopped = True
        self._linger = True
        self._tasks.cancel()

    async def _send_all(self, data: bytes | bytearray) -> None:
        """Write ``data`` to the peer; BrokenResourceError if the socket broke.

        On a socket: write(2) at once, waiting only when the kernel's buffer is full. trio's
        send_all wraps each send in four coroutine layers and a second scheduling round
        (measured: a quarter of the server's Python work per request went to socket calls).
        The descriptor cannot be stale: the stream is closed only after this task has ended
        (and ``deliver`` writes only while ``closed`` is false, which is set before).
        """
        fd = self._fd
        if fd is None:
            await self.stream.send_all(data)
            return
        view = memoryview(data)
        while view:
            try:
                sent = os.write(fd, view)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(fd)
                continue
            except OSError as error:
                raise trio.BrokenResourceError(f"socket write failed: {error}") from error
            view = view[sent:]

    async def _receive(self) -> bytes | bytearray:
        """The next bytes from the peer; ``b""`` once it has closed or the socket broke.

        On a socket: wait until it is readable, then one read(2). trio's receive_some reads
        first, and for a client that waits for our answer that read fails (EAGAIN) nearly
        every time: a wasted system call per request, besides the coroutine layers.
        """
        fd = self._fd
        try:
            if fd is None:
                return await self.stream.receive_some(RECEIVE_SIZE)
            while True:
                await trio.lowlevel.wait_readable(fd)
                try:
                    return os.read(fd, RECEIVE_SIZE)
                except BlockingIOError:
                    continue  # woken without data after all: wait again
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return b""

    async def _drain(self) -> None:
        """Half-close, then discard what the peer still sends for a moment, then close.

        Closing a socket with unread input makes the kernel reset the connection, and a reset
        can destroy our last lines (game over, the error that explains the close) before the
        peer reads them. Reading the peer's leftovers first lets those lines arrive.
        """
        stream = self.stream
        if not isinstance(stream, trio.abc.HalfCloseableStream):
            return
        with trio.move_on_after(self._linger_seconds):
            try:
                await stream.send_eof()
                drained = 0
                while drained < LINGER_BYTES:
                    data = await stream.receive_some(RECEIVE_SIZE)
                    if not data:
                        break
                    drained += len(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    # -- reader --------------------------------------------------------------------------------

    async def _next(self) -> Message | RemoteProtocolError | None:
        """The next message or protocol error from the peer; None once the stream has ended."""
        while True:
            try:
                message = self.codec.next_message()
            except RemoteProtocolError as error:
                # Without its traceback, which holds this frame (and the error in it): a
                # reference cycle otherwise, and the server runs without the cycle collector.
                return error.with_traceback(None)
            if message is not NEED_DATA:
                return message
            if self.codec.eof:
                return None
            self.codec.receive_data(await self._receive())

    async def _say(self, text: str) -> None:
        # The server's own log keeps every error it answers outside the engine (the engine's
        # errors are in the match log): a teacher can see which client misbehaved and how.
        self.log.info("error_sent", message=text)
        self._queue(Error(message=text))
        await trio.lowlevel.checkpoint()

    async def _refuse_and_close(self, text: str) -> None:
        self.log.info("error_sent", message=text, closing=True)
        self.fault = self.fault or text
        self._queue(Error(message=text))
        self._queue(CLOSE)
        await trio.lowlevel.checkpoint()

    def _queue(self, item: Outgoing) -> None:
        """Queue an answer of the reader's own without waiting: a full outbox means the client
        sends but does not read, and it is dropped like any other client that stops reading."""
        refused = self._enqueue(item)
        if refused is not None:
            self.kill(refused)

    async def _reader(self) -> None:
        """Handshake within the start timeout, then play; returns when the peer has gone."""
        deadline = trio.current_time() + self.config.start_timeout
        outcome = _Handshake.LATE
        with trio.move_on_at(deadline):
            outcome = await self._handshake()
        if outcome is _Handshake.JOINED:
            await self._play()
            return
        if outcome is _Handshake.LATE:
            seconds = f"{self.config.start_timeout:g}"
            await self._refuse_and_close(f"no valid start within {seconds} s: closing")
        if outcome is not _Handshake.EOF:
            await trio.sleep_forever()  # the writer sends what is queued, then closes

    async def _handshake(self) -> _Handshake:
        """Read lines until a ``start`` takes a slot, the peer goes, or the socket must close."""
        first = True
        while True:
            item = await self._next()
            if item is None:
                return _Handshake.EOF
            if isinstance(item, RemoteProtocolError):
                is_start = item.message_type == "start"
                if item.fatal or (first and not is_start):
                    await self._refuse_and_close(f"{item.text}: closing (a start must come first)")
                    return _Handshake.CLOSE
                await self._say(item.text)
            elif isinstance(item, Start):
                slot = AgentId(item.team, item.agent)
                try:
                    self.filling = self.lobby.claim(self, slot, item.match, item.token)
                except SlotTaken as taken:
                    await self._say(f"start: {taken}")
                else:
                    self.slot = slot
                    self.log = self.log.bind(team=slot.team, agent=slot.agent)
                    self.log.info("slot_taken", match=self.filling.number, name=self.filling.name)
                    return _Handshake.JOINED
            elif first:
                await self._refuse_and_close(
                    f"{_type_name(item)} before start: the first line must be a start; closing"
                )
                return _Handshake.CLOSE
            else:
                await self._say(f"{_type_name(item)} before start: send a start first")
            first = False

    async def _play(self) -> None:
        """Forward requests to the match actor (held back as errors until ``dungeon``)."""
        while True:
            item = await self._next()
            if item is None:
                return
            if isinstance(item, RemoteProtocolError):
                if item.fatal:
                    await self._refuse_and_close(f"{item.text}: closing")
                    await trio.sleep_forever()
                await self._say(item.text)
            elif isinstance(item, Start):
                await self._say("start: this socket already plays a slot")
            elif self.actor is None:
                # Not in play yet: the actor answers each with an error right after `dungeon`.
                self.held = min(self.held + 1, self.config.error_limit)
            elif isinstance(item, Move | Solution):
                try:
                    if self._latency is not None:
                        self._request_read_at = time.perf_counter()
                    # Without a coroutine when the inbox has room (nearly always).
                    if not self.actor.offer(self, item):  # full: wait for room
                        await self.actor.submit(self, item)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return  # the match is over; its actor is gone


class _Handshake(enum.Enum):
    JOINED = "joined"
    CLOSE = "close"
    EOF = "eof"
    LATE = "late"


def _type_name(message: Message) -> str:
    return type(message).__name__.lower()
