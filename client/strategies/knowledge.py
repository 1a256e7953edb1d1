"""What a team knows: the graph from ``dungeon``, its own agents, and what it has seen of others.

Built only from the messages the team's six sockets receive, so the same object works over the
network and in a headless simulation. No clocks: "time" is the number of crossings the team has
seen resolve (its own ``moved`` messages), which is enough to age old sightings.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from dungeon.fastcore import load as load_fastcore
from dungeon.generation import symmetric_csr
from protocol.messages import TEAM_SIZE, Dungeon, Enemy, GameOver, Moved, ServerMessage

__all__ = ["HEIR", "NPC", "Knowledge", "hop_table", "hop_table_pure"]

HEIR = 0
NPC = -1
#: A team's agent numbers (0 is the heir).
TEAM_AGENTS = range(TEAM_SIZE)
#: One -1 as an int32 array: times n, a hop table of n unreached nodes.
_UNREACHED = array("i", [-1])


def hop_table(graph: csr_matrix, source: int) -> Sequence[int]:
    """Hops from ``source`` to every node along the directed edges of ``graph`` (-1: never):
    by dungeon._fastcore's breadth-first search when it is built, else :func:`hop_table_pure`.

    On the pure path, scipy's breadth-first search (see :func:`hop_table_pure`).
    """
    count = graph.shape[0]
    core = load_fastcore()
    if (
        core is not None
        and 0 <= source < count
        and graph.indptr.dtype == graph.indices.dtype == np.int32
    ):
        # dungeon._fastcore's breadth-first search: the same table, written straight into the
        # array (int32 rows, as moves_matrix builds them).
        table: array[int] = _UNREACHED * count
        core.hops(graph.indptr, graph.indices, source, table)
        return table
    return hop_table_pure(graph, source)


def hop_table_pure(graph: csr_matrix, source: int) -> Sequence[int]:
    """:func:`hop_table` by scipy alone: the fallback, and the reference tests compare with.

    scipy's breadth-first search runs in C (faster than the same search in Python on a
    1000-node dungeon); it gives the visiting order and each node's parent. Nodes come level
    by level, and each level's children in the order of their parents, so the children of the
    first p + 1 nodes visited fill positions 1 to (their count): a running count of children
    in visiting order leads from each level's last position to the next one's, one step per
    level, with no parent's position looked up and no level found by bisection.
    """
    count = graph.shape[0]
    order, parents = breadth_first_order(graph, source, directed=True, return_predecessors=True)
    # last_child[p]: the position of the last child of the nodes at positions 0 to p.
    last_child = np.bincount(parents.take(order[1:]), minlength=count).take(order).cumsum()
    sizes = [1]  # nodes per level
    last = 0  # position of the last node of the deepest level found
    final = len(order) - 1
    while last < final:
        # item() gives a Python int at once, with no numpy scalar on the way.
        end = last_child.item(last)
        sizes.append(end - last)
        last = end
    hops = np.full(count, -1, dtype=np.int32)
    hops[order] = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    # An int32 array, not a list: its bytes are copied, where tolist makes 1000 Python ints,
    # and a table takes 4 KB, not 8.
    return array("i", hops.tobytes())


class Knowledge:
    """One team's picture of the match, updated by :meth:`observe`."""

    def __init__(self, team: int) -> None:
        self.team = team
        self.enemy = 1 - team
        self.adjacency: list[tuple[int, ...]] = []
        self.start = (0, 0)
        self.shrine = (0, 0)
        self.forbidden: frozenset[int] = frozenset()
        self.location: dict[int, int] = {}
        self.deaths = [0] * 6
        self.tick = 0
        self.enemy_heir: int | None = None
        self.enemy_heir_moved_at = 0
        self.over = False
        self.winner: int | None = None
        # entity -> (node, tick last seen); entity 1..5 for enemy henchmen.
        self.enemy_last_seen: dict[int, tuple[int, int]] = {}
        # watcher -> {(node, entity)} it sees right now (enemy henchmen and NPCs).
        self._views: dict[int, set[tuple[int, int]]] = {a: set() for a in TEAM_AGENTS}
        self.npcs: set[int] = set()
        #: node -> the neighbours an agent of this team may move to (enemy start/shrine barred).
        self.moves: list[tuple[int, ...]] = []
        # The same moves as a sparse matrix (row u: the nodes u may move to), for scipy.
        self._graph = csr_matrix((0, 0), dtype=np.float64)
        # target -> hop counts; the graph never changes, so a table once built stays valid.
        self._distances: dict[int, Sequence[int]] = {}

    # -- facts ---------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """True once the ``dungeon`` message has arrived."""
        return bool(self.adjacency)

    def node_to_act_from(self, agent: int) -> int | None:
        """The node ``agent`` would move from, or None while it cannot be asked to move: before
        the ``dungeon`` message, after ``game_over``, or for an agent with no known node."""
        if not self.ready or self.over:
            return None
        return self.location.get(agent)

    @property
    def own_start(self) -> int:
        return self.start[self.team]

    @property
    def own_shrine(self) -> int:
        return self.shrine[self.team]

    @property
    def enemy_start(self) -> int:
        return self.start[self.enemy]

    @property
    def enemy_shrine(self) -> int:
        return self.shrine[self.enemy]

    def visible_enemies(self) -> dict[int, int]:
        """Enemy henchmen some team mate sees right now: entity -> node."""
        return {
            entity: node for view in self._views.values() for node, entity in view if entity != NPC
        }

    def threats(self, max_age: int) -> dict[int, float]:
        """Nodes where an enemy henchman is, or was seen at most ``max_age`` ticks ago: weight."""
        weights: dict[int, float] = {}
        visible = self.visible_enemies()
        for entity, (node, when) in self.enemy_last_seen.items():
            if entity in visible:
                weight = 1.0
                node = visible[entity]
            else:
                age = self.tick - when
                if age > max_age:
                    continue
                weight = 0.5 * (1.0 - age / (max_age + 1))
            weights[node] = max(weights.get(node, 0.0), weight)
        return weights

    def moves_from(self, node: int) -> tuple[int, ...]:
        """The nodes an agent of this team on ``node`` may move to."""
        return self.moves[node]

    def distances_to(self, target: int) -> Sequence[int]:
        """Hop counts to ``target`` over nodes this team may enter (-1: unreachable); cached.

        The walk is symmetric, so for a node this team may enter the same table gives the hops
        *from* ``target`` too: one table answers "how far is each node from me".
        """
        cached = self._distances.get(target)
        if cached is None:
            cached = self._distances[target] = hop_table(self._graph, target)
        return cached

    def steps_toward(self, node: int, target: int) -> list[int]:
        """The moves from ``node`` that shorten the way to ``target`` (empty if none)."""
        dist = self.distances_to(target)
        here = dist[node]
        return [n for n in self.moves_from(node) if dist[n] >= 0 and (here < 0 or dist[n] < here)]

    # -- updates -------------------------------------------------------------------------------

    def observe(self, agent: int, message: ServerMessage) -> None:
        """Fold one message received by ``agent``'s socket into what the team knows."""
        # Most frequent first: sightings outnumber everything else several times over.
        if isinstance(message, Enemy):
            self._on_enemy(agent, message)
        elif isinstance(message, Moved):
            self._on_moved(agent, message)
        elif isinstance(message, Dungeon):
            self._on_dungeon(agent, message)
        elif isinstance(message, GameOver):
            self.over = True
            self.winner = message.winner

    def _on_dungeon(self, agent: int, message: Dungeon) -> None:
        if not self.adjacency:
            corridors = _corridors(len(message.nodes), message.edges)
            self.adjacency = corridors.adjacency
            self.start = (message.start[0], message.start[1])
            self.shrine = (message.shrine[0], message.shrine[1])
            self.forbidden = frozenset({self.enemy_start, self.enemy_shrine})
            # Only the neighbours of the two barred nodes lose a move.
            self.moves = list(corridors.adjacency)
            for barred in self.forbidden:
                for node in corridors.adjacency[barred]:
                    self.moves[node] = tuple(
                        n for n in corridors.adjacency[node] if n not in self.forbidden
                    )
            self._graph = corridors.moves_matrix(self.forbidden)
        self.location[agent] = self.own_start

    def _on_moved(self, agent: int, message: Moved) -> None:
        self.tick += 1
        self.location[agent] = message.location
        if not message.success:
            if message.reason in ("trap", "attacked"):
                self.deaths[agent] += 1
            return
        if NPC in message.killed:
            self.npcs.discard(message.location)

    def _on_enemy(self, agent: int, message: Enemy) -> None:
        node, entity = message.location, message.agent
        if entity == HEIR:
            if message.seen:
                self.enemy_heir = node
                self.enemy_heir_moved_at = self.tick
            elif self.enemy_heir == node:
                self.enemy_heir = None
            return
        view = self._views[agent]
        if message.seen:
            view.add((node, entity))
            if entity == NPC:
                self.npcs.add(node)
            else:
                self.enemy_last_seen[entity] = (node, self.tick)
            return
        view.discard((node, entity))
        if entity == NPC:
            # NPCs never move: an NPC that drops out of a view the watcher still has is dead.
            here = self.location.get(agent)
            if here is not None and (here == node or node in self.adjacency[here]):
                self.npcs.discard(node)
        else:
            self.enemy_last_seen[entity] = (node, self.tick)


