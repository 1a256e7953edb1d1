"""One SAT call on a trap problem, fed straight to pysat's C extension, and recent verdicts.

pysat's public solver classes add one clause per Python call (``Minisat22.add_clause`` wraps the
C ``pysolvers.minisat22_add_cl``) and have no bulk call. A trap problem is 85 clauses, and a
headless match makes some 500 solver calls, so here the clauses go to the same C functions the
classes call, in the same order, through one ``map`` (no Python frame per clause): the solver
sees exactly what the public API would give it, so it finds the same models. Measured by
valgrind on 20/85 problems: 262k instead of 316k instructions to load a problem.

This leans on ``pysolvers``, pysat's internal extension module: pyproject.toml pins python-sat's
version range, and ``tests/test_sat.py`` checks that these calls give the public API's models.

Verdicts: in a headless match the strategy that solves a problem and the optimum figure that
checks it run in one process, so :func:`minisat` remembers the last few problems it proved
unsatisfiable (the figure asks about a problem only when a trap stayed active) and
:func:`satisfiable` answers those without solving them again.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt
import pysolvers  # pysat's C extension: the solvers behind pysat.solvers

__all__ = ["minicard", "minisat", "satisfiable"]

Clauses = Sequence[Sequence[int]] | npt.NDArray[np.integer[Any]]

#: How many unsatisfiable problems :func:`minisat` keeps (a headless match asks right after).
UNSATISFIABLE_KEPT = 16
_Key = tuple[tuple[int, ...], ...]
_unsatisfiable: set[_Key] = set()
_unsatisfiable_lock = threading.Lock()


def _clause_sequence(clauses: Clauses) -> Sequence[Sequence[int]]:
    if isinstance(clauses, np.ndarray):
        as_lists: list[list[int]] = clauses.reshape(-1, 3).tolist()
        return as_lists
    return clauses


def _key(clauses: Sequence[Sequence[int]]) -> _Key:
    return tuple(map(tuple, clauses))


def _remember_unsatisfiable(clauses: Sequence[Sequence[int]]) -> None:
    key = _key(clauses)
    with _unsatisfiable_lock:
        if len(_unsatisfiable) >= UNSATISFIABLE_KEPT:
            # Forget all at once: evicting the oldest would hash its key again (~3 us).
            _unsatisfiable.clear()
        _unsatisfiable.add(key)


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
        _remember_unsatisfiable(clauses)
    return found, model


def minicard(
    clauses: Sequence[Sequence[int]], at_most: Sequence[int], bound: int, conflicts: int
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
    key = _key(clauses)
    with _unsatisfiable_lock:
        if key in _unsatisfiable:
            return False
    found, _ = minisat(clauses)
    return bool(found)
