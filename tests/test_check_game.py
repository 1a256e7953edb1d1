"""`arena check-client --game fish|labyrinth|penguins`: each game's starter passes as a
tournament will run it, and a program that fails in a known way is told its one reason, with
its own output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
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


#: A client that starts a child, reports both pids through a FIFO (argv[1]), then hangs.
HANGS_WITH_A_CHILD = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
with open(sys.argv[1], "w") as fifo:
    fifo.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(3600)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stopped_game_check_leaves_no_process_of_the_program(
    signum: signal.Signals, tmp_path: Path
) -> None:
    """``timeout 60 arena check-client --game fish ...`` (SIGTERM) or a closed terminal (SIGHUP)
    ends the program and its children too (it was left running as a child of PID 1), and exits
    128 + the signal."""
    fifo = tmp_path / "pids"
    os.mkfifo(fifo)
    folder = tmp_path / "program"  # copied as a team's folder: the FIFO stays outside it
    folder.mkdir()
    (folder / "client.py").write_text(HANGS_WITH_A_CHILD)
    command = [sys.executable, "-m", "arena.main", "check-client", "--game", "fish"]
    command += ["--sandbox", "none", "--", sys.executable, str(folder / "client.py"), str(fifo)]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as checker:
        with open(fifo) as pids:  # blocks until the program has written them
            program, child = (int(pid) for pid in pids.read().split())
        checker.send_signal(signum)
        _, err = checker.communicate(timeout=60)
    assert checker.returncode == 128 + signum
    assert f"stopped by {signum.name}" in err.decode()
    assert not [pid for pid in (program, child) if _alive(pid)]


def _alive(pid: int) -> bool:
    """A process that may still run (a killed child whose parent died first stays a zombie
    until PID 1 reaps it: it runs no more)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


#: A program that never starts as a player: as `java Starter` with nothing compiled.
NEVER_STARTS = "import sys; print('Error: no main class Starter', file=sys.stderr); sys.exit(1)"


@pytest.mark.parametrize("game", ["fish", "labyrinth", "penguins"])
def test_a_program_that_never_starts_is_a_crash_with_its_own_words(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--game", game, "--sandbox", "none", "--", sys.executable, "-c", NEVER_STARTS]
    assert check_client.main(argv) == 1
    out, _ = capsys.readouterr()
    assert "FAIL  plays: crashed" in out
    assert "exit code 1" in out
    assert "Error: no main class Starter" in out
    assert "PASS" not in out


def test_a_silent_fish_client_is_told_it_never_signed_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It runs but never connects: never_connected, once the sign-up time has passed."""
    silent = "import time; time.sleep(3600)"
    argv = ["--game", "fish", "--sandbox", "none", "--", sys.executable, "-c", silent]
    assert check_client.main(argv) == 1
    out, _ = capsys.readouterr()
    assert "FAIL  plays: never_connected" in out
    assert "hint: connect to {host} {port} at once" in out
