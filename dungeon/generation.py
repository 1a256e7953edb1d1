"""Dungeon generation (spec dungeon.md section 1): points, KD-tree corridors, starts, shrines, NPCs.

The hot path is numpy and scipy only (about 1 ms for 1000 nodes); the adjacency tuples that the
engine walks and the networkx graph are built on first use and cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order
from scipy.spatial import cKDTree

from dungeon.config import DEFAULT_RULES, RulesConfig

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "MAX_ATTEMPTS",
    "Dungeon",
    "Views",
    "corridors",
    "draw_npcs",
    "generate",
    "special_nodes",
    "symmetric_csr",
]

#: Playability retries before generation gives up on a configuration (the spec's defaults
#: need 1-2 attempts; only absurd configurations, e.g. a tiny radius, ever get near this).
MAX_ATTEMPTS = 10_000
#: The middle bands where starts and shrines are chosen (fixed by the spec, inclusive).
BAND_LOW, BAND_HIGH = 0.45, 0.55

Points = npt.NDArray[np.float64]
Edges = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Dungeon:
    """One generated dungeon: immutable; nodes are indices into ``positions``."""

    #: (n, 2) coordinates in the unit square, y upward.
    positions: Points
    #: (m, 2) corridors, each row u < v, rows sorted.
    edges: Edges
    #: (start of team 0, start of team 1) and (shrine of team 0, shrine of team 1).
    start: tuple[int, int]
    shrine: tuple[int, int]
    #: Nodes holding an NPC at the beginning of the match.
    npcs: frozenset[int]
    #: Point sets drawn until the special nodes were distinct and connected (1 = first try).
    attempts: int
    #: CSR form of the symmetric adjacency: neighbours of u are indices[indptr[u]:indptr[u+1]].
    indptr: npt.NDArray[np.int32] = field(repr=False)
    indices: npt.NDArray[np.int32] = field(repr=False)

    @property
    def node_count(self) -> int:
        return int(self.positions.shape[0])

    @cached_property
    def adjacency(self) -> tuple[tuple[int, ...], ...]:
        """Sorted neighbours of every node, as plain tuples for the engine's hot paths."""
        targets = self.indices.tolist()
        bounds = self.indptr.tolist()
        return tuple(tuple(targets[bounds[u] : bounds[u + 1]]) for u in range(self.node_count))

    @cached_property
    def views(self) -> Views:
        """What an agent on each node sees: the node and its neighbours (node -> frozenset)."""
        return Views(self.adjacency)

    def graph(self) -> nx.Graph:
        """The dungeon as a networkx Graph, a ``pos`` (x, y) attribute on every node (cached)."""
        return self._graph

    @cached_property
    def _graph(self) -> nx.Graph:
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(
            (u, {"pos": (x, y)}) for u, (x, y) in enumerate(self.positions.tolist())
        )
        graph.add_edges_from(self.edges.tolist())
        return graph

    def hops(self, source: int, *, avoid: frozenset[int] = frozenset()) -> list[int | None]:
        """Fewest corridors from ``source`` to each node, never entering ``avoid`` (None: none)."""
        distance: list[int | None] = [None] * self.node_count
        distance[source] = 0
        frontier = [source]
        depth = 0
        adjacency = self.adjacency
        while frontier:
            depth += 1
            following = []
            for u in frontier:
                for v in adjacency[u]:
                    if distance[v] is None and v not in avoid:
                        distance[v] = depth
                        following.append(v)
            frontier = following
        return distance


class Views(dict[int, frozenset[int]]):
    """Node -> the node and its neighbours, each set made the first time it is asked for.

    Agents stand on only ~100-250 of a 1000-node dungeon's nodes in a match, so only those
    views are ever made.
    """

    def __init__(self, adjacency: Sequence[tuple[int, ...]]) -> None:
        super().__init__()
        self._adjacency = adjacency

    def __missing__(self, node: int) -> frozenset[int]:
        view = self[node] = frozenset((node, *self._adjacency[node]))
        return view


