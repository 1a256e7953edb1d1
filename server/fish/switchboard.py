"""What the Fish server's tasks tell each other, as plain values, and the table that routes them.

A player is a plain id (its connection's number). Its socket tasks (:mod:`server.fish.remote`)
send the tournament a :class:`SignedUp` once it has a valid name; from then on they take the
:class:`Call` values of the player's calls mailbox one at a time, make each call on the wire
within its seconds, and answer with an :class:`Answered` or a :class:`Failed` into the inbox
the call names. The tournament and each game own an inbox (:meth:`Switchboard.open_inbox`),
send calls (:meth:`Switchboard.call`, never waits) and wait on their inbox for the answers.
Releasing a player (:meth:`Switchboard.release`) closes its calls mailbox: its connection's
cycle ends.

No object with methods travels through a channel: the mailboxes and inboxes carry these
values only, and the :class:`Switchboard` (the server's, never sent anywhere) maps ids to them.
"""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import trio

from server.cycle import Ending

__all__ = ["Answered", "Call", "Failed", "Mailbox", "SignedUp", "Switchboard"]

Item = TypeVar("Item")


@dataclass(frozen=True, slots=True)
class SignedUp:
    """``player`` signed up with a valid ``name``."""

    player: int
    name: str


# Not frozen, the three per-call values: a frozen dataclass costs about three times as much
# to build, and one of each is built per call.
@dataclass(slots=True)
class Call:
    """Send ``message`` to ``player`` and answer into ``inbox`` within ``seconds``."""

    player: int
    message: list[Any]
    seconds: float
    inbox: int


@dataclass(slots=True)
class Answered:
    """``player`` replied ``value``, ``seconds`` after the call began."""

    player: int
    value: Any
    seconds: float


@dataclass(slots=True)
class Failed:
    """The call to ``player`` failed (it is out: ``reason``), ``seconds`` after it began."""

    player: int
    reason: str
    seconds: float


Answer = Answered | Failed
#: What a player's calls mailbox carries: a call, or the ending the game put the player out with.
Order = Call | Ending


class Mailbox(Generic[Item]):
    """A bounded outbox of one item, from the server's tasks to one socket task: :meth:`put`
    never waits (the slot is free: one call at a time), :meth:`get` waits for the item, None
    once closed (:meth:`close`) and empty."""

    __slots__ = ("_closed", "_item", "_lot")

    def __init__(self) -> None:
        self._item: Item | None = None
        self._lot = trio.lowlevel.ParkingLot()
        self._closed = False

    def put(self, item: Item) -> None:
        if self._closed or self._item is not None:
            raise trio.WouldBlock
        self._item = item
        self._lot.unpark()

    def close(self) -> None:
        self._closed = True
        self._lot.unpark()

    async def get(self) -> Item | None:
        if self._item is None and not self._closed:
            while self._item is None and not self._closed:
                await self._lot.park()
        else:
            await trio.lowlevel.checkpoint()
        item, self._item = self._item, None
        return item


class Switchboard:
    """The players' calls mailboxes and the inboxes, by plain id."""

    def __init__(self) -> None:
        self._calls: dict[int, Mailbox[Order]] = {}
        self._inboxes: dict[int, trio.MemorySendChannel[Answer]] = {}
        self._keys = itertools.count()

    def join(self, player: int) -> Mailbox[Order]:
        """Open ``player``'s calls mailbox (one call at a time); its socket task reads it."""
        calls = self._calls[player] = Mailbox[Order]()
        return calls

    def call(self, call: Call) -> None:
        """Hand ``call`` to its player's socket task; a player already released answers
        at once that it has left."""
        calls = self._calls.get(call.player)
        if calls is None:
            self.post(call.inbox, Failed(call.player, "the player has left", 0.0))
            return
        calls.put(call)

    def release(self, player: int, ending: Ending | None = None) -> None:
        """Nobody will call ``player`` again (put out with ``ending``, if given): its connection
        may close. Releasing twice does nothing."""
        calls = self._calls.pop(player, None)
        if calls is None:
            return
        if ending is not None:
            with contextlib.suppress(trio.WouldBlock):  # free: its last call was answered
                calls.put(ending)
        calls.close()

    def open_inbox(self, size: int) -> tuple[int, trio.MemoryReceiveChannel[Answer]]:
        """A new inbox for up to ``size`` answers at a time: its key (what calls name) and
        the channel to wait on; :meth:`close_inbox` once done."""
        key = next(self._keys)
        send, receive = trio.open_memory_channel[Answer](max(size, 1))
        self._inboxes[key] = send
        return key, receive

    def close_inbox(self, key: int) -> None:
        self._inboxes.pop(key).close()

    def post(self, key: int, answer: Answer) -> None:
        """Put ``answer`` into inbox ``key`` (dropped when that inbox is closed: nobody waits)."""
        inbox = self._inboxes.get(key)
        if inbox is not None:
            inbox.send_nowait(answer)
