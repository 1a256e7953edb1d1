"""How many concurrent ``rusher`` matches one server core holds at p99 latency <= 20 ms.

``python -m bench server``. The server runs in its own process pinned to CPU 0 (the default
1000-node rules, match logs written to a temporary directory, no optimum checks: they belong
to worker processes, not to the server's core; the garbage collection policy of ``arena
serve``); the load runs in this process, pinned to CPU 1 when there is one. Each load level
keeps N named matches of two ``rusher`` teams going (a match that ends is replaced at once) for
a measuring window after a warm-up.

Two kinds of bots, because the answer depends on them more than on anything else:

- think 0 ms: instant bots. Every socket always has a request in flight (a closed loop), so the
  server runs flat out and latency is simply queueing: 600 sockets / throughput. This row
  measures the saturating rate; p99 <= 20 ms at 50 matches this way would need ~30,000
  requests/s on one core, which no CPython server reaches.
- think 250 ms: each agent waits about 250 ms before each request, the pace of a bot that plays
  over a real network (a few ms to 100 ms round trips) and solves its own trap problems (tens of
  ms for a SAT call in Python). This is the open question: how many such matches one core serves
  with p99 <= 20 ms. Each wait is drawn uniformly between half and one and a half times the
  think time (seeded per agent), as load testers do (Locust's ``between``, TPC-C's random think
  times): with one fixed wait, the 600 bots that all began together keep firing in waves 250 ms
  apart, and the server's p50 measured those waves (8.7 ms, against 2.2-3.6 ms with the spread)
  rather than its own speed. ``BENCH_SERVER_JITTER=0`` restores the fixed wait.

Columns. "server" latency: measured inside the server (a probe in each connection) from reading
a request to its answer going out in a write; the goal is judged on it. "client" latency: from a
request leaving the client to its answer arriving, so it adds the load process's own delays (one
Python process driving 600 sockets and their SAT solving; when it is busy, its p99 grows beyond
the server's). "server CPU": the share of its core the server used in the window; near 100% the
server is the bottleneck; "server kernel" is the part of that share spent in the kernel (socket
and log writes, epoll), which callgrind does not count. Memory: the server's resident set at the
level minus at rest, per match.
On a machine shared with other work the server may get less than its core (the load average
before the run is printed): then latencies are the machine's, not the server's.

Environment: BENCH_SERVER_THINK_MS (default "0,250": one run of the levels per think time),
BENCH_SERVER_JITTER (default 1: waits spread over 0.5-1.5 times the think time; 0: fixed),
BENCH_SERVER_LEVELS (default "10,25,40,50"), BENCH_SERVER_SECONDS (window, 5),
BENCH_SERVER_STALLS=1 (print, per level, the server's longest task step and garbage collection
in CPU time: what the server itself holds requests up by, whatever else the machine runs),
BENCH_SERVER_PROCESSES (default 1: the server as above; N > 1: ``arena serve --processes N``'s
front and N worker processes, none pinned, since N processes cannot share one core to any
purpose: they may use every CPU, the load process stays on the others; server latencies come
from the workers, server CPU and memory add up the front and its workers). The default run
takes about 90 s.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import msgspec
import trio

from bench.common import env_number, env_numbers, print_table

LEVELS = env_numbers("BENCH_SERVER_LEVELS", [10, 25, 40, 50], minimum=1)
WINDOW = env_number("BENCH_SERVER_SECONDS", 5.0, minimum=0.1)
THINK_MS = env_numbers("BENCH_SERVER_THINK_MS", [0.0, 150.0], minimum=0.0)
#: Also run the thinking levels against bench/naive_server.py (a single-file asyncio server).
NAIVE = os.environ.get("BENCH_SERVER_NAIVE", "1") not in ("", "0")
JITTER = os.environ.get("BENCH_SERVER_JITTER", "1") not in ("", "0")
STALLS = os.environ.get("BENCH_SERVER_STALLS", "") not in ("", "0")
#: Server processes: 1, or a front and this many workers (arena serve --processes).
PROCESSES = env_number("BENCH_SERVER_PROCESSES", 1, minimum=1)
WARMUP = 2.0
TARGET_P99_MS = 20.0
GOAL_MATCHES = 50
HOST = "127.0.0.1"


class Recorder:
    """Request-to-answer latencies of every socket, kept only inside the measuring window, and
    the bots' think time (seconds before each request)."""

    def __init__(self, think: float = 0.0) -> None:
        self.latencies: list[float] = []
        self.recording = False
        self.think = think

    def answered(self, sent_at: float) -> None:
        if self.recording:
            self.latencies.append(time.perf_counter() - sent_at)


