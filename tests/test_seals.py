"""Seals: the logs that carry no chain of their own (Fish's, the Labyrinth server's, the Penguins
master's) and a tournament's results are signed as they close; `arena replay verify --key`
tells a genuine file from an edited one, and says when it checked without a key."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing
from labyrinth_kit import memory_client

from arena.replay import main as replay_main
from fish.gamelog import JsonlLog
from replay.games import read_game
from replay.keyfile import load_key
from replay.seal import SealError, check_seal, seal, seal_path
from server.labyrinth.server import LabyrinthServer, Settings


def test_a_seal_holds_for_its_file_and_key_only(tmp_path: Path) -> None:
    path, key = tmp_path / "log.jsonl", b"k" * 32
    path.write_text('{"event":"start"}\n')
    assert check_seal(path, key) == "unsealed"
    seal(path, key)
    assert "genuine" in check_seal(path, key)
    with pytest.raises(SealError, match="another key"):
        check_seal(path, b"other")
    path.write_text('{"event":"start!"}\n')
    with pytest.raises(SealError, match="changed after it was sealed"):
        check_seal(path, key)


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = replay_main(["verify", *argv])
    return status, capsys.readouterr().out


def test_a_fish_log_is_sealed_as_it_closes_and_an_edit_fails_verify_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = tmp_path / "logs.key"
    path = tmp_path / "logs" / "game-r1-g1.jsonl"
    log = JsonlLog(path, lambda: 0.0, load_key(key_file, create=True))
    log.write("game", log="fish-game", players=["alpha", "bravo"])
    log.write("result", winners=["alpha"])
    log.close()
    assert seal_path(path).is_file()
    status, out = verify(capsys, "--key", str(key_file), str(path))
    assert status == 0
    assert "seal: genuine" in out
    status, out = verify(capsys, str(path))
    assert status == 0
    assert "checked unsigned only" in out
    path.write_text(path.read_text().replace("alpha", "bravo"))  # the winner changed by hand
    status, out = verify(capsys, "--key", str(key_file), str(path))
    assert status == 1
    assert f"FAIL {path}: {path}: the file was changed after it was sealed" in out


async def test_the_labyrinth_servers_game_log_is_signed_and_player_log_sealed(
    tmp_path: Path,
) -> None:
    key = b"s3cret-key"
    settings = Settings(log_dir=tmp_path / "logs", log_key=key)
    server = LabyrinthServer(settings, seed=2)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        client = memory_client(nursery, server)
        await client.join("carol", "ASTAR start=1 seed=3")
        await client.stream.aclose()  # carol leaves: the game ends
        while not server.finished:
            await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    game = next((tmp_path / "logs" / "games").glob("*.jsonl.gz"))
    player = tmp_path / "logs" / "players" / "carol.jsonl"
    chain = read_game(game, key=key).chain
    assert chain is not None
    assert chain.closed
    assert chain.bad is None
    assert chain.signed_through == chain.lines[-1][0]  # its close line is signed
    assert "genuine" in check_seal(player, key)
    player.write_text(player.read_text() + '{"player": "carol", "type": "result"}\n')
    with pytest.raises(SealError):
        check_seal(player, key)


def test_a_sealed_results_file_verifies_by_its_seal_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tournament's results.json (or a Penguins master's log) is no match log: with a seal,
    verify --key checks the seal and nothing else."""
    key_file = tmp_path / "logs.key"
    results = tmp_path / "results.json"
    results.write_text('{"teams": [{"team": "ann", "points": 3}]}\n')
    seal(results, load_key(key_file, create=True))
    status, out = verify(capsys, "--key", str(key_file), str(results))
    assert (status, out.strip()) == (
        0,
        f"OK {results}: " + check_seal(results, load_key(key_file, create=False)),
    )
    results.write_text('{"teams": [{"team": "ann", "points": 30}]}\n')
    status, out = verify(capsys, "--key", str(key_file), str(results))
    assert status == 1
    assert "changed after it was sealed" in out
