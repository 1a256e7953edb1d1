"""The Fish server: sign-up, the tournament manager and one referee per game, in trio.

Spec fish.md, "Server (sign-up)", "Tournament manager", "Referee". The rules live in the pure
:mod:`fish.manager` and :mod:`fish.referee`; this module only moves their calls over the wire:

* :meth:`FishServer.handle_connection` (one task per connection, from a listener or a test's
  memory stream) runs the shared connection cycle (:mod:`server.cycle`): its reader, beside
  which it waits for the name (``name_timeout``, per connection, so a silent client holds up
  nobody), hands a valid name to the sign-up through a small channel, and keeps the socket
  open until the tournament releases the player.
* :meth:`FishServer.run`: the sign-up (up to ``periods`` of ``wait`` seconds; at once with
  ``max_players``; after a period with at least ``min_players``), then the tournament: ``start``
  to all at once, rounds of games run side by side (each game is one task that owns its
  referee and, for that game, its players), ``end`` to all at once. A player that fails or
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
from server.fish.game import play_game
from server.fish.remote import Answer, Remote, valid_name
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
        self._signup_send, self._signup_receive = trio.open_memory_channel[Remote](16)
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
        """One connection's whole life (the shared cycle, :class:`server.cycle.Link`): sign-up,
        then open until the tournament releases it."""
        self._connections += 1
        number = self._connections
        remote = Remote(
            stream, number, self.limits, self.gate, functools.partial(self._refusal, number)
        )

        async def signed_up_until_released() -> None:
            answer = await remote.first_value(self.config.name_timeout)
            if await self._sign_up(remote, answer):
                await remote.wait_released()

        await remote.link.serve(remote.read_loop, signed_up_until_released, linger=False)

    async def _sign_up(self, remote: Remote, answer: Answer) -> bool:
        if not answer.ok:
            return self._refuse(remote, answer.reason)
        if not valid_name(answer.value, self.config.names):
            return self._refuse(remote, f"not a valid name: {answer.value!r:.40}")
        remote.name = answer.value
        try:
            await self._signup_send.send(remote)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return self._refuse(remote, "the sign-up is over")
        return True

    def _refuse(self, remote: Remote, reason: str) -> bool:
        remote.link.refusal(reason)
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
                for remote in players:
                    remote.release()
                return None
            return await self._tournament(players)
        finally:
            self.tournament_log.close()

    async def _gather(self) -> list[Remote]:
        """The sign-up periods; closes the sign-up (later names are refused)."""
        config, players = self.config, list[Remote]()
        with self._signup_receive:
            for period in range(config.periods):
                with trio.move_on_after(config.wait):
                    while len(players) < config.max_players:
                        remote = await self._signup_receive.receive()
                        players.append(remote)
                        log.info("fish_signup", name=remote.name, players=len(players))
                        self.tournament_log.write(
                            "signup", name=remote.name, connection=remote.number, period=period
                        )
                if len(players) >= config.max_players or len(players) >= config.min_players:
                    break
            self.signup_closed.set()
            while True:  # names already in the channel's slot missed the sign-up
                try:
                    late = self._signup_receive.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                self._refuse(late, "the sign-up is over")
                late.release()
        return players

    async def _call_all(
        self, calls: list[tuple[Remote, list[Any]]], timeout: float
    ) -> list[Answer]:
        answers: list[Answer] = [Answer(False)] * len(calls)

        self.calls += len(calls)

        async def one(index: int, remote: Remote, message: list[Any]) -> None:
            answers[index] = await remote.call(message, timeout)

        async with trio.open_nursery() as nursery:
            for index, (remote, message) in enumerate(calls):
                nursery.start_soon(one, index, remote, message)
        return answers

    async def _tournament(self, players: list[Remote]) -> Standing:
        config, tlog = self.config, self.tournament_log
        by_id = dict(enumerate(players))
        manager = Manager(by_id)
        ids = manager.start_calls()
        answers = await self._call_all(
            [(by_id[i], ["start", [True]]) for i in ids], config.call_timeout
        )
        acknowledged = [i for i, a in zip(ids, answers, strict=True) if a.ok and a.value == "void"]
        manager.started(acknowledged)
        tlog.write(
            "started", players=[p.name for p in players], failed=_names(by_id, manager.failed)
        )
        for i in manager.failed:
            by_id[i].release()
        number = 0
        while (games := manager.next_round()) is not None:
            number += 1
            tlog.write("round", round=number, games=[_names(by_id, game) for game in games])
            results = await self._round(number, games, by_id)
            manager.round_done(results)
        ends = manager.end_calls()
        answers = await self._call_all(
            [(by_id[i], ["end", [won]]) for i, won in ends], config.call_timeout
        )
        manager.ended(
            i for (i, _), a in zip(ends, answers, strict=True) if a.ok and a.value == "void"
        )
        tlog.write("end_sent", calls=[[by_id[i].name, won] for i, won in ends])
        for remote in players:
            remote.release()
        standing = Standing(
            _names(by_id, manager.winners),
            _names(by_id, manager.failed),
            _names(by_id, manager.cheaters),
        )
        tlog.write("result", tournament=True, **standing.__dict__, summary=standing.summary())
        log.info("fish_tournament_over", summary=standing.summary(), rounds=number)
        return standing

    async def _round(
        self, number: int, games: list[list[int]], by_id: dict[int, Remote]
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
        self, round_number: int, index: int, seats: list[int], by_id: dict[int, Remote]
    ) -> Outcome[int]:
        """One game: its task owns the referee and, until it returns, its players."""
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
            result, calls = await play_game(referee, players, glog, config.call_timeout)
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


def _names(by_id: dict[int, Remote], ids: list[int]) -> list[str]:
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
