"""One dungeon client socket, on the one connection cycle (:class:`server.cycle.Link`).

The cycle admits the socket (or the gate refuses it, in the words of :func:`refusal`), runs the
reading loop here beside the outbox's writer, lingers and closes. The reading loop owns the
codec, the ``start`` handshake (:mod:`server.handshake`) and the budgets of the socket before its
match begins; then it sends its match plain values (:mod:`server.inbox`: ``Submitted(seat,
message)``, ``Refused``, last ``Closed``) through the inbox the match gave the socket's
:class:`server.seat.Seat`. The match answers with values, which the server's table of its seats
(:class:`server.seat.Seats`) puts in the seat's outbox, which the link's writer drains; it never
sees this object nor its seat.

With ``arena serve --processes N`` a socket's ``start`` is read here in the front process and
its match played in a worker process (:mod:`server.workers`): :meth:`Connection.detach` stops
the reader where nothing read is lost and gives up the socket, and :meth:`Connection.adopt`
takes it up again in the worker, as if that process had read the ``start`` itself
(:mod:`server.detach`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import structlog
import trio

from dungeon.config import RulesConfig
from dungeon.engine import AgentId
from protocol.codec import Codec
from protocol.encoding import encode
from protocol.errors import ErrorCode
from protocol.messages import ClientMessage, Error
from protocol.session import Event, Session
from server.cycle import Link
from server.detach import Detach, Detached, HandOff, detached_state
from server.inbox import Closed, Outgoing, render
from server.lobby import Filling, Lobby
from server.net import CLOSE, Gate, Limits
from server.reading import Reading
from server.seat import Seat

__all__ = ["CLOSE", "Connection", "refusal"]

log = structlog.get_logger()


def refusal(why: str) -> bytes:
    """How the dungeon server refuses a connection (past the cap or the input budget): one
    ``server_full`` error, then the socket closes."""
    log.info("connection_refused", reason=why)
    return encode(Error(code=ErrorCode.SERVER_FULL, message=f"{why}: closing"))


class Connection:
    """One accepted socket: its link (the cycle), its seat (its state in its match: what the
    match's answers change), its reading."""

    __slots__ = (
        "__weakref__",
        "_adopted",
        "_handoff",
        "_latency",
        "codec",
        "config",
        "limits",
        "link",
        "lobby",
        "number",
        "outbox",
        "reader",
        "reading",
        "seat",
        "session",
        "transport",
    )

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        *,
        config: RulesConfig,
        lobby: Lobby[Connection],
        limits: Limits,
        gate: Gate,
        latency: Callable[[float], None] | None = None,
    ) -> None:
        self.number = number
        self.config = config
        self.lobby = lobby
        self.limits = limits
        self.codec = Codec(ClientMessage, max_line=config.max_line)
        self.link: Link[Outgoing] = Link(
            stream,
            self.codec,
            limits,
            gate,
            refusal,
            self._render,
            on_full=lambda: self.seat.kill("outbox_full"),
            drain_seconds=limits.drain_seconds,
        )
        self.transport = self.link.transport
        self.reader = self.link.reader
        assert self.link.outbox is not None
        assert self.link.scope is not None
        self.outbox = self.link.outbox
        #: Its state in its match (its outbox, session counters, deadlines).
        self.seat = Seat(
            self.outbox,
            Session(error_limit=config.error_limit, held_limit=limits.held_requests),
            self.link.scope,
            log.bind(conn=number),
            limits.idle_seconds,
        )
        self.session = self.seat.session
        #: Optional probe: seconds from reading a request to its answer being ready to write.
        self._latency = latency
        #: The hand-off to another process (server.workers).
        self._handoff = HandOff()
        #: The start was read by another process (:meth:`adopt`): no handshake here.
        self._adopted = False
        self.reading = Reading(
            self,
            seat=self.seat,
            codec=self.codec,
            reader=self.reader,
            lobby=lobby,
            config=config,
            limits=limits,
            handoff=self._handoff,
        )
        self.reading.timed = latency is not None

    @property
    def slot(self) -> AgentId | None:
        return self.seat.slot

    @property
    def filling(self) -> Filling[Connection] | None:
        """The match the socket holds a slot in (filling, then running), once it has one."""
        return self.reading.filling

    @property
    def fault(self) -> str | None:
        """Why the server closed this socket for its client's fault; None otherwise."""
        return self.seat.fault

    @property
    def closed(self) -> bool:
        return self.seat.closed

    @property
    def playing(self) -> bool:
        """True once the match has begun (requests go to its actor)."""
        return self.session.began

    @property
    def log(self) -> structlog.typing.FilteringBoundLogger:
        return self.seat.log  # type: ignore[no-any-return]

    # -- lifetime ------------------------------------------------------------------------------

    async def run(self) -> bool:
        """Serve the socket until it closes; always leaves the lobby or tells the match. False
        when the gate refused it. An adopted socket (:meth:`adopt`) was admitted by the front
        process's gate."""
        return await self.link.serve(
            self._read_then_wait,
            on_close=self._closing,
            linger=self._lingers,
            leave=self._leave,
            admitted=self._adopted,
            linger_refusal=True,
        )

    async def _read_then_wait(self) -> None:
        """The reader; when the peer has gone (EOF) the socket closes at once."""
        self.log.debug("connection_opened")
        try:
            gone = await self.reading.run(self._adopted)
        except Detach:
            self._handoff.detached = self._detached(self._handoff)
            gone = True
        finally:
            self._handoff.reader_stopped.set()
        if gone:
            self.link.stop()

    def _lingers(self) -> bool:
        """Whether the socket lingers before it closes: not once handed off, nor when its
        client does not read its last lines."""
        if self._handoff.detached is not None:
            return False  # another process serves it now: only our descriptor closes
        if not self.outbox.drained:
            self.log.info("connection_killed", reason="not_reading", slot=self.seat.slot)
            return False  # it reads nothing: no point waiting for its leftovers
        return True

    def _closing(self) -> None:
        self.seat.closed = True
        self.session.handle(Event.CLOSED)
        self.outbox.close()  # drops its callbacks, which hold this connection
        self.reading.holder = None  # the same: no reference cycle outlives the socket

    async def _leave(self) -> None:
        seat = self.seat
        requests = seat.requests
        if requests is not None:
            with (
                trio.move_on_after(5),
                contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
            ):
                assert seat.slot is not None  # a socket joins its match's inbox with its start
                await requests.send(Closed(seat.slot))
            requests.close()
        elif self.filling is not None:
            self.lobby.release(self, self.filling)
        self.log.debug("connection_closed", slot=seat.slot, errors=self.session.errors)

    def kill(self, reason: str) -> None:
        """Close the socket at once (from any task); its tasks end at their next checkpoint."""
        self.seat.kill(reason)

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
        self.seat.slot, self.reading.filling = slot, filling
        self.session.handle(Event.START_ACCEPTED)
        self.session.errors = detached.errors
        self.session.refused = detached.errors >= self.session.error_limit
        self.session.held = detached.held
        self.session.early_lines = detached.early_lines
        if detached.leftover:
            self.codec.receive_data(detached.leftover)
        self._adopted = True
        self.seat.log = self.seat.log.bind(team=slot.team, agent=slot.agent)

    def _detached(self, handoff: HandOff) -> Detached | None:
        """The socket's state for another process, or None (ended here: it cannot go)."""
        state = detached_state(
            fd=self.transport.fileno,
            number=self.number,
            slot=self.seat.slot,
            leftover=self.codec.unfinished_line,
            session=self.session,
            settled=not self.seat.closed and not self.outbox.unwritten,
            abandoned=handoff.abandoned,
        )
        if isinstance(state, str):
            self.kill(state)
            return None
        self.log.debug("connection_handed_off")
        return state

    # -- writing -------------------------------------------------------------------------------

    def _render(self, items: list[Outgoing]) -> tuple[bytearray, bool]:
        """The bytes for ``items`` and whether the socket must close after them (game over);
        notes answer times."""
        data, stop, answered = render(self.codec, items)
        # Measured when the answer is ready to write: how long a slow reader then takes to
        # accept the bytes is the client's time, not the server's.
        reading = self.reading
        if answered and reading.request_read_at is not None and self._latency is not None:
            self._latency(time.perf_counter() - reading.request_read_at)
            reading.request_read_at = None
        return data, stop
