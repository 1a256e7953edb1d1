"""`arena check-client`: each check fails on a team program with that one fault, and the starter
clients and `arena team` pass every check."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena import check_client
from dungeon.config import RulesConfig
from protocol.conformance import CHECKS, evaluate
from server.probe import ProbeConfig

ROOT = Path(__file__).resolve().parent.parent
FAULTY = ROOT / "tests" / "fixtures" / "faulty_team.py"
STARTER = ROOT / "docs" / "starters" / "starter.py"
#: A small dungeon and a short match: the probes, not the game, are under test.
FAST = ProbeConfig(
    rules=RulesConfig(nodes=300, radius=0.11),
    start_timeout=3.0,
    flood_lines=8000,
    flood_timeout=3.0,
    grace=1.0,
    play_seconds=5.0,
)


#: A dense dungeon: the other team's start and shrine are one hop from ours.
DENSE = dataclasses.replace(FAST, rules=RulesConfig(nodes=60, radius=0.75))


def failures(command: list[str], config: ProbeConfig = FAST) -> dict[str, str]:
    """The failed checks, each with its detail."""
    seen = trio.run(check_client.check, command, config, 3.0)
    return {verdict.check.name: verdict.detail for verdict in evaluate(seen) if not verdict.passed}


def failed_checks(command: list[str], config: ProbeConfig = FAST) -> set[str]:
    return set(failures(command, config))


FAULTS = {
    "five_sockets": "six_sockets",
    "wrong_team": "start",
    "fragile_lines": "split_dungeon",
    "short_solution": "solutions",
    "not_adjacent": "legal_moves",
    "double_move": "one_commitment",
    "no_read": "keeps_reading",
    "crash_on_enemy": "survives_enemy",
    "crash_on_attacked": "survives_kill",
    "crash_on_error": "survives_error",
    "ignore_game_over": "game_over",
    "late_start": "start",
    "enemy_start": "legal_moves",
    "enemy_shrine": "legal_moves",
}
#: Faults probed under another configuration than FAST, and what the failure must say.
CONFIGS = {
    # The checker's start limit (10 s by default, --start-timeout) cut to 1 s: the last agent
    # sends its start only once the checker has given up on it.
    "late_start": dataclasses.replace(FAST, start_timeout=1.0),
    "enemy_start": DENSE,
    "enemy_shrine": DENSE,
}
DETAILS = {
    "late_start": "no start within 1 s",
    "enemy_start": "is the other team's start",
    "enemy_shrine": "is the other team's shrine",
}


def test_every_check_has_a_faulty_client() -> None:
    assert set(FAULTS.values()) == {check.name for check in CHECKS}


@pytest.mark.parametrize(("fault", "check"), FAULTS.items(), ids=list(FAULTS))
def test_a_fault_fails_the_check_that_names_it(
    fault: str, check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULTY_TEAM_FAULT", fault)
    failed = failures([sys.executable, str(FAULTY)], CONFIGS.get(fault, FAST))
    assert check in failed, f"{fault} should fail {check}; failed: {sorted(failed)}"
    assert DETAILS.get(fault, "") in failed[check]


def test_the_python_starter_passes_every_check_and_the_cli_reports_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--json", "--config", "nodes=300", "radius=0.11", "--token", "t0k"]
    status = check_client.main([*argv, "--", sys.executable, str(STARTER)])
    report = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in report["checks"] if not c["passed"]] == []
    assert report["passed"] is True
    assert status == 0


def test_a_program_that_exits_while_the_probe_still_closes_is_judged_after_game_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A program that ends at once on ``game_over`` may be gone before the probe has finished
    closing its sockets; it exited after ``game_over`` all the same (once judged by when the
    probe noticed, the starter failed ``game_over`` now and then)."""

    async def probe_that_closes_slowly(
        listeners: object, config: object, seen: check_client.Observations, exited: trio.Event
    ) -> None:
        seen.game_over_sent = True  # the program may end from here on
        await exited.wait()  # and does, while the probe is still closing

    monkeypatch.setattr(check_client, "run_probe", probe_that_closes_slowly)
    seen = trio.run(check_client.check, [sys.executable, "-c", "pass"], FAST, 3.0)
    assert seen.exited_after_game_over
    assert seen.exit_status == 0


def test_a_failing_program_exits_1_with_a_readable_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULTY_TEAM_FAULT", "short_solution")
    argv = ["--seconds", "3", "--config", "nodes=300", "radius=0.11"]
    argv += ["--", sys.executable, str(FAULTY)]
    assert check_client.main(argv) == 1
    out = capsys.readouterr().out
    assert "FAIL  solutions" in out
    assert "hint: send exactly `switches` bools" in out
    assert "spec: dungeon.md 2 (solution)" in out


def test_arena_team_passes_every_check() -> None:
    command = [sys.executable, "-m", "arena.main", "team", "--team", "{team}", "--port"]
    command += ["{port}", "--match", "{match}", "--strategy", "reference", "--seed", "1"]
    assert failed_checks(command) == set()


def test_the_java_starter_passes_every_check(tmp_path: Path) -> None:
    if shutil.which("javac") is None:
        pytest.skip("javac not installed: the Java starter is not compiled")
    subprocess.run(
        ["javac", "-d", str(tmp_path), str(ROOT / "docs" / "starters" / "Starter.java")],
        check=True,
        capture_output=True,
        timeout=180,
    )
    assert failed_checks(["java", "-cp", str(tmp_path), "Starter"]) == set()


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert check_client.main(["--json"]) == 2
    assert "no program" in capsys.readouterr().err


def test_a_program_that_cannot_start_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert check_client.main(["--", str(tmp_path / "no-such-program")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot run" in err


#: A program that leaves a daemon behind: a grandchild in its own session (setsid, double
#: fork), outside the program's process group; it reports the daemon's pid, then waits.
DAEMONIZING = """
import os, signal, sys
read, write = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(write, str(os.getpid()).encode())
        os.close(write)
        signal.pause()
    os._exit(0)
os.close(write)
pid = os.read(read, 32).decode()
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(pid)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the subreaper is Linux's")
def test_a_daemon_the_program_leaves_is_killed_with_it(tmp_path: Path) -> None:
    """A descendant that left the program's process group is killed when the check ends (it
    outlived the checker: one stray process per student program checked)."""
    pid_file = tmp_path / "daemon.pid"
    command = [sys.executable, "-c", DAEMONIZING, str(pid_file)]
    config = ProbeConfig(rules=FAST.rules, start_timeout=1.0, grace=0.5, play_seconds=1.0)
    trio.run(check_client.check, command, config, 0.5)
    daemon = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(daemon, 0)
