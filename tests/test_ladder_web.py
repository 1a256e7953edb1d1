"""The ladder's pages over loopback, on SQLite and PostgreSQL: the ladder ranked as grades.csv
ranks it, team pages, a team's output only with its token, the teacher's page behind the admin
token and CSRF, uploads (with a size cap), re-runs, retirements, bundles, the live view; and, in
a real headless Chromium, a class's pages as a student and a teacher see them."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import sys
import time
import zipfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from cdp import CHROMIUM, Browser
from sqlalchemy import select
from web_client import first_events, http

from arena.tournament.players import PLAYERS
from server.ladder import schema as s
from server.ladder.db import LadderError
from server.ladder.ladder import Ladder
from server.ladder.play import MatchJob, MatchOutcome
from server.ladder.roster import parse_roster
from server.ladder.runner import RunnerOptions, run_ladder
from server.ladder.submit import submit
from server.ladder.teacher import grades
from server.ladder.web import LadderSite
from server.web import serve_web
from tests.tournament_kit import sandbox_mode

STARTERS = Path(__file__).resolve().parent.parent / "docs" / "starters"
#: What a losing program printed and why it lost: text the pages must show, never run.
HOSTILE = "<script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


class Played:
    """A player of scripted matches: the seat whose program name sorts first wins; the loser
    crashed (its detail and output hostile); each match leaves a log, outputs, a replay page."""

    def describe(self) -> str:
        return "scripted"

    async def play(self, job: MatchJob) -> MatchOutcome:
        await trio.sleep(0)
        names = [program.name for program in job.programs]
        best = min(names)
        name = f"ladder-{job.number}-0000"
        record = {
            "name": name, "seats": names, "points": [float(n == best) for n in names],
            "failures": [
                {"seat": seat, "team": n, "reason": "crashed", "detail": HOSTILE}
                for seat, n in enumerate(names) if n != best
            ],
            "result": f"{best} wins", "reason": "win", "log": f"logs/{name}.jsonl",
            "replay": f"replays/{name}.html",
            "cpu": {
                n: {"seconds": 1.5 + seat, "requests": 30, "per_request": 0.041 + seat / 1000}
                for seat, n in enumerate(names)
            },
        }  # fmt: skip
        files = {
            f"logs/{name}.jsonl": f'{{"match": {job.number}}}\n'.encode(),
            f"replays/{name}.html": f"<html><body><h1>replay {job.number}</h1>".encode(),
            **{f"programs/{name}-{n}.txt": f"{n} says {HOSTILE}".encode() for n in names},
        }
        return MatchOutcome(job.number, record, files)


@dataclass
class Class:
    ladder: Ladder
    tokens: dict[str, str]
    admin: str
    port: int


def _activate(ladder: Ladder, root: Path) -> None:
    """Each team gets an active version (the Penguins starter), its build output stored."""
    folder = root / "starter"
    folder.mkdir()
    shutil.copy(STARTERS / "penguins_player.py", folder / "penguins_player.py")
    program = ladder.store.put_tree(folder)
    output = ladder.store.put(f"built fine {HOSTILE}".encode())
    now = time.time()
    with ladder.engine.begin() as db:
        for number, team in enumerate(db.execute(select(s.teams.c.id)).scalars()):
            db.execute(
                s.versions.insert().values(
                    team_id=team, number=1, content_hash=program, program_hash=program, files=1,
                    size=1, command=json.dumps(["./penguins_player.py"]), status="active",
                    build_output_hash=output, submitted=now + number, checked=now + number,
                    preflight=json.dumps({"passed": True}),
                )
            )  # fmt: skip


async def _upload(ladder: Ladder, token: str, path: Path, address: str) -> Any:
    return await submit(
        ladder, token, path, players=PLAYERS, sandbox=sandbox_mode(), origin="web",
        address=address,
    )  # fmt: skip


@pytest.fixture
async def played(database_url: str, tmp_path: Path) -> AsyncIterator[Class]:
    """A class of three teams that played six scripted matches, its pages served."""
    ladder, tokens, admin = Ladder.create(
        tmp_path / "cs312", database_url, game="penguins",
        roster=parse_roster("team\nann\nbob\ncat\n"),
        settings={
            "tournament": {"name": "cs312", "game": "penguins", "rows": 5, "cols": 5},
            "command": [sys.executable, "player.py"],
        },
    )  # fmt: skip
    _activate(ladder, tmp_path)
    assert await run_ladder(
        ladder.engine, ladder.store, RunnerOptions(player=Played(), matches=6, idle_seconds=0)
    ) == 6  # fmt: skip
    site = LadderSite(ladder, submit=_upload)
    try:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(serve_web, site.app(), "127.0.0.1", 0)
            yield Class(ladder, tokens, admin, port)
            nursery.cancel_scope.cancel()
    finally:
        ladder.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def cookie_of(headers: dict[str, str]) -> str:
    return headers["set-cookie"].split(";", 1)[0]


async def test_the_ladder_page_ranks_as_the_grades_do_and_escapes_what_programs_wrote(
    played: Class,
) -> None:
    status, _, body = await http(played.port, "/")
    assert status == 200
    ranked = re.findall(r"<td class='num'>(\d+)</td><td><a href='/teams/(\w+)'>", body)
    assert [team for _, team in ranked] == [row["team"] for row in grades(played.ladder.engine)]
    assert [int(rank) for rank, _ in ranked] == [1, 2, 3]
    assert "6 matches played" in body
    assert "rating \u00b1 interval" in body
    assert "95% confidence" in body
    assert "<script>window.pwned" not in body
    _, _, team_page = await http(played.port, "/teams/ann")
    assert "ann won" in team_page  # ann's program name sorts first: it wins every match
    # Fair time: the CPU each program used, per match, from its team's side.
    assert re.search(r"<td>\d\.5 CPU-s, 4[12] ms a move</td>", team_page)
    _, _, match = await http(played.port, "/matches/1")
    assert "<td>1.5 CPU-s, 41 ms a move</td>" in match
    assert "<td>2.5 CPU-s, 42 ms a move</td>" in match
    assert "<script>window.pwned" not in team_page


async def test_a_teams_output_opens_with_its_own_token_only(played: Class) -> None:
    status, _, body = await http(played.port, "/teams/bob/versions/1")
    assert status == 403
    assert "built fine" not in body
    wrong = await http(
        played.port, "/teams/bob/login", "POST", f"token={played.tokens['ann']}"
    )  # fmt: skip
    assert wrong[0] == 403
    assert "this token is another team&#x27;s" in wrong[2]
    status, headers, _ = await http(
        played.port, "/teams/bob/login", "POST", f"token={played.tokens['bob']}"
    )  # fmt: skip
    assert status == 303
    mine = {"Cookie": cookie_of(headers)}
    status, _, body = await http(played.port, "/teams/bob/versions/1", headers=mine)
    assert status == 200
    assert "built fine &lt;script&gt;" in body
    assert "<script>window.pwned" not in body
    # The match page links bob's own output, not ann's; ann's output stays closed to bob.
    _, _, match = await http(played.port, "/matches/1", headers=mine)
    seats = dict(re.findall(r"<td>(\d)</td><td><a href='/teams/(\w+)'>", match))
    bob_seat, ann_seat = (int(k) for k in sorted(seats, key=lambda k: seats[k] != "bob"))
    assert f"/matches/1/output/{bob_seat}" in match
    assert f"/matches/1/output/{ann_seat}" not in match
    status, _, text = await http(played.port, f"/matches/1/output/{bob_seat}", headers=mine)
    assert status == 200
    assert "says &lt;script&gt;" in text
    assert (await http(played.port, f"/matches/1/output/{ann_seat}", headers=mine))[0] == 403
    # Logging out (a lab machine the next student uses) drops the cookie in this browser.
    _, _, page = await http(played.port, "/teams/bob", headers=mine)
    assert "action='/teams/bob/logout'" in page
    status, headers, _ = await http(played.port, "/teams/bob/logout", "POST", "", headers=mine)
    assert status == 303
    assert headers["location"] == "/teams/bob"
    assert 'arena_team=""' in headers["set-cookie"]
    assert "Max-Age=0" in headers["set-cookie"]
    # The teacher sees everything.
    teacher = bearer(played.admin)
    assert (await http(played.port, f"/matches/1/output/{ann_seat}", headers=teacher))[0] == 200


async def test_a_teams_login_lasts_twelve_hours_and_its_expiry_is_signed(played: Class) -> None:
    """The team's cookie says how long it lasts (Max-Age), and the server refuses it after
    that, or with its expiry moved: a copied cookie does not open the team's output for good."""
    now = [time.time()]
    site = LadderSite(played.ladder, submit=_upload, clock=lambda: now[0])
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, site.app(), "127.0.0.1", 0)
        body = f"token={played.tokens['bob']}"
        status, headers, _ = await http(port, "/teams/bob/login", "POST", body)
        assert status == 303
        assert "Max-Age=43200" in headers["set-cookie"]
        value = cookie_of(headers)
        assert (await http(port, "/teams/bob/versions/1", headers={"Cookie": value}))[0] == 200
        name_and_expiry, _, mac = value.rpartition(":")
        later = int(name_and_expiry.rsplit(":", 1)[1]) + 86400
        moved = {"Cookie": f"arena_team=bob:{later}:{mac}"}
        assert (await http(port, "/teams/bob/versions/1", headers=moved))[0] == 403
        now[0] += 12 * 3600 - 5
        assert (await http(port, "/teams/bob/versions/1", headers={"Cookie": value}))[0] == 200
        now[0] += 10
        status, _, page = await http(port, "/teams/bob/versions/1", headers={"Cookie": value})
        assert status == 403
        assert "built fine" not in page
        # A new token for bob (its old one leaked: arena ladder token) ends the old one's login.
        now[0] = time.time()
        status, headers, _ = await http(port, "/teams/bob/login", "POST", body)
        fresh = {"Cookie": cookie_of(headers)}
        assert (await http(port, "/teams/bob/versions/1", headers=fresh))[0] == 200
        await trio.to_thread.run_sync(played.ladder.reissue, "bob", played.admin)
        assert (await http(port, "/teams/bob/versions/1", headers=fresh))[0] == 403
        nursery.cancel_scope.cancel()


