"""Tournament pairings, teams files and standings on known inputs (pure: no programs run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.tournament.players import PLAYERS
from server.competition.pairings import Plan, bracket_order, pair_seed, swiss_pairs
from server.competition.standings import standings
from server.competition.teams import TeamsError, parse_teams


def play(plan: Plan, winner: Any) -> dict[int, tuple[float, float]]:
    """Run ``plan`` to its end, ``winner(a, b)`` deciding every game; the results by index."""
    results: dict[int, tuple[float, float]] = {}
    while (batch := plan.next_games(results)) is not None:
        for game in batch:
            w = winner(*game.seats)
            a, _ = game.seats
            results[game.index] = (0.5, 0.5) if w is None else (1.0, 0.0) if w == a else (0.0, 1.0)
    return results


def test_round_robin_plays_every_pair_with_seats_swapped_on_paired_seeds() -> None:
    """Every pair plays games_per_pair games: each seed twice, once from each seat."""
    plan = Plan(["a", "b", "c"], format="round-robin", games_per_pair=4, seed=7)
    games = plan.next_games({})
    assert games is not None
    assert len(games) == 3 * 4
    assert [g.seats for g in games[:4]] == [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")]
    assert games[0].seed == games[1].seed != games[2].seed == games[3].seed
    assert {frozenset(g.seats) for g in games} == {
        frozenset("ab"), frozenset("ac"), frozenset("bc")
    }  # fmt: skip
    assert [g.index for g in games] == list(range(12))
    assert plan.next_games({g.index: (1.0, 0.0) for g in games}) is None


def test_a_pairs_seeds_depend_only_on_the_tournament_seed_and_the_two_names() -> None:
    """Adding a team does not change the dungeons other pairs play."""
    three = Plan(["a", "b", "c"], format="round-robin", games_per_pair=2, seed=1).next_games({})
    four = Plan(["a", "b", "c", "d"], format="round-robin", games_per_pair=2, seed=1).next_games({})
    assert three is not None
    assert four is not None
    seeds3 = {g.seats: g.seed for g in three}
    seeds4 = {g.seats: g.seed for g in four}
    assert all(seeds4[seats] == seed for seats, seed in seeds3.items())
    assert pair_seed(1, "a", "b", 0) == pair_seed(1, "b", "a", 0) != pair_seed(2, "a", "b", 0)


def test_swiss_pairs_by_score_without_repeats() -> None:
    """Round 1 pairs in file order; later rounds pair leaders together, never twice."""
    plan = Plan(list("abcdef"), format="swiss", games_per_pair=2, seed=1, rounds=3)
    rounds: list[list[tuple[str, str]]] = []

    def alphabetical(a: str, b: str) -> str:
        return min(a, b)

    results: dict[int, tuple[float, float]] = {}
    while (batch := plan.next_games(results)) is not None:
        rounds.append([g.seats for g in batch[::2]])
        for game in batch:
            w = alphabetical(*game.seats)
            results[game.index] = (1.0, 0.0) if w == game.seats[0] else (0.0, 1.0)
    assert rounds == [
        [("a", "b"), ("c", "d"), ("e", "f")],
        [("a", "c"), ("e", "b"), ("d", "f")],
        [("a", "d"), ("b", "f"), ("c", "e")],
    ]
    met = [frozenset(pair) for round_ in rounds for pair in round_]
    assert len(met) == len(set(met))


def test_swiss_gives_an_odd_field_one_bye_each_from_the_bottom() -> None:
    """The lowest-placed team without a bye sits out and scores a point."""
    pairs, bye = swiss_pairs(["a", "b", "c"], set(), set())
    assert (pairs, bye) == ([("a", "b")], "c")
    pairs, bye = swiss_pairs(["c", "a", "b"], {frozenset("ab")}, {"c"})
    assert (pairs, bye) == ([("c", "a")], "b")


def test_swiss_backtracks_instead_of_repeating_a_game() -> None:
    """Greedy top-down pairing would leave c and d to meet again; the pairing avoids it."""
    pairs, _ = swiss_pairs(["a", "b", "c", "d"], {frozenset("ab"), frozenset("cd")}, set())
    assert pairs == [("a", "c"), ("b", "d")]
    with pytest.raises(ValueError, match="repeats"):
        swiss_pairs(["a", "b"], {frozenset("ab")}, set())


def test_knockout_bracket_by_order_with_byes_for_the_top_seeds() -> None:
    """Five teams: a bracket of eight, seeds 1-3 get byes, the winner is the champion."""
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    plan = Plan(list("abcde"), format="knockout", games_per_pair=2, seed=1)
    strength = {"a": 0, "b": 1, "c": 4, "d": 2, "e": 3}  # c is the strongest
    results = play(plan, lambda x, y: x if strength[x] > strength[y] else y)
    shape = [[(t.a, t.b, t.winner) for t in ties] for ties in plan.bracket]
    assert shape == [
        [("a", None, "a"), ("d", "e", "e"), ("b", None, "b"), ("c", None, "c")],
        [("a", "e", "e"), ("b", "c", "c")],
        [("e", "c", "c")],
    ]
    assert plan.champion(results) == "c"


def test_knockout_tie_on_points_goes_to_the_better_seed() -> None:
    """Each side wins once: the better seed (earlier in the file) goes through."""
    plan = Plan(["x", "y"], format="knockout", games_per_pair=2, seed=1)
    results = play(plan, lambda a, b: a)  # seat 0 always wins: one win each
    assert plan.bracket[0][0].points == [1.0, 1.0]
    assert plan.champion(results) == "x"


def test_knockout_seeded_by_a_round_robin() -> None:
    """seeding = "round-robin": the round robin's winner is seed 1, its last is seed 4."""
    plan = Plan(list("abcd"), format="knockout", games_per_pair=2, seed=1, seeding="round-robin")
    strength = {"a": 0, "b": 1, "c": 2, "d": 3}
    results = play(plan, lambda x, y: x if strength[x] > strength[y] else y)
    assert [(t.a, t.b) for t in plan.bracket[0]] == [("d", "a"), ("c", "b")]
    assert plan.champion(results) == "d"


