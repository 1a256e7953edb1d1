"""The starter clients of docs/starters/ play whole matches against `arena serve`, end to end."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from serve_process import arena_serve

from replay.matchlog import read_log

STARTERS = Path(__file__).resolve().parent.parent / "docs" / "starters"


def play(commands: list[list[str]], log_dir: Path) -> list[subprocess.CompletedProcess[str]]:
    """Run one command per team (each told host, port, team, match as tournament.md says)."""
    with arena_serve(log_dir) as port:
        teams = [
            subprocess.Popen(
                [*command, "127.0.0.1", str(port), str(team), "starter-game"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for team, command in enumerate(commands)
        ]
        done = []
        for process in teams:
            out, err = process.communicate(timeout=240)
            done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def assert_a_finished_match(done: list[subprocess.CompletedProcess[str]], log_dir: Path) -> None:
    for process in done:
        assert process.returncode == 0, process.stderr
        assert "game over" in process.stdout
    [path] = log_dir.glob("*.jsonl*")
    log = read_log(path)
    assert log.complete
    [over] = [line.data for line in log.outputs if line.event == "game_over"]
    assert over["reason"] == "shrine", over  # a heir reached its shrine: both teams played


def test_the_python_starter_plays_a_match(tmp_path: Path) -> None:
    starter = [sys.executable, str(STARTERS / "starter.py")]
    done = play([starter, starter], tmp_path)
    assert_a_finished_match(done, tmp_path)


def test_the_java_starter_plays_a_match_against_the_python_one(tmp_path: Path) -> None:
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac/java not installed: the Java starter is not compiled")
    build = tmp_path / "build"
    build.mkdir()
    subprocess.run(
        ["javac", "-d", str(build), str(STARTERS / "Starter.java")],
        check=True,
        capture_output=True,
        timeout=180,
    )
    logs = tmp_path / "logs"
    java = ["java", "-cp", str(build), "Starter"]
    done = play([java, [sys.executable, str(STARTERS / "starter.py")]], logs)
    assert_a_finished_match(done, logs)
