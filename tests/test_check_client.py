"""`arena check-client`: each check fails on a team program with that one fault, and the starter
clients and `arena team` pass every check."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena import check_client
from dungeon.config import RulesConfig
from protocol.conformance import CHECKS, FAILED, NOT_RUN, PASSED, evaluate
from server.probe_checks import ProbeConfig

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
    "exit_early": "runs",
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
    assert "see: docs/protocol.md 5 (Playing)" in out


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


def verdicts_of(command: list[str], config: ProbeConfig = FAST) -> dict[str, tuple[str, str]]:
    """Every check's status and detail."""
    seen = trio.run(check_client.check, command, config, 3.0)
    return {v.check.name: (v.status, v.detail) for v in evaluate(seen)}


#: A program that never starts as a team: as `java -cp build Starter` with nothing compiled.
NEVER_STARTS = (
    "import sys; sys.stderr.write('Error: Could not find or load main class Starter\\n');"
)
NEVER_STARTS += " sys.exit(1)"


def test_a_program_that_never_starts_is_reported_first_and_nothing_passes() -> None:
    """Its exit status and last error line come first; no check that needs a socket passes."""
    verdicts = verdicts_of([sys.executable, "-c", NEVER_STARTS])
    status, detail = verdicts["runs"]
    assert status == FAILED
    assert "exited with status 1 before connecting a socket" in detail
    assert "Could not find or load main class Starter" in detail
    assert [name for name, (status, _) in verdicts.items() if status == PASSED] == []
    assert verdicts["legal_moves"] == (NOT_RUN, "the program sent no move")
    assert {name for name, (status, _) in verdicts.items() if status == NOT_RUN} == {
        name for name in verdicts if name not in ("runs", "six_sockets")
    }


def test_a_crasher_is_reported_as_a_crash_with_its_error_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAULTY_TEAM_FAULT", "exit_early")
    verdicts = verdicts_of([sys.executable, str(FAULTY)])
    status, detail = verdicts["runs"]
    assert status == FAILED
    assert "exited with status 3 before game_over" in detail
    assert "a bug on the first move" in detail
    assert verdicts["survives_kill"][0] == NOT_RUN
    assert "then the program exited with status 3" in verdicts["survives_kill"][1]
    assert verdicts["game_over"][0] == NOT_RUN


def test_a_program_that_reads_but_never_moves_is_told_to_move(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAULTY_TEAM_FAULT", "never_move")
    argv = ["--seconds", "3", "--start-timeout", "3", "--config", "nodes=300", "radius=0.11"]
    assert check_client.main([*argv, "--", sys.executable, str(FAULTY)]) == 1
    out, err = capsys.readouterr()
    assert "arena check-client: waiting up to 3 s for the program's six sockets" in err
    assert "arena check-client: dungeon sent; playing the probed match" in err
    assert "FAIL  split_dungeon" in out
    assert "no agent sent anything after its dungeon" in out
    assert "each agent must send a move" in out
    assert "NOT RUN  legal_moves" in out
    assert "NOT RUN  solutions" in out
    assert "checks passed; 1 failed; " in out


def test_without_a_token_none_is_passed() -> None:
    """No empty fifth argument, no ARENA_TOKEN, and a {token} word left out."""
    values = {"host": "h", "port": "1", "team": "0", "match": "m"}
    assert check_client.program_argv(["prog"], values) == ["prog", "h", "1", "0", "m"]
    assert check_client.program_argv(["prog", "{port}", "{token}"], values) == ["prog", "1"]
    with_token = {**values, "token": "k"}
    assert check_client.program_argv(["prog"], with_token)[-1] == "k"


def test_the_program_sees_no_token_in_its_environment(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    record = "import json, os, sys; json.dump([sys.argv[1:], os.environ.get('ARENA_TOKEN')],"
    record += f" open({str(seen)!r}, 'w'))"
    trio.run(check_client.check, [sys.executable, "-c", record], FAST, 1.0)
    argv, token = json.loads(seen.read_text())
    assert len(argv) == 4
    assert token is None


#: A team program that starts a child, tells the test both pids through a FIFO, then hangs.
HANGS_WITH_A_CHILD = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
with open(sys.argv[1], "w") as fifo:
    fifo.write(f"{os.getpid()} {child.pid}\\n")
time.sleep(3600)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stopped_checker_leaves_no_process_of_the_program(
    signum: signal.Signals, tmp_path: Path
) -> None:
    """``timeout 60 arena check-client ...`` (SIGTERM) or a closed terminal (SIGHUP) ends the
    program and its children, and exits 128 + the signal."""
    fifo = tmp_path / "pids"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "arena.main", "check-client", "--"]
    command += [sys.executable, "-c", HANGS_WITH_A_CHILD, str(fifo)]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as checker:
        with open(fifo) as pids:  # blocks until the program has written them
            program, child = (int(pid) for pid in pids.read().split())
        checker.send_signal(signum)
        _, err = checker.communicate(timeout=30)
    assert checker.returncode == 128 + signum
    assert f"stopped by {signum.name}" in err.decode()
    for pid in (program, child):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_every_check_cites_a_section_of_the_students_protocol_doc() -> None:
    """Students have docs/protocol.md, not the spec: each citation names one of its headings."""
    headings = (ROOT / "docs" / "protocol.md").read_text()
    for check in CHECKS:
        number, title = check.section.removeprefix("docs/protocol.md ").split(" ", 1)
        assert f"## {number}. {title.strip('()')}" in headings, check.name


def test_a_program_that_closes_every_socket_then_exits_is_judged_as_ending_before_game_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its process is reaped only after the probe has seen every socket close: game_over could
    reach none of them, so it ended before game_over (once it passed "runs" whenever the
    sockets' end was noticed before the process's)."""
    monkeypatch.setenv("FAULTY_TEAM_FAULT", "close_then_exit")
    verdicts = verdicts_of([sys.executable, str(FAULTY)])
    status, detail = verdicts["runs"]
    assert status == FAILED
    assert "exited with status 3 before game_over" in detail
    assert verdicts["game_over"][0] == NOT_RUN
