"""What the rules engine reports besides its messages: typed facts for the match log and drivers.

Each applied input returns these in :attr:`dungeon.engine.Output.events`: small frozen msgspec
structs (like the wire messages in :mod:`protocol.messages`), tagged by ``event``, so a reader
matches them by type (``isinstance(fact, TrapProblem)``) instead of looking names up in dicts.
:func:`event_fields` gives the log's view of one: its name and its fields by their log names
(``from``, not ``from_``), the values as the engine made them (no copies).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import msgspec

__all__ = [
    "Crossing",
    "EngineEvent",
    "Kill",
    "MatchOver",
    "NpcKilled",
    "TrapProblem",
    "event_fields",
]

#: An agent as [team, agent] in the log.
Agent: TypeAlias = Sequence[int]


class _Event(msgspec.Struct, frozen=True, tag_field="event", gc=False):
    """Base of every engine event: frozen, tagged by ``"event"``."""


class TrapProblem(_Event, frozen=True, tag="trap_problem"):
    """A move was accepted: the trap problem drawn for crossing number ``crossing``."""

    crossing: int
    agent: Agent
    from_: int = msgspec.field(name="from")
    to: int = msgspec.field()
    switches: int = msgspec.field()
    #: The clauses: the very tuple the agent's `sat` carries.
    traps: Sequence[Sequence[int]] = msgspec.field()
    #: Problems drawn to hand out this one (over 1 only under the satisfiable policy).
    draws: int = msgspec.field()


class Crossing(_Event, frozen=True, tag="crossing"):
    """A solution was applied: how many traps it left active, the die and the outcome."""

    crossing: int
    agent: Agent
    from_: int = msgspec.field(name="from")
    to: int = msgspec.field()
    active: int = msgspec.field()
    roll: float = msgspec.field()
    survived: bool = msgspec.field()


class Kill(_Event, frozen=True, tag="kill"):
    """``agent`` arrived where enemy ``victim`` stood and sent it home."""

    agent: Agent
    victim: Agent
    location: int


class NpcKilled(_Event, frozen=True, tag="npc_killed"):
    agent: Agent
    location: int


class MatchOver(_Event, frozen=True, tag="game_over"):
    """The match ended: ``reason`` is "shrine", "forfeit" or "time"."""

    winner: int | None
    reason: str


EngineEvent: TypeAlias = TrapProblem | Crossing | Kill | NpcKilled | MatchOver

#: Per event class: its name, its fields' log names, and a getter of their values (in order).
_LAYOUT: Final[dict[type, tuple[str, tuple[str, ...], Callable[[Any], tuple[Any, ...]]]]] = {
    cls: (
        str(cls.__struct_config__.tag),
        tuple(f.encode_name for f in msgspec.structs.fields(cls)),
        operator.attrgetter(*(f.name for f in msgspec.structs.fields(cls))),
    )
    for cls in (TrapProblem, Crossing, Kill, NpcKilled, MatchOver)
}


def event_fields(event: EngineEvent) -> tuple[str, dict[str, Any]]:
    """``event``'s name and its fields by log name, holding the event's own values."""
    name, keys, values = _LAYOUT[type(event)]
    return name, dict(zip(keys, values(event), strict=True))
