"""The Fish server: sign-up, the tournament manager and one referee per game, in trio.

Spec fish.md, "Server (sign-up)", "Tournament manager", "Referee". The rules live in the pure
:mod:`fish.manager` and :mod:`fish.referee`; this module only moves their calls over the wire:

* :meth:`FishServer.handle_connection` (one task per connection, from a listener or a test's
  memory stream) runs the shared connection cycle (:mod:`server.cycle`): its reader, beside
  which it waits for the name (``name_timeout``, per connection, so a silent client holds up
  nobody), sends the sign-up a plain ``SignedUp(player, name)`` through a small channel, then
  answers the calls it is sent until the tournament releases the player
  (:mod:`server.fish.switchboard`: plain values only, a player is its connection's number).
* :meth:`FishServer.run`: the sign-up (up to ``periods`` of ``wait`` seconds; at once with
  ``max_players``; after a period with at least ``min_players``), then the tournament: ``start``
  to all at once, rounds of games run side by side (each game is one task that owns its
  referee and an inbox for its players' answers), ``end`` to all at once. A player that fails or
  cheats is released (its socket closed) at once and never called again.
* :func:`serve`: the TCP listener around both, from the shared network layer
  (:mod:`server.net`: its listener, transport, reader budgets and connection cap).

Returns a :class:`Standing` (None when too few signed up: no tournament).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import structlog
import trio

from fish.gamelog import JsonlLog
from fish.manager import Manager, Outcome
from fish.referee import Referee
from fish.rules import MAX_FISH
from replay.chainlog import software_version
from replay.fishlog import FishGameLog
from server.fish.game import call_all, play_game
from server.fish.remote import Remote, valid_name
from server.fish.switchboard import Answer, Answered, SignedUp, Switchboard
from server.net import DEFAULT_LIMITS, Gate, Limits, open_listeners, serve_tcp

__all__ = ["FishServer", "ServerConfig", "Standing", "serve"]

log = structlog.get_logger()


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``--config KEY=VALUE`` may set (the spec's defaults)."""

    call_timeout: float = 3.0
    name_timeout: float = 10.0
    wait: float = 30.0
    periods: int = 2
    min_players: int = 5
    max_players: int = 10
    rows: int = 5
    cols: int = 5
    fish: int = 2
    holes: int = 0
    seed: int = 0
    max_value: int = 1 << 20
    max_connections: int = 4096
    names: Literal["strict", "lenient"] = "strict"

    def __post_init__(self) -> None:
        for name in ("call_timeout", "name_timeout", "wait"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: expected a positive number of seconds")
        if self.periods < 1:
            raise ValueError("periods: expected at least 1")
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError("min_players, max_players: expected 2 <= min <= max")
        if self.rows < 1 or self.cols < 1:
            raise ValueError("rows, cols: a board needs a tile")
        if not 1 <= self.fish <= MAX_FISH:
            raise ValueError(f"fish: expected 1-{MAX_FISH} fish per tile")
        if not 0 <= self.holes <= self.rows * self.cols - 8:
            raise ValueError("holes: the board must keep at least 8 tiles for the penguins")
        if self.max_value < 64:
            raise ValueError("max_value: expected at least 64 bytes")
        if self.max_connections < self.max_players:
            raise ValueError("max_connections: expected at least max_players")
        if self.names not in ("strict", "lenient"):
            raise ValueError("names: expected strict or lenient")

    def limits(self) -> Limits:
        """The network layer's limits: a value may take ``max_value`` bytes."""
        return DEFAULT_LIMITS.replace(
            max_line_bytes=self.max_value,
            partial_line_bytes=self.max_value,
            max_connections=self.max_connections,
        )

    def board(self) -> list[int]:
        """The tournament's board: ``fish`` per tile, ``holes`` holes drawn from ``seed``."""
        size = self.rows * self.cols
        tiles = [self.fish] * size
        for tile in random.Random(self.seed).sample(range(size), self.holes):
            tiles[tile] = 0
        return tiles


@dataclass(frozen=True)
class Standing:
    """A finished tournament, by player name."""

    winners: list[str]
    failed: list[str]
    cheaters: list[str]

    def summary(self) -> list[int]:
        """What the server prints: [final winners, failed + cheaters]."""
        return [len(self.winners), len(self.failed) + len(self.cheaters)]

    def described(self) -> str:
        """The same by name, for a person: who won, who failed, who cheated."""

        def names(group: list[str]) -> str:
            return ", ".join(sorted(group)) if group else "none"

        won = "winner" if len(self.winners) == 1 else "winners"
        return (
            f"{won}: {names(self.winners)}; failed: {names(self.failed)};"
            f" cheaters: {names(self.cheaters)}"
        )


class FishServer:
    def __init__(
        self, config: ServerConfig, log_dir: Path | None = None, log_key: bytes | None = None
    ) -> None:
        self.config = config
        self.log_dir = log_dir
        self.log_key = log_key
        self.limits = config.limits()
        #: The connection cap and the memory all connections' unfinished values may hold.
        self.gate = Gate(self.limits)
        #: Where the tournament and the games send calls and wait for answers, by player id.
        self.board = Switchboard()
        self._signup_send, self._signup_receive = trio.open_memory_channel[SignedUp](16)
        self._connections = 0
        #: Set when the sign-up closes: a listener may stop accepting connections.
        self.signup_closed = trio.Event()
        #: Remote calls made so far (start, the games' calls, end), for benchmarks and logs.
        self.calls = 0
        self._start = 0.0
        self.tournament_log = JsonlLog(None, self._now)

    def _now(self) -> float:
        return trio.current_time() - self._start

    async def handle_connection(self, stream: trio.abc.Stream) -> None:
        """One connection's whole life (the shared cycle, :class:`server.cycle.Link`): its
        socket task signs the player up, then answers the calls it is sent until the
        tournament releases it."""
        self._connections += 1
        number = self._connections
        board = self.board
        refusal = functools.partial(self._refusal, number)
        remote = Remote(stream, number, self.limits, self.gate, refusal, board.post)

        async def session() -> None:
            answer = await remote.first_value(self.config.name_timeout)
            calls = board.join(number)
            if await self._sign_up(answer):
                await remote.answer_calls(calls)
            else:
                board.release(number)

        await remote.link.serve(remote.read_loop, session, linger=False)

    async def _sign_up(self, answer: Answer) -> bool:
        """Sign the player up with the name it ``answer``ed (False: it is refused)."""
        player = answer.player
        if not isinstance(answer, Answered):
            return self._refuse(player, answer.reason)
        if not valid_name(answer.value, self.config.names):
            return self._refuse(player, f"not a valid name: {answer.value!r:.40}")
        try:
            await self._signup_send.send(SignedUp(player, answer.value))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return self._refuse(player, "the sign-up is over")
        return True

    def _refuse(self, player: int, reason: str) -> bool:
        self._refusal(player, reason)
        return False

    def _refusal(self, number: int, reason: str) -> None:
        """How the Fish server refuses connection ``number``: it says nothing (the spec has no
        word for it) and records why."""
        log.info("fish_refused", connection=number, reason=reason)
        self.tournament_log.write("refused", connection=number, reason=reason)

    async def run(self) -> Standing | None:
        """Sign players up, then run the tournament; None when too few signed up."""
        self._start = trio.current_time()
        if self.log_dir is not None:
            self.tournament_log = JsonlLog(
                self.log_dir / "tournament.jsonl", self._now, self.log_key
            )
        config = self.config
        self.tournament_log.write(
            "tournament", log="fish-tournament", config=config.__dict__ | {"names": config.names}
        )
        try:
            players = await self._gather()
            if len(players) < config.min_players:
                log.info("fish_no_tournament", players=len(players))
                self.tournament_log.write("result", tournament=False, players=len(players))
                for signed in players:
                    self.board.release(signed.player)
                return None
            return await self._tournament(players)
        finally:
            self.tournament_log.close()

    async def _gather(self) -> list[SignedUp]:
        """The sign-up periods; closes the sign-up (later names are refused)."""
        config, players = self.config, list[SignedUp]()
        with self._signup_receive:
            for period in range(config.periods):
                with trio.move_on_after(config.wait):
                    while len(players) < config.max_players:
                        signed = await self._signup_receive.receive()
                        players.append(signed)
                        log.info("fish_signup", name=signed.name, players=len(players))
                        self.tournament_log.write(
                            "signup", name=signed.name, connection=signed.player, period=period
                        )
                if len(players) >= config.max_players or len(players) >= config.min_players:
                    break
            self.signup_closed.set()
            while True:  # names already in the channel's slot missed the sign-up
                try:
                    late = self._signup_receive.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                self._refuse(late.player, "the sign-up is over")
                self.board.release(late.player)
        return players

    async def _call_all(self, calls: list[tuple[int, list[Any]]], timeout: float) -> list[Answer]:
        self.calls += len(calls)
        return await call_all(self.board, calls, timeout)

    async def _tournament(self, players: list[SignedUp]) -> Standing:
        config, tlog, board = self.config, self.tournament_log, self.board
        by_id = dict(enumerate(players))
        manager = Manager(by_id)
        ids = manager.start_calls()
        answers = await self._call_all(
            [(by_id[i].player, ["start", [True]]) for i in ids], config.call_timeout
        )
        acknowledged = [i for i, a in zip(ids, answers, strict=True) if _void(a)]
        manager.started(acknowledged)
        tlog.write(
            "started", players=[p.name for p in players], failed=_names(by_id, manager.failed)
        )
        for i in manager.failed:
            board.release(by_id[i].player)
        number = 0
        while (games := manager.next_round()) is not None:
            number += 1
            tlog.write("round", round=number, games=[_names(by_id, game) for game in games])
            results = await self._round(number, games, by_id)
            manager.round_done(results)
        ends = manager.end_calls()
        answers = await self._call_all(
            [(by_id[i].player, ["end", [won]]) for i, won in ends], config.call_timeout
        )
        manager.ended(i for (i, _), a in zip(ends, answers, strict=True) if _void(a))
        tlog.write("end_sent", calls=[[by_id[i].name, won] for i, won in ends])
        for signed in players:
            board.release(signed.player)
        standing = Standing(
            _names(by_id, manager.winners),
            _names(by_id, manager.failed),
            _names(by_id, manager.cheaters),
        )
        tlog.write("result", tournament=True, **standing.__dict__, summary=standing.summary())
        log.info("fish_tournament_over", summary=standing.summary(), rounds=number)
        return standing

    async def _round(
        self, number: int, games: list[list[int]], by_id: dict[int, SignedUp]
    ) -> list[Outcome[int]]:
        """A round's games side by side; their outcomes in order."""
        results: list[Outcome[int]] = [Outcome(())] * len(games)

        async def game(index: int, seats: list[int]) -> None:
            results[index] = await self._game(number, index, seats, by_id)

        async with trio.open_nursery() as nursery:
            for index, seats in enumerate(games):
                nursery.start_soon(game, index, seats)
        return results

    async def _game(
        self, round_number: int, index: int, seats: list[int], by_id: dict[int, SignedUp]
    ) -> Outcome[int]:
        """One game: its task owns the referee and, until it returns, its players' calls."""
        config = self.config
        path = None
        if self.log_dir is not None:
            path = self.log_dir / f"game-r{round_number}-g{index + 1}.jsonl.gz"
        glog = FishGameLog(
            path, self._now, self.log_key, version=software_version(), seed=config.seed
        )
        players = [by_id[i] for i in seats]
        referee = Referee(config.rows, config.cols, config.board(), len(players))
        glog.write(
            "game",
            log="fish-game",
            round=round_number,
            game=index + 1,
            players=[p.name for p in players],
            colors=list(referee.colors),
            rows=config.rows,
            cols=config.cols,
            board=config.board(),
        )
        names = [p.name for p in players]
        try:
            result, calls = await play_game(referee, players, glog, config.call_timeout, self.board)
            self.calls += calls
            self.tournament_log.write(
                "game_result",
                round=round_number,
                game=index + 1,
                winners=[names[s] for s in result.winners],
                failed=[names[s] for s in result.failed],
                cheaters=[names[s] for s in result.cheaters],
                scores=list(result.scores),
            )
        finally:
            glog.close()
        return Outcome(
            tuple(seats[s] for s in result.winners),
            tuple(seats[s] for s in result.failed),
            tuple(seats[s] for s in result.cheaters),
        )


def _void(answer: Answer) -> bool:
    """The answer acknowledges (``"void"``, in time)."""
    return isinstance(answer, Answered) and answer.value == "void"


def _names(by_id: dict[int, SignedUp], ids: list[int]) -> list[str]:
    return [by_id[i].name for i in ids]


async def serve(
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    log_dir: Path | None = None,
    log_key: bytes | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> Standing | None:
    """Listen, run one tournament, return its standing; reports the bound port when ready.
    With ``log_key`` each log is sealed as it closes (replay/seal.py)."""
    server = FishServer(config, log_dir, log_key)
    listeners, bound = await open_listeners(port, host)  # OSError here, before anything runs
    async with trio.open_nursery() as nursery:
        accepting = trio.CancelScope()

        async def accept(task_status: trio.TaskStatus[int]) -> None:
            with accepting:
                await serve_tcp(
                    server.handle_connection,
                    listeners=listeners,
                    handler_nursery=nursery,
                    task_status=task_status,
                )

        async def stop_accepting() -> None:
            await server.signup_closed.wait()
            accepting.cancel()  # later clients are refused by the system, not kept waiting

        await nursery.start(accept)
        nursery.start_soon(stop_accepting)
        task_status.started(bound)
        standing = await server.run()
        nursery.cancel_scope.cancel()  # every player is released: close what is left
    return standing
