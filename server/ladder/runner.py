"""The ladder's continuous runner: it keeps a few matches queued (the scheduler's pairings of the
active versions), claims them one by one, plays them (here or on Dask workers) at most
``concurrency`` at once, and records each result with its ratings in one transaction.

A match's life is ``queued -> running -> done`` (docs/ladder.md). Claiming is a conditional
update (``queued`` to ``running``, only if it still is), so no match is played by two runners;
recording is another (``running`` to ``done``, only for the attempt that was claimed), in the
transaction that writes the seats' results and the ratings (one such transaction at a time: it
locks the ladder's row), so no match is counted twice. A
runner killed mid-match (kill -9) leaves it ``running``: the next runner puts every ``running``
match back in the queue before it starts (one runner per ladder: it holds a lock), so the match
is played again and counted once. A match that cannot be played (a worker lost, the cluster gone)
is queued again, up to :data:`ATTEMPTS` times, then ``failed`` with its reason and no rating
change. A queued match whose version is no longer active when its turn comes is ``void``.

The ladder's state (``running``, ``paused``, ``frozen``) is read before each match starts and in
the transaction that records one: paused or frozen, nothing starts (running matches finish);
frozen, a finished match is recorded but changes no rating.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from sqlalchemy import Connection, Engine, func, select, text, update

from server.competition.teams import DEFAULT_SEATS, OPTION_KEYS, Players
from server.ladder import schema as s
from server.ladder.db import LadderError, ladder_row
from server.ladder.play import LocalPlayer, MatchJob, MatchOutcome, Player, Program, pack
from server.ladder.rating import Rating, outcomes, ranks, rate
from server.ladder.schedule import Entrant, Ledger, plan
from server.ladder.store import Store

__all__ = [
    "ATTEMPTS",
    "Claim",
    "RunnerOptions",
    "claim",
    "finish",
    "give_back",
    "recover",
    "run_ladder",
    "runner_lock",
    "top_up",
]

#: Times a match is started before it is given up as ``failed``.
ATTEMPTS = 3
#: The ``[tournament]`` keys a ladder's settings pass to its matches (limits, game options).
MATCH_KEYS = {
    "match_seconds",
    "connect_seconds",
    "memory_mb",
    "cpu_seconds",
    "config",
    *OPTION_KEYS,
}


def _now() -> float:
    return time.time()


def match_settings(ladder: dict[str, Any]) -> dict[str, Any]:
    """The ``[tournament]`` keys of the ladder's settings its matches are played with."""
    table = ladder["settings"].get("tournament", {})
    return {key: value for key, value in table.items() if key in MATCH_KEYS}


def seats_of(ladder: dict[str, Any]) -> int:
    table = ladder["settings"].get("tournament", {})
    return int(table.get("players_per_game") or DEFAULT_SEATS.get(ladder["game"], 2))


def recover(engine: Engine) -> list[int]:
    """Queue again every match a runner left ``running`` (it was killed); their ids."""
    with engine.begin() as db:
        ids = list(
            db.execute(select(s.matches.c.id).where(s.matches.c.state == "running")).scalars()
        )
        if ids:
            db.execute(
                update(s.matches)
                .where(s.matches.c.state == "running")
                .values(state="queued", worker=None, started=None)
            )
    return ids


def _active(db: Connection) -> list[dict[str, Any]]:
    query = (
        select(
            s.versions.c.id,
            s.versions.c.submitted,
            s.versions.c.checked,
            s.teams.c.name,
            s.ratings.c.mu,
            s.ratings.c.sigma,
        )
        .join(s.teams, s.teams.c.id == s.versions.c.team_id)
        .outerjoin(s.ratings, s.ratings.c.version_id == s.versions.c.id)
        .where(s.versions.c.status == "active")
        .order_by(s.versions.c.id)
    )
    return [dict(row) for row in db.execute(query).mappings()]


def top_up(engine: Engine, queued: int) -> int:
    """Queue new matches until ``queued`` wait (none unless the ladder is running); how many."""
    with engine.begin() as db:
        ladder = ladder_row(db)
        if ladder["state"] != "running":
            return 0
        waiting = db.execute(
            select(func.count()).select_from(s.matches).where(s.matches.c.state == "queued")
        ).scalar_one()
        if waiting >= queued:
            return 0
        active = _active(db)
        ids = [row["id"] for row in active]
        played = (
            select(s.seats.c.match_id, s.seats.c.seat, s.seats.c.version_id)
            .join(s.matches, s.matches.c.id == s.seats.c.match_id)
            .where(s.matches.c.state.in_(("queued", "running", "done", "failed")))
            .where(s.seats.c.version_id.in_(ids))
            .order_by(s.seats.c.match_id, s.seats.c.seat)
        )
        by_match: dict[int, list[int]] = {}
        for match_id, _, version in db.execute(played):
            by_match.setdefault(match_id, []).append(version)
        ledger = Ledger.of(by_match.values(), seats=seats_of(ladder))
        entrants = [
            Entrant(
                row["id"], row["name"],
                mu=row["mu"] if row["mu"] is not None else Rating().mu,
                sigma=row["sigma"] if row["sigma"] is not None else Rating().sigma,
                activated=row["checked"] or row["submitted"],
            )
            for row in active
        ]  # fmt: skip
        first = (db.execute(select(func.max(s.matches.c.id))).scalar() or 0) + 1
        seed = int(ladder["settings"].get("tournament", {}).get("seed", 0))
        pairings = plan(entrants, ledger, queued - waiting, first_number=first, ladder_seed=seed)
        now = _now()
        for pairing in pairings:
            match_id = db.execute(
                s.matches.insert().values(seed=pairing.seed, state="queued", created=now)
            ).inserted_primary_key
            assert match_id is not None
            db.execute(
                s.seats.insert(),
                [
                    {"match_id": match_id[0], "seat": seat, "version_id": version}
                    for seat, version in enumerate(pairing.seats)
                ],
            )
    return len(pairings)


