"""--add TEAM in a swiss and a knockout: a swiss takes the late team from its next round and
keeps every match already played; a knockout refuses it once its bracket has begun."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import write_teams

from arena.tournament.cli import main
from server.competition.pairings import Plan

FOUR = [{"name": name, "builtin": "rusher"} for name in ("ann", "bob", "cy", "dee")]


def results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


def test_a_swiss_plays_the_same_rounds_before_a_late_team_joins() -> None:
    """The plan of rounds up to the one a late team joined after is the plan without it; the
    team is paired from the next round on, and the swiss keeps its number of rounds."""
    wins: dict[int, tuple[float, ...]] = {}
    first = Plan(list("abcd"), format="swiss", games_per_pair=2, seed=3)
    late = Plan(list("abcd"), format="swiss", games_per_pair=2, seed=3, late=["e"],
                joined={"e": 1})  # fmt: skip
    batch = first.next_games(wins)
    assert batch == late.next_games(wins)
    assert all("e" not in game.seats for game in batch)
    for game in batch:  # seat 0 wins every game
        wins[game.index] = (1.0, 0.0)
    second = late.next_games(wins)
    assert second is not None
    assert any("e" in game.seats for game in second)
    assert late.rounds == first.rounds == 2


@pytest.mark.slow
def test_a_late_team_joins_a_swiss_from_its_next_round_and_keeps_every_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A swiss of four stopped after its first round (its journal cut there); --add late: the
    first round's matches are kept as they were, the late team plays in rounds 2 and 3 only,
    and a swiss whose rounds have all begun refuses a team with one line."""
    teams = write_teams(tmp_path, FOUR, format="swiss", rounds=3)
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0
    journal = out / "results.json.journal"
    lines = journal.read_text().splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if json.loads(line)["round"] == 1]
    journal.write_text("\n".join(kept) + "\n")
    first_round = {m["index"]: m for m in map(json.loads, kept[1:])}
    write_teams(tmp_path, [*FOUR, {"name": "late", "builtin": "rusher"}], format="swiss",
                rounds=3)  # fmt: skip
    assert main([str(teams), "--out", str(out), "--add", "late", "--sandbox", "none"]) == 0
    matches = {m["index"]: m for m in results(out)["matches"]}
    for index, match in first_round.items():
        assert matches[index] == match
    rounds = {m["round"] for m in matches.values() if "late" in m["seats"]}
    assert rounds
    assert rounds <= {2, 3}
    assert max(m["round"] for m in matches.values()) == 3
    assert "late" in {row["team"] for row in results(out)["teams"]}
    grown = [*FOUR, {"name": "late", "builtin": "rusher"}, {"name": "later", "builtin": "rusher"}]
    write_teams(tmp_path, grown, format="swiss", rounds=3)
    capsys.readouterr()
    assert main([str(teams), "--out", str(out), "--add", "later", "--sandbox", "none"]) == 1
    assert "--add later: all 3 swiss rounds have begun" in capsys.readouterr().err
    assert {m["index"]: m for m in results(out)["matches"]} == matches


@pytest.mark.slow
def test_a_knockout_refuses_a_late_team_once_its_bracket_has_begun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A finished knockout: --add is one line naming why (exit 1), and nothing is replayed."""
    teams = write_teams(tmp_path, FOUR, format="knockout")
    out = tmp_path / "out"
    assert main([str(teams), "--out", str(out), "--sandbox", "none"]) == 0
    before = results(out)["matches"]
    write_teams(tmp_path, [*FOUR, {"name": "late", "builtin": "rusher"}], format="knockout")
    capsys.readouterr()
    assert main([str(teams), "--out", str(out), "--add", "late", "--sandbox", "none"]) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert error[-1:] == [
        "arena tournament: --add late: the knockout bracket has begun (6 matches played); "
        "a team joins a knockout only before its first knockout match"
    ]
    assert results(out)["matches"] == before
