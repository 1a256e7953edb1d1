"""``reference``: the team to beat, built for real time (docs/reference-team.md).

In real time there are no turns: a strike is a race between two round trips. A hunter that
waits until the enemy heir stands next to it and then steps onto it arrives, most of the time,
after the heir has left (about 5 strikes in 6 under the timed schedule). So this team aims at
where the enemy heir is *going*, and it measures the race instead of assuming who wins it.

- Heir (agent 0): a step home, the one least likely to be struck by an enemy seen next to
  it, or a sidestep when every step home is likely struck. It never waits. ``classic``'s A*
  route by expected survival costs milliseconds a move near enemies; this costs microseconds
  and wins as often in the timed schedule.
- Five hunters (agents 1-5), no escorts: escorts that stand still still cost the team a turn
  of thinking at every burst of messages, and screen little that hunters do not.
  * Ambush: each hunter takes its own point of the enemy heir's predicted way home, spaced
    along it, the nearest points first, and waits on a node beside it that no shortest way
    of the heir crosses (a heir arriving there would kill it).
  * Strike: when the enemy heir stands one step before a node a hunter can enter, the hunter
    steps onto that node *now*, so that it arrives just after the heir does ("lead the
    target"). When the heir itself is next to it, it steps onto the heir. Which of the two
    comes first is decided by the race measured so far in this match: the share of each kind
    of strike that killed.
  * A hunter next to an enemy henchman beside our heir strikes it.
  * On its way to an ambush point a hunter steps onto an enemy henchman that stands on its
    way, waits while one stands beside it (a kill crossing its request would void it), and
    else avoids nodes beside one.
  * Of the hunters with no ambush point, the three nearest the enemy heir chase it as
    ``classic``'s hunters do; the others wait where they are. Over sockets every request
    costs the team a turn of the event loop, which its heir's next move waits behind, and a
    hunter far behind the enemy heir seldom catches it.
- Traps: the fewest active traps, exactly (``solver.TrapSolver``): the exact solve costs tens
  of microseconds, a small share of one round trip, and every trap left active is a 1/8 chance
  to lose the crossing.
"""

from __future__ import annotations

from client.strategies.classic import STRIKE_CHANCE, Classic
from client.strategies.knowledge import HEIR
from protocol.messages import Moved, ServerMessage

__all__ = ["CHASERS", "LEAD", "ONTO", "PRIOR_KILLS", "PRIOR_TRIES", "Race", "Reference"]

HUNTERS = (1, 2, 3, 4, 5)
#: how far ahead of the enemy heir the predicted way home is followed, in hops.
HORIZON = 60
#: ambush points of two hunters lie at least this many hops apart along the predicted way.
SPACING = 2
#: at most this many hunters with no ambush point chase the enemy heir (the nearest ones).
CHASERS = 3
#: a step home this likely to be struck is worth a sidestep that is at least this much safer.
SIDESTEP = 0.3
#: the two kinds of strike: onto the node the enemy heir is heading to, or onto the heir.
LEAD, ONTO = "lead", "onto"
#: Before its first strikes a team assumes real time: in the timed schedule a lead kills about
#: 2 times in 5 and a strike onto the heir 1 in 6 (in the step schedule: never, and nearly
#: always). Counted as strikes already made, so a few real ones outweigh them.
PRIOR_TRIES = {LEAD: 5, ONTO: 6}
PRIOR_KILLS = {LEAD: 2, ONTO: 1}


class Race:
    """Strikes of each kind made so far in a match and how many killed the enemy heir."""

    def __init__(self) -> None:
        # What real time gives before a match has shown anything (PRIOR_KILLS in PRIOR_TRIES).
        self.tries = dict(PRIOR_TRIES)
        self.kills = dict(PRIOR_KILLS)

    def record(self, kind: str, killed: bool) -> None:
        self.tries[kind] += 1
        self.kills[kind] += killed

    def rate(self, kind: str) -> float:
        """The share of the strikes of ``kind`` that killed, the prior included."""
        return self.kills[kind] / self.tries[kind]

    def first(self) -> str:
        """The kind to try first when both are possible: the one that killed more often."""
        return ONTO if self.rate(ONTO) > self.rate(LEAD) else LEAD


