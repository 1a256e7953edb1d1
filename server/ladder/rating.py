"""A ladder match's effect on its versions' ratings and records: pure.

openskill's Plackett-Luce model (as ``arena sim`` and ``arena tournament`` rate), each version
a team of one, ranked by the match's scores (higher is better: Penguins' fish, else points).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MU", "SIGMA", "Rating", "outcomes", "ranks", "rate"]

#: A new version's rating: openskill's defaults.
MU = 25.0
SIGMA = 25.0 / 3


@dataclass(frozen=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def low(self) -> float:
        """The interval's low end, mu - 2 sigma (about 95%)."""
        return self.mu - 2 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + 2 * self.sigma


def ranks(scores: Sequence[float]) -> list[int]:
    """Each seat's place, 0 first: how many seats scored strictly more (ties share a place)."""
    return [sum(other > score for other in scores) for score in scores]


def outcomes(scores: Sequence[float]) -> list[str]:
    """Each seat's ``win``, ``draw`` (a shared first place) or ``loss``."""
    places = ranks(scores)
    first = places.count(0)
    return ["loss" if place else ("win" if first == 1 else "draw") for place in places]


def rate(before: Sequence[Rating], scores: Sequence[float]) -> list[Rating]:
    """The seats' ratings after a match they finished with ``scores``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = model.rate(teams, scores=list(scores))
    return [Rating(team[0].mu, team[0].sigma) for team in after]