class LightTeam:
    """A ``rusher`` team made cheap to drive, so one load process can keep a server core busy.

    Same moves as ``client.strategies.rusher`` (heir down the shortest path, henchmen toward the
    enemy heir), but lines are decoded to plain dicts and traps get one SAT call (an unsolvable
    problem is answered with all switches off): the load generator must not be the bottleneck.
    """

    def __init__(self, team: int) -> None:
        self.team = team
        self.adjacency: list[list[int]] = []
        self.forbidden: set[int] = set()
        self.shrine = 0
        self.start = 0
        self.enemy_heir = -1
        self.distances: dict[int, list[int]] = {}

    def learn(self, dungeon: dict[str, Any]) -> None:
        if self.adjacency:
            return
        self.adjacency = [[] for _ in dungeon["nodes"]]
        for u, v in dungeon["edges"]:
            self.adjacency[u].append(v)
            self.adjacency[v].append(u)
        enemy = 1 - self.team
        self.forbidden = {dungeon["start"][enemy], dungeon["shrine"][enemy]}
        self.shrine = dungeon["shrine"][self.team]
        self.start = dungeon["start"][self.team]
        self.enemy_heir = dungeon["start"][enemy]

    def distances_to(self, target: int) -> list[int]:
        if target not in self.distances:
            dist = [-1] * len(self.adjacency)
            dist[target] = 0
            frontier = [target]
            while frontier:
                following = []
                for node in frontier:
                    for nxt in self.adjacency[node]:
                        if dist[nxt] < 0 and nxt not in self.forbidden:
                            dist[nxt] = dist[node] + 1
                            following.append(nxt)
                frontier = following
            self.distances[target] = dist
        return self.distances[target]

    def next_step(self, agent: int, here: int) -> int | None:
        dist = self.distances_to(self.shrine if agent == 0 else self.enemy_heir)
        best = [n for n in self.adjacency[here] if n not in self.forbidden and dist[n] >= 0]
        best = [n for n in best if dist[here] < 0 or dist[n] < dist[here]]
        return best[0] if best else None


def solve(traps: list[list[int]], switches: int) -> list[bool]:
    # dungeon.sat's MiniSat call, not pysat's Minisat22 class: the same solver and model at
    # about a third of the load process's cost, which ran its core at ~85% at 50 matches and
    # so sent requests in bursts that the server's p99 then measured.
    from dungeon.sat import minisat

    found, model = minisat(traps)
    if found:
        return [lit > 0 for lit in model[:switches]] or [False] * switches
    return [False] * switches


async def light_agent(
    port: int, team: LightTeam, agent: int, name: str, recorder: Recorder
) -> None:
    """One socket of a :class:`LightTeam`: start, then move, solve, move... until game over."""
    decode = msgspec.json.Decoder().decode
    stream = await trio.open_tcp_stream(HOST, port)
    start = b'{"type":"start","team":%d,"agent":%d,"match":"%s"}\n' % (
        team.team, agent, name.encode()
    )  # fmt: skip
    await stream.send_all(start)
    here, sent_at, buffer = -1, 0.0, b""
    jitter = random.Random(f"{name}/{team.team}/{agent}")
    waiting = False  # a request is out

    async def request(line: bytes) -> None:
        nonlocal sent_at, waiting
        waiting = True
        if recorder.think:
            await trio.sleep(recorder.think * (jitter.uniform(0.5, 1.5) if JITTER else 1.0))
        sent_at = time.perf_counter()
        await stream.send_all(line)

    try:
        while True:
            data = await stream.receive_some(65536)
            if not data:
                return
            *lines, buffer = (buffer + data).split(b"\n")
            for line in lines:
                if line.startswith(b'{"type":"dungeon"') and team.adjacency:
                    # The team's map is known: the 60 KB line is not decoded again. Decoding
                    # all twelve was about a tenth of the load process's CPU at 50 matches.
                    message = {"type": "dungeon"}
                else:
                    message = decode(line)
                kind = message["type"]
                if kind == "dungeon":
                    team.learn(message)
                    here = team.start
                elif kind == "enemy" and message["agent"] == 0 and message["seen"]:
                    team.enemy_heir = message["location"]
                elif kind == "sat":
                    recorder.answered(sent_at)
                    answer = solve(message["traps"], message["switches"])
                    await request(
                        msgspec.json.encode({"type": "solution", "assignment": answer}) + b"\n"
                    )
                    continue
                elif kind == "moved":
                    here = message["location"]
                    if message["reason"] != "attacked":
                        recorder.answered(sent_at)
                        waiting = False
                elif kind == "error":
                    recorder.answered(sent_at)
                    waiting = False
                elif kind == "game_over":
                    return
                if not waiting and here >= 0:
                    step = team.next_step(agent, here)
                    if step is not None:
                        await request(b'{"type":"move","to":%d}\n' % step)
    except trio.BrokenResourceError:
        return
    finally:
        await stream.aclose()


