"""Does one hostile client slow the other matches, or grow the server's memory? (spec section 5)

``python -m bench fairness``. Ten matches of light ``rusher`` teams thinking ~150 ms play
against a server process pinned to one CPU (bench/bench_server.py's load and server), once
quietly and once while a flood process (a third process) does everything the issue listed at
once, in loops: blank lines, garbage and valid requests before ``dungeon`` (each socket is cut
at its held budget, then reconnects), the same after ``dungeon`` in matches of their own (blank
lines have no limit there: one socket streams them for the whole window), a 1 MiB line held
open, and 2,000 idle connections (joined to matches that never fill; the window begins once all
are open). The quiet and flooded runs alternate, ``RUNS`` times each;
the table shows medians.

Judged on the server's own p99 (read to answer written, the probe of bench_server): flooded
within 2x of quiet. Memory: the server's resident set at the end of the window minus at rest,
against the network layer's input budget (``Limits.input_budget_bytes``), the one buffer a
client can fill.

Environment: BENCH_FAIRNESS_RUNS (default 3), BENCH_FAIRNESS_SECONDS (window, default 8),
BENCH_FAIRNESS_IDLE (idle connections, default 2000), BENCH_FAIRNESS_FLOOD (what the flood
does, default "blank,garbage,valid,held,idle": to find which part costs what),
BENCH_FAIRNESS_HELD (sockets holding a 1 MiB line, default 1), BENCH_FAIRNESS_MATCHES (default
10) and BENCH_FAIRNESS_THINK_MS (default 150).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import trio

from bench.bench_server import percentile
from bench.common import SettingError, env_number, print_table
from bench.server_host import cpu_seconds, fresh_server, resident_kib, server_latencies, split_cpus
from bench.server_load import HOST, Recorder, keep_match_going

RUNS = env_number("BENCH_FAIRNESS_RUNS", 3, minimum=1)
WINDOW = env_number("BENCH_FAIRNESS_SECONDS", 8.0, minimum=0.1)
IDLE = env_number("BENCH_FAIRNESS_IDLE", 2000, minimum=0)
#: What the flood does (all by default): blank, garbage, valid, held, idle.
KINDS = ("blank", "garbage", "valid", "held", "idle")
FLOODS = os.environ.get("BENCH_FAIRNESS_FLOOD", ",".join(KINDS)).split(",")
if not set(FLOODS) <= set(KINDS):
    raise SettingError(
        f"BENCH_FAIRNESS_FLOOD={','.join(FLOODS)!r}: expected some of {', '.join(KINDS)}"
    )
#: Matches of 12 agents kept going beside the flood, and their think time.
MATCHES = env_number("BENCH_FAIRNESS_MATCHES", 10, minimum=1)
THINK_MS = env_number("BENCH_FAIRNESS_THINK_MS", 150.0, minimum=0.0)
#: Sockets that each hold an unfinished line of almost 1 MiB ("held").
HELD = env_number("BENCH_FAIRNESS_HELD", 1, minimum=1)
WARMUP = 3.0
CHUNK = 1 << 16


@dataclass
class Run:
    flooded: bool
    requests_per_second: float
    server_p50_ms: float
    server_p99_ms: float
    client_p99_ms: float
    server_cpu: float
    rss_growth_mib: float


async def measure(process: subprocess.Popen[str], port: int, flooded: bool) -> Run:
    recorder = Recorder(THINK_MS / 1000)
    stop = trio.Event()
    rss_before = resident_kib(process.pid)
    flood = None
    async with trio.open_nursery() as nursery:
        for slot in range(MATCHES):
            nursery.start_soon(keep_match_going, port, slot, recorder, stop)
        if flooded:
            flood = subprocess.Popen(
                [sys.executable, "-m", "bench.bench_fairness", "flood", str(port)],
                stdout=subprocess.PIPE,
            )
            assert flood.stdout is not None
            # Measured once every idle connection is open (opening 2,000 is a burst of its own).
            await trio.to_thread.run_sync(flood.stdout.readline)
        await trio.sleep(WARMUP)
        server_latencies(process, "reset")
        recorder.recording = True
        started, (user0, kernel0) = time.perf_counter(), cpu_seconds(process.pid)
        await trio.sleep(WINDOW)
        recorder.recording = False
        elapsed = time.perf_counter() - started
        if flood is not None and flood.poll() is not None:
            # A flood that died measured nothing: say so rather than report a quiet window.
            raise RuntimeError(f"the flood process ended during the window ({flood.returncode})")
        user1, kernel1 = cpu_seconds(process.pid)
        served = server_latencies(process, "report")
        rss = resident_kib(process.pid)
        stop.set()
        nursery.cancel_scope.cancel()
    if flood is not None:
        flood.terminate()
        flood.wait(timeout=30)
    return Run(
        flooded,
        len(served) / elapsed,
        1e3 * percentile(served, 0.5) if served else float("nan"),
        1e3 * percentile(served, 0.99) if served else float("nan"),
        1e3 * percentile(recorder.latencies, 0.99) if recorder.latencies else float("nan"),
        (user1 - user0 + kernel1 - kernel0) / elapsed,
        max(0, rss - rss_before) / 1024,
    )


def run_once(flooded: bool, server_cpu: int) -> Run:
    with fresh_server(server_cpu) as (process, port):
        return trio.run(measure, process, port, flooded)


def main() -> None:
    from arena.logs import configure_logging
    from server.net import DEFAULT_LIMITS

    configure_logging(level="warning")
    server_cpu, load = split_cpus()
    runs = [run_once(flooded, server_cpu) for _ in range(RUNS) for flooded in (False, True)]
    rows = []
    medians: dict[bool, Run] = {}
    for flooded in (False, True):
        mine = [run for run in runs if run.flooded == flooded]
        median = Run(
            flooded,
            *(
                statistics.median(getattr(run, name) for run in mine)
                for name in (
                    "requests_per_second",
                    "server_p50_ms",
                    "server_p99_ms",
                    "client_p99_ms",
                    "server_cpu",
                    "rss_growth_mib",
                )
            ),
        )
        medians[flooded] = median
        rows.append(
            (
                "flooded" if flooded else "quiet",
                f"{median.requests_per_second:,.0f}",
                f"{median.server_p50_ms:.1f}",
                f"{median.server_p99_ms:.1f}",
                f"{median.client_p99_ms:.1f}",
                f"{100 * median.server_cpu:.0f}%",
                f"{median.rss_growth_mib:.1f}",
                ", ".join(f"{run.server_p99_ms:.1f}" for run in mine),
            )
        )
    print_table(
        f"fairness: {MATCHES} matches (think {THINK_MS:g} ms) beside one flooding client, "
        f"medians of {RUNS} runs of {WINDOW:g} s; load average before: {load} on "
        f"{os.cpu_count()} CPUs (a shared machine: latencies include waiting for a CPU)",
        [
            "run",
            "requests/s",
            "server p50 ms",
            "server p99 ms",
            "client p99 ms",
            "server CPU",
            "RSS growth MiB",
            "server p99 of each run",
        ],
        rows,
        width=160,
    )
    ratio = medians[True].server_p99_ms / medians[False].server_p99_ms
    budget = DEFAULT_LIMITS.input_budget_bytes / (1 << 20)
    print(
        f"server p99 flooded / quiet: {ratio:.2f}x (goal <= 2x: "
        f"{'met' if ratio <= 2 else 'not met'}); RSS growth while flooded "
        f"{medians[True].rss_growth_mib:.0f} MiB against an input budget of {budget:.0f} MiB "
        f"({'within' if medians[True].rss_growth_mib <= budget else 'over'})"
    )


# --- the flood process ---------------------------------------------------------------------------


async def reconnecting(port: int, start: bytes, payload: bytes) -> None:
    """Connect, send ``start``, then ``payload`` over and over until the server closes the
    socket; again, for ever."""
    while True:
        try:
            stream = await trio.open_tcp_stream(HOST, port)
        except OSError:
            await trio.sleep(0.1)
            continue
        async with stream:
            try:
                await stream.send_all(start)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(drain, stream, nursery.cancel_scope)
                    while True:
                        await stream.send_all(payload)
            except* (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # closed by the server (a reset when it leaves our flood unread): again
        await trio.sleep(0.01)


async def drain(stream: trio.SocketStream, done: trio.CancelScope) -> None:
    """Read and drop what the server sends; cancel ``done`` when it closes."""
    try:
        while await stream.receive_some(CHUNK):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    done.cancel()


def start_line(team: int, agent: int, match: str) -> bytes:
    return b'{"type":"start","team":%d,"agent":%d,"match":"%s"}\n' % (team, agent, match.encode())


async def flood_in_play(port: int, number: int, payload: bytes) -> None:
    """A match of our own: eleven silent agents and one that floods after ``dungeon`` until the
    server closes it (garbage: at once; requests: at the error limit; blank lines: never). One
    match per kind, not a new one each time: making matches is not what is measured."""
    name = f"flood-{number}"
    streams: list[trio.SocketStream] = []
    try:
        for team in (0, 1):
            for agent in range(6):
                stream = await trio.open_tcp_stream(HOST, port)
                streams.append(stream)
                await stream.send_all(start_line(team, agent, name))
        flooder = streams[-1]
        data = b""
        while b'"dungeon"' not in data:  # the map came: the match is in play
            data = await flooder.receive_some(CHUNK)
            if not data:
                return
        async with trio.open_nursery() as nursery:
            for stream in streams:
                nursery.start_soon(drain, stream, nursery.cancel_scope)
            while True:
                await flooder.send_all(payload)
    except* (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        for stream in streams:
            await trio.aclose_forcefully(stream)


async def idle(port: int, number: int, task_status: trio.TaskStatus[None]) -> None:
    """A connection that joins a match that never fills (11 of 12 slots) and then says nothing
    (the server may keep it up to its idle limit); reopened if the server closes it."""
    start = start_line(number % 11 // 6, number % 11 % 6, f"idle-{number // 11}")
    started = False
    while True:
        try:
            stream = await trio.open_tcp_stream(HOST, port)
        except OSError:
            await trio.sleep(1)
            continue
        async with stream:
            try:
                await stream.send_all(start)
                if not started:
                    started = True
                    task_status.started()
                while await stream.receive_some(CHUNK):
                    pass
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass


async def held_open(port: int, number: int) -> None:
    """A line of almost 1 MiB (the most the rules allow), never finished, in a match that never
    fills (11 of 12 slots); reconnecting when the server closes the socket."""
    start = start_line(number % 11 // 6, number % 11 % 6, f"held-{number // 11}")
    line = start + b'{"type":"move","to":' + b"1" * ((1 << 20) - 100)
    while True:
        try:
            stream = await trio.open_tcp_stream(HOST, port)
        except OSError:
            await trio.sleep(0.1)
            continue
        async with stream:
            try:
                await stream.send_all(line)
                while await stream.receive_some(CHUNK):
                    pass
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass


async def flood(port: int) -> None:
    payloads = {
        "blank": b"\n" * CHUNK,
        "garbage": b"this is not json\n" * (CHUNK // 17),
        "valid": b'{"type":"move","to":1}\n' * (CHUNK // 23),
    }
    async with trio.open_nursery() as nursery:
        for number, (kind, payload) in enumerate(payloads.items()):
            if kind in FLOODS:
                start = start_line(0, 0, f"early-{number}")
                nursery.start_soon(reconnecting, port, start, payload)
                nursery.start_soon(flood_in_play, port, number, payload)
        for number in range(HELD if "held" in FLOODS else 0):
            nursery.start_soon(held_open, port, number)
        for number in range(IDLE if "idle" in FLOODS else 0):
            await nursery.start(idle, port, number)
        print("ready", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["flood"]:
        trio.run(flood, int(sys.argv[2]))
    else:
        main()
