"""Tournaments of the Labyrinth server, pure: a league (every pair meets twice, each starting
once, one round per phase) or a knockout (one game per pairing, winners go on, one round per
phase). The teacher starts each phase; players join with ``WAIT_GAME TOURNAMENT name`` before
the first. Points: 3 a win, 1 a draw, 0 a loss.

Decisions: a knockout game that ends in a draw sends the higher-seeded player on (seeds: the
order of joining); an odd player out gets a bye (a win, in a league no points).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Container
from typing import Any

__all__ = ["KINDS", "Kind", "Pairing", "Tournament", "take_due"]


class Kind(enum.StrEnum):
    LEAGUE = "league"
    KNOCKOUT = "knockout"

    @classmethod
    def named(cls, text: str) -> Kind:
        """The kind called ``text`` (ValueError naming the kinds)."""
        if text not in KINDS:
            raise ValueError(f"a tournament is one of {KINDS}, got {text!r}")
        return cls(text)


#: The kinds' names, as the teacher's page offers them.
KINDS = tuple(kind.value for kind in Kind)


@dataclasses.dataclass
class Pairing:
    """A game of a phase: ``first`` starts. ``winner`` is set when it has been played (or
    "" for a draw)."""

    first: str
    second: str
    winner: str | None = None
    game: str = ""


@dataclasses.dataclass
class Tournament:
    name: str
    kind: Kind
    players: list[str] = dataclasses.field(default_factory=list)
    phases: list[list[Pairing]] = dataclasses.field(default_factory=list)
    alive: list[str] = dataclasses.field(default_factory=list)

    def __post_init__(self) -> None:
        self.kind = Kind.named(self.kind)

    @property
    def started(self) -> bool:
        return bool(self.phases)

    @property
    def phase_running(self) -> bool:
        return bool(self.phases) and any(p.winner is None for p in self.phases[-1])

    def join(self, player: str) -> None:
        if self.started:
            raise ValueError(f"tournament {self.name} has started: no one joins now")
        if player not in self.players:
            self.players.append(player)

    def total_phases(self) -> int:
        count = len(self.players)
        if count < 2:
            return 0
        if self.kind is Kind.LEAGUE:
            return 2 * (count - 1 if count % 2 == 0 else count)
        return (count - 1).bit_length()

    @property
    def finished(self) -> bool:
        return self.started and not self.phase_running and not self._next_pairings()

    def next_phase(self) -> list[Pairing]:
        """Start the next phase: its pairings (ValueError when one runs or none is left)."""
        if len(self.players) < 2:
            raise ValueError("a tournament needs at least 2 players")
        if self.phase_running:
            raise ValueError("the current phase is still running")
        if not self.started:
            self.alive = list(self.players)
        pairings = self._next_pairings()
        if not pairings:
            raise ValueError(f"tournament {self.name} is over")
        self.phases.append(pairings)
        return pairings

    def _next_pairings(self) -> list[Pairing]:
        if self.kind is Kind.LEAGUE:
            return self._league_round(len(self.phases))
        if self.started:
            last = self.phases[-1]
            winners = [p.winner or p.first for p in last]
            byes = [
                name for name in self.alive if all(name not in (p.first, p.second) for p in last)
            ]
            self.alive = [name for name in self.alive if name in winners or name in byes]
        if len(self.alive) < 2:
            return []
        order = self.alive
        return [Pairing(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]

    def _league_round(self, index: int) -> list[Pairing]:
        names: list[str | None] = list(self.players)
        if len(names) % 2:
            names.append(None)
        count = len(names)
        rounds = count - 1
        if index >= 2 * rounds:
            return []
        leg, step = divmod(index, rounds)
        # The circle method: the first name stays, the others turn by one each round.
        rest = names[1:]
        rest = rest[step:] + rest[:step]
        circle = [names[0], *rest]
        pairings = []
        for i in range(count // 2):
            a, b = circle[i], circle[count - 1 - i]
            if a is None or b is None:
                continue
            pairings.append(Pairing(b, a) if leg else Pairing(a, b))
        return pairings

    def record(self, pairing: Pairing, winner: str | None) -> None:
        pairing.winner = winner if winner is not None else ""

    def standings(self) -> list[dict[str, Any]]:
        """Per player: points, wins, draws, losses, played; best first (ties by name)."""
        counts = {
            n: {"points": 0, "wins": 0, "draws": 0, "losses": 0, "played": 0} for n in self.players
        }
        for phase in self.phases:
            for p in phase:
                if p.winner is None:
                    continue
                for name in (p.first, p.second):
                    row = counts[name]
                    row["played"] += 1
                    if p.winner == "":
                        row["draws"] += 1
                        row["points"] += 1
                    elif p.winner == name:
                        row["wins"] += 1
                        row["points"] += 3
                    else:
                        row["losses"] += 1
        order = sorted(counts, key=lambda n: (-counts[n]["points"], n))
        return [{"player": n, **counts[n]} for n in order]

    def snapshot(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind.value,
            "players": list(self.players),
            "phase": len(self.phases),
            "phases": self.total_phases(),
            "running": self.phase_running,
            "finished": self.finished,
            "games": [dataclasses.asdict(p) for p in (self.phases[-1] if self.phases else [])],
            "standings": self.standings(),
        }


def take_due(
    pending: list[tuple[Tournament, Pairing]],
    connected: Container[str],
    waiting: set[tuple[str, str]],
) -> list[tuple[Tournament, Pairing]]:
    """Take out of ``pending`` (the games of the current phases not started yet) each game that
    is decided now: one whose player is not ``connected`` is recorded as lost by that player
    (both absent: a draw); one whose two players wait for it (``waiting`` holds (tournament,
    player) pairs, and loses those it gives a game) is returned, to be started in that order.
    A game with a player still busy stays."""
    due = []
    for tournament, pairing in list(pending):
        names = (pairing.first, pairing.second)
        present = [name for name in names if name in connected]
        seats = {(tournament.name, name) for name in names}
        if len(present) < 2:
            tournament.record(pairing, present[0] if present else None)
        elif seats <= waiting:
            waiting -= seats
            due.append((tournament, pairing))
        else:
            continue
        pending.remove((tournament, pairing))
    return due
