"""The rules engine (spec dungeon.md sections 2-3): a pure state machine, one input at a time.

The owner (a server's match actor, a simulator's driver, a replay) feeds inputs with
:meth:`Match.apply` and sends what comes back; the engine never touches a socket or a clock and
draws every random number from the match generator, in input order, so the same seed and the
same inputs give the same match everywhere. Its inputs and outputs are defined in
:mod:`dungeon.engine_io` and importable from here, with the :class:`Match` they go with; what
each agent is told it sees is kept by :mod:`dungeon.visibility`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from dungeon.config import DEFAULT_RULES, RulesConfig
from dungeon.engine_io import (
    AGENTS,
    HEIR,
    TEAM_SIZE,
    AgentId,
    Disconnect,
    Input,
    Outbound,
    Output,
    Request,
    TimeUp,
)
from dungeon.events import Crossing, EngineEvent, Kill, MatchOver, NpcKilled, TrapProblem
from dungeon.generation import Dungeon, generate
from dungeon.traps import DrawnProblem, draw_for_policy
from dungeon.visibility import Sightings, sighting_updates
from protocol import messages as wire

__all__ = [
    "AGENTS",
    "TEAM_SIZE",
    "AgentId",
    "Disconnect",
    "Input",
    "Match",
    "Outbound",
    "Output",
    "Request",
    "TimeUp",
]


@dataclass(frozen=True, slots=True)
class _Pending:
    """A committed move waiting for its solution."""

    to: int
    problem: DrawnProblem
    crossing: int
    sat: wire.Sat


class Match:
    """One match's rules state: positions, commitments, NPCs, what each agent was told it sees.

    The generator is part of the state: it drew the dungeon and draws, in input order, every
    trap problem and every survival die. Nothing else may draw from it.
    """

    def __init__(self, seed: int, config: RulesConfig = DEFAULT_RULES) -> None:
        self.seed = seed
        self.config = config
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self.dungeon: Dungeon = generate(self._rng, config)
        start = self.dungeon.start
        self._locations: list[list[int]] = [[start[t]] * TEAM_SIZE for t in (0, 1)]
        self._pending: dict[AgentId, _Pending] = {}
        self._npcs: set[int] = set(self.dungeon.npcs)
        self._sightings = Sightings(self.dungeon.views)
        self._crossings = 0
        self._begun = False
        self._winner: int | None = None
        self._end_reason: str | None = None

    # --- read-only views for drivers, strategies' tests and replays --------------------------

    def location(self, agent: AgentId) -> int:
        """The node the agent stands on (a committed agent is still on its node)."""
        return self._locations[agent.team][agent.agent]

    def locations(self, team: int) -> tuple[int, ...]:
        """The nodes of a team's six agents, by agent number."""
        return tuple(self._locations[team])

    def committed(self, agent: AgentId) -> int | None:
        """The node the agent is committed to cross to, or None when it is free to move."""
        pending = self._pending.get(agent)
        return None if pending is None else pending.to

    def pending(self, agent: AgentId) -> wire.Sat | None:
        """The trap problem the agent must answer, or None when it is not committed."""
        pending = self._pending.get(agent)
        return None if pending is None else pending.sat

    def free_agents(self, team: int) -> tuple[int, ...]:
        """A team's agents not committed to a move (all of them may act)."""
        return tuple(a for a in range(TEAM_SIZE) if AgentId(team, a) not in self._pending)

    @property
    def npcs(self) -> frozenset[int]:
        """Nodes that still hold an NPC."""
        return frozenset(self._npcs)

    @property
    def crossings(self) -> int:
        """Trap problems handed out so far (the next crossing's number)."""
        return self._crossings

    @property
    def generator_state(self) -> dict[str, Any]:
        """A copy of the match generator's state (for replays and tests; never sent to clients)."""
        return copy.deepcopy(dict(self._rng.bit_generator.state))

    @property
    def is_over(self) -> bool:
        return self._end_reason is not None

    @property
    def winner(self) -> int | None:
        """The winning team, or None (a draw, or not over)."""
        return self._winner

    @property
    def end_reason(self) -> str | None:
        """ "shrine", "forfeit", "time", or None while the match runs."""
        return self._end_reason

    def snapshot(self) -> dict[str, Any]:
        """The whole mutable state as plain JSON-ready data (equal snapshots: equal futures)."""
        return {
            "seed": self.seed,
            "locations": [list(team) for team in self._locations],
            "pending": sorted(
                [agent.team, agent.agent, pending.to, pending.crossing]
                for agent, pending in self._pending.items()
            ),
            "npcs": sorted(self._npcs),
            "crossings": self._crossings,
            "sightings": [sorted(map(list, self._sightings.told(i))) for i in range(12)],
            "generator": self.generator_state,
            "begun": self._begun,
            "winner": self._winner,
            "end_reason": self._end_reason,
        }

    def clone(self) -> Match:
        """An independent copy (the dungeon, immutable, is shared)."""
        twin = copy.copy(self)
        twin._rng = copy.deepcopy(self._rng)
        twin._locations = [list(team) for team in self._locations]
        twin._pending = dict(self._pending)
        twin._npcs = set(self._npcs)
        twin._sightings = self._sightings.clone()
        return twin

    # --- inputs ---------------------------------------------------------------------------------

    def begin(self) -> Output:
        """`dungeon` to all twelve, then each agent's first sightings."""
        if self._begun:
            raise RuntimeError("Match.begin() called twice")
        self._begun = True
        dungeon = self.dungeon
        # Tuples once for all twelve: the messages keep tuples as they are instead of copying.
        # Zipping the columns makes each pair a tuple at once, with no list per pair on the way.
        nodes = wire.Frozen(zip(*dungeon.positions.T.tolist(), strict=True))
        edges = wire.Frozen(zip(*dungeon.edges.T.tolist(), strict=True))
        messages = [
            Outbound(
                agent,
                wire.Dungeon(
                    team=agent.team,
                    agent=agent.agent,
                    nodes=nodes,
                    edges=edges,
                    start=list(dungeon.start),
                    shrine=list(dungeon.shrine),
                ),
            )
            for agent in AGENTS
        ]
        messages += sighting_updates(self._sightings, self.dungeon, self._locations, self._npcs)
        return Output(messages, [])

    def apply(self, event: Input) -> Output:
        """Apply one input; return the messages to send (spec order) and the log events."""
        if not self._begun:
            raise RuntimeError("Match.apply() before Match.begin()")
        if isinstance(event, Request):
            _check_agent(event.agent)
            if self.is_over:
                return _error(event.agent, "match_over", "the match is over")
            if isinstance(event.message, wire.Move):
                return self._move(event.agent, event.message.to)
            if isinstance(event.message, wire.Solution):
                return self._solution(event.agent, event.message.assignment)
            raise TypeError(f"a Request carries a Move or a Solution, not {event.message!r}")
        if isinstance(event, Disconnect):
            _check_agent(event.agent)
            if self.is_over:
                return Output([], [])
            return self._end(1 - event.agent.team, "forfeit", [])
        if isinstance(event, TimeUp):
            if self.is_over:
                return Output([], [])
            return self._end(None, "time", [])
        raise TypeError(f"not an engine input: {event!r}")

    # --- moves ----------------------------------------------------------------------------------

    def _move(self, agent: AgentId, to: int) -> Output:
        pending = self._pending.get(agent)
        if pending is not None:
            return _error(
                agent,
                "already_committed",
                f"move: already committed to a move to node {pending.to}",
            )
        here = self.location(agent)
        n = self.dungeon.node_count
        if not 0 <= to < n:
            return _error(
                agent, "no_such_node", f"move: there is no node {to} (nodes are 0 to {n - 1})"
            )
        if to not in self.dungeon.adjacency[here]:
            return _error(
                agent, "not_adjacent", f"move: node {to} is not adjacent to your node {here}"
            )
        enemy = 1 - agent.team
        if to == self.dungeon.start[enemy]:
            return _error(agent, "enemy_start", f"move: node {to} is the other team's start")
        if to == self.dungeon.shrine[enemy]:
            return _error(agent, "enemy_shrine", f"move: node {to} is the other team's shrine")
        problem, draws = draw_for_policy(self._rng, self.config)
        crossing = self._crossings
        self._crossings += 1
        traps = problem.traps
        sat = wire.Sat(to=to, switches=self.config.switches, traps=traps)
        self._pending[agent] = _Pending(to, problem, crossing, sat)
        event = TrapProblem(
            crossing=crossing,
            agent=[agent.team, agent.agent],
            from_=here,
            to=to,
            switches=self.config.switches,
            traps=traps,
            draws=draws,
        )
        return Output([Outbound(agent, sat)], [event])

    def _solution(self, agent: AgentId, assignment: Any) -> Output:
        pending = self._pending.get(agent)
        if pending is None:
            return _error(
                agent, "not_committed", "solution: not committed to a move (send a move first)"
            )
        switches = self.config.switches
        if len(assignment) != switches:
            return _error(
                agent,
                "wrong_length",
                f"solution: {len(assignment)} values for {switches} switches "
                f"(send exactly one bool per switch)",
            )
        del self._pending[agent]
        active = pending.problem.active(assignment)
        roll = float(self._rng.random())
        survived = roll < self.config.survival**active
        events: list[EngineEvent] = [
            Crossing(
                crossing=pending.crossing,
                agent=[agent.team, agent.agent],
                from_=self.location(agent),
                to=pending.to,
                active=active,
                roll=roll,
                survived=survived,
            )
        ]
        messages: list[Outbound] = []
        destination = pending.to if survived else self.dungeon.start[agent.team]
        arrivals: list[tuple[AgentId, int]] = []
        killed = self._arrive(agent, destination, messages, events, arrivals)
        # The acting agent's `moved` comes first, then the `moved` of everyone it killed.
        reason: wire.Reason = "crossed" if survived else "trap"
        messages.insert(0, Outbound(agent, wire.Moved(survived, destination, killed, reason)))
        messages += sighting_updates(
            self._sightings, self.dungeon, self._locations, self._npcs, arrivals
        )
        if agent.agent == HEIR and destination == self.dungeon.shrine[agent.team]:
            return self._end(agent.team, "shrine", messages, events)
        return Output(messages, events)

    def _arrive(
        self,
        agent: AgentId,
        node: int,
        messages: list[Outbound],
        events: list[EngineEvent],
        arrivals: list[tuple[AgentId, int]],
    ) -> list[int]:
        """Put ``agent`` on ``node`` and fight there; return the `killed` list of its `moved`.

        Every enemy agent on the node is sent to its own start (arriving there, in turn) and told
        so in ``messages``; an NPC on the node is removed for good. Each agent put somewhere
        goes to ``arrivals`` with the node it left.
        """
        arrivals.append((agent, self._locations[agent.team][agent.agent]))
        self._locations[agent.team][agent.agent] = node
        enemy = 1 - agent.team
        killed: list[int] = []
        for victim_number, where in enumerate(self._locations[enemy]):
            if where != node:
                continue
            victim = AgentId(enemy, victim_number)
            killed.append(victim_number)
            self._pending.pop(victim, None)
            events.append(
                Kill(
                    agent=[agent.team, agent.agent],
                    victim=[victim.team, victim.agent],
                    location=node,
                )
            )
            home = self.dungeon.start[enemy]
            index = len(messages)
            victim_killed = self._arrive(victim, home, messages, events, arrivals)
            messages.insert(
                index, Outbound(victim, wire.Moved(False, home, victim_killed, "attacked"))
            )
        if node in self._npcs:
            self._npcs.remove(node)
            killed.append(-1)
            events.append(NpcKilled(agent=[agent.team, agent.agent], location=node))
        return killed

    # --- endings and sightings ---------------------------------------------------------------

    def _end(
        self,
        winner: int | None,
        reason: str,
        messages: list[Outbound],
        events: list[EngineEvent] | None = None,
    ) -> Output:
        self._winner = winner
        self._end_reason = reason
        self._pending.clear()
        over = wire.GameOver(winner=winner)
        messages = messages + [Outbound(agent, over) for agent in AGENTS]
        events = (events or []) + [MatchOver(winner=winner, reason=reason)]
        return Output(messages, events)


def _check_agent(agent: AgentId) -> None:
    if agent.team not in (0, 1) or not 0 <= agent.agent < TEAM_SIZE:
        raise ValueError(f"no such agent: {agent!r} (team 0 or 1, agent 0 to 5)")


def _error(agent: AgentId, code: str, text: str) -> Output:
    return Output([Outbound(agent, wire.Error(code=code, message=text))], [])
