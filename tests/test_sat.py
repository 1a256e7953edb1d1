"""dungeon.sat: pysat's solvers fed straight through its C extension, and recent verdicts.

MaxSAT goes through pysat's public RC2; only its results are remembered here.

The fast path leans on pysat's internal ``pysolvers`` module; these tests pin that it finds
exactly the models of pysat's public API, so a python-sat upgrade that changes the internals
fails here instead of silently changing the assignments the strategies submit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pysolvers
import pytest
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF
from pysat.solvers import Minicard, Minisat22

from dungeon import sat
from dungeon.traps import draw_problem, is_satisfiable, optimum

SWITCHES, TRAPS = 20, 85


def problems(seed: int, count: int) -> list[list[list[int]]]:
    generator = np.random.Generator(np.random.PCG64(seed))
    return [draw_problem(generator, SWITCHES, TRAPS).tolist() for _ in range(count)]


def public_minisat(clauses: list[list[int]], conflicts: int | None) -> tuple[bool | None, list]:
    with Minisat22() as solver:
        for clause in clauses:
            solver.add_clause(clause)
        if conflicts is None:
            found = solver.solve()
        else:
            solver.conf_budget(conflicts)
            found = solver.solve_limited()
        return found, (solver.get_model() or []) if found else []


def public_minicard(
    clauses: list[list[int]], at_most: list[int], bound: int, conflicts: int
) -> tuple[bool | None, list]:
    with Minicard() as solver:
        for clause in clauses:
            solver.add_clause(clause)
        solver.add_atmost(at_most, bound)
        solver.conf_budget(conflicts)
        found = solver.solve_limited()
        return found, (solver.get_model() or []) if found else []


@pytest.fixture(autouse=True)
def facts() -> Iterator[sat.SatFacts]:
    """Each test plays as one match owning its facts (none from other tests)."""
    with sat.remembering(sat.SatFacts()) as owned:
        yield owned


def count_solvers_made(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """A list that gets one item per MiniSat solver made from now on."""
    made: list[None] = []
    real_new = pysolvers.minisat22_new

    def counting_new() -> object:
        made.append(None)
        return real_new()

    monkeypatch.setattr(pysolvers, "minisat22_new", counting_new)
    return made


@pytest.mark.parametrize("conflicts", [None, 20_000, 3])
def test_minisat_finds_the_public_apis_verdicts_and_models(conflicts: int | None) -> None:
    """Same verdict (None when the budget runs out) and the very same model, problem by problem,
    whether the clauses come as lists, tuples or an int array."""
    verdicts = set()
    for clauses in problems(1, 60):
        expected = public_minisat(clauses, conflicts)
        verdicts.add(expected[0])
        assert sat.minisat(clauses, conflicts) == expected
        assert sat.minisat(tuple(map(tuple, clauses)), conflicts) == expected
        assert sat.minisat(np.array(clauses, dtype=np.int64), conflicts) == expected
    # Both verdicts come up; with 3 conflicts, every unsatisfiable problem is left undecided.
    assert verdicts == ({True, None} if conflicts == 3 else {True, False})


def test_minicard_finds_the_public_apis_verdicts_and_models() -> None:
    """The strategies' one-active-trap relaxation: same verdicts and models as Minicard's API."""
    verdicts = set()
    for clauses in problems(2, 60):
        relax = list(range(SWITCHES + 1, SWITCHES + 1 + len(clauses)))
        relaxed = [[*clause, r] for clause, r in zip(clauses, relax, strict=True)]
        for bound in (0, 1):
            expected = public_minicard(relaxed, relax, bound, 20_000)
            verdicts.add(expected[0])
            assert sat.minicard(relaxed, relax, bound, 20_000) == expected
    assert verdicts == {True, False}


def test_an_empty_problem_is_satisfiable() -> None:
    """No clause: satisfiable, with an empty model, as the public API says."""
    assert sat.minisat([]) == public_minisat([], None) == (True, [])
    assert sat.satisfiable([])


def test_a_problem_proved_unsatisfiable_lately_is_not_solved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """satisfiable() answers False at once for clauses a recent minisat() call proved
    unsatisfiable (given as tuples, lists or an array), and solves any other problem."""
    decided = problems(3, 10)
    verdicts = [public_minisat(clauses, None)[0] for clauses in decided]
    assert set(verdicts) == {True, False}
    for clauses in decided:
        sat.minisat(tuple(map(tuple, clauses)), 20_000)
    solved = count_solvers_made(monkeypatch)
    for clauses, verdict in zip(decided, verdicts, strict=True):
        assert sat.satisfiable(clauses) is verdict
        assert is_satisfiable(np.array(clauses), SWITCHES) is verdict
    assert len(solved) == 2 * verdicts.count(True)


def test_an_undecided_call_leaves_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call whose conflict budget ran out proves nothing, so the next question solves."""
    clauses = next(c for c in problems(5, 50) if public_minisat(c, 1)[0] is None)
    verdict = public_minisat(clauses, None)[0]
    assert sat.minisat(clauses, 1) == (None, [])
    solved = count_solvers_made(monkeypatch)
    assert sat.satisfiable(clauses) is verdict
    assert len(solved) == 1


