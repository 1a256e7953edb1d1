"""`arena fish serve` and `arena fish clients` on the command line, and against the OCaml peer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.interop_fish import find_peer, ocaml_clients_vs_ours, our_clients_vs_ocaml

ARENA = [sys.executable, "-m", "arena"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ARENA, "fish", *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["serve", "--config", "colour=red"], "--config colour"),
        (["serve", "--config", "wait=soon"], "--config wait=soon"),
        (["serve", "--config", "fish=9"], "fish"),
        (["serve", "--names", "loose"], "--names"),
        (["serve", "--port", "70000"], "--port"),
        (["clients", "0"], "N"),
        (["clients", "2", "--names", "a"], "--names"),
        (["clients", "2", "--strategy", "psychic"], "--strategy"),
        (["clients", "2", "--misbehave", "rude"], "--misbehave"),
    ],
)
def test_bad_usage_is_one_line_naming_the_flag(args: list[str], named: str) -> None:
    """Bad flags or settings: exit status 2 and a message naming the flag, no traceback."""
    result = run(*args)
    assert result.returncode == 2
    assert named in result.stderr
    assert "Traceback" not in result.stderr


def test_the_course_harnesses_do_not_load_trio() -> None:
    """The x-harnesses start fast: the network commands' imports stay off their path."""
    code = (
        'import sys, io; sys.stdin = io.TextIOWrapper(io.BytesIO(b\'{"position":[0,0],'
        '"board":[[1,2,3],[4,0,5],[1,1,0]]}\')); from arena.fish import main; '
        "main(['xboard']); print('trio' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["3", "False"]


def test_serve_and_clients_play_a_tournament_from_the_command_line(tmp_path: Path) -> None:
    """serve prints [winners, failed + cheaters]; a garbage-sending client is counted as failed;
    every other client learns whether it won."""
    server = subprocess.Popen(
        [*ARENA, "fish", "serve", "--port", "0", "--log-dir", str(tmp_path), "--log-level",
         "warning", "--config", "wait=20"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        listening = server.stderr.readline()
        port = listening.rsplit(":", 1)[1].strip()
        waiting = server.stderr.readline()  # what it waits for, before anyone signs up
        clients = run("clients", "10", "--port", port, "--misbehave", "garbage")
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert clients.returncode == 0
    assert clients.stderr.startswith(
        f"arena fish clients: 10 players (minimax1) to 127.0.0.1:{port}: each signs up, then"
        " plays until the tournament ends\n"
    )
    lines = clients.stdout.splitlines()
    assert lines[0].startswith("fisha closed") or lines[0].startswith("fisha misbehaved")
    winners = sum(line.split()[1] == "won" for line in lines)
    assert out.strip() == f"[{winners},1]"
    # A person reads who won and who failed by name (stdout keeps the spec's line).
    won = sorted(line.split()[0] for line in lines if line.split()[1] == "won")
    said = err.splitlines()
    assert waiting.startswith("arena fish serve: signing players up (5 to 10, up to 2 x 20 s)")
    label = "winner" if winners == 1 else "winners"
    assert f"arena fish serve: {label}: {', '.join(won)}; failed: fisha; cheaters: none" in said
    assert (tmp_path / "tournament.jsonl").is_file()


PEER = find_peer()


@pytest.mark.slow
@pytest.mark.skipif(PEER is None, reason="no OCaml Fish build (set FISH_PEER)")
def test_ten_ocaml_clients_play_on_our_lenient_server(tmp_path: Path) -> None:
    """The OCaml clients (names like OCaml-AI-3) finish a tournament on our server."""
    assert PEER is not None
    ours, _ = ocaml_clients_vs_ours(PEER, tmp_path)
    winners, out = (int(n) for n in ours.strip("[]").split(","))
    assert winners >= 1
    assert out == 0


@pytest.mark.slow
@pytest.mark.skipif(PEER is None, reason="no OCaml Fish build (set FISH_PEER)")
def test_our_ten_clients_play_on_the_ocaml_server() -> None:
    """Our clients finish a tournament on the OCaml server, none failing or cheating."""
    assert PEER is not None
    server_out, clients_out = our_clients_vs_ocaml(PEER)
    winners, out = (int(n) for n in server_out.strip("[]").split(","))
    assert winners >= 1
    assert out == 0
    assert clients_out.count(" won ") == winners
