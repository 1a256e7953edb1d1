"""``arena serve --time cpu``: team programs connecting over loopback are found through /proc
and measured, their requests ordered by CPU (docs/fair-time.md); what it cannot measure is
refused in one line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from replay.logfile import read_log

ARENA = [sys.executable, "-m", "arena"]


def _refused(argv: list[str], tmp_path: Path, *named: str) -> None:
    result = subprocess.run(
        [*ARENA, "serve", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    for text in named:
        assert text in line


def test_cpu_time_needs_a_loopback_listener(tmp_path: Path) -> None:
    _refused(["--time", "cpu", "--host", "0.0.0.0"], tmp_path, "--time cpu", "loopback")


def test_cpu_budget_needs_one_process(tmp_path: Path) -> None:
    _refused(["--cpu-budget", "5", "--processes", "2"], tmp_path, "--cpu-budget", "--processes")


def test_a_budget_must_be_positive(tmp_path: Path) -> None:
    _refused(["--cpu-budget", "0"], tmp_path, "--cpu-budget")


@pytest.mark.slow
def test_external_teams_are_measured_and_ordered_by_cpu(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [*ARENA, "serve", "--port", "0", "--time", "cpu", "--config", "nodes=150",
         "radius=0.16", "--seed", "3", "--check-workers", "0", "--log-format", "compact",
         "--log-level", "warning"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", server.stderr.readline())
        assert port is not None
        teams = []
        for team, strategy in ((0, "reference"), (1, "rusher")):
            argv = ["team", "--team", str(team), "--port", port[1], "--strategy", strategy]
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            argv += ["--seed", str(team)]
            process = subprocess.Popen(
                [*ARENA, *argv], cwd=tmp_path, stdin=subprocess.DEVNULL, **quiet
            )
            teams.append(process)
        for team in teams:
            assert team.wait(timeout=120) == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stderr is not None:
            server.stderr.close()
    (path,) = (tmp_path / "logs").glob("*.jsonl")
    log = read_log(path)
    assert log.header["time"] == "cpu"
    assert log.close is not None
    cpu = log.close.data["cpu"]
    for team in ("0", "1"):
        # Each program was found: it used CPU in the match, and so did its requests.
        assert cpu[team]["seconds"] > 0
        assert cpu[team]["requests"] > 0
    costs = [line.data["cpu"] for line in log.inputs if line.data["kind"] == "request"]
    assert costs
    assert all(cost >= 0 for cost in costs)
