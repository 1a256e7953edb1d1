"""Which matches the ladder plays next: pure (plain data in, pairings out).

The ladder keeps a few matches queued ahead of its workers; each time it tops the queue up it
calls :func:`plan` with the active versions and every match they are already in (played,
running or queued). Each new match is built around an *anchor*, the version that most needs a
game, then filled with the opponents it has met least, then seated so each version's seats stay
even. The policy (docs/ladder.md):

- **anchor**: fewest games first, counted up to :data:`WARMUP` (a new version, with none, plays
  at once and keeps playing until it has had its warm-up); past that, the highest rating
  uncertainty (sigma) first, then fewest games, then the newest version;
- **opponents**: one of another team, never the same version twice in a match; first one whose
  seat would not push either version's seats more than :data:`SEAT_SLACK` apart, then the one
  this anchor has met least (a pair is repeated only when every other pair has been played as
  often), then the same order as the anchor's, then the closest rating;
- **seats**: the seating (of every permutation) that keeps the seat counts most even.

Each pairing is counted in before the next is picked, so one call's pairings spread over the
class. A match's seed depends only on the ladder's seed and the match's number.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ["SEAT_SLACK", "WARMUP", "Entrant", "Ledger", "Pairing", "match_seed", "plan"]

#: Games a new version plays first, ahead of every version that has had them.
WARMUP = 10
#: Most a version's seat counts may differ (2 seats: first minus second) when it can be avoided.
SEAT_SLACK = 1


@dataclass(frozen=True)
class Entrant:
    """An active version as the scheduler sees it."""

    version: int
    team: str
    #: Rating (openskill mu, sigma) of this version.
    mu: float = 25.0
    sigma: float = 25.0 / 3
    #: When it became active, in any increasing unit (a later version has a larger value).
    activated: float = 0.0


@dataclass(frozen=True)
class Pairing:
    """One match to queue: the versions in seat order, its number and its seed."""

    seats: tuple[int, ...]
    number: int
    seed: int


@dataclass
class Ledger:
    """What the versions have played so far (matches done, running or queued): games per
    version, games per version and seat, games per pair of versions."""

    seats: int = 2
    games: Counter[int] = field(default_factory=Counter)
    by_seat: dict[int, list[int]] = field(default_factory=dict)
    pairs: Counter[tuple[int, int]] = field(default_factory=Counter)

    @classmethod
    def of(cls, matches: Iterable[Sequence[int]], seats: int = 2) -> Ledger:
        """The ledger of these matches (each the versions in seat order)."""
        ledger = cls(seats=seats)
        for match in matches:
            ledger.add(match)
        return ledger

    def add(self, match: Sequence[int]) -> None:
        for seat, version in enumerate(match):
            self.games[version] += 1
            self.seat_counts(version)[seat % self.seats] += 1
        for a, b in itertools.combinations(sorted(set(match)), 2):
            self.pairs[a, b] += 1

    def seat_counts(self, version: int) -> list[int]:
        counts = self.by_seat.get(version)
        if counts is None:
            counts = self.by_seat[version] = [0] * self.seats
        return counts

    def met(self, a: int, b: int) -> int:
        return self.pairs[min(a, b), max(a, b)]

    def spread(self, version: int) -> int:
        """How far apart this version's seat counts are (0: even)."""
        counts = self.by_seat.get(version)
        return max(counts) - min(counts) if counts else 0


def match_seed(ladder_seed: int, number: int) -> int:
    """Match ``number``'s seed (31 bits, a database integer anywhere): a hash of the ladder's
    seed and the number alone."""
    digest = hashlib.blake2b(f"{ladder_seed}:{number}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") >> 1


def _need(entrant: Entrant, ledger: Ledger) -> tuple[float, ...]:
    """Sort key: who most needs a game comes first."""
    games = ledger.games[entrant.version]
    return (min(games, WARMUP), -entrant.sigma, games, -entrant.activated, entrant.version)


def _seating(group: Sequence[int], ledger: Ledger) -> tuple[int, ...]:
    """The seat order of ``group`` that keeps seat counts most even: the smallest worst spread
    after the game, then the fewest games already played in the seats taken, then the given
    order (the anchor first)."""

    def cost(order: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
        worst = 0
        taken = 0
        for seat, version in enumerate(order):
            counts = list(ledger.seat_counts(version))
            taken += counts[seat]
            counts[seat] += 1
            worst = max(worst, max(counts) - min(counts))
        return worst, taken, tuple(group.index(v) for v in order)

    return min(itertools.permutations(group), key=cost)


def _strains_seats(group: Sequence[int], ledger: Ledger) -> bool:
    """Whether even the best seating of ``group`` leaves a version's seats past the slack."""
    order = _seating(group, ledger)
    for seat, version in enumerate(order):
        counts = list(ledger.seat_counts(version))
        counts[seat] += 1
        if max(counts) - min(counts) > SEAT_SLACK:
            return True
    return False


def _fit(
    e: Entrant, group: list[int], anchor: Entrant, seats: int, ledger: Ledger
) -> tuple[object, ...]:
    """Sort key of a candidate opponent for ``group`` (the anchor first): best first."""
    last = len(group) == seats - 1
    return (
        _strains_seats([*group, e.version], ledger) if last else False,
        sum(ledger.met(v, e.version) for v in group),
        _need(e, ledger)[:-1],
        abs(e.mu - anchor.mu),
        e.version,
    )


def plan(
    entrants: Sequence[Entrant],
    ledger: Ledger,
    count: int,
    *,
    first_number: int,
    ladder_seed: int = 0,
) -> list[Pairing]:
    """Up to ``count`` new matches of ``ledger.seats`` versions each, numbered from
    ``first_number``; none when fewer teams than seats have an active version. ``ledger`` is
    updated with them (it then counts them as queued)."""
    seats = ledger.seats
    if seats < 2:
        raise ValueError(f"a match needs at least 2 seats, got {seats}")
    if len({e.team for e in entrants}) < seats or count <= 0:
        return []
    pairings: list[Pairing] = []
    for number in range(first_number, first_number + count):
        anchor = min(entrants, key=lambda e: _need(e, ledger))
        group = [anchor.version]
        teams = {anchor.team}
        while len(group) < seats:
            others = [e for e in entrants if e.team not in teams]
            choice = min(others, key=lambda e: _fit(e, group, anchor, seats, ledger))
            group.append(choice.version)
            teams.add(choice.team)
        order = _seating(group, ledger)
        ledger.add(order)
        pairings.append(Pairing(order, number, match_seed(ladder_seed, number)))
    return pairings
