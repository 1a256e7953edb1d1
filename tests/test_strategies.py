"""Team strategies as pure objects: trap solving, what a team knows, and the moves they choose.

Graphs here are tiny hand-drawn dungeons; every strategy sees only the messages a socket gets.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from client.strategies.base import STRATEGIES, make_strategy
from client.strategies.knowledge import Knowledge, hop_table
from client.strategies.reference import (
    CHASERS,
    LEAD,
    ONTO,
    PRIOR_KILLS,
    PRIOR_TRIES,
    Race,
    Reference,
)
from client.strategies.rusher import Rusher
from client.strategies.solver import SolverBudget, TrapSolver, active_count, walksat
from dungeon.config import RulesConfig
from dungeon.engine import Match
from protocol.messages import Dungeon, Enemy, GameOver, Moved, Sat

# A 3x3 grid, ids row by row from the top-left; team 0 runs top (1) to bottom (7),
# team 1 runs left (3) to right (5).
#   0 - 1 - 2
#   |   |   |
#   3 - 4 - 5
#   |   |   |
#   6 - 7 - 8
GRID_NODES = [(x / 2, 1 - y / 2) for y in range(3) for x in range(3)]
GRID_EDGES = [(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (7, 8), (0, 3), (3, 6), (1, 4), (4, 7),
              (2, 5), (5, 8)]  # fmt: skip
START, SHRINE = (1, 3), (7, 5)


def dungeon_for(team: int, agent: int) -> Dungeon:
    return Dungeon(team, agent, GRID_NODES, GRID_EDGES, START, SHRINE)


def started(strategy: object, team: int) -> None:
    """Feed a strategy the six `dungeon` messages and the enemy heir's first sighting."""
    for agent in range(6):
        strategy.observe(agent, dungeon_for(team, agent))  # type: ignore[attr-defined]
        strategy.observe(agent, Enemy(START[1 - team], 0, True))  # type: ignore[attr-defined]


def random_traps(rng: random.Random, switches: int, count: int) -> list[list[int]]:
    return [
        [v if rng.random() < 0.5 else -v for v in rng.sample(range(1, switches + 1), 3)]
        for _ in range(count)
    ]


def brute_force_optimum(traps: list[list[int]], switches: int) -> int:
    """The fewest active traps over all 2**switches assignments (every one tried, in numpy)."""
    values = np.array(list(itertools.product([False, True], repeat=switches)))
    clauses = np.array(traps)
    literal_true = values[:, np.abs(clauses) - 1] == (clauses > 0)
    return int((~literal_true.any(axis=2)).sum(axis=1).min())


@pytest.mark.parametrize("seed", range(12))
def test_solver_reaches_the_optimum(seed: int) -> None:
    """The solver leaves exactly as few traps active as the best assignment does."""
    rng = random.Random(seed)
    traps = random_traps(rng, 10, 60)  # ratio 6: mostly unsatisfiable, so RC2 is exercised
    assignment = TrapSolver(seed).solve(traps, 10)
    assert len(assignment) == 10
    assert active_count(traps, assignment) == brute_force_optimum(traps, 10)


def test_solver_reaches_the_optimum_near_the_threshold() -> None:
    """At the threshold ratio (optimum 0 or 1: the SAT and the one-active-trap steps) the
    solver leaves exactly as few traps active as the best assignment does."""
    rng = random.Random(21)
    optima = []
    for _ in range(40):
        traps = random_traps(rng, 10, 45)
        best = brute_force_optimum(traps, 10)
        optima.append(best)
        assert active_count(traps, TrapSolver(1).solve(traps, 10)) == best
    assert {0, 1} <= set(optima)  # both steps were exercised


def test_solver_takes_the_problem_as_the_wire_gives_it() -> None:
    """Traps as tuples (a decoded `sat` message) are solved like lists."""
    rng = random.Random(8)
    traps = random_traps(rng, 10, 50)
    as_tuples = tuple(tuple(trap) for trap in traps)
    assert TrapSolver(2).solve(as_tuples, 10) == TrapSolver(2).solve(traps, 10)


def test_solver_is_deterministic_for_a_seed() -> None:
    """Two solvers with one seed give the same assignments to the same problems."""
    rng = random.Random(3)
    problems = [random_traps(rng, 20, 85) for _ in range(20)]
    first = [TrapSolver(9).solve(p, 20) for p in problems]
    second = [TrapSolver(9).solve(p, 20) for p in problems]
    assert first == second


