"""Keeps Python's cyclic garbage collector out of the server's answer times.

CPython's collector pauses the whole process to scan every container object it tracks. A server
holding 50 matches tracks about 160,000 (each match's dungeon alone has a thousand neighbour
sets; then the sockets' tasks and coroutines), and a full scan took 90-105 ms of CPU: one to
three such pauses every 6 s of play, each holding up every request in flight, were a large part
of the server's p99 (160 ms at 50 matches of 250 ms bots, with the core 73% busy).

Nearly all those objects live as long as their match, so the policy is to move them out of the
collector's sight once they exist: :func:`gc.freeze` after start-up (modules, the server) and
after each match is prepared (its engine and dungeon). Frozen objects are still freed by
reference counting when their match ends; only those caught in a reference cycle would stay
(the server breaks its own cycles when a match ends, see ``MatchActor._release``; a test checks
that finished matches leave nothing behind). As a safety net, every ``full_every`` prepared
matches the frozen objects are handed back and one full collection runs: one pause of the old
kind per thousand matches instead of one every few seconds.

Process-wide state: only entry points that own the process (``arena serve``, the benchmark's
server) use it; a server inside tests or ``arena match`` leaves the collector alone.
"""

from __future__ import annotations

import gc

__all__ = ["FULL_EVERY", "Collector"]

#: Prepared matches between two full collections (frozen objects handed back and scanned).
FULL_EVERY = 1000


class Collector:
    """The garbage collection policy of a long-running server process (see the module)."""

    def __init__(self, *, full_every: int = FULL_EVERY) -> None:
        if full_every < 1:
            raise ValueError(f"full_every must be >= 1, got {full_every}")
        self.full_every = full_every
        self.prepared = 0
        #: Full collections run by the policy (start-up and safety net).
        self.full_collections = 0

    def started(self) -> None:
        """The server is up: what exists now (modules, the server itself) lives for ever."""
        self._collect_and_freeze()

    def match_prepared(self) -> None:
        """A match's engine and dungeon exist: freeze them (and the safety net, now and then)."""
        self.prepared += 1
        if self.prepared % self.full_every == 0:
            gc.unfreeze()
            self._collect_and_freeze()
        else:
            gc.freeze()

    def stopped(self) -> None:
        """The server is done: hand every frozen object back to the collector."""
        gc.unfreeze()

    def _collect_and_freeze(self) -> None:
        gc.collect()
        gc.freeze()
        self.full_collections += 1
