"""Hostile programs in a tournament: contained by the sandbox, and the results unharmed.

(The sandbox's own tests, tests/test_sandbox.py, check each confinement in isolation; here the
question is the tournament's: whatever a team's program does, the other teams' matches, the
logs and the results come out right.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tournament_kit import write_teams

from arena.tournament.cli import main
from server.sandbox import check_available

pytestmark = pytest.mark.skipif(
    check_available() is not None, reason=f"bubblewrap cannot run here: {check_available()}"
)

MARKER = "arena-hostile-helper-7f3a"

SNOOP = r"""
import os, signal, socket, subprocess, sys, json
host, port, team, match = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def attempt(what, action):
    try:
        print(what, "LEAKED", repr(action())[:200], flush=True)
    except Exception as error:
        print(what, "denied", type(error).__name__, flush=True)
attempt("other-team", lambda: open(@SECRET@).read())
attempt("logs", lambda: os.listdir(@LOGS@))
attempt("journal", lambda: open(@JOURNAL@).read())
attempt("write-outside", lambda: open(@PWNED@, "w").write("pwned"))
# A helper in its own session, meant to outlive the match.
subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(1)", "@MARKER@"],
                 start_new_session=True)
attempt("kill-parent", lambda: os.kill(os.getppid(), signal.SIGKILL))
# Take the other team's slots with a made-up token, so that it could not play.
sockets = []
for agent in range(6):
    s = socket.create_connection((host, port))
    s.sendall((json.dumps({"type": "start", "team": 1 - team, "agent": agent, "match": match,
                           "token": "0" * 32}) + "\n").encode())
    sockets.append(s)
print("answer", sockets[0].recv(200), flush=True)
"""

HOG = r"""
import os, sys
try:
    for _ in range(10000):
        if os.fork() == 0:
            import time; time.sleep(30); os._exit(0)
except OSError as error:
    print("fork refused", error, flush=True)
try:
    block = bytearray(10 << 30)
    print("allocated 10 GiB", flush=True)
except MemoryError:
    print("10 GiB refused", flush=True)
line = b"x" * 65535 + b"\n"
try:
    while True:
        sys.stdout.buffer.write(line)
except BaseException as error:
    print("flood stopped", type(error).__name__, file=sys.stderr, flush=True)
while True:
    pass
"""


def helpers_alive() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if MARKER.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_hostile_programs_are_contained_and_the_results_unharmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program that snoops, writes outside its folder, leaves a setsid helper, kills its
    parent and steals slots, and one that fork-bombs, allocates 10 GiB, floods stdout and
    spins: each loses its matches with a reason; the built-in team wins all of its own; no
    secret leaks, nothing is written outside, no helper survives, the results are whole."""
    out = tmp_path / "out"
    secret = tmp_path / "victim" / "SECRET.txt"
    secret.parent.mkdir()
    secret.write_text("the victim's secret")
    source = SNOOP
    for key, value in {
        "@SECRET@": repr(str(secret)), "@LOGS@": repr(str(out / "logs")),
        "@JOURNAL@": repr(str(out / "results.json.journal")),
        "@PWNED@": repr(str(tmp_path / "pwned")), "@MARKER@": MARKER,
    }.items():  # fmt: skip
        source = source.replace(key, value)
    args = ["python3", "client.py", "{host}", "{port}", "{team}", "{match}"]
    teams = write_teams(
        tmp_path,
        [
            {"name": "house", "builtin": "reference"},
            {"name": "snoop", "dir": "snoop", "command": args},
            {"name": "hog", "dir": "hog", "command": args},
        ],
        {"snoop": source, "hog": HOG},
        connect_seconds=4,
        match_seconds=10,
        memory_mb=512,
    )
    code = main([str(teams), "--out", str(out), "--concurrency", "2", "--preflight", "off"])
    assert code == 0, capsys.readouterr().err
    data = json.loads((out / "results.json").read_text())
    assert data["complete"] is True
    assert len(data["matches"]) == 6
    rows = {row["team"]: row for row in data["teams"]}
    assert rows["house"]["wins"] == 4
    assert rows["house"]["failures"] == []
    assert rows["snoop"]["points"] == rows["hog"]["points"] == 0
    assert len(rows["snoop"]["failures"]) == len(rows["hog"]["failures"]) == 4
    reasons = {f["reason"] for f in rows["snoop"]["failures"] + rows["hog"]["failures"]}
    assert reasons <= {"never_connected", "crashed"}
    for match in data["matches"]:
        if "house" in match["seats"]:
            assert match["winner"] == match["seats"].index("house")
    # Contained: nothing leaked or written, no helper left, the flood capped.
    for output in (out / "programs").glob("*-snoop.txt"):
        text = output.read_text()
        assert "LEAKED" not in text, text
        assert "other-team denied" in text
        assert "logs denied" in text
    assert "victim's secret" not in "".join(
        p.read_text(errors="replace") for p in (out / "programs").iterdir()
    )
    assert not (tmp_path / "pwned").exists()
    assert helpers_alive() == []
    for output in (out / "programs").glob("*-hog.txt"):
        assert output.stat().st_size <= (16 << 20) + 4096
        assert "allocated 10 GiB" not in output.read_text(errors="replace")
    assert secret.read_text() == "the victim's secret"
    journal = (out / "results.json.journal").read_text().splitlines()
    assert len(journal) == 1 + 6
    assert os.getpid() > 0  # the tournament's own process survived to here


