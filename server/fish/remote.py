"""One remote player's connection, as the Fish server sees it: its socket tasks, a thin trio
shell over the codec.

The connection's cycle is the shared one (:class:`server.cycle.Link`: admitted or refused,
read within the connection's and the server's memory budgets into a
:class:`~protocol.fish.StreamCodec`, closed). It has two tasks. The session
(:meth:`Remote.first_value`, then :meth:`Remote.answer_calls`) asks for the name and, once the
server signed the player up, takes the :class:`~server.fish.switchboard.Call` values of the
player's calls mailbox one at a time: it writes each call and keeps its time limit. The reader
(:meth:`Remote.read_loop`) answers the call that waits with each whole value, a plain
:class:`~server.fish.switchboard.Answered` (or ``Failed`` with the
:class:`~server.cycle.Ending` of the stream) sent to the inbox the call names. A value while
no call waits is data nobody asked for, and fails the player; the reader then stops reading
(a client flooding us waits on its own socket, never on our memory).

Once a call went wrong the link's ending is recorded (who broke it, why) and every later call
fails at once without touching the socket; the end of the calls mailbox (the player released)
ends the connection's cycle. Nothing of this object leaves its connection's tasks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Literal

import trio

from protocol.fish import NEED_DATA, RemoteProtocolError, StreamCodec, encode
from server.cycle import Ending, Fault, Link, attribute
from server.fish.switchboard import Answer, Answered, Call, Failed, Mailbox, Order
from server.net import Gate, Limits, OverBudget

__all__ = ["NAME", "Remote", "valid_name"]

_STRICT = re.compile(r"[A-Za-z]{1,12}")
_LENIENT = re.compile(r"[\x20-\x7e]{1,12}")


def valid_name(name: object, mode: Literal["strict", "lenient"]) -> bool:
    """strict: 1-12 ASCII letters (the spec); lenient: 1-12 printable ASCII characters."""
    pattern = _STRICT if mode == "strict" else _LENIENT
    return isinstance(name, str) and pattern.fullmatch(name) is not None


#: The key the name is waited for with (the session keeps it: no inbox).
NAME = -1


class Remote:
    """A connected client (its :class:`server.cycle.Link`); ``number`` is its place in the
    order of connections (the player's id), ``refusal`` how the server words and records a
    refusal, ``post`` puts an answer into an inbox (by key)."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        number: int,
        limits: Limits,
        gate: Gate,
        refusal: Callable[[str], bytes | None],
        post: Callable[[int, Answer], None],
    ) -> None:
        self.number = number
        self.codec = StreamCodec(limits.partial_line_bytes)
        self.link: Link[bytes] = Link(stream, self.codec, limits, gate, refusal)
        self.transport = self.link.transport
        self.reader = self.link.reader
        self._post = post
        #: The inbox of the call waiting for its answer (NAME: the name), None when none waits;
        #: when that call began and the seconds it may take.
        self._waiting: int | None = None
        self._start = 0.0
        self._seconds = 0.0
        #: Around the session's wait for its next call: its deadline is the waiting call's.
        self._timer = trio.CancelScope()
        self._name: Answer | None = None
        self._named = trio.Event()

    def __repr__(self) -> str:
        return f"Remote({self.number})"

    @property
    def broken(self) -> str:
        """Why the player is out ("" while it is not)."""
        ending = self.link.ending
        return "" if ending is None else ending.reason

    async def read_loop(self) -> None:
        """Read until the end of the stream, a wire error or data nobody asked for; run in the
        connection's nursery."""
        reader, codec = self.reader, self.codec
        try:
            while True:
                await reader.fill()
                while (value := codec.next_value()) is not NEED_DATA:
                    waiting = self._waiting
                    if waiting is None:
                        self.link.end(Ending(Fault.REMOTE, "sent data nobody asked for"))
                        return
                    now = trio.current_time()
                    self._answered(waiting, Answered(self.number, value, now - self._start))
                    await reader.frame_done()
                if reader.eof:
                    self._ended(Ending(Fault.DISCONNECT, "disconnected"))
                    return
        except (RemoteProtocolError, OverBudget) as error:
            self._ended(attribute(error))

    async def first_value(self, timeout: float) -> Answer:
        """The first value the client sends (its name), within ``timeout`` seconds."""
        self._waiting, self._start = NAME, trio.current_time()
        with trio.move_on_after(timeout):
            await self._named.wait()
        if self._name is None:
            self._waiting = None
            return self._break(Ending(Fault.TIMEOUT, f"nothing within {timeout:g} s"))
        return self._name

    async def answer_calls(self, calls: Mailbox[Order]) -> None:
        """Make each call of ``calls`` (its answer goes to the inbox it names), until the
        mailbox closes (the player released); an :class:`Ending` in it puts the player out."""
        try:
            while True:
                timer = self._timer
                order: Order | None = None
                with timer:
                    order = await calls.get()
                self._timer = trio.CancelScope()  # a scope is entered once
                if timer.cancelled_caught:
                    self._expired()
                elif order is None:
                    return
                elif isinstance(order, Ending):
                    self.link.end(order)
                else:
                    await self._send(order)
                del order  # not kept while waiting: a call's message is a whole game state
        finally:  # a call still waiting is answered: its inbox's owner waits for it
            if self._waiting is not None:
                self._ended(Ending(Fault.DISCONNECT, "connection closed"))

    async def _send(self, call: Call) -> None:
        """Write ``call``'s message; its answer comes from the reader, or :meth:`_expired`."""
        if self.broken:
            self._post(call.inbox, Failed(self.number, self.broken, 0.0))
            return
        start = trio.current_time()
        self._waiting, self._start, self._seconds = call.inbox, start, call.seconds
        data = encode(call.message)  # LocalProtocolError: our own bug, let it surface
        deadline = start + call.seconds
        with trio.move_on_at(deadline) as writing:
            try:
                await self.transport.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
                self._ended(attribute(error))
                return
        if writing.cancelled_caught:
            self._expired()
        elif self._waiting is not None:  # not answered yet: wait for it until the deadline
            self._timer.deadline = deadline

    def _expired(self) -> None:
        if self._waiting is not None:  # else answered at that very moment
            reason = f"no reply within {self._seconds:g} s"
            self._answered(self._waiting, self._break(Ending(Fault.TIMEOUT, reason)))

    def _ended(self, ending: Ending) -> None:
        """The stream ended (``ending``): the call waiting fails, or the next one will."""
        waiting = self._waiting
        if waiting is None:
            self.link.end(ending)
        else:
            self._answered(waiting, self._break(ending))

    def _answered(self, waiting: int, answer: Answer) -> None:
        self._waiting = None
        self._timer.deadline = math.inf
        if waiting == NAME:
            self._name = answer
            self._named.set()
        else:
            self._post(waiting, answer)

    def _break(self, ending: Ending) -> Failed:
        self.link.end(ending)
        return Failed(self.number, ending.reason, trio.current_time() - self._start)