async def keep_match_going(port: int, slot: int, recorder: Recorder, stop: trio.Event) -> None:
    """Play light ``rusher`` teams in named matches, one after another, until ``stop``."""
    round_ = 0
    while not stop.is_set():
        round_ += 1
        name = f"bench-{slot}-{round_}"
        async with trio.open_nursery() as nursery:
            for team_number in (0, 1):
                team = LightTeam(team_number)
                for agent in range(6):
                    nursery.start_soon(light_agent, port, team, agent, name, recorder)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU seconds the process has used."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def total_cpu_seconds(pids: list[int]) -> tuple[float, float]:
    """User and system CPU seconds the processes have used together."""
    times = [cpu_seconds(pid) for pid in pids]
    return sum(user for user, _ in times), sum(kernel for _, kernel in times)


def resident_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def server_latencies(process: subprocess.Popen[str], command: str) -> list[float]:
    """Ask the server process to ``reset`` or ``report`` its request-to-answer latencies (and,
    with BENCH_SERVER_STALLS, print its longest stalls)."""
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(command + "\n")
    process.stdin.flush()
    if command != "report":
        return []
    report = json.loads(process.stdout.readline())
    if report["stalls"]:
        print(f"  stalls in the window: {report['stalls']}")
    values: list[float] = report["latencies"]
    return values


class StallProbe(trio.abc.Instrument):
    """The server's longest task steps and garbage collections, in CPU time of its thread.

    CPU time, not wall time: on a machine shared with other work a step also waits for the CPU,
    and that is the machine, not the server. Costs two clock reads per task step (~3% of the
    server's CPU), hence off by default.
    """

    def __init__(self) -> None:
        self.reset()
        self._step_started = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._collection)

    def reset(self) -> None:
        self.longest_step = (0.0, "")
        self.steps_over_5ms = 0
        self.steps = 0
        self.longest_collection = (0.0, -1)
        self.collections_over_5ms = 0
        self.collections = 0
        self.collected_objects = 0  # what the collections freed: 0 means they found no cycles

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self._step_started = time.thread_time()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        cpu = time.thread_time() - self._step_started
        self.steps += 1
        if cpu > 0.005:
            self.steps_over_5ms += 1
        if cpu > self.longest_step[0]:
            self.longest_step = (cpu, task.name)

    def _collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.thread_time()
            return
        cpu = time.thread_time() - self._gc_started
        self.collections += 1
        self.collected_objects += info["collected"]
        if cpu > 0.005:
            self.collections_over_5ms += 1
        if cpu > self.longest_collection[0]:
            self.longest_collection = (cpu, info["generation"])

    def summary(self, requests: int) -> str:
        step, task = self.longest_step
        collection, generation = self.longest_collection
        return (
            f"longest task step {1e3 * step:.1f} ms CPU ({task.rsplit('.', 1)[-1]}), "
            f"{self.steps_over_5ms} steps over 5 ms; longest collection {1e3 * collection:.1f} "
            f"ms CPU (generation {generation}), {self.collections_over_5ms} over 5 ms, "
            f"{self.collections} in all, which freed {self.collected_objects} objects; "
            f"{self.steps / max(1, requests):.2f} task steps a request"
        )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@dataclass
