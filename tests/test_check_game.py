"""`arena check-client --game fish|labyrinth|penguins`: each game's starter passes as a
tournament will run it, and a program that fails in a known way is told its one reason, with
its own output."""

from __future__ import annotations

from pathlib import Path

import pytest
from tournament_kit import sandbox_mode

from arena import check_client
from arena.check_game import program_folder

ROOT = Path(__file__).resolve().parent.parent
STARTERS = ROOT / "docs" / "starters"
CLASSES = ROOT / "docs" / "examples" / "classes"

#: (game, the starter, a program of the example class that fails, its reason, its own words)
CASES = [
    ("fish", "fish_client.py", "fish/garbler/client.py", "protocol_error", "garbler: sent"),
    ("labyrinth", "labyrinth_client.py", "labyrinth/babbler/client.py", "protocol_error",
     "babbler: sent HELLO"),
    ("penguins", "penguins_player.py", "penguins/crasher/player.py", "crashed",
     "crasher: internal error"),
]  # fmt: skip


@pytest.mark.parametrize(("game", "starter", "failing", "reason", "said"), CASES)
def test_the_starter_passes_and_a_known_failure_is_named(
    game: str,
    starter: str,
    failing: str,
    reason: str,
    said: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ["--game", game, "--sandbox", sandbox_mode(), "--"]
    assert check_client.main([*base, str(STARTERS / starter)]) == 0
    out, err = capsys.readouterr()
    assert "PASS  plays" in out
    assert "1 of 1 checks passed" in out
    assert "playing one game against the built-in player" in err

    assert check_client.main([*base, str(CLASSES / failing)]) == 1
    out, _ = capsys.readouterr()
    assert f"FAIL  plays: {reason}" in out
    assert f"see: docs/{game}.md" in out
    assert said in out  # the program's own last lines


def test_the_programs_folder_is_the_folder_of_the_file_it_names(tmp_path: Path) -> None:
    script = tmp_path / "bots" / "me.py"
    script.parent.mkdir()
    script.write_text("")
    folder, command = program_folder(["python3", str(script), "x"], None)
    assert folder == script.parent
    assert command == ["python3", "./me.py", "x"]
    assert program_folder(["penguins-player"], None) == (None, ["penguins-player"])
    assert program_folder(["./a"], tmp_path) == (tmp_path, ["./a"])
