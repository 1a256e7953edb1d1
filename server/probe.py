"""A scripted dungeon server that plays one match against a team program and probes it.

`arena check-client` runs a student's program against this server. It speaks the real wire
protocol on loopback, deals a real dungeon (from a seed) and real trap problems, plays the other
team itself (its heir walks towards its shrine, always visible, as the spec has it), and while
the match runs it probes the program: the `dungeon` line is written in many small pieces, every
socket gets a flood of `enemy` sightings (of agents and NPCs), the first agent to move after the
flood is killed while committed, the next one gets an `error`, and finally `game_over` closes
every socket. What it sees goes into :class:`protocol.conformance.Observations`; the verdicts
are :func:`protocol.conformance.evaluate`'s.

It is not the match server (no match log, no combat between the two teams' agents, no NPC
kills, and a heir that reaches its shrine before the probes are made gets its `game_over` only
once they are): only what a conformance probe needs. Its settings and its checks of a start and
a move are :mod:`server.probe_checks`; its sockets' reading and writing :mod:`server.probe_socket`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import trio

from dungeon.generation import Dungeon, generate
from dungeon.traps import active_traps, draw_problem
from protocol.codec import RemoteProtocolError
from protocol.conformance import Observations
from protocol.encoding import encode
from protocol.errors import ErrorCode, code_of
from protocol.messages import Dungeon as DungeonMessage
from protocol.messages import (
    Enemy,
    Error,
    GameOver,
    Message,
    Move,
    Moved,
    Sat,
    Solution,
    Start,
)
from server.probe_checks import ProbeConfig, illegal_move, start_fault
from server.probe_socket import ProbeSocket, drain_and_close, shortest_path, with_buffer

__all__ = ["run_probe"]


@dataclass
class _Agent:
    number: int
    location: int
    pending: tuple[int, tuple[tuple[int, ...], ...], float] | None = None  # to, traps, since
    #: killed by the probe while committed: one `solution` may still be on its way
    excused_solution: bool = False
    flooded: bool = False
    #: its pending sat was written after its whole flood: answering it proves the program read
    #: past every sighting of the flood
    sat_after_flood: bool = False


class _Probe:
    def __init__(self, config: ProbeConfig, seen: Observations, exited: trio.Event) -> None:
        self.config = config
        self.seen = seen
        self.exited = exited
        self.rng = np.random.default_rng(config.seed)
        self.dungeon: Dungeon = generate(self.rng, config.rules)
        self.team = config.team
        self.enemy = 1 - config.team
        self.sockets: dict[int, ProbeSocket] = {}
        self.agents: dict[int, _Agent] = {}
        self.all_started = trio.Event()
        self.over = trio.Event()
        self.closed = trio.Event()
        self.kill_sent = False
        self.error_sent = False
        self.probes_done_at: float | None = None
        self.enemy_heir = self.dungeon.start[self.enemy]
        self.winner: int | None = None
        self.floods = 0  # floods being written: the match does not end before they are

    # -- joining ---------------------------------------------------------------------------------

    async def handshake(self, stream: trio.SocketStream) -> None:
        with_buffer(stream, self.config.send_buffer)
        conn = ProbeSocket(stream)
        self.seen.sockets += 1
        first: Message | RemoteProtocolError | None = None
        with trio.move_on_after(self.config.start_timeout):
            first = await conn.next()
        fault = start_fault(first, self.config, self.sockets)
        if fault is not None:
            self.seen.start_faults.append(f"socket {self.seen.sockets}: {fault}")
            code = ErrorCode.START_TIMEOUT if first is None else ErrorCode.START_REQUIRED
            await conn.send(encode(Error(code=code, message=f"check-client: {fault}")))
            await conn.stream.aclose()
            return
        assert isinstance(first, Start)
        conn.agent = first.agent
        self.sockets[first.agent] = conn
        self.agents[first.agent] = _Agent(first.agent, self.dungeon.start[self.team])
        self.seen.started.add(first.agent)
        if len(self.sockets) == 6:
            self.all_started.set()
        await self.closed.wait()  # trio closes the stream when this handler returns

    # -- the match -------------------------------------------------------------------------------

    async def play(self) -> None:
        line = self._dungeon_line()
        async with trio.open_nursery() as nursery:
            for number, conn in self.sockets.items():
                nursery.start_soon(self.serve_agent, number, conn, line)
            nursery.start_soon(self.enemy_heir_walks)
            nursery.start_soon(self.referee)
            await self.over.wait()
            nursery.cancel_scope.cancel()

    def _dungeon_line(self) -> bytes:
        d = self.dungeon
        message = DungeonMessage(
            team=self.team,
            agent=0,
            nodes=[(float(x), float(y)) for x, y in d.positions],
            edges=[(int(u), int(v)) for u, v in d.edges],
            start=d.start,
            shrine=d.shrine,
        )
        return encode(message)

    async def serve_agent(self, number: int, conn: ProbeSocket, line: bytes) -> None:
        line = line.replace(b'"agent":0,', b'"agent":%d,' % number, 1)
        pieces = range(0, len(line), self.config.chunk)
        self.seen.dungeon_reads = len(pieces)
        for offset in pieces:
            await conn.send(line[offset : offset + self.config.chunk])
            await trio.sleep(0.002)  # separate writes: the program reads it in many pieces
        await conn.send(encode(Enemy(self.enemy_heir, 0, True)))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.flood, number, conn)
            await self.read_requests(number, conn)
            nursery.cancel_scope.cancel()

    async def flood(self, number: int, conn: ProbeSocket) -> None:
        self.seen.flood_sent = True
        self.seen.flooded_agents.add(number)
        node = self.dungeon.shrine[self.enemy]
        pair = encode(Enemy(node, -1, True)) + encode(Enemy(node, -1, False))
        pair += encode(Enemy(node, 3, True)) + encode(Enemy(node, 3, False))
        data = pair * (self.config.flood_lines // 4)
        self.floods += 1
        with trio.move_on_after(self.config.flood_timeout) as scope:
            await conn.send(data)
        self.floods -= 1
        if scope.cancelled_caught:
            self.seen.flood_stuck.add(number)
            conn.writable = False  # a write was cut short: the stream is unusable
        else:
            self.agents[number].flooded = True

    async def read_requests(self, number: int, conn: ProbeSocket) -> None:
        while True:
            item = await conn.next()
            if item is None:
                if not self.over.is_set():
                    self._lost(number, "closed its socket before game_over")
                return
            self.seen.active_after_dungeon.add(number)
            if isinstance(item, RemoteProtocolError):
                await self._protocol_error(number, conn, item)
            elif isinstance(item, Move):
                await self.move(number, conn, item.to)
            elif isinstance(item, Solution):
                await self.solution(number, conn, item.assignment)
            else:
                await conn.send(
                    encode(Error(code=ErrorCode.ALREADY_STARTED, message="start again"))
                )

    def _lost(self, number: int, why: str) -> None:
        if number in self.seen.lost:
            return
        if self.exited.is_set():
            why = "the program exited before game_over"
        self.seen.lost[number] = why
        if len(self.seen.lost) == len(self.sockets):
            self.over.set()

    async def _protocol_error(
        self, number: int, conn: ProbeSocket, error: RemoteProtocolError
    ) -> None:
        text = f"agent {number}: {error.text}"
        if error.message_type == "solution":
            self.seen.solution_faults.append(text)
        elif error.message_type == "move":
            self.seen.move_faults.append(text)
        else:
            self.seen.notes.append(text)
        await conn.send(encode(Error(code=code_of(error), message=error.text)))
        if error.fatal:
            conn.writable = False
            self._lost(number, f"sent a line the server must close on: {error.text}")

    async def move(self, number: int, conn: ProbeSocket, to: int) -> None:
        agent = self.agents[number]
        self.seen.moves_received += 1
        if number == self.seen.killed_agent and self.kill_sent:
            self.seen.killed_then_moved = True
        if number == self.seen.errored_agent and self.error_sent:
            self.seen.errored_then_moved = True
        committed = None if agent.pending is None else agent.pending[0]
        fault = illegal_move(self.dungeon, self.enemy, agent.location, committed, to)
        if fault is not None:
            code, text = fault
            target = (
                self.seen.commitment_faults
                if code is ErrorCode.ALREADY_COMMITTED
                else self.seen.move_faults
            )
            target.append(f"agent {number}: {text}")
            await conn.send(encode(Error(code=code, message=f"move: {text}")))
            return
        if not self.kill_sent and agent.flooded:
            await self._kill_while_committed(number, conn, agent, to)
            return
        if self.kill_sent and not self.error_sent and number != self.seen.killed_agent:
            self.error_sent = True
            self.seen.errored_agent = number
            self.probes_done_at = trio.current_time()
            text = "check-client refuses this move on purpose: does the program play on?"
            await conn.send(encode(Error(code=ErrorCode.NOT_ADJACENT, message=text)))
            return
        traps = self._problem()
        agent.pending = (to, traps, trio.current_time())
        agent.sat_after_flood = agent.flooded
        self.seen.sats_sent += 1
        await conn.send(encode(Sat(to=to, switches=self.config.rules.switches, traps=traps)))

    def _problem(self) -> tuple[tuple[int, ...], ...]:
        rules = self.config.rules
        drawn = draw_problem(self.rng, rules.switches, rules.traps)
        return tuple(tuple(int(lit) for lit in trap) for trap in drawn.tolist())

    async def _kill_while_committed(
        self, number: int, conn: ProbeSocket, agent: _Agent, to: int
    ) -> None:
        self.kill_sent = True
        self.seen.killed_agent = number
        traps = self._problem()
        home = self.dungeon.start[self.team]
        agent.location = home
        agent.excused_solution = True
        self.seen.sats_sent += 1
        await conn.send(
            encode(Sat(to=to, switches=self.config.rules.switches, traps=traps))
            + encode(Moved(success=False, location=home, killed=[], reason="attacked"))
        )

    async def solution(self, number: int, conn: ProbeSocket, assignment: Sequence[bool]) -> None:
        agent = self.agents[number]
        if agent.pending is None:
            if agent.excused_solution:
                agent.excused_solution = False  # the kill and the solution crossed: fine
            else:
                self.seen.solution_faults.append(f"agent {number}: a solution without a sat")
            text = "solution: not committed to a move"
            await conn.send(encode(Error(code=ErrorCode.NOT_COMMITTED, message=text)))
            return
        switches = self.config.rules.switches
        if len(assignment) != switches:
            self.seen.solution_faults.append(
                f"agent {number}: {len(assignment)} values for {switches} switches"
            )
            text = f"solution: {len(assignment)} values for {switches} switches"
            await conn.send(encode(Error(code=ErrorCode.WRONG_LENGTH, message=text)))
            return
        to, traps, _ = agent.pending
        agent.pending = None
        if agent.sat_after_flood:
            self.seen.read_past_flood.add(number)
        agent.excused_solution = False
        survived = self.rng.random() < self.config.rules.survival ** active_traps(traps, assignment)
        agent.location = to if survived else self.dungeon.start[self.team]
        reason: Literal["crossed", "trap"] = "crossed" if survived else "trap"
        await conn.send(
            encode(Moved(success=survived, location=agent.location, killed=[], reason=reason))
        )
        if number == 0 and agent.location == self.dungeon.shrine[self.team]:
            self.seen.notes.append("the program's heir reached its shrine: it won")
            self.winner = self.team
            if self.probes_done_at is None:
                self.probes_done_at = trio.current_time()  # no error probe: no agent left

    async def enemy_heir_walks(self) -> None:
        """The other team's heir, one hop every half second towards (not onto) its shrine."""
        d = self.dungeon
        path = shortest_path(d, d.start[self.enemy], d.shrine[self.enemy])
        for node in path[:-1]:
            await trio.sleep(0.5)
            old, self.enemy_heir = self.enemy_heir, node
            for number, conn in self.sockets.items():
                if self.agents[number].flooded:
                    await conn.send(encode(Enemy(old, 0, False)) + encode(Enemy(node, 0, True)))

    async def referee(self) -> None:
        """End the match: probes done and their grace passed, or the time limit."""
        deadline = trio.current_time() + self.config.play_seconds
        while trio.current_time() < deadline and not self.over.is_set():
            await trio.sleep(0.1)
            if self.floods or not self.seen.flood_sent:
                continue
            done = self.probes_done_at
            if done is not None and trio.current_time() > done + self.config.grace:
                break
            if self.winner is not None and self.error_sent:
                break  # the heir won and every probe was made
        self.over.set()


