"""One socket's seat in a dungeon match: what the socket's tasks and the match's actor share.

The actor never sees the socket (:mod:`server.connection`): the socket sends it plain values
(:mod:`server.inbox`: ``Submitted(seat, message)``, ``Refused``, ``Closed``) through its own clone
of the match's inbox, and the actor answers with values put in the seat's bounded outbox, which
the socket's writer drains. A :class:`Seat` holds that outbox and the socket's session counters
(its phase, its errors, counted when made by whichever side makes them), the inbox once the
match has begun, and the two deadlines the match may change: the idle limit and the close.
It holds no socket, no reader and no code of the socket's: plain state and trio's primitives.

Errors are counted when they are made, not when they are written: the error that reaches the
limit is followed by CLOSE, and from then on nothing the socket sends reaches the match (the
reader stops, the actor drops what was already in its inbox).
"""

from __future__ import annotations

import math
from typing import Any

import trio

from dungeon.engine import AgentId
from protocol.messages import Error
from protocol.session import Event, Session
from server.inbox import Outgoing, is_game_over, last_error
from server.net import CLOSE, Close, Outbox

__all__ = ["Seat"]


class Seat:
    """The state one socket shares with its match; ``slot`` is set once a ``start`` took one."""

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

    # -- writing -------------------------------------------------------------------------------

    def deliver(self, items: list[Outgoing | Close]) -> bool:
        """Send ``items`` without waiting (see :class:`server.net.Outbox`); False if the socket
        is gone or slow. After a ``game_over`` the socket closes: CLOSE tells the outbox so even
        while its writer is still held up by earlier lines (its time to write them is then
        bounded)."""
        if any(is_game_over(item) for item in items):
            items = [*items, CLOSE]
        return self.outbox.deliver(items)
