"""The class ladder: matches per hour for a class of ``arena team`` programs, and what the
database costs a match.

1. Throughput: a ladder of BENCH_LADDER_TEAMS (30) teams, each an active version that is a real
   external program (``arena team`` with reference, rusher and random in turn; sandboxed by
   bwrap where it runs, else none, said in the title) on BENCH_LADDER_NODES (300)-node dungeons,
   run by the ladder's runner (scheduler, claim, the match through the competition's adapter,
   the files into the store, result and ratings in one transaction) for BENCH_LADDER_MATCHES (6)
   matches at each concurrency of BENCH_LADDER_CONCURRENCY (1,2), on SQLite and on PostgreSQL:
   wall time, matches per hour, the median match (its record's seconds).
2. The database's cost of a match: BENCH_LADDER_DB_MATCHES (200) matches queued, claimed and
   recorded (``top_up``, ``claim``, ``finish`` with a ready-made two-seat result: what the runner
   asks of the database for one match, without playing it) on each database, in a ladder of the
   same 30 teams: the median and 90th percentile in ms, and how many such matches a second.

PostgreSQL is the test suite's server (tests/postgres_kit.py: Debian's binaries, a unix socket,
fsync off: its figure leaves out the disk flush a production server pays); when none can start
the PostgreSQL rows say why. BENCH_LADDER_DATABASES (sqlite,postgresql) picks the databases.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import SettingError, env_number, env_numbers, print_table

TEAMS = env_number("BENCH_LADDER_TEAMS", 30, minimum=2)
NODES = env_number("BENCH_LADDER_NODES", 300, minimum=50)
MATCHES = env_number("BENCH_LADDER_MATCHES", 6, minimum=1)
CONCURRENCY = env_numbers("BENCH_LADDER_CONCURRENCY", [1, 2], minimum=1)
DB_MATCHES = env_number("BENCH_LADDER_DB_MATCHES", 200, minimum=10)
DATABASES = os.environ.get("BENCH_LADDER_DATABASES", "sqlite,postgresql").split(",")
STRATEGIES = ("reference", "rusher", "random")


def _sandbox_mode() -> str:
    from server.sandbox import check_available

    return "bwrap" if check_available() is None else "none"


@contextlib.contextmanager
def _postgres() -> Iterator[tuple[Path, str] | str]:
    """The test suite's PostgreSQL server, or why there is none."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.postgres_kit import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as server:
            yield server
    except PostgresUnavailable as why:
        yield str(why)


def _ladder(url: str, folder: Path) -> Any:
    """A ladder of TEAMS teams in ``folder``, each with one active ``arena team`` version."""
    from server.ladder import schema as s
    from server.ladder.ladder import Ladder
    from server.ladder.roster import parse_roster

    roster = "team\n" + "".join(f"t{n}\n" for n in range(TEAMS))
    settings = {"tournament": {"name": "bench", "game": "dungeon", "match_seconds": 60,
                               "config": {"nodes": NODES, "radius": 0.1}}}  # fmt: skip
    ladder, _, _ = Ladder.create(
        folder, url, game="dungeon", roster=parse_roster(roster), settings=settings
    )
    empty = folder / "program"
    empty.mkdir()
    (empty / "README").write_text("the program is arena team, installed\n")
    digest = ladder.store.put_tree(empty)
    now = time.time()
    with ladder.engine.begin() as db:
        for number, (team_id,) in enumerate(db.execute(s.teams.select().with_only_columns(
            s.teams.c.id).order_by(s.teams.c.id))):  # fmt: skip
            command = [
                sys.executable, "-m", "arena", "team", "--host", "{host}", "--port", "{port}",
                "--team", "{team}", "--match", "{match}", "--token", "{token}",
                "--strategy", STRATEGIES[number % len(STRATEGIES)],
            ]  # fmt: skip
            db.execute(
                s.versions.insert().values(
                    team_id=team_id,
                    number=1,
                    content_hash=digest,
                    program_hash=digest,
                    files=1,
                    size=1,
                    command=json.dumps(command),
                    status="active",
                    submitted=now + number,
                    checked=now + number,
                )
            )
    return ladder


