"""The wire messages of the dungeon game (spec dungeon.md section 4): one frozen type per kind.

Each message is a ``msgspec.Struct`` tagged by its ``"type"`` field, so ``Move(to=3)`` travels as
``{"type":"move","to":3}``. The field annotations are the validation rules a decoder applies to
what a peer sends: a bool is not an int, ``1.0`` is not an int, ``team`` is 0 or 1, and so on.
Each field's ``Meta(description=...)`` is the phrase an error message uses for it ("field 'to'
must be an int >= 0, got str"). Unknown fields are ignored.

Immutability: the structs are ``frozen=True`` (no attribute can be reassigned), and every array
field is stored as a tuple (of tuples, for pairs and triples), whatever sequence the caller
passed: ``__post_init__`` converts lists on construction and on decoding alike. So a message an
engine builds with lists compares equal to the same message decoded from the wire, and every
message is hashable. Annotations say ``Sequence`` so callers may pass lists (or tuples).

Construction does not validate values (msgspec never does, for speed); the codec checks every
message it sends against these same rules and raises ``LocalProtocolError`` on a bad one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Literal, TypeAlias

import msgspec
from msgspec import Meta, Struct

__all__ = [
    "CLIENT_MESSAGE_TYPES",
    "MESSAGE_TYPES",
    "SERVER_MESSAGE_TYPES",
    "TEAM_SIZE",
    "ClientMessage",
    "Dungeon",
    "Enemy",
    "Error",
    "Frozen",
    "GameOver",
    "Message",
    "Move",
    "Moved",
    "Sat",
    "ServerMessage",
    "Solution",
    "Start",
]

#: Agents a team: the heir (0) and five henchmen (1-5); the wire numbers them 0-5.
TEAM_SIZE = 6

# The value types of the spec, each with the phrase error messages use for it.
Team = Annotated[int, Meta(ge=0, le=1, description="0 or 1")]
AgentNumber = Annotated[int, Meta(ge=0, le=5, description="an int from 0 to 5")]
# An enemy agent number, or -1 for an NPC (enemy.agent, moved.killed).
EntityNumber = Annotated[int, Meta(ge=-1, le=5, description="an int from -1 (an NPC) to 5")]
Node = Annotated[int, Meta(ge=0, description="an int >= 0")]
NodePair = Annotated[
    Sequence[Node], Meta(min_length=2, max_length=2, description="a list of 2 ints >= 0")
]
Point = Annotated[Sequence[float], Meta(min_length=2, max_length=2)]
Trap = Annotated[Sequence[int], Meta(min_length=3, max_length=3)]
# \Z, not $: "$" would also match before a trailing newline ("abc\n").
MatchName = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+\Z")]
Reason = Literal["crossed", "trap", "attacked"]


class _Message(Struct, frozen=True, tag_field="type", gc=False):
    """Base of every message: frozen, tagged by ``"type"``.

    ``gc=False``: a message holds only scalars and tuples of them, so it can never be part of a
    reference cycle, and the garbage collector need not track the millions a simulation makes.
    """


class Frozen(tuple):  # type: ignore[type-arg]  # a tuple of tuples of anything
    """A sequence of pairs or triples frozen once, as a tuple of tuples: a message given one
    keeps it as it is, without checking it again. The engine hands the same nodes and edges to
    all twelve `dungeon` messages: only their making pays the copy and the check."""

    __slots__ = ()

    def __new__(cls, value: Iterable[Iterable[object]]) -> Frozen:
        return super().__new__(cls, map(tuple, value))


def _freeze(value: Sequence[Sequence[object]]) -> tuple[tuple[object, ...], ...]:
    """A sequence of pairs or triples as a tuple of tuples: ``value`` itself when it is one
    (the engine builds its messages from tuples), else a copy."""
    if type(value) is Frozen or (type(value) is tuple and set(map(type, value)) <= {tuple}):
        return value  # a tuple of tuples already
    return tuple(map(tuple, value))


# --- client -> server ---------------------------------------------------------------------------


class Start(_Message, frozen=True, tag="start", omit_defaults=True):
    """The first line on a new socket: which slot of which match this socket plays."""

    team: Team
    agent: AgentNumber
    # omit_defaults: a start without a match name is sent without the field, as in the spec.
    match: Annotated[
        MatchName | None,
        Meta(description="a string of 1-64 characters from [A-Za-z0-9_-], or absent"),
    ] = None
    #: The team's secret, when the server requires one for this named match (arena serve --teams).
    token: Annotated[
        Annotated[str, Meta(min_length=1, max_length=256)] | None,
        Meta(description="a string of 1-256 characters, or absent"),
    ] = None


class Move(_Message, frozen=True, tag="move"):
    """Ask to cross the corridor to the adjacent node ``to``."""

    to: Node


class Solution(_Message, frozen=True, tag="solution"):
    """The switch settings for the pending trap problem; element i is switch i + 1."""

    assignment: Annotated[Sequence[bool], Meta(description="a list of bools")]

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "assignment", tuple(self.assignment))


# --- server -> client ---------------------------------------------------------------------------


class Dungeon(_Message, frozen=True, tag="dungeon"):
    """The map, sent to all twelve agents when the match is full. NPCs are not in it."""

    team: Team
    agent: AgentNumber
    nodes: Annotated[Sequence[Point], Meta(description="a list of [x, y] pairs of numbers")]
    edges: Annotated[Sequence[NodePair], Meta(description="a list of [u, v] pairs of ints >= 0")]
    start: NodePair
    shrine: NodePair

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "nodes", _freeze(self.nodes))
        msgspec.structs.force_setattr(self, "edges", _freeze(self.edges))
        msgspec.structs.force_setattr(self, "start", tuple(self.start))
        msgspec.structs.force_setattr(self, "shrine", tuple(self.shrine))


class Sat(_Message, frozen=True, tag="sat"):
    """The trap problem of a committed move: 3-SAT clauses in DIMACS literals over ``switches``."""

    to: Node
    switches: Annotated[int, Meta(ge=1, description="an int >= 1")]
    traps: Annotated[Sequence[Trap], Meta(description="a list of [l1, l2, l3] triples of ints")]

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "traps", _freeze(self.traps))


class Moved(_Message, frozen=True, tag="moved"):
    """Where an agent is after a crossing, a trap death or being attacked."""

    success: Annotated[bool, Meta(description="a bool")]
    location: Node
    killed: Annotated[
        Sequence[EntityNumber], Meta(description="a list of ints from -1 (an NPC) to 5")
    ]
    reason: Annotated[Reason, Meta(description="one of 'crossed', 'trap', 'attacked'")]

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "killed", tuple(self.killed))


class Enemy(_Message, frozen=True, tag="enemy"):
    """An enemy agent (or an NPC, agent -1) came into view (``seen``) or left it."""

    location: Node
    agent: EntityNumber
    seen: Annotated[bool, Meta(description="a bool")]


class GameOver(_Message, frozen=True, tag="game_over"):
    """The match is over; ``winner`` None is a draw (always sent, as null)."""

    winner: Annotated[
        Annotated[int, Meta(ge=0, le=1)] | None, Meta(description="0, 1 or null (a draw)")
    ]


class Error(_Message, frozen=True, tag="error"):
    """The answer to an invalid request (or line); the request changed nothing.

    ``code`` is a stable snake_case word a program can test (:class:`protocol.errors.ErrorCode`);
    ``message`` says the same for people.
    """

    code: Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]*\Z", description="a snake_case word")]
    message: Annotated[str, Meta(description="a string")]


ClientMessage: TypeAlias = Start | Move | Solution
ServerMessage: TypeAlias = Dungeon | Sat | Moved | Enemy | GameOver | Error
Message: TypeAlias = ClientMessage | ServerMessage

CLIENT_MESSAGE_TYPES: tuple[type[ClientMessage], ...] = (Start, Move, Solution)
SERVER_MESSAGE_TYPES: tuple[type[ServerMessage], ...] = (
    Dungeon,
    Sat,
    Moved,
    Enemy,
    GameOver,
    Error,
)
MESSAGE_TYPES: tuple[type[Message], ...] = CLIENT_MESSAGE_TYPES + SERVER_MESSAGE_TYPES
