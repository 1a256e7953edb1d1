"""One dungeon client socket on the shared network layer (:mod:`server.net`).

The reader task owns the codec, the ``start`` handshake and the budgets of the socket before its
match begins; the outbox's writer alone writes to the socket. When the match begins its actor
hands the socket a clone of the actor's inbox (:meth:`Connection.begin`); the socket's requests
go there, and the socket closes its clone when it closes.

Errors are counted when they are made, not when they are written: the error that reaches the
limit is followed by CLOSE, and from then on nothing this socket sends reaches the match (the
reader stops, the actor drops what was already in its inbox).

With ``arena serve --processes N`` a socket's ``start`` is read here in the front process and
its match played in a worker process (:mod:`server.workers`): :meth:`Connection.detach` stops
the reader where nothing read is lost and gives up the socket, and :meth:`Connection.adopt`
takes it up again in the worker, as if that process had read the ``start`` itself
(:mod:`server.detach`). What the socket and its actor pass each other is in :mod:`server.inbox`.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from typing import Any

import structlog
import trio

from dungeon.config import RulesConfig
from dungeon.engine import AgentId
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.errors import ErrorCode, code_of
from protocol.messages import (
    ClientMessage,
    Error,
    Message,
    Move,
    Solution,
    Start,
)
from protocol.session import Event, Session
from server.detach import Detach, Detached, HandOff, detached_state
from server.handshake import Handshake, handshake
from server.inbox import Closed, Outgoing, Refused, Submitted, is_game_over, last_error, render
from server.lobby import Filling, Lobby
from server.net import CLOSE, Close, FrameReader, InputBudget, Limits, Outbox, OverBudget, Transport

__all__ = ["CLOSE", "Connection"]

log = structlog.get_logger()


class Connection:
    """One accepted socket and the state its tasks own."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        *,
        config: RulesConfig,
        lobby: Lobby[Connection],
        limits: Limits,
        budget: InputBudget | None = None,
        latency: Callable[[float], None] | None = None,
    ) -> None:
        self.number = number
        self.config = config
        self.lobby = lobby
        self.limits = limits
        self.transport = Transport(stream, receive_bytes=limits.receive_bytes)
        self.codec = Codec(ClientMessage, max_line=config.max_line)
        self.reader = FrameReader(self.transport, self.codec, limits, budget)
        self.outbox: Outbox[Outgoing] = Outbox(
            self.transport,
            limits.outbox_messages,
            self._render,
            lambda: self.kill("outbox_full"),
            limits.drain_seconds,
        )
        self.slot: AgentId | None = None
        self.filling: Filling[Connection] | None = None
        #: The match's inbox, once it has begun (:meth:`begin`).
        self._requests: trio.MemorySendChannel[Any] | None = None
        #: The socket's phase, its errors and what it sent before ``dungeon`` (protocol rules).
        self.session = Session(error_limit=config.error_limit, held_limit=limits.held_requests)
        self.closed = False
        #: Why the server closed this socket for its client's fault (a line that is not JSON or
        #: too long, the error limit, not reading, ...); None otherwise. A tournament reads it.
        self.fault: str | None = None
        self._scope = trio.CancelScope()
        self._idle = trio.CancelScope()
        #: Optional probe: seconds from reading a request to its answer being ready to write.
        self._latency = latency
        self._request_read_at: float | None = None
        self.log = log.bind(conn=number)
        #: The hand-off to another process (server.workers).
        self._handoff = HandOff()
        #: The start was read by another process (:meth:`adopt`): no handshake here.
        self._adopted = False

    # -- lifetime ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Serve the socket until it closes; always leaves the lobby or tells the actor."""
        try:
            with self._scope:
                async with trio.open_nursery() as tasks:
                    tasks.start_soon(self._read_then_wait, tasks.cancel_scope)
                    await self.outbox.run()
                    tasks.cancel_scope.cancel()  # written the last line: stop reading
                if self._handoff.detached is not None:
                    return  # another process serves it now: only our descriptor closes
                if not self.outbox.drained:
                    self.log.info("connection_killed", reason="not_reading", slot=self.slot)
                    return  # it reads nothing: no point waiting for its leftovers
                limits = self.limits
                await self.transport.linger(
                    limits.linger_seconds, limits.linger_bytes, self.reader.budget
                )
        finally:
            self.closed = True
            self.session.handle(Event.CLOSED)
            self.outbox.close()
            self.reader.release()
            with trio.CancelScope(shield=True):
                await self.transport.aclose()
                await self._leave()
            self.log.debug("connection_closed", slot=self.slot, errors=self.session.errors)

    async def _read_then_wait(self, tasks: trio.CancelScope) -> None:
        """The reader; when the peer has gone (EOF) the socket closes at once."""
        try:
            gone = await self._reader()
        except Detach:
            self._handoff.detached = self._detached(self._handoff)
            gone = True
        finally:
            self._handoff.reader_stopped.set()
        if gone:
            tasks.cancel()

    # -- hand-off to another process (arena serve --processes) ---------------------------------

    async def detach(self) -> Detached | None:
        """Stop serving this socket here, once its match is full, so that another process can
        (:meth:`adopt`): the reader stops at its next wait for data (it first handles every
        whole line already read), and the socket closes here without a word to the peer.

        None if the socket cannot be handed off: it has closed or is closing, is not a TCP
        socket, or still has unwritten lines (its client does not read; it is closed).
        """
        return await self._handoff.wait()

    def adopt(self, detached: Detached, filling: Filling[Connection]) -> None:
        """Take up a socket another process read the ``start`` of (``detached``, with its own
        descriptor in this connection's stream): it holds its slot in ``filling``."""
        slot = detached.slot
        self.slot, self.filling = slot, filling
        self.session.handle(Event.START_ACCEPTED)
        self.session.errors = detached.errors
        self.session.refused = detached.errors >= self.session.error_limit
        self.session.held = detached.held
        self.session.early_lines = detached.early_lines
        if detached.leftover:
            self.codec.receive_data(detached.leftover)
        self._adopted = True
        self.log = self.log.bind(team=slot.team, agent=slot.agent)

    def kill(self, reason: str) -> None:
        """Close the socket at once (from any task); its tasks end at their next checkpoint."""
        if not self.closed:
            self.log.info("connection_killed", reason=reason, slot=self.slot)
            if reason == "outbox_full":
                self.fault = self.fault or "it stopped reading its socket"
        self.closed = True
        self._scope.cancel()

    @property
    def playing(self) -> bool:
        """True once the match has begun (requests go to its actor)."""
        return self.session.began

    @property
    def refused(self) -> bool:
        """The error limit was reached: nothing more this socket sends reaches the match."""
        return self.session.refused

    def begin(self, requests: trio.MemorySendChannel[Any]) -> None:
        """The match has begun: requests go to ``requests`` (the socket's own clone of the
        actor's inbox, closed when the socket closes).

        From now on the idle limit counts from here; one that the match's own time limit would
        reach first is lifted (a silent agent is the match's business then, spec section 4).
        """
        self._requests = requests
        self.session.handle(Event.DUNGEON)
        idle = self.limits.idle_seconds
        if idle is None or idle >= self.config.draw_seconds:
            self._idle.deadline = math.inf
        else:
            self._idle.deadline = trio.current_time() + idle

    def _detached(self, handoff: HandOff) -> Detached | None:
        """The socket's state for another process, or None (ended here: it cannot go)."""
        state = detached_state(
            fd=self.transport.fileno,
            number=self.number,
            slot=self.slot,
            leftover=self.codec.unfinished_line,
            session=self.session,
            settled=not self.closed and not self.outbox.unwritten,
            abandoned=handoff.abandoned,
        )
        if isinstance(state, str):
            self.kill(state)
            return None
        self.log.debug("connection_handed_off")
        return state

    async def _leave(self) -> None:
        requests = self._requests
        if requests is not None:
            with (
                trio.move_on_after(5),
                contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
            ):
                assert self.slot is not None  # a socket joins its match's inbox with its start
                await requests.send(Closed(self.slot))
            requests.close()
        elif self.filling is not None:
            self.lobby.release(self, self.filling)

    # -- errors --------------------------------------------------------------------------------

    def error(self, code: str, text: str) -> list[Outgoing | Close]:
        """An error for this socket, counted now: followed by CLOSE when it is the last allowed.
        Nothing after the limit (an empty list)."""
        if not self.count_error():
            return []
        error = Error(code=code, message=text)
        if self.session.refused:
            self.fault = self.fault or f"{text} (the error limit)"
            return [last_error(error), CLOSE]
        return [error]

    def count_error(self) -> bool:
        """Count an error the match made for this socket; False once past the limit (drop it)."""
        if not self.session.error_made():
            return False
        if self.session.refused:
            self.log.info("error_limit_reached", slot=self.slot)
            self.fault = self.fault or "the error limit"
        return True

    # -- writing -------------------------------------------------------------------------------

    def deliver(self, items: list[Outgoing | Close]) -> bool:
        """Send ``items`` without waiting (see :class:`server.net.Outbox`). After a
        ``game_over`` the socket closes: CLOSE tells the outbox so even while its writer is
        still held up by earlier lines (its time to write them is then bounded)."""
        if any(is_game_over(item) for item in items):
            items = [*items, CLOSE]
        return self.outbox.deliver(items)

    def _render(self, items: list[Outgoing]) -> tuple[bytearray, bool]:
        """The bytes for ``items`` and whether the socket must close after them (game over);
        notes answer times."""
        data, stop, answered = render(self.codec, items)
        # Measured when the answer is ready to write: how long a slow reader then takes to
        # accept the bytes is the client's time, not the server's.
        if answered and self._request_read_at is not None and self._latency is not None:
            self._latency(time.perf_counter() - self._request_read_at)
            self._request_read_at = None
        return data, stop

    def say(self, code: str, text: str, *, closing: bool = False) -> None:
        """Send an error at once (not through the match's actor), counted like every error;
        ``closing``: the socket closes after it."""
        # The server's own log keeps every error it answers outside the engine (the engine's
        # errors are in the match log): a teacher can see which client misbehaved and how.
        self.log.info("error_sent", code=code, message=text, closing=closing)
        items = self.error(code, text)
        if closing:
            self.fault = self.fault or text
        if closing and items and items[-1] is not CLOSE:
            items.append(CLOSE)
        self.deliver(items)

    async def _refuse(self, code: str, text: str, *, closing: bool = False) -> bool:
        """Answer a refused line. Once the match has begun the answer goes through its actor,
        after those of the requests read before the line (answered at once it overtook them);
        before, at once. False if the actor is gone (the match is over)."""
        if self._requests is None:
            self.say(code, text, closing=closing)
            return True
        self.log.info("error_sent", code=code, message=text, closing=closing)
        if closing:
            self.fault = self.fault or text
        assert self.slot is not None  # the inbox is open only once a start took a seat
        refused = Refused(self.slot, code, text, closing)
        try:
            try:
                self._requests.send_nowait(refused)
            except trio.WouldBlock:
                await self._requests.send(refused)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    # -- reading -------------------------------------------------------------------------------

    async def next_item(self) -> Message | RemoteProtocolError | None:
        """The next message or protocol error from the peer; None once the stream has ended.
        Raises OverBudget."""
        codec = self.codec
        while True:
            try:
                message = codec.next_message()
            except RemoteProtocolError as error:
                await self.reader.frame_done()
                # Without its traceback, which holds this frame (and the error in it): a
                # reference cycle otherwise, and the server runs without the cycle collector.
                return error.with_traceback(None)
            if message is not NEED_DATA:
                await self.reader.frame_done()
                return message
            if codec.eof:
                return None
            blank = codec.blank_lines
            if self._requests is None:
                await self._handoff.fill(self.reader)
            else:
                await self.reader.fill()
            if codec.blank_lines != blank:
                self._count_early(codec.blank_lines - blank)

    def _count_early(self, lines: int) -> None:
        """Lines received after the start and before ``dungeon``: beyond the budget, the socket
        is told so and closed."""
        if not self.session.early_line(lines):
            raise OverBudget(
                "held_requests",
                f"more than {self.limits.held_requests} lines before dungeon",
            )

    async def _reader(self) -> bool:
        """Handshake within the start timeout, then play. True when the peer has gone (EOF):
        the socket closes at once; False when the writer closes it after its last lines."""
        try:
            return await self._read()
        except OverBudget as over:
            code = _BUDGET_CODES.get(over.budget, ErrorCode.SERVER_FULL)
            self.say(code, f"{over.text}: closing", closing=True)
            return False

    async def _read(self) -> bool:
        deadline = trio.current_time() + self.config.start_timeout
        outcome = Handshake.JOINED if self._adopted else Handshake.LATE
        if not self._adopted:
            with trio.move_on_at(deadline):
                outcome = await handshake(self)
        if outcome is Handshake.JOINED:
            idle = self.limits.idle_seconds
            if idle is not None:
                self._idle.deadline = trio.current_time() + idle
            with self._idle:
                return await self._play()
            self.say(ErrorCode.IDLE_TIMEOUT, f"nothing received for {idle:g} s", closing=True)
            return False
        if outcome is Handshake.LATE:
            seconds = f"{self.config.start_timeout:g}"
            self.say(ErrorCode.START_TIMEOUT, f"no valid start within {seconds} s: closing",
                      closing=True)  # fmt: skip
        return outcome is Handshake.EOF

    async def _play(self) -> bool:
        """Forward requests to the match (held back as errors until ``dungeon``)."""
        idle = self.limits.idle_seconds
        while True:
            item = await self.next_item()
            if item is None:
                return True
            if idle is not None and self._idle.deadline != math.inf:
                self._idle.deadline = trio.current_time() + idle
            if not self.session.began:
                self._count_early(1)
            if isinstance(item, RemoteProtocolError):
                text = f"{item.text}: closing" if item.fatal else item.text
                if not await self._refuse(code_of(item), text, closing=item.fatal):
                    return True  # the match is over; its actor is gone
                if item.fatal:
                    return False
            elif isinstance(item, Start):
                text = "start: this socket already plays a slot"
                if not await self._refuse(ErrorCode.ALREADY_STARTED, text):
                    return True
            elif self._requests is None:
                # Not in play yet: the actor answers each with an error right after `dungeon`.
                self.session.request_held()
            elif isinstance(item, Move | Solution):
                if self._latency is not None:
                    self._request_read_at = time.perf_counter()
                assert self.slot is not None
                request = Submitted(self.slot, item)
                try:
                    # Without a coroutine when the inbox has room (nearly always).
                    try:
                        self._requests.send_nowait(request)
                    except trio.WouldBlock:
                        await self._requests.send(request)  # full: wait for room
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return True  # the match is over; its actor is gone
            if self.refused:
                return False


#: The error code for each budget of :class:`server.net.OverBudget` (the rest: server_full).
_BUDGET_CODES = {
    "held_requests": ErrorCode.TOO_MANY_EARLY,
    "partial_line": ErrorCode.LINE_TOO_LONG,
}