def corridors(points: Points, radius: float) -> Edges:
    """Every pair of points strictly closer than ``radius``, as sorted (u < v) rows.

    "Closer" means dx*dx + dy*dy < radius*radius in float64. The KD-tree reports pairs at most
    its radius apart (<=), with its own rounding, so it is asked for a hair more and the exact
    rule is applied to what it returns.
    """
    n = len(points)
    # An unbalanced, uncompacted tree builds faster and answers this one query just as fast.
    tree = cKDTree(points, balanced_tree=False, compact_nodes=False)
    pairs = tree.query_pairs(radius * (1 + 1e-9), output_type="ndarray").astype(np.int64)
    low, high = pairs.T.copy()  # contiguous columns index several times faster
    xs, ys = points[:, 0].copy(), points[:, 1].copy()
    dx = xs[low] - xs[high]
    dy = ys[low] - ys[high]
    keep = dx * dx + dy * dy < radius * radius
    low, high = low[keep], high[keep]
    key = np.minimum(low, high) * n + np.maximum(low, high)
    key.sort()
    return np.stack([key // n, key % n], axis=1)


def special_nodes(points: Points) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(starts, shrines) by the spec's rule, or None when a middle band holds no node.

    The spec leaves ties open (two nodes with the same extreme coordinate, which random floats
    all but never draw): argmax/argmin take the lowest node id, the same on every machine.
    """
    xs, ys = points[:, 0], points[:, 1]
    column = np.flatnonzero((xs >= BAND_LOW) & (xs <= BAND_HIGH))
    row = np.flatnonzero((ys >= BAND_LOW) & (ys <= BAND_HIGH))
    if len(column) == 0 or len(row) == 0:
        return None
    start0 = int(column[np.argmax(ys[column])])
    shrine0 = int(column[np.argmin(ys[column])])
    start1 = int(row[np.argmin(xs[row])])
    shrine1 = int(row[np.argmax(xs[row])])
    return (start0, start1), (shrine0, shrine1)


def symmetric_csr(edges: Edges, n: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """The CSR form of ``edges`` (rows u, v) taken both ways over ``n`` nodes: ``indptr`` and
    the neighbours, each node's sorted (one int64 key a directed edge, one sort)."""
    source = np.concatenate([edges[:, 0], edges[:, 1]])
    target = np.concatenate([edges[:, 1], edges[:, 0]])
    key = source * n + target
    key.sort()
    indptr = np.searchsorted(key, np.arange(n + 1, dtype=np.int64) * n)
    # int32, the index type scipy's sparse matrices use, so building one copies nothing.
    return indptr.astype(np.int32), (key % n).astype(np.int32)


def draw_npcs(
    rng: np.random.Generator,
    points: Points,
    start: tuple[int, int],
    shrine: tuple[int, int],
    config: RulesConfig,
) -> frozenset[int]:
    """The NPC nodes: odds by distance to the nearer shrine ("within" includes the bound).

    One draw per node, starts included (they never get an NPC), so the number of draws never
    depends on the layout.
    """
    roll = rng.random(len(points))
    nearest = np.full(len(points), np.inf)
    for node in shrine:
        delta = points - points[node]
        nearest = np.minimum(nearest, delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1])
    odds = np.where(
        nearest <= config.npc_close_radius**2,
        config.npc_close_odds,
        np.where(nearest <= config.npc_near_radius**2, config.npc_near_odds, config.npc_odds),
    )
    has_npc = roll < odds
    has_npc[list(start)] = False
    return frozenset(np.flatnonzero(has_npc).tolist())


def generate(rng: np.random.Generator, config: RulesConfig = DEFAULT_RULES) -> Dungeon:
    """Draw a playable dungeon from ``rng``: point sets until playable, then the NPCs.

    Raises ValueError if no playable point set turns up in MAX_ATTEMPTS attempts.
    """
    n = config.nodes
    for attempt in range(1, MAX_ATTEMPTS + 1):
        points = rng.random((n, 2))
        special = special_nodes(points)
        if special is None:
            continue
        start, shrine = special
        if len({*start, *shrine}) < 4:
            continue
        edges = corridors(points, config.radius)
        indptr, indices = symmetric_csr(edges, n)
        graph = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n))
        reached = breadth_first_order(graph, start[0], directed=True, return_predecessors=False)
        component = np.zeros(n, dtype=bool)
        component[reached] = True
        if not component[[start[1], shrine[0], shrine[1]]].all():
            continue
        return Dungeon(
            positions=points,
            edges=edges,
            start=start,
            shrine=shrine,
            npcs=draw_npcs(rng, points, start, shrine, config),
            attempts=attempt,
            indptr=indptr,
            indices=indices,
        )
    raise ValueError(
        f"no playable dungeon in {MAX_ATTEMPTS} attempts with nodes={n}, radius={config.radius}"
    )