def test_exhausted_maxsat_budget_falls_back_to_walksat() -> None:
    """With no MaxSAT budget the solver still answers one bool per switch, near the optimum."""
    rng = random.Random(4)
    traps = random_traps(rng, 10, 70)
    solver = TrapSolver(1, SolverBudget(maxsat_conflicts=0, walksat_flips=2000))
    assignment = solver.solve(traps, 10)
    assert len(assignment) == 10
    assert active_count(traps, assignment) <= brute_force_optimum(traps, 10) + 1


def test_walksat_solves_an_easy_formula() -> None:
    """WalkSAT finds a full solution of a formula far below the threshold."""
    rng = random.Random(5)
    traps = random_traps(rng, 20, 30)
    assert active_count(traps, walksat(traps, 20, random.Random(1), flips=5000)) == 0


def test_knowledge_reads_the_dungeon() -> None:
    """`dungeon` gives the graph, the starts, and every agent at its team's start."""
    known = Knowledge(1)
    for agent in range(6):
        known.observe(agent, dungeon_for(1, agent))
    assert known.adjacency[4] == (1, 3, 5, 7)
    assert known.location == dict.fromkeys(range(6), 3)
    assert known.forbidden == {1, 7}
    assert known.moves_from(0) == (3,)


def plain_bfs(adjacency: list[list[int]], barred: set[int], target: int) -> list[int]:
    """Hops to ``target`` by the textbook queue, never entering ``barred`` (the oracle)."""
    dist = [-1] * len(adjacency)
    dist[target] = 0
    queue = [target]
    for node in queue:
        for nxt in adjacency[node]:
            if dist[nxt] < 0 and nxt not in barred:
                dist[nxt] = dist[node] + 1
                queue.append(nxt)
    return dist


@pytest.mark.parametrize("seed", [1, 2])
def test_knowledge_tables_match_a_plain_search_on_a_generated_dungeon(seed: int) -> None:
    """Hop tables (scipy) and steps toward a target agree with a textbook search on a real
    dungeon, barred nodes included."""
    match = Match(seed, RulesConfig(nodes=300, radius=0.11))
    known = Knowledge(1)
    for outbound in match.begin().messages:
        if outbound.to.team == 1:
            known.observe(outbound.to.agent, outbound.message)
    adjacency = [list(neighbours) for neighbours in match.dungeon.adjacency]
    barred = {match.dungeon.start[0], match.dungeon.shrine[0]}
    rng = random.Random(seed)
    for target in [*barred, *rng.sample(range(300), 30)]:
        oracle = plain_bfs(adjacency, barred, target)
        assert list(known.distances_to(target)) == oracle
        for source in rng.sample(range(300), 5):
            if source in barred or oracle[source] <= 0:
                continue
            expected = sorted(
                n for n in known.moves_from(source) if 0 <= oracle[n] < oracle[source]
            )
            assert sorted(known.steps_toward(source, target)) == expected


def test_knowledge_tables_are_symmetric_between_nodes_a_team_may_enter() -> None:
    """The hops from a to b are the hops from b to a for any two nodes the team may enter: the
    reference hunters bound a distance by two hop counts to their shrine on that ground."""
    match = Match(3, RulesConfig(nodes=300, radius=0.11))
    known = Knowledge(0)
    for outbound in match.begin().messages:
        if outbound.to.team == 0:
            known.observe(outbound.to.agent, outbound.message)
    allowed = [node for node in range(300) if node not in known.forbidden]
    rng = random.Random(3)
    home = known.distances_to(known.own_shrine)
    for a, b in zip(rng.sample(allowed, 40), rng.sample(allowed, 40), strict=True):
        assert known.distances_to(a)[b] == known.distances_to(b)[a]
        if known.distances_to(a)[b] >= 0:
            assert abs(home[a] - home[b]) <= known.distances_to(a)[b]


