"""The load of ``python -m bench server`` (and ``fairness``): light ``rusher`` teams keeping
named matches going on a server, and the request-to-answer latencies their sockets see.

BENCH_SERVER_JITTER (default 1: each bot's waits spread over 0.5-1.5 times the think time; 0:
fixed); see :mod:`bench.bench_server`.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import msgspec
import trio

#: Where the server under measurement listens.
HOST = "127.0.0.1"
JITTER = os.environ.get("BENCH_SERVER_JITTER", "1") not in ("", "0")


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
