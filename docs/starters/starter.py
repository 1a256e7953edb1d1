#!/usr/bin/env python3
"""A complete dungeon team in one file, standard library only: the place to start.

    python3 starter.py HOST PORT TEAM [MATCH [TOKEN]]

(the arguments a tournament gives a team program; ARENA_HOST, ARENA_PORT, ARENA_TEAM,
ARENA_MATCH and ARENA_TOKEN are used when an argument is absent). It connects six sockets, one
per agent, and every agent walks a shortest path to its team's shrine, answering each trap
problem with a short WalkSAT search. Simple on purpose: make it smarter (the heir wins the match
by reaching the shrine; the henchmen could hunt the enemy heir, which is always visible).

The protocol is in docs/protocol.md. What this client takes care of, which every client must:
read every socket all the time (one thread per socket), read whole lines whatever their size
(the `dungeon` line is 60-93 KB), forget a commitment when an enemy kills the agent (`moved` with
reason `attacked`), and exit after `game_over`.
"""

from __future__ import annotations

import collections
import json
import os
import random
import socket
import sys
import threading

AGENTS = 6


def shortest_path(
    adjacency: list[list[int]], source: int, target: int, banned: set[int]
) -> list[int]:
    """The nodes after ``source`` on a shortest path to ``target`` (breadth-first), [] if none."""
    previous = {source: source}
    queue = collections.deque([source])
    while queue:
        node = queue.popleft()
        if node == target:
            path = []
            while node != source:
                path.append(node)
                node = previous[node]
            return path[::-1]
        for neighbour in adjacency[node]:
            if neighbour not in previous and neighbour not in banned:
                previous[neighbour] = node
                queue.append(neighbour)
    return []


def solve(
    switches: int, traps: list[list[int]], rng: random.Random, flips: int = 2000
) -> list[bool]:
    """WalkSAT: start at random; while some trap is active, pick one and flip one of its switches
    (at random 40% of the time, else the one that deactivates fewest other traps); keep the best
    assignment seen. Element i of the result is switch i+1."""
    value = [False] + [rng.random() < 0.5 for _ in range(switches)]  # value[i]: switch i
    uses: list[list[int]] = [[] for _ in range(switches + 1)]  # switch -> traps it appears in
    for index, trap in enumerate(traps):
        for literal in trap:
            uses[abs(literal)].append(index)
    true_count = [sum(value[abs(lit)] == (lit > 0) for lit in trap) for trap in traps]
    active = {index for index, count in enumerate(true_count) if count == 0}
    best, best_active = value[1:], len(active)

    def breaks(switch: int) -> int:
        """Traps that flipping ``switch`` would activate (it is their only satisfied literal)."""
        return sum(
            1
            for index in uses[switch]
            if true_count[index] == 1
            and any(abs(lit) == switch and value[switch] == (lit > 0) for lit in traps[index])
        )

    for _ in range(flips):
        if not active:
            break
        trap = traps[rng.choice(tuple(active))]
        if rng.random() < 0.4:
            switch = abs(rng.choice(trap))
        else:
            switch = min((abs(lit) for lit in trap), key=breaks)
        value[switch] = not value[switch]
        for index in uses[switch]:
            for lit in traps[index]:
                if abs(lit) == switch:
                    true_count[index] += 1 if value[switch] == (lit > 0) else -1
            if true_count[index] == 0:
                active.add(index)
            else:
                active.discard(index)
        if len(active) < best_active:
            best, best_active = value[1:], len(active)
    return best


class Agent(threading.Thread):
    """One agent: its own socket, read line by line; walks to its shrine."""

    def __init__(self, host: str, port: int, team: int, number: int, match: str, token: str):
        super().__init__(name=f"agent-{number}")
        self.sock = socket.create_connection((host, port))
        self.reader = self.sock.makefile("rb")  # readline() reads a whole line, however long
        self.team, self.number = team, number
        self.rng = random.Random(number)
        start: dict[str, object] = {"type": "start", "team": team, "agent": number}
        if match:
            start["match"] = match
        if token:
            start["token"] = token
        self.send(start)
        self.winner: int | None = None

    def send(self, message: dict[str, object]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def receive(self) -> dict | None:
        """The next message, or None at the end of the stream."""
        while True:
            line = self.reader.readline()
            if not line:
                return None
            if line.strip():
                return json.loads(line)

    def run(self) -> None:
        try:
            self.play()
        except (OSError, ValueError) as error:
            print(f"agent {self.number}: {error}", file=sys.stderr)
        finally:  # the reader holds the socket open too: close both, so the server sees EOF now
            self.reader.close()
            self.sock.close()

    def play(self) -> None:
        message = self.receive()  # nothing comes before `dungeon` (a start gets no reply)
        while message is not None and message["type"] != "dungeon":
            if message["type"] == "error":
                print(
                    f"agent {self.number}: {message['code']}: {message['message']}", file=sys.stderr
                )
            message = self.receive()
        if message is None:
            return
        adjacency: list[list[int]] = [[] for _ in message["nodes"]]
        for u, v in message["edges"]:  # undirected
            adjacency[u].append(v)
            adjacency[v].append(u)
        enemy = 1 - self.team
        banned = {message["start"][enemy], message["shrine"][enemy]}  # never allowed
        target = message["shrine"][self.team]
        here = message["start"][self.team]
        # Requests sent and not answered yet: a `move` is answered by `sat` (then our `solution`
        # by `moved` crossed/trap) or by `error`. A `moved` with reason `attacked` answers
        # nothing: an enemy killed us, and the commitment is gone with it (a solution already on
        # its way then gets a `not_committed` error, which answers it).
        pending = 0
        while True:
            if pending == 0 and here != target:
                path = shortest_path(adjacency, here, target, banned)
                if path:
                    self.send({"type": "move", "to": path[0]})
                    pending = 1
            message = self.receive()
            if message is None:
                return
            kind = message["type"]
            if kind == "sat":
                assignment = solve(message["switches"], message["traps"], self.rng)
                self.send({"type": "solution", "assignment": assignment})
            elif kind == "moved":
                here = message["location"]
                if message["reason"] != "attacked":
                    pending = 0  # our crossing is over: crossed, or a trap sent us home
            elif kind == "error":
                pending = 0  # the request changed nothing: choose again
            elif kind == "game_over":
                self.winner = message["winner"]
                return
            # `enemy` sightings: a smarter team would use them.


def main(argv: list[str]) -> int:
    env = os.environ
    args = argv + [None] * 5
    host = args[0] or env.get("ARENA_HOST", "127.0.0.1")
    port = int(args[1] or env.get("ARENA_PORT", "7700"))
    team = int(args[2] or env.get("ARENA_TEAM", "0"))
    match = args[3] or env.get("ARENA_MATCH", "")
    token = args[4] or env.get("ARENA_TOKEN", "")
    agents = [Agent(host, port, team, number, match, token) for number in range(AGENTS)]
    for agent in agents:
        agent.start()
    for agent in agents:
        agent.join()
    winner = next((agent.winner for agent in agents if agent.winner is not None), None)
    outcome = {None: "a draw", team: "we won"}.get(winner, f"team {winner} won")
    print(f"team {team}: game over, {outcome}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
