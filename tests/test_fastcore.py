"""dungeon._fastcore: the C MaxSAT search and hop tables against pysat, brute force and scipy,
the engine's trap draws and active-trap counts against their numpy path, and the pure path
when the extension is hidden.

The C optimum must equal pysat's (RC2) on random problems of many sizes, equal brute force on
small ones, and its assignment must leave exactly that many traps active: the headless
figures (mean active traps, optima) depend on nothing else.
"""

from __future__ import annotations

import copy
import itertools
import logging
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

from client.strategies.knowledge import hop_table, hop_table_pure
from client.strategies.solver import TrapSolver
from dungeon import fastcore, sat, traps
from dungeon.traps import active_traps, draw_problem, draw_traps

core = pytest.importorskip("dungeon._fastcore")


def assignment_of(assignment: list[bool], switches: int) -> list[bool]:
    assert all(type(value) is bool for value in assignment)
    return assignment[:switches] + [False] * (switches - len(assignment))


def brute_force(clauses: list[list[int]], switches: int) -> int:
    best = len(clauses)
    for bits in itertools.product((False, True), repeat=switches):
        best = min(best, active_traps(clauses, bits))
    return best


@settings(max_examples=150)
@given(
    seed=st.integers(0, 2**32 - 1),
    switches=st.integers(3, 24),
    ratio=st.floats(0.0, 8.0),
)
def test_c_optimum_equals_pysat_and_its_assignment_achieves_it(
    seed: int, switches: int, ratio: float
) -> None:
    """20 random problems an example (3,000 in all) of 3-24 switches, up to 8 traps a switch."""
    generator = np.random.Generator(np.random.PCG64(seed))
    traps = round(ratio * switches)
    for _ in range(20):
        clauses = draw_problem(generator, switches, traps).tolist()
        found = core.maxsat([tuple(clause) for clause in clauses], switches)
        assert found is not None
        cost, model = found
        assert len(model) == switches
        expected = sat.maxsat(clauses)[0] if clauses else 0
        assert cost == expected
        assert active_traps(clauses, assignment_of(model, switches)) == cost


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    switches=st.integers(25, fastcore.FAST_SWITCHES),
    ratio=st.floats(0.0, 7.0),
)
@example(seed=1, switches=25, ratio=6.0)
@example(seed=2, switches=fastcore.FAST_SWITCHES, ratio=7.0)
def test_c_optimum_equals_pysat_up_to_the_largest_problems_it_takes(
    seed: int, switches: int, ratio: float
) -> None:
    """5 random problems an example (150 in all) of 25-32 switches, up to 7 traps a switch: up
    to FAST_SWITCHES, the largest problems the callers give the C search (beyond, pysat)."""
    generator = np.random.Generator(np.random.PCG64(seed))
    traps = round(ratio * switches)
    for _ in range(5):
        clauses = draw_problem(generator, switches, traps).tolist()
        found = core.maxsat([tuple(clause) for clause in clauses], switches)
        assert found is not None
        cost, model = found
        assert len(model) == switches
        assert cost == (sat.maxsat(clauses)[0] if clauses else 0)
        assert active_traps(clauses, assignment_of(model, switches)) == cost


@settings(max_examples=100)
@given(
    seed=st.integers(0, 2**32 - 1),
    switches=st.integers(3, 8),
    traps=st.integers(0, 70),
)
def test_c_optimum_equals_brute_force_on_small_problems(
    seed: int, switches: int, traps: int
) -> None:
    clauses = draw_problem(np.random.Generator(np.random.PCG64(seed)), switches, traps).tolist()
    cost, model = core.maxsat(clauses)
    assert cost == brute_force(clauses, switches)
    assert active_traps(clauses, assignment_of(model, switches)) == cost


@given(
    clauses=st.lists(
        st.lists(st.integers(1, 6), min_size=0, max_size=4, unique=True).flatmap(
            lambda variables: st.tuples(*(st.sampled_from((v, -v)) for v in variables))
        ),
        max_size=30,
    )
)
def test_clauses_of_any_width_empty_ones_included(clauses: list[tuple[int, ...]]) -> None:
    """Widths 0-4 (an empty clause is false under every assignment), checked by brute force."""
    switches = max((abs(literal) for clause in clauses for literal in clause), default=0)
    cost, model = core.maxsat(clauses)
    best = len(clauses)
    for bits in itertools.product((False, True), repeat=switches):
        left = sum(1 for c in clauses if not any(bits[abs(x) - 1] == (x > 0) for x in c))
        best = min(best, left)
    assert cost == best
    values = assignment_of(model, switches)
    assert sum(1 for c in clauses if not any(values[abs(x) - 1] == (x > 0) for x in c)) == cost


