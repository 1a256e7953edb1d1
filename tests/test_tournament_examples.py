"""The example classes of docs/examples/classes/ run as they stand, one command each: the
program meant to fail fails with its known reason, the C program (compiled by its teams file's
command) plays cleanly, and the others play on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tournament_kit import sandbox_mode

from arena.tournament.cli import main

CLASSES = Path(__file__).parent.parent / "docs" / "examples" / "classes"

#: Each class's program that fails on purpose, and its reason.
EXPECTED = {
    "dungeon": ("quitter", "crashed"),
    "penguins": ("crasher", "crashed"),
    "labyrinth": ("babbler", "protocol_error"),
    "fish": ("garbler", "protocol_error"),
}

#: Each class's program in C, built by its command (cc) inside the sandbox.
C_PROGRAM = {
    "dungeon": "c-walker",
    "penguins": "c-floe",
    "labyrinth": "c-stayer",
    "fish": "c-first",
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(EXPECTED))
def test_an_example_class_runs_in_one_command(tmp_path: Path, game: str) -> None:
    """arena tournament docs/examples/classes/GAME/teams.toml: every match is played, the
    failing program fails its pre-flight and every match with its known reason, the student
    program that plays legally never fails."""
    out = tmp_path / "out"
    teams = CLASSES / game / "teams.toml"
    assert main([str(teams), "--out", str(out), "--sandbox", sandbox_mode()]) == 0
    data = json.loads((out / "results.json").read_text())
    assert data["complete"] is True
    assert data["game"] == game
    failing, reason = EXPECTED[game]
    rows = {row["team"]: row for row in data["teams"]}
    reasons = [f["reason"] for f in rows[failing]["failures"]]
    assert reasons[0] == "preflight"
    assert set(reasons[1:]) == {reason}
    assert len(reasons[1:]) == rows[failing]["played"]
    for team, row in rows.items():
        if team != failing:
            assert row["failures"] == [], team
    assert rows[C_PROGRAM[game]]["played"] > 0
    assert data["preflight"][C_PROGRAM[game]]["passed"] is True
