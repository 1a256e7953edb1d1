"""Fish's networked tournament: wall time, referee calls per second and memory.

``python -m bench fish_server``. The server and its clients run in one trio process over real
loopback sockets (the clients play ``greedy``, which costs next to nothing, so the figures are
the server's and the wire's). 10 clients (games of 4, 4, 2 on 5 x 5 boards of 2 fish) and 100
clients (25 games of 4 in the first round). Memory: the process's peak resident set after the
runs of each size, and the Python heap's peak during one run (tracemalloc, timed apart).
"""

from __future__ import annotations

import logging
import resource
import statistics
import time
import tracemalloc
from functools import partial

import structlog
import trio

from bench.common import print_table
from client.fish import names_for, play
from server.fish.server import FishServer, ServerConfig, Standing
from server.net import serve_tcp


async def _tournament(clients: int) -> tuple[Standing | None, int]:
    config = ServerConfig(max_players=clients, min_players=min(5, clients), wait=30.0)
    server = FishServer(config)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(
            partial(serve_tcp, server.handle_connection, handler_nursery=nursery)
        )
        for index, name in enumerate(names_for(clients)):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            nursery.start_soon(play, stream, name, "greedy", index)
        standing = await server.run()
        nursery.cancel_scope.cancel()
    return standing, server.calls


def measure(clients: int, runs: int) -> tuple[float, float, int, float, float]:
    """Median wall seconds, median calls/s, calls, peak heap MiB, peak RSS MiB."""
    seconds, rates, calls = [], [], 0
    for _ in range(runs):
        start = time.perf_counter()
        standing, calls = trio.run(_tournament, clients)
        elapsed = time.perf_counter() - start
        assert standing is not None
        seconds.append(elapsed)
        rates.append(calls / elapsed)
    tracemalloc.start()
    trio.run(_tournament, clients)
    heap = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return statistics.median(seconds), statistics.median(rates), calls, heap, rss


def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    rows = []
    for clients, runs in ((10, 5), (100, 3)):
        seconds, rate, calls, heap, rss = measure(clients, runs)
        rows.append(
            [clients, runs, f"{seconds * 1000:.0f} ms", calls, f"{rate:,.0f}", f"{heap:.1f}",
             f"{rss:.0f}"]
        )  # fmt: skip
    print_table(
        "Fish tournament over loopback (server + greedy clients in one process; medians)",
        ["clients", "runs", "wall time", "calls", "calls/s", "heap peak MiB", "RSS peak MiB"],
        rows,
        width=110,
    )
    ratio = float(rows[1][4].replace(",", "")) / float(rows[0][4].replace(",", ""))
    print(f"calls/s at 100 clients / at 10 clients: {ratio:.2f}")
