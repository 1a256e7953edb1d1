"""`arena serve --processes N`: a front process runs the lobby and hands each full match to a
worker process, which plays it and writes its log as a one-process server would.

End to end, as users run it: real `arena serve` processes on a free loopback port, real TCP
clients. Every wait is bounded (``trio.fail_after``, subprocess timeouts); nothing sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio
from server_testkit import RawAgent

from client.strategies.base import make_strategy
from client.team import connect_team
from dungeon.engine import AGENTS, AgentId
from protocol.messages import Dungeon, Error, GameOver, Move, Moved, Sat, Solution, Start
from replay.keyfile import default_key_path, load_key
from replay.matchlog import read_log

ARENA = [sys.executable, "-m", "arena"]
SMALL = ["--config", "nodes=300", "radius=0.11"]
HOST = "127.0.0.1"
T = TypeVar("T")


@dataclass
class ServeProcess:
    """A running `arena serve`: its port, and its stderr lines as they come (a thread reads
    them, so a chatty server never blocks on a full pipe)."""

    process: subprocess.Popen[str]
    port: int = 0
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, name: str, count: int = 1, timeout: float = 60) -> None:
        """Block until the server has logged ``name`` ``count`` times (fails after timeout)."""
        with self.changed:
            found = self.changed.wait_for(lambda: len(self.events(name)) >= count, timeout)
        assert found, f"no {name} x{count} in: {''.join(self.lines)}"

    def events(self, name: str) -> list[dict[str, Any]]:
        found = []
        for line in list(self.lines):
            if f'"{name}"' in line:
                record = json.loads(line)
                if record.get("event") == name:
                    found.append(record)
        return found


@contextmanager
def arena_serve(log_dir: Path, *extra: str) -> Iterator[ServeProcess]:
    """`arena serve --port 0` (small dungeons, seed 11, no optimum checks) until it listens;
    SIGTERM on the way out if it still runs."""
    argv = [*ARENA, "serve", "--port", "0", "--check-workers", "0", "--seed", "11"]
    argv += ["--log-dir", str(log_dir), *SMALL, *extra]
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    served = ServeProcess(process)
    listening = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            with served.changed:
                served.lines.append(line)
                served.changed.notify_all()
            if '"server_listening"' in line:
                served.port = json.loads(line)["port"]
                listening.set()
        listening.set()  # ended: the test's assertion below says so

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert listening.wait(timeout=60), "the server did not start"
        assert served.port, "".join(served.lines)
        yield served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        reader.join(timeout=10)
        assert process.stderr is not None
        process.stderr.close()


def stop(served: ServeProcess, signum: signal.Signals) -> int:
    served.process.send_signal(signum)
    return served.process.wait(timeout=60)


def verify(*logs: Path) -> str:
    result = subprocess.run(
        [*ARENA, "replay", "verify", "--require-complete", *map(str, logs)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


async def lockstep_match(port: int, name: str) -> dict[int, str]:
    """One match of two ``rusher`` teams in which one request is in flight at a time, in a
    fixed order: the server receives the same inputs in the same order on every run, whatever
    the processes (each agent decides on what its team read up to its own last answer, which
    does not depend on timing). Returns each slot's last message type."""
    agents: dict[AgentId, RawAgent] = {}
    for slot in AGENTS:
        agents[slot] = RawAgent(await trio.open_tcp_stream(HOST, port))
    for slot, agent in agents.items():
        await agent.send(Start(team=slot.team, agent=slot.agent, match=name))
    strategies = [make_strategy("rusher", team, seed=team) for team in (0, 1)]
    for slot, agent in agents.items():
        strategies[slot.team].observe(slot.agent, await agent.receive_a(Dungeon))

    async def answer(slot: AgentId) -> Any:
        """Read ``slot``'s socket up to the answer of its request (its team sees all of it)."""
        while True:
            message = await agents[slot].receive()
            if message is None:
                return None
            strategies[slot.team].observe(slot.agent, message)
            if isinstance(message, Sat | Error | GameOver) or (
                isinstance(message, Moved) and message.reason != "attacked"
            ):
                return message

    async def request(slot: AgentId, message: Move | Solution) -> Any:
        # Refused once the match is over: its game_over is on the way.
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await agents[slot].send(message)
        return await answer(slot)

    over = False
    while not over:
        moved = False
        for slot in AGENTS:
            strategy = strategies[slot.team]
            to = strategy.choose_move(slot.agent)
            if to is None:
                continue
            moved = True
            reply = await request(slot, Move(to=to))
            if isinstance(reply, Sat):
                reply = await request(slot, Solution(strategy.solve(slot.agent, reply)))
            if reply is None or isinstance(reply, GameOver):
                over = True
                break
        assert moved, "no agent wants to move"
    for agent in agents.values():
        await agent.until_closed()
        await agent.aclose()
    return {
        slot.team * 6 + slot.agent: type(agent.received[-1]).__name__
        for slot, agent in agents.items()
    }


