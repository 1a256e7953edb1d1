"""The server under measurement in ``python -m bench server`` (and ``fairness``): its process
(started pinned to a CPU of its own, with a scratch log directory; stopped after a level), what
it reports on stdin's request (its request-to-answer latencies, with BENCH_SERVER_STALLS its
longest stalls: :class:`StallProbe`), and what /proc says of it (CPU time, resident memory).

BENCH_SERVER_STALLS and BENCH_SERVER_PROCESSES: see :mod:`bench.bench_server`.
BENCH_SERVER_PROFILE=FILE: the server profiles its measured windows (cProfile; the last
window's profile is left in FILE, for ``python -m pstats FILE``).
``python -m bench.server_host LOG_DIR CPU`` is the server process itself.
"""

from __future__ import annotations

import contextlib
import cProfile
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import partial
from typing import Any, Final

import trio

from bench.common import env_number
from bench.server_load import HOST

STALLS = os.environ.get("BENCH_SERVER_STALLS", "") not in ("", "0")
#: A file for the server's profile of its measured windows (cProfile, the last window's).
PROFILE = os.environ.get("BENCH_SERVER_PROFILE", "")
#: Server processes: 1, or a front and this many workers (arena serve --processes).
PROCESSES = env_number("BENCH_SERVER_PROCESSES", 1, minimum=1)
#: The match logs' format: digest (default, signed), once (compact) or each (full).
LOG_FORMAT: Final = os.environ.get("BENCH_SERVER_LOG_FORMAT", "digest")


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


def start_server(
    log_dir: str, cpu: int, *, naive: bool = False
) -> tuple[subprocess.Popen[str], int, list[int]]:
    """The server process (``naive``: bench/naive_server.py), pinned to ``cpu`` (with
    BENCH_SERVER_PROCESSES > 1: not pinned), its port and its workers' process ids."""
    module = "bench.naive_server" if naive else "bench.server_host"
    process = subprocess.Popen(
        [sys.executable, "-m", module, log_dir, str(cpu)],
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


def _serve(log_dir: str, cpu: int) -> None:
    """The server process: pinned to ``cpu``, default rules, no optimum checks; prints its port,
    then answers ``reset`` / ``report`` lines on stdin about its request-to-answer latencies."""
    from arena.logs import configure_logging
    from server.app import Server, serve
    from server.gc_policy import Collector

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
        server = Server(
            log_dir=log_dir,
            latency=latencies.append,
            collector=Collector(),
            log_maps=LOG_FORMAT,
            log_key=b"bench" * 8 if LOG_FORMAT == "digest" else None,
        )
    probe = StallProbe() if STALLS else None
    profile = cProfile.Profile() if PROFILE else None

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
                    if profile is not None:
                        profile.enable()
                elif line.strip() == "report":
                    if profile is not None:
                        profile.disable()
                        profile.dump_stats(PROFILE)
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
    _serve(sys.argv[1], int(sys.argv[2]))
