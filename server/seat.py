"""One socket's seat in a dungeon match, on the socket's side: its state, and the table that
applies the match's answers to it.

The match's actor never sees a socket nor its seat: the socket sends it plain values
(:mod:`server.inbox`: ``Submitted(seat, message)``, ``Refused``, ``Closed``, the seat named by
its ``AgentId``) through its own clone of the match's inbox, and the actor answers with values
(``Begun``, ``Replies``, ``Kill``) that :class:`Seats`, the server's table of the match's
seats, applies here, in the actor's step: each seat's items go to its bounded outbox, which the
socket's writer drains, its errors are counted, and what the actor must know comes back as
values (``Heard``: the seats gone, the seats past their error limit). A :class:`Seat` holds
that outbox and the socket's session counters (its phase, its errors), the inbox once the match
has begun, and the two deadlines the match may change: the idle limit and the close.

Errors are counted when the socket gets them, which for the match's is right after the input
that made them (the actor answers a failing seat before it applies anything more the seat
sent): the error that reaches the limit is followed by CLOSE, and from then on nothing the
socket sends reaches the match (the reader stops, the actor drops what was already in its
inbox).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import trio

from dungeon.engine import AgentId
from protocol.errors import ErrorCode
from protocol.messages import Error
from protocol.session import Event, Session
from server.inbox import (
    NOTHING,
    Answer,
    Begun,
    Failure,
    Heard,
    Outgoing,
    Replies,
    is_game_over,
    last_error,
)
from server.net import CLOSE, Close, Outbox

__all__ = ["Seat", "Seats"]


class Seat:
    """One socket's state in its match, the socket's own (the match never sees it); ``slot`` is
    set once a ``start`` took one."""

    __slots__ = (
        "closed",
        "fault",
        "idle",
        "idle_limit",
        "log",
        "outbox",
        "requests",
        "scope",
        "session",
        "slot",
    )

    def __init__(
        self,
        outbox: Outbox[Outgoing],
        session: Session,
        scope: trio.CancelScope,
        log: Any,
        idle_limit: float | None,
    ) -> None:
        self.slot: AgentId | None = None
        #: Where the match's answers go; the socket's writer drains it.
        self.outbox = outbox
        #: The socket's phase, its errors and what it sent before ``dungeon`` (protocol rules).
        self.session = session
        #: The match's inbox (the socket's own clone), once the match has begun.
        self.requests: trio.MemorySendChannel[Any] | None = None
        #: Around the socket's whole cycle: cancelled, the socket closes at once (:meth:`kill`).
        self.scope = scope
        #: Around the socket's reading once it holds a slot: the idle limit (``idle_limit``
        #: seconds without a line, None: no limit).
        self.idle = trio.CancelScope()
        self.idle_limit = idle_limit
        #: The socket's cycle is over (closed or closing).
        self.closed = False
        #: Why the server closed this socket for its client's fault (a line that is not JSON or
        #: too long, the error limit, not reading, ...); None otherwise. A tournament reads it.
        self.fault: str | None = None
        self.log = log

    @property
    def refused(self) -> bool:
        """The error limit was reached: nothing more this socket sends reaches the match."""
        return self.session.refused

    def begin(self, requests: trio.MemorySendChannel[Any], draw: float) -> None:
        """The match has begun: requests go to ``requests`` (the socket's own clone of the
        actor's inbox, closed when the socket closes).

        From now on the idle limit counts from here; one that the match's own time limit
        (``draw`` seconds) would reach first is lifted (a silent agent is the match's business
        then, spec section 4).
        """
        self.requests = requests
        self.session.handle(Event.DUNGEON)
        idle = self.idle_limit
        if idle is None or idle >= draw:
            self.idle.deadline = math.inf
        else:
            self.idle.deadline = trio.current_time() + idle

    def kill(self, reason: str) -> None:
        """Close the socket at once (from any task); its tasks end at their next checkpoint."""
        if not self.closed:
            self.log.info("connection_killed", reason=reason, slot=self.slot)
            if reason == "outbox_full":
                self.fault = self.fault or "it stopped reading its socket"
        self.closed = True
        self.scope.cancel()

    # -- errors --------------------------------------------------------------------------------

    def count_error(self) -> bool:
        """Count an error made for this socket; False once past the limit (drop it)."""
        if not self.session.error_made():
            return False
        if self.session.refused:
            self.log.info("error_limit_reached", slot=self.slot)
            self.fault = self.fault or "the error limit"
        return True

    def error(
        self, error: Error, *, line: bytes | None = None, closing: bool = False
    ) -> list[Outgoing | Close]:
        """The one way an error is made for this socket, counted now: the items to deliver
        (``line``: the error already encoded), followed by CLOSE when it is the last allowed or
        ``closing`` (the socket's fault then). Nothing after the limit (an empty list)."""
        if not self.count_error():
            return []
        if self.session.refused:
            self.fault = self.fault or f"{error.message} (the error limit)"
            return [last_error(error), CLOSE]
        item: Outgoing = error if line is None else (error, line)
        if closing:
            self.fault = self.fault or error.message
            return [item, CLOSE]
        return [item]

    def _failures(self, items: list[Outgoing | Failure]) -> list[Outgoing | Close]:
        """``items`` with each :class:`Failure` made an error here (counted now, in order)."""
        out: list[Outgoing | Close] = []
        for item in items:
            if type(item) is Failure:
                out += self.error(item.error, line=item.line, closing=item.closing)
            else:
                out.append(item)  # type: ignore[arg-type]  # not a Failure
        return out

    # -- writing -------------------------------------------------------------------------------

    def deliver(self, items: list[Outgoing | Close]) -> bool:
        """Send ``items`` without waiting (see :class:`server.net.Outbox`); False if the socket
        is gone or slow. After a ``game_over`` the socket closes: CLOSE tells the outbox so even
        while its writer is still held up by earlier lines (its time to write them is then
        bounded)."""
        if any(is_game_over(item) for item in items):
            items = [*items, CLOSE]
        return self.outbox.deliver(items)


class Seats:
    """One match's seats (the server's, never the match's): :meth:`__call__` applies an answer
    of the match's actor (:data:`server.inbox.Answers`) at once and says back what the actor
    must know."""

    __slots__ = ("_seats",)

    def __init__(self, seats: Mapping[AgentId, Seat]) -> None:
        self._seats = dict(seats)

    def __call__(self, answer: Answer) -> Heard:
        if isinstance(answer, Replies):
            return self._reply(answer)
        if isinstance(answer, Begun):
            return self._begin(answer)
        for slot in answer.seats:
            self._seats[slot].kill(answer.reason)
        return NOTHING

    def _reply(self, replies: Replies) -> Heard:
        """Each seat gets what the step produced for it in one delivery (one write)."""
        seats = self._seats
        failing = replies.failing
        gone: list[AgentId] | None = None
        refused: list[AgentId] | None = None
        for slot, items in replies.items.items():
            seat = seats[slot]
            sent = seat._failures(items) if failing and slot in failing else items
            if not seat.deliver(sent):  # type: ignore[arg-type]  # no Failure left
                gone = gone or []
                gone.append(slot)
            if seat.session.refused:
                refused = refused or []
                refused.append(slot)
        if gone is None and refused is None:
            return NOTHING
        return Heard(gone or (), refused or ())

    def _begin(self, begun: Begun) -> Heard:
        """Every open socket gets its clone of the inbox, then its ``dungeon`` line, then an
        error for each request it held; a socket closed while the match was being prepared is
        gone."""
        seats = self._seats
        gone: list[AgentId] = []
        for slot, seat in seats.items():
            if seat.closed:
                gone.append(slot)
            else:
                seat.begin(begun.inbox.clone(), begun.draw)
        for slot, line in begun.lines:
            receiver = seats.get(slot)
            # A socket that closed while the match was being prepared has a closed outbox.
            if receiver is not None and not receiver.deliver([line]):
                gone.append(slot)
        text = "request before dungeon: the match had not begun"
        for seat in seats.values():
            for _ in range(seat.session.held):
                seat.log.info("error_sent", code=ErrorCode.NOT_BEGUN, message=text)
                seat.deliver(seat.error(Error(code=ErrorCode.NOT_BEGUN, message=text)))
        return Heard(gone, [slot for slot, seat in seats.items() if seat.refused])

    def faults(self) -> dict[AgentId, str]:
        """Each seat's protocol fault (:attr:`Seat.fault`), the seats without one left out."""
        return {slot: seat.fault for slot, seat in self._seats.items() if seat.fault is not None}