async def run_probe(
    listeners: list[trio.SocketListener],
    config: ProbeConfig,
    seen: Observations,
    exited: trio.Event,
) -> None:
    """Accept the program's sockets, play the probed match, send game_over and close."""
    probe = _Probe(config, seen, exited)
    async with trio.open_nursery() as nursery:

        async def accept() -> None:
            await trio.serve_listeners(probe.handshake, listeners, handler_nursery=nursery)

        nursery.start_soon(accept)
        with trio.move_on_after(config.start_timeout + 1):
            async with trio.open_nursery() as waiting:

                async def stop_on_exit() -> None:
                    await exited.wait()
                    waiting.cancel_scope.cancel()

                waiting.start_soon(stop_on_exit)
                await probe.all_started.wait()
                waiting.cancel_scope.cancel()
        if probe.sockets and not exited.is_set():
            await probe.play()
        now = trio.current_time()
        for number, agent in probe.agents.items():
            if agent.pending is not None and now - agent.pending[2] > config.sat_timeout:
                seen.solution_faults.append(f"agent {number}: a sat left unanswered")
        probe.over.set()
        # A program that closed every socket can no longer be told the game is over: it is
        # judged as ending before game_over, even if its process is reaped only after this.
        reachable = len(seen.lost) < len(probe.sockets)
        if probe.sockets and reachable and not exited.is_set():
            seen.game_over_sent = True
            last = encode(GameOver(probe.winner))
            with trio.move_on_after(2):  # a program that stopped reading gets no more
                for conn in probe.sockets.values():
                    await conn.send(last)
        # Close as the server does, without a reset that could destroy the game_over in flight:
        # our side first, then read what the program still sends until it closes too.
        with trio.move_on_after(2):
            async with trio.open_nursery() as closing:
                for conn in probe.sockets.values():
                    closing.start_soon(drain_and_close, conn)
        for conn in probe.sockets.values():
            await conn.stream.aclose()
        probe.closed.set()
        nursery.cancel_scope.cancel()
