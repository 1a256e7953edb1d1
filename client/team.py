"""The team client: six sockets, one per agent, driven by one pure strategy.

One task reads each socket (bytes -> codec -> messages) into the team's bounded inbox; the team
task alone owns the strategy and writes requests. Every message goes to ``strategy.observe``;
free agents are asked ``choose_move`` after each burst of messages; a ``sat`` is answered with
``strategy.solve``. Each agent's socket follows the protocol's session rules
(:mod:`protocol.session`): free, waiting for its ``sat``, or waiting for its ``moved``; an
``error`` frees it again. A message the rules do not allow is the server breaking the protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import structlog
import trio

from client.strategies.base import TeamStrategy
from protocol.codec import NEED_DATA, Codec, RemoteProtocolError
from protocol.messages import (
    TEAM_SIZE,
    Dungeon,
    Error,
    GameOver,
    Move,
    Moved,
    Sat,
    ServerMessage,
    Solution,
    Start,
)
from protocol.session import Event, Phase, Session, SessionError

__all__ = ["TeamError", "TeamResult", "connect_team", "play_team"]

log = structlog.get_logger()

#: A team's agent numbers (0 is the heir).
TEAM_AGENTS = range(TEAM_SIZE)
RECEIVE_SIZE = 65536
INBOX_SIZE = 256
#: Seconds the team waits, after the first `game_over`, for its other sockets' last lines.
FINISH_SECONDS = 5.0


class TeamError(Exception):
    """The team could not play: the server was unreachable, refused a start, or broke protocol."""


@dataclass
class TeamResult:
    """How a team's match went, counted from the messages its sockets received."""

    team: int
    over: bool = False
    winner: int | None = None
    crossings: int = 0  # solutions answered by a `moved` (crossed or killed by a trap)
    trap_deaths: int = 0
    killed_by_enemy: int = 0
    kills: int = 0  # enemy agents this team killed
    npc_kills: int = 0
    errors: int = 0  # `error` answers after the match began
    heir_path: list[int] = field(default_factory=list)

    @property
    def deaths(self) -> int:
        return self.trap_deaths + self.killed_by_enemy

    @property
    def outcome(self) -> str:
        if not self.over:
            return "unfinished"
        if self.winner is None:
            return "draw"
        return "won" if self.winner == self.team else "lost"


class _Eof:
    """A reader's last item: its socket ended."""


EOF = _Eof()


async def connect_team(
    host: str,
    port: int,
    *,
    team: int,
    strategy: TeamStrategy,
    match: str | None = None,
    token: str | None = None,
    told: Callable[[str], None] | None = None,
) -> TeamResult:
    """Open six TCP connections to ``host:port`` and play one match with ``strategy``;
    ``told("waiting")`` once the six starts are sent, ``told("started")`` once the match began."""
    streams: list[trio.abc.Stream] = []
    try:
        for _ in TEAM_AGENTS:
            stream = await trio.open_tcp_stream(host, port)
            streams.append(stream)
    except OSError as error:
        for opened in streams:
            await trio.aclose_forcefully(opened)
        raise TeamError(f"cannot reach the server at {host}:{port}: {error}") from error
    return await play_team(
        streams, team=team, strategy=strategy, match=match, token=token, told=told
    )


async def play_team(
    streams: Sequence[trio.abc.Stream],
    *,
    team: int,
    strategy: TeamStrategy,
    match: str | None = None,
    token: str | None = None,
    told: Callable[[str], None] | None = None,
) -> TeamResult:
    """Play one match over six connected streams (agent i on ``streams[i]``); closes them."""
    if len(streams) != len(TEAM_AGENTS):
        raise ValueError(f"a team needs {len(TEAM_AGENTS)} streams, got {len(streams)}")
    player = _TeamPlayer(streams, team, strategy)
    player.told = told or (lambda stage: None)
    failure: TeamError | None = None
    try:
        async with trio.open_nursery() as nursery:
            for agent in TEAM_AGENTS:
                nursery.start_soon(player.read, agent)
            try:
                await player.play(match, token)
            except TeamError as error:
                failure = error  # raised below, outside the nursery: not in an ExceptionGroup
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            for stream in streams:
                await trio.aclose_forcefully(stream)
    if failure is not None:
        raise failure
    return player.result


