"""The Labyrinth server of the 2017 protocol (``arena labyrinth serve``) over loopback: games per
second between two of our clients, the round trip of one move, and the server's memory with 100
connected clients; beside the public CodingGameServer when its copy is present (CGS_DIR).

Each server runs in its own process; the clients run here (blocking sockets, our online.py
client with ASTAR, so the figures are the protocol's and the server's, not a strategy's).
"""

from __future__ import annotations

import socket
import statistics
import sys
import threading
import time
from pathlib import Path

from bench.common import print_table
from bench.labyrinth_interop import cgs_from_env, free_port, running_pid
from client.labyrinth import Connection, play_online
from labyrinth.players import astar_move

GAMES = 40
MOVES = 300
CLIENTS = 100


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def paired_games(port: int, games: int) -> tuple[float, int]:
    """(seconds, moves) for ``games`` games between two of our clients (auto-paired)."""
    moves = [0]

    def one(name: str) -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
            result = play_online(Connection(sock), name, "", astar_move)
            moves[0] += result.moves

    start = time.perf_counter()
    for game in range(games):
        threads = [threading.Thread(target=one, args=(f"b{game}_{k}",)) for k in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return time.perf_counter() - start, moves[0] // 2


def move_round_trips(port: int, count: int) -> list[float]:
    """Seconds of PLAY_MOVE (a stay) against DO_NOTHING, answer included, then its GET_MOVE."""
    samples: list[float] = []
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        connection = Connection(sock)
        connection.command("CLIENT_NAME latency", 0)
        connection.command("WAIT_GAME DO_NOTHING start=0", 2)
        connection.command("GET_GAME_DATA", 2)
        for _ in range(count):
            start = time.perf_counter()
            connection.command("PLAY_MOVE 8 0", 2)
            connection.command("GET_MOVE", 2)
            samples.append((time.perf_counter() - start) / 2)
    return samples


def memory_with_clients(port: int, pid: int, count: int) -> tuple[int, int]:
    """(RSS before, RSS with ``count`` clients named and waiting for a game), KiB."""
    before = rss_kib(pid)
    socks = []
    try:
        for index in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            socks.append(sock)
            connection = Connection(sock)
            connection.command(f"CLIENT_NAME m{index}", 0)
            sock.sendall(b"WAIT_GAME")
            connection.receive()  # OK; the game never comes
        time.sleep(0.5)
        return before, rss_kib(pid)
    finally:
        for sock in socks:
            sock.close()


def measure(command: list[str], port: int, cwd: Path | None, paired: bool) -> list[object]:
    with running_pid(command, port, cwd) as pid:
        before, after = memory_with_clients(port, pid, CLIENTS)
        trips = move_round_trips(port, MOVES)
        if paired:
            seconds, moves = paired_games(port, GAMES)
            rate, per_move = f"{GAMES / seconds:.1f}", f"{seconds / moves * 1e3:.2f}"
        else:
            rate = per_move = "n/a (teacher pairs)"
    return [
        rate,
        per_move,
        f"{statistics.median(trips) * 1e3:.3f}",
        f"{before / 1024:.1f}",
        f"{after / 1024:.1f}",
        f"{(after - before) / CLIENTS:.0f}",
    ]


def main() -> None:
    port = free_port()
    ours = [sys.executable, "-m", "arena", "labyrinth", "serve", "--port", str(port)]
    rows = [["ours", *measure([*ours, "--auto-pair", "--seed", "1"], port, None, True)]]
    peer = cgs_from_env()
    if peer is not None and (peer[0] / "runCGS.py").exists() and peer[1].exists():
        cgs_dir, cgs_python = peer
        port, web = free_port(), free_port()
        cgs = [str(cgs_python), "runCGS.py", "Labyrinth", "-H", "127.0.0.1", "-p", str(port)]
        cgs += ["-w", str(web), "--dev", "--no-email"]
        rows.append(["CodingGameServer", *measure(cgs, port, cgs_dir, False)])
    base = float(str(rows[0][3]))
    for row in rows:
        row.append(f"{float(str(row[3])) / base:.0f}x")
    columns = [
        "server",
        "games/s (2 clients)",
        "ms per move in those",
        "move round trip ms (median)",
        "RSS MiB idle",
        f"RSS MiB, {CLIENTS} clients",
        "KiB per client",
        "round trip / ours",
    ]
    print_table("Labyrinth servers over loopback", columns, rows, width=140)
