"""The ladder's continuous runner (server/ladder/runner.py, queue.py, results.py), on SQLite
and PostgreSQL: matches are queued, claimed, played and recorded once each, with their ratings
in the same transaction; lost matches are queued again; pause, freeze and resume; grades.csv.

Most tests play through a scripted :class:`Player` (the runner's bookkeeping is the subject);
``test_real_matches_are_played_and_rated`` plays real sandboxed Penguins programs."""

from __future__ import annotations

import csv
import io
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import Engine, func, select, update
from tournament_kit import sandbox_mode

from server.ladder import schema as s
from server.ladder.db import LadderError, open_database
from server.ladder.play import MatchJob, MatchLost, MatchOutcome
from server.ladder.queue import ATTEMPTS, claim, recover, top_up
from server.ladder.rating import Rating, rate
from server.ladder.results import finish
from server.ladder.runner import RunnerOptions, run_ladder
from server.ladder.store import Store
from server.ladder.teacher import GRADE_COLUMNS, grades, grades_csv, rerun, retire, set_state

STARTERS = Path(__file__).resolve().parent.parent / "docs" / "starters"


ENGINES: list[Engine] = []


@pytest.fixture(autouse=True)
def dispose_engines() -> Any:
    """Every engine a test opened is closed after it (no connection left to the collector)."""
    yield
    while ENGINES:
        ENGINES.pop().dispose()


def make_ladder(
    url: str, root: Path, teams: int, *, game: str = "penguins", table: dict[str, Any] | None = None
) -> tuple[Engine, Store, list[int]]:
    """A ladder of ``teams`` teams, each with one active version (the Penguins starter)."""
    engine = open_database(url)
    ENGINES.append(engine)
    store = Store(root / "store")
    folder = root / "starter"
    folder.mkdir(exist_ok=True)
    shutil.copy(STARTERS / "penguins_player.py", folder / "penguins_player.py")
    program = store.put_tree(folder)
    now = time.time()
    settings = {"tournament": {"rows": 5, "cols": 5, "call_seconds": 5, **(table or {})}}
    versions = []
    with engine.begin() as db:
        db.execute(
            s.ladder.insert().values(
                id=1, name="t", game=game, settings=json.dumps(settings), created=now, changed=now
            )
        )
        for number in range(teams):
            team = db.execute(
                s.teams.insert().values(name=f"team{number}", created=now)
            ).inserted_primary_key
            assert team is not None
            version = db.execute(
                s.versions.insert().values(
                    team_id=team[0],
                    number=1,
                    content_hash=program,
                    program_hash=program,
                    files=1,
                    size=1,
                    command=json.dumps(["./penguins_player.py"]),
                    status="active",
                    submitted=now + number,
                    checked=now + number,
                )
            ).inserted_primary_key
            assert version is not None
            versions.append(version[0])
    return engine, store, versions


class Scripted:
    """A player that plays nothing: the seat whose program name sorts first wins (team0 beats
    everyone), and records every job; ``lose`` matches are lost (MatchLost) that many times."""

    def __init__(self, lose: dict[int, int] | None = None, flip: int | None = None) -> None:
        self.jobs: list[MatchJob] = []
        self.lose = dict(lose or {})
        #: A match number whose result is the other way round (the last name wins).
        self.flip = flip

    def describe(self) -> str:
        return "scripted"

    async def play(self, job: MatchJob) -> MatchOutcome:
        self.jobs.append(job)
        await trio.sleep(0)
        if self.lose.get(job.number, 0) > 0:
            self.lose[job.number] -= 1
            raise MatchLost("KilledWorker: the worker died")
        names = [p.name for p in job.programs]
        best = max(names) if job.number == self.flip else min(names)
        points = [1.0 if name == best else 0.0 for name in names]
        record = {
            "name": f"ladder-{job.number}-0000", "seats": names, "points": points,
            "failures": [], "result": f"{best} wins", "reason": "win",
            "log": f"logs/ladder-{job.number}-0000.jsonl",
        }  # fmt: skip
        files = {f"logs/ladder-{job.number}-0000.jsonl": f"log of {job.number}".encode()}
        return MatchOutcome(job.number, record, files)


