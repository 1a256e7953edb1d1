"""Fish tournaments end to end: client programs, sandboxed, each game on a Fish server of its own;
seats rotated, and every hostile program gets its one reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import sandbox_mode, write_teams

from arena.tournament.cli import main
from server.competition.fish_records import fish_reason

#: Signs up with its name, then dies with exit code 3 at the first call.
CRASH = r"""
import json, os, socket, sys
host, port, name = sys.argv[1:4]
s = socket.create_connection((host, int(port)))
s.sendall(json.dumps(name).encode())
s.recv(100)
print("leaving with exit code 3", flush=True)
os._exit(3)
"""

#: Signs up, then writes past its output's file size: the kernel's SIGXFSZ ends it (as it
#: ends a C program; Python ignores the signal unless told not to).
FLOOD = r"""
import json, signal, socket, sys, time
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
host, port, name = sys.argv[1:4]
s = socket.create_connection((host, int(port)))
s.sendall(json.dumps(name).encode())
s.recv(100)
sys.stdout.write("x" * (17 << 20))
sys.stdout.flush()
time.sleep(600)
"""


def misbehaving(kind: str) -> list[str]:
    """Our client, told to misbehave in one known way (arena fish clients --misbehave)."""
    return [
        sys.executable, "-m", "arena", "fish", "clients", "1", "--host", "{host}", "--port",
        "{port}", "--names", "{name}", "--misbehave", kind,
    ]  # fmt: skip


HOSTILE: dict[str, tuple[list[str], str]] = {
    "garbage": (misbehaving("garbage"), "protocol_error"),
    "silent": (misbehaving("silent"), "time_limit"),
    "cheat": (misbehaving("double-place"), "illegal_move"),
    "quits": (misbehaving("disconnect"), "disconnected"),
    "crash": ([sys.executable, "crash.py", "{host}", "{port}", "{name}"], "crashed"),
    "flood": ([sys.executable, "flood.py", "{host}", "{port}", "{name}"], "sandbox_limit"),
    "never": ([sys.executable, "-c", "import time; time.sleep(600)"], "never_connected"),
}


def run(tmp_path: Path, teams: list[dict[str, Any]]) -> dict[str, Any]:
    path = write_teams(
        tmp_path, teams, game="fish", players_per_game=3, games_per_pair=3, call_seconds=1,
        connect_seconds=3, match_seconds=60, config=None,
    )  # fmt: skip
    out = tmp_path / "out"
    argv = ["--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([str(path), "--out", str(out), *argv]) == 0
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    data["out"] = out
    return data


@pytest.mark.slow
def test_three_seat_games_of_our_clients_rotate_every_seat(tmp_path: Path) -> None:
    """Three built-in clients play three games, each team once in every seat; every game is
    logged with a replay page naming the teams and linking back; nobody fails."""
    teams = [
        {"name": "greedy", "builtin": "greedy"},
        {"name": "mm1", "builtin": "minimax1"},
        {"name": "mm2", "builtin": "minimax2"},
    ]
    data = run(tmp_path, teams)
    assert len(data["matches"]) == 3
    for team in ("greedy", "mm1", "mm2"):
        assert sorted(m["seats"].index(team) for m in data["matches"]) == [0, 1, 2]
    for match in data["matches"]:
        assert match["failures"] == []
        assert sum(match["points"]) == 1
        assert sum(match["fish"]) > 0
        page = (data["out"] / match["replay"]).read_text()
        assert "../index.html" in page
        assert all(team in page for team in match["seats"])


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_client_loses_every_game_with_its_reason(tmp_path: Path, kind: str) -> None:
    """Beside two of our clients, a program that sends garbage, never answers, cheats, hangs
    up, crashes or never connects loses each of its three games with that one reason; the
    others play on."""
    command, reason = HOSTILE[kind]
    (tmp_path / kind).mkdir()
    (tmp_path / kind / "crash.py").write_text(CRASH)
    (tmp_path / kind / "flood.py").write_text(FLOOD)
    teams = [
        {"name": "greedy", "builtin": "greedy"},
        {"name": "mm1", "builtin": "minimax1"},
        {"name": kind, "dir": kind, "command": command},
    ]
    data = run(tmp_path, teams)
    rows = {row["team"]: row for row in data["teams"]}
    assert [f["reason"] for f in rows[kind]["failures"]] == [reason] * 3
    assert rows["greedy"]["failures"] == []
    assert rows["mm1"]["failures"] == []
    assert rows[kind]["points"] == 0
    for match in data["matches"]:
        assert f"{kind} lost: {reason}" in match["result"]
        assert sum(match["points"]) == 1
    if kind == "crash":
        assert all("exit code 3" in f["detail"] for f in rows[kind]["failures"])


@pytest.mark.parametrize(
    ("kind", "text", "failed", "expected"),
    [
        ("cheated", "placed on a hole at [0, 0]", False, "illegal_move"),
        ("failed", "setup: no reply within 3 s", False, "time_limit"),
        ("failed", "setup: connection broken", False, "disconnected"),
        ("failed", "setup: connection broken", True, "crashed"),
        ("failed", "setup: not JSON", False, "protocol_error"),
    ],
)
def test_a_referees_verdict_gives_one_reason(
    kind: str, text: str, failed: bool, expected: str
) -> None:
    """The referee's verdict and the program's exit give one reason; a failed exit wins over
    the broken connection it caused."""
    assert fish_reason(kind, text, failed) == expected


@pytest.mark.slow
def test_the_courses_knockout_manager_as_a_format(tmp_path: Path) -> None:
    """format = "fish-knockout": every team signs up to one server in file order and the
    course's manager plays its rounds (6 players: games of 4 and 2, then the winners); a
    program that crashes at start and one that never signs up lose with their reasons before
    any game; the champion is the final's winner."""
    (tmp_path / "crash").mkdir()
    (tmp_path / "crash" / "crash.py").write_text(CRASH)
    teams = [{"name": f"house{i}", "builtin": "greedy"} for i in range(4)] + [
        {"name": "crash", "dir": "crash", "command": HOSTILE["crash"][0]},
        {"name": "never", "dir": "crash", "command": HOSTILE["never"][0]},
    ]
    path = write_teams(
        tmp_path, teams, game="fish", format="fish-knockout", call_seconds=1,
        connect_seconds=2, match_seconds=60, config=None,
    )  # fmt: skip
    out = tmp_path / "out"
    argv = ["--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([str(path), "--out", str(out), *argv]) == 0
    data = json.loads((out / "results.json").read_text())
    rows = {row["team"]: row for row in data["teams"]}
    assert [f["reason"] for f in rows["crash"]["failures"]] == ["crashed"]
    assert [f["reason"] for f in rows["never"]["failures"]] == ["never_connected"]
    games = [m for m in data["matches"] if m["round"] >= 1]
    assert [len(m["seats"]) for m in games if m["round"] == 1] == [4]
    assert data["champion"]
    assert set(data["champion"]) <= {f"house{i}" for i in range(4)}
    assert data["complete"] is True