def idle_reason(engine: Engine) -> str | None:
    """Why no match can start now (the ladder paused or frozen, too few active versions), in
    one line; None when one could."""
    with engine.begin() as db:
        ladder = ladder_row(db)
        if ladder["state"] != "running":
            return f"ladder {ladder['state']}: no match starts until arena ladder resume"
        teams = {row["name"] for row in _active(db)}
    seats = seats_of(ladder)
    if len(teams) < seats:
        return (
            f"waiting for versions: {len(teams)} team(s) with an active version, "
            f"a match needs {seats}"
        )
    return None


@dataclass(frozen=True, eq=False)
class Claim:
    """A match this runner has claimed: what it needs to play it and to record it."""

    match_id: int
    attempt: int
    seed: int
    game: str
    settings: dict[str, Any]
    #: Per seat: version id, program name, program manifest digest, command.
    seats: tuple[tuple[int, str, str, tuple[str, ...]], ...]
    #: The match this one re-runs (its result is replaced when this one is recorded).
    replaces: int | None = None


def _program_name(team: str, number: int, taken: set[str]) -> str:
    suffix = f"-v{number}"
    name = team[: 32 - len(suffix)] + suffix
    if name in taken:
        name = f"{name[:28]}-s{len(taken)}"
    taken.add(name)
    return name


def claim(engine: Engine, worker: str) -> Claim | None:
    """Claim the oldest queued match (``queued`` to ``running``); None when none waits or the
    ladder is not running. A match whose version is no longer active is made ``void``."""
    while True:
        with engine.begin() as db:
            ladder = ladder_row(db)
            if ladder["state"] != "running":
                return None
            match = (
                db.execute(
                    select(
                        s.matches.c.id,
                        s.matches.c.seed,
                        s.matches.c.attempts,
                        s.matches.c.replaces,
                    )
                    .where(s.matches.c.state == "queued")
                    .order_by(s.matches.c.id)
                    .limit(1)
                )
                .mappings()
                .first()
            )
            if match is None:
                return None
            seated = list(
                db.execute(
                    select(
                        s.seats.c.version_id,
                        s.versions.c.number,
                        s.versions.c.status,
                        s.versions.c.program_hash,
                        s.versions.c.command,
                        s.teams.c.name,
                    )
                    .join(s.versions, s.versions.c.id == s.seats.c.version_id)
                    .join(s.teams, s.teams.c.id == s.versions.c.team_id)
                    .where(s.seats.c.match_id == match["id"])
                    .order_by(s.seats.c.seat)
                ).mappings()
            )
            # (a re-run plays the versions of the match it replaces, unless one was retired)
            gone = [
                row for row in seated
                if row["status"] == "retired"
                or (row["status"] != "active" and match["replaces"] is None)
            ]  # fmt: skip
            changed = db.execute(
                update(s.matches)
                .where(s.matches.c.id == match["id"], s.matches.c.state == "queued")
                .values(
                    state="void" if gone else "running",
                    started=None if gone else _now(),
                    finished=_now() if gone else None,
                    worker=None if gone else worker,
                    attempts=match["attempts"] + (0 if gone else 1),
                    why=f"{gone[0]['name']} v{gone[0]['number']} is {gone[0]['status']}"
                    if gone
                    else None,
                )
            ).rowcount
            if changed != 1 or gone:
                continue  # (another runner took it, or it was made void: the next one)
            taken: set[str] = set()
            return Claim(
                match_id=match["id"],
                attempt=match["attempts"] + 1,
                seed=match["seed"],
                game=ladder["game"],
                settings=match_settings(ladder),
                replaces=match["replaces"],
                seats=tuple(
                    (
                        row["version_id"],
                        _program_name(row["name"], row["number"], taken),
                        row["program_hash"],
                        tuple(json.loads(row["command"])),
                    )
                    for row in seated
                ),
            )


