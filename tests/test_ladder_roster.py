"""The ladder's roster and credentials: a team per roster row, tokens shown once and stored as
hashes, checked in constant time, wrong ones rate limited; on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from server.ladder import schema
from server.ladder.auth import ATTEMPTS, WINDOW, authenticate
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.roster import RosterRow, parse_roster


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_roster_gives_one_team_per_row_with_its_other_columns() -> None:
    """The 'team' column names each team; the other columns are kept; blank lines skipped."""
    text = 'Team,Members,Email\nann,Ann Lee,ann@x\n\nbob-2,"Bo, Bi",b@x\n'
    assert parse_roster(text) == [
        RosterRow("ann", {"members": "Ann Lee", "email": "ann@x"}),
        RosterRow("bob-2", {"members": "Bo, Bi", "email": "b@x"}),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "class.csv: empty"),
        ("members\nann\n", "class.csv: line 1: no 'team' column"),
        ("team\n", "class.csv: no team (the header only)"),
        ("team,members\nann,a\nbob\n", "class.csv: line 3: 1 fields, the header has 2"),
        ("team\nann\nbad name\n", "class.csv: line 3: team 'bad name' wants 1-32 of"),
        ("team\nann\n" + "x" * 33 + "\n", "class.csv: line 3: team 'xxx"),
        ("team\nann\nbob\nANN\n", "class.csv: line 4: team 'ANN' again (first on line 2)"),
        ("team,team\nann,ann\n", "class.csv: line 1: empty or repeated column names"),
        ("team\n<script>\n", "class.csv: line 2: team '<script>' wants"),
        ("team\nann\x00\n", "class.csv: not a CSV text file"),
    ],
)
def test_a_malformed_roster_is_one_line_naming_the_row(text: str, message: str) -> None:
    with pytest.raises(LadderError) as caught:
        parse_roster(text, "class.csv")
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_init_stores_only_hashes_of_tokens_shown_once(database_url: str, tmp_path: Path) -> None:
    """Every team gets a distinct random token and the teacher an admin token; the database
    holds their SHA-256 only, and each token authenticates as its owner."""
    roster = parse_roster("team\nann\nbob\ncid\n")
    ladder, tokens, admin = Ladder.create(
        tmp_path / "cs312", database_url, game="dungeon", roster=roster, clock=Clock()
    )
    assert sorted(tokens) == ["ann", "bob", "cid"]
    assert len({*tokens.values(), admin}) == 4
    assert all(len(token) >= 40 for token in [*tokens.values(), admin])
    with ladder.engine.connect() as db:
        stored = db.execute(select(schema.tokens.c.token_hash)).scalars().all()
    assert sorted(stored) == sorted(
        hashlib.sha256(t.encode()).hexdigest() for t in [*tokens.values(), admin]
    )
    for name, token in tokens.items():
        assert authenticate(ladder.engine, token, "cli", 0.0).team == name
    assert authenticate(ladder.engine, admin, "cli", 0.0).role == "admin"
    ladder.close()


def test_opening_again_finds_the_database_init_was_given(database_url: str, tmp_path: Path) -> None:
    """--db given to init is remembered (ladder.json, owner-only) for every later command."""
    roster = parse_roster("team\nann\n")
    ladder, _, _ = Ladder.create(tmp_path / "l", database_url, game="penguins", roster=roster)
    ladder.close()
    manifest = tmp_path / "l" / "ladder.json"
    assert json.loads(manifest.read_text()) == {"db": database_url}
    assert manifest.stat().st_mode & 0o077 == 0
    again = Ladder.open(tmp_path / "l", None)
    assert again.status()["ladder"] == {"name": "l", "game": "penguins", "state": "running"}
    assert [team["team"] for team in again.status()["teams"]] == ["ann"]
    again.close()


def test_a_second_init_in_the_same_folder_is_refused(tmp_path: Path) -> None:
    roster = parse_roster("team\nann\n")
    ladder, _, _ = Ladder.create(tmp_path / "l", None, game="dungeon", roster=roster)
    ladder.close()
    with pytest.raises(LadderError, match="already holds a ladder"):
        Ladder.create(tmp_path / "l", None, game="dungeon", roster=roster)


def test_wrong_tokens_are_rate_limited_per_source(database_url: str, tmp_path: Path) -> None:
    """After ATTEMPTS wrong tokens in WINDOW seconds a source is refused, even with a right
    token, until the window passes; another source is not affected."""
    ladder, tokens, _ = Ladder.create(
        tmp_path / "l", database_url, game="dungeon", roster=parse_roster("team\nann\n")
    )
    now = 1000.0
    for attempt in range(ATTEMPTS):
        with pytest.raises(LadderError, match=r"^wrong token$"):
            authenticate(ladder.engine, f"guess-{attempt}", "10.0.0.9", now)
    with pytest.raises(LadderError, match=r"too many wrong tokens: try again in 59 s"):
        authenticate(ladder.engine, tokens["ann"], "10.0.0.9", now + 1)
    assert authenticate(ladder.engine, tokens["ann"], "10.0.0.7", now + 1).team == "ann"
    assert authenticate(ladder.engine, tokens["ann"], "10.0.0.9", now + WINDOW + 1).team == "ann"
    ladder.close()


def test_a_revoked_or_near_miss_token_is_refused(tmp_path: Path) -> None:
    """Only the exact token: one character off, a prefix, the hash itself, or a revoked one fail."""
    ladder, tokens, _ = Ladder.create(
        tmp_path / "l", None, game="dungeon", roster=parse_roster("team\nann\n")
    )
    token = tokens["ann"]
    digest = hashlib.sha256(token.encode()).hexdigest()
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), token[:20], digest, ""):
        with pytest.raises(LadderError, match="wrong token"):
            authenticate(ladder.engine, wrong, f"source-{wrong[:3]}", 0.0)
    with ladder.engine.begin() as db:
        db.execute(schema.tokens.update().values(revoked=True))
    with pytest.raises(LadderError, match="wrong token"):
        authenticate(ladder.engine, token, "cli", 0.0)
    ladder.close()


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "ladder", *args], cwd=cwd, capture_output=True,
        text=True, check=False, timeout=120,
    )  # fmt: skip


def test_init_from_the_command_line_prints_the_tokens_once(tmp_path: Path) -> None:
    """init prints team,token lines (a CSV for the teacher to hand out) and the admin token;
    status lists the teams; a malformed roster is one line and exit 2, nothing created."""
    (tmp_path / "class.csv").write_text("team,members\nann,Ann\nbob,Bob\n")
    done = _arena("init", "--game", "dungeon", "--roster", "class.csv", "--dir", "cs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "team,token"
    assert [line.split(",")[0] for line in lines[1:]] == ["ann", "bob", "ADMIN"]
    assert "shown once" in done.stderr
    status = _arena("status", "--dir", "cs", "--json", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    assert [(t["team"], t["active"], t["versions"]) for t in data["teams"]] == [
        ("ann", None, []),
        ("bob", None, []),
    ]
    (tmp_path / "bad.csv").write_text("team\nann\nann\n")
    bad = _arena("init", "--game", "dungeon", "--roster", "bad.csv", "--dir", "b", cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "arena ladder: bad.csv: line 3: team 'ann' again (first on line 2)"
    )
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["status", "--dir", "nowhere"], "arena ladder: --dir nowhere: no ladder here"),
        (
            ["init", "--game", "dungeon", "--roster", "missing.csv"],
            "--roster missing.csv: no such file",
        ),
        (["init", "--game", "chess", "--roster", "x.csv"], "argument --game: invalid choice"),
        (["status", "--db", "mysql://x/y"], "--db mysql://x/y: only sqlite:///PATH and postgresql"),
        (["submit", "prog"], "--token: missing"),
    ],
)
def test_bad_command_lines_are_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path
) -> None:
    done = _arena(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_late_teams_and_a_lost_token(database_url: str, tmp_path: Path) -> None:
    """The teacher adds teams mid-term (their tokens shown once) and replaces a lost token:
    the old one stops working at once; both need the admin token and are audited."""
    ladder, tokens, admin = Ladder.create(
        tmp_path / "l", database_url, game="dungeon", roster=parse_roster("team\nann\n")
    )
    with pytest.raises(LadderError, match="this needs the admin token"):
        ladder.add_teams(parse_roster("team\nzed\n"), tokens["ann"])
    late = ladder.add_teams(parse_roster("team\nzed\nyan\n"), admin)
    assert sorted(late) == ["yan", "zed"]
    assert authenticate(ladder.engine, late["zed"], "cli", 0.0).team == "zed"
    with pytest.raises(LadderError, match="team 'ANN': already in the ladder"):
        ladder.add_teams(parse_roster("team\nANN\n"), admin)
    fresh = ladder.reissue("ann", admin)
    assert authenticate(ladder.engine, fresh, "cli", 0.0).team == "ann"
    with pytest.raises(LadderError, match="wrong token"):
        authenticate(ladder.engine, tokens["ann"], "cli", 0.0)
    with pytest.raises(LadderError, match="no team 'bob' in the ladder"):
        ladder.reissue("bob", admin)
    with ladder.engine.connect() as db:
        actions = db.execute(select(schema.audit.c.action).order_by(schema.audit.c.id)).scalars()
        assert list(actions) == ["init", "add_teams", "reissue_token"]
    assert [team["team"] for team in ladder.status()["teams"]] == ["ann", "yan", "zed"]
    ladder.close()


def test_add_and_token_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "class.csv").write_text("team\nann\n")
    (tmp_path / "late.csv").write_text("team\nbob\n")
    made = _arena("init", "--game", "dungeon", "--roster", "class.csv", "--dir", "l", cwd=tmp_path)
    admin = dict(line.split(",") for line in made.stdout.splitlines())["ADMIN"]
    added = _arena("add", "--dir", "l", "--token", admin, "--roster", "late.csv", cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert [line.split(",")[0] for line in added.stdout.splitlines()] == ["team", "bob"]
    again = _arena("token", "bob", "--dir", "l", "--token", admin, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("bob,")
    refused = _arena("token", "bob", "--dir", "l", "--token", "x", cwd=tmp_path)
    assert (refused.returncode, refused.stderr) == (2, "arena ladder: wrong token\n")


def test_a_token_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--token -x...`` would read as a flag: a token starting with '-' is drawn again."""
    import secrets

    from server.ladder.auth import new_token
    from server.web import auth

    drawn = iter(["-first", "-second", "third"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda size: next(drawn))
    assert new_token() == "third"
    drawn = iter(["-gate", "gate"])
    monkeypatch.delenv(auth.ENV_TOKEN, raising=False)
    assert auth.TeacherGate.from_env(None).token == "gate"
