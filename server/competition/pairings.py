"""Who plays whom, and on which seed: round robin, swiss and knockout, as pure functions.

A :class:`Plan` hands out the tournament's games one batch (a round) at a time, given the
points every finished game gave its two seats; the next batch depends only on those. Every pair
plays ``games_per_pair`` games: each seed twice, seats swapped, so a seed that favours one side
cancels out. A pair's seeds depend only on the tournament's seed and the two names, so adding a
team to the file does not change the dungeons of the other pairs.

Swiss: teams sorted by points (file order breaks ties) are paired top down with the best-placed
team they have not met (backtracking when the last ones would have to meet again); with an odd
number, the lowest-placed team without a bye sits out and scores one point. Knockout: a bracket
of the next power of two, seeds placed so that 1 and 2 can meet only in the final; a missing
seed is a bye; a tie goes to the team with more points over its games, the better seed on equal
points. ``seeding = "round-robin"`` plays a round robin first and seeds the bracket by it.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Game",
    "Plan",
    "Tie",
    "bracket_order",
    "group_games",
    "group_seed",
    "pair_games",
    "pair_seed",
    "swiss_pairs",
]

#: Points of each seat of a finished game: (1, 0), (0.5, 0.5), (0, 1), or (0, 0) when both
#: teams failed; a game of 3-4 seats: 1 for the winner, a shared first place split, others 0.
Points = tuple[float, ...]


@dataclass(frozen=True)
class Game:
    """One scheduled match."""

    index: int
    round: int
    seats: tuple[str, ...]
    seed: int
    stage: str = "round-robin"

    def name(self, tournament: str) -> str:
        if self.stage == "preflight":
            return f"{tournament}-preflight-{self.seats[0]}"[:64]
        return f"{tournament}-{self.index:04d}"[:64]

    def record_head(self, name: str) -> dict[str, Any]:
        """The first fields of this game's record in results.json, every game's the same."""
        return {
            "index": self.index,
            "name": name,
            "round": self.round,
            "stage": self.stage,
            "seed": self.seed,
        }


@dataclass
class Tie:
    """Two teams' games in one knockout round; ``b`` None is a bye for ``a``."""

    round: int
    a: str
    b: str | None
    games: list[int] = field(default_factory=list)
    points: list[float] = field(default_factory=lambda: [0.0, 0.0])
    winner: str | None = None


