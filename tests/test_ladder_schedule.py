"""The ladder's scheduling policy (server/ladder/schedule.py): who plays next, against whom, in
which seat, with which seed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.ladder.schedule import WARMUP, Entrant, Ledger, match_seed, plan


def class_of(n: int, **overrides: float) -> list[Entrant]:
    return [Entrant(v, f"team{v}", activated=float(v), **overrides) for v in range(n)]


def test_a_new_version_plays_its_warmup_first() -> None:
    """A version just activated is in every match until it has had its warm-up games."""
    veterans = class_of(6, sigma=2.0)
    ledger = Ledger.of([(a.version, b.version) for a in veterans for b in veterans if a != b] * 3)
    newcomer = Entrant(99, "late", sigma=25 / 3, activated=100.0)
    pairings = plan([*veterans, newcomer], ledger, WARMUP + 2, first_number=1)
    assert [99 in p.seats for p in pairings[:WARMUP]] == [True] * WARMUP
    assert len({p.seats[0] if p.seats[1] == 99 else p.seats[1] for p in pairings[:6]}) == 6


@pytest.mark.parametrize(
    ("sigmas", "expected_anchor"),
    [
        ((3.0, 5.0, 4.0, 1.0), 1),  # equal games: the highest sigma first
        ((3.0, 3.0, 3.0, 3.0), 3),  # and equal sigma: the newest version
    ],
)
def test_equal_games_the_most_uncertain_version_plays(
    sigmas: tuple[float, ...], expected_anchor: int
) -> None:
    """Among versions with as many games, the higher sigma (then the newer) plays first."""
    entrants = [Entrant(v, f"t{v}", sigma=s, activated=float(v)) for v, s in enumerate(sigmas)]
    (pairing,) = plan(entrants, Ledger(), 1, first_number=1)
    assert expected_anchor in pairing.seats


def test_fewer_games_come_before_higher_sigma() -> None:
    """A version with fewer games plays before one with a higher sigma but more games."""
    entrants = [Entrant(0, "a", sigma=8.0), Entrant(1, "b", sigma=1.0), Entrant(2, "c", sigma=1.0)]
    ledger = Ledger.of([(0, 2), (2, 0)])
    (pairing,) = plan(entrants, ledger, 1, first_number=1)
    assert 1 in pairing.seats


def test_a_round_robin_before_any_pair_repeats() -> None:
    """From nothing, n(n-1)/2 matches of n versions are every pair once."""
    entrants = class_of(6)
    ledger = Ledger()
    pairings = plan(entrants, ledger, 15, first_number=1)
    assert sorted(tuple(sorted(p.seats)) for p in pairings) == [
        (a, b) for a in range(6) for b in range(a + 1, 6)
    ]


def test_seats_go_to_the_version_short_of_them() -> None:
    """A version that has mostly played first is seated second."""
    entrants = class_of(2)
    ledger = Ledger.of([(0, 1), (0, 1), (1, 0)])
    (pairing,) = plan(entrants, ledger, 1, first_number=1)
    assert pairing.seats == (1, 0)


def test_two_versions_of_one_team_never_meet() -> None:
    """A team's versions are never in the same match; too few teams: no match at all."""
    entrants = [Entrant(0, "a"), Entrant(1, "a"), Entrant(2, "b")]
    pairings = plan(entrants, Ledger(), 6, first_number=1)
    assert len(pairings) == 6
    assert all(2 in p.seats for p in pairings)
    assert plan(entrants, Ledger(seats=3), 1, first_number=1) == []


def test_seeds_depend_on_the_ladder_seed_and_number_only() -> None:
    """Match n's seed is the same whatever else is scheduled, and differs between ladders."""
    one = plan(class_of(4), Ledger(), 3, first_number=7, ladder_seed=5)
    other = plan(class_of(9), Ledger(), 1, first_number=8, ladder_seed=5)
    assert one[1].seed == other[0].seed == match_seed(5, 8)
    assert [p.number for p in one] == [7, 8, 9]
    assert match_seed(5, 8) != match_seed(6, 8)
    assert 0 <= match_seed(5, 8) < 2**31


def test_a_one_seat_game_is_refused() -> None:
    """A match needs two seats or more."""
    with pytest.raises(ValueError, match="at least 2 seats"):
        plan(class_of(3), Ledger(seats=1), 1, first_number=1)


def shrunk(games: int) -> float:
    """A version's sigma after some games, shrinking as openskill's does."""
    return 25 / 3 / math.sqrt(1 + games)


@settings(max_examples=40, deadline=None)
@given(
    teams=st.integers(min_value=2, max_value=9),
    seats=st.sampled_from([2, 2, 3, 4]),
    batches=st.lists(st.integers(min_value=1, max_value=3), min_size=10, max_size=30),
    order=st.permutations(range(9)),
)
def test_the_ladder_stays_fair(
    teams: int, seats: int, batches: list[int], order: list[int]
) -> None:
    """Whatever the class, its versions' order and however the queue is topped up (sigma
    shrinking with games, as openskill's does): every version plays, games stay within 2 of
    each other, each version's seats within 1 (two seats) or 2 (more), no team meets itself, and
    (two seats) every pair meets as often as every other, within 2."""
    if teams < seats:
        teams = seats
    entrants = [Entrant(v, f"t{v}", activated=float(order[v])) for v in range(teams)]
    ledger = Ledger(seats=seats)
    number = 1
    for count in batches:
        entrants = [
            Entrant(e.version, e.team, sigma=shrunk(ledger.games[e.version]), activated=e.activated)
            for e in entrants
        ]
        pairings = plan(entrants, ledger, count, first_number=number)
        number += count
        assert all(len(set(p.seats)) == seats for p in pairings)
        slack = 1 if seats == 2 else 2
        assert max(ledger.spread(e.version) for e in entrants) <= slack
    games = [ledger.games[e.version] for e in entrants]
    assert sum(games) == seats * sum(batches)
    if sum(batches) * seats >= teams:
        assert min(games) >= 1
    assert max(games) - min(games) <= 2
    if seats == 2:  # no pair repeated more than needed: every pair within 2 meetings
        met = [ledger.met(a, b) for a in range(teams) for b in range(a + 1, teams)]
        assert max(met) - min(met) <= 2