async def test_a_teams_logout_ends_every_login_of_the_team_made_before_it(played: Class) -> None:
    """A copy of the team's cookie (another machine, a lab PC it was copied to) opens nothing
    once the team logged out; a fresh login works; another team's login, and a logout sent
    without the team's cookie, change nothing."""

    async def login(team: str) -> dict[str, str]:
        body = f"token={played.tokens[team]}"
        status, headers, _ = await http(played.port, f"/teams/{team}/login", "POST", body)
        assert status == 303
        return {"Cookie": cookie_of(headers)}

    async def opens(team: str, cookie: dict[str, str]) -> bool:
        status, _, _ = await http(played.port, f"/teams/{team}/versions/1", headers=cookie)
        assert status in (200, 403)
        return status == 200

    lab, laptop, ann = await login("bob"), await login("bob"), await login("ann")
    copied = dict(lab)
    # Someone without bob's cookie (ann's, or none) cannot log bob out.
    for stranger in (ann, {}):
        status, _, _ = await http(played.port, "/teams/bob/logout", "POST", "", headers=stranger)
        assert status == 303
    assert await opens("bob", copied)
    status, headers, _ = await http(played.port, "/teams/bob/logout", "POST", "", headers=lab)
    assert status == 303
    assert "Max-Age=0" in headers["set-cookie"]
    assert not await opens("bob", copied)
    assert not await opens("bob", laptop)  # every login of bob's made before the logout
    assert await opens("ann", ann)
    _, _, page = await http(played.port, "/teams/bob", headers=copied)
    assert "action='/teams/bob/login'" in page
    assert "action='/teams/bob/logout'" not in page
    fresh = await login("bob")
    assert await opens("bob", fresh)
    assert not await opens("bob", copied)
    # The teacher's logout ends that session for every copy of its cookie, and no team's login.
    status, headers, _ = await http(played.port, "/login", "POST", f"token={played.admin}")
    teacher = {"Cookie": cookie_of(headers)}
    _, _, page = await http(played.port, "/teams/bob", headers=dict(teacher))
    assert "as the teacher" in page
    assert "action='/teams/bob/logout'" not in page  # the teacher is not logged in as bob
    _, _, admin = await http(played.port, "/admin", headers=dict(teacher))
    csrf = re.search(r"name='csrf' value='([0-9a-f]+)'", admin)
    assert csrf is not None
    status, _, _ = await http(played.port, "/logout", "POST", f"csrf={csrf[1]}", headers=teacher)
    assert status == 303
    status, headers, _ = await http(played.port, "/admin", headers=dict(teacher))
    assert (status, headers["location"]) == (303, "/login")
    assert await opens("bob", fresh)