def pair_seed(seed: int, a: str, b: str, k: int) -> int:
    """The dungeon seed of the ``k``-th seed of pair {a, b}: a 63-bit hash of them."""
    first, second = sorted((a, b))
    digest = hashlib.sha256(f"{seed}/{first}/{second}/{k}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def group_seed(seed: int, group: Sequence[str], k: int) -> int:
    """The seed of the ``k``-th seed of a group of 3-4 teams: a 63-bit hash of them."""
    names = "/".join(sorted(group))
    digest = hashlib.sha256(f"{seed}/{names}/{k}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def group_games(
    group: Sequence[str], *, games: int, seed: int, round: int, first_index: int, stage: str
) -> list[Game]:
    """``games`` games of a group (``games`` a multiple of its size): each seed once per
    rotation of the seats, so every team plays every seat equally often on the same boards.
    Two teams: :func:`pair_games`."""
    size = len(group)
    if size == 2:
        a, b = group
        return pair_games(
            a, b, games=games, seed=seed, round=round, first_index=first_index, stage=stage
        )
    out: list[Game] = []
    for k in range(games // size):
        s = group_seed(seed, group, k)
        for shift in range(size):
            seats = tuple(group[shift:]) + tuple(group[:shift])
            out.append(Game(first_index + len(out), round, seats, s, stage))
    return out


def pair_games(
    a: str, b: str, *, games: int, seed: int, round: int, first_index: int, stage: str
) -> list[Game]:
    """``games`` games of a against b: each seed twice, a in seat 0 first, then b."""
    out: list[Game] = []
    for k in range(games // 2):
        s = pair_seed(seed, a, b, k)
        for seats in ((a, b), (b, a)):
            out.append(Game(first_index + len(out), round, seats, s, stage))
    return out


def swiss_pairs(
    ranked: Sequence[str], met: set[frozenset[str]], had_bye: set[str]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pairs for one swiss round of ``ranked`` (best first), none of them in ``met``; and the
    team with the bye (odd count). Raises ValueError when no such pairing exists."""
    players = list(ranked)
    bye = None
    if len(players) % 2:
        candidates = [p for p in reversed(players) if p not in had_bye] or [players[-1]]
        bye = candidates[0]
        players.remove(bye)

    def solve(rest: list[str]) -> list[tuple[str, str]] | None:
        if not rest:
            return []
        first = rest[0]
        for partner in rest[1:]:
            if frozenset((first, partner)) in met:
                continue
            tail = solve([p for p in rest[1:] if p != partner])
            if tail is not None:
                return [(first, partner), *tail]
        return None

    pairs = solve(players)
    if pairs is None:
        raise ValueError("every pairing of this round repeats a game")
    return pairs, bye


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order: 1 and 2 meet only in the final."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for seed in order for x in (seed, total - seed)]
    return order


class Plan:
    """The games of one tournament, batch by batch (see the module docstring)."""

    def __init__(
        self,
        names: Sequence[str],
        *,
        format: str,
        games_per_pair: int,
        seed: int,
        rounds: int | None = None,
        seeding: str = "order",
        seats: int = 2,
        late: Sequence[str] = (),
        joined: Mapping[str, int] | None = None,
    ) -> None:
        #: Teams added after the run began (``--add``). Round-robin: their games come after
        #: every other game, so no earlier game's index changes. Swiss: each takes part from
        #: the round after ``joined[name]`` (the last round begun when it was added), with no
        #: points before. Knockout: before the bracket's first game only (the competition
        #: refuses later ones), its games with the round-robin seeding's.
        self.late = [name for name in late if name not in names]
        self.joined = dict(joined or {})
        self.names = list(names) + self.late
        #: Teams a game seats (3-4: round robin over every group of that many teams).
        self.seats = min(seats, len(self.names))
        self.format = format
        self.games_per_pair = games_per_pair
        self.seed = seed
        if self.late and format == "fish-knockout":
            raise ValueError("the course's knockout manager seats every team at once")
        # (a late team does not lengthen a swiss: its rounds are counted from the first teams)
        n = max(2, len(names))
        self.rounds = rounds if rounds is not None else max(1, min(n - 1, math.ceil(math.log2(n))))
        self.seeding = seeding
        self.games: list[Game] = []
        self.byes: dict[str, int] = {}
        #: Knockout: the bracket's ties, round by round.
        self.bracket: list[list[Tie]] = []
        #: Knockout: each team's seed (1 is the best).
        self.seed_rank: dict[str, int] = {}
        self._round = 0
        self._stage = "round-robin" if format != "knockout" or seeding == "round-robin" else "ko"

    # -- the one entry point --------------------------------------------------------------

    def next_games(self, results: Mapping[int, Points]) -> list[Game] | None:
        """The next batch of games, once every game handed out so far is in ``results``;
        None when the tournament is over. Call again with the same results: the same batch."""
        missing = [g.index for g in self.games if g.index not in results]
        if missing:
            raise ValueError(f"games {missing[:5]} are not finished yet")
        if self.format == "round-robin":
            return self._round_robin() if not self.games else None
        if self.format == "swiss":
            if self._round >= self.rounds:
                return None
            return self._swiss(results)
        if self._stage == "round-robin":
            self._stage = "ko"
            return self._round_robin()
        return self._knockout(results)

    # -- formats --------------------------------------------------------------------------

    def _add(self, a: str, b: str, round: int, stage: str) -> list[Game]:
        games = pair_games(
            a, b, games=self.games_per_pair, seed=self.seed, round=round,
            first_index=len(self.games), stage=stage,
        )  # fmt: skip
        self.games += games
        return games

    def _round_robin(self) -> list[Game]:
        self._round += 1
        batch: list[Game] = []
        first = [name for name in self.names if name not in self.late]
        if self.seats > 2:
            groups = list(itertools.combinations(first, self.seats))
            for number, late in enumerate(self.late):
                earlier = first + self.late[:number]
                groups += [(*g, late) for g in itertools.combinations(earlier, self.seats - 1)]
            for group in groups:
                games = group_games(
                    group, games=self.games_per_pair, seed=self.seed, round=self._round,
                    first_index=len(self.games), stage="round-robin",
                )  # fmt: skip
                self.games += games
                batch += games
            return batch
        for i, a in enumerate(first):
            for b in first[i + 1 :]:
                batch += self._add(a, b, self._round, "round-robin")
        for number, late in enumerate(self.late):
            for a in first + self.late[:number]:
                batch += self._add(a, late, self._round, "round-robin")
        return batch

    def points(self, results: Mapping[int, Points], stage: str | None = None) -> dict[str, float]:
        """Each team's points over the finished games (of one stage), byes included."""
        total = dict.fromkeys(self.names, 0.0)
        for game in self.games:
            if stage is not None and game.stage != stage:
                continue
            for name, value in zip(game.seats, results[game.index], strict=True):
                total[name] += value
        if stage in (None, "swiss"):
            for name, count in self.byes.items():
                total[name] += count
        return total

    def ranking(self, results: Mapping[int, Points], stage: str | None = None) -> list[str]:
        points = self.points(results, stage)
        order = {name: i for i, name in enumerate(self.names)}
        return sorted(self.names, key=lambda name: (-points[name], order[name]))

    def _swiss(self, results: Mapping[int, Points]) -> list[Game]:
        self._round += 1
        met = {frozenset(g.seats) for g in self.games}
        playing = [name for name in self.ranking(results) if self._plays(name, self._round)]
        # (a late team plays its first round: the bye, a free point, goes to another)
        joining = {name for name in self.late if self.joined.get(name, 0) == self._round - 1}
        pairs, bye = swiss_pairs(playing, met, set(self.byes) | joining)
        if bye is not None:
            self.byes[bye] = self.byes.get(bye, 0) + 1
        batch: list[Game] = []
        for a, b in pairs:
            batch += self._add(a, b, self._round, "swiss")
        return batch

    def _plays(self, name: str, round: int) -> bool:
        """Whether ``name`` takes part in swiss round ``round`` (a late team: after it joined)."""
        return name not in self.late or round > self.joined.get(name, 0)

    def _knockout(self, results: Mapping[int, Points]) -> list[Game] | None:
        if self.bracket:
            self._settle(self.bracket[-1], results)
            alive = [tie.winner for tie in self.bracket[-1] if tie.winner is not None]
            if len(alive) <= 1:
                return None
        else:
            if self.seeding == "round-robin":
                seeds = self.ranking(results, "round-robin")
            else:
                seeds = list(self.names)
            self.seed_rank = {name: rank for rank, name in enumerate(seeds, start=1)}
            size = 1 << max(1, (len(seeds) - 1).bit_length())
            slots = [seeds[s - 1] if s <= len(seeds) else None for s in bracket_order(size)]
            alive = slots  # type: ignore[assignment]
        self._round += 1
        ties: list[Tie] = []
        batch: list[Game] = []
        for a, b in zip(alive[0::2], alive[1::2], strict=True):
            if a is None or b is None:
                present = a if a is not None else b
                assert present is not None, "two byes never meet: seeds fill the top half"
                ties.append(Tie(self._round, present, None, winner=present))
                continue
            games = self._add(a, b, self._round, "knockout")
            ties.append(Tie(self._round, a, b, [g.index for g in games]))
            batch += games
        self.bracket.append(ties)
        if not batch:  # only byes (cannot happen past the first round): settle at once
            return self._knockout(results)
        return batch

    def _settle(self, ties: list[Tie], results: Mapping[int, Points]) -> None:
        by_index = {g.index: g for g in self.games}
        for tie in ties:
            if tie.b is None or tie.winner is not None:
                continue
            points = {tie.a: 0.0, tie.b: 0.0}
            for index in tie.games:
                for name, value in zip(by_index[index].seats, results[index], strict=True):
                    points[name] += value
            tie.points = [points[tie.a], points[tie.b]]
            if points[tie.a] != points[tie.b]:
                tie.winner = tie.a if points[tie.a] > points[tie.b] else tie.b
            else:  # equal points: the better seed goes on
                tie.winner = min((tie.a, tie.b), key=self.seed_rank.__getitem__)

    def champion(self, results: Mapping[int, Points]) -> str | None:
        if not self.bracket:
            return None
        self._settle(self.bracket[-1], results)
        last = self.bracket[-1]
        return last[0].winner if len(last) == 1 else None
