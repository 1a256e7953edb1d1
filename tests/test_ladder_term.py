"""A term of a class ladder end to end, on SQLite and on a real PostgreSQL: six teams submit
over the web and from the command line, broken versions stay out with their reason, real
sandboxed matches run, a version submitted between runs plays at once, and the ratings and
grades.csv are those of the matches played."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
from sqlalchemy import select
from test_ladder_runner import assert_ratings_replay, done_matches
from test_ladder_web import multipart, post_bytes
from tournament_kit import sandbox_mode

from arena.tournament.players import PLAYERS
from server.ladder import schema as s
from server.ladder.ladder import Ladder
from server.ladder.roster import parse_roster
from server.ladder.runner import RunnerOptions, run_ladder
from server.ladder.submit import submit
from server.ladder.teacher import grades_csv
from server.ladder.web import LadderSite
from server.web import serve_web

STARTER = Path(__file__).resolve().parent.parent / "docs" / "starters" / "labyrinth_client.py"
BROKEN = b"import sys\nprint('gives up', file=sys.stderr)\nsys.exit(3)\n"


def cli_submit(folder: Path, token: str, program: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "ladder", "submit", "--dir", str(folder), "--token",
         token, "--sandbox", sandbox_mode(), str(program)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def program(root: Path, name: str, source: bytes) -> Path:
    """A team's folder holding ``client.py`` (the ladder's command for Labyrinth runs it)."""
    folder = root / name
    folder.mkdir()
    (folder / "client.py").write_bytes(source)
    return folder


def versions(ladder: Ladder) -> dict[tuple[str, int], tuple[str, str | None, str]]:
    """(team, number) -> (status, reason, source) of every version."""
    with ladder.engine.connect() as db:
        rows = db.execute(
            select(s.teams.c.name, s.versions.c.number, s.versions.c.status,
                   s.versions.c.reason, s.versions.c.source)
            .join(s.teams, s.teams.c.id == s.versions.c.team_id)
        ).all()  # fmt: skip
    return {
        (team, number): (status, reason, source) for team, number, status, reason, source in rows
    }


def players_of(ladder: Ladder) -> list[list[tuple[str, int]]]:
    """The (team, version number) of each seat of every done match, in the order finished."""
    with ladder.engine.connect() as db:
        names = {
            vid: (team, number)
            for vid, team, number in db.execute(
                select(s.versions.c.id, s.teams.c.name, s.versions.c.number).join(
                    s.teams, s.teams.c.id == s.versions.c.team_id
                )
            ).all()
        }
    return [[names[v] for v in seats] for _, seats, _ in done_matches(ladder.engine)]


@pytest.mark.slow
async def test_a_class_of_six_submits_over_the_web_and_the_shell_and_plays_a_term(
    database_url: str, tmp_path: Path
) -> None:
    roster = parse_roster("team,members\n" + "".join(f"{t},{t.upper()}\n" for t in "abcdef"))
    ladder, tokens, _ = Ladder.create(
        tmp_path / "cs", database_url, game="labyrinth", roster=roster,
        settings={"tournament": {"name": "term", "game": "labyrinth", "call_seconds": 5,
                                 "match_seconds": 60}},
    )  # fmt: skip
    good = STARTER.read_bytes()

    async def upload(ladder: Ladder, token: str, path: Path, address: str) -> Any:
        return await submit(
            ladder, token, path, players=PLAYERS, sandbox=sandbox_mode(), origin="web",
            address=address,
        )  # fmt: skip

    try:
        # a, b, c and e over the web (e first sends a broken version, then a good one).
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_web, LadderSite(ladder, upload).app(), "127.0.0.1", 0)
            for team, source, expected in (
                ("a", good, 200), ("b", good, 200), ("c", good, 200), ("e", BROKEN, 422),
                ("e", good, 200),
            ):  # fmt: skip
                kind, body = multipart({"token": tokens[team]}, "client.py", source)
                status, page = await post_bytes(port, "/submit", kind, body)
                assert status == expected, page
            nursery.cancel_scope.cancel()
        # d from the command line; f only ever sends a broken version.
        done = await trio.to_thread.run_sync(
            cli_submit, ladder.folder, tokens["d"], program(tmp_path, "d", good)
        )
        assert done.returncode == 0, done.stdout + done.stderr
        broken = await trio.to_thread.run_sync(
            cli_submit, ladder.folder, tokens["f"], program(tmp_path, "f", BROKEN)
        )
        assert broken.returncode == 1
        assert "pre-flight: crashed" in broken.stdout + broken.stderr
        assert "gives up" in broken.stdout + broken.stderr  # its output, shown to the student
        states = versions(ladder)
        assert {k: v[0] for k, v in states.items()} == {
            ("a", 1): "active", ("b", 1): "active", ("c", 1): "active", ("d", 1): "active",
            ("e", 1): "failed", ("e", 2): "active", ("f", 1): "failed",
        }  # fmt: skip
        assert {k: v[2] for k, v in states.items()}[("d", 1)] == "cli"
        assert {k: v[2] for k, v in states.items()}[("a", 1)] == "web"
        for key in (("e", 1), ("f", 1)):
            assert str(states[key][1]).startswith("pre-flight: crashed"), states[key]

        # Matches run two at a time; then a submits a new version, which plays first.
        options = RunnerOptions(concurrency=2, matches=4, sandbox=sandbox_mode())
        assert await run_ladder(ladder.engine, ladder.store, options) == 4
        again = await trio.to_thread.run_sync(
            cli_submit, ladder.folder, tokens["a"], program(tmp_path, "a2", good)
        )
        assert again.returncode == 0, again.stdout + again.stderr
        with ladder.engine.connect() as db:
            planned = max(db.execute(select(s.matches.c.id)).scalars())  # queued before it
        options = RunnerOptions(concurrency=2, matches=2, sandbox=sandbox_mode())
        assert await run_ladder(ladder.engine, ladder.store, options) == 2
    finally:
        ladder.close()

    ladder = Ladder.open(tmp_path / "cs", database_url)
    try:
        played = players_of(ladder)
        assert len(played) == 6
        everyone = {seat for match in played for seat in match}
        assert ("e", 1) not in everyone
        assert {team for team, _ in everyone} == {"a", "b", "c", "d", "e"}  # never f
        with ladder.engine.connect() as db:
            states = dict(db.execute(select(s.matches.c.id, s.matches.c.state)).all())
            failures = db.execute(select(s.seats.c.reason).where(s.seats.c.reason.is_not(None)))
            assert failures.first() is None  # the starters play cleanly
        assert list(states.values()).count("done") == 6
        assert "running" not in states.values()
        # The first match planned once a's new version passed is built around it (a new
        # version has no games: it goes first); a's old version plays no more (a match queued
        # with it before is void when its turn comes).
        ids = [match_id for match_id, _, _ in done_matches(ladder.engine)]
        later = [match for match_id, match in zip(ids, played, strict=True) if match_id > planned]
        assert later
        assert ("a", 2) in later[0]
        assert all(("a", 1) not in match for match in later)
        assert_ratings_replay(ladder.engine)
        rows = list(csv.DictReader(io.StringIO(grades_csv(ladder.engine))))
        assert [r["team"] for r in rows][-1] == "f"
        by_team = {r["team"]: r for r in rows}
        assert by_team["f"]["games"] == "0"
        assert (by_team["a"]["version"], by_team["e"]["version"]) == ("2", "2")
        for team, row in by_team.items():
            mine = [m for m in played if (team, int(row["version"] or 0)) in m]
            assert int(row["games"]) == len(mine), team
            assert int(row["wins"]) + int(row["draws"]) + int(row["losses"]) == len(mine)
        lows = [float(r["rating_low"]) for r in rows if r["games"] != "0"]
        assert lows == sorted(lows, reverse=True)
    finally:
        ladder.close()