async def test_wrong_team_tokens_are_rate_limited(played: Class) -> None:
    """Five wrong tokens from one address, then even the right one waits: 429, Retry-After."""
    statuses = [
        (await http(played.port, "/teams/ann/login", "POST", "token=nope"))[0] for _ in range(5)
    ]
    assert statuses == [401] * 5
    status, headers, body = await http(
        played.port, "/teams/ann/login", "POST", f"token={played.tokens['ann']}"
    )  # fmt: skip
    assert status == 429
    assert 1 <= int(headers["retry-after"]) <= 60
    assert "too many wrong tokens" in body


async def test_a_match_page_links_its_replay_and_log(played: Class) -> None:
    _, _, body = await http(played.port, "/matches/2")
    assert "/matches/2/replay" in body
    assert "/matches/2/log" in body
    status, _, replay = await http(played.port, "/matches/2/replay")
    assert status == 200
    assert "<h1>replay 2</h1>" in replay
    assert "back to the ladder" in replay  # the way back from the replay
    status, headers, log = await http(played.port, "/matches/2/log")
    assert status == 200
    assert json.loads(log) == {"match": 2}
    assert "attachment" in headers["content-disposition"]
    assert (await http(played.port, "/matches/99"))[0] == 404


def _replace_replay(played: Class, match: int, html: str) -> None:
    """Match ``match``'s replay page becomes ``html`` (as the adapter would have written it)."""
    digest = played.ladder.store.put(html.encode())
    with played.ladder.engine.begin() as db:
        result = json.loads(
            db.execute(select(s.matches.c.result).where(s.matches.c.id == match)).scalar()
        )
        result["files"][result["replay"]] = digest
        db.execute(
            s.matches.update().where(s.matches.c.id == match).values(result=json.dumps(result))
        )