@dataclass(frozen=True)
class _Corridors:
    """A dungeon's corridors both ways, sorted by node: as tuples and as arrays."""

    adjacency: list[tuple[int, ...]]
    heads: npt.NDArray[np.int64]
    tails: npt.NDArray[np.int32]

    def moves_matrix(self, barred: frozenset[int]) -> csr_matrix:
        """Row u holds a 1 for every node u may move to (no corridor into ``barred``)."""
        keep = ~np.isin(self.tails, list(barred))
        heads, tails = self.heads[keep], self.tails[keep]
        count = len(self.adjacency)
        indptr = np.searchsorted(heads, np.arange(count + 1)).astype(np.int32)
        # float64 and int32 are the types scipy's graph routines want: with any other, every
        # search would begin by converting the whole matrix (costlier than the search itself).
        data = np.ones(len(tails), dtype=np.float64)
        return csr_matrix((data, tails.astype(np.int32), indptr), shape=(count, count))


def _corridors(count: int, edges: Sequence[Sequence[int]]) -> _Corridors:
    ends = np.fromiter(chain.from_iterable(edges), dtype=np.int64, count=2 * len(edges))
    indptr, tails = symmetric_csr(ends.reshape(-1, 2), count)
    bounds = indptr.tolist()
    flat = tails.tolist()
    adjacency = [tuple(flat[bounds[u] : bounds[u + 1]]) for u in range(count)]
    heads = np.repeat(np.arange(count), np.diff(indptr))
    return _Corridors(adjacency, heads, tails)