class _TeamPlayer:
    def __init__(self, streams: Sequence[trio.abc.Stream], team: int, strategy: TeamStrategy):
        self.streams = streams
        self.team = team
        self.strategy = strategy
        self.codec = Codec(ServerMessage)
        #: Each agent's socket; the client counts no errors against a limit (the server does).
        self.sessions = [Session(error_limit=1 << 62) for _ in TEAM_AGENTS]
        self.result = TeamResult(team)
        #: The sats of the burst being taken, answered once the whole burst is (unless a kill
        #: in it ended their commitment).
        self._sats: dict[int, Sat] = {}
        #: The agents whose socket has been read to its end (EOF).
        self._read_out: set[int] = set()
        self.inbox, self._inbox_out = trio.open_memory_channel[
            tuple[int, ServerMessage | RemoteProtocolError | _Eof]
        ](INBOX_SIZE)
        self.log = log.bind(team=team)
        #: Told "waiting" when the starts are sent, "started" when every socket has its dungeon.
        self.told: Callable[[str], None] = lambda stage: None

    async def read(self, agent: int) -> None:
        """Forward one socket's messages to the team task, then EOF."""
        codec = Codec(ServerMessage)
        stream = self.streams[agent]
        while True:
            try:
                message = codec.next_message()
            except RemoteProtocolError as error:
                await self.inbox.send((agent, error))
                return
            if message is not NEED_DATA:
                await self.inbox.send((agent, message))  # type: ignore[arg-type]
                continue
            if codec.eof:
                await self.inbox.send((agent, EOF))
                return
            try:
                data = await stream.receive_some(RECEIVE_SIZE)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            codec.receive_data(data)

    async def send(self, agent: int, message: Start | Move | Solution) -> None:
        try:
            await self.streams[agent].send_all(self.codec.send(message))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.sessions[agent].handle(Event.CLOSED)

    def _phase(self, agent: int) -> Phase:
        return self.sessions[agent].phase

    def _advance(self, agent: int, event: Event) -> None:
        if self.sessions[agent].phase is Phase.CLOSED:
            return  # lines still buffered from a socket we could no longer write to
        try:
            self.sessions[agent].handle(event)
        except SessionError as error:
            raise TeamError(f"agent {agent}: the server broke the protocol: {error}") from None

    async def play(self, match: str | None, token: str | None = None) -> None:
        for agent in TEAM_AGENTS:
            self._advance(agent, Event.START_ACCEPTED)
            await self.send(agent, Start(team=self.team, agent=agent, match=match, token=token))
        self.told("waiting")
        started = False
        receive = self._inbox_out
        while not self.result.over:
            await self._take_burst([await receive.receive()])
            await self._answer_sats()
            if self.result.over:
                await self._finish()
                return
            if len(self._read_out) == len(TEAM_AGENTS):
                # Every socket read to its end: a write that failed first (the server closes
                # after `game_over`) may still have the `game_over` behind it, unread.
                raise TeamError("the server closed every connection before the match ended")
            if any(session.phase is Phase.JOINED for session in self.sessions):
                # The six `dungeon` lines reach six sockets in no promised order: a strategy asked
                # before all have arrived would not know where its teammates stand (headless play,
                # too, shows the whole begin before the first choice).
                continue
            if not started:
                started = True
                self.told("started")
            # The round's moves are all chosen, then sent together: with fair time a request
            # is stamped with the team's CPU when the server reads it, so one sent while the
            # next agent's move is being chosen would count that CPU too, more or less of it
            # as the server is slower or quicker to read (docs/fair-time.md, Limits).
            moves = []
            for agent in TEAM_AGENTS:
                if self._phase(agent) is Phase.FREE:
                    target = self.strategy.choose_move(agent)
                    if target is not None:
                        self._advance(agent, Event.MOVE)
                        moves.append((agent, Move(to=target)))
            for agent, move in moves:
                await self.send(agent, move)

    async def _finish(self) -> None:
        """Take what the other sockets still bring, up to their own `game_over` or close.

        The line that ended the match (the heir's `moved` onto its shrine) comes on the heir's
        socket, and another socket's `game_over` may be read first: stopping there left the
        winning crossing out of the team's counts.
        """
        with trio.move_on_after(FINISH_SECONDS):
            while any(s.phase not in (Phase.OVER, Phase.CLOSED) for s in self.sessions):
                agent, item = await self._inbox_out.receive()
                if isinstance(item, RemoteProtocolError):
                    # The result is known: garbage is harmless.
                    self.sessions[agent].handle(Event.CLOSED)
                else:
                    await self._take(agent, item)

    async def _take(self, agent: int, item: ServerMessage | RemoteProtocolError | _Eof) -> None:
        if isinstance(item, _Eof):
            self._read_out.add(agent)
            self.sessions[agent].handle(Event.CLOSED)
            return
        if isinstance(item, RemoteProtocolError):
            raise TeamError(f"agent {agent}: the server broke the protocol: {item.text}")
        self.strategy.observe(agent, item)
        phase = self._phase(agent)
        if isinstance(item, Dungeon):
            self._advance(agent, Event.DUNGEON)
        elif isinstance(item, Error):
            if phase is Phase.JOINED:
                raise TeamError(f"agent {agent}: the server refused the start: {item.message}")
            self.result.errors += 1
            self.log.debug("request_refused", agent=agent, code=item.code, message=item.message)
            self._advance(agent, Event.ERROR)
        elif isinstance(item, Sat):
            if phase is Phase.MOVE_SENT and not self.result.over:
                # Answered after the whole burst (_answer_sats): a kill later in it ends the
                # commitment, and a solution sent anyway would be refused.
                self._advance(agent, Event.SAT)
                self._sats[agent] = item
        elif isinstance(item, Moved):
            if item.reason == "attacked" and self._sats.pop(agent, None) is not None:
                self._advance(agent, Event.VOIDED)  # killed while committed: the sat is void
            self._count(agent, item, phase)
        elif isinstance(item, GameOver):
            self.result.over = True
            self.result.winner = item.winner
            self._advance(agent, Event.GAME_OVER)

    async def _take_burst(
        self, burst: list[tuple[int, ServerMessage | RemoteProtocolError | _Eof]]
    ) -> None:
        """Take ``burst`` and everything else already in the inbox."""
        while len(burst) < INBOX_SIZE:
            try:
                burst.append(self._inbox_out.receive_nowait())
            except trio.WouldBlock:
                break
        for agent, item in burst:
            await self._take(agent, item)

    async def _answer_sats(self) -> None:
        """Send the solution of every sat whose commitment still holds.

        Solving takes time, and an enemy may kill the agent meanwhile: after solving, the
        readers get a moment to bring what arrived, and a `moved` with reason `attacked` among
        it voids its agent's sat (:meth:`_take`). So a solution is refused (`not_committed`)
        only when the kill and the solution cross on the wire.
        """
        while self._sats and not self.result.over:
            solutions = {
                agent: (sat, self.strategy.solve(agent, sat)) for agent, sat in self._sats.items()
            }
            for _ in range(2):  # the readers run, then put what they read in the inbox
                await trio.lowlevel.checkpoint()
            await self._take_burst([])
            for agent, (sat, assignment) in solutions.items():
                if self._sats.get(agent) is not sat or self._phase(agent) is not Phase.SAT:
                    continue  # killed meanwhile (or the match ended)
                del self._sats[agent]
                if not self.result.over:
                    self._advance(agent, Event.SOLUTION)
                    await self.send(agent, Solution(assignment=assignment))

    def _count(self, agent: int, moved: Moved, phase: Phase) -> None:
        result = self.result
        result.kills += sum(1 for victim in moved.killed if victim >= 0)
        result.npc_kills += sum(1 for victim in moved.killed if victim < 0)
        if moved.reason == "attacked":
            result.killed_by_enemy += 1
            return
        result.crossings += 1
        if moved.reason == "trap":
            result.trap_deaths += 1
        if agent == 0:
            result.heir_path.append(moved.location)
        if phase is Phase.SAT:
            self._advance(agent, Event.ANSWERED)