@pytest.mark.parametrize(
    ("edges", "source", "expected"),
    [
        # a lone node, a node with no way out, and one nothing reaches
        ([], 0, [0, -1, -1]),
        ([(1, 0)], 0, [0, -1, -1]),
        ([(0, 1), (1, 2)], 2, [-1, -1, 0]),
        # one-way edges; levels of one, two and one nodes, the second level's children out of
        # node order
        ([(0, 2), (0, 1), (2, 3), (1, 4), (3, 0), (4, 3)], 0, [0, 1, 1, 2, 2]),
        ([(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)], 0, [0, 1, 2, 3, 1]),
    ],
)
def test_hop_table_counts_hops_along_one_way_edges(
    edges: list[tuple[int, int]], source: int, expected: list[int]
) -> None:
    """hop_table follows edges one way only and leaves nodes it never reaches at -1."""
    count = len(expected)
    matrix = np.zeros((count, count))
    for head, tail in edges:
        matrix[head, tail] = 1.0
    assert list(hop_table(csr_matrix(matrix), source)) == expected


def test_knowledge_tracks_sightings() -> None:
    """Enemy henchmen are where they were last seen; a dead NPC is forgotten, a far one kept."""
    known = Knowledge(0)
    for agent in range(6):
        known.observe(agent, dungeon_for(0, agent))
    known.observe(1, Moved(True, 4, [], "crossed"))
    known.observe(1, Enemy(5, 2, True))
    known.observe(1, Enemy(3, -1, True))
    assert known.visible_enemies() == {2: 5}
    assert known.npcs == {3}
    known.observe(1, Enemy(5, 2, False))
    assert known.visible_enemies() == {}
    assert known.enemy_last_seen[2][0] == 5
    known.observe(1, Enemy(3, -1, False))  # the watcher still stands next to 3: the NPC died
    assert known.npcs == set()
    known.observe(2, Moved(True, 0, [], "crossed"))
    known.observe(2, Enemy(3, -1, True))
    known.observe(2, Moved(True, 1, [], "crossed"))
    known.observe(2, Enemy(3, -1, False))  # the watcher walked away: the NPC is still there
    assert known.npcs == {3}


def test_knowledge_follows_the_enemy_heir_and_game_over() -> None:
    """The enemy heir's latest `seen: true` is its place; `game_over` records the winner."""
    known = Knowledge(0)
    known.observe(0, dungeon_for(0, 0))
    known.observe(0, Enemy(3, 0, True))
    known.observe(0, Enemy(3, 0, False))
    known.observe(0, Enemy(4, 0, True))
    assert known.enemy_heir == 4
    known.observe(0, GameOver(1))
    assert (known.over, known.winner) == (True, 1)


def test_rusher_heads_for_shrine_and_enemy_heir() -> None:
    """The rusher's heir steps toward its shrine, its henchmen toward the enemy heir."""
    rusher = Rusher(0, seed=1)
    started(rusher, 0)
    assert rusher.choose_move(0) == 4  # 1 -> 4 -> 7
    assert rusher.choose_move(1) in {0, 4}  # toward the enemy heir at 3
    rusher.observe(1, Moved(True, 0, [], "crossed"))
    assert rusher.choose_move(1) is None  # the enemy heir stands on its start: no entry
    rusher.observe(1, Enemy(3, 0, False))
    rusher.observe(1, Enemy(4, 0, True))
    assert rusher.choose_move(1) == 1  # 0 -> 1 -> 4, never through the enemy start 3


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategies_never_choose_a_forbidden_or_distant_node(name: str) -> None:
    """Over many choices, every strategy only names adjacent nodes the team may enter."""
    strategy = make_strategy(name, 1, seed=2)
    started(strategy, 1)
    rng = random.Random(0)
    for _ in range(200):
        agent = rng.randrange(6)
        here = strategy.knowledge.location[agent]  # type: ignore[attr-defined]
        choice = strategy.choose_move(agent)
        if choice is None:
            continue
        assert choice in strategy.knowledge.adjacency[here]  # type: ignore[attr-defined]
        assert choice not in {START[0], SHRINE[0]}
        strategy.observe(agent, Moved(True, choice, [], "crossed"))


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_strategies_answer_one_bool_per_switch(name: str) -> None:
    """`solve` returns exactly `switches` booleans."""
    strategy = make_strategy(name, 0, seed=3)
    started(strategy, 0)
    traps = random_traps(random.Random(1), 20, 85)
    answer = strategy.solve(0, Sat(4, 20, traps))
    assert len(answer) == 20
    assert all(isinstance(value, bool) for value in answer)