def test_only_the_latest_verdicts_are_kept(facts: sat.SatFacts) -> None:
    """The memo holds at most FACTS_KEPT problems: a long run does not grow it."""
    for clauses in problems(6, 10 * sat.FACTS_KEPT):
        sat.minisat(clauses)
    assert len(facts.unsatisfiable) == sat.FACTS_KEPT


def test_outside_a_matchs_facts_nothing_is_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict proved under one match's facts is not another's: a fresh context solves."""
    clauses = unsatisfiable_problems(10, 1)[0]
    assert sat.minisat(clauses) == (False, [])
    with sat.remembering(sat.SatFacts()) as other:
        solved = count_solvers_made(monkeypatch)
        assert not sat.satisfiable(clauses)
        assert len(solved) == 1
        assert len(other.unsatisfiable) == 1


def unsatisfiable_problems(seed: int, count: int) -> list[list[list[int]]]:
    return [c for c in problems(seed, 8 * count) if not public_minisat(c, None)[0]][:count]


def false_count(clauses: list[list[int]], model: list[int]) -> int:
    true = set(model)
    return sum(not any(literal in true for literal in clause) for clause in clauses)


def test_maxsat_gives_the_public_rc2s_optimum_and_model() -> None:
    """maxsat() is RC2 over MiniSat 2.2 with every clause soft: its cost, and a model leaving
    exactly that many clauses false, as pysat's RC2 finds them."""
    for clauses in unsatisfiable_problems(7, 6):
        formula = WCNF()
        for clause in clauses:
            formula.append(clause, weight=1)
        with RC2(formula, solver="m22") as rc2:
            model = rc2.compute()
            expected = (rc2.cost, model)
        assert sat.maxsat(clauses) == expected
        assert sat.maxsat(clauses, 50_000) == expected
        assert false_count(clauses, expected[1]) == expected[0] >= 1


def test_an_optimum_proved_lately_is_not_solved_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """least_false() (so optimum()) reuses the cost a recent maxsat() call proved."""
    clauses = unsatisfiable_problems(8, 1)[0]
    cost, _ = sat.maxsat(tuple(map(tuple, clauses)), 50_000)
    solved = count_solvers_made(monkeypatch)
    assert sat.least_false(clauses) == cost
    assert optimum(np.array(clauses), SWITCHES) == cost
    assert solved == []


def test_an_exhausted_maxsat_budget_raises_and_proves_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No conflicts to spend: BudgetExhausted, and the next question solves from scratch."""
    clauses = unsatisfiable_problems(9, 1)[0]
    with pytest.raises(sat.BudgetExhausted):
        sat.maxsat(clauses, 0)
    solved = count_solvers_made(monkeypatch)
    assert sat.least_false(clauses) >= 1
    assert solved != []
