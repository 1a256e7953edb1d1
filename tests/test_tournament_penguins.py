"""Penguins tournaments end to end: player programs, sandboxed, through the game master; every
reason of a failure asserted, results written when the last game ends."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import sandbox_mode, write_teams

from arena.tournament.cli import main
from replay.keyfile import load_key
from replay.seal import check_seal
from server.competition.report import CSV_COLUMNS, REASONS

PY = sys.executable

#: A course-like program: its identity lives in a file of its folder, written when asked its
#: name and read back on every later call (spec penguins.md: the folder lasts the whole game).
KEEPER = """
import random, sys
from client.penguins import main
if "name" in sys.argv:
    ident = f"keeper{random.randrange(10**6)}"
    open("identity.txt", "w").write(ident)
    print(ident)
    sys.exit(0)
ident = open("identity.txt").read()
sys.exit(main([*sys.argv[1:], "strategy=greedy", f"id={ident}"]))
"""
CRASH = """
import os, sys
if "name" in sys.argv:
    print("fay")
    sys.exit(0)
print("about to fail", file=sys.stderr)
os._exit(3)
"""
HANG = """
import sys, time
if "name" in sys.argv:
    print("hangs")
    sys.exit(0)
while True:
    time.sleep(1)
"""
GARBAGE = """
import sys
if "name" in sys.argv:
    print("junk")
    sys.exit(0)
print("<script>alert(1)</script>", file=sys.stderr)
open(sys.argv[-1], "w").write("<script>not a board</script>\\n")
"""
#: Plays its placements honestly, then adds 5 fish to its score instead of moving.
CHEAT = """
import sys
from protocol.penguins import parse
from client.penguins import main
if "name" in sys.argv:
    print("cheat")
    sys.exit(0)
if "phase=placement" in sys.argv:
    sys.exit(main([*sys.argv[1:], "strategy=greedy", "id=cheat"]))
board = parse(open(sys.argv[-1]).read())
me = next(p for p in board.players if p.ident == "cheat")
me.score += 5
open(sys.argv[-1], "w").write(board.render())
"""
HOARD = """
import sys
if "name" in sys.argv:
    print("hoard")
    sys.exit(0)
for i in range(1100):
    open(f"junk{i}", "w").close()
