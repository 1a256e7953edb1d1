"""A dungeon socket's handshake: its first lines, read until a ``start`` takes a slot in the
lobby (:mod:`server.lobby`), the peer goes, or the socket must close (spec section 4: the first
line must be a ``start``). The socket's reading loop (:class:`server.reading.Reading`) runs it
within the start timeout, then plays.
"""

from __future__ import annotations

import enum
from typing import Any, Protocol

from dungeon.engine import AgentId
from protocol.codec import RemoteProtocolError
from protocol.errors import ErrorCode, code_of
from protocol.messages import Message, Start
from protocol.session import Event
from server.lobby import Filling, Lobby, SlotTaken
from server.seat import Seat

__all__ = ["Handshake", "Joining", "handshake"]


class Joining(Protocol):
    """What the handshake reads and sets of a socket's reading (:class:`server.reading.Reading`):
    ``holder`` is what the lobby seats."""

    holder: Any
    lobby: Lobby[Any]
    filling: Filling[Any] | None
    seat: Seat

    @property
    def refused(self) -> bool: ...

    async def next_item(self) -> Message | RemoteProtocolError | None: ...

    def say(self, code: str, text: str, *, closing: bool = False) -> None: ...


class Handshake(enum.Enum):
    JOINED = "joined"
    CLOSE = "close"
    EOF = "eof"
    LATE = "late"


async def handshake(conn: Joining) -> Handshake:
    """Read lines until a ``start`` takes a slot, the peer goes, or the socket must close."""
    first = True
    while True:
        item = await conn.next_item()
        if item is None:
            return Handshake.EOF
        if isinstance(item, RemoteProtocolError):
            is_start = item.message_type == "start"
            if item.fatal or (first and not is_start):
                code = code_of(item) if is_start or item.fatal else ErrorCode.START_REQUIRED
                text = f"{item.text}: closing (a start must come first)"
                conn.say(code, text, closing=True)
                return Handshake.CLOSE
            conn.say(code_of(item), item.text)
        elif isinstance(item, Start):
            slot = AgentId(item.team, item.agent)
            try:
                conn.filling = conn.lobby.claim(conn.holder, slot, item.match, item.token)
            except SlotTaken as taken:
                conn.say(taken.code, f"start: {taken}")
            else:
                seat = conn.seat
                seat.slot = slot
                seat.session.handle(Event.START_ACCEPTED)
                seat.log = seat.log.bind(team=slot.team, agent=slot.agent)
                seat.log.info("slot_taken", match=conn.filling.number, name=conn.filling.name)
                return Handshake.JOINED
        elif first:
            text = f"{_type_name(item)} before start: the first line must be a start; closing"
            conn.say(ErrorCode.START_REQUIRED, text, closing=True)
            return Handshake.CLOSE
        else:
            conn.say(ErrorCode.NOT_STARTED, f"{_type_name(item)} before start: send a start first")
        if conn.refused:
            return Handshake.CLOSE
        first = False


def _type_name(message: Message) -> str:
    return type(message).__name__.lower()
