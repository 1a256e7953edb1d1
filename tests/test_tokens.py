"""Team tokens (`arena serve --teams FILE`): a listed match's slots take only the right token,
the slot stays free after a refusal, and tokens never reach the server's log in clear."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from server_testkit import connect_memory, join_all, running_server

from arena import serve as serve_cli
from dungeon.engine import AGENTS, AgentId
from protocol.messages import Dungeon, Error, Start

TOKENS = {"final": {0: "alpha-secret-0", 1: "beta-secret-1"}}


@pytest.mark.parametrize(
    ("token", "accepted"),
    [
        pytest.param("alpha-secret-0", True, id="right"),
        pytest.param("alpha-secret-X", False, id="wrong"),
        pytest.param(None, False, id="missing"),
        pytest.param("beta-secret-1", False, id="other-teams"),
    ],
)
async def test_a_start_needs_its_teams_token(token: str | None, accepted: bool) -> None:
    async with running_server(tokens=TOKENS) as (server, nursery):
        agent = connect_memory(server, nursery)
        await agent.send(Start(team=0, agent=0, match="final", token=token))
        slot = AgentId(0, 0)
        others = {s: connect_memory(server, nursery) for s in AGENTS if s != slot}
        for other_slot, other in others.items():
            good = TOKENS["final"][other_slot.team]
            await other.send(Start(other_slot.team, other_slot.agent, "final", good))
        if accepted:
            assert isinstance(await agent.receive(), Dungeon)
            return
        refusal = await agent.receive()
        assert isinstance(refusal, Error)
        assert refusal.code == "bad_token"
        assert "secret" not in refusal.message  # the answer names no token
        # The slot stayed free: the same socket takes it with the right token.
        await agent.send(Start(team=0, agent=0, match="final", token="alpha-secret-0"))
        assert isinstance(await agent.receive(), Dungeon)


async def test_matches_not_listed_need_no_token() -> None:
    async with running_server(tokens=TOKENS) as (server, nursery):
        agents = {slot: connect_memory(server, nursery) for slot in AGENTS}
        dungeons = await join_all(agents, match="practice")
        assert len(dungeons) == 12


def test_tokens_never_reach_the_server_log_in_clear(tmp_path: Path) -> None:
    teams = tmp_path / "teams.toml"
    teams.write_text('[final]\n0 = "alpha-secret-0"\n1 = "beta-secret-1"\n')
    command = [sys.executable, "-m", "arena.main", "serve", "--port", "0", "--check-workers"]
    command += ["0", "--log-dir", str(tmp_path), "--teams", str(teams), "--log-level", "debug"]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as server:
        assert server.stderr is not None
        port = json.loads(server.stderr.readline())["port"]
        with socket.create_connection(("127.0.0.1", port)) as sock:
            reader = sock.makefile("rb")
            for token in ("alpha-secret-X", "beta-secret-1", "alpha-secret-0"):
                start = {"type": "start", "team": 0, "agent": 0, "match": "final", "token": token}
                sock.sendall(json.dumps(start).encode() + b"\n")
                if token != "alpha-secret-0":
                    assert json.loads(reader.readline())["code"] == "bad_token"
            server.send_signal(signal.SIGTERM)
            _, log = server.communicate(timeout=60)
    assert "bad_token" in log
    assert "slot_taken" in log  # the right token took the slot
    assert "secret" not in log


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("[final]\n2 = 'x'\n", "the teams are 0 and 1"),
        ("[final]\n0 = ''\n", "string of 1-256"),
        ("['bad name']\n0 = 'x'\n", "is not 1-64"),
        ("[final\n", "not a TOML file"),
    ],
)
def test_a_bad_teams_file_is_one_line_and_exit_2(
    text: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    teams = tmp_path / "teams.toml"
    teams.write_text(text)
    assert serve_cli.main(["--port", "0", "--teams", str(teams), "--log-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"--teams {teams}" in err
    assert fault in err