async def test_a_tournament_viewers_way_back_leads_to_the_ladder(
    played: Class, tmp_path: Path
) -> None:
    """A match's replay page is the tournament's viewer, whose "standings" link is
    ../index.html (a 404 under /matches/N/): the ladder points it at the ladder instead, and
    adds no bar of its own over the viewer's full-window layout."""
    from replay_logs import sim_log

    from server.competition.report import write_replay

    write_replay(sim_log(tmp_path / "m.jsonl", seed=4), tmp_path / "m.html", ("ann", "bob"))
    _replace_replay(played, 3, (tmp_path / "m.html").read_text())
    status, _, replay = await http(played.port, "/matches/3/replay")
    assert status == 200
    assert '"standings":"/"' in replay
    assert "../index.html" not in replay
    assert "ladder-back" not in replay


async def test_the_teachers_page_needs_the_admin_token_and_its_csrf(played: Class) -> None:
    status, headers, _ = await http(played.port, "/admin")
    assert status == 303
    assert headers["location"] == "/login"
    # A team's token is not the teacher's.
    assert (await http(played.port, "/admin", headers=bearer(played.tokens["ann"])))[0] == 303
    assert (await http(played.port, "/admin/state", "POST", "action=pause"))[0] == 401
    assert (await http(played.port, "/admin/grades.csv"))[0] == 401
    # Logged in with a cookie, a form without the page's CSRF token is refused.
    status, headers, _ = await http(played.port, "/login", "POST", f"token={played.admin}")
    assert status == 303
    assert headers["location"] == "/admin"
    session = {"Cookie": cookie_of(headers)}
    status, _, page = await http(played.port, "/admin", headers=session)
    assert status == 200
    assert "Teacher's page" in page
    assert (await http(played.port, "/admin/state", "POST", "action=pause", headers=session))[
        0
    ] == 403
    csrf = re.search(r"name='csrf' value='([0-9a-f]+)'", page)
    assert csrf is not None
    # A page of another site cannot act even with the cookie.
    cross = {**session, "Origin": "http://evil.example"}
    body = f"action=pause&csrf={csrf[1]}"
    assert (await http(played.port, "/admin/state", "POST", body, headers=cross))[0] == 403
    status, _, page = await http(played.port, "/admin/state", "POST", body, headers=session)
    assert status == 200
    assert "the ladder is now paused" in page
    with played.ladder.engine.connect() as db:
        assert db.execute(select(s.ladder.c.state)).scalar() == "paused"
        assert db.execute(select(s.audit.c.actor).where(s.audit.c.action == "pause")).scalar() == (
            "admin"
        )