def throughput(url: str, concurrency: int, mode: str) -> list[object]:
    import trio

    from arena.tournament.players import PLAYERS
    from server.ladder import schema as s
    from server.ladder.runner import RunnerOptions, run_ladder

    with tempfile.TemporaryDirectory(prefix="bench-ladder-") as directory:
        ladder = _ladder(url, Path(directory) / "l")
        try:
            options = RunnerOptions(
                concurrency=concurrency, sandbox=mode, players=PLAYERS, matches=MATCHES
            )
            began = time.perf_counter()
            trio.run(run_ladder, ladder.engine, ladder.store, options)
            wall = time.perf_counter() - began
            with ladder.engine.begin() as db:
                results = [
                    json.loads(text)
                    for text in db.execute(
                        s.matches.select()
                        .with_only_columns(s.matches.c.result)
                        .where(s.matches.c.state == "done")
                    ).scalars()
                ]
        finally:
            ladder.close()
    median = statistics.median(r["seconds"] for r in results)
    failures = sum(len(r["failures"]) for r in results)
    return [concurrency, len(results), f"{wall:.1f}", f"{len(results) / wall * 3600:.0f}",
            f"{median:.2f}", failures]  # fmt: skip


def database_cost(url: str) -> list[object]:
    from server.ladder.play import MatchOutcome
    from server.ladder.queue import claim, top_up
    from server.ladder.results import finish

    samples = []
    with tempfile.TemporaryDirectory(prefix="bench-ladder-") as directory:
        ladder = _ladder(url, Path(directory) / "l")
        try:
            for _ in range(DB_MATCHES):
                began = time.perf_counter()
                top_up(ladder.engine, 3)
                claimed = claim(ladder.engine, "bench")
                assert claimed is not None
                names = [name for _, name, *_ in claimed.seats]
                record = {
                    "name": "m", "seats": names, "points": [1.0, 0.0], "failures": [],
                    "result": f"{names[0]} wins", "reason": "win", "seconds": 1.0,
                }  # fmt: skip
                files = {"logs/m.jsonl": "0" * 64, f"programs/m-{names[0]}.txt": "1" * 64}
                assert finish(ladder.engine, claimed, MatchOutcome(0, record, {}), files)
                samples.append(time.perf_counter() - began)
        finally:
            ladder.close()
    samples.sort()
    median = statistics.median(samples) * 1000
    p90 = samples[int(len(samples) * 0.9)] * 1000
    return [len(samples), f"{median:.2f}", f"{p90:.2f}", f"{1000 / median:.0f}"]


def main() -> None:
    from arena.logs import configure_logging

    unknown = [name for name in DATABASES if name not in ("sqlite", "postgresql")]
    if unknown:
        raise SettingError(
            f"BENCH_LADDER_DATABASES: wants sqlite and/or postgresql, got {unknown[0]!r}"
        )
    configure_logging(level="warning")
    mode = _sandbox_mode()
    rows: list[list[object]] = []
    costs: list[list[object]] = []
    with contextlib.ExitStack() as stack:
        for database in DATABASES:
            if database == "sqlite":
                folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
                urls = iter(f"sqlite:///{folder / f'{n}.db'}" for n in range(100))
            else:
                server = stack.enter_context(_postgres())
                if isinstance(server, str):
                    rows.append([database, "-", "-", "-", "-", "-", f"skipped: {server}"])
                    costs.append([database, "-", "-", "-", f"skipped: {server}"])
                    continue
                from tests.postgres_kit import fresh_database

                urls = iter(fresh_database(*server) for _ in range(100))
            rows.extend(
                [database, *throughput(next(urls), concurrency, mode)]
                for concurrency in CONCURRENCY
            )
            costs.append([database, *database_cost(next(urls))])
    print_table(
        f"ladder: {TEAMS} teams of arena team programs, {NODES}-node dungeons, sandbox {mode}",
        [
            "database",
            "concurrency",
            "matches",
            "wall s",
            "matches/hour",
            "median match s",
            "failures",
        ],
        rows,
        width=110,
    )
    print_table(
        "ladder: the database's cost of a match (queue, claim, record + ratings)",
        ["database", "matches", "median ms", "p90 ms", "matches/s"],
        costs, width=110,
    )  # fmt: skip


if __name__ == "__main__":
    main()
