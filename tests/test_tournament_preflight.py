"""The dungeon's pre-flight is `arena check-client`'s probe (the same checks, one probe): each
program, sandboxed as in a match, against the scripted server, before any match."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tournament_kit import CRASHING, arena_team, sandbox_mode, write_teams

from arena.tournament.cli import main
from protocol.conformance import CHECKS

#: Six sockets, then a first line that is not a start: the probe's `start` check fails.
BAD_START = r"""
import socket, sys, threading
host, port = sys.argv[1], int(sys.argv[2])
sockets = [socket.create_connection((host, port)) for _ in range(6)]
for s in sockets:
    s.sendall(b'{"type": "hello"}\n')
print("sent hello six times", flush=True)
threading.Event().wait()
"""


@pytest.mark.slow
def test_the_dungeon_preflight_runs_the_check_client_probe_on_every_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Our own client passes every check; a crasher is `crashed` (its exit code), a program
    whose first line is not a start is `protocol_error` naming the check, one that never
    connects `never_connected`; --preflight-only exits 1 and plays no match."""
    args = ["python3", "client.py", "{host}", "{port}"]
    teams = write_teams(
        tmp_path,
        [
            {"name": "ours", "dir": "ours", "command": arena_team("reference")},
            {"name": "crashy", "dir": "crashy", "command": args},
            {"name": "hello", "dir": "hello", "command": args},
            {"name": "never", "dir": "never", "command": ["sleep", "600"]},
        ],
        {"ours": "", "crashy": CRASHING, "hello": BAD_START, "never": ""},
        connect_seconds=3,
    )
    out = tmp_path / "out"
    code = main([str(teams), "--out", str(out), "--sandbox", sandbox_mode(), "--preflight-only"])
    printed = capsys.readouterr().out
    assert code == 1, printed
    checks = json.loads((out / "preflight.json").read_text())
    assert checks["ours"]["passed"] is True, checks["ours"]
    assert [c["name"] for c in checks["ours"]["checks"]] == [c.name for c in CHECKS]
    assert all(c["passed"] for c in checks["ours"]["checks"])
    assert checks["crashy"]["reason"] == "crashed"
    assert checks["crashy"]["detail"].startswith("exit code 3; runs:")
    assert checks["hello"]["reason"] == "protocol_error"
    assert checks["hello"]["detail"].startswith("start:")
    assert checks["never"]["reason"] == "never_connected"
    assert "hello: FAILED protocol_error: start:" in printed
    assert "sent hello six times" in (out / checks["hello"]["output"]).read_text()
    data = json.loads((out / "results.json").read_text())
    assert data["matches"] == []
    page = (out / "index.html").read_text()
    assert "each program went through the checks of arena check-client" in page
    assert "short game" not in page  # what the other games' pre-flight does, not this one's
