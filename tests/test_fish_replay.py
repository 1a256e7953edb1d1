"""Fish's logs through `arena replay show` and `render`: the replay agrees with the referee."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
import trio.testing

from arena.replay import main as replay_main
from fish.gamelog import read_jsonl
from fish.replay import fish_log_kind, game_frames, render_html
from server.fish.server import ServerConfig
from tests.fish_kit import Player, tournament


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """The logs of a five-player tournament with one cheat, played on virtual time."""
    config = ServerConfig(call_timeout=1.0, name_timeout=2.0, wait=10.0, holes=3)
    players = [Player("cheat", "move-penguin"), *(Player(n) for n in ("ann", "bob", "cy", "di"))]
    clock = trio.testing.MockClock(autojump_threshold=0)
    run = trio.run(tournament, players, config, tmp_path, clock=clock)
    assert run.standing is not None
    return tmp_path


def test_replaying_a_game_reaches_the_referees_scores(logs: Path) -> None:
    """Every game log replays through the rules to the scores its result line records."""
    games = sorted(logs.glob("game-*.jsonl.gz"))
    assert games
    for path in games:
        events = read_jsonl(path)
        _, frames = game_frames(events)
        assert frames[-1]["scores"] == events[-1]["scores"]


def test_show_prints_a_game_and_a_tournament(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """show tells each step of a game (the cheat included) and a tournament's rounds."""
    assert replay_main(["show", str(logs / "game-r1-g1.jsonl.gz")]) == 0
    text = capsys.readouterr().out
    assert "places on" in text
    assert "cheated: moved onto a penguin" in text
    assert "winners:" in text
    assert replay_main(["show", str(logs / "tournament.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "round 1: " in text
    assert "sign-up: cheat" in text
    assert "prints [" in text


def test_render_writes_a_self_contained_viewer(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """render writes one HTML page whose inlined data holds every frame."""
    out = tmp_path / "game.html"
    assert replay_main(["render", str(logs / "game-r1-g2.jsonl.gz"), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    data = page.split('id="match-data">', 1)[1].split("</script>", 1)[0]
    frames = json.loads(data)["frames"]
    _, expected = render_html(logs / "game-r1-g2.jsonl.gz")
    assert len(frames) == expected
    assert "http" not in page.replace("http://www.w3.org", "")
    assert f"steps 0 to {expected - 1}" in capsys.readouterr().out


def test_other_files_are_not_fish_logs(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"event": "header", "log": "dungeon"}\n')
    assert fish_log_kind(path) is None
    assert fish_log_kind(tmp_path / "missing.jsonl") is None


def test_render_refuses_a_tournament_log(logs: Path, tmp_path: Path) -> None:
    """A tournament log has no board to draw: one line, exit status 2."""
    status = replay_main(["render", str(logs / "tournament.jsonl"), "-o", str(tmp_path / "t.html")])
    assert status == 2
