"""The ladder's pages and commands against hostile or odd requests: numbers past what the
database holds, words where numbers go, teams that do not exist; each answered in one line (a
404 or a 400 naming what is wrong, exit 2 from the shell), never a server error or a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from web_client import http

from server.ladder import schema as s
from server.ladder.ladder import Ladder
from server.ladder.roster import parse_roster
from tests.test_ladder_web import (  # noqa: F401  (the served class)
    Class,
    bearer,
    multipart,
    played,
    post_bytes,
)

#: Past a 64-bit integer: neither SQLite nor PostgreSQL can hold it.
HUGE = "99999999999999999999999"


@pytest.mark.parametrize(
    "path",
    [
        f"/matches/{HUGE}",
        f"/matches/{HUGE}/replay",
        f"/matches/{HUGE}/log",
        f"/matches/{HUGE}/output/0",
        "/matches/2147483648",  # one past the largest id PostgreSQL holds
    ],
)
async def test_a_match_number_past_the_database_is_not_found(
    played: Class,  # noqa: F811
    path: str,
) -> None:
    status, _, body = await http(played.port, path)
    assert status == 404
    assert "Not found" in body


@pytest.mark.parametrize(
    ("path", "form", "says"),
    [
        ("/admin/rerun", f"match={HUGE}&why=busy", f"match {HUGE}: no such match"),
        ("/admin/rerun", "match=%C2%B2&why=busy", "a re-run needs a match number"),
        ("/admin/retire", f"version=ann/{HUGE}&why=copied", f"ann has no version {HUGE}"),
        ("/admin/retire", "version=ann/%C2%B2&why=copied", "retiring needs a version"),
    ],
)
async def test_the_teachers_forms_refuse_odd_numbers_in_one_line(
    played: Class,  # noqa: F811
    path: str,
    form: str,
    says: str,
) -> None:
    status, _, page = await http(played.port, path, "POST", form, headers=bearer(played.admin))
    assert status == 400
    assert says in page


@pytest.mark.parametrize("name", ["%C5%81ukasz", "a%0D%0ASet-Cookie:%20x=1"])
async def test_logging_in_at_the_page_of_no_team_is_not_found(
    played: Class,  # noqa: F811
    name: str,
) -> None:
    """Even with the teacher's token (which every team page accepts), a team that is not in
    the ladder has no page to lead to."""
    status, headers, body = await http(
        played.port, f"/teams/{name}/login", "POST", f"token={played.admin}"
    )  # fmt: skip
    assert status == 404
    assert "no team" in body
    assert "set-cookie" not in headers


def test_the_shell_refuses_numbers_past_the_database_in_one_line(tmp_path: Path) -> None:
    ladder, tokens, _ = Ladder.create(
        tmp_path / "l", None, game="penguins", roster=parse_roster("team\nann\n")
    )
    ladder.close()

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "ladder", *args, "--dir", str(tmp_path / "l")],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    for args in (
        ("rerun", HUGE, "--why", "busy"),
        ("retire", "ann", HUGE, "--why", "copied"),
        ("show", "--token", tokens["ann"], HUGE),
    ):
        done = arena(*args)
        assert done.returncode == 2, args
        assert "Traceback" not in done.stderr
        assert HUGE in done.stderr.strip().splitlines()[-1]


async def test_a_form_sent_with_no_file_chosen_records_no_version(
    played: Class,  # noqa: F811
) -> None:
    """A browser sends an empty part named ``filename=""`` when no file was chosen: that is
    no program, not a version that fails its pre-flight."""
    kind, body = multipart({"token": played.tokens["cat"]}, "", b"")
    status, page = await post_bytes(played.port, "/submit", kind, body)
    assert status == 400
    assert "the form has no program file" in page
    with played.ladder.engine.connect() as db:
        assert db.execute(select(s.versions.c.id).where(s.versions.c.number > 1)).first() is None
