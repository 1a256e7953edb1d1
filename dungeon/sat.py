"""SAT and MaxSAT calls on trap problems: clauses fed straight to pysat's C extension, and the
facts proved on the last few problems.

pysat's public solver classes add one clause per Python call (``Minisat22.add_clause`` wraps the
C ``pysolvers.minisat22_add_cl``) and have no bulk call. A trap problem is 85 clauses, and a
headless match makes some 500 solver calls, so here the clauses go to the same C functions the
classes call, in the same order, through one ``map`` (no Python frame per clause): the solver
sees exactly what the public API would give it, so it finds the same models (and loads a
problem for less than the public API's per-clause calls cost).

This leans on ``pysolvers``, pysat's internal extension module: pyproject.toml pins python-sat's
version range, and ``tests/test_sat.py`` checks that these calls give the public API's models.
MaxSAT is pysat's RC2 as it is (its clause loading is a small part of its cost).

Verdicts: in a headless match the strategy that solves a problem and the optimum figure that
checks it run in one process, so the match owns a :class:`SatFacts` and, while it plays inside
``with remembering(facts):``, :func:`minisat` remembers there the last few problems it proved
unsatisfiable (the figure asks about a problem only when a trap stayed active) and
:func:`satisfiable` answers those without solving them again; likewise :func:`maxsat` the
optima it proved, for :func:`least_false`. Only this module's own solver calls fill them.
The facts in use are a context variable, not a shared table: each match (thread, task) sees
its own or none, so no lock is needed, and outside ``remembering`` nothing is kept.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt
import pysolvers  # pysat's C extension: the solvers behind pysat.solvers
from pysat.examples.rc2 import RC2
from pysat.formula import WCNF

from dungeon.fastcore import FAST_SWITCHES
from dungeon.fastcore import load as load_fastcore

__all__ = [
    "BudgetExhausted",
    "SatFacts",
    "exact_maxsat",
    "least_false",
    "maxsat",
    "minicard",
    "minisat",
    "remembering",
    "satisfiable",
]

Clauses = Sequence[Sequence[int]] | npt.NDArray[np.integer[Any]]

#: How many problems' facts each memo keeps (a headless match asks right after solving).
FACTS_KEPT = 16


class _Recent:
    """A number proved about each of the last FACTS_KEPT problems, found again by comparing
    clauses (no hashing: building a hashable key from lists, then hashing it, costs more than
    comparing). Problems are kept as tuples of tuples: one from the engine or the wire already
    is one, immutable, so it is kept as it is (no copy), and a headless match's figure asks
    about the very object the strategy solved, which one identity check finds first."""

    def __init__(self) -> None:
        self._entries: deque[tuple[Sequence[Sequence[int]], int]] = deque(maxlen=FACTS_KEPT)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, clauses: Sequence[Sequence[int]], value: int) -> None:
        # Our own copy unless immutable: the caller's may change.
        self._entries.append((_frozen(clauses), value))

    def get(self, clauses: Sequence[Sequence[int]]) -> int | None:
        # The very object first: no need to check that it is made of tuples.
        for known, value in reversed(self._entries):
            if known is clauses:
                return value
        clauses = _frozen(clauses)
        for known, value in reversed(self._entries):
            if known == clauses:
                return value
        return None


class SatFacts:
    """What this module's solver calls proved lately, owned by one match: the problems proved
    unsatisfiable, and the optima (fewest false clauses) proved."""

    def __init__(self) -> None:
        self.unsatisfiable = _Recent()
        self.optima = _Recent()

    def proved_optimum(self, clauses: Sequence[Sequence[int]], cost: int) -> None:
        self.optima.add(clauses, cost)
        if cost > 0:
            self.unsatisfiable.add(clauses, 1)


#: The facts the solver calls of this context (a match playing) keep and read; None: none.
_facts: ContextVar[SatFacts | None] = ContextVar("dungeon_sat_facts", default=None)


@contextmanager
def remembering(facts: SatFacts) -> Iterator[SatFacts]:
    """Within the block, this context's solver calls keep their verdicts in ``facts`` and
    :func:`satisfiable` and :func:`least_false` answer from them."""
    token = _facts.set(facts)
    try:
        yield facts
    finally:
        _facts.reset(token)


def _frozen(clauses: Sequence[Sequence[int]]) -> Sequence[Sequence[int]]:
    """``clauses`` as a tuple of tuples: itself when it is one, else a copy."""
    if type(clauses) is tuple and set(map(type, clauses)) <= {tuple}:
        return clauses
    return tuple(map(tuple, clauses))


def _clause_sequence(clauses: Clauses) -> Sequence[Sequence[int]]:
    if isinstance(clauses, np.ndarray):
        as_lists: list[list[int]] = clauses.reshape(-1, 3).tolist()
        return as_lists
    return clauses


def _in_main_thread() -> int:
    # As pysat's MainThread.check(): only the main thread's calls may take over SIGINT.
    return int(threading.current_thread() is threading.main_thread())


def _feed(add: Any, handle: Any, clauses: Iterable[Sequence[int]]) -> None:
    deque(map(add, repeat(handle), clauses), maxlen=0)


def minisat(clauses: Clauses, conflicts: int | None = None) -> tuple[bool | None, list[int]]:
    """One MiniSat 2.2 call, as ``pysat.solvers.Minisat22`` makes it: (True, model), (False,
    []) or, when ``conflicts`` (a budget; None: no limit) runs out, (None, [])."""
    clauses = _clause_sequence(clauses)
    handle = pysolvers.minisat22_new()
    try:
        _feed(pysolvers.minisat22_add_cl, handle, clauses)
        if conflicts is None:
            found = pysolvers.minisat22_solve(handle, [], _in_main_thread())
        else:
            pysolvers.minisat22_cbudget(handle, conflicts)
            found = pysolvers.minisat22_solve_lim(handle, [], _in_main_thread(), 0)
        model: list[int] = (pysolvers.minisat22_model(handle) or []) if found else []
    finally:
        pysolvers.minisat22_del(handle)
    if found is False:
        facts = _facts.get()
        if facts is not None:
            facts.unsatisfiable.add(clauses, 1)
    return found, model


def minicard(
    clauses: Iterable[Sequence[int]], at_most: Sequence[int], bound: int, conflicts: int
) -> tuple[bool | None, list[int]]:
    """One MiniCard call on ``clauses`` and "at most ``bound`` of ``at_most`` true", as
    ``pysat.solvers.Minicard`` makes it: (True, model), (False, []) or (None, []) when the
    ``conflicts`` budget runs out."""
    handle = pysolvers.minicard_new()
    try:
        _feed(pysolvers.minicard_add_cl, handle, clauses)
        pysolvers.minicard_add_am(handle, at_most, bound)
        pysolvers.minicard_cbudget(handle, conflicts)
        found = pysolvers.minicard_solve_lim(handle, [], _in_main_thread(), 0)
        model: list[int] = (pysolvers.minicard_model(handle) or []) if found else []
    finally:
        pysolvers.minicard_del(handle)
    return found, model


def satisfiable(clauses: Clauses) -> bool:
    """Whether some assignment satisfies every clause: False when :func:`minisat` proved these
    very clauses unsatisfiable lately, else one MiniSat 2.2 call with no budget."""
    clauses = _clause_sequence(clauses)
    facts = _facts.get()
    if facts is not None and facts.unsatisfiable.get(clauses) is not None:
        return False
    found, _ = minisat(clauses)
    return bool(found)


class BudgetExhausted(Exception):
    """The MaxSAT search used up its conflict budget before proving an optimum."""


class _BudgetedRC2(RC2):  # type: ignore[misc]
    """RC2 whose SAT calls share one conflict budget (deterministic, unlike a time limit)."""

    def __init__(self, formula: WCNF, conflicts: int) -> None:
        super().__init__(formula, solver="m22")
        self._remaining = conflicts

    def _call_oracle(self, assumptions: Any = (), expect_interrupt: bool = False) -> Any:
        if self._remaining <= 0:
            raise BudgetExhausted
        before = self.oracle.accum_stats().get("conflicts", 0)
        self.oracle.conf_budget(self._remaining)
        result = self.oracle.solve_limited(assumptions=list(assumptions))
        self._remaining -= self.oracle.accum_stats().get("conflicts", 0) - before
        if result is None:
            raise BudgetExhausted
        return result


def maxsat(clauses: Clauses, conflicts: int | None = None) -> tuple[int, list[int]]:
    """RC2 MaxSAT with every clause soft (weight 1): the fewest clauses an assignment can leave
    false, and a model leaving that many. MiniSat 2.2 is RC2's oracle (faster than its default
    Glucose 3 on 20/85 cores). Raises BudgetExhausted when ``conflicts`` (a budget over
    all its SAT calls; None: no limit) runs out."""
    clauses = _clause_sequence(clauses)
    formula = WCNF()
    for clause in clauses:
        formula.append(list(clause), weight=1)
    rc2 = RC2(formula, solver="m22") if conflicts is None else _BudgetedRC2(formula, conflicts)
    try:
        model = rc2.compute()
    finally:
        rc2.delete()
    if model is None:  # only hard clauses can make it infeasible; we have none
        raise AssertionError("RC2 found no assignment for a formula of soft clauses only")
    cost = int(rc2.cost)
    facts = _facts.get()
    if facts is not None:
        facts.proved_optimum(clauses, cost)
    return cost, model


def exact_maxsat(clauses: Sequence[Sequence[int]], switches: int) -> tuple[int, list[bool]] | None:
    """The C branch-and-bound solver (:mod:`dungeon.fastcore`): the fewest clauses an
    assignment can leave false and an assignment leaving that many (one bool a switch, at
    least ``switches`` of them), exact with no budget; None when the extension is absent or
    the problem beyond it (more than FAST_SWITCHES switches, or a shape it does not take). A
    nonzero optimum feeds the memos :func:`least_false` and :func:`satisfiable` read, like
    :func:`maxsat`'s."""
    if switches > FAST_SWITCHES:
        return None
    core = load_fastcore()
    if core is None:
        return None
    found: tuple[int, list[bool]] | None = core.maxsat(clauses, switches)
    if found is None:
        return None
    cost = found[0]
    facts = _facts.get()
    if cost > 0 and facts is not None:  # a figure asks only when a trap stayed active
        facts.proved_optimum(clauses, cost)
    return found


def least_false(clauses: Clauses) -> int:
    """The fewest clauses an assignment can leave false: what :func:`maxsat` proved on these
    very clauses lately, else one :func:`maxsat` call with no budget."""
    clauses = _clause_sequence(clauses)
    facts = _facts.get()
    cost = None if facts is None else facts.optima.get(clauses)
    if cost is not None:
        return cost
    return maxsat(clauses)[0]
