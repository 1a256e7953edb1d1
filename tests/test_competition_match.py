"""One match of any game between given programs (server.competition.match.play_match): the
ladder's unit of work, played by the game's adapter as a tournament plays it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import SMALL, sandbox_mode

from arena.tournament.players import PLAYERS
from server.competition.match import play_match
from server.competition.teams import Team, TeamsError

#: A program that says something, then fails with exit code 3 before playing.
CRASH = "import sys\nprint('starting, then failing', flush=True)\nsys.exit(3)\n"

SETTINGS: dict[str, dict[str, Any]] = {
    "dungeon": {"config": SMALL, "match_seconds": 20, "connect_seconds": 15},
    "fish": {"call_seconds": 1, "connect_seconds": 5, "match_seconds": 60},
    "penguins": {"rows": 6, "cols": 6, "call_seconds": 2},
    "labyrinth": {"connect_seconds": 10, "match_seconds": 60, "max_turns": 60},
}
HOUSE = {"dungeon": "reference", "fish": "greedy", "penguins": "greedy", "labyrinth": "astar"}
#: A crashing program's command in each game (its arguments are the game's placeholders).
ARGS = {
    "dungeon": ["{host}", "{port}", "{team}", "{match}", "{token}"],
    "fish": ["{host}", "{port}", "{name}"],
    "penguins": [],
    "labyrinth": ["{host}", "{port}", "{name}"],
}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(HOUSE))
async def test_one_match_of_each_game_returns_its_record_log_and_outputs(
    tmp_path: Path, game: str
) -> None:
    """A built-in player against a program that crashes: one match, the crasher loses it as
    `crashed` (its exit code named), the house wins; the log and each seat's output exist."""
    (tmp_path / "crasher").mkdir()
    (tmp_path / "crasher" / "client.py").write_text(CRASH)
    programs = [
        Team(name="house", builtin=HOUSE[game]),
        Team(name="crasher", dir=tmp_path / "crasher",
             command=(sys.executable, "client.py", *ARGS[game])),
    ]  # fmt: skip
    out = tmp_path / "out"
    result = await play_match(
        game, programs, seed=7, out=out, settings=SETTINGS[game], sandbox=sandbox_mode(),
        players=PLAYERS, name="duel",
    )  # fmt: skip
    record = result.record
    assert record["seats"] == ["house", "crasher"]
    assert [f["team"] for f in record["failures"]] == ["crasher"]
    assert record["failures"][0]["reason"] in ("crashed", "never_connected"), record
    assert "exit code 3" in record["failures"][0]["detail"] or game == "penguins", record
    assert result.points[0] > result.points[1]
    assert len(result.outputs) == 2
    assert "starting, then failing" in result.outputs[1].read_text()
    if result.log is not None:
        assert result.log.is_file()
        assert out in result.log.parents


async def test_settings_a_teams_file_would_refuse_are_one_line(tmp_path: Path) -> None:
    programs = [Team(name="a", builtin="greedy"), Team(name="b", builtin="greedy")]
    with pytest.raises(TeamsError, match=r"tournament\.rows"):
        await play_match("penguins", programs, seed=1, out=tmp_path, settings={"rows": 0},
                         players=PLAYERS)  # fmt: skip