def done_matches(engine: Engine) -> list[tuple[int, list[int], list[float]]]:
    """Each done match: its id, versions in seat order and points, in the order finished."""
    with engine.begin() as db:
        rows = db.execute(
            select(s.matches.c.id, s.seats.c.version_id, s.seats.c.points)
            .join(s.seats, s.seats.c.match_id == s.matches.c.id)
            .where(s.matches.c.state == "done")
            .order_by(s.matches.c.finished, s.matches.c.id, s.seats.c.seat)
        ).all()
    out: dict[int, tuple[int, list[int], list[float]]] = {}
    for match_id, version, points in rows:
        out.setdefault(match_id, (match_id, [], []))
        out[match_id][1].append(version)
        out[match_id][2].append(points)
    return list(out.values())


def stored_ratings(engine: Engine) -> dict[int, dict[str, Any]]:
    with engine.begin() as db:
        return {r["version_id"]: dict(r) for r in db.execute(select(s.ratings)).mappings()}


def assert_ratings_replay(engine: Engine) -> None:
    """The stored ratings and W/D/L are those of the done matches replayed in order."""
    current: dict[int, Rating] = {}
    games: dict[int, list[int]] = {}
    for _, versions, points in done_matches(engine):
        after = rate([current.get(v, Rating()) for v in versions], points)
        for version, rating, score in zip(versions, after, points, strict=True):
            current[version] = rating
            tally = games.setdefault(version, [0, 0, 0])
            first = score == max(points)  # a win, or a draw when the first place is shared
            tally[(0 if points.count(score) == 1 else 1) if first else 2] += 1
    stored = stored_ratings(engine)
    assert set(stored) == set(current)
    for version, rating in current.items():
        row = stored[version]
        assert (row["mu"], row["sigma"]) == pytest.approx((rating.mu, rating.sigma))
        assert row["games"] == sum(games[version])
        assert [row["wins"], row["draws"], row["losses"]] == games[version]


async def test_matches_are_played_once_and_rated_in_order(
    database_url: str, tmp_path: Path
) -> None:
    """Two at a time, 12 matches of 4 teams: each recorded done once, every pair met, the
    ratings those of the matches replayed, team0 (which always wins) on top of the grades."""
    engine, store, versions = make_ladder(database_url, tmp_path, 4)
    player = Scripted()
    options = RunnerOptions(concurrency=2, player=player, matches=12)
    assert await run_ladder(engine, store, options) == 12
    done = done_matches(engine)
    assert len(done) == 12
    assert sorted(job.number for job in player.jobs) == sorted(m for m, *_ in done)
    assert {tuple(sorted(v)) for _, v, _ in done} == {
        (a, b) for a in versions for b in versions if a < b
    }
    assert_ratings_replay(engine)
    table = grades(engine)
    assert next(row["team"] for row in table) == "team0"
    assert table[0]["wins"] == stored_ratings(engine)[versions[0]]["games"]
    with engine.begin() as db:
        logs = set(db.execute(select(s.matches.c.log_hash).where(s.matches.c.state == "done")))
    assert all(store.read(digest).startswith(b"log of ") for (digest,) in logs)


async def test_a_lost_match_is_queued_again_then_given_up(
    database_url: str, tmp_path: Path
) -> None:
    """A match lost once is played again and counted once; lost every time, it fails after
    ATTEMPTS starts and changes no rating."""
    engine, store, _ = make_ladder(database_url, tmp_path, 2)
    player = Scripted(lose={1: 1, 2: ATTEMPTS})
    await run_ladder(engine, store, RunnerOptions(player=player, matches=2))
    with engine.begin() as db:
        rows = {r["id"]: r for r in db.execute(select(s.matches)).mappings()}
    assert (rows[1]["state"], rows[1]["attempts"]) == ("done", 2)
    assert (rows[2]["state"], rows[2]["attempts"]) == ("failed", ATTEMPTS)
    assert "KilledWorker" in rows[2]["why"]
    assert [job.number for job in player.jobs].count(2) == ATTEMPTS
    assert {m for m, *_ in done_matches(engine)} == {1, 3}
    assert_ratings_replay(engine)


