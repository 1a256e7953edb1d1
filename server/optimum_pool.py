"""Trap optimum checks in worker processes, with a hard kill when one runs over its time limit.

pysat holds the GIL while it solves and ``RC2.interrupt()`` can overrun a limit by minutes, so
neither a thread nor a signal can stop a long check: only killing the process can. Each worker
runs :func:`dungeon.traps.optimum` on one problem at a time; a check that times out kills its
worker, starts a replacement and answers None ("unknown"), never a wrong number.

``check`` blocks; call it from any number of threads at once (the trio server calls it through
``trio.to_thread.run_sync``, the simulator directly).
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

import structlog

__all__ = ["OptimumPool"]

log = structlog.get_logger()

#: How long a fresh worker may take to import numpy and pysat before it counts as broken.
STARTUP_TIMEOUT = 120.0
_READY = "ready"


def _worker_main(connection: Connection) -> None:
    """A worker process: Ctrl-C reaches the whole process group; the parent stops its workers,
    which must not die on their own mid-check (or print a KeyboardInterrupt traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _serve(connection)


def _serve(connection: Connection) -> None:
    """A worker's loop: receive (traps, switches), send back ("ok", optimum) or ("error", text)."""
    import dungeon.sat  # noqa: F401  (pysat, loaded before "ready": not on the first check's clock)
    from dungeon.traps import optimum

    connection.send(_READY)
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        traps, switches = job
        try:
            connection.send(("ok", optimum(traps, switches)))
        except Exception as error:
            connection.send(("error", f"{type(error).__name__}: {error}"))


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child,), name="optimum-check", daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> bool:
        if not self.ready and self.connection.poll(STARTUP_TIMEOUT):
            self.ready = self.connection.recv() == _READY
        return self.ready

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


class OptimumPool:
    """``workers`` processes answering ``check(traps, switches)`` within ``timeout`` seconds."""

    def __init__(self, workers: int = 1, timeout: float = 20.0) -> None:
        if workers < 1:
            raise ValueError(f"OptimumPool needs at least 1 worker, got {workers}")
        if not timeout > 0:
            raise ValueError(f"OptimumPool timeout must be positive, got {timeout}")
        self.timeout = timeout
        # spawn, not fork: a forked copy of a trio process (threads, sockets) is not safe.
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._closed = False
        self._workers: set[_Worker] = set()
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        for _ in range(workers):
            self._idle.put(self._start_worker())

    def _start_worker(self) -> _Worker:
        worker = _Worker(self._context)
        with self._lock:
            self._workers.add(worker)
        return worker

    def _replace(self, worker: _Worker) -> _Worker:
        with self._lock:
            self._workers.discard(worker)
            closed = self._closed
        worker.kill()
        return worker if closed else self._start_worker()

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for diagnostics)."""
        with self._lock:
            return sorted(worker.process.pid for worker in self._workers)

    def check(self, traps: Sequence[Sequence[int]] | Any, switches: int) -> int | None:
        """The least number of active traps over all assignments, or None if the check timed out
        (or its worker died). Raises ValueError on a malformed problem, RuntimeError once closed.
        """
        clauses = [[int(literal) for literal in trap] for trap in _rows(traps)]
        for clause in clauses:
            if len(clause) != 3 or not all(1 <= abs(lit) <= switches for lit in clause):
                raise ValueError(f"not a trap over {switches} switches: {clause}")
        if self._closed:
            raise RuntimeError("OptimumPool.check() after close()")
        worker = self._idle.get()
        try:
            if not worker.wait_ready():
                log.warning("optimum_worker_not_ready", pid=worker.process.pid)
                worker = self._replace(worker)
                return None
            worker.connection.send((clauses, switches))
            if not worker.connection.poll(self.timeout):
                log.warning(
                    "optimum_check_timeout",
                    timeout=self.timeout,
                    switches=switches,
                    traps=len(clauses),
                    pid=worker.process.pid,
                )
                worker = self._replace(worker)
                return None
            status, value = worker.connection.recv()
        except (EOFError, OSError) as error:
            if self._closed:
                return None
            log.warning("optimum_worker_died", error=repr(error), pid=worker.process.pid)
            worker = self._replace(worker)
            return None
        finally:
            self._idle.put(worker)
        if status != "ok":
            raise ValueError(f"optimum check failed: {value}")
        return int(value)

    def close(self) -> None:
        """Stop every worker (a check still running answers None)."""
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, set()
        for worker in workers:
            worker.kill()

    def __enter__(self) -> OptimumPool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _rows(traps: Any) -> list[Any]:
    tolist = getattr(traps, "tolist", None)
    return list(tolist() if callable(tolist) else traps)
