"""The statistics of replay/stats.py against known values and independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from replay.stats import (
    GameRecord,
    Sprt,
    elo_from_score,
    elo_interval,
    gsprt_llr,
    pairing_summary,
    pairwise_score,
    ratings,
    score_from_elo,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Published Wilson 95% intervals (e.g. Newcombe 1998, table I; Brown, Cai, DasGupta).
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (8, 10, 0.4902, 0.9433),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_matches_published_values(
    successes: int, trials: int, low: float, high: float
) -> None:
    """The Wilson interval of k successes in n trials is the textbook one to 4 decimals."""
    lo, hi = wilson_interval(successes / trials, trials)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize(
    ("score", "elo"),
    [(0.5, 0.0), (0.75, 400 * math.log10(3)), (0.25, -400 * math.log10(3)), (10 / 11, 400.0)],
)
def test_elo_of_a_score_is_the_logistic_one(score: float, elo: float) -> None:
    """A score of 3/4 is 400 log10(3) Elo, a 10:1 odds score is 400 Elo."""
    assert elo_from_score(score) == pytest.approx(elo)
    assert score_from_elo(elo) == pytest.approx(score)


@pytest.mark.parametrize("score", [0.0, 1.0])
def test_elo_of_a_clean_sweep_is_infinite_and_reported_as_none(score: float) -> None:
    """Every game won (or lost) has no finite Elo."""
    assert elo_from_score(score) is None


def test_elo_interval_maps_the_normal_score_interval() -> None:
    """100 groups scoring 1 or 0 half the time: score 0.5 +- 1.96 * 0.05, mapped to Elo."""
    elo, (lo, hi) = elo_interval([1.0, 0.0] * 50)
    assert elo == pytest.approx(0.0)
    high_score = 0.5 + 1.959964 * 0.05
    assert hi == pytest.approx(400 * math.log10(high_score / (1 - high_score)), abs=1e-3)
    assert hi is not None
    assert lo == pytest.approx(-hi)


def independent_llr(counts: dict[float, float], elo0: float, elo1: float) -> float:
    """The GSPRT LLR by general-purpose constrained optimisation (scipy SLSQP)."""
    support = np.array(sorted(counts))
    n = np.array([max(counts[x], 1e-3) for x in support])

    def best_loglik(mean: float) -> float:
        result = minimize(
            lambda p: -float(np.sum(n * np.log(np.clip(p, 1e-300, None)))),
            n / n.sum(),
            constraints=[
                {"type": "eq", "fun": lambda p: float(np.sum(p) - 1)},
                {"type": "eq", "fun": lambda p: float(np.dot(p, support) - mean)},
            ],
            bounds=[(1e-12, 1)] * len(support),
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        return -float(result.fun)

    return best_loglik(score_from_elo(elo1)) - best_loglik(score_from_elo(elo0))


@pytest.mark.parametrize(
    "counts",
    [
        {0.0: 30, 0.5: 40, 1.0: 50},  # trinomial W/D/L, a slightly ahead
        {0.0: 10, 0.25: 45, 0.5: 90, 0.75: 40, 1.0: 15},  # pentanomial pairs, level
        {0.0: 0, 0.25: 5, 0.5: 20, 0.75: 30, 1.0: 8},  # empty cell regularised
    ],
)
def test_gsprt_llr_equals_the_constrained_likelihood_ratio(counts: dict[float, float]) -> None:
    """The LLR is the ratio of likelihoods maximised under each hypothesis' mean score."""
    assert gsprt_llr(counts, 0.0, 20.0) == pytest.approx(
        independent_llr(counts, 0.0, 20.0), abs=1e-4
    )


def test_gsprt_llr_agrees_with_the_normal_approximation_for_small_elo() -> None:
    """For small Elo bounds the LLR is N (s1 - s0)(2 mean - s0 - s1) / (2 var), as in fishtest."""
    counts = {0.0: 300.0, 0.5: 350.0, 1.0: 350.0}
    n = sum(counts.values())
    mean = sum(x * c for x, c in counts.items()) / n
    var = sum(c * (x - mean) ** 2 for x, c in counts.items()) / n
    s0, s1 = score_from_elo(0), score_from_elo(5)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert gsprt_llr(counts, 0.0, 5.0) == pytest.approx(approx, rel=0.01)


def feed(sprt: Sprt, scores: list[float]) -> int:
    """Feed group scores until decided; return how many were used."""
    for used, score in enumerate(scores, start=1):
        if sprt.add(score) is not None:
            return used
    return len(scores)