def test_make_strategy_names_the_known_ones() -> None:
    """An unknown strategy name is refused with the list of known names."""
    with pytest.raises(ValueError, match="known: classic, random, reference, rusher"):
        make_strategy("nope", 0, 1)


@pytest.mark.parametrize("name", ["reference", "classic"])
def test_reference_hunter_steps_onto_an_adjacent_enemy_heir(name: str) -> None:
    """A hunter next to the enemy heir steps onto it (here no node it heads to is enterable)."""
    strategy = make_strategy(name, 0, seed=1)
    started(strategy, 0)
    strategy.observe(0, Enemy(3, 0, False))
    strategy.observe(0, Enemy(4, 0, True))
    assert strategy.choose_move(3) == 4


# Two parallel routes for team 0's heir from 0 to its shrine 3, via 1 or via 2; 4 and 7 are
# lookouts beside 1 and 2; team 1 lives at 5 (start) and 6 (shrine).
FORK_NODES = [(0.5, 1.0), (0.4, 0.5), (0.6, 0.5), (0.5, 0.0), (0.2, 0.5), (0.0, 0.5), (1.0, 0.5),
              (0.8, 0.5)]  # fmt: skip
FORK_EDGES = [(0, 1), (0, 2), (1, 3), (2, 3), (1, 4), (4, 5), (2, 7), (7, 6)]


@pytest.mark.parametrize("name", ["reference", "classic"])
@pytest.mark.parametrize(("lookout", "expected"), [(4, 2), (7, 1)])
def test_reference_heir_avoids_a_node_beside_an_enemy(
    name: str, lookout: int, expected: int
) -> None:
    """Of two equally short routes, the heir takes the one with no enemy beside it."""
    strategy = make_strategy(name, 0, seed=1)
    for agent in range(6):
        strategy.observe(agent, Dungeon(0, agent, FORK_NODES, FORK_EDGES, (0, 5), (3, 6)))
        strategy.observe(agent, Enemy(5, 0, True))
    strategy.observe(1, Moved(True, 1 if lookout == 4 else 2, [], "crossed"))
    strategy.observe(1, Enemy(lookout, 2, True))
    assert strategy.choose_move(0) == expected


# The enemy heir's way home is the line 10-11-12-13-14 (team 1: start 10, shrine 14); team 0
# starts at 0, next to 11 and 12, and its shrine 9 lies behind 8.
LINE_NODES = [(0.5, 0.9), *[(0.5, 0.5)] * 7, (0.5, 0.2), (0.5, 0.1),
              (0.1, 0.5), (0.3, 0.5), (0.5, 0.5), (0.7, 0.5), (0.9, 0.5)]  # fmt: skip
LINE_EDGES = [(0, 8), (8, 9), (10, 11), (11, 12), (12, 13), (13, 14), (0, 11), (0, 12)]


def on_the_line(heir_at: int) -> Reference:
    strategy = Reference(0, seed=1)
    for agent in range(6):
        strategy.observe(agent, Dungeon(0, agent, LINE_NODES, LINE_EDGES, (0, 10), (9, 14)))
        strategy.observe(agent, Enemy(10, 0, True))
    if heir_at != 10:
        strategy.observe(0, Enemy(10, 0, False))
        strategy.observe(0, Enemy(heir_at, 0, True))
    return strategy


def test_reference_hunter_leads_the_enemy_heir_by_default() -> None:
    """Next to both the enemy heir (11) and the node it heads to (12), a hunter steps onto 12:
    in real time the heir has mostly left 11 by the time a strike arrives."""
    strategy = on_the_line(11)
    assert strategy.choose_move(1) == 12


def test_reference_hunter_strikes_onto_the_heir_once_the_match_shows_it_kills_more() -> None:
    """The race is measured: a match where strikes onto the heir killed and leads did not
    (the step schedule's way) turns the hunters to strike onto it."""
    strategy = on_the_line(11)
    for _ in range(4):
        strategy.race.record(ONTO, killed=True)
        strategy.race.record(LEAD, killed=False)
    assert strategy.race.first() == ONTO
    assert strategy.choose_move(1) == 11


