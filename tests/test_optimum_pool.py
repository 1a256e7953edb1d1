"""OptimumPool: exact optima from worker processes, a hard kill on timeout, many threads at once."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from dungeon.traps import draw_problem, optimum
from server.optimum_pool import OptimumPool


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


@pytest.fixture(scope="module")
def pool() -> Iterator[OptimumPool]:
    with OptimumPool(workers=2, timeout=60.0) as shared:
        yield shared


def test_check_returns_the_exact_optimum(pool: OptimumPool) -> None:
    """A check answers what optimum() computes in-process, unsatisfiable problems included."""
    generator = rng(2)
    problems = [draw_problem(generator, 20, 85) for _ in range(30)]
    expected = [optimum(problem, 20) for problem in problems]
    assert [pool.check(problem, 20) for problem in problems] == expected
    assert any(value > 0 for value in expected), "some problems cannot be fully disarmed"


def test_check_accepts_lists_of_traps(pool: OptimumPool) -> None:
    """The 8 sign patterns over switches 1-3, given as plain lists, leave one trap at best."""
    problem = [[a * 1, b * 2, c * 3] for a, b, c in itertools.product([1, -1], repeat=3)]
    assert pool.check(problem, 3) == 1


def test_checks_from_many_threads_at_once_get_their_own_answers(pool: OptimumPool) -> None:
    """Concurrent callers (as trio.to_thread.run_sync makes them) each get their problem's value."""
    generator = rng(3)
    problems = [draw_problem(generator, 20, 85) for _ in range(24)]
    with ThreadPoolExecutor(max_workers=6) as threads:
        answers = list(threads.map(lambda problem: pool.check(problem, 20), problems))
    assert answers == [optimum(problem, 20) for problem in problems]


@pytest.mark.parametrize(
    ("traps", "switches"),
    [([[1, 2]], 3), ([[1, 2, 4]], 3), ([[0, 1, 2]], 3)],
)
def test_a_malformed_problem_is_refused(
    pool: OptimumPool, traps: list[list[int]], switches: int
) -> None:
    """A trap that is not 3 literals over the given switches is a ValueError, not a lost worker."""
    with pytest.raises(ValueError, match="not a trap"):
        pool.check(traps, switches)


def test_a_check_over_its_time_limit_is_unknown_and_its_worker_replaced() -> None:
    """A check that runs past the limit answers None; its worker is killed and replaced."""
    # 150 switches and 1500 traps: unsatisfiable, and RC2 needs far more than a second on it.
    hard = draw_problem(rng(0), 150, 1500)
    # The 1 s limit applies to the hard check only: a worker's first check also imports the
    # solver (0.1 s here), and a loaded CI machine must not turn the easy checks into None.
    with OptimumPool(workers=1, timeout=60.0) as pool:
        assert pool.check([[1, 2, 3]], 3) == 0  # the worker is up
        (before,) = pool.worker_pids
        pool.timeout = 1.0
        assert pool.check(hard, 150) is None
        pool.timeout = 60.0
        with pytest.raises(ProcessLookupError):
            os.kill(before, 0)  # killed and reaped
        assert pool.check([[1, 2, 3], [-1, -2, -3]], 3) == 0
        (after,) = pool.worker_pids
        assert after != before


def test_a_closed_pool_refuses_checks_and_stops_its_workers() -> None:
    """After close() (or the with block) no worker process is left and check() raises."""
    with OptimumPool(workers=1, timeout=5.0) as pool:
        (pid,) = pool.worker_pids
    assert pool.worker_pids == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(RuntimeError, match="close"):
        pool.check([[1, 2, 3]], 3)


def test_a_worker_has_pysat_loaded_before_it_says_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solvers' import (a tenth of a second, more on a loaded machine) is part of a worker's
    start-up, which has its own generous limit, not of its first check's time limit."""
    import sys
    import threading
    from multiprocessing import Pipe

    from server.optimum_pool import _READY, _serve

    monkeypatch.delitem(sys.modules, "dungeon.sat")
    parent, child = Pipe()
    worker = threading.Thread(target=_serve, args=(child,))
    worker.start()
    try:
        assert parent.recv() == _READY
        assert "dungeon.sat" in sys.modules
    finally:
        parent.send(None)
        worker.join()