sys.exit(1)
"""


def program(name: str) -> dict[str, Any]:
    return {"name": name, "dir": name, "command": [PY, "player.py"]}


def run(
    tmp_path: Path, teams: list[dict[str, Any]], sources: dict[str, str], seconds: float = 1.5
) -> dict[str, Any]:
    for name, source in sources.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "player.py").write_text(source)
    path = write_teams(
        tmp_path, teams, game="penguins", rows=6, cols=6, players_per_game=4,
        games_per_pair=4, call_seconds=seconds, config=None, connect_seconds=None,
        match_seconds=None,
    )  # fmt: skip
    out = tmp_path / "out"
    argv = ["--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([str(path), "--out", str(out), *argv]) == 0
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    data["out"] = out
    return data


def failures_of(data: dict[str, Any], team: str) -> list[dict[str, Any]]:
    return next(row["failures"] for row in data["teams"] if row["team"] == team)


@pytest.mark.slow
def test_four_seat_games_rotate_seats_and_name_each_failure(tmp_path: Path) -> None:
    """One group of four plays four games on one board, each team once in every seat; the
    program that keeps its identity in its folder plays cleanly; the crashing program loses
    every game as crashed (its exit code named), the hanging one as time_limit; each failure
    links to the program's captured output; results.json, results.csv and index.html exist."""
    teams = [
        {"name": "house", "builtin": "greedy"},
        program("keeper"),
        program("fay"),
        program("hangs"),
    ]
    data = run(tmp_path, teams, {"keeper": KEEPER, "fay": CRASH, "hangs": HANG})
    out = data["out"]
    matches = data["matches"]
    assert len(matches) == 4
    assert len({m["seed"] for m in matches}) == 1
    for team in ("house", "keeper", "fay", "hangs"):
        assert sorted(m["seats"].index(team) for m in matches) == [0, 1, 2, 3]
    assert failures_of(data, "keeper") == []
    assert failures_of(data, "house") == []
    crashed = failures_of(data, "fay")
    assert len(crashed) == 4
    assert {f["reason"] for f in crashed} == {"crashed"}
    assert all("exit code 3" in f["detail"] for f in crashed)
    hung = failures_of(data, "hangs")
    assert {f["reason"] for f in hung} == {"time_limit"}
    for match in matches:
        assert sum(match["points"]) == 1
        assert "fay lost: crashed" in match["result"]
        seat = match["seats"].index("fay")
        output = (out / match["outputs"][seat]).read_text()
        assert "about to fail" in output
        assert "exit code 3" in output
        assert (out / match["replay"]).is_file()
        assert "../index.html" in (out / match["replay"]).read_text()
    page = (out / "index.html").read_text()
    assert "programs/" in page
    key = load_key(out / "logs.key", create=False)  # the results are sealed with the run's key
    assert "genuine" in check_seal(out / "results.json", key)
    assert "genuine" in check_seal(out / "results.csv", key)
    rows = list(csv.reader((out / "results.csv").read_text().splitlines()))
    assert rows[0] == [*CSV_COLUMNS, *REASONS]
    by_team = {row[1]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    assert by_team["fay"]["crashed"] == "4"
    assert by_team["hangs"]["time_limit"] == "4"
    assert by_team["fay"]["failures"] == "4"


@pytest.mark.slow
def test_garbage_cheats_and_a_hoarded_folder_each_get_their_reason(tmp_path: Path) -> None:
    """A malformed board file is a protocol_error (and never reaches the page unescaped), a
    changed score an illegal_move, a folder past its bound a sandbox_limit; our program wins
    every game."""
    teams = [
        {"name": "house", "builtin": "greedy"},
        program("junk"),
        program("cheat"),
        program("hoard"),
    ]
    # (no program here hangs: a generous call limit keeps a loaded machine from timing out)
    data = run(tmp_path, teams, {"junk": GARBAGE, "cheat": CHEAT, "hoard": HOARD}, seconds=10)
    assert {f["reason"] for f in failures_of(data, "junk")} == {"protocol_error"}
    assert {f["reason"] for f in failures_of(data, "cheat")} == {"illegal_move"}
    assert {f["reason"] for f in failures_of(data, "hoard")} == {"sandbox_limit"}
    assert data["teams"][0]["team"] == "house"
    assert data["teams"][0]["wins"] == 4
    out = data["out"]
    for match in data["matches"]:
        seat = match["seats"].index("junk")
        assert "<script>alert(1)</script>" in (out / match["outputs"][seat]).read_text()
        assert "<script>alert(1)" not in (out / match["replay"]).read_text()
    assert "<script>" not in (out / "index.html").read_text()
    # The team's bundle: its evidence, its output escaped in its report.
    bundle = out / "teams" / "junk"
    report = (bundle / "report.html").read_text()
    assert "protocol_error" in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert "<script>" not in report
    assert len(list((bundle / "outputs").iterdir())) == 4
    assert len(list((bundle / "logs").iterdir())) == 4
    assert "teams/junk/report.html" in (out / "index.html").read_text()


@pytest.mark.slow
def test_preflight_reports_a_failing_program_before_any_game_and_can_leave_it_out(
    tmp_path: Path,
) -> None:
    """--preflight-only checks each program with one short game against a built-in player:
    exit 1, the crashing one named with its reason, no journal left. --preflight drop then
    leaves it out of every game; its row says preflight; the CSV counts it."""
    teams = [{"name": "house", "builtin": "greedy"}, program("keeper"), program("fay")]
    for name, source in {"keeper": KEEPER, "fay": CRASH}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "player.py").write_text(source)
    path = write_teams(
        tmp_path, teams, game="penguins", rows=6, cols=6, call_seconds=1.5, config=None,
        connect_seconds=None, match_seconds=None,
    )  # fmt: skip
    out = tmp_path / "out"
    mode = ["--sandbox", sandbox_mode()]
    assert main([str(path), "--out", str(out), "--preflight-only", *mode]) == 1
    checks = json.loads((out / "preflight.json").read_text())
    assert checks["keeper"]["passed"] is True
    assert checks["fay"]["passed"] is False
    assert checks["fay"]["reason"] == "crashed"
    assert "exit code 3" in checks["fay"]["detail"]
    assert not (out / "results.json.journal").exists()
    page = (out / "index.html").read_text()
    assert "id=preflight" in page
    assert "each program played one short game against our greedy player" in page
    assert main([str(path), "--out", str(out), "--preflight", "drop", *mode]) == 0
    data = json.loads((out / "results.json").read_text())
    assert len(data["matches"]) == 2
    assert all("fay" not in m["seats"] for m in data["matches"])
    fay = next(row for row in data["teams"] if row["team"] == "fay")
    assert [f["reason"] for f in fay["failures"]] == ["preflight"]
    assert fay["left_out"] is True
    rows = list(csv.reader((out / "results.csv").read_text().splitlines()))
    fay_row = dict(zip(rows[0], next(r for r in rows if r[1] == "fay"), strict=True))
    assert fay_row["preflight"] == "1"
