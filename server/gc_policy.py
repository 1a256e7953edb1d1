"""Keeps Python's cyclic garbage collector out of the server's answer times.

CPython's collector pauses the whole process to scan every container object it tracks. A server
holding many matches tracks a great many (each match's dungeon alone has a thousand neighbour
sets; then the sockets' tasks and coroutines), and each full scan holds up every request in
flight: a large part of the server's p99 (the figures are in docs/server.md).

Nearly all those objects live as long as their match, so the policy is to move them out of the
collector's sight once they exist: :func:`gc.freeze` after start-up (modules, the server) and
after each match is prepared (its engine and dungeon). Frozen objects are still freed by
reference counting when their match ends; only those caught in a reference cycle would stay
(the server breaks its own cycles when a match ends, see ``MatchActor._release``; a test checks
that finished matches leave nothing behind). As a safety net, every ``full_every`` prepared
matches the frozen objects are handed back and one full collection runs: one pause of the old
kind per thousand matches instead of one every few seconds.

Automatic (young) collections are off while the server runs. CPython starts one when tracked
allocations exceed deallocations by 700; in a server whose requests each create and free about
as many objects, that happens rarely, and then the young generation holds everything created
since the last freeze that is still alive: mostly the coroutines each socket is parked in
between two requests. Such young collections cost milliseconds each, often, and free nothing,
since the server's cycles are broken when a match ends. With them off, a cycle would wait for
the safety net; the test that a finished match is freed without the cycle collector keeps the
server from making any.

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
        """The server is up: what exists now (modules, the server itself) lives for ever, and
        only this policy collects from now on."""
        self._collect_and_freeze()
        gc.disable()

    def match_prepared(self) -> None:
        """A match's engine and dungeon exist: freeze them (and the safety net, now and then)."""
        self.prepared += 1
        if self.prepared % self.full_every == 0:
            gc.unfreeze()
            self._collect_and_freeze()
        else:
            gc.freeze()

    def stopped(self) -> None:
        """The server is done: hand every frozen object back to the collector, switched on."""
        gc.unfreeze()
        gc.enable()

    def _collect_and_freeze(self) -> None:
        gc.collect()
        gc.freeze()
        self.full_collections += 1
