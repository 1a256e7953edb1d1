"""Class tournaments with the courses' public programs as students (bench/tournament_peers.py):
each skips with its reason when its peers are not built here (PENGUINS_PEERS, FISH_PEER,
CGS_DIR), and otherwise runs to its results with every program playing cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.tournament_peers import GAMES, run_class

#: The teams of each class that are the peers' programs (the rest are ours).
PEERS = {
    "penguins": {"dmitmel", "damian-t6"},
    "fish": {"ocaml-1", "ocaml-2"},
    "labyrinth": {"c-api-1", "c-api-2"},
}


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_class_of_the_courses_programs_and_ours_runs_to_the_end(
    tmp_path: Path, game: str
) -> None:
    data = run_class(game, tmp_path, games=2, concurrency=2)
    if isinstance(data, str):
        pytest.skip(f"{game}: {data}")
    assert data["complete"] is True
    teams = {row["team"]: row for row in data["teams"]}
    assert PEERS[game] <= set(teams)
    # Four teams, each pair twice (both seat orders): twelve matches, every one played.
    assert len(data["matches"]) == 12
    assert all(data["preflight"][name]["passed"] for name in PEERS[game])
    for name, row in teams.items():
        assert row["played"] == 6, name
        assert row["failures"] == [], (name, row["failures"])