async def test_grades_and_a_teams_bundle(played: Class) -> None:
    teacher = bearer(played.admin)
    status, headers, text = await http(played.port, "/admin/grades.csv", headers=teacher)
    assert status == 200
    assert headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["team"] for row in rows] == [row["team"] for row in grades(played.ladder.engine)]
    assert rows[0]["team"] == "ann"
    assert rows[0]["wins"] == "4"
    stream = await trio.open_tcp_stream("127.0.0.1", played.port)
    async with stream:
        await stream.send_all(
            b"GET /admin/bundles/bob.zip HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + f"Authorization: Bearer {played.admin}\r\n\r\n".encode()
        )
        data = b""
        while chunk := await stream.receive_some(1 << 16):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0]
    with zipfile.ZipFile(io.BytesIO(payload)) as bundle:
        names = bundle.namelist()
        report = bundle.read("report.txt").decode()
    assert "versions/v1-build.txt" in names
    assert sum(name.endswith(".log") for name in names) == 4  # bob played 4 of the 6 matches
    assert sum(name.endswith("-output.txt") for name in names) == 4
    assert report.startswith("bob: 1 versions, 4 matches")
    assert "bob lost: crashed" in report


async def test_a_rerun_and_a_retirement_from_the_teachers_page(played: Class) -> None:
    teacher = bearer(played.admin)
    status, _, page = await http(
        played.port, "/admin/rerun", "POST", "match=3&why=the+machine+was+busy", headers=teacher
    )  # fmt: skip
    assert status == 200
    assert "match 3 will be re-run as match" in page
    again = await http(played.port, "/admin/rerun", "POST", "match=3&why=twice", headers=teacher)
    assert again[0] == 400
    assert "already being re-run" in again[2]
    status, _, page = await http(
        played.port, "/admin/retire", "POST", "version=cat/1&why=copied", headers=teacher
    )  # fmt: skip
    assert status == 200
    assert "cat v1 is retired" in page
    _, _, team = await http(played.port, "/teams/cat")
    assert "<td>retired</td><td>copied</td>" in team
    _, _, ladder = await http(played.port, "/")
    # Retired, its version still stands for cat in the grades and on the ladder (as grades.csv).
    assert re.search(r"<a href='/teams/cat'>cat</a></td><td>v1</td>", ladder)
    with played.ladder.engine.connect() as db:
        new = db.execute(select(s.matches).where(s.matches.c.replaces == 3)).one()
        old = db.execute(select(s.matches).where(s.matches.c.id == 3)).one()
    assert (new.state, new.seed, new.why) == ("queued", old.seed, "the machine was busy")
    _, _, match = await http(played.port, f"/matches/{new.id}")
    assert "re-runs <a href='/matches/3'>match 3</a>: the machine was busy" in match