async def test_pause_freeze_and_resume(database_url: str, tmp_path: Path) -> None:
    """Paused: nothing is queued or started. A match that ends while frozen is recorded but
    rates nobody. Resumed: matches start again."""
    engine, store, _ = make_ladder(database_url, tmp_path, 3)
    assert set_state(engine, "pause") == ("running", "paused")
    assert top_up(engine, 4) == 0
    assert claim(engine, "w") is None
    assert set_state(engine, "resume") == ("paused", "running")
    assert top_up(engine, 4) == 4
    claimed = claim(engine, "w")
    assert claimed is not None
    job = MatchJob(claimed.match_id, "penguins", claimed.seed, ())
    outcome = await Scripted().play(
        MatchJob(**{**job.__dict__, "programs": tuple(_programs(claimed))})
    )
    set_state(engine, "freeze")
    assert finish(engine, claimed, outcome, {}) is True
    assert stored_ratings(engine) == {}
    with engine.begin() as db:
        row = db.execute(select(s.matches).where(s.matches.c.id == claimed.match_id)).one()
        audit = [r.action for r in db.execute(select(s.audit.c.action).order_by(s.audit.c.id))]
    assert row.state == "done"
    assert json.loads(row.result)["rated"] is False
    assert audit == ["pause", "resume", "freeze"]
    assert claim(engine, "w") is None
    set_state(engine, "resume")
    await run_ladder(engine, store, RunnerOptions(player=Scripted(), matches=1))
    assert len(stored_ratings(engine)) == 2


def _programs(claimed: Any) -> list[Any]:
    from server.ladder.play import Program

    return [Program(name) for _, name, _, _ in claimed.seats]


async def test_a_claim_is_recorded_once(database_url: str, tmp_path: Path) -> None:
    """A match left running by a killed runner is queued again; the old claim, should it
    report late, records nothing; the new one records the match once."""
    engine, _store, _ = make_ladder(database_url, tmp_path, 2)
    top_up(engine, 1)
    first = claim(engine, "killed")
    assert first is not None
    assert claim(engine, "other") is None  # (one match queued, and it is taken)
    assert recover(engine) == [first.match_id]
    second = claim(engine, "new")
    assert second is not None
    assert second.match_id == first.match_id
    assert second.attempt == first.attempt + 1
    outcome = await Scripted().play(
        MatchJob(first.match_id, "penguins", first.seed, tuple(_programs(first)))
    )
    assert finish(engine, first, outcome, {}) is False
    assert finish(engine, second, outcome, {}) is True
    assert finish(engine, second, outcome, {}) is False
    assert [r["games"] for r in stored_ratings(engine).values()] == [1, 1]


async def test_a_retired_versions_queued_match_is_void(database_url: str, tmp_path: Path) -> None:
    """A queued match whose version was replaced is made void, not played."""
    engine, _store, versions = make_ladder(database_url, tmp_path, 3)
    top_up(engine, 3)
    with engine.begin() as db:
        db.execute(
            update(s.versions).where(s.versions.c.id == versions[0]).values(status="inactive")
        )
    claimed = []
    while (one := claim(engine, "w")) is not None:
        claimed.append(one)
    assert [sorted(v for v, *_ in c.seats) for c in claimed] == [versions[1:]]
    with engine.begin() as db:
        void = db.execute(select(s.matches.c.why).where(s.matches.c.state == "void")).scalars()
        assert list(void) == ["team0 v1 is inactive"] * 2


def test_grades_csv_columns_and_order(database_url: str, tmp_path: Path) -> None:
    """grades.csv: a header of the documented columns, one row per team, ranked by the
    rating's low end; a team that never played is there with the default rating."""
    engine, _, versions = make_ladder(database_url, tmp_path, 3)
    with engine.begin() as db:
        for version, (mu, sigma, games) in zip(versions, [(30, 1, 9), (32, 5, 2)], strict=False):
            db.execute(
                s.ratings.insert().values(
                    version_id=version,
                    mu=mu,
                    sigma=sigma,
                    games=games,
                    wins=games,
                    changed=0.0,
                )
            )
    rows = list(csv.DictReader(io.StringIO(grades_csv(engine))))
    assert list(rows[0]) == list(GRADE_COLUMNS)
    assert [(r["rank"], r["team"], r["rating_low"]) for r in rows] == [
        ("1", "team0", "28.0"), ("2", "team1", "22.0"), ("3", "team2", "8.333"),
    ]  # fmt: skip
    assert rows[2]["games"] == "0"