async def bounded(work: Awaitable[T], seconds: float = 120) -> T:
    with trio.fail_after(seconds):
        return await work


def comparable(log: Path) -> list[dict[str, Any]]:
    """A match log's lines (a digest log's regenerated) without what depends on the clock or
    names the signing key (each log directory has its own)."""
    lines = []
    for line in read_log(log).events:
        record = dict(line.data)
        record.pop("t", None)
        record.pop("signed", None)
        lines.append(record)
    return lines


def test_two_processes_host_several_matches_at_once(tmp_path: Path) -> None:
    """Three matches of built-in teams at once on a front and two workers: each is played in a
    worker (both work), each log replays exactly, and the front keeps no match's socket."""

    async def play() -> list[str]:
        outcomes: list[str] = []

        async def team(name: str, number: int, strategy: str) -> None:
            result = await connect_team(
                HOST, served.port, team=number, match=name,
                strategy=make_strategy(strategy, number, seed=number + 7),
            )  # fmt: skip
            outcomes.append(result.outcome)

        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                for index, name in enumerate(["alpha", "beta", "gamma"]):
                    nursery.start_soon(team, name, 0, "rusher")
                    nursery.start_soon(team, name, 1, "reference" if index else "random")
        return outcomes

    with arena_serve(tmp_path, "--processes", "2") as served:
        outcomes = trio.run(play)
        assert stop(served, signal.SIGTERM) == 0
    logs = sorted(tmp_path.glob("*.jsonl*"))
    assert len(logs) == 3
    assert len(outcomes) == 6
    verify(*logs)
    workers = {record["pid"] for record in served.events("worker_ready")}
    assert len(workers) == 2
    assert {int(log.name.split("-")[1]) for log in logs} == workers  # both played a match
    assert len(served.events("match_handed_off")) == 3
    assert all(record["sockets"] == 12 for record in served.events("match_handed_off"))
    assert not served.events("worker_died")
    assert "Traceback" not in "".join(served.lines)


def test_one_and_two_processes_play_a_match_alike(tmp_path: Path) -> None:
    """The same inputs in the same order give the same match log with one process and with two
    (apart from times and hashes): the seed is drawn by the front exactly as by a one-process
    server, and a worker plays and logs as it does."""
    logs = {}
    for processes in (1, 2):
        log_dir = tmp_path / str(processes)
        with arena_serve(log_dir, "--processes", str(processes)) as served:
            last = trio.run(bounded, lockstep_match(served.port, "fixed"))
            assert set(last.values()) == {"GameOver"}
            assert stop(served, signal.SIGTERM) == 0
        (log,) = log_dir.glob("*.jsonl*")
        logs[processes] = log
    verify(*logs.values())
    one, two = comparable(logs[1]), comparable(logs[2])
    assert one[0]["seed"] == two[0]["seed"] == 11
    assert one == two
    assert one[-1]["event"] == "close"
    # Each server signed with its own key (LOG_DIR.key, made on first use): a worker too.
    for processes, log in logs.items():
        key = load_key(default_key_path(tmp_path / str(processes)), create=False)
        signed = read_log(log, key=key)
        assert signed.bad is None
        assert signed.signed_through == signed.events[-1].line


async def begun_match(port: int, name: str | None = None) -> dict[AgentId, RawAgent]:
    """Twelve raw agents whose match has begun (each has its `dungeon`)."""
    agents = {slot: RawAgent(await trio.open_tcp_stream(HOST, port)) for slot in AGENTS}
    for slot, agent in agents.items():
        await agent.send(Start(team=slot.team, agent=slot.agent, match=name))
    for agent in agents.values():
        await agent.receive_a(Dungeon)
    return agents


