"""``arena ladder run | pause | freeze | resume | grades`` as a teacher runs them: a runner killed
with SIGKILL mid-match loses nothing and counts nothing twice once restarted; bad input is one
line and exit 2."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from test_ladder_runner import assert_ratings_replay, done_matches

from server.ladder import schema as s
from server.ladder.ladder import Ladder
from server.ladder.roster import parse_roster

STARTERS = Path(__file__).resolve().parent.parent / "docs" / "starters"
#: Two-player Fish games on a small board: a few seconds a match.
FISH = {"name": "cs", "game": "fish", "players_per_game": 2, "rows": 3, "cols": 3,
        "connect_seconds": 30}  # fmt: skip

#: A Fish client that, in the first match it plays, tells the test it is under way (a FIFO)
#: and then waits to be let go; in every other match it is the starter.
HOLDER = """#!/usr/bin/env python3
import os, sys
if not os.path.exists({mark!r}):
    open({mark!r}, "w").close()
    with open({started!r}, "w") as fifo:
        fifo.write("playing")
    os.open({never!r}, os.O_RDONLY)
    sys.exit(0)
os.execv(sys.executable, [sys.executable, "fish_client.py", *sys.argv[1:]])
"""
STARTER = '#!/bin/sh\nexec python3 fish_client.py "$@"\n'


def arena(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "ladder", *argv],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def make_class(folder: Path, db: str | None, programs: dict[str, Path]) -> None:
    """A Fish ladder in ``folder``: one team per program folder, each version active."""
    roster = "team\n" + "".join(f"{name}\n" for name in programs)
    ladder, _, _ = Ladder.create(
        folder, db, game="fish", roster=parse_roster(roster),
        settings={"tournament": dict(FISH)},
    )  # fmt: skip
    now = time.time()
    with ladder.engine.begin() as conn:
        ids = dict(conn.execute(select(s.teams.c.name, s.teams.c.id)).all())
        for name, program in programs.items():
            digest = ladder.store.put_tree(program)
            conn.execute(
                s.versions.insert().values(
                    team_id=ids[name],
                    number=1,
                    content_hash=digest,
                    program_hash=digest,
                    files=1,
                    size=1,
                    command=json.dumps(["./player.py", "{host}", "{port}", "{name}"]),
                    status="active",
                    submitted=now,
                    checked=now,
                )
            )
    ladder.close()


def program(folder: Path, source: str | None = None) -> Path:
    folder.mkdir(parents=True)
    shutil.copy(STARTERS / "fish_client.py", folder / "fish_client.py")
    player = folder / "player.py"
    player.write_text(source or STARTER)
    player.chmod(0o755)
    return folder


def test_kill_9_mid_match_then_restart_loses_and_doubles_nothing(
    database_url: str, tmp_path: Path
) -> None:
    """The runner is killed (SIGKILL) while its first match is being played; the next runner
    queues that match again, plays it (second attempt) and three matches in all: every match
    done once, none left running, the ratings those of the done matches, grades.csv right."""
    mark, started, never = (str(tmp_path / n) for n in ("mark", "started.fifo", "never.fifo"))
    os.mkfifo(started)
    os.mkfifo(never)
    source = HOLDER.format(mark=mark, started=started, never=never)
    programs = {
        "holder": program(tmp_path / "p" / "holder", source),
        "ann": program(tmp_path / "p" / "ann"),
        "bob": program(tmp_path / "p" / "bob"),
    }
    folder = tmp_path / "cs"
    db = database_url if database_url.startswith("postgresql") else None
    make_class(folder, db, programs)
    common = ["--dir", str(folder), *(["--db", db] if db else []), "--sandbox", "none"]
    runner = subprocess.Popen(
        [sys.executable, "-m", "arena", "ladder", "run", *common],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        with open(started) as fifo:  # the holder is in the middle of its first match
            assert fifo.read() == "playing"
        runner.kill()
        assert runner.wait() == -signal.SIGKILL
        assert runner.stdout is not None
        lines = runner.stdout.read().splitlines()
        assert any(line.startswith("match 1 started: ") for line in lines)
    finally:
        if runner.poll() is None:
            runner.kill()
        runner.wait()
        for stream in (runner.stdout, runner.stderr):
            if stream is not None:
                stream.close()
    # The orphaned holder may end: it waits to open this FIFO for reading, which returns once
    # a writer has it open. Opened read-write, it neither fails when the holder is not there
    # yet (a write-only open without a reader would: ENXIO) nor blocks; it stays open for the
    # rest of the test, so the holder's open returns whenever it comes.
    writer = os.open(never, os.O_RDWR)
    ladder = Ladder.open(folder, db)
    try:
        with ladder.engine.begin() as conn:
            first = conn.execute(select(s.matches).where(s.matches.c.id == 1)).one()
        assert (first.state, first.attempts) == ("running", 1)
        again = arena("run", *common, "--matches", "3")
        assert again.returncode == 0, again.stderr
        assert "requeued 1 (left running by a runner)" in again.stdout
        with ladder.engine.begin() as conn:
            rows = {r.id: r for r in conn.execute(select(s.matches))}
        assert (rows[1].state, rows[1].attempts) == ("done", 2)
        assert json.loads(rows[1].result)["failures"] == []  # (played in full the second time)
        assert "running" not in {r.state for r in rows.values()}
        assert len(done_matches(ladder.engine)) == 3
        assert_ratings_replay(ladder.engine)
        grades = arena("grades", *common[:-2], "--out", str(tmp_path / "grades.csv"))
        assert grades.returncode == 0, grades.stderr
        table = list(csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text())))
        assert sorted(r["team"] for r in table) == ["ann", "bob", "holder"]
        assert sum(int(r["games"]) for r in table) == 3 * 2
    finally:
        ladder.close()
        os.close(writer)


def test_pause_freeze_resume_and_their_lines(tmp_path: Path) -> None:
    """Each says the state it leaves the ladder in, and the one it was in."""
    folder = tmp_path / "cs"
    make_class(folder, None, {"ann": program(tmp_path / "ann"), "bob": program(tmp_path / "b")})
    where = ["--dir", str(folder)]
    assert arena("pause", *where).stdout == "ladder paused (was running)\n"
    assert arena("pause", *where).stdout == "ladder paused (already)\n"
    assert arena("freeze", *where).stdout == "ladder frozen (was paused)\n"
    assert arena("resume", *where).stdout == "ladder running (was frozen)\n"
    shown = arena("grades", *where)
    assert shown.stdout.splitlines()[0].startswith("rank,team,version,rating,")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--concurrency", "0"], "--concurrency: wants at least 1, got 0"),
        (["run", "--dask", "10.0.0.5:8786"], "--dask: wants tcp://HOST:PORT"),
        (["run", "--matches", "x"], "--matches: wants a whole number"),
        (["pause", "--dir", "{tmp}/none"], "no ladder here"),
        (["grades", "--out", "{tmp}/no/such/grades.csv"], "its folder does not exist"),
        (["grades", "--out", "{tmp}"], "a folder, not a file"),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path: Path, argv: list[str], message: str) -> None:
    """Each bad flag or folder: exit 2, one line on stderr naming it, no traceback."""
    folder = tmp_path / "cs"
    make_class(folder, None, {"ann": program(tmp_path / "ann"), "bob": program(tmp_path / "b")})
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if "--dir" not in argv:
        argv += ["--dir", str(folder)]
    done = arena(*argv)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
