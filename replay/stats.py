"""The statistics of a simulation run: pure functions of finished games, no I/O.

Conventions (see docs/simulator.md for how to read them):

* A game's *score* for strategy ``a`` against ``b`` is 1 for a win, 1/2 for a draw, 0 for a loss;
  in a game with more seats, ``a`` beats ``b`` when the best return among ``a``'s seats is higher
  than the best among ``b``'s.
* ``win_rate`` is the mean score (a draw counts half), with a 95% Wilson interval over games.
* A *seed group* is all the games one seed gave a pairing (both seatings in a two-seat game). Its
  score is the mean over those games. Elo intervals and the SPRT use the distribution of group
  scores, as fishtest does with its pentanomial game pairs: a seed that favours one seat then
  cancels out instead of inflating the variance.
* Elo is logistic: ``elo = -400 log10(1/score - 1)``. Infinite values (every game won or lost)
  are reported as None. When every seed group scored the same, the normal interval has width
  0, so the Elo interval is the Wilson interval mapped through the Elo curve instead.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GameRecord",
    "Sprt",
    "elo_from_score",
    "elo_interval",
    "gsprt_llr",
    "mean_stats",
    "pairing_summary",
    "pairwise_score",
    "ratings",
    "score_from_elo",
    "wilson_interval",
]

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game, as the statistics see it."""

    #: Index of the seed in the run's seed list: the games of one seed form a group.
    group: int
    #: Strategy name in each seat.
    seats: tuple[str, ...]
    returns: tuple[float, ...]
    length: int
    #: Per-seat figures (MatchResult.stats).
    stats: tuple[Mapping[str, float], ...] = ()


def wilson_interval(score: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion observed as ``score`` over ``games`` trials."""
    if games <= 0:
        return (0.0, 1.0)
    z2n = z * z / games
    centre = (score + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(score * (1 - score) / games + z2n / (4 * games))
    # At 0 and 1 the bound is exactly 0 or 1; rounding would make it 1e-17 off (a finite Elo).
    low = 0.0 if score <= 0.0 else max(0.0, centre - half)
    high = 1.0 if score >= 1.0 else min(1.0, centre + half)
    return (low, high)


def elo_from_score(score: float) -> float | None:
    """Logistic Elo difference that predicts ``score``; None when infinite (score 0 or 1)."""
    if not 0.0 < score < 1.0:
        return None
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_interval(
    group_scores: Sequence[float], z: float = Z95
) -> tuple[float | None, tuple[float | None, float | None]]:
    """Elo difference and its 95% interval from the scores of independent seed groups.

    The interval is the score's normal interval (mean +- z standard errors, variance measured
    over groups) mapped through the Elo curve, as cutechess-cli reports it.
    """
    n = len(group_scores)
    if n == 0:
        return None, (None, None)
    mean = sum(group_scores) / n
    variance = sum((x - mean) ** 2 for x in group_scores) / n
    half = z * math.sqrt(variance / n)
    return elo_from_score(mean), (elo_from_score(mean - half), elo_from_score(mean + half))


def _constrained_mle(
    support: Sequence[float], frequencies: Sequence[float], mean: float
) -> list[float]:
    """The distribution on ``support`` closest (max likelihood) to ``frequencies`` with ``mean``.

    The maximiser has the form p_k = f_k / (1 + lam (x_k - mean)); ``lam`` is the root of
    sum f_k (x_k - mean) / (1 + lam (x_k - mean)) = 0, found by bisection where every
    denominator stays positive (the function decreases in ``lam`` there).
    """
    offsets = [x - mean for x in support]
    high_offset, low_offset = max(offsets), min(offsets)
    if not low_offset < 0.0 < high_offset:
        raise ValueError(f"mean {mean} lies outside the support {list(support)}")
    lo, hi = -1.0 / high_offset, -1.0 / low_offset

    def slope(lam: float) -> float:
        return sum(f * d / (1.0 + lam * d) for f, d in zip(frequencies, offsets, strict=True))

    for _ in range(200):
        mid = (lo + hi) / 2
        if slope(mid) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2
    return [f / (1.0 + lam * d) for f, d in zip(frequencies, offsets, strict=True)]


def gsprt_llr(
    counts: Mapping[float, float], elo0: float, elo1: float, regularize: float = 1e-3
) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), as fishtest.

    ``counts`` maps every possible group score (the full support, zeros included) to how often
    it was seen. Empty cells get ``regularize`` so the constrained fits exist, as fishtest
    regularises its pentanomial counts.
    """
    support = sorted(counts)
    cells = [max(float(counts[x]), regularize) for x in support]
    total = sum(cells)
    frequencies = [c / total for c in cells]
    p0 = _constrained_mle(support, frequencies, score_from_elo(elo0))
    p1 = _constrained_mle(support, frequencies, score_from_elo(elo1))
    return total * sum(f * math.log(a / b) for f, a, b in zip(frequencies, p1, p0, strict=True))


