"""What the rules engine (:mod:`dungeon.engine`) consumes and produces: the agents' names, the
inputs an owner applies one at a time (a request, a team's disconnection, the time limit) and
the output of each (the messages to send, in spec order, and the facts for the match log).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from dungeon.events import EngineEvent
from protocol import messages as wire

__all__ = [
    "AGENTS",
    "HEIR",
    "TEAM_SIZE",
    "AgentId",
    "Disconnect",
    "Input",
    "Outbound",
    "Output",
    "Request",
    "TimeUp",
]

TEAM_SIZE = wire.TEAM_SIZE
#: The agent number of each team's heir.
HEIR = 0


class AgentId(NamedTuple):
    """One of the twelve agents: team 0 or 1, agent 0 (the heir) to 5."""

    team: int
    agent: int


#: All twelve agents in the engine's fixed order: team 0's agents 0-5, then team 1's.
AGENTS: tuple[AgentId, ...] = tuple(AgentId(t, a) for t in (0, 1) for a in range(TEAM_SIZE))


@dataclass(frozen=True, slots=True)
class Request:
    """A request an agent sent (after its `start`): a move or a trap solution."""

    agent: AgentId
    message: wire.Move | wire.Solution


@dataclass(frozen=True, slots=True)
class Disconnect:
    """Every socket of ``agent``'s team is gone (``agent``: the last to go): that team forfeits."""

    agent: AgentId


@dataclass(frozen=True, slots=True)
class TimeUp:
    """The draw limit was reached (wall time on a server, logical steps in a simulation)."""


Input = Request | Disconnect | TimeUp


@dataclass(frozen=True, slots=True)
class Outbound:
    """One message for one agent."""

    to: AgentId
    message: wire.ServerMessage


@dataclass(frozen=True, slots=True)
class Output:
    """What applying one input produced: messages in spec order, and facts for the match log."""

    messages: list[Outbound]
    events: list[EngineEvent]
