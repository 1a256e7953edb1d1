"""Which matches a run plays (documented in docs/simulator.md):

* Seeds: match seed ``i`` of a run is a hash of ``(--seed, i)``, so the seed list depends only on
  ``--seed`` and its length, and a longer run starts with the seeds of a shorter one.
* Lineups: in a two-seat game, every pair of entered strategies (round robin). In a game with
  ``n > 2`` seats, the strategies cycled over the seats when there are at most ``n`` of them,
  else every combination of ``n`` strategies.
* Seatings: each seed is played once per distinct cyclic rotation of the lineup: twice, seats
  swapped, for a two-seat game; four times for four different strategies at a four-seat table.
  ``--matches`` counts games per lineup and is rounded up to whole seeds.
* Job order: seed-major (seed, then lineup, then seating); job ``index`` encodes the triple and
  does not depend on ``--matches``, so a journal stays valid when a run is extended.

Jobs are generated lazily and each match seed is computed when its job is made: what a
schedule holds does not grow with ``--matches``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from itertools import combinations

from sim.game import GameInfo

__all__ = ["Schedule", "match_seed", "match_seeds"]

SEED_BITS = 48


def match_seed(seed: int, index: int) -> int:
    """Match seed ``index`` of a run started with ``--seed seed``."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def match_seeds(seed: int, count: int) -> list[int]:
    """The first ``count`` match seeds of a run started with ``--seed seed``."""
    return [match_seed(seed, i) for i in range(count)]


class Schedule:
    """The lineups, seatings and seeds of a run, and the job index of each match."""

    def __init__(self, info: GameInfo, strategies: Sequence[str], matches: int, seed: int):
        seats = info.num_players
        if seats < 2:
            raise ValueError(f"{info.name} has {seats} seat: the runner compares strategies")
        if len(set(strategies)) < 2:
            raise ValueError("enter at least two different strategies to compare")
        if len(set(strategies)) != len(strategies) and len(strategies) > seats:
            # A table (at most one strategy per seat) may seat a strategy twice; a round robin
            # over more strategies than seats may not: its lineups would repeat.
            raise ValueError(
                f"a strategy entered twice must be part of one table of {seats} seats, "
                f"not a round robin of {len(strategies)}"
            )
        if matches < 1:
            raise ValueError(f"--matches must be at least 1, got {matches}")
        if len(strategies) > seats:
            self.lineups = [tuple(c) for c in combinations(strategies, seats)]
        else:
            self.lineups = [tuple(strategies[i % len(strategies)] for i in range(seats))]
        self.seatings = [_rotations(lineup) for lineup in self.lineups]
        self.rotations = max(len(s) for s in self.seatings)
        self.seed_count = math.ceil(matches / self.rotations)
        self.run_seed = seed
        #: How many matches the run plays.
        self.total = self.seed_count * sum(len(s) for s in self.seatings)

    def seed(self, seed_index: int) -> int:
        """The match seed of seed group ``seed_index`` (computed, never stored: a run of 100M
        matches keeps no list of them)."""
        return match_seed(self.run_seed, seed_index)

    def jobs(self) -> Iterator[tuple[int, int, tuple[str, ...]]]:
        """(index, seed index, seats) of every match, in job order: a generator, whose memory
        does not depend on the number of matches."""
        for seed_index in range(self.seed_count):
            for lineup, seatings in enumerate(self.seatings):
                for rotation, seats in enumerate(seatings):
                    yield self.index(seed_index, lineup, rotation), seed_index, seats

    def index(self, seed_index: int, lineup: int, rotation: int) -> int:
        return (seed_index * len(self.lineups) + lineup) * self.rotations + rotation

    def seed_index(self, index: int) -> int:
        """The seed group of job ``index``."""
        return index // (len(self.lineups) * self.rotations)

    def is_job(self, index: int) -> bool:
        """Whether ``index`` is the index of a match of this run."""
        if not index >= 0 or self.seed_index(index) >= self.seed_count:
            return False
        lineup, rotation = divmod(index % (len(self.lineups) * self.rotations), self.rotations)
        return rotation < len(self.seatings[lineup])

    def group_end(self, index: int) -> bool:
        """True when ``index`` is the last job of its seed group (for the SPRT)."""
        lineup, rotation = divmod(index % (len(self.lineups) * self.rotations), self.rotations)
        return rotation == len(self.seatings[lineup]) - 1


def _rotations(lineup: tuple[str, ...]) -> list[tuple[str, ...]]:
    distinct: list[tuple[str, ...]] = []
    for shift in range(len(lineup)):
        seating = lineup[-shift:] + lineup[:-shift] if shift else lineup
        if seating not in distinct:
            distinct.append(seating)
    return distinct