@pytest.mark.parametrize(
    ("pattern", "decision"),
    [
        ([1.0, 0.75, 0.5, 1.0], "H1"),  # a far stronger: mean score 0.81
        ([0.5, 0.25, 0.75, 0.5], "H0"),  # level: mean 0.5
        ([0.25, 0.0, 0.5, 0.25], "H0"),  # a weaker
    ],
)
def test_sprt_decides_synthetic_sequences(pattern: list[float], decision: str) -> None:
    """A clearly stronger, level or weaker sequence ends in H1, H0, H0 within 5000 pairs."""
    sprt = Sprt(elo0=0, elo1=20, games_per_group=2)
    used = feed(sprt, pattern * 1250)
    assert sprt.decision == decision
    assert used < 5000
    assert sprt.llr >= sprt.upper if decision == "H1" else sprt.llr <= sprt.lower


def test_sprt_bounds_are_walds() -> None:
    """With alpha = beta = 0.05 the bounds are -+ log(19) = -+2.944."""
    sprt = Sprt()
    assert sprt.lower == pytest.approx(-math.log(19))
    assert sprt.upper == pytest.approx(math.log(19))


def test_sprt_stays_undecided_between_the_hypotheses() -> None:
    """A sequence at 10 Elo, between elo0=0 and elo1=20, is still open after 20 pairs."""
    sprt = Sprt(elo0=0, elo1=20)
    assert feed(sprt, [0.5, 0.75, 0.25, 0.5, 0.5] * 4) == 20
    assert sprt.decision is None


@pytest.mark.parametrize(("elo0", "elo1"), [(20, 0), (5, 5)])
def test_sprt_refuses_inverted_bounds(elo0: float, elo1: float) -> None:
    """elo0 must be below elo1."""
    with pytest.raises(ValueError, match="elo0 < elo1"):
        Sprt(elo0=elo0, elo1=elo1)


def game(group: int, seats: tuple[str, ...], returns: tuple[float, ...]) -> GameRecord:
    return GameRecord(
        group, seats, returns, 10, tuple({"kills": float(i)} for i in range(len(seats)))
    )


def test_pairing_summary_counts_for_a_whatever_its_seat() -> None:
    """Wins and losses are a's, in either seat; a draw counts half in the win rate."""
    games = [
        game(0, ("a", "b"), (1, -1)),
        game(0, ("b", "a"), (1, -1)),
        game(1, ("a", "b"), (0, 0)),
        game(1, ("b", "a"), (-1, 1)),
    ]
    summary = pairing_summary("a", "b", games)
    assert (summary["wins"], summary["draws"], summary["losses"]) == (2, 1, 1)
    assert summary["win_rate"] == pytest.approx(0.625)
    assert summary["stats_a"] == {"kills": 0.5}


def test_multi_seat_games_compare_each_strategys_best_seat() -> None:
    """In a four-seat game, a beats b when a's best seat beats b's best seat."""
    four = game(0, ("a", "b", "a", "b"), (3, 5, 6, 1))
    assert pairwise_score(four, "a", "b") == 1.0
    assert pairwise_score(four, "b", "a") == 0.0


def test_ratings_rank_the_strongest_first() -> None:
    """A strategy that beats both others tops the openskill table."""
    games = []
    for group in range(20):
        games += [
            game(group, ("x", "y"), (1, -1)),
            game(group, ("x", "z"), (1, -1)),
            game(group, ("y", "z"), (1, -1)),
        ]
    table = ratings(games, ["z", "y", "x"])
    assert [row["strategy"] for row in table] == ["x", "y", "z"]
    assert table[0]["mu"] > table[1]["mu"] > table[2]["mu"]


def test_a_clean_sweep_gets_a_finite_lower_elo_bound_from_wilson() -> None:
    """Ten wins out of ten: Elo is infinite, but its lower bound is the Wilson bound's Elo."""
    games = [game(g, ("a", "b"), (1, -1)) for g in range(10)]
    summary = pairing_summary("a", "b", games)
    assert summary["elo"] is None
    low_score = 0.7225  # Wilson lower bound of 10/10 (1 - 0.2775, the 0/10 upper bound)
    assert summary["elo_ci95"][0] == pytest.approx(
        400 * math.log10(low_score / (1 - low_score)), abs=0.5
    )
    assert summary["elo_ci95"][1] is None