@pytest.mark.slow
async def test_a_sandboxed_program_lives_as_long_as_its_match(tmp_path: Path) -> None:
    """A program outlives the 10 s a worker thread idles (bwrap's --die-with-parent follows
    the thread that started it: started from a worker thread, it was killed with the thread)."""
    import trio

    from server.competition.programs import Entrant
    from server.competition.teams import MatchTicket, Team
    from server.sandbox import Limits

    folder = tmp_path / "slow"
    folder.mkdir()
    team = Team(
        name="slow", dir=folder,
        command=("python3", "-c", "import time\ntime.sleep(11)\nprint('still here')"),
    )  # fmt: skip
    entrant = Entrant(
        team, MatchTicket("127.0.0.1", 1, 0, "m", "t"), scratch=tmp_path / "copy",
        output=tmp_path / "out.txt", limits=Limits(cpu_seconds=30), sandbox="bwrap", seed=1,
    )  # fmt: skip
    async with trio.open_nursery() as nursery:
        await nursery.start(entrant.run)
        await trio.to_thread.run_sync(lambda: None)  # a worker thread, idle from now on
    assert entrant.exit == "exit code 0"
    assert "still here" in (tmp_path / "out.txt").read_text()


JOIN = r"""
import json, socket, sys
host, port, team, match, token = sys.argv[1:6]
port, team = int(port), int(team)
sockets = []
for agent in range(6):
    s = socket.create_connection((host, port))
    s.sendall((json.dumps({"type": "start", "team": team, "agent": agent, "match": match,
                           "token": token}) + "\n").encode())
    sockets.append(s)
"""

SPINNER = (
    JOIN
    + r"""
print("six sockets in; spinning", flush=True)
while True:
    pass
"""
)

GARBLER = (
    JOIN
    + r"""
first = sockets[0].makefile("rb").readline()  # the match has started: its dungeon
print("started:", first[:20], flush=True)
# Lines the server refuses (GARBAGE, COUNT times): it closes the socket.
try:
    for _ in range(COUNT):
        sockets[0].sendall(GARBAGE)
except OSError as error:
    print("closed by the server:", error, flush=True)
import threading
threading.Event().wait()  # the other five sockets stay open: the match plays on
"""
)


@pytest.mark.parametrize(
    ("garbage", "count"),
    [
        # Each refused with an error; past the error limit (100) the socket is closed.
        pytest.param(b'{"type": "garbage", "x": 1}\n', 150, id="error-limit"),
        # Closed at the first line (protocol: a line that is not JSON is fatal).
        pytest.param(b"this is not JSON\n", 1, id="not-json"),
    ],
)  # fmt: skip
def test_a_program_that_spins_and_one_that_sends_garbage_lose_with_their_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], garbage: bytes, count: int
) -> None:
    """A program that joins with its six sockets and then spins forever, against one that
    joins and then sends garbage lines on one socket until the server closes it: each match
    runs to its time limit (the garbler keeps five sockets open), the spinner is `hung`, the
    garbler `protocol_error`; both lose, and the tournament finishes with its results."""
    out = tmp_path / "out"
    args = ["python3", "client.py", "{host}", "{port}", "{team}", "{match}", "{token}"]
    teams = write_teams(
        tmp_path,
        [
            {"name": "spinner", "dir": "spinner", "command": args},
            {"name": "garbler", "dir": "garbler", "command": args},
        ],
        {"spinner": SPINNER, "garbler": f"GARBAGE, COUNT = {garbage!r}, {count}\n{GARBLER}"},
        connect_seconds=10,
        # Time enough for the garbler to read its map and send its lines while two spinners
        # hold both cores (2 s failed once under a loaded machine: the garbler had not sent
        # them yet, so it was judged hung).
        match_seconds=6,
        memory_mb=256,
    )
    code = main([str(teams), "--out", str(out), "--concurrency", "2", "--preflight", "off"])
    assert code == 0, capsys.readouterr().err
    data = json.loads((out / "results.json").read_text())
    assert data["complete"] is True
    assert len(data["matches"]) == 2
    rows = {row["team"]: row for row in data["teams"]}
    for name, reason in (("spinner", "hung"), ("garbler", "protocol_error")):
        assert rows[name]["points"] == 0
        assert rows[name]["losses"] == 2
        assert [f["reason"] for f in rows[name]["failures"]] == [reason, reason], rows[name]
    for match in data["matches"]:
        assert {f["reason"] for f in match["failures"]} == {"hung", "protocol_error"}
    garbled = (out / "programs").glob("*-garbler.txt")
    assert all("started:" in output.read_text() for output in garbled)
