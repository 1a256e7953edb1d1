"""Dungeon generation (spec dungeon.md section 1), checked as properties over many seeds."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon.config import RulesConfig
from dungeon.generation import corridors, draw_npcs, generate, special_nodes

#: Small dungeons keep the property tests quick; the rules are the same at any size.
SMALL = RulesConfig(nodes=80, radius=0.2)
seeds = st.integers(min_value=0, max_value=2**63)
configs = st.sampled_from([SMALL, RulesConfig(nodes=30, radius=0.3), RulesConfig()])
FEW = settings(max_examples=40, deadline=None)


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def brute_force_corridors(points: list[tuple[float, float]], radius: float) -> list[list[int]]:
    """Every pair strictly closer than ``radius``, by checking all pairs."""
    edges = []
    for (u, (xu, yu)), (v, (xv, yv)) in itertools.combinations(enumerate(points), 2):
        dx, dy = xu - xv, yu - yv
        if dx * dx + dy * dy < radius * radius:
            edges.append([u, v])
    return edges


@FEW
@given(seed=seeds, config=configs)
def test_the_same_seed_gives_the_same_dungeon(seed: int, config: RulesConfig) -> None:
    """Generation is a function of the seed and the configuration alone."""
    first, second = generate(rng(seed), config), generate(rng(seed), config)
    assert np.array_equal(first.positions, second.positions)
    assert np.array_equal(first.edges, second.edges)
    assert (first.start, first.shrine, first.npcs, first.attempts) == (
        second.start,
        second.shrine,
        second.npcs,
        second.attempts,
    )


# Coordinates on a lattice of multiples of 0.05 put many pairs exactly at the radius (0.05, 0.1).
coordinate = st.one_of(
    st.floats(min_value=0, max_value=1),
    st.integers(min_value=0, max_value=20).map(lambda i: i * 0.05),
)
point_sets = st.lists(st.tuples(coordinate, coordinate), min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(points=point_sets, radius=st.sampled_from([0.05, 0.06, 0.1, 0.3]))
def test_corridors_are_exactly_the_pairs_closer_than_the_radius(
    points: list[tuple[float, float]], radius: float
) -> None:
    """The KD-tree finds every pair strictly closer than the radius, and no other."""
    array = np.array(points, dtype=np.float64).reshape(-1, 2)
    assert corridors(array, radius).tolist() == brute_force_corridors(points, radius)


@pytest.mark.parametrize(
    ("points", "radius", "edges"),
    [
        ([(0.0, 0.0), (0.06, 0.0)], 0.06, []),
        ([(0.0, 0.0), (0.0599999, 0.0)], 0.06, [[0, 1]]),
        ([(0.25, 0.5), (0.25, 0.75)], 0.25, []),
        ([(0.5, 0.5), (0.5, 0.5)], 0.01, [[0, 1]]),
    ],
)
def test_a_pair_exactly_at_the_radius_is_no_corridor(
    points: list[tuple[float, float]], radius: float, edges: list[list[int]]
) -> None:
    """ "Closer than" is strict: points exactly one radius apart are not joined."""
    assert corridors(np.array(points), radius).tolist() == edges


@FEW
@given(seed=seeds, config=configs)
def test_edges_are_sorted_pairs_u_less_than_v(seed: int, config: RulesConfig) -> None:
    """Every corridor is listed once, as u < v, in sorted order."""
    edges = generate(rng(seed), config).edges.tolist()
    assert all(u < v for u, v in edges)
    assert edges == sorted(edges)
    assert len(set(map(tuple, edges))) == len(edges)


def expected_special_nodes(points: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    column = [i for i, (x, _) in enumerate(points.tolist()) if 0.45 <= x <= 0.55]
    row = [i for i, (_, y) in enumerate(points.tolist()) if 0.45 <= y <= 0.55]
    start0 = max(column, key=lambda i: points[i, 1])
    shrine0 = min(column, key=lambda i: points[i, 1])
    start1 = min(row, key=lambda i: points[i, 0])
    shrine1 = max(row, key=lambda i: points[i, 0])
    return (start0, start1), (shrine0, shrine1)


@FEW
@given(seed=seeds, config=configs)
def test_starts_and_shrines_follow_the_rule(seed: int, config: RulesConfig) -> None:
    """Team 0: top and bottom of the middle column; team 1: left and right of the middle row."""
    dungeon = generate(rng(seed), config)
    assert (dungeon.start, dungeon.shrine) == expected_special_nodes(dungeon.positions)


def test_the_middle_bands_include_their_bounds() -> None:
    """A node exactly on x = 0.45 or 0.55 (y for team 1) is in the band; a hair outside is not."""
    points = np.array(
        [
            (0.45, 0.90),  # 0: on the column's left bound, highest in it: start 0
            (0.55, 0.10),  # 1: on the column's right bound, lowest in it: shrine 0
            (0.10, 0.45),  # 2: on the row's lower bound, leftmost in it: start 1
            (0.90, 0.55),  # 3: on the row's upper bound, rightmost in it: shrine 1
            (0.4499999, 0.95),  # 4: just left of the column, higher than node 0
            (0.5500001, 0.05),  # 5: just right of the column, lower than node 1
            (0.05, 0.4499999),  # 6: just below the row, further left than node 2
            (0.95, 0.5500001),  # 7: just above the row, further right than node 3
            (0.50, 0.50),  # 8: in both bands, extreme in neither
        ]
    )
    assert special_nodes(points) == ((0, 2), (1, 3))


def test_no_special_nodes_when_a_band_is_empty() -> None:
    """Without a node in the middle column (or row) there is no start: the draw is unplayable."""
    column_empty = np.array([(0.1, 0.5), (0.9, 0.5), (0.2, 0.48)])
    row_empty = np.array([(0.5, 0.1), (0.5, 0.9), (0.48, 0.2)])
    assert special_nodes(column_empty) is None
    assert special_nodes(row_empty) is None


def test_nodes_outside_the_playable_component_stay_in_the_graph() -> None:
    """Nodes the starts and shrines cannot reach are still nodes, with their positions."""
    config = RulesConfig(nodes=40, radius=0.2)
    for seed in range(20):
        dungeon = generate(rng(seed), config)
        graph = dungeon.graph()
        unreached = set(graph) - nx.node_connected_component(graph, dungeon.start[0])
        if unreached:
            assert graph.number_of_nodes() == dungeon.node_count == config.nodes
            assert all(graph.nodes[u]["pos"] == tuple(dungeon.positions[u]) for u in unreached)
            return
    pytest.fail("no seed in 0-19 gave a dungeon with an unreachable node")


@FEW
@given(seed=seeds, config=configs)
def test_special_nodes_are_distinct_and_connected(seed: int, config: RulesConfig) -> None:
    """Both starts and both shrines are four different nodes of one connected component."""
    dungeon = generate(rng(seed), config)
    special = [*dungeon.start, *dungeon.shrine]
    assert len(set(special)) == 4
    graph = dungeon.graph()
    component = nx.node_connected_component(graph, dungeon.start[0])
    assert set(special) <= component


@FEW
@given(seed=seeds, config=configs)
def test_no_npc_stands_on_a_start(seed: int, config: RulesConfig) -> None:
    """NPCs are never placed on either start node."""
    dungeon = generate(rng(seed), config)
    assert not dungeon.npcs & set(dungeon.start)
    assert all(0 <= node < config.nodes for node in dungeon.npcs)


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_an_unplayable_draw_is_replaced_by_a_fresh_point_set(seed: int) -> None:
    """Attempt k's dungeon is the k-th point set drawn; every earlier one was unplayable."""
    config = RulesConfig(nodes=12, radius=0.35)
    dungeon = generate(rng(seed), config)
    mirror = rng(seed)
    for _ in range(dungeon.attempts - 1):
        points = mirror.random((config.nodes, 2))
        special = special_nodes(points)
        if special is not None and len({*special[0], *special[1]}) == 4:
            edges = corridors(points, config.radius)
            graph = nx.Graph(edges.tolist())
            graph.add_nodes_from(range(config.nodes))
            start, shrine = special
            assert not {start[1], *shrine} <= nx.node_connected_component(graph, start[0])
    assert np.array_equal(mirror.random((config.nodes, 2)), dungeon.positions)


