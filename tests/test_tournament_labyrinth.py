"""Labyrinth tournaments end to end: client programs, sandboxed, on the run's own 2017-protocol
server; our client finishes a league, and every hostile program gets its one reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import sandbox_mode, write_teams

from arena.tournament.cli import main
from server.competition.labyrinth import labyrinth_reason

#: The start of a client of the course's protocol: sign up, wait for a game, read its data.
CLIENT = r"""
import os, socket, sys, time
host, port, name = sys.argv[1:4]

def exact(n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            sys.exit(5)
        data += chunk
    return data

def read():
    return exact(int(exact(4))).decode()

def send(text):
    s.sendall(text.encode())

s = socket.create_connection((host, int(port)))
send(f"CLIENT_NAME {name}"); read()
send("WAIT_GAME "); read(); read(); read()
send("GET_GAME_DATA"); read(); read(); start = read()
print("playing", name, "start", start, flush=True)
"""

HOSTILE = {
    "crash": "os._exit(3)\n",
    "hang": "time.sleep(600)\n",
    "garbage": "send('HELLO <b>there</b>'); time.sleep(600)\n",
    "never": None,
    # A rotation with no energy: the rules' loss.
    "rotate": "if start == '1':\n    send('GET_MOVE'); read(); read(); read()\n"
    "send('PLAY_MOVE 0 0'); read(); time.sleep(600)\n",
    # Past its output's file size: the kernel's SIGXFSZ ends it (as it ends a C program;
    # Python ignores the signal unless told not to).
    "flood": "import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
    "sys.stdout.write('x' * (17 << 20)); sys.stdout.flush(); time.sleep(600)\n",
}
EXPECTED = {
    "crash": "crashed",
    "hang": "time_limit",
    "garbage": "protocol_error",
    "never": "never_connected",
    "rotate": "illegal_move",
    "flood": "sandbox_limit",
}


def run(
    tmp_path: Path, teams: list[dict[str, Any]], *extra: str, **settings: Any
) -> dict[str, Any]:
    path = write_teams(
        tmp_path, teams, game="labyrinth", config=None, call_seconds=1, connect_seconds=4,
        match_seconds=60, **settings,
    )  # fmt: skip
    out = tmp_path / "out"
    assert main([str(path), "--out", str(out), "--sandbox", sandbox_mode(), *extra]) == 0
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    data["out"] = out
    return data


@pytest.mark.slow
def test_our_client_finishes_a_league_and_a_knockout(tmp_path: Path) -> None:
    """Three built-in clients play every game of a league to its end (each game a real game on
    the server, logged, with a replay page naming the teams); the knockout crowns a champion."""
    teams = [
        {"name": "rot", "builtin": "rotator"},
        {"name": "astar", "builtin": "astar"},
        {"name": "rand", "builtin": "random"},
    ]
    data = run(tmp_path, teams)
    assert data["complete"] is True
    assert len(data["matches"]) == 6
    for match in data["matches"]:
        assert match["failures"] == []
        assert match["turns"] > 0
        page = (data["out"] / match["replay"]).read_text()
        assert "../index.html" in page
        assert all(team in page for team in match["seats"])
    assert data["teams"][-1]["team"] == "rand"
    (tmp_path / "ko").mkdir()
    knockout = run(tmp_path / "ko", teams, format="knockout")
    assert knockout["champion"] in {"rot", "astar"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_client_loses_every_game_with_its_reason(tmp_path: Path, kind: str) -> None:
    """Against our client, a program that crashes, hangs, sends garbage, never connects or
    makes an illegal move loses both games (each seat once), with that one reason and a
    link to its output."""
    folder = tmp_path / kind
    folder.mkdir()
    source = HOSTILE[kind]
    program = "import time\ntime.sleep(600)\n" if source is None else CLIENT + source
    (folder / "client.py").write_text(program)
    teams = [
        {"name": "rot", "builtin": "rotator"},
        {"name": kind, "dir": kind,
         "command": [sys.executable, "client.py", "{host}", "{port}", "{name}"]},
    ]  # fmt: skip
    data = run(tmp_path, teams)
    failures = next(row["failures"] for row in data["teams"] if row["team"] == kind)
    # The pre-flight game against a built-in client found it first (reason preflight, naming
    # the same cause); then each of its games failed alike.
    assert [f["reason"] for f in failures] == ["preflight"] + [EXPECTED[kind]] * 2
    assert failures[0]["detail"].startswith(EXPECTED[kind])
    failures = failures[1:]
    for match in data["matches"]:
        assert match["points"][match["seats"].index("rot")] == 1.0
        assert f"{kind} lost: {EXPECTED[kind]}" in match["result"]
        output = match["outputs"][match["seats"].index(kind)]
        assert (data["out"] / output).is_file()
    rot = next(row for row in data["teams"] if row["team"] == "rot")
    assert rot["failures"] == []
    if kind == "crash":
        assert all("exit code 3" in f["detail"] for f in failures)


@pytest.mark.parametrize(
    ("end", "failed", "expected"),
    [
        ({"winner": 0, "reason": "player 0 reached the treasure"}, (False, False), None),
        ({"winner": None, "reason": "no winner after 1000 turns"}, (False, False), None),
        ({"winner": 1, "reason": "a: Timeout", "forfeit": 0}, (False, False), (0, "time_limit")),
        ({"winner": 0, "reason": "b: Disconnection", "forfeit": 1}, (False, False),
         (1, "disconnected")),
        ({"winner": 0, "reason": "b: Disconnection", "forfeit": 1}, (False, True),
         (1, "crashed")),
        ({"winner": 0, "reason": "b: played out of turn", "forfeit": 1}, (False, False),
         (1, "protocol_error")),
        ({"winner": 1, "reason": "player 0 rotated without energy"}, (False, False),
         (0, "illegal_move")),
    ],
)  # fmt: skip
def test_a_games_end_gives_one_reason(
    end: dict[str, Any], failed: tuple[bool, bool], expected: tuple[int, str] | None
) -> None:
    """The end record and the programs' exits give at most one failing seat and its reason;
    a failed exit wins over the disconnection it caused."""
    assert labyrinth_reason(end, failed) == expected