@pytest.mark.parametrize(
    "clauses",
    [
        [(1, 1, 2)],  # a variable twice in a clause
        [(1, 2, 3, 4, 5, 6, 7, 8, 9)],  # wider than MAX_WIDTH
        [(1, 2, core.MAX_VARS + 1)],  # more variables than it takes
        [(1, 0, 2)],  # 0 is no literal
        [(1, True, 2)],
        [(1, 2.0, 3)],
    ],
)
def test_shapes_it_does_not_take_send_the_caller_to_the_pure_path(clauses: list) -> None:
    assert core.maxsat(clauses) is None


def test_not_a_sequence_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        core.maxsat(5)
    with pytest.raises(TypeError):
        core.maxsat()
    with pytest.raises(TypeError):
        core.maxsat([5])


@settings(max_examples=200)
@given(
    nodes=st.integers(1, 40),
    edges=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=120),
    source=st.integers(0, 39),
)
def test_c_hop_tables_equal_scipy(nodes: int, edges: list[tuple[int, int]], source: int) -> None:
    """One-way edges, unreachable nodes, self loops and repeated edges included."""
    kept = sorted({(u, v) for u, v in edges if u < nodes and v < nodes})
    rows = [u for u, _ in kept]
    cols = [v for _, v in kept]
    graph = csr_matrix(
        (np.ones(len(kept)), (np.array(rows, dtype=np.int32), np.array(cols, dtype=np.int32))),
        shape=(nodes, nodes),
    )
    graph.indptr = graph.indptr.astype(np.int32)
    graph.indices = graph.indices.astype(np.int32)
    source %= nodes
    assert list(hop_table(graph, source)) == list(hop_table_pure(graph, source))


def pure_draw(generator: np.random.Generator, switches: int, count: int) -> tuple:
    """The engine's draw on its numpy path (dungeon/traps.py without the extension)."""
    table, _ = traps._clause_table(switches)
    return tuple(table.take(traps._draw_kinds(generator, switches, count)).tolist())


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**64 - 1),
    switches=st.integers(3, traps._CLAUSE_TABLE_SWITCHES),
    count=st.integers(0, 300),
)
def test_c_draw_gives_the_numpy_draws_traps_and_leaves_the_same_state(
    seed: int, switches: int, count: int
) -> None:
    """Two draws in a row (the second from the state the first left), then the next double:
    the compiled draw makes the very calls numpy's random_raw makes."""
    compiled = np.random.Generator(np.random.PCG64(seed))
    numpy_path = copy.deepcopy(compiled)
    for _ in range(2):
        assert draw_traps(compiled, switches, count).traps == pure_draw(numpy_path, switches, count)
    assert compiled.bit_generator.state == numpy_path.bit_generator.state
    assert compiled.random() == numpy_path.random()


@pytest.mark.parametrize("highest", [2**62, 2**63, 2**64 - 2**60])
def test_c_draw_redraws_words_above_highest_in_order(highest: int) -> None:
    """With a low bound many words are redrawn: the same replacements as _redraw makes."""
    for seed in range(20):
        compiled = np.random.Generator(np.random.PCG64(seed))
        numpy_path = copy.deepcopy(compiled)
        kinds = traps.trap_kinds(20)
        drawn = core.draw_traps(
            compiled.bit_generator.capsule, 300, kinds, highest, traps._trap_list(20)
        )
        words = numpy_path.bit_generator.random_raw(300)
        if np.maximum.reduce(words) > highest:
            words = traps._redraw(numpy_path, words, np.uint64(highest))
        table, _ = traps._clause_table(20)
        assert drawn == tuple(table.take(words % np.uint64(kinds)).tolist())
        assert compiled.bit_generator.state == numpy_path.bit_generator.state


def test_c_draw_refuses_what_it_cannot_draw() -> None:
    capsule = np.random.Generator(np.random.PCG64(1)).bit_generator.capsule
    table = traps._trap_list(3)
    with pytest.raises(ValueError, match="fewer entries"):
        core.draw_traps(capsule, 5, len(table) + 1, 2**64 - 1, table)
    with pytest.raises(ValueError, match="kinds > 0"):
        core.draw_traps(capsule, 5, 0, 2**64 - 1, table)
    with pytest.raises(ValueError, match="PyCapsule"):
        core.draw_traps(object(), 5, 48, 2**64 - 1, table)
    with pytest.raises(TypeError):
        core.draw_traps(capsule, 5, 48, 2**64 - 1)


@settings(max_examples=100)
@given(seed=st.integers(0, 2**32 - 1), switches=st.integers(3, 24), count=st.integers(0, 120))
def test_c_active_count_equals_numpy(seed: int, switches: int, count: int) -> None:
    """The engine's count of active traps, in C and by numpy, for 10 assignments a problem."""
    generator = np.random.Generator(np.random.PCG64(seed))
    problem = draw_traps(generator, switches, count)
    for _ in range(10):
        values = [bool(v) for v in generator.integers(0, 2, switches)]
        expected = active_traps(problem.traps, values) if count else 0
        assert core.active(problem.traps, values) == expected
        assert problem.active(values) == expected
        assert problem.active(tuple(values)) == expected


