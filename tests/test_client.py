"""The team client and the ``arena team`` / ``arena match`` / ``arena serve`` entry points."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing
from server_testkit import SMALL, connect_memory, running_server

from arena import match as match_cli
from arena import serve as serve_cli
from arena import team as team_cli
from client.strategies.base import make_strategy
from client.team import TeamError, connect_team, play_team
from dungeon.engine import AgentId, Match
from protocol.encoding import encode
from protocol.messages import Dungeon, Start
from replay.matchlog import read_log


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so no other program takes it while the
    test runs, as one could between a probe's close and the connect) but not listening."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port: int = holder.getsockname()[1]
        yield port


async def test_unreachable_server_is_a_clear_error() -> None:
    """Connecting to a port nobody listens on raises TeamError naming the address."""
    with (
        closed_port() as port,
        pytest.raises(TeamError, match=f"cannot reach the server at 127.0.0.1:{port}"),
    ):
        await connect_team("127.0.0.1", port, team=0, strategy=make_strategy("rusher", 0, 1))


async def test_taken_slot_is_a_clear_error() -> None:
    """A team whose slot is already held in a named match fails with the server's reason."""
    async with running_server() as (server, nursery):
        holder = connect_memory(server, nursery)
        await holder.send(Start(team=0, agent=0, match="busy"))
        streams = []
        for _ in range(6):
            client, server_side = trio.testing.memory_stream_pair()
            nursery.start_soon(server.handle, server_side)
            streams.append(client)
        with pytest.raises(TeamError, match=r"refused the start: .*taken"):
            await play_team(streams, team=0, strategy=make_strategy("rusher", 0, 1), match="busy")


async def fake_server(stream: trio.abc.Stream, reply: bytes) -> None:
    """Read the start, answer with ``reply``, then close."""
    await stream.receive_some(65536)
    if reply:
        await stream.send_all(reply)
    await stream.aclose()


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (b"garbage\n", "broke the protocol"),
        (b"", "closed every connection before the match ended"),
    ],
    ids=["garbage", "silent-close"],
)
async def test_broken_server_is_a_clear_error(reply: bytes, expected: str) -> None:
    """A server that sends garbage, or closes without a game over, fails the team clearly."""
    async with trio.open_nursery() as nursery:
        streams = []
        for _ in range(6):
            client, server_side = trio.testing.memory_stream_pair()
            nursery.start_soon(fake_server, server_side, reply)
            streams.append(client)
        with pytest.raises(TeamError, match=expected):
            await play_team(streams, team=1, strategy=make_strategy("random", 1, 1))