class Level:
    """What one load level measured."""

    matches: int
    think_ms: float
    server: str = "trio"  # or "naive": bench/naive_server.py (no probe: client figures only)
    requests_per_second: float = 0.0
    server_cpu: float = 0.0  # share of one core
    #: the kernel's part of it (socket and log writes, epoll): what callgrind does not count
    server_kernel: float = 0.0
    server_p50_ms: float = float("nan")
    server_p99_ms: float = float("nan")
    client_p50_ms: float = float("nan")
    client_p99_ms: float = float("nan")
    rss_mib_per_match: float = float("nan")

    @property
    def held(self) -> bool:
        """The goal's test: the server answered 99% of requests within 20 ms."""
        return self.server_p99_ms <= TARGET_P99_MS

    @property
    def held_by_clients(self) -> bool:
        """The same test on the latency the clients saw (the only one a naive server has)."""
        return self.client_p99_ms <= TARGET_P99_MS

    def row(self) -> tuple[object, ...]:
        return (
            self.server,
            self.matches,
            self.matches * 12,
            f"{self.think_ms:g}",
            f"{self.requests_per_second:,.0f}",
            f"{100 * self.server_cpu:.0f}%",
            f"{self.server_p50_ms:.1f}",
            f"{self.server_p99_ms:.1f}",
            f"{self.client_p50_ms:.1f}",
            f"{self.client_p99_ms:.1f}",
            "yes" if self.held else ("no" if self.server == "trio" else "-"),
            f"{self.rss_mib_per_match:.2f}",
            f"{100 * self.server_kernel:.0f}%",
        )


async def measure_level(
    process: subprocess.Popen[str],
    port: int,
    matches: int,
    think_ms: float,
    naive: bool,
    workers: list[int] | None = None,
) -> Level:
    recorder = Recorder(think_ms / 1000)
    stop = trio.Event()
    pids = [process.pid, *(workers or [])]  # the server's processes: CPU and memory add up
    rss_before = sum(map(resident_kib, pids))
    async with trio.open_nursery() as nursery:
        for slot in range(matches):
            nursery.start_soon(keep_match_going, port, slot, recorder, stop)
        await trio.sleep(WARMUP + 0.05 * matches)  # every match begun and in its stride
        if not naive:
            server_latencies(process, "reset")
        recorder.recording = True
        started, (user_started, kernel_started) = time.perf_counter(), total_cpu_seconds(pids)
        await trio.sleep(WINDOW)
        recorder.recording = False
        elapsed = time.perf_counter() - started
        user_ended, kernel_ended = total_cpu_seconds(pids)
        user, kernel = user_ended - user_started, kernel_ended - kernel_started
        served = [] if naive else server_latencies(process, "report")
        rss = sum(map(resident_kib, pids))
        stop.set()
        nursery.cancel_scope.cancel()  # the server sees every team leave: forfeits, then draws
    level = Level(
        matches,
        think_ms,
        "naive" if naive else "trio",
        server_cpu=(user + kernel) / elapsed,
        server_kernel=kernel / elapsed,
    )
    if recorder.latencies and (served or naive):
        level.requests_per_second = len(served or recorder.latencies) / elapsed
        if served:
            level.server_p50_ms = 1e3 * percentile(served, 0.5)
            level.server_p99_ms = 1e3 * percentile(served, 0.99)
        level.client_p50_ms = 1e3 * percentile(recorder.latencies, 0.5)
        level.client_p99_ms = 1e3 * percentile(recorder.latencies, 0.99)
        level.rss_mib_per_match = max(0, rss - rss_before) / matches / 1024
    return level