@pytest.mark.parametrize(
    ("clauses", "values"),
    [
        ([(1, 2, 3)], [1, 0, 0]),  # ints for bools: the pure path reads them
        ([(1, 2, 4)], [True, False, False]),  # a switch the assignment does not have
        ([[1, 2, 3]], [True, False, False]),  # a clause that is not a tuple
        ([(1, 0, 2)], [True, False, False]),
        ([(1, True, 2)], [True, False, False]),
    ],
)
def test_c_active_leaves_what_it_does_not_read_to_the_pure_path(
    clauses: list, values: list
) -> None:
    assert core.active(clauses, values) is None


def test_hops_refuses_inconsistent_buffers() -> None:
    from array import array

    out = array("i", [0]) * 3
    with pytest.raises(ValueError, match="indptr"):
        core.hops(np.array([0, 1], dtype=np.int32), np.array([1], dtype=np.int32), 0, out)
    with pytest.raises(TypeError, match="int32"):
        core.hops(np.array([0, 0, 0, 0]), np.array([], dtype=np.int32), 0, out)


@pytest.fixture
def hidden_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    """dungeon._fastcore as if it were not built: its import fails."""
    monkeypatch.setitem(sys.modules, "dungeon._fastcore", None)
    fastcore.reset()
    yield
    fastcore.reset()


@pytest.mark.usefixtures("hidden_extension")
def test_without_the_extension_the_pure_path_solves_with_one_notice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    generator = np.random.Generator(np.random.PCG64(5))
    solver = TrapSolver(seed=1)
    with caplog.at_level(logging.WARNING, logger="dungeon"):
        for _ in range(30):
            clauses = draw_problem(generator, 20, 85).tolist()
            assert sat.exact_maxsat(clauses, 20) is None
            assignment = solver.solve(clauses, 20)
            assert active_traps(clauses, assignment) == sat.maxsat(clauses)[0]
    notices = [r for r in caplog.records if "dungeon._fastcore" in r.getMessage()]
    assert len(notices) == 1
    assert notices[0].levelno == logging.WARNING
    graph = csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    assert list(hop_table(graph, 0)) == [0, 1, 2]
    problem = draw_traps(np.random.Generator(np.random.PCG64(3)), 20, 85)
    assert problem.kinds is not None  # drawn by numpy
    assert problem.traps == pure_draw(np.random.Generator(np.random.PCG64(3)), 20, 85)
    values = [True, False] * 10
    assert problem.active(values) == active_traps(problem.traps, values)


@pytest.mark.parametrize(
    ("value", "built"), [("0", False), (" 0 ", False), ("1", True), ("", True)]
)
def test_dungeon_fastcore_0_switches_the_extension_off_with_one_notice(
    value: str, built: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """DUNGEON_FASTCORE=0 (read at the first load of a process) takes the pure path, saying so
    once; any other value, or none, loads the built extension."""
    monkeypatch.setenv(fastcore.SWITCH, value)
    fastcore.reset()
    try:
        with caplog.at_level(logging.INFO, logger="dungeon"):
            assert (fastcore.load() is core) is built
            assert (fastcore.load() is core) is built
            assert (sat.exact_maxsat([(1, 2, 3)], 3) is not None) is built
    finally:
        fastcore.reset()
    notices = [r for r in caplog.records if "dungeon._fastcore" in r.getMessage()]
    assert len(notices) == (0 if built else 1)
    assert all(r.levelno < logging.ERROR for r in notices)


def test_with_the_extension_the_solver_is_exact_and_feeds_the_figures_memo() -> None:
    generator = np.random.Generator(np.random.PCG64(8))
    solver = TrapSolver(seed=1)
    with sat.remembering(sat.SatFacts()):  # as a headless match plays
        for _ in range(50):
            clauses = tuple(map(tuple, draw_problem(generator, 20, 85).tolist()))
            assignment = solver.solve(clauses, 20)
            cost = active_traps(clauses, assignment)
            assert cost == sat.maxsat(clauses)[0]
            if cost:  # the figure's question is answered from the memo, the same value
                assert sat.least_false(clauses) == cost
                assert not sat.satisfiable(clauses)


def test_above_fast_switches_the_pure_path_answers() -> None:
    clauses = [(1, 2, fastcore.FAST_SWITCHES + 1)]
    assert sat.exact_maxsat(clauses, fastcore.FAST_SWITCHES + 1) is None
    assert active_traps(clauses, TrapSolver(seed=1).solve(clauses, fastcore.FAST_SWITCHES + 1)) == 0
