"""The teams file of every game: what each game accepts, and one line naming the field for what
it refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.tournament.players import PLAYERS
from server.competition.teams import TeamsError, parse_teams


def teams_file(tmp_path: Path, game: str, command: list[str], **settings: Any) -> dict[str, Any]:
    (tmp_path / "a").mkdir(exist_ok=True)
    house = {"penguins": "greedy", "labyrinth": "astar", "fish": "greedy"}[game]
    return {
        "tournament": {"name": "t", "game": game, **settings},
        "team": [{"name": "a", "dir": "a", "command": command}, {"name": "b", "builtin": house}],
    }


def test_an_empty_argument_is_accepted_an_empty_program_is_not(tmp_path: Path) -> None:
    """The course's Labyrinth C client takes WAIT_GAME's options as an argument, empty for a
    game against another program: accepted; an empty program is refused, naming the field."""
    ok = parse_teams(
        teams_file(tmp_path, "labyrinth", ["./client", "{host}", "{port}", "{name}", ""]),
        base=tmp_path,
    )
    assert ok.teams[0].command[-1] == ""
    with pytest.raises(TeamsError, match=r"team\[0\] \(a\)\.command"):
        parse_teams(teams_file(tmp_path, "labyrinth", ["", "x"]), base=tmp_path, players=PLAYERS)


@pytest.mark.parametrize(
    ("game", "command", "settings", "field"),
    [
        ("penguins", ["./p", "{host}"], {}, "command"),
        ("labyrinth", ["./c", "{token}"], {}, "command"),
        ("penguins", ["./p"], {"players_per_game": 2, "games_per_pair": 3}, "games_per_pair"),
        ("penguins", ["./p"], {"players_per_game": 5}, "players_per_game"),
        ("labyrinth", ["./c"], {"players_per_game": 3}, "players_per_game"),
        ("penguins", ["./p"], {"format": "fish-knockout"}, "format"),
        ("penguins", ["./p"], {"config": {"nodes": 300}}, "config"),
        ("fish", ["./c"], {"rules": "spec"}, "rules"),
        ("labyrinth", ["./c"], {"rules": "nope"}, "rules"),
        ("penguins", ["./p"], {"rows": 2, "cols": 2, "penguins": 3}, "penguins"),
    ],
)  # fmt: skip
def test_a_games_teams_file_refuses_what_the_game_has_not(
    tmp_path: Path, game: str, command: list[str], settings: dict[str, Any], field: str
) -> None:
    """A placeholder, option or format the game does not have is one error naming its field."""
    with pytest.raises(TeamsError, match=field):
        parse_teams(teams_file(tmp_path, game, command, **settings), base=tmp_path, players=PLAYERS)


def test_each_game_has_its_defaults(tmp_path: Path) -> None:
    """Fish seats 4 a game by default (spec), Penguins and Labyrinth 2; the game's options
    take their defaults."""
    fish = parse_teams(teams_file(tmp_path, "fish", ["./c"], games_per_pair=4,
                                  players_per_game=2), base=tmp_path, players=PLAYERS)  # fmt: skip
    assert fish.options == {"rows": 5, "cols": 5, "fish": 2, "holes": 0, "call_seconds": 3.0}
    with pytest.raises(TeamsError, match="4 seats but 2 teams"):
        parse_teams(
            teams_file(tmp_path, "fish", ["./c"], games_per_pair=4), base=tmp_path, players=PLAYERS
        )
    penguins = parse_teams(
        teams_file(tmp_path, "penguins", ["./p"]), base=tmp_path, players=PLAYERS
    )
    assert penguins.players_per_game == 2
    assert penguins.options["call_seconds"] == 2.0
    labyrinth = parse_teams(
        teams_file(tmp_path, "labyrinth", ["./c"]), base=tmp_path, players=PLAYERS
    )
    assert labyrinth.options == {"call_seconds": 10.0, "max_turns": 0, "rules": "spec"}