class Reference(Classic):
    """``classic``'s heir, five hunters that lead the enemy heir and measure the race."""

    def __init__(self, team: int, seed: int) -> None:
        super().__init__(team, seed)
        self.race = Race()
        #: hunter -> the kind of strike it is making (until its ``moved`` arrives).
        self._striking: dict[int, str] = {}
        #: the ambush points of the last positions asked about (five hunters ask in a row).
        self._ambush: tuple[tuple[int | None, ...], dict[int, int]] | None = None
        self._spots: dict[int, list[tuple[int, list[int]]]] = {}
        self._next: dict[int, list[int]] = {}

    def observe(self, agent: int, message: ServerMessage) -> None:
        if isinstance(message, Moved):
            kind = self._striking.pop(agent, None)
            if kind is not None and message.reason != "attacked":
                self.race.record(kind, HEIR in message.killed)
        super().observe(agent, message)

    def _heir_move(self) -> int | None:
        """A step home, the one least likely to be struck; a sidestep (no nearer home) when
        every step home is likely to be struck and the sidestep much less so."""
        known = self.knowledge
        here = known.location[HEIR]
        if here == known.own_shrine:
            return None
        hops = known.distances_to(known.own_shrine)
        threats = self._threat_nodes()
        moves = known.moves_from(here)
        choices = [node for node in moves if 0 <= hops[node] < hops[here]]
        if not choices:
            return None
        chance = {node: self._strike_chance(node, threats) for node in moves}
        best = min(chance[node] for node in choices)
        if best >= SIDESTEP:
            sidesteps = [n for n in moves if hops[n] == hops[here] and chance[n] + SIDESTEP <= best]
            choices = sidesteps or choices
        lowest = min(chance[node] for node in choices)
        return self._rng.choice([node for node in choices if chance[node] == lowest])

    def _strike_chance(self, node: int, threats: dict[int, float]) -> float:
        """The chance that an enemy next to ``node`` steps onto it while our heir stands there
        (our start is safe: nobody else may enter it)."""
        known = self.knowledge
        if node == known.own_start:
            return 0.0
        safe = 1.0
        for threat, weight in threats.items():
            if node in known.adjacency[threat]:
                safe *= 1.0 - STRIKE_CHANCE * weight
        return 1.0 - safe

    def choose_move(self, agent: int) -> int | None:
        if self.knowledge.node_to_act_from(agent) is None:
            return None
        if agent == HEIR:
            return self._heir_move()
        return self._hunter(agent)

    # -- the enemy heir's way home -------------------------------------------------------------

    def _heir_next(self) -> list[int]:
        """The nodes the enemy heir may step to next on a shortest way home."""
        known = self.knowledge
        heir = known.enemy_heir
        if heir is None:
            return []
        nodes = self._next.get(heir)
        if nodes is None:  # a function of the heir's node: asked by five hunters a burst
            home = self._enemy_home_distances()
            nodes = self._next[heir] = [
                node
                for node in known.adjacency[heir]
                if home[node] == home[heir] - 1 and node not in known.forbidden
            ]
        return nodes

    def _ambush_points(self) -> dict[int, int]:
        """Hunter -> the node it waits on: beside its own point of the enemy heir's predicted
        way home, which it can reach before the heir does; the nearest points go first."""
        known = self.knowledge
        heir = known.enemy_heir
        assert heir is not None
        key = (heir, *(known.location.get(agent) for agent in HUNTERS))
        if self._ambush is None or self._ambush[0] != key:
            self._ambush = (key, self._plan_ambush(heir))
        return self._ambush[1]

    def _ambush_spots(self, heir: int) -> list[tuple[int, list[int]]]:
        """(index, spots) for each point of the enemy heir's predicted way home from ``heir``:
        the nodes beside the point, on no shortest way of the heir (it would step onto us
        there). A function of ``heir`` alone, so computed once per node the heir stands on."""
        cached = self._spots.get(heir)
        if cached is not None:
            return cached
        known = self.knowledge
        path = self._predicted_enemy_path(heir, HORIZON)
        on_path = set(path)
        home = self._enemy_home_distances()
        from_heir = known.distances_to(heir)
        points: list[tuple[int, list[int]]] = []
        for index, node in enumerate(path[1:], start=1):
            if node in known.forbidden:
                break
            spots = [
                spot
                for spot in known.moves_from(node)
                if spot not in on_path
                and not (from_heir[spot] >= 0 and from_heir[spot] + home[spot] == home[heir])
            ]
            points.append((index, spots))
        self._spots[heir] = points
        return points

    def _plan_ambush(self, heir: int) -> dict[int, int]:
        known = self.knowledge
        free = [agent for agent in HUNTERS if agent in known.location]
        # The walk is symmetric: the table of a hunter's node gives its hops to every spot.
        tables = {agent: known.distances_to(known.location[agent]) for agent in free}
        points: dict[int, int] = {}
        used: list[int] = []
        for index, spots in self._ambush_spots(heir):
            if not free:
                break
            if any(abs(index - other) < SPACING for other in used):
                continue
            best: tuple[int, int, int] | None = None  # (hops, hunter, spot)
            for agent in free:
                table = tables[agent]
                for spot in spots:
                    hops = table[spot]
                    if 0 <= hops < index and (best is None or (hops, agent, spot) < best):
                        best = (hops, agent, spot)
            if best is not None:
                _, agent, spot = best
                points[agent] = spot
                free.remove(agent)
                used.append(index)
        return points

    # -- hunters -------------------------------------------------------------------------------

    def _strike_heir(self, agent: int) -> int | None:
        """A strike at the enemy heir from here, of the kind the race favours; None if none."""
        known = self.knowledge
        heir = known.enemy_heir
        if heir is None:
            return None
        moves = known.moves_from(known.location[agent])
        options = {LEAD: [n for n in self._heir_next() if n in moves], ONTO: []}
        if heir in moves:
            options[ONTO] = [heir]
        first = self.race.first()
        for kind in (first, ONTO if first == LEAD else LEAD):
            if options[kind]:
                self._striking[agent] = kind
                return self._rng.choice(options[kind])
        return None

    def _chasers(self, heir: int) -> list[int]:
        """The hunters with no ambush point that chase: the CHASERS nearest the enemy heir."""
        known = self.knowledge
        points = self._ambush_points()
        hops = known.distances_to(heir)
        unreached = len(known.adjacency)  # more hops than any reachable node
        idle = sorted(
            (hops[known.location[agent]] if hops[known.location[agent]] >= 0 else unreached, agent)
            for agent in HUNTERS
            if agent in known.location and agent not in points
        )
        return [agent for _, agent in idle[:CHASERS]]

    def _walk_to(self, here: int, spot: int, path: set[int]) -> int | None:
        """A step toward the ambush ``spot`` (off the enemy heir's ``path`` when it can be):
        onto an enemy henchman if one stands on such a step, else none while one is beside us
        (it may step onto us: the request would cross the kill and be refused), else one that
        no enemy henchman stands beside."""
        known = self.knowledge
        shortest = known.steps_toward(here, spot)
        steps = [n for n in shortest if n not in path] or shortest
        if not steps:
            return None
        enemies = set(known.visible_enemies().values())
        onto = [n for n in steps if n in enemies]
        if onto:
            return self._rng.choice(onto)
        if any(here in known.adjacency[enemy] for enemy in enemies):
            return None
        quiet = [n for n in steps if not any(n in known.adjacency[e] for e in enemies)]
        return self._rng.choice(quiet or steps)

    def _hunter(self, agent: int) -> int | None:
        strike = self._strike_heir(agent)
        if strike is not None:
            return strike
        known = self.knowledge
        guard = self._strike(agent, {known.location[HEIR]})
        if guard is not None:
            return guard
        heir = known.enemy_heir
        if heir is None:
            return None  # the enemy heir unseen for a moment: wait for its next sighting
        here = known.location[agent]
        spot = self._ambush_points().get(agent)
        if spot is not None:
            if here == spot:
                return None  # in ambush
            return self._walk_to(here, spot, set(self._predicted_enemy_path(heir, HORIZON)))
        if agent in self._chasers(heir):
            return self._hunter_move(agent)
        return None  # too far behind to matter: a request would only slow our heir