def test_standings_count_points_failures_ratings_and_head_to_head() -> None:
    """Win 1, draw 0.5; a double failure is a loss for both; the winner rates highest."""
    records = [
        {"index": 0, "name": "m0", "seed": 5, "seats": ["a", "b"], "points": [1.0, 0.0]},
        {"index": 1, "name": "m1", "seed": 5, "seats": ["b", "a"], "points": [0.5, 0.5]},
        {
            "index": 2, "name": "m2", "seed": 6, "seats": ["b", "c"], "points": [0.0, 0.0],
            "failures": [
                {"team": "b", "reason": "crashed", "detail": "exit code 1"},
                {"team": "c", "reason": "never_connected", "detail": ""},
            ],
        },
    ]  # fmt: skip
    table = standings(["a", "b", "c"], records)
    rows = {row["team"]: row for row in table["teams"]}
    assert (rows["a"]["wins"], rows["a"]["draws"], rows["a"]["losses"]) == (1, 1, 0)
    assert rows["a"]["points"] == 1.5
    assert rows["a"]["rank"] == 1
    assert (rows["b"]["wins"], rows["b"]["draws"], rows["b"]["losses"]) == (0, 1, 2)
    assert rows["c"]["losses"] == 1
    assert rows["c"]["points"] == 0.0
    assert rows["b"]["failures"] == [{"match": "m2", "reason": "crashed", "detail": "exit code 1"}]
    assert rows["a"]["mu"] > rows["b"]["mu"]
    assert rows["a"]["sigma"] > 0
    ab = table["pairs"][0]
    assert (ab["a"], ab["b"], ab["wins"], ab["draws"], ab["losses"]) == ("a", "b", 1, 1, 0)
    low, high = ab["ci95"]
    assert 0.0 < low < 0.75 < high <= 1.0


TEAM_A = {"name": "a", "builtin": "reference"}
TEAM_B = {"name": "b", "builtin": "rusher"}