@dataclass
class Sprt:
    """A sequential test fed one seed group at a time; ``decision`` is "H0", "H1" or None."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    #: Games per seed group: group scores are multiples of 1 / (2 * games_per_group).
    games_per_group: int = 2

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got {self.elo0} and {self.elo1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("SPRT alpha and beta must lie strictly between 0 and 1")
        steps = 2 * self.games_per_group
        self._counts: dict[float, float] = {k / steps: 0.0 for k in range(steps + 1)}
        self.groups = 0
        self.llr = 0.0
        self.decision: str | None = None

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def add(self, group_score: float) -> str | None:
        """Count one seed group's score; return the decision once the LLR leaves the bounds."""
        if self.decision is not None:
            return self.decision
        key = round(group_score * 2 * self.games_per_group) / (2 * self.games_per_group)
        self._counts[key] += 1
        self.groups += 1
        self.llr = gsprt_llr(self._counts, self.elo0, self.elo1)
        if self.llr >= self.upper:
            self.decision = "H1"
        elif self.llr <= self.lower:
            self.decision = "H0"
        return self.decision

    def to_json(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "llr": _round(self.llr),
            "lower": _round(self.lower),
            "upper": _round(self.upper),
            "groups": self.groups,
            "decision": self.decision,
        }


def pairwise_score(game: GameRecord, a: str, b: str) -> float:
    """The score of ``a`` against ``b`` in one game (1 win, 1/2 draw, 0 loss)."""
    best_a = max(r for s, r in zip(game.seats, game.returns, strict=True) if s == a)
    best_b = max(r for s, r in zip(game.seats, game.returns, strict=True) if s == b)
    return 1.0 if best_a > best_b else 0.0 if best_a < best_b else 0.5


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def mean_stats(games: Iterable[GameRecord], strategy: str) -> dict[str, float]:
    """Mean of each per-seat figure over every seat ``strategy`` held in ``games``."""
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for game in games:
        for seat, figures in zip(game.seats, game.stats, strict=False):
            if seat != strategy:
                continue
            for key, value in figures.items():
                totals[key] += value
                counts[key] += 1
    return {key: round(totals[key] / counts[key], 6) for key in sorted(totals)}


def pairing_summary(a: str, b: str, games: Sequence[GameRecord]) -> dict[str, Any]:
    """W/D/L (for ``a``), win rate with its Wilson interval, Elo with its interval, and the
    per-strategy figures of the games both strategies played in, in the order given."""
    scores = [pairwise_score(game, a, b) for game in games]
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    losses = len(scores) - wins - draws
    win_rate = sum(scores) / len(scores) if scores else 0.5
    by_group: dict[int, list[float]] = defaultdict(list)
    for game, score in zip(games, scores, strict=True):
        by_group[game.group].append(score)
    group_scores = [sum(v) / len(v) for _, v in sorted(by_group.items())]
    elo, (elo_lo, elo_hi) = elo_interval(group_scores)
    lo, hi = wilson_interval(win_rate, len(scores))
    # Seats are swapped seed by seed, so a first-seat edge hides in the total: a's W-D-L by the
    # (first) seat it held.
    by_seat = [[0, 0, 0] for _ in range(max((len(g.seats) for g in games), default=0))]
    for game, score in zip(games, scores, strict=True):
        by_seat[game.seats.index(a)][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    if len(set(group_scores)) == 1:
        # Every seed group scored the same (a clean sweep, say): the normal interval has width
        # 0 and says nothing. Map the Wilson interval instead, which stays honest there.
        elo_lo, elo_hi = elo_from_score(lo), elo_from_score(hi)
    return {
        "a": a,
        "b": b,
        "games": len(scores),
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": _round(win_rate),
        "ci95": [_round(lo), _round(hi)],
        "elo": _round(elo),
        "elo_ci95": [_round(elo_lo), _round(elo_hi)],
        "length": _round(sum(g.length for g in games) / len(games)) if games else None,
        "by_seat": by_seat,
        "stats_a": mean_stats(games, a),
        "stats_b": mean_stats(games, b),
    }


def ratings(games: Iterable[GameRecord], strategies: Sequence[str]) -> list[dict[str, Any]]:
    """openskill (Plackett-Luce) ratings, games fed in the order given, best first.

    Each strategy present in a game is one team ranked by its best seat's return.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in strategies}
    for game in games:
        best: dict[str, float] = {}
        for seat, value in zip(game.seats, game.returns, strict=True):
            best[seat] = max(value, best.get(seat, -math.inf))
        names = sorted(best)
        if len(names) < 2:
            continue
        teams = model.rate(
            [[current[name]] for name in names], scores=[best[name] for name in names]
        )
        for name, team in zip(names, teams, strict=True):
            current[name] = team[0]
    table = [
        {
            "strategy": name,
            "mu": _round(rating.mu),
            "sigma": _round(rating.sigma),
            "ordinal": _round(rating.ordinal()),
        }
        for name, rating in current.items()
    ]
    return sorted(table, key=lambda row: (-(row["ordinal"] or 0.0), row["strategy"]))