def summary(levels: list[Level]) -> list[str]:
    """The answer to the issue's question, in a few lines under the table."""
    lines = []
    naive = [level for level in levels if level.server == "naive"]
    levels = [level for level in levels if level.server == "trio"]
    instant = [level for level in levels if level.think_ms == 0 and level.server_cpu > 0]
    if instant:
        busiest = max(instant, key=lambda level: level.requests_per_second)
        per_request = busiest.server_cpu / busiest.requests_per_second
        lines.append(
            f"saturation: {busiest.requests_per_second:,.0f} requests/s at "
            f"{100 * busiest.server_cpu:.0f}% of the core ({busiest.matches} matches of instant "
            f"bots): {1e6 * per_request:.0f} us of CPU a request, so at most "
            f"{1 / per_request:,.0f} requests/s on a whole core"
        )
        if busiest.server_cpu < 0.9:
            lines.append(
                "  (instant bots should keep the server's core busy: it got less, so other "
                "processes shared its CPU and every latency above is inflated by waiting for it)"
            )
    for think_ms in sorted({level.think_ms for level in levels}):
        measured = [level for level in levels if level.think_ms == think_ms]
        held = [level.matches for level in measured if level.held]
        best = max(held) if held else 0
        verdict = "goal met" if best >= GOAL_MATCHES else f"goal ({GOAL_MATCHES}) not met"
        lines.append(
            f"think {think_ms:g} ms: at most {best} of the measured matches "
            f"({', '.join(str(level.matches) for level in measured)}) held at server p99 <= "
            f"{TARGET_P99_MS:g} ms; {verdict}"
        )
        theirs = [level for level in naive if level.think_ms == think_ms]
        if theirs:
            ours = max((lv.matches for lv in measured if lv.held_by_clients), default=0)
            best_naive = max((lv.matches for lv in theirs if lv.held_by_clients), default=0)
            ratio = f"{ours / best_naive:.1f}x" if best_naive else "-"
            lines.append(
                f"think {think_ms:g} ms, judged on client p99 <= {TARGET_P99_MS:g} ms: this "
                f"server {ours} matches, the naive asyncio server {best_naive}; ratio {ratio}"
            )
    return lines