def test_some_seeds_need_more_than_one_attempt() -> None:
    """With a dozen nodes many first draws are unplayable, and the attempt count says so."""
    config = RulesConfig(nodes=12, radius=0.35)
    attempts = [generate(rng(seed), config).attempts for seed in range(40)]
    assert max(attempts) > 1
    assert min(attempts) == 1


def test_generation_gives_up_on_an_impossible_configuration() -> None:
    """A configuration that can never be playable fails with a clear error, not a hang."""
    with pytest.raises(ValueError, match="no playable dungeon"):
        generate(rng(0), RulesConfig(nodes=4, radius=1e-9))


@pytest.mark.parametrize(
    ("odds", "expected"),
    [
        # Only the close odds are 1: nodes within 0.25 (bound included) of a shrine get an NPC.
        ({"npc_odds": 0.0, "npc_near_odds": 0.0, "npc_close_odds": 1.0}, {1, 2, 3}),
        # Only the near odds are 1: nodes beyond 0.25 but within 0.5 (bound included).
        ({"npc_odds": 0.0, "npc_near_odds": 1.0, "npc_close_odds": 0.0}, {4}),
        # Only the far odds are 1: nodes beyond 0.5 of both shrines, starts excepted.
        ({"npc_odds": 1.0, "npc_near_odds": 0.0, "npc_close_odds": 0.0}, {5}),
    ],
)
def test_npc_odds_depend_on_the_distance_to_the_nearer_shrine(
    odds: dict[str, float], expected: set[int]
) -> None:
    """A node gets the close odds within the close radius, bound included; a shrine too."""
    config = RulesConfig(npc_close_radius=0.25, npc_near_radius=0.5, **odds)
    points = np.array(
        [
            (0.25, 0.25),  # 0: start 0, 0.25 from shrine 0 (but starts never get an NPC)
            (0.25, 0.5),  # 1: shrine 0
            (0.25, 0.75),  # 2: exactly 0.25 from shrine 0
            (0.75, 0.5),  # 3: shrine 1
            (0.75, 0.0),  # 4: exactly 0.5 from shrine 1
            (0.0, 1.0),  # 5: far from both
            (1.0, 1.0),  # 6: start 1, far from both
        ]
    )
    npcs = draw_npcs(rng(0), points, (0, 6), (1, 3), config)
    assert npcs == expected


def test_npc_frequency_is_about_one_in_twenty_far_from_the_shrines() -> None:
    """Over many dungeons, about 1 node in 20 far from both shrines holds an NPC."""
    far = npc = 0
    for seed in range(30):
        dungeon = generate(rng(seed))
        distances = np.min(
            [np.hypot(*(dungeon.positions - dungeon.positions[h]).T) for h in dungeon.shrine],
            axis=0,
        )
        mask = distances > 0.2
        mask[list(dungeon.start)] = False
        far += int(mask.sum())
        npc += sum(1 for node in dungeon.npcs if mask[node])
    assert 0.04 < npc / far < 0.06


def test_the_graph_carries_positions_and_the_corridors() -> None:
    """graph() is a networkx Graph of every node, with its (x, y) as ``pos``, and every edge."""
    dungeon = generate(rng(7))
    graph = dungeon.graph()
    assert graph.number_of_nodes() == 1000
    assert sorted(map(sorted, graph.edges())) == dungeon.edges.tolist()
    assert graph.nodes[5]["pos"] == tuple(dungeon.positions[5].tolist())
    assert dungeon.graph() is graph
    assert [sorted(graph.adj[u]) for u in range(20)] == [list(a) for a in dungeon.adjacency[:20]]