def test_reference_counts_a_lead_that_killed_the_enemy_heir() -> None:
    """A hunter's `moved` after a strike tells the race whether that kind of strike killed."""
    strategy = on_the_line(11)
    before = (strategy.race.tries[LEAD], strategy.race.kills[LEAD])
    assert strategy.choose_move(1) == 12
    strategy.observe(1, Moved(True, 12, [0], "crossed"))
    assert (strategy.race.tries[LEAD], strategy.race.kills[LEAD]) == (before[0] + 1, before[1] + 1)
    assert strategy.choose_move(2) == 12
    strategy.observe(2, Moved(True, 12, [], "crossed"))
    assert strategy.race.tries[LEAD] == before[0] + 2
    assert strategy.race.kills[LEAD] == before[1] + 1


def test_reference_hunters_with_no_ambush_point_chase_three_at_most() -> None:
    """The enemy heir one step from its shrine (13): no hunter can get beside its way first.
    Three hunters (the nearest, lowest numbers on ties) chase it; the other two wait, sending
    no request that their heir's next move would wait behind."""
    strategy = on_the_line(13)
    moves = {agent: strategy.choose_move(agent) for agent in range(1, 6)}
    assert moves == {1: 12, 2: 12, 3: 12, 4: None, 5: None}
    assert sum(move is not None for move in moves.values()) == CHASERS


def test_reference_race_prior_favours_the_lead_until_strikes_are_seen() -> None:
    race = Race()
    assert race.first() == LEAD
    assert race.rate(LEAD) == PRIOR_KILLS[LEAD] / PRIOR_TRIES[LEAD]


# The enemy heir's way home: 10-11-12-13-14-15 (team 1: start 10, shrine 15); node 2, beside
# 13 and off that way, is two hops from team 0's start 0 (0-1-2); team 0's shrine 9 is behind 8.
AMBUSH_NODES = [(0.5, 0.9), (0.5, 0.8), (0.5, 0.7), *[(0.5, 0.5)] * 5, (0.5, 0.2), (0.5, 0.1),
                (0.1, 0.5), (0.2, 0.5), (0.3, 0.5), (0.5, 0.5), (0.7, 0.5), (0.9, 0.5)]  # fmt: skip
AMBUSH_EDGES = [(0, 1), (1, 2), (2, 13), (0, 8), (8, 9), (10, 11), (11, 12), (12, 13), (13, 14),
                (14, 15)]  # fmt: skip


def test_reference_hunter_goes_to_wait_beside_the_enemy_heir_s_way_home() -> None:
    """A hunter that can reach a spot beside the heir's predicted way before the heir walks
    there, and waits on it (not on the way, where the arriving heir would kill it)."""
    strategy = Reference(0, seed=1)
    for agent in range(6):
        strategy.observe(agent, Dungeon(0, agent, AMBUSH_NODES, AMBUSH_EDGES, (0, 10), (9, 15)))
        strategy.observe(agent, Enemy(10, 0, True))
    assert strategy.choose_move(1) == 1
    strategy.observe(1, Moved(True, 1, [], "crossed"))
    assert strategy.choose_move(1) == 2
    strategy.observe(1, Moved(True, 2, [], "crossed"))
    assert strategy.choose_move(1) is None  # in ambush beside 13
    # the heir one step before 13: the hunter leads it onto 13
    strategy.observe(0, Enemy(10, 0, False))
    strategy.observe(0, Enemy(12, 0, True))
    assert strategy.choose_move(1) == 13


@pytest.mark.parametrize(("henchman", "expected"), [(16, None), (2, 2), (None, 2)])
def test_reference_hunter_on_its_way_waits_beside_an_enemy_henchman_or_strikes_it(
    henchman: int | None, expected: int | None
) -> None:
    """On its way to the spot 2, a hunter at 1 with an enemy henchman beside it (on 16) sends
    nothing: the henchman may step onto it, and a move crossing that kill would be refused. One
    standing on its next step (2) it strikes; with none near it walks on."""
    strategy = Reference(0, seed=1)
    nodes, edges = [*AMBUSH_NODES, (0.4, 0.8)], [*AMBUSH_EDGES, (1, 16)]
    for agent in range(6):
        strategy.observe(agent, Dungeon(0, agent, nodes, edges, (0, 10), (9, 15)))
        strategy.observe(agent, Enemy(10, 0, True))
    assert strategy.choose_move(1) == 1
    strategy.observe(1, Moved(True, 1, [], "crossed"))
    if henchman is not None:
        strategy.observe(1, Enemy(henchman, 2, True))
    assert strategy.choose_move(1) == expected