def give_back(engine: Engine, claimed: Claim, error: str) -> str:
    """A claimed match that could not be played: ``queued`` again, or ``failed`` after
    :data:`ATTEMPTS` starts (or at once when ``error`` is the match's own fault); its state."""
    final = claimed.attempt >= ATTEMPTS
    state = "failed" if final else "queued"
    with engine.begin() as db:
        db.execute(
            update(s.matches)
            .where(
                s.matches.c.id == claimed.match_id,
                s.matches.c.state == "running",
                s.matches.c.attempts == claimed.attempt,
            )
            .values(
                state=state,
                worker=None,
                why=error[:500],
                finished=_now() if final else None,
                started=None if not final else _now(),
            )
        )
    return state


_TALLY = {"win": "wins", "draw": "draws", "loss": "losses"}


def _rate(db: Connection, match_id: int, versions: list[int], places: list[int]) -> None:
    """Update the seats' ratings and W/D/L with one match's places (0 first)."""
    rows = {
        row["version_id"]: row
        for row in db.execute(
            select(s.ratings).where(s.ratings.c.version_id.in_(versions))
        ).mappings()
    }
    before = [Rating(rows[v]["mu"], rows[v]["sigma"]) if v in rows else Rating() for v in versions]
    scores = [-place for place in places]
    now = _now()
    for version, rating, result in zip(
        versions, rate(before, scores), outcomes(scores), strict=True
    ):
        old = rows.get(version)
        counts = {k: old[k] if old else 0 for k in ("games", "wins", "draws", "losses")}
        counts["games"] += 1
        counts[_TALLY[result]] += 1
        values = {"mu": rating.mu, "sigma": rating.sigma, "last_match_id": match_id,
                  "changed": now, **counts}  # fmt: skip
        if version in rows:
            db.execute(update(s.ratings).where(s.ratings.c.version_id == version).values(**values))
        else:
            db.execute(s.ratings.insert().values(version_id=version, **values))


def _recompute(db: Connection) -> None:
    """Every rating again from nothing: the rated done matches replayed in the order they
    were recorded (after a re-run replaced a result)."""
    db.execute(s.ratings.delete())
    query = (
        select(s.matches.c.id, s.matches.c.result, s.seats.c.version_id, s.seats.c.rank)
        .join(s.seats, s.seats.c.match_id == s.matches.c.id)
        .where(s.matches.c.state == "done")
        .order_by(s.matches.c.finished, s.matches.c.id, s.seats.c.seat)
    )
    played: dict[int, tuple[bool, list[int], list[int]]] = {}
    for match_id, result, version, place in db.execute(query):
        rated = json.loads(result or "{}").get("rated", True)
        entry = played.setdefault(match_id, (rated, [], []))
        entry[1].append(version)
        entry[2].append(place)
    for match_id, (rated, versions, places) in played.items():
        if rated:
            _rate(db, match_id, versions, places)


def finish(engine: Engine, claimed: Claim, outcome: MatchOutcome, files: dict[str, str]) -> bool:
    """Record a played match (``files``: its files' store digests, stored first): the match
    ``done``, each seat's result, and (unless the ladder is frozen) the seats' ratings, in one
    transaction; False (and nothing written) when this claim is no longer the match's."""
    record = outcome.record
    scores = outcome.ranking_scores
    places = ranks(scores)
    failures = {f.get("seat", record["seats"].index(f["team"])): f for f in record["failures"]}
    outputs = record.get("outputs") or [
        f"programs/{record['name']}-{team}.txt" for team in record["seats"]
    ]
    versions = [version for version, *_ in claimed.seats]
    with engine.begin() as db:
        frozen = ladder_row(db, lock=True)["state"] == "frozen"
        done = db.execute(
            update(s.matches)
            .where(
                s.matches.c.id == claimed.match_id,
                s.matches.c.state == "running",
                s.matches.c.attempts == claimed.attempt,
            )
            .values(
                state="done",
                finished=_now(),
                log_hash=files.get(record.get("log") or ""),
                result=json.dumps(
                    {
                        **record,
                        "files": files,
                        "rated": not frozen,
                        "replay_hash": files.get(record.get("replay") or ""),
                    }
                ),
            )
        ).rowcount
        if done != 1:
            return False
        for seat in range(len(versions)):
            failure = failures.get(seat)
            db.execute(
                update(s.seats)
                .where(s.seats.c.match_id == claimed.match_id, s.seats.c.seat == seat)
                .values(
                    points=outcome.points[seat], rank=places[seat],
                    reason=failure["reason"] if failure else None,
                    detail=str(failure.get("detail") or "")[:2000] if failure else None,
                    output_hash=files.get(outputs[seat]) if seat < len(outputs) else None,
                )
            )  # fmt: skip
        if frozen:
            return True
        if claimed.replaces is not None:
            db.execute(
                update(s.matches)
                .where(s.matches.c.id == claimed.replaces)
                .values(state="void", why=f"replaced by match {claimed.match_id}")
            )
            _recompute(db)
        else:
            _rate(db, claimed.match_id, versions, places)
    return True


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
