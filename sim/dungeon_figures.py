"""The per-team figures of a headless dungeon match (crossings, trap deaths, kills, NPC kills,
mean active traps and, when asked, the mean trap optimum), folded from the engine's events as
:func:`sim.dungeon.play_match` applies them: the numbers that explain a result.
"""

from __future__ import annotations

from collections.abc import Sequence

from dungeon.events import Crossing, EngineEvent, Kill, NpcKilled, TrapProblem

__all__ = ["TeamFigures"]


class TeamFigures:
    """Per-team figures that explain a result, folded from the engine's events."""

    def __init__(self, switches: int, with_optimum: bool) -> None:
        self.switches = switches
        self.with_optimum = with_optimum
        self.crossings = [0, 0]
        self.trap_deaths = [0, 0]
        self.kills = [0, 0]
        self.npc_kills = [0, 0]
        self.active = [0, 0]
        self.optimum = [0, 0]
        self._problems: dict[int, Sequence[Sequence[int]]] = {}

    def add(self, events: Sequence[EngineEvent]) -> list[tuple[int, int]]:
        """Fold one output's events; return (crossing, optimum) for each crossing computed."""
        computed: list[tuple[int, int]] = []
        for event in events:
            if isinstance(event, TrapProblem):
                if self.with_optimum:
                    self._problems[event.crossing] = event.traps
            elif isinstance(event, Crossing):
                team = event.agent[0]
                self.crossings[team] += 1
                self.active[team] += event.active
                self.trap_deaths[team] += 0 if event.survived else 1
                problem = self._problems.pop(event.crossing, None)
                if problem is not None:
                    value = self._optimum(problem, event.active)
                    self.optimum[team] += value
                    computed.append((event.crossing, value))
            elif isinstance(event, Kill):
                self.kills[event.agent[0]] += 1
            elif isinstance(event, NpcKilled):
                self.npc_kills[event.agent[0]] += 1
        return computed

    def _optimum(self, problem: Sequence[Sequence[int]], active: int) -> int:
        """The problem's optimum, knowing it never exceeds the ``active`` traps achieved: none
        to compute at k = 0, one SAT call at k = 1 (none when the strategy's own SAT call in
        this match just decided it: the match's ``dungeon.sat.SatFacts``); only k >= 2 may need
        RC2 MaxSAT."""
        if active == 0:
            return 0  # before the import: an import statement costs on every crossing
        from dungeon.traps import is_satisfiable, optimum

        if active == 1:
            return 0 if is_satisfiable(problem, self.switches) else 1
        return optimum(problem, self.switches)

    def per_team(self, steps: int, winner: int | None) -> list[dict[str, float]]:
        figures = []
        for team in (0, 1):
            crossings = self.crossings[team]
            row = {
                "won": 1.0 if winner == team else 0.0,
                "crossings": float(crossings),
                "trap_deaths": float(self.trap_deaths[team]),
                "kills": float(self.kills[team]),
                "npc_kills": float(self.npc_kills[team]),
                "mean_active": self.active[team] / crossings if crossings else 0.0,
                "steps": float(steps),
            }
            if self.with_optimum:
                row["mean_optimum"] = self.optimum[team] / crossings if crossings else 0.0
            figures.append(row)
        return figures