async def test_an_upload_larger_than_the_limit_is_refused_before_it_is_read(
    played: Class,
) -> None:
    limit = 16 << 20
    stream = await trio.open_tcp_stream("127.0.0.1", played.port)
    async with stream:
        await stream.send_all(
            b"POST /submit HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n"
            + f"Content-Length: {1 << 30}\r\n\r\n".encode()
        )
        data = await response(stream)
    assert b" 413 " in data.split(b"\r\n")[0]
    assert b"the upload is larger than 16 MiB" in data
    # Streamed without a length, it is cut off as it passes the limit.
    stream = await trio.open_tcp_stream("127.0.0.1", played.port)
    async with stream:
        await stream.send_all(
            b"POST /submit HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        head = (
            f"--x\r\nContent-Disposition: form-data; name=token\r\n\r\n{played.tokens['ann']}\r\n"
            "--x\r\nContent-Disposition: form-data; name=program; filename=a.zip\r\n\r\n"
        ).encode()

        async def send_too_much() -> None:
            # The server may answer and stop reading while this still sends (its window
            # then stays full): the answer is read beside it, and the sending cancelled.
            piece = head + b"\0" * (1 << 20)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                for _ in range((limit >> 20) + 2):
                    await stream.send_all(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                    piece = b"\0" * (1 << 20)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(send_too_much)
            data = await response(stream)
            nursery.cancel_scope.cancel()
    assert b" 413 " in data.split(b"\r\n")[0]
    with played.ladder.engine.connect() as db:
        assert db.execute(select(s.versions.c.id).where(s.versions.c.number > 1)).first() is None


async def response(stream: trio.SocketStream) -> bytes:
    """One whole HTTP response (its head and its Content-Length of body), read without waiting
    for the server to close: a server that refused a body it never read may keep listening."""
    data = b""
    while True:
        head, found, body = data.partition(b"\r\n\r\n")
        if found:
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            if length is None or len(body) >= int(length[1]):
                return data
        chunk = await stream.receive_some(1 << 16)
        if not chunk:
            return data
        data += chunk


def multipart(fields: dict[str, str], file_name: str, content: bytes) -> tuple[str, bytes]:
    boundary = "arenaboundary"
    parts = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        for key, value in fields.items()
    )
    parts += (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="program"; '
            f'filename="{file_name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return f"multipart/form-data; boundary={boundary}", parts


async def post_bytes(
    port: int, path: str, content_type: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, str]:
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{extra}"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        data = b""
        while chunk := await stream.receive_some(1 << 16):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), payload.decode("utf-8", "replace")


async def test_a_student_uploads_a_version_that_is_checked_then_plays(played: Class) -> None:
    player = (STARTERS / "penguins_player.py").read_bytes()
    kind, body = multipart({"token": played.tokens["cat"]}, "player.py", player)
    status, page = await post_bytes(played.port, "/submit", kind, body)
    assert status == 200, page
    assert "cat version 2: active" in page
    kind, body = multipart({"token": played.tokens["cat"]}, "player.py", b"import sys; sys.exit(3)")
    status, page = await post_bytes(played.port, "/submit", kind, body)
    assert status == 422
    assert "cat version 3: FAILED: pre-flight" in page
    kind, body = multipart({"token": "not-a-token"}, "bot.py", player)
    status, page = await post_bytes(played.port, "/submit", kind, body)
    assert status == 401
    assert "wrong token" in page
    with played.ladder.engine.connect() as db:
        statuses = dict(
            db.execute(
                select(s.versions.c.number, s.versions.c.status)
                .join(s.teams, s.teams.c.id == s.versions.c.team_id)
                .where(s.teams.c.name == "cat")
            ).all()
        )
    assert statuses == {1: "inactive", 2: "active", 3: "failed"}


async def test_the_live_view_renders_at_once_and_streams_the_state(played: Class) -> None:
    status, _, body = await http(played.port, "/live")
    assert status == 200
    assert "No match is being played now." in body
    assert "6 played" in body
    (event,) = await first_events(played.port, "/live/events", 1)
    data = json.loads(event.split("data: ", 1)[1])
    assert data["ladder"] == "running"
    assert data["counts"].startswith("6 played")


