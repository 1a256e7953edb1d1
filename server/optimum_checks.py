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

__all__ = ["CHECK_GRACE", "MAX_PENDING_CHECKS", "Checker", "Optimum", "check_optimum"]

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
