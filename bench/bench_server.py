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
from the workers, server CPU and memory add up the front and its workers),
BENCH_SERVER_LOG_FORMAT (default digest: the server's default logs, signed; once: compact JSON
Lines; each: full). The default run takes about 90 s.

The load is :mod:`bench.server_load`; the server process and its readings are
:mod:`bench.server_host`.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass

import trio

from bench.common import env_number, env_numbers, print_table
from bench.server_host import (
    PROCESSES,
    fresh_servers,
    resident_kib,
    server_latencies,
    split_cpus,
    total_cpu_seconds,
)
from bench.server_load import Recorder, keep_match_going

LEVELS = env_numbers("BENCH_SERVER_LEVELS", [10, 25, 40, 50], minimum=1)
WINDOW = env_number("BENCH_SERVER_SECONDS", 5.0, minimum=0.1)
THINK_MS = env_numbers("BENCH_SERVER_THINK_MS", [0.0, 150.0], minimum=0.0)
#: Also run the thinking levels against bench/naive_server.py (a single-file asyncio server).
NAIVE = os.environ.get("BENCH_SERVER_NAIVE", "1") not in ("", "0")
WARMUP = 2.0
TARGET_P99_MS = 20.0
GOAL_MATCHES = 50


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


if __name__ == "__main__":
    main()