async def test_real_matches_are_played_and_rated(tmp_path: Path) -> None:
    """Three teams' sandboxed Penguins programs, two matches at once: each match's log and
    outputs are in the store and its result in the database, the ratings those replayed."""
    engine, store, _ = make_ladder(f"sqlite:///{tmp_path / 'l.db'}", tmp_path, 3)
    lines: list[str] = []
    options = RunnerOptions(concurrency=2, matches=3, sandbox=sandbox_mode(), status=lines.append)
    assert await run_ladder(engine, store, options) == 3
    assert_ratings_replay(engine)
    with engine.begin() as db:
        results = [json.loads(r) for r in db.execute(select(s.matches.c.result)).scalars() if r]
        outputs = list(db.execute(select(s.seats.c.output_hash)).scalars())
    assert len(results) == 3
    assert all(r["failures"] == [] for r in results)
    assert all(b"penguins_player.py" in store.read(d) for d in outputs if d is not None)
    assert sum(1 for line in lines if " done: " in line) == 3


async def test_a_rerun_replaces_the_result_and_the_ratings(
    database_url: str, tmp_path: Path
) -> None:
    """A re-run match is played again with the same seed and versions; once done, the old one
    is void (kept, saying by which it was replaced) and the ratings are those of the done
    matches replayed, as if the old result had never been."""
    engine, store, _ = make_ladder(database_url, tmp_path, 3)
    await run_ladder(engine, store, RunnerOptions(player=Scripted(), matches=3))
    before = stored_ratings(engine)
    set_state(engine, "pause")  # (only the re-run is played)
    new = rerun(engine, 1, "the teacher saw a network fault")
    set_state(engine, "resume")
    with engine.begin() as db:
        db.execute(update(s.matches).where(s.matches.c.state == "queued", s.matches.c.id != new)
                   .values(state="void"))  # fmt: skip
    player = Scripted(flip=new)
    await run_ladder(engine, store, RunnerOptions(player=player, matches=1))
    assert [job.number for job in player.jobs] == [new]
    with engine.begin() as db:
        rows = {r["id"]: r for r in db.execute(select(s.matches)).mappings()}
        audit = [r.action for r in db.execute(select(s.audit.c.action))]
    assert (rows[1]["state"], rows[1]["why"]) == ("void", f"replaced by match {new}")
    assert (rows[new]["state"], rows[new]["replaces"]) == ("done", 1)
    assert rows[new]["seed"] == rows[1]["seed"]
    assert "rerun" in audit
    assert_ratings_replay(engine)
    assert stored_ratings(engine) != before
    with pytest.raises(LadderError, match="no such match"):
        rerun(engine, 999, "x")
    with pytest.raises(LadderError, match="not finished"):
        rerun(engine, _queue_one(engine), "x")


def _queue_one(engine: Engine) -> int:
    top_up(engine, 1)
    with engine.begin() as db:
        queued = select(func.min(s.matches.c.id)).where(s.matches.c.state == "queued")
        return int(db.execute(queued).scalar_one())


def test_a_retired_version_plays_no_more(database_url: str, tmp_path: Path) -> None:
    """Retired, a version's queued matches are void and it is scheduled no more."""
    engine, _, versions = make_ladder(database_url, tmp_path, 3)
    top_up(engine, 3)
    retire(engine, versions[2], "copied code")
    claimed = []
    while (one := claim(engine, "w")) is not None:
        claimed.append(sorted(v for v, *_ in one.seats))
    assert claimed == [versions[:2]]
    assert top_up(engine, 2) == 2
    fresh = claim(engine, "w")
    assert fresh is not None
    assert versions[2] not in [v for v, *_ in fresh.seats]
    with engine.begin() as db:
        version = db.execute(select(s.versions).where(s.versions.c.id == versions[2])).one()
    assert (version.status, version.reason) == ("retired", "copied code")
    with pytest.raises(LadderError, match="no such version"):
        retire(engine, 999, "x")
    with pytest.raises(LadderError, match="not a ladder state"):
        set_state(engine, "explode")


