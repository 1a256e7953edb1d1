"""Fair time: the order in which two teams' requests are applied, by the CPU each had used, not
by when they arrived (docs/fair-time.md). Pure: virtual time only; the shell feeds readings.

    order = FairOrder()
    order.observe(1, cpu=0.30, runnable=True)      # team 1 is thinking
    order.arrive(0, cpu=0.10, item=request)        # stamped 0.10 + ALLOWANCE
    order.release()                                 # [request]: team 1 cannot undercut it

Each team has a virtual clock: the CPU seconds its program used, plus :data:`ALLOWANCE` per
request it sent, plus the time it was lifted while asleep. A request is stamped with its team's
clock when it arrives. The earliest held request (by stamp, then team) is released once no other
team can still send one stamped earlier: that team has a request held already (its own stamp
bounds it), or its clock plus one allowance is past the stamp (it is thinking but has used more
CPU), or it is asleep (no thread runnable: waiting on the server or idle by choice), in which case
its clock is lifted to the released stamp: sleeping is time passing, never a head start.

Messages to a team go in virtual time too (:meth:`FairOrder.waits`): a team thinking gets them
when it sleeps (or after :data:`THINK_HOLD` of CPU), a team asleep once no other team can still
send a request stamped before its clock, all at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ALLOWANCE", "THINK_HOLD", "FairOrder", "over_budget"]

#: CPU seconds charged for every request a team sends (a program that answers at once still
#: pays for its message, so ties between two instant programs alternate by turns of requests).
ALLOWANCE = 0.001
#: CPU seconds a thinking team may go on using while messages for it wait for its sleep.
THINK_HOLD = 0.010


@dataclass
class _Team:
    cpu: float = 0.0
    lift: float = 0.0
    sent: int = 0
    runnable: bool = True
    last: float = 0.0
    held: list[tuple[float, int, Any]] = field(default_factory=list)

    def clock(self, allowance: float) -> float:
        return self.cpu + self.lift + allowance * self.sent


class FairOrder:
    """The ordering rule for ``teams`` teams (see the module's text)."""

    def __init__(self, teams: int = 2, allowance: float = ALLOWANCE) -> None:
        self.allowance = allowance
        self.teams = [_Team() for _ in range(teams)]
        self._seq = 0

    def observe(self, team: int, cpu: float, *, runnable: bool) -> None:
        """A reading of ``team``'s program: CPU seconds so far, and whether a thread of it is
        running or waiting for a core (False: all asleep)."""
        state = self.teams[team]
        state.cpu = max(state.cpu, cpu)
        state.runnable = runnable

    def arrive(self, team: int, cpu: float, item: Any) -> float:
        """A request of ``team`` arrived when its program had used ``cpu``: held, stamped; the
        stamp is returned (a team's stamps never decrease)."""
        state = self.teams[team]
        state.cpu = max(state.cpu, cpu)
        state.sent += 1
        stamp = max(state.clock(self.allowance), state.last)
        state.last = stamp
        self._seq += 1
        state.held.append((stamp, self._seq, item))
        return stamp

    def clock(self, team: int) -> float:
        """``team``'s virtual clock now."""
        return self.teams[team].clock(self.allowance)

    def release(self) -> list[Any]:
        """Every held request that may be applied now, in the order to apply them."""
        out: list[Any] = []
        while True:
            heads = [(t.held[0][0], n) for n, t in enumerate(self.teams) if t.held]
            if not heads:
                return out
            stamp, team = min(heads)
            if not all(self._behind(other, stamp, team) for other in range(len(self.teams))):
                return out
            for other, state in enumerate(self.teams):
                if other != team and not state.held and not state.runnable:
                    state.lift += max(0.0, stamp - state.clock(self.allowance))
            out.append(self.teams[team].held.pop(0)[2])

    def waits(self, team: int, owed_since: float | None = None) -> float:
        """How much CPU must still be used before messages to ``team`` may go (0.0: they may go
        now); ``owed_since``: ``team``'s clock when the first of them began to wait (None: now).

        A team thinking gets them when it sleeps, or once it has used :data:`THINK_HOLD` more
        CPU (a program that never sleeps still hears): what it finds at a wake is what came
        before it slept, not what the wall clock happened to bring while it computed. A team
        asleep gets them once no other team, thinking and holding no request, could still send
        one stamped before its clock: what that request causes belongs to the same wake. So a
        program's messages are grouped into its wakes by the CPU used, however the machine's
        load spread them over the wall clock."""
        state = self.teams[team]
        clock = state.clock(self.allowance)
        if state.runnable:
            since = clock if owed_since is None else owed_since
            return max(0.0, since + THINK_HOLD - clock)
        lags = [clock - (other.clock(self.allowance) + self.allowance)
                for n, other in enumerate(self.teams)
                if n != team and other.runnable and not other.held]  # fmt: skip
        return max([0.0, *lags])

    def _behind(self, other: int, stamp: float, team: int) -> bool:
        """Whether ``other`` cannot send a request that comes before (``stamp``, ``team``)."""
        if other == team:
            return True
        state = self.teams[other]
        if state.held or not state.runnable:
            return True  # its held head was not the minimum; or asleep: it will be lifted
        bound = state.clock(self.allowance) + self.allowance
        return bound > stamp or (bound == stamp and team < other)


def over_budget(cpu: float, budget: float | None) -> bool:
    """Whether a team that used ``cpu`` seconds has spent its bank (None: no bank)."""
    return budget is not None and cpu > budget