def test_a_socket_keeps_what_it_sent_before_the_match_across_the_hand_off(tmp_path: Path) -> None:
    """A request held before `dungeon` is answered `not_begun` after it by the worker, and a
    line cut in two around the hand-off is read whole: nothing the front read is lost."""

    async def play() -> list[Any]:
        with trio.fail_after(60):
            first = RawAgent(await trio.open_tcp_stream(HOST, served.port))
            await first.send(Start(team=0, agent=0, match="held"))
            await first.send(b'{"type":"move","to":0}\n{"type":"mo')
            others = {}
            for slot in AGENTS[1:]:
                others[slot] = RawAgent(await trio.open_tcp_stream(HOST, served.port))
                await others[slot].send(Start(team=slot.team, agent=slot.agent, match="held"))
            dungeon = await first.receive_a(Dungeon)
            held = await first.receive_a(Error)
            await first.send(b've","to":%d}\n' % dungeon.start[1])  # the enemy's start
            refused = await first.receive_a(Error)
            for agent in [first, *others.values()]:
                await agent.aclose()
            return [held, refused]

    with arena_serve(tmp_path, "--processes", "2") as served:
        held, refused = trio.run(play)
        assert stop(served, signal.SIGTERM) == 0
    assert held.code == "not_begun"
    assert refused.code != "bad_json"  # the two halves made one move, judged by the rules
    assert "Traceback" not in "".join(served.lines)


def test_a_worker_that_dies_loses_only_its_matches(tmp_path: Path) -> None:
    """A worker killed mid-match: its match's sockets close, the front logs it, starts another
    worker, frees the match's name and goes on serving."""

    async def play() -> None:
        with trio.fail_after(120):
            agents = await begun_match(served.port, "doomed")
            (log,) = tmp_path.glob("*.jsonl*")
            os.kill(int(log.name.split("-")[1]), signal.SIGKILL)
            for agent in agents.values():
                await agent.until_closed()  # no game_over: the worker is gone
                await agent.aclose()
            # Once the front has seen the worker die (and started another), the name is free
            # again and the server plays on.
            await trio.to_thread.run_sync(served.wait_for, "worker_ready", 3)
            last = await lockstep_match(served.port, "doomed")
            assert set(last.values()) == {"GameOver"}

    with arena_serve(tmp_path, "--processes", "2") as served:
        trio.run(play)
        assert stop(served, signal.SIGTERM) == 0
    (died,) = served.events("worker_died")
    assert died["matches_lost"] == 1
    assert died["restarting"] is True
    assert len(served.events("worker_ready")) == 3
    assert "Traceback" not in "".join(served.lines)


def test_ctrl_c_ends_the_matches_in_the_workers_and_exits_130(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) to the front while a worker plays a match: the match ends as a draw
    with its log closed (reason shutdown), every process exits, no traceback, status 130."""

    async def play() -> list[Any]:
        with trio.fail_after(60):
            agents = await begun_match(served.port)
            served.process.send_signal(signal.SIGINT)
            ends = [(await agent.until_closed())[-1:] for agent in agents.values()]
            for agent in agents.values():
                await agent.aclose()
            return ends

    with arena_serve(tmp_path, "--processes", "2") as served:
        ends = trio.run(play)
        assert served.process.wait(timeout=60) == 130
    assert all(end == [GameOver(winner=None)] for end in ends)
    (log,) = tmp_path.glob("*.jsonl*")
    last = read_log(log).events[-1].data
    assert (last["event"], last["reason"]) == ("close", "shutdown")
    verify(log)
    stderr = "".join(served.lines)
    assert "Traceback" not in stderr
    assert "KeyboardInterrupt" not in stderr
    assert len(served.events("worker_exited")) == 2
    assert served.events("serve_exit")


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--processes", "0"], "--processes"),
        (["--processes", "-2"], "--processes"),
        (["--processes", "two"], "--processes"),
        (["--processes", "2", "--web", "127.0.0.1:0"], "--web"),
    ],
    ids=["zero", "negative", "not-a-number", "with-web"],
)
def test_bad_process_counts_are_refused_in_one_line(
    flags: list[str], named: str, tmp_path: Path
) -> None:
    """A process count below 1 or not a number, or --web beside more than one process: exit 2,
    one line naming the flag, no server started."""
    result = subprocess.run(
        [*ARENA, "serve", "--port", "0", "--log-dir", str(tmp_path), *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert named in line
    assert "--processes" in line