def fish_ladder(url: str, root: Path, teams: int) -> tuple[Engine, Store]:
    """A Fish ladder (two seats, a 3x3 board) of ``teams`` copies of the Fish starter."""
    engine, store, _ = make_ladder(
        url, root, teams, game="fish", table={"players_per_game": 2, "rows": 3, "cols": 3}
    )
    folder = root / "fish"
    folder.mkdir()
    shutil.copy(STARTERS / "fish_client.py", folder / "client.py")
    program = store.put_tree(folder)
    command = json.dumps(["python3", "client.py", "{host}", "{port}", "{name}"])
    with engine.begin() as db:
        db.execute(
            update(s.versions).values(program_hash=program, content_hash=program, command=command)
        )
    return engine, store


async def test_a_dask_ladder_plays_the_local_ladders_matches(
    tmp_path: Path, dask_scheduler: str
) -> None:
    """The same class run by Dask workers and on this machine: the same matches (seats, seeds)
    with the same results and ratings."""
    from server.ladder.play import DaskPlayer

    runs = []
    for where in ("local", "dask"):
        engine, store = fish_ladder(f"sqlite:///{tmp_path / where}.db", tmp_path / where, 3)
        player = DaskPlayer(dask_scheduler) if where == "dask" else None
        options = RunnerOptions(matches=3, sandbox=sandbox_mode())
        if player is not None:
            options.player = player
        try:
            await run_ladder(engine, store, options)
        finally:
            if player is not None:
                await player.close()
        with engine.begin() as db:
            matches = [
                (r.id, r.seed, json.loads(r.result)["seats"], json.loads(r.result)["points"],
                 json.loads(r.result)["result"])
                for r in db.execute(select(s.matches).where(s.matches.c.state == "done"))
            ]  # fmt: skip
        runs.append((matches, stored_ratings(engine)))
    (local, local_ratings), (dask, dask_ratings) = runs
    assert len(local) == 3
    assert all(result.endswith("fish)") for *_, result in local)  # (played, nobody failed)
    assert dask == local
    assert {v: (r["mu"], r["sigma"]) for v, r in dask_ratings.items()} == {
        v: (r["mu"], r["sigma"]) for v, r in local_ratings.items()
    }


async def test_a_program_missing_from_the_store_fails_its_matches_not_the_runner(
    database_url: str, tmp_path: Path
) -> None:
    """A version whose files cannot be read (the store lost them): its matches are tried
    again, then failed with the reason (and count as played, so the others are scheduled); the
    runner goes on with the others."""
    engine, store, versions = make_ladder(database_url, tmp_path, 3)
    with engine.begin() as db:
        db.execute(
            update(s.versions).where(s.versions.c.id == versions[0]).values(program_hash="0" * 64)
        )
    await run_ladder(engine, store, RunnerOptions(player=Scripted(), matches=2))
    with engine.begin() as db:
        rows = list(db.execute(select(s.matches).where(s.matches.c.state == "failed")))
    assert rows
    assert all(row.attempts == ATTEMPTS for row in rows)
    assert all(row.why.startswith("StoreError: ") for row in rows)
    assert [versions[0] in seated for _, seated, _ in done_matches(engine)] == [False, False]


@pytest.mark.parametrize(
    ("teams", "state", "said"),
    [
        (3, "pause", "ladder paused: no match starts until arena ladder resume"),
        (3, "freeze", "ladder frozen: no match starts until arena ladder resume"),
        (1, "resume", "waiting for versions: 1 team(s) with an active version, a match needs 2"),
    ],
)
async def test_an_idle_runner_says_why(tmp_path: Path, teams: int, state: str, said: str) -> None:
    """A runner that can start nothing says why (once, until it changes) and waits."""
    engine, store, _ = make_ladder(f"sqlite:///{tmp_path / 'l.db'}", tmp_path, teams)
    set_state(engine, state)
    lines: list[str] = []
    with trio.CancelScope() as scope:

        def status(line: str) -> None:
            lines.append(line)
            scope.cancel()

        await run_ladder(engine, store, RunnerOptions(player=Scripted(), status=status))
    assert lines == [said]
