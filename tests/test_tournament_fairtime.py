"""Fair time in a dungeon tournament (docs/fair-time.md): each program runs in a cgroup of its
own (or is read through /proc), its CPU is recorded per match and per request, requests are
ordered by it, and a program past its CPU budget forfeits with reason time_limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tournament_kit import arena_team, sandbox_mode, write_teams

from arena.tournament.cli import main
from replay.logfile import read_log
from server.competition.dungeon_judge import judge
from server.competition.outputs import arrival_note, cpu_table, cpu_texts
from server.sandbox.cpu import task_clock_allowed

#: Takes its six slots (then ``LOOP`` follows).
JOIN = """
import json, select, socket, sys
host, port, team, match, token = sys.argv[1:6]
sockets = []
for agent in range(6):
    s = socket.create_connection((host, int(port)))
    start = {"type": "start", "team": int(team), "agent": agent, "match": match, "token": token}
    s.sendall((json.dumps(start) + "\\n").encode())
    sockets.append(s)
"""
#: Computes forever without sending a request: it never yields.
SPINNER = JOIN + "n = 0\nwhile True:\n    n += 1\n"
#: Reads what the server sends and never moves: idle by choice, asleep all along.
SLEEPER = JOIN + (
    "while True:\n    for s in select.select(sockets, [], [])[0]:\n        s.recv(9999)\n"
)


def _run(tmp_path: Path, teams: list[dict[str, Any]], programs: dict[str, str], *args: str):
    path = write_teams(tmp_path, teams, programs, match_seconds=30, connect_seconds=60)
    out = tmp_path / "out"
    argv = [str(path), "--out", str(out), "--sandbox", sandbox_mode(), "--preflight", "off"]
    assert main([*argv, *args]) == 0
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return out, data


@pytest.mark.slow
def test_every_match_of_programs_records_each_teams_cpu(tmp_path: Path) -> None:
    teams = [
        {"name": "alpha", "dir": "alpha", "command": arena_team("reference")},
        {"name": "beta", "dir": "beta", "command": arena_team("rusher")},
    ]
    out, data = _run(tmp_path, teams, {"alpha": "", "beta": ""})
    assert len(data["matches"]) == 2
    for match in data["matches"]:
        assert match["time"] == "cpu"
        for team in ("alpha", "beta"):
            cpu = match["cpu"][team]
            assert cpu["seconds"] > 0
            assert cpu["requests"] > 0
            assert cpu["per_request"] > 0
            # The kernel's task clock where it allows one, else the cgroup or /proc.
            expected = {"task clock"} if task_clock_allowed() else {"cgroup1", "cgroup2", "proc"}
            assert cpu["clock"] in expected
        log = read_log(out / match["log"])
        assert log.header["time"] == "cpu"
        costs = [line.data.get("cpu") for line in log.inputs if line.data["kind"] == "request"]
        assert costs
        assert all(cost is not None for cost in costs)
    page = (out / "index.html").read_text()
    assert "CPU-s" in page


@pytest.mark.slow
def test_a_built_in_team_is_said_once_on_the_page_not_logged_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A built-in team runs in the tournament's own process, so its matches are played in
    arrival order by design: the teacher's terminal shows only the run's own plain lines (no
    fair_time_off log line), and the page says it once."""
    teams = [
        {"name": "house", "builtin": "reference"},
        {"name": "ext", "dir": "ext", "command": arena_team("rusher")},
    ]
    out, data = _run(tmp_path, teams, {"ext": ""})
    err = capsys.readouterr().err
    assert "fair_time_off" not in err
    lines = err.splitlines()
    assert lines
    assert all(line.startswith(("t: ", "match ")) for line in lines), err
    assert [match["time"] for match in data["matches"]] == [None, None]
    page = (out / "index.html").read_text()
    assert page.count("played in order of arrival") == 1
    assert "2 matches with a built-in team were played in order of arrival" in page


RAW = ["python3", "client.py", "{host}", "{port}", "{team}", "{match}", "{token}"]


@pytest.mark.slow
def test_a_program_past_its_cpu_budget_forfeits_with_time_limit(tmp_path: Path) -> None:
    teams = [
        {"name": "idle", "dir": "idle", "command": RAW},
        {"name": "spin", "dir": "spin", "command": RAW},
    ]
    # The idle team never holds the spinner up, nor does it use its bank: only the spinner
    # can end this match (its time is 30 s), by going past its budget.
    programs = {"idle": SLEEPER, "spin": SPINNER}
    _, data = _run(tmp_path, teams, programs, "--cpu-budget", "0.5")
    for match in data["matches"]:
        spinner = match["seats"].index("spin")
        assert match["reason"] == "time_limit"
        assert match["winner"] == 1 - spinner
        assert [f["reason"] for f in match["failures"]] == ["time_limit"]
        assert match["cpu"]["spin"]["seconds"] > 0.5
        assert match["cpu"]["idle"]["seconds"] < 0.5
    rows = {row["team"]: row for row in data["teams"]}
    assert rows["spin"]["points"] == 0


def test_a_time_limit_is_the_failing_teams_reason() -> None:
    points, failures, reason = judge(
        connected=(True, True), winner=0, reason="time_limit", faults={},
        exits=((None, False), (None, False)), crossings=(3, 3), match_seconds=30,
    )  # fmt: skip
    assert points == (1.0, 0.0)
    assert [(f["seat"], f["reason"]) for f in failures] == [(1, "time_limit")]
    assert reason == "time_limit"


def test_the_pages_say_each_teams_cpu() -> None:
    cpu = {
        "alpha": {"seconds": 12.3, "requests": 300, "per_request": 0.041},
        "beta": {"seconds": 2.0, "requests": 100, "per_request": None},
    }
    record = {"crossings": [4, 2], "deaths": [0, 1], "cpu": cpu}
    assert cpu_texts(record) == ["alpha used 12.3 CPU-s, 41 ms a move", "beta used 2.0 CPU-s"]
    table = cpu_table({"matches": [record, {"crossings": [0, 0], "cpu": None}]})
    assert "<td>alpha</td><td class=n>1</td><td class=n>12.3</td>" in table
    assert cpu_table({"matches": [{"crossings": [0, 0]}]}) == ""
    # A match with a built-in team (time null) is counted once in plain words; a measured one,
    # one that never started (no log) and a record from before fair time (no time) are not.
    played = {"crossings": [0, 0], "log": "logs/a.jsonl", "time": None}
    matches = [played, {**played, "time": "cpu"}, {**played, "log": None}, {"crossings": [0, 0]}]
    assert "1 match with a built-in team was played" in arrival_note({"matches": matches})
    assert arrival_note({"matches": matches[1:]}) == ""