def test_the_teachers_corrections_refuse_bad_input(tmp_path: Path) -> None:
    from server.ladder.teacher import rerun
    from server.ladder.views import find_version

    ladder, _, _ = Ladder.create(
        tmp_path / "l", None, game="penguins", roster=parse_roster("team\nann\n")
    )
    try:
        with pytest.raises(LadderError, match="match 5: no such match"):
            rerun(ladder.engine, 5, "why")
        with ladder.engine.connect() as db:
            assert find_version(db, "ann", 1) is None
    finally:
        ladder.close()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_in_a_browser_the_class_pages_read_right(played: Class, tmp_path: Path) -> None:
    """The ladder, a team page, the teacher's page after logging in, and the live view, as a
    browser shows them (screenshots in the test's folder), with nothing a program wrote run."""
    browser = await trio.to_thread.run_sync(Browser, tmp_path / "profile")
    base = f"http://127.0.0.1:{played.port}"
    shots = tmp_path / "shots"
    shots.mkdir()

    def run(call: Any, *args: Any) -> Any:
        return trio.to_thread.run_sync(call, *args)

    try:
        page = await run(browser.open, base + "/")
        assert await run(
            page.wait_for, "document.querySelectorAll('#standings tbody tr').length === 3"
        )
        await run(page.screenshot, shots / "ladder.png", 1280, 800)
        await run(page.goto, base + "/matches/1")
        assert await run(
            page.wait_for, "document.querySelector('h1')?.textContent.includes('Match 1')"
        )
        assert await run(page.evaluate, "window.pwned === undefined")
        await run(page.screenshot, shots / "match.png", 1280, 800)
        await run(page.goto, base + "/teams/bob")
        assert await run(page.wait_for, "!!document.querySelector('table.versions')")
        await run(page.screenshot, shots / "team.png", 1280, 800)
        # bob logs in on his page, sees his output and "Log out of this team"; a click on it
        # logs him out: the page shows the login form again, and no output link.
        bob = json.dumps(played.tokens["bob"])
        await run(
            page.evaluate,
            f"document.querySelector('input[name=token]').value = {bob};"
            "document.querySelector('form[action=\"/teams/bob/login\"]').submit(); true",
        )
        logout = "form[action='/teams/bob/logout'] button"
        assert await run(page.wait_for, f"!!document.querySelector({json.dumps(logout)})")
        assert await run(
            page.evaluate, "!!document.querySelector('a[href=\"/teams/bob/versions/1\"]')"
        )
        assert await run(page.wait_for, "document.readyState === 'complete'")
        await run(page.screenshot, shots / "team-logged-in.png", 1280, 800)
        await run(page.click, logout)
        assert await run(page.wait_for, "!!document.querySelector('input[name=token]')")
        assert await run(page.evaluate, f"!document.querySelector({json.dumps(logout)})")
        assert await run(
            page.evaluate, "!document.querySelector('a[href=\"/teams/bob/versions/1\"]')"
        )
        await run(page.screenshot, shots / "team-logged-out.png", 1280, 800)
        await run(page.goto, base + "/login")
        await run(page.wait_for, "!!document.querySelector('input[name=token]')")
        await run(
            page.evaluate,
            f"document.querySelector('input[name=token]').value = {json.dumps(played.admin)};"
            "document.querySelector('main form').submit(); true",
        )
        assert await run(
            page.wait_for,
            "document.querySelector('h1')?.textContent.startsWith(\"Teacher's page\")",
        )
        buttons = "[...document.querySelectorAll('form[action=\"/admin/state\"] button')]"
        assert await run(page.evaluate, f"{buttons}.map(b => b.textContent).join()") == (
            "resume,pause,freeze"
        )
        assert await run(page.wait_for, "document.readyState === 'complete'")
        await run(page.screenshot, shots / "admin.png", 1280, 800)
        # The teacher sees bob's output, and no button to log out of a team it is not.
        await run(page.goto, base + "/teams/bob")
        assert await run(
            page.wait_for,
            "document.querySelector('main').textContent.includes(\"You see bob's output as "
            'the teacher")',
        )
        assert await run(page.evaluate, f"!document.querySelector({json.dumps(logout)})")
        await run(page.goto, base + "/live")
        assert await run(page.wait_for, "document.body.classList.contains('connected')")
        assert await run(
            page.evaluate, "document.getElementById('live-counts').textContent.includes('played')"
        )
        await run(page.screenshot, shots / "live.png", 1280, 600)
        await run(page.goto, base + "/matches/1/replay")
        assert await run(page.wait_for, "document.querySelector('h1')?.textContent === 'replay 1'")
        assert (
            await run(page.evaluate, "document.querySelector('.ladder-back a').href") == base + "/"
        )
        await run(page.screenshot, shots / "replay.png", 1280, 400)
        # A student uploads through the form, as a browser sends it: a version that crashes
        # fails its pre-flight, and the page says why with the pre-flight's output.
        (tmp_path / "upload").mkdir()
        crasher = tmp_path / "upload" / "player.py"
        crasher.write_text("import sys\nprint('cat gives up', file=sys.stderr)\nsys.exit(3)\n")
        await run(page.goto, base + "/submit")
        assert await run(page.wait_for, "!!document.querySelector('input[type=file]')")
        await run(page.screenshot, shots / "submit.png", 1280, 800)
        cat = played.tokens["cat"]
        root = (await run(page.call, "DOM.getDocument"))["root"]["nodeId"]
        node = await run(
            partial(page.call, "DOM.querySelector", nodeId=root, selector="input[type=file]")
        )
        await run(
            partial(page.call, "DOM.setFileInputFiles", files=[str(crasher)], nodeId=node["nodeId"])
        )
        await run(
            page.evaluate,
            f"document.querySelector('input[name=token]').value = {json.dumps(cat)};"
            "document.querySelector('main form').submit(); true",
        )
        assert await run(
            page.wait_for,
            "document.querySelector('main').textContent.includes('cat version 2: FAILED')",
            120,
        )
        assert "exit code 3" in await run(
            page.evaluate, "document.querySelector('main').textContent"
        )
        assert await run(page.wait_for, "document.readyState === 'complete'")
        await run(page.screenshot, shots / "uploaded.png", 1280, 800)
    finally:
        await trio.to_thread.run_sync(browser.close)
    for name in ("ladder.png", "team.png", "admin.png", "submit.png", "uploaded.png"):
        assert (shots / name).stat().st_size > 10_000
    assert (shots / "replay.png").stat().st_size > 5_000  # a short page: the test's own replay
    if os.environ.get("LADDER_SHOTS"):  # where to keep them, to look at them (docs/ladder-*.png)
        for shot in shots.iterdir():
            shutil.copy(shot, Path(os.environ["LADDER_SHOTS"]) / f"ladder-{shot.name}")


def test_the_corrections_from_the_shell_name_what_is_wrong(tmp_path: Path) -> None:
    import subprocess

    ladder, _, _ = Ladder.create(
        tmp_path / "l", None, game="penguins", roster=parse_roster("team\nann\n")
    )
    ladder.close()

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", "ladder", *args, "--dir", str(tmp_path / "l")],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    retired = arena("retire", "ann", "1", "--why", "copied")
    assert retired.returncode == 2
    assert retired.stderr.strip().endswith("ann has no version 1")
    assert "Traceback" not in retired.stderr
    rerun = arena("rerun", "7", "--why", "busy")
    assert rerun.returncode == 2
    assert "match 7: no such match" in rerun.stderr
    port = arena("web", "--port", "70000", "--sandbox", "none")
    assert port.returncode == 2
    assert "--port 70000" in port.stderr


def test_a_versions_files_read_as_a_person_would_say_them() -> None:
    from server.ladder.pages import files_text

    assert files_text(1, 812) == "1 file, 812 B"
    assert files_text(3, 12_700) == "3 files, 12.4 KiB"
    assert files_text(40, 2_200_000) == "40 files, 2.1 MiB"
