"""``arena labyrinth serve`` as a command (bad usage, a real run stopped by SIGINT), ``arena
replay`` on its game logs (verify, a tampered log, show, render) and a player's log (show; verify
and render refuse it), and the interop script skipping cleanly when the public server's copy is
absent."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena import labyrinth as cli
from arena.replay import main as replay_main
from client.labyrinth import Connection, play_online
from labyrinth.players import astar_move
from replay.games import read_events

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["serve", "--port", "70000"], "is not a port"),
        (["serve", "--seed", "-1"], "a seed is a whole number"),
        (["serve", "--web", "8088"], "is not HOST:PORT"),
        (["serve", "--web", "localhost:x"], "is not a port"),
        (["serve", "--rules", "fancy"], "invalid choice: 'fancy'"),
        (["serve", "--move-timeout", "0"], "must be positive"),
    ],
)
def test_bad_serve_options_exit_2_naming_the_flag(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    assert reason in capsys.readouterr().err


def test_serve_plays_logs_and_stops_on_sigint(tmp_path: Path) -> None:
    """The command serves a game on the port it prints, writes the game's and the player's logs,
    and stops on SIGINT with status 130, as every command after Ctrl-C."""
    logs = tmp_path / "logs"
    command = [sys.executable, "-m", "arena", "labyrinth", "serve", "--port", "0"]
    command += ["--rules", "cgs2017", "--log-dir", str(logs), "--seed", "4"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("labyrinth server (cgs2017 rules) on 127.0.0.1:")
        port = int(first.rsplit(":", 1)[1])
        # Then what it waits for: a person started it and sees nothing happen until a player.
        assert process.stdout.readline() == (
            "waiting for players (CLIENT_NAME, then WAIT_GAME); Ctrl-C stops\n"
        )
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            result = play_online(Connection(sock), "cli", "DO_NOTHING start=0", astar_move)
        assert result.won
        assert result.rules == "cgs2017"
    finally:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "labyrinth server stopped" in out
    (game,) = (logs / "games").glob("*.jsonl.gz")
    header = read_events(game)[0]
    assert header["rules"] == "cgs2017"
    assert header["players"] == ["cli", "DO_NOTHING"]
    player = (logs / "players" / "cli.jsonl").read_text().splitlines()
    assert json.loads(player[-2])["result"] == "won"


@pytest.fixture
def game_log(tmp_path: Path) -> Path:
    """A finished game's log, from the server run in-process."""
    import trio

    from server.labyrinth.server import LabyrinthServer, Settings, serve_labyrinth

    server = LabyrinthServer(Settings(log_dir=tmp_path), seed=6)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_labyrinth, server)

            def client() -> None:
                with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                    play_online(Connection(sock), "me", "PLAY_RANDOM start=1", astar_move)

            await trio.to_thread.run_sync(client)
            nursery.cancel_scope.cancel()

    trio.run(run)
    (path,) = (tmp_path / "games").glob("*.jsonl.gz")
    return path


def test_replay_verifies_shows_and_renders_a_game_log(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert replay_main(["verify", str(game_log)]) == 0
    assert "inputs re-run, everything the rules derive matches" in capsys.readouterr().out
    assert replay_main(["show", str(game_log)]) == 0
    shown = capsys.readouterr().out
    assert "PLAY_RANDOM (A, starts) vs me (B)" in shown
    assert "end: me wins (player 1 reached the treasure)" in shown
    page, still = tmp_path / "game.html", tmp_path / "game.png"
    assert replay_main(["render", str(game_log), "-o", str(page), "--png", str(still)]) == 0
    assert '"frames"' in page.read_text()
    assert still.read_bytes().startswith(b"\x89PNG")


def test_a_tampered_log_fails_verify_naming_the_line(
    game_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = gzip.decompress(game_log.read_bytes()).decode().splitlines()
    lines[2] = lines[2].replace('"move":[', '"move":[8,0],"was":[', 1)  # another move
    game_log.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    assert replay_main(["verify", str(game_log)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL {game_log} line 3: hash does not chain to the line before")


def test_the_interop_script_skips_when_the_public_server_is_absent(tmp_path: Path) -> None:
    env = {**os.environ, "CGS_DIR": str(tmp_path / "absent")}
    for run in ("client", "cclient"):
        done = subprocess.run(
            [sys.executable, "-m", "bench.labyrinth_interop", run, "--games", "1"],
            capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("skipped: ")


def test_replay_shows_a_players_log_and_verify_and_render_refuse_it(
    game_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player's log (players/NAME.jsonl) is shown as its connection, games and results;
    verify and render, which need moves, refuse it in one line naming the file, status 2."""
    player_log = tmp_path / "players" / "me.jsonl"
    assert replay_main(["show", str(player_log)]) == 0
    lines = capsys.readouterr().out.splitlines()
    game = game_log.name.removesuffix(".jsonl.gz")
    assert lines == [
        f"player me: connections, games and results ({player_log})",
        "connected",
        f"  game {game} (B)",
        f"  won   {game}: player 1 reached the treasure",
        "disconnected",
        "1 game(s): 1 won, 0 lost, 0 drawn",
    ]
    for argv in (["verify", str(player_log)], ["render", str(player_log), "-o", "x.html"]):
        assert replay_main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith(f"arena replay {argv[0]}: {player_log}: a Labyrinth player's log")