def start_server(
    log_dir: str, cpu: int, *, naive: bool = False
) -> tuple[subprocess.Popen[str], int, list[int]]:
    """The server process (``naive``: bench/naive_server.py), pinned to ``cpu`` (with
    BENCH_SERVER_PROCESSES > 1: not pinned), its port and its workers' process ids."""
    module = "bench.naive_server" if naive else "bench.bench_server"
    process = subprocess.Popen(
        [sys.executable, "-m", module, *([] if naive else ["serve"]), log_dir, str(cpu)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    port = int(process.stdout.readline())
    workers: list[int] = []
    if PROCESSES > 1 and not naive:
        workers = json.loads(process.stdout.readline())
    return process, port, workers


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No garbage collection in the load process during a level (its cyclic garbage is
    collected after it). The load's collections paused all 600 bots at once, which then fired
    together: the server measured those bursts, not its own speed (50 matches of 250 ms bots,
    one pair of runs: server p99 59.8 ms with the load's collections on, 15.4 ms off; the
    requests over 20 ms came in clusters of up to 280 within 100 ms)."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


@contextlib.contextmanager
def fresh_server(
    server_cpu: int, *, naive: bool = False
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A server process of its own (logs in a scratch directory) and its port, with the load's
    collections paused; stopped on the way out."""
    with fresh_servers(server_cpu, naive=naive) as (process, port, _):
        yield process, port


@contextlib.contextmanager
def fresh_servers(
    server_cpu: int, *, naive: bool = False
) -> Iterator[tuple[subprocess.Popen[str], int, list[int]]]:
    """:func:`fresh_server`, and its worker processes' ids (BENCH_SERVER_PROCESSES > 1)."""
    with tempfile.TemporaryDirectory() as log_dir:
        process, port, workers = start_server(log_dir, server_cpu, naive=naive)
        try:
            with collections_paused():
                yield process, port, workers
        finally:
            process.terminate()
            process.wait(timeout=30)


def split_cpus() -> tuple[int, str]:
    """The CPU the server gets to itself (this process, the load, moves to the others) and the
    load average before the run. The CPU is passed to the server process: it inherits the load's
    affinity, so "its first CPU" would be the load's."""
    cpus = sorted(os.sched_getaffinity(0))
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        load = loadavg.read().split()[0]
    if len(cpus) > 1:
        os.sched_setaffinity(0, set(cpus[1:]))
    return cpus[0], load


def run_level(matches: int, think_ms: float, server_cpu: int, naive: bool = False) -> Level:
    """One level against a fresh server process, so that its memory at rest is the baseline
    (a server that has held more matches keeps their heap) and no level inherits another's."""
    with fresh_servers(server_cpu, naive=naive) as (process, port, workers):
        return trio.run(measure_level, process, port, matches, think_ms, naive, workers)


def main() -> None:
    from arena.logs import configure_logging

    configure_logging(level="warning")
    server_cpu, load = split_cpus()
    levels = [
        run_level(matches, think_ms, server_cpu, naive)
        for think_ms in THINK_MS
        for naive in ((False, True) if NAIVE and think_ms > 0 else (False,))
        for matches in LEVELS
    ]
    hosting = (
        "on one server core"
        if PROCESSES == 1
        else f"on {PROCESSES} server processes (a front and {PROCESSES} workers, not pinned)"
    )
    print_table(
        f"server: concurrent rusher matches {hosting}, {WINDOW:g} s windows "
        f"(goal: p99 <= {TARGET_P99_MS:g} ms at >= {GOAL_MATCHES} matches); "
        f"load average before the run: {load} on {os.cpu_count()} CPUs",
        [
            "server",
            "matches",
            "sockets",
            "think ms",
            "requests/s",
            "server CPU",
            "server p50 ms",
            "server p99 ms",
            "client p50 ms",
            "client p99 ms",
            "p99 <= 20",
            "RSS MiB/match",
            "server kernel",
        ],
        [level.row() for level in levels],
        width=160,
    )
    for line in summary(levels):
        print(line)


def _serve(log_dir: str, cpu: int) -> None:
    """The server process: pinned to ``cpu``, default rules, no optimum checks; prints its port,
    then answers ``reset`` / ``report`` lines on stdin about its request-to-answer latencies."""
    from arena.logs import configure_logging
    from server.app import Server, serve
    from server.collector import Collector

    configure_logging(level="warning")
    latencies: list[float] = []
    if PROCESSES > 1:
        # N processes cannot share one core to any purpose: every CPU (the workers inherit it).
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
        pool = worker_pool(log_dir)
        server = Server(log_dir=log_dir, collector=Collector(), hand_off=pool.hand_off)
        pool.finished = server.lobby.finished
    else:
        os.sched_setaffinity(0, {cpu})
        pool = None
        server = Server(log_dir=log_dir, latency=latencies.append, collector=Collector())
    probe = StallProbe() if STALLS else None

    async def run() -> None:
        if probe is not None:
            trio.lowlevel.add_instrument(probe)
        async with trio.open_nursery() as nursery:
            if pool is not None:
                await nursery.start(pool.run)
            port = await nursery.start(partial(serve, server, host=HOST, port=0))
            print(port, flush=True)
            if pool is not None:
                print(json.dumps(pool.pids), flush=True)
            async for line in trio.wrap_file(sys.stdin):
                if line.strip() == "reset":
                    latencies.clear()
                    if pool is not None:
                        await pool.latencies(reset=True)
                    if probe is not None:
                        probe.reset()
                elif line.strip() == "report":
                    if pool is not None:
                        latencies[:] = await pool.latencies()
                    stalls = "" if probe is None else probe.summary(len(latencies))
                    print(json.dumps({"latencies": latencies, "stalls": stalls}), flush=True)
            if pool is not None:
                await pool.stop()
            nursery.cancel_scope.cancel()

    trio.run(run)


def worker_pool(log_dir: str) -> Any:
    """``arena serve --processes N``'s workers for the benchmark's front: default rules, no
    optimum checks, each recording its request-to-answer times. The benchmark ends its server
    with SIGTERM, which kills the front at once: the workers see their control socket close and
    stop (the load has left by then: they have no match to end)."""
    from arena.serve import worker_command
    from dungeon.config import DEFAULT_RULES
    from server.app import limits_for
    from server.handoff import Settings
    from server.workers import WorkerPool

    settings = Settings(
        config=DEFAULT_RULES.to_dict(),
        limits=limits_for(DEFAULT_RULES),
        log_dir=log_dir,
        check_workers=0,
        probe=True,
    )
    return WorkerPool(PROCESSES, partial(worker_command, settings, "warning"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        _serve(sys.argv[2], int(sys.argv[3]))
    else:
        main()
