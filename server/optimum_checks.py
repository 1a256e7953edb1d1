"""A match's trap optimum checks, as its actor (:mod:`server.actor`) runs them: the optimum of
each trap problem is checked off the event loop (worker processes, :mod:`server.optimum_pool`,
through a thread per check, bounded by a limiter) and comes back to the actor's inbox as an
:class:`Optimum`, which the actor logs when it arrives; a crossing never waits for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from dungeon.events import TrapProblem

__all__ = ["CHECK_GRACE", "MAX_PENDING_CHECKS", "Checker", "Checks", "Optimum", "check_optimum"]

#: ``check(traps, switches) -> optimum or None``: a blocking call (OptimumPool.check).
Checker = Callable[[Sequence[Sequence[int]], int], "int | None"]
#: Optimum checks one match may have waiting; beyond, a problem's optimum is logged unknown.
MAX_PENDING_CHECKS = 256
#: How long a finished match waits for outstanding optimum checks before logging them unknown.
CHECK_GRACE = 2.0


@dataclass(frozen=True, slots=True)
class Optimum:
    """The optimum of crossing ``crossing``'s trap problem (None: unknown), for the actor."""

    crossing: int
    value: int | None


async def check_optimum(
    checker: Checker | None,
    limiter: trio.CapacityLimiter | None,
    crossing: int,
    traps: Sequence[Sequence[int]],
    switches: int,
    results: trio.MemorySendChannel[Any],
    log: Any,
) -> None:
    """Check one problem's optimum and send it to ``results`` (the actor's inbox, a clone this
    check closes)."""
    assert checker is not None
    try:
        value = await trio.to_thread.run_sync(
            checker, traps, switches, limiter=limiter, abandon_on_cancel=True
        )
    except Exception:
        log.exception("optimum_check_failed", crossing=crossing)
        value = None
    async with results:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await results.send(Optimum(crossing, value))


class Checks:
    """A running match's optimum checks: one task per trap problem (at most
    MAX_PENDING_CHECKS waiting; beyond, the optimum is recorded unknown), each sending its
    :class:`Optimum` to ``results`` (the match's inbox: a clone per check). ``record(crossing,
    value)`` writes one to the match's log."""

    def __init__(
        self,
        checker: Checker | None,
        limiter: trio.CapacityLimiter | None,
        record: Callable[[int, int | None], None],
        log: Any,
    ) -> None:
        self.checker = checker
        self.limiter = limiter
        self.record = record
        self.log = log
        #: Crossings whose optimum has not come back yet.
        self.pending: set[int] = set()
        #: Where the check tasks run, and the inbox clone they are cloned from (while running).
        self.nursery: trio.Nursery | None = None
        self.results: trio.MemorySendChannel[Any] | None = None
        #: Cancelled: stop waiting for the pending checks (the server is stopping).
        self.stop = trio.CancelScope()

    def start(self, events: Sequence[object]) -> None:
        """Start a check for each trap problem among a step's ``events``."""
        if self.checker is None or self.nursery is None or self.results is None:
            return
        for fact in events:
            if type(fact) is not TrapProblem:
                continue
            crossing = fact.crossing
            if len(self.pending) >= MAX_PENDING_CHECKS:
                self.record(crossing, None)
                continue
            self.pending.add(crossing)
            self.nursery.start_soon(
                check_optimum,
                self.checker,
                self.limiter,
                crossing,
                fact.traps,
                fact.switches,
                self.results.clone(),
                self.log,
            )

    def arrived(self, optimum: Optimum) -> None:
        self.record(optimum.crossing, optimum.value)
        self.pending.discard(optimum.crossing)

    async def finish(self, inbox: trio.MemoryReceiveChannel[Any], grace: float) -> None:
        """The match is over: take the optimums still coming from ``inbox`` for ``grace``
        seconds at most, then record the rest unknown."""
        with self.stop, trio.move_on_after(grace):
            while self.pending:
                try:
                    item = await inbox.receive()
                except trio.EndOfChannel:
                    break
                if isinstance(item, Optimum):
                    self.arrived(item)
        for crossing in sorted(self.pending):
            self.record(crossing, None)
