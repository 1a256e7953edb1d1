"""What passes between a dungeon socket (:mod:`server.connection`) and its match's actor
(:mod:`server.actor`): plain values only.

A socket puts its items in the actor's inbox through its own clone of the inbox's send side:
:class:`Submitted` (a request), :class:`Refused` (a line refused before it could be a request)
and, last, :class:`Closed`. Each is a plain value naming the socket by its seat (a socket
sends items only once its ``start`` took one), never the socket itself. The actor answers
with :data:`Outgoing` items put in the socket's outbox (:class:`server.seat.Seat`), and
:func:`last_error` when an error reaches the socket's limit; :func:`render` makes the bytes the
socket writes for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dungeon.engine import AgentId
from protocol.codec import Codec
from protocol.errors import ErrorCode
from protocol.messages import Error, GameOver, Move, Moved, Sat, ServerMessage, Solution

if TYPE_CHECKING:
    from server.net import Close

__all__ = ["Closed", "Outgoing", "Refused", "Submitted", "is_game_over", "last_error", "render"]

#: A message, a line already encoded (the big `dungeon` lines, sightings), or a message with its
#: line already encoded (the match's answers: the socket still inspects them).
Outgoing = ServerMessage | bytes | tuple[ServerMessage, bytes]


@dataclass(frozen=True, slots=True)
class Submitted:
    """A request of the socket in ``seat``, for its match's actor."""

    seat: AgentId
    message: Move | Solution


@dataclass(frozen=True, slots=True)
class Refused:
    """A line of the socket in ``seat`` refused before it could be a request (the codec's
    verdict, a second start), for its match's actor, which answers it in order with the
    requests before it; ``closing``: the socket closes after the error."""

    seat: AgentId
    code: str
    text: str
    closing: bool = False


@dataclass(frozen=True, slots=True)
class Closed:
    """The socket in ``seat`` has closed (the last thing it sends its actor)."""

    seat: AgentId


def last_error(error: Error) -> Error:
    """The error that reaches a socket's limit: it says so in its code; its text keeps the
    cause."""
    return Error(
        code=ErrorCode.ERROR_LIMIT, message=f"{error.message} (error limit reached: closing)"
    )


def render(codec: Codec, items: list[Outgoing]) -> tuple[bytearray, bool, bool]:
    """The bytes for ``items``, whether the socket must close after them (game over), and
    whether they answer a request (for answer times)."""
    data = bytearray()
    stop = False
    answered = False
    for item in items:
        if isinstance(item, bytes):
            data += item
            continue
        if isinstance(item, tuple):
            item, line = item
            data += line
        else:
            data += codec.send(item)
        if isinstance(item, Sat | Error) or (isinstance(item, Moved) and item.reason != "attacked"):
            answered = True
        if isinstance(item, GameOver):
            stop = True
            break
    return data, stop, answered


def is_game_over(item: Outgoing | Close) -> bool:
    return isinstance(item, GameOver) or (isinstance(item, tuple) and isinstance(item[0], GameOver))