def teams_file(tmp_path: Path, **tournament: Any) -> dict[str, Any]:
    return {"tournament": {"name": "t", **tournament}, "team": [TEAM_A, TEAM_B]}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"tournament": {"name": "bad name!"}}, "tournament.name"),
        ({"tournament": {"name": "t", "format": "league"}}, "tournament.format"),
        ({"tournament": {"name": "t", "games_per_pair": 3}}, "tournament.games_per_pair"),
        ({"tournament": {"name": "t", "match_seconds": -1}}, "tournament.match_seconds"),
        ({"tournament": {"name": "t", "config": {"nodes": 2}}}, "tournament.config"),
        ({"tournament": {"name": "t", "colour": 1}}, "tournament.colour"),
        ({"team": [TEAM_A]}, "[[team]]"),
        ({"team": [TEAM_A, TEAM_A]}, "team[1].name"),
        ({"team": [TEAM_A, {"name": "b"}]}, "team[1] (b)"),
        ({"team": [TEAM_A, {"name": "b", "builtin": "nope"}]}, "team[1] (b).builtin"),
        ({"team": [TEAM_A, {"name": "b", "builtin": 7}]}, "team[1] (b).builtin"),
        ({"team": [TEAM_A, {"name": "b", "builtin": "gone.py:Team"}]}, "no such file"),
        ({"team": [TEAM_A, {"name": "b", "builtin": "json:Team"}]}, "json has no attribute Team"),
        ({"team": [TEAM_A, {"name": "b", "builtin": "json:JSONDecoder"}]}, "lacks"),
        ({"team": [TEAM_A, {"name": "b", "command": ["x"], "dir": "nowhere"}]}, "team[1] (b).dir"),
        ({"team": [TEAM_A, {"name": "b", "command": "x", "dir": "."}]}, "team[1] (b).command"),
        ({"team": [TEAM_A, {"name": "b", "command": ["{who}"], "dir": "."}]}, "{who}"),
        # Found by fuzzing: what the file names is quoted, so the error stays one line.
        ({"tournament": {"name": "t", "a\nb": 1}}, "tournament.'a\\nb'"),
        ({"team": [TEAM_A, {"name": "b", "x\ny": 1}]}, "team[1].'x\\ny'"),
        ({"x\ny": {}}, "'x\\ny'"),
        ({"team": [TEAM_A, {"name": "b", "command": ["x"], "dir": "a\nb"}]}, "a\\nb"),
    ],
)
def test_a_bad_teams_file_is_one_line_naming_the_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    """Each mistake is refused with a message that names the field at fault."""
    data = {**teams_file(tmp_path), **change}
    with pytest.raises(TeamsError) as caught:
        parse_teams(data, base=tmp_path, source="teams.toml", players=PLAYERS)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith("teams.toml: ")
    assert field in text


def test_a_builtin_of_ones_own_is_loaded_by_the_one_plugin_loader(tmp_path: Path) -> None:
    """builtin = "file.py:Class" is relative to the teams file and kept as an absolute path;
    "module:Class" as it is; both are loaded and checked as sim.plugins checks any strategy."""
    (tmp_path / "mine.py").write_text(
        "from client.strategies.rusher import Rusher\n\n\nclass Copy(Rusher):\n    pass\n"
    )
    teams = [
        {"name": "a", "builtin": "mine.py:Copy"},
        {"name": "b", "builtin": "client.strategies.rusher:Rusher"},
    ]
    tournament = parse_teams(
        {"tournament": {"name": "t"}, "team": teams}, base=tmp_path, players=PLAYERS
    )
    assert [team.builtin for team in tournament.teams] == [
        f"{tmp_path.resolve() / 'mine.py'}:Copy",
        "client.strategies.rusher:Rusher",
    ]


def test_a_good_teams_file_resolves_folders_and_applies_the_match_time(tmp_path: Path) -> None:
    """dir is relative to the file; match_seconds becomes the rules' draw time."""
    (tmp_path / "alpha").mkdir()
    data = {
        "tournament": {"name": "cs", "match_seconds": 30, "config": {"nodes": 300}},
        "team": [{"name": "alpha", "dir": "alpha", "command": ["./run", "{port}"]}, TEAM_B],
    }
    tournament = parse_teams(data, base=tmp_path, players=PLAYERS)
    assert tournament.teams[0].dir == (tmp_path / "alpha").resolve()
    assert tournament.teams[0].external
    assert not tournament.teams[1].external
    assert tournament.config.nodes == 300
    assert tournament.config.draw_seconds == 30.0
    assert tournament.format == "round-robin"
    assert tournament.games_per_pair == 2
