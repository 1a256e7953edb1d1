"""Where matches run: in this process, in a local process pool, or on a Dask cluster.

A backend takes tasks ``(index, function, args)`` and yields ``(index, result)`` as each
finishes, in any order; the runner puts them back in seed order. At most a few tasks per worker
are in flight, so stopping early (SPRT, Ctrl-C) wastes little work, and closing the iterator
cancels what is still pending.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol

__all__ = ["Backend", "DaskBackend", "LocalBackend", "Task"]

Task = tuple[int, Callable[..., Any], tuple[Any, ...]]

#: Tasks in flight per worker: enough to keep every worker busy between two results.
IN_FLIGHT_PER_WORKER = 4


class Backend(Protocol):
    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[int, Any]]: ...

    def describe(self) -> str: ...


class LocalBackend:
    """A process pool on this machine; one worker runs everything in this very process."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        self.workers = workers

    def describe(self) -> str:
        return f"local, {self.workers} worker{'s' if self.workers > 1 else ''}"

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[int, Any]]:
        if self.workers == 1:
            for index, function, args in tasks:
                yield index, function(*args)
            return
        with ProcessPoolExecutor(max_workers=self.workers, initializer=_calm_collector) as pool:
            pending: dict[Future[Any], int] = {}
            queue = iter(tasks)
            try:
                while True:
                    for index, function, args in queue:
                        pending[pool.submit(function, *args)] = index
                        if len(pending) >= self.workers * IN_FLIGHT_PER_WORKER:
                            break
                    if not pending:
                        return
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in sorted(finished, key=pending.__getitem__):
                        yield pending.pop(future), future.result()
            finally:
                for future in pending:
                    future.cancel()


def _calm_collector() -> None:
    """Garbage collection in a pool worker: what it inherited (imports, the loaded game) is
    frozen out of every scan, and a young collection waits for 20,000 net allocations instead
    of 700. A dungeon match allocates and frees far more than that but keeps ~75 objects in
    cycles, so collections all but stop and memory stays bounded by the threshold (figures in
    docs/simulator.md). Dask workers are left as they are: their process is Dask's."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


class DaskBackend:
    """A Dask distributed cluster reached through its scheduler's address.

    Every worker needs this project installed (the same version): tasks name
    ``sim.job.play_job`` by reference, and the games are loaded on the worker.
    """

    def __init__(self, scheduler: str) -> None:
        self.scheduler = scheduler

    def describe(self) -> str:
        return f"dask at {self.scheduler}"

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[int, Any]]:
        from distributed import Client, as_completed

        with Client(self.scheduler, timeout="20s") as client:  # type: ignore[no-untyped-call]
            workers = max(1, sum(client.nthreads().values()))
            pending: dict[Any, int] = {}
            flow = as_completed()  # type: ignore[no-untyped-call]
            queue = iter(tasks)

            def top_up() -> None:
                for index, function, args in queue:
                    future = client.submit(function, *args, pure=False)
                    pending[future] = index
                    flow.add(future)  # type: ignore[no-untyped-call]
                    if len(pending) >= workers * IN_FLIGHT_PER_WORKER:
                        return

            try:
                top_up()
                for future in flow:
                    index = pending.pop(future)
                    yield index, future.result()
                    top_up()
            finally:
                for future in pending:
                    future.cancel()
