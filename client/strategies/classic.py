"""``classic``: the reference team until 2026, kept as a sparring partner (``reference`` now
builds on its heir). It was tuned in the step schedule, where every agent acts once between two
moves of the enemy heir; under real timing its hunters' strikes mostly come too late and its
escorts spend the team's time standing still (docs/reference-team.md).

Rules that shape it (spec §2): an arriving agent kills every enemy on the node and is never
harmed, so the only way to die besides traps is to stand still while an enemy steps onto you;
the enemy heir is always visible; nobody may enter the other team's start or shrine.

- The heir takes the route with the best expected survival: each hop costs ``-ln`` of the chance
  to survive a crossing plus ``-ln`` of the chance that no enemy steps onto that node while it
  stands there (enemies seen within one hop of it, older sightings weigh less).
- Two escorts (agents 1, 2) walk a step ahead of the heir along its route and strike any enemy
  henchman that comes within one hop of the heir or of its next node: a screen.
- Three hunters (agents 3-5) predict the enemy heir's shortest way home, go to a node beside it
  that they can reach first, wait off the path (standing on it would get them killed), and step
  onto the enemy heir as soon as it is adjacent. With no sensible intercept they chase.
- Traps: the fewest active traps, exactly (``solver.TrapSolver``: SAT; if unsatisfiable, a
  cardinality-constrained SAT call for "one trap left"; RC2 MaxSAT beyond; WalkSAT only if a
  conflict budget runs out).
NPCs cannot harm anyone under these rules, so the team ignores them.

Every choice reads hop tables computed once per match and target node (the dungeon never
changes) and shared by the agents heading there, so a decision costs tens of microseconds, not
a whole-dungeon search: that matters in simulation (thousands of matches) and on the network,
where a slow team simply moves less often.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque

from client.strategies.knowledge import HEIR, Knowledge
from client.strategies.solver import TrapSolver
from protocol.messages import Sat, ServerMessage

__all__ = ["Classic"]

ESCORTS = (1, 2)
HUNTERS = (3, 4, 5)
#: chance to survive one crossing with an optimal solver at 20/85 (about 30% of problems leave
#: one trap active, which kills with probability 1/8).
CROSSING_SURVIVAL = 0.96
#: sightings older than this many team crossings no longer count as threats.
THREAT_MEMORY = 6
#: chance that a threat next to a node steps onto it while our heir stands there.
STRIKE_CHANCE = 0.5


class Classic:
    """Heir routed by expected survival, two escorts screening it, three hunters."""

    def __init__(self, team: int, seed: int) -> None:
        self.knowledge = Knowledge(team)
        self._rng = random.Random(seed)
        self._solver = TrapSolver(self._rng.getrandbits(64))
        self._enemy_home: list[int] | None = None
        self._enemy_paths: dict[tuple[int, int], list[int]] = {}

    def observe(self, agent: int, message: ServerMessage) -> None:
        self.knowledge.observe(agent, message)

    def solve(self, agent: int, problem: Sat) -> list[bool]:
        return self._solver.solve(problem.traps, problem.switches)

    def choose_move(self, agent: int) -> int | None:
        if self.knowledge.node_to_act_from(agent) is None:
            return None
        if agent == HEIR:
            return self._heir_move()
        if agent in ESCORTS:
            return self._escort_move(agent)
        return self._hunter_move(agent)

    # -- danger --------------------------------------------------------------------------------

    def _threat_nodes(self) -> dict[int, float]:
        known = self.knowledge
        threats = known.threats(THREAT_MEMORY)
        if known.enemy_heir is not None:
            threats[known.enemy_heir] = max(threats.get(known.enemy_heir, 0.0), 0.5)
        return threats

    def _risk(self, threats: dict[int, float]) -> dict[int, float]:
        """Node -> chance that an enemy steps onto it during one stay (own start is safe)."""
        known = self.knowledge
        safe = 1.0
        risk: dict[int, float] = {}
        for node, weight in threats.items():
            for neighbour in known.adjacency[node]:
                if neighbour == known.own_start or neighbour == known.own_shrine:
                    continue
                safe = risk.get(neighbour, 1.0) * (1.0 - STRIKE_CHANCE * weight)
                risk[neighbour] = safe
        return {node: 1.0 - survive for node, survive in risk.items()}

    # -- heir ----------------------------------------------------------------------------------

    def _heir_route_next(self) -> int | None:
        """The first step of the route to the own shrine with the best expected survival.

        Each hop costs ``-ln`` of the chance to survive its crossing and its stay; an A* search
        from the heir finds the cheapest route, guided by the hop count to the shrine (a lower
        bound: every hop costs at least a crossing), so it only looks around the threats
        instead of costing the whole dungeon.
        """
        known = self.knowledge
        here = known.location[HEIR]
        shrine = known.own_shrine
        if here == shrine:
            return None
        moves = known.moves
        if shrine in moves[here]:
            return shrine
        hops = known.distances_to(shrine)
        risk = self._risk(self._threat_nodes())
        # Every node of a shortest route home is nearer the shrine than the heir is; when no
        # risky node is, a shortest route is also the safest: no search needed.
        if not any(0 <= hops[node] < hops[here] for node in risk):
            steps = known.steps_toward(here, shrine)
            return self._rng.choice(steps) if steps else None
        base = -math.log(CROSSING_SURVIVAL)
        extra = {node: -math.log(max(1e-6, 1.0 - chance)) for node, chance in risk.items()}
        # Heap entries: (estimated total, -cost so far, node, first step): among equal
        # estimates the deepest goes first, so the search dives instead of spreading out.
        heap: list[tuple[float, float, int, int]] = []
        # The smallest entry pushed so far per node: an entry no smaller pops after that one,
        # which settles the node first, so it is never pushed (about half the pushes; the same
        # pops in the same order). Two entries for one node differ only in their other
        # fields, so comparing whole entries compares those.
        lowest: dict[int, tuple[float, float, int, int]] = {}
        for step in moves[here]:
            if hops[step] >= 0:
                cost = base + extra.get(step, 0.0)
                entry = (cost + base * hops[step], -cost, step, step)
                heap.append(entry)
                if step not in lowest or entry < lowest[step]:
                    lowest[step] = entry
        heapq.heapify(heap)
        settled = {here}
        push = heapq.heappush
        while heap:
            _, negative_cost, node, first = heapq.heappop(heap)
            if node == shrine:
                return first
            if node in settled:
                continue
            settled.add(node)
            crossed = base - negative_cost  # the cost so far plus one more crossing
            for nxt in moves[node]:
                if nxt not in settled and hops[nxt] >= 0:
                    total = crossed + extra.get(nxt, 0.0)
                    entry = (total + base * hops[nxt], -total, nxt, first)
                    pushed = lowest.get(nxt)
                    if pushed is not None and pushed <= entry:
                        continue
                    lowest[nxt] = entry
                    push(heap, entry)
        return None

    def _heir_move(self) -> int | None:
        return self._heir_route_next()

    # -- escorts -------------------------------------------------------------------------------

    def _strike(self, agent: int, guarded: set[int]) -> int | None:
        """An adjacent enemy henchman within one hop of a guarded node, to step onto."""
        known = self.knowledge
        here = known.location[agent]
        moves = set(known.moves_from(here))
        targets = sorted(
            node
            for node in known.visible_enemies().values()
            if node in moves and (node in guarded or guarded & set(known.adjacency[node]))
        )
        return targets[0] if targets else None

    def _escort_move(self, agent: int) -> int | None:
        known = self.knowledge
        heir = known.location[HEIR]
        ahead = self._heir_route_ahead(heir, 2)
        guarded = {heir, *ahead}
        strike = self._strike(agent, guarded)
        if strike is not None:
            return strike
        here = known.location[agent]
        # Walk one or two steps ahead of the heir, on its route: whatever stands there dies.
        target = ahead[-1] if ahead else heir
        if here == target or (here in ahead and heir != known.own_start):
            return None
        # The target's table: targets are nodes of the heir's way home, the same ones match
        # after match, so a table is built once per node and shared by both escorts.
        steps = known.steps_toward(here, target)
        return self._rng.choice(steps) if steps else None

    def _heir_route_ahead(self, heir: int, count: int) -> list[int]:
        known = self.knowledge
        dist = known.distances_to(known.own_shrine)
        route: list[int] = []
        node = heir
        for _ in range(count):
            options = [n for n in known.moves_from(node) if 0 <= dist[n] < dist[node]]
            if not options:
                break
            node = min(options)
            route.append(node)
        return route

    # -- hunters -------------------------------------------------------------------------------

    def _enemy_home_distances(self) -> list[int]:
        """Hop counts to the enemy shrine over the nodes the enemy may enter."""
        if self._enemy_home is None:
            known = self.knowledge
            blocked = {known.own_start, known.own_shrine}
            dist = [-1] * len(known.adjacency)
            dist[known.enemy_shrine] = 0
            queue = deque([known.enemy_shrine])
            while queue:
                node = queue.popleft()
                for nxt in known.adjacency[node]:
                    if dist[nxt] < 0 and nxt not in blocked:
                        dist[nxt] = dist[node] + 1
                        queue.append(nxt)
            self._enemy_home = dist
        return self._enemy_home

    def _predicted_enemy_path(self, start: int, limit: int) -> list[int]:
        """The enemy heir's shortest way home from ``start`` (lowest node ids on ties); a
        function of ``start`` alone, so computed once per node the enemy heir stands on."""
        key = (start, limit)
        path = self._enemy_paths.get(key)
        if path is not None:
            return path
        known = self.knowledge
        dist = self._enemy_home_distances()
        path = [start]
        node = start
        while len(path) <= limit and dist[node] > 0:
            options = [n for n in known.adjacency[node] if 0 <= dist[n] < dist[node]]
            if not options:
                break
            node = min(options)
            path.append(node)
        self._enemy_paths[key] = path
        return path

    def _hunter_move(self, agent: int) -> int | None:
        known = self.knowledge
        here = known.location[agent]
        enemy_heir = known.enemy_heir
        moves = known.moves_from(here)
        if enemy_heir is not None and enemy_heir in moves:
            return enemy_heir
        strike = self._strike(agent, {known.location[HEIR]})
        if strike is not None:
            return strike
        if enemy_heir is None:
            steps = known.steps_toward(here, known.enemy_start)
            return self._rng.choice(steps) if steps else None
        path = self._predicted_enemy_path(enemy_heir, 60)
        ahead = set(path[1:])
        target = enemy_heir
        # The first node of the predicted path this hunter can reach before the enemy heir,
        # from the tables of the path's nodes: the enemy heir walks the same path again after
        # each death, so those tables are built once and shared by the three hunters.
        # Hops to the own shrine differ by no more than the hops between two nodes (the walk
        # is symmetric), so a node whose difference exceeds its index is out of reach without
        # building its table.
        home = known.distances_to(known.own_shrine)
        for index, node in enumerate(path[1:], start=1):
            if node in known.forbidden:
                break
            if abs(home[node] - home[here]) > index:
                continue
            if 0 <= known.distances_to(node)[here] <= index:
                target = node
                break
        if here in known.adjacency[target] and here not in ahead:
            return None  # in ambush beside the predicted path
        shortest = known.steps_toward(here, target)
        steps = [n for n in shortest if n not in ahead or n == target]
        if not steps:
            steps = shortest
        if target in ahead and steps and all(s == target for s in steps):
            return None  # the next step would stand on the path: wait beside it
        return self._rng.choice(steps) if steps else None