async def test_no_agent_moves_before_all_six_dungeons_arrived() -> None:
    """The six `dungeon` lines may arrive in any order: nobody moves until the last is in."""
    dungeons = {
        out.to.agent: encode(out.message)
        for out in Match(5, SMALL).begin().messages
        if isinstance(out.message, Dungeon) and out.to.team == 0
    }
    sent: dict[int, bytearray] = {agent: bytearray() for agent in range(6)}

    async def collect(agent: int, stream: trio.abc.Stream) -> None:
        while data := await stream.receive_some(65536):
            sent[agent] += data

    async with trio.open_nursery() as nursery:
        servers = []
        streams = []
        for agent in range(6):
            client, server_side = trio.testing.memory_stream_pair()
            nursery.start_soon(collect, agent, server_side)
            servers.append(server_side)
            streams.append(client)
        nursery.start_soon(
            partial(play_team, streams, team=0, strategy=make_strategy("reference", 0, 1))
        )
        for agent in range(1, 6):  # every dungeon but the heir's
            await servers[agent].send_all(dungeons[agent])
        await trio.testing.wait_all_tasks_blocked()
        assert all(b'"move"' not in sent[agent] for agent in range(6))
        await servers[0].send_all(dungeons[0])
        await trio.testing.wait_all_tasks_blocked()
        assert b'"move"' in sent[0]
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(("first", "second"), [("reference", "rusher"), ("random", "reference")])
async def test_two_teams_play_to_the_end(first: str, second: str, tmp_path: Path) -> None:
    """Both teams see the end the server logged: the winner's heir on its shrine, the loser's
    never on its own, and each team's counts those of the match log, the last crossing too."""
    async with running_server(log_dir=tmp_path) as (server, nursery):
        streams: dict[AgentId, trio.abc.Stream] = {}
        for team in (0, 1):
            for agent in range(6):
                client, server_side = trio.testing.memory_stream_pair()
                nursery.start_soon(server.handle, server_side)
                streams[AgentId(team, agent)] = client
        results = {}
        async with trio.open_nursery() as teams:
            for team, name in ((0, first), (1, second)):

                async def play(team: int = team, name: str = name) -> None:
                    own = [streams[AgentId(team, agent)] for agent in range(6)]
                    strategy = make_strategy(name, team, seed=7 + team)
                    results[team] = await play_team(own, team=team, strategy=strategy)

                teams.start_soon(play)
    assert results[0].over
    assert results[1].over
    winner = results[0].winner
    assert results[1].winner == winner
    [actor] = server.finished
    assert (actor.end_reason, actor.winner) == ("shrine", winner)  # what the server decided
    assert winner is not None
    assert results[winner].outcome == "won"
    assert results[1 - winner].outcome == "lost"
    # The shrines of the match the server played (running_server's seed, its first match).
    shrines = Match(2026, SMALL).dungeon.shrine
    assert results[winner].heir_path[-1] == shrines[winner]
    assert shrines[1 - winner] not in results[1 - winner].heir_path
    [path] = sorted(tmp_path.glob("*.jsonl*"))
    events = [line.data for line in read_log(path).outputs]
    for team, result in results.items():
        crossings = [e for e in events if e["event"] == "crossing" and e["agent"][0] == team]
        kills = [e for e in events if e["event"] == "kill"]
        assert result.crossings == len(crossings)
        assert result.trap_deaths == sum(not e["survived"] for e in crossings)
        assert result.kills == sum(e["agent"][0] == team for e in kills)
        assert result.killed_by_enemy == sum(e["victim"][0] == team for e in kills)
        assert result.npc_kills == sum(
            e["event"] == "npc_killed" and e["agent"][0] == team for e in events
        )


def test_arena_match_plays_one_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`arena match` prints the winner, per-team counts, the duration and a complete log."""
    argv = ["--log-dir", str(tmp_path), "--seed", "4", "--strategies", "rusher,reference",
            "--config", "nodes=150", "radius=0.16"]  # fmt: skip
    assert match_cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("winner: ")
    assert "team 0 (rusher): " in out
    assert "team 1 (reference): " in out
    assert "duration: " in out
    [path] = sorted(tmp_path.glob("*.jsonl*"))
    assert f"log: {path}" in out
    log = read_log(path)
    assert log.complete
    assert log.seed == 4
    assert len(log.optima) == len([e for e in log.outputs if e.event == "trap_problem"])


def test_arena_match_prints_its_seed_and_the_command_that_plays_it_again(tmp_path: Path) -> None:
    """Without --seed the seed is drawn; the output names it (stderr first, as the match starts)
    and ends with a command that plays the same dungeon again: running it does."""

    def arena_match(*argv: str, into: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "match", *argv, "--log-dir", str(into), "--no-optimum"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    first = arena_match("--config", "nodes=150", "radius=0.16", into=tmp_path / "a")
    assert first.returncode == 0, first.stderr
    said = first.stdout.splitlines()[-1]
    assert said.startswith("seed: ")
    seed = said.split()[1]
    assert first.stderr.startswith(f"arena match: seed {seed}: reference (team 0) against rusher")
    again = said.partition("again: ")[2].removesuffix(")").split()
    assert again[:2] == ["arena", "match"]
    assert again[2:] == ["--seed", seed, "--strategies", "reference,rusher", "--config",
                         "nodes=150", "radius=0.16"]  # fmt: skip
    second = arena_match(*again[2:], into=tmp_path / "b")
    assert second.returncode == 0, second.stderr
    logs = [read_log(next((tmp_path / d).glob("*.jsonl*"))) for d in "ab"]
    assert logs[0].seed == logs[1].seed == int(seed)
    maps = [next(e.data["message"] for e in log.outputs if e.event == "send") for log in logs]
    assert maps[0]["type"] == "dungeon"
    assert maps[0] == maps[1]


def test_arena_match_compact_logs_write_the_map_once(tmp_path: Path) -> None:
    """`arena match --compact-logs`: the log holds the map once, says so in its header, and
    verifies like a full log."""
    from replay.rerun import verify_log

    argv = ["--log-dir", str(tmp_path), "--seed", "4", "--compact-logs", "--no-optimum",
            "--config", "nodes=150", "radius=0.16"]  # fmt: skip
    assert match_cli.main(argv) == 0
    [path] = sorted(tmp_path.glob("*.jsonl*"))
    assert path.read_text().count('"nodes":[[') == 1
    log = read_log(path)
    assert log.header["maps"] == "once"
    assert sum(1 for e in log.outputs if e.data.get("message", {}).get("type") == "dungeon") == 12
    assert verify_log(log).ok


@pytest.mark.parametrize(
    ("main", "argv", "message"),
    [
        (match_cli.main, ["--strategies", "rusher"], "--strategies wants two of"),
        (match_cli.main, ["--strategies", "rusher,nobody"], "--strategies wants two of"),
        (match_cli.main, ["--config", "nodes=lots"], "'lots' is not a valid int"),
        (match_cli.main, ["--config", "nodes=10", "radius=0.001"], "--config: no playable dungeon"),
        (team_cli.main, ["--team", "0", "--match", "bad name!"], "use 1-64 of"),
        (serve_cli.main, ["--config", "colour=red"], "unknown key 'colour'"),
        (serve_cli.main, ["--check-workers", "-1"], "argument --check-workers: '-1': expected 0"),
    ],
)
def test_bad_usage_exits_2_with_a_message(
    main: object, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad options are refused with exit status 2 and a message on stderr."""
    assert main(argv) == 2  # type: ignore[operator]
    assert message in capsys.readouterr().err


