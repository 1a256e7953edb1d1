"""The ladder's continuous runner: it keeps a few matches queued (``server.ladder.queue``),
claims them one by one, plays them (here or on Dask workers) at most ``concurrency`` at once, and
records each result with its ratings (``server.ladder.results``).

A match's life is ``queued -> running -> done`` (docs/ladder.md). One runner per ladder (it
holds a lock): before it starts it puts every match a killed runner left ``running`` back in the
queue, so the match is played again and counted once. A match that cannot be played is given
back to the queue with its reason.

The ladder's state (``running``, ``paused``, ``frozen``) is read before each match starts and in
the transaction that records one: paused or frozen, nothing starts (running matches finish);
frozen, a finished match is recorded but changes no rating.
"""

from __future__ import annotations

import fcntl
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio
from sqlalchemy import Engine, text

from server.competition.teams import Players
from server.ladder.db import LadderError
from server.ladder.play import LocalPlayer, MatchJob, MatchOutcome, Player, Program, pack
from server.ladder.queue import Claim, claim, give_back, idle_reason, recover, top_up
from server.ladder.results import finish
from server.ladder.store import Store

__all__ = ["RunnerOptions", "run_ladder", "runner_lock"]


@contextmanager
def runner_lock(engine: Engine, folder: Path) -> Iterator[None]:
    """Hold the ladder's one-runner lock (a file lock in ``folder``; on PostgreSQL also an
    advisory lock, for runners on other machines); LadderError when another runner holds it."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "runner.lock", "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LadderError("another arena ladder run is running this ladder") from None
        if engine.dialect.name != "postgresql":
            yield
            return
        with engine.connect() as held:
            got = held.execute(text("SELECT pg_try_advisory_lock(7102026)")).scalar()
            held.commit()
            if not got:
                raise LadderError("another arena ladder run is running this ladder")
            try:
                yield
            finally:
                held.execute(text("SELECT pg_advisory_unlock(7102026)"))
                held.commit()


@dataclass
class RunnerOptions:
    concurrency: int = 1
    player: Player = field(default_factory=LocalPlayer)
    sandbox: str = "bwrap"
    players: Players | None = None
    #: Stop after this many matches finished in this run (None: run until cancelled).
    matches: int | None = None
    #: Matches kept queued ahead of the ones running.
    ahead: int = 2
    #: Seconds between two looks at the database when there is nothing to do.
    idle_seconds: float = 1.0
    #: Called with one line per event (``started``, ``done``, ``requeued``, ...).
    status: Callable[[str], None] = lambda line: None


def _store_files(store: Store, outcome: MatchOutcome) -> dict[str, str]:
    return {name: store.put(data) for name, data in sorted(outcome.files.items())}


class _Packs:
    """Each version's program packed once (its manifest checked out, then packed)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.packed: dict[str, bytes] = {}

    def get(self, digest: str) -> bytes:
        if digest not in self.packed:
            with tempfile.TemporaryDirectory(prefix="arena-ladder-pack-") as scratch:
                folder = Path(scratch) / "program"
                self.store.checkout(digest, folder)
                self.packed[digest] = pack(folder)
        return self.packed[digest]


async def run_ladder(engine: Engine, store: Store, options: RunnerOptions) -> int:
    """Run the ladder until cancelled (or ``options.matches`` are done); matches done."""
    worker = f"{socket.gethostname()}:{os.getpid()}"
    requeued = await trio.to_thread.run_sync(recover, engine)
    if requeued:
        options.status(f"requeued {' '.join(map(str, requeued))} (left running by a runner)")
    packs = _Packs(store)
    limiter = trio.CapacityLimiter(options.concurrency)
    finished = 0
    changed = trio.Event()
    said: str | None = None  # (why nothing is played, said once until it changes)

    async def play(claimed: Claim) -> None:
        nonlocal finished, changed
        try:
            try:
                programs = []
                for _, name, digest, command in claimed.seats:
                    archive = await trio.to_thread.run_sync(packs.get, digest)
                    programs.append(Program(name, archive, command))
                job = MatchJob(
                    claimed.match_id, claimed.game, claimed.seed, tuple(programs),
                    claimed.settings, sandbox=options.sandbox, players=options.players,
                )  # fmt: skip
                outcome = await options.player.play(job)
            except Exception as error:  # lost worker, cluster gone, a file or setting refused
                line = f"{type(error).__name__}: {error}".splitlines()[0]
                state = await trio.to_thread.run_sync(give_back, engine, claimed, line)
                options.status(f"match {claimed.match_id} {state} ({line})")
                return
            files = await trio.to_thread.run_sync(_store_files, store, outcome)
            if await trio.to_thread.run_sync(finish, engine, claimed, outcome, files):
                finished += 1
                options.status(f"match {claimed.match_id} done: {outcome.record['result']}")
        finally:
            limiter.release_on_behalf_of(claimed)
            changed.set()

    async with trio.open_nursery() as nursery:
        while options.matches is None or finished < options.matches:
            running = limiter.borrowed_tokens
            if options.matches is not None and finished + running >= options.matches:
                await changed.wait()
                changed = trio.Event()
                continue
            if running < options.concurrency:
                await trio.to_thread.run_sync(top_up, engine, options.concurrency + options.ahead)
                claimed = await trio.to_thread.run_sync(claim, engine, worker)
                if claimed is not None:
                    await limiter.acquire_on_behalf_of(claimed)
                    seats = ", ".join(name for _, name, *_ in claimed.seats)
                    options.status(f"match {claimed.match_id} started: {seats}")
                    nursery.start_soon(play, claimed)
                    continue
                if running == 0:
                    why = await trio.to_thread.run_sync(idle_reason, engine)
                    if why is not None and why != said:
                        options.status(why)
                    said = why
            with trio.move_on_after(options.idle_seconds):
                await changed.wait()
            changed = trio.Event()
        nursery.cancel_scope.cancel()
    return finished
