"""A dungeon socket's reading loop, the game's part of its cycle (:mod:`server.connection`).

It takes messages out of the socket's codec (``await reader.fill()`` when it needs data), runs
the ``start`` handshake (:mod:`server.handshake`) within the start timeout, then plays: each
request goes to the match as the plain value ``Submitted(seat, message)`` (held back as an error
until ``dungeon``), each refused line as ``Refused`` (answered by the match in order with the
requests before it), all through the inbox the match gave the socket's :class:`Seat` (its own
clone, given when the match began: :class:`server.seat.Seats`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import trio

from dungeon.config import RulesConfig
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.errors import ErrorCode, code_of
from protocol.messages import Error, Message, Move, Solution, Start
from server.detach import HandOff
from server.handshake import Handshake, handshake
from server.inbox import Refused, Submitted
from server.lobby import Filling, Lobby
from server.net import FrameReader, Limits, OverBudget
from server.seat import Seat

__all__ = ["Reading"]

#: The error code for each budget of :class:`server.net.OverBudget` (the rest: server_full).
_BUDGET_CODES = {
    "held_requests": ErrorCode.TOO_MANY_EARLY,
    "partial_line": ErrorCode.LINE_TOO_LONG,
}


class Reading:
    """The reading side of one socket: its codec through its frame reader, its seat; ``holder``
    is what the lobby seats for it (the connection)."""

    __slots__ = (
        "_handoff",
        "codec",
        "config",
        "filling",
        "holder",
        "limits",
        "lobby",
        "reader",
        "request_read_at",
        "seat",
        "timed",
    )

    def __init__(
        self,
        holder: Any,
        *,
        seat: Seat,
        codec: Codec,
        reader: FrameReader,
        lobby: Lobby[Any],
        config: RulesConfig,
        limits: Limits,
        handoff: HandOff,
    ) -> None:
        self.holder = holder
        self.seat = seat
        self.codec = codec
        self.reader = reader
        self.lobby = lobby
        self.config = config
        self.limits = limits
        self._handoff = handoff
        #: The match the socket holds a slot in (filling, then running), once it has one.
        self.filling: Filling[Any] | None = None
        #: When the request being answered was read (the answer-time probe), or None.
        self.request_read_at: float | None = None
        #: Note read times for the answer-time probe.
        self.timed = False

    @property
    def refused(self) -> bool:
        return self.seat.session.refused

    # -- errors --------------------------------------------------------------------------------

    def say(self, code: str, text: str, *, closing: bool = False) -> None:
        """Send an error at once (not through the match), counted like every error;
        ``closing``: the socket closes after it."""
        # The server's own log keeps every error it answers outside the engine (the engine's
        # errors are in the match log): a teacher can see which client misbehaved and how.
        seat = self.seat
        seat.log.info("error_sent", code=code, message=text, closing=closing)
        if closing:
            seat.fault = seat.fault or text
        seat.deliver(seat.error(Error(code=code, message=text), closing=closing))

    async def _refuse(self, code: str, text: str, *, closing: bool = False) -> bool:
        """Answer a refused line. Once the match has begun the answer goes through it, after
        those of the requests read before the line (answered at once it overtook them);
        before, at once. False if the match is over (its inbox is gone)."""
        seat = self.seat
        if seat.requests is None:
            self.say(code, text, closing=closing)
            return True
        seat.log.info("error_sent", code=code, message=text, closing=closing)
        if closing:
            seat.fault = seat.fault or text
        assert seat.slot is not None  # the inbox is open only once a start took a seat
        return await self._send(Refused(seat.slot, code, text, closing))

    async def _send(self, item: Submitted | Refused) -> bool:
        """Put ``item`` in the match's inbox (waiting for room when it is full); False once
        the match is over."""
        requests = self.seat.requests
        assert requests is not None
        try:
            # Without a coroutine when the inbox has room (nearly always).
            try:
                requests.send_nowait(item)
            except trio.WouldBlock:
                await requests.send(item)  # full: wait for room
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
            if self.seat.requests is None:
                await self._handoff.fill(self.reader)
            else:
                await self.reader.fill()
            if codec.blank_lines != blank:
                self._count_early(codec.blank_lines - blank)

    def _count_early(self, lines: int) -> None:
        """Lines received after the start and before ``dungeon``: beyond the budget, the socket
        is told so and closed."""
        if not self.seat.session.early_line(lines):
            raise OverBudget(
                "held_requests",
                f"more than {self.limits.held_requests} lines before dungeon",
            )

    async def run(self, adopted: bool) -> bool:
        """Handshake within the start timeout (none when ``adopted``: another process read the
        start), then play. True when the peer has gone (EOF): the socket closes at once; False
        when the writer closes it after its last lines."""
        try:
            return await self._read(adopted)
        except OverBudget as over:
            code = _BUDGET_CODES.get(over.budget, ErrorCode.SERVER_FULL)
            self.say(code, f"{over.text}: closing", closing=True)
            return False

    async def _read(self, adopted: bool) -> bool:
        deadline = trio.current_time() + self.config.start_timeout
        outcome = Handshake.JOINED if adopted else Handshake.LATE
        if not adopted:
            with trio.move_on_at(deadline):
                outcome = await handshake(self)
        if outcome is Handshake.JOINED:
            idle = self.limits.idle_seconds
            scope = self.seat.idle
            if idle is not None:
                scope.deadline = trio.current_time() + idle
            with scope:
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
        seat = self.seat
        session = seat.session
        scope = seat.idle
        while True:
            item = await self.next_item()
            if item is None:
                return True
            if idle is not None and scope.deadline != math.inf:
                scope.deadline = trio.current_time() + idle
            if not session.began:
                self._count_early(1)
            if isinstance(item, RemoteProtocolError):
                text = f"{item.text}: closing" if item.fatal else item.text
                if not await self._refuse(code_of(item), text, closing=item.fatal):
                    return True  # the match is over; its inbox is gone
                if item.fatal:
                    return False
            elif isinstance(item, Start):
                text = "start: this socket already plays a slot"
                if not await self._refuse(ErrorCode.ALREADY_STARTED, text):
                    return True
            elif seat.requests is None:
                # Not in play yet: the match answers each with an error right after `dungeon`.
                session.request_held()
            elif isinstance(item, Move | Solution):
                if self.timed:
                    self.request_read_at = time.perf_counter()
                assert seat.slot is not None
                if not await self._send(Submitted(seat.slot, item)):
                    return True  # the match is over; its inbox is gone
            if session.refused:
                return False