def test_arena_match_log_dir_that_cannot_be_created_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --log-dir under a regular file is refused up front, naming the option, exit 2."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    argv = ["--log-dir", str(blocker / "logs"), "--config", "nodes=150", "radius=0.16"]
    assert match_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"--log-dir {blocker / 'logs'}: cannot create it" in err
    assert "Traceback" not in err


def test_arena_team_says_it_waits_for_the_other_team_then_that_the_match_began(
    tmp_path: Path,
) -> None:
    """A team alone on a server showed a blank terminal until its opponent came: it now says
    what it waits for, as a real process, before the other team exists."""
    from serve_process import arena_serve

    def team(number: int, port: int) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "arena", "team", "--team", str(number), "--port", str(port),
             "--match", "final", "--strategy", "rusher", "--seed", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    with arena_serve(tmp_path) as port, team(0, port) as first:
        assert first.stderr is not None
        waiting = first.stderr.readline()  # said with no opponent anywhere yet
        assert waiting == (
            f"arena team: team 0 connected to 127.0.0.1:{port}, match final: waiting for the"
            " other team to join\n"
        )
        with team(1, port) as second:
            _, second_err = second.communicate(timeout=120)
        out, rest = first.communicate(timeout=120)
    assert first.returncode == second.returncode == 0, (rest, second_err)
    assert rest.startswith("arena team: team 0: the match has begun (rusher playing)\n")
    assert out.startswith("team 0: ")


def test_arena_team_unreachable_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """`arena team` against a closed port exits 1 and says it cannot reach the server."""
    with closed_port() as port:
        assert team_cli.main(["--team", "1", "--port", str(port)]) == 1
    assert f"cannot reach the server at 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_arena_serve_stops_cleanly_on_a_signal(signum: signal.Signals, tmp_path: Path) -> None:
    """`arena serve` (a real process) ends cleanly on SIGINT or SIGTERM, saying so in its log
    (JSON Lines on stderr, since stderr is not a terminal here): status 130 after SIGINT (Ctrl-C,
    as every command), 0 after SIGTERM."""
    argv = ["serve", "--port", "0", "--check-workers", "0", "--log-dir", str(tmp_path)]
    command = [sys.executable, "-m", "arena.main", *argv]
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True) as server:
        assert server.stderr is not None
        first = json.loads(server.stderr.readline())  # blocks until the server listens
        assert first["event"] == "server_listening"
        assert first["port"] > 0
        # Then one plain line for a person: where it listens and what it waits for.
        said = server.stderr.readline()
        server.send_signal(signum)
        _, rest = server.communicate(timeout=60)
    assert said == (
        f"arena serve: listening on 127.0.0.1:{first['port']}, match logs into {tmp_path}/;"
        " waiting for teams (Ctrl-C ends running matches as draws, then stops)\n"
    )
    events = [json.loads(line)["event"] for line in rest.splitlines()]
    assert server.returncode == (130 if signum == signal.SIGINT else 0)
    assert events[0] == "signal_received"
    assert "server_stopped" in events
