"""What passes between a dungeon socket (:mod:`server.connection`) and its match's actor
(:mod:`server.actor`): plain values only, each naming a socket by its seat (``AgentId``), never
the socket.

A socket puts its items in the actor's inbox through its own clone of the inbox's send side:
:class:`Submitted` (a request), :class:`Refused` (a line refused before it could be a request)
and, last, :class:`Closed` (a socket sends items only once its ``start`` took a seat).

The actor answers with values too, handed to the one function the server gave it
(:data:`Answers`, the socket side's :class:`server.seat.Seats`), which applies them to the
sockets' own state and says back, as values (:class:`Heard`), which seats are gone or past their
error limit: :class:`Begun` (the match began: the sockets' inbox and their ``dungeon`` lines),
:class:`Replies` (each seat's :data:`Outgoing` items in order, an error among them a
:class:`Failure`, counted by the socket when it gets it) and :class:`Kill`. :func:`render`
makes the bytes the socket writes for its items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from dungeon.engine import AgentId
from protocol.codec import Codec
from protocol.errors import ErrorCode
from protocol.messages import Error, GameOver, Move, Moved, Sat, ServerMessage, Solution

if TYPE_CHECKING:
    from server.net import Close

__all__ = [
    "NOTHING",
    "Answer",
    "Answers",
    "Begun",
    "Closed",
    "Failure",
    "Heard",
    "Kill",
    "Outgoing",
    "Refused",
    "Replies",
    "Submitted",
    "is_game_over",
    "last_error",
    "render",
]

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


@dataclass(frozen=True, slots=True)
class Failure:
    """An error the match made for a seat, among its replies (``line``: already encoded; None:
    the socket encodes it); ``closing``: the socket closes after it. The socket counts it when
    it gets it, as every error (:meth:`server.seat.Seat.error`)."""

    error: Error
    line: bytes | None = None
    closing: bool = False


class Replies(NamedTuple):
    """What the inputs of one step produced for each seat, in order (one write each);
    ``failing``: the seats with a :class:`Failure` among theirs."""

    items: dict[AgentId, list[Outgoing | Failure]]
    failing: set[AgentId]


@dataclass(frozen=True, slots=True)
class Begun:
    """The match has begun: each open socket's requests go to its own clone of ``inbox`` (and
    the idle limit counts from now, unless ``draw`` seconds come first); ``lines``: each seat's
    ``dungeon`` line, in order; then the requests each socket held are answered with errors."""

    inbox: Any  # trio.MemorySendChannel of the items above
    lines: list[tuple[AgentId, bytes]]
    draw: float


@dataclass(frozen=True, slots=True)
class Kill:
    """Close the sockets in ``seats`` at once (the match crashed)."""

    seats: tuple[AgentId, ...]
    reason: str


class Heard(NamedTuple):
    """What the socket side says back: the seats whose socket is gone (closed, or not reading:
    its outbox full) and those past their error limit (nothing more they send counts)."""

    gone: Sequence[AgentId]
    refused: Sequence[AgentId]


#: Nothing to report (the common answer, not allocated each time).
NOTHING = Heard((), ())

Answer = Begun | Replies | Kill
#: Where the match's actor hands its answers: applied at once, in order.
Answers = Callable[[Answer], Heard]


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
