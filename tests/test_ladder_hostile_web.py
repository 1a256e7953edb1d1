"""The ladder's pages and commands against hostile or odd requests: numbers past what the
database holds, words where numbers go, teams that do not exist; each answered in one line (a
404 or a 400 naming what is wrong, exit 2 from the shell), never a server error or a traceback.
And against an attacker: token guesses (counted per address, wherever a token is given, then
429), uploads whose credential is wrong (refused before their file is read), forms posted by
another site, text written to run in a page, and the headers that keep a browser strict."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
from cdp import CHROMIUM, Browser
from sqlalchemy import event, select
from viewer_logs import penguins_log
from web_client import http

from server.ladder import schema as s
from server.ladder.ladder import Ladder
from server.ladder.roster import parse_roster
from server.ladder.web import LadderSite
from server.web import serve_web
from tests.test_ladder_web import (  # noqa: F401  (the served class)
    Class,
    _upload,
    bearer,
    cookie_of,
    multipart,
    played,
    post_bytes,
    response,
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


# -- credentials -----------------------------------------------------------------------------


async def test_the_admin_token_is_checked_in_a_worker_thread(played: Class) -> None:  # noqa: F811
    """The teacher's bearer token, right or wrong, is looked up in the database off the event
    loop: a slow database never stalls the pages."""
    loop = threading.get_ident()
    threads: list[int] = []

    def note(*args: Any) -> None:
        threads.append(threading.get_ident())

    event.listen(played.ladder.engine, "before_cursor_execute", note)
    try:
        for token, expected in ((played.admin, 200), ("a-guess", 401)):
            status, _, _ = await http(played.port, "/admin/grades.csv", headers=bearer(token))
            assert status == expected
    finally:
        event.remove(played.ladder.engine, "before_cursor_execute", note)
    assert threads
    assert loop not in threads


@pytest.fixture
async def clocked(played: Class) -> AsyncIterator[tuple[int, list[float]]]:  # noqa: F811
    """The played class's pages served again on a clock the test moves: (port, [now])."""
    now = [2e9]
    site = LadderSite(played.ladder, submit=_upload, clock=lambda: now[0])
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, site.app(), "127.0.0.1", 0)
        yield port, now
        nursery.cancel_scope.cancel()


async def test_bearer_guesses_count_with_every_other_wrong_token(
    played: Class,  # noqa: F811
    clocked: tuple[int, list[float]],
) -> None:
    """Wrong bearer tokens are counted in the ladder's one count per address (the team login
    and the uploads share it): after five in a minute, 429 with Retry-After everywhere, the
    right tokens included; a minute after the first, the address may try again."""
    port, now = clocked
    for _ in range(5):
        status, headers, _ = await http(port, "/admin", headers=bearer("guess"))
        assert (status, headers["location"]) == (303, "/login")
    now[0] += 15
    for path, form in (
        ("/teams/ann/login", f"token={played.tokens['ann']}"),
        ("/login", f"token={played.admin}"),
    ):
        status, headers, body = await http(port, path, "POST", form)
        assert status == 429, path
        assert headers["retry-after"] == "45"
        assert "too many wrong tokens: try again in 45 s" in body
    status, headers, _ = await http(port, "/admin", headers=bearer(played.admin))
    assert (status, headers["retry-after"]) == (429, "45")
    kind, body = multipart({"token": played.tokens["ann"]}, "bot.py", b"print(1)")
    assert (await post_bytes(port, "/submit", kind, body))[0] == 429
    now[0] += 45
    assert (await http(port, "/admin", headers=bearer(played.admin)))[0] == 200


# -- uploads ---------------------------------------------------------------------------------


async def _answer_to(port: int, head: str, body: bytes = b"") -> tuple[int, str]:
    """Send a request's head and the first ``body`` bytes of a longer body it announces, and
    read the answer while the rest is never sent: the server answers before reading on, or this
    fails after 30 s (a guard, not a wait: a right server answers at once)."""
    with trio.fail_after(30):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            await stream.send_all(head.encode() + b"\r\n" + body)
            data = await response(stream)
    first, _, rest = data.partition(b"\r\n")
    return int(first.split()[1]), rest.decode("utf-8", "replace")


def _upload_head(length: int, *extra: str, kind: str = "multipart/form-data; boundary=x") -> str:
    lines = [
        "POST /submit HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
        f"Content-Type: {kind}", f"Content-Length: {length}", *extra,
    ]  # fmt: skip
    return "".join(f"{line}\r\n" for line in lines)


@pytest.mark.parametrize(
    ("token", "status", "says"),
    [
        ("wrong", 401, "wrong token"),
        ("ADMIN", 403, "the admin token cannot submit"),
    ],
)
async def test_an_upload_with_a_bearer_token_not_a_teams_is_refused_before_its_body(
    played: Class,  # noqa: F811
    token: str,
    status: int,
    says: str,
) -> None:
    given = played.admin if token == "ADMIN" else token
    head = _upload_head(8 << 20, f"Authorization: Bearer {given}")
    answered, page = await _answer_to(played.port, head)  # not a byte of the body sent
    assert answered == status
    assert says in page


async def test_a_script_uploads_with_its_teams_bearer_token(played: Class) -> None:  # noqa: F811
    """``curl -H "Authorization: Bearer T" -F program=@bot.py``: no token field needed."""
    kind, body = multipart({}, "bot.py", b"import sys; sys.exit(3)")
    status, page = await post_bytes(
        played.port, "/submit", kind, body, bearer(played.tokens["cat"])
    )  # fmt: skip
    assert status == 422, page
    assert "cat version 2: FAILED: pre-flight" in page


@pytest.mark.parametrize(
    ("fields", "status", "says"),
    [
        ({"token": "wrong"}, 401, "wrong token"),
        ({"token": "ADMIN"}, 403, "the admin token cannot submit"),
        ({}, 401, "the form has no team token before its file"),
    ],
    ids=["wrong", "admin", "none"],
)
async def test_a_forms_token_is_checked_before_a_byte_of_its_file(
    played: Class,  # noqa: F811
    fields: dict[str, str],
    status: int,
    says: str,
) -> None:
    """The form's token comes before its file (as a browser sends the page's form): a wrong,
    missing or admin token is refused as the file's part begins, the rest never read."""
    if fields.get("token") == "ADMIN":
        fields = {"token": played.admin}
    kind, body = multipart(fields, "bot.py", b"x" * (1 << 16))
    start = body[: body.index(b"x" * 1024)]  # up to the file's first bytes
    head = _upload_head(8 << 20, kind=kind)
    answered, page = await _answer_to(played.port, head, start + b"x" * 1024)
    assert answered == status
    assert says in page
    assert "\n" not in page.split("result'>", 1)[1].split("</pre>", 1)[0]  # one line
    with played.ladder.engine.connect() as db:
        assert db.execute(select(s.versions.c.id).where(s.versions.c.number > 1)).first() is None


async def test_an_upload_named_to_climb_out_or_to_run_in_the_page_is_only_text(
    played: Class,  # noqa: F811
) -> None:
    """A file named ``../../<img onerror=...>.py`` lands as a plain base name inside its
    scratch folder; its name and its failure are shown as text."""
    kind, body = multipart(
        {"token": played.tokens["bob"]},
        "../../<img src=x onerror=window.pwned=1>.py",
        b"import sys; print('<script>window.pwned=2</script>'); sys.exit(3)",
    )
    status, page = await post_bytes(played.port, "/submit", kind, body)
    assert status == 422, page
    assert "bob version 2: FAILED" in page
    _, _, team = await http(played.port, "/teams/bob")
    for text in (page, team):
        assert "<img" not in text
        assert "<script>window" not in text
    scratch = Path(tempfile.gettempdir())
    for folder in (scratch, scratch.parent, played.ladder.folder, played.ladder.folder.parent):
        assert not (folder / "<img src=x onerror=window.pwned=1>.py").exists()


async def test_a_team_uploads_one_version_at_a_time(played: Class) -> None:  # noqa: F811
    """While a team's upload is being checked, its next one is refused (409) before its file is
    read, so one team's uploads hold one upload's worth of disk at a time; other teams go on,
    and once the first is checked the team may upload again."""
    entered, release, answered = trio.Event(), trio.Event(), trio.Event()

    async def held_submit(ladder: Ladder, token: str, path: Path, address: str) -> Any:
        if not entered.is_set():  # the first upload waits, its file on disk, until released
            entered.set()
            await release.wait()
        return await _upload(ladder, token, path, address)

    site = LadderSite(played.ladder, submit=held_submit)
    failing = b"import sys; sys.exit(3)"
    answers: list[tuple[int, str]] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, site.app(), "127.0.0.1", 0)

        async def upload(token: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
            kind, body = multipart({} if headers else {"token": token}, "bot.py", failing)
            return await post_bytes(port, "/submit", kind, body, headers)

        async def first() -> None:
            answers.append(await upload(played.tokens["ann"]))
            answered.set()

        nursery.start_soon(first)
        await entered.wait()
        ann = played.tokens["ann"]
        for again in (await upload(ann), await upload("", bearer(ann))):
            assert again[0] == 409
            assert "ann&#x27;s previous upload is still being checked" in again[1]
        status, page = await upload(played.tokens["bob"])
        assert (status, "bob version 2: FAILED" in page) == (422, True)
        release.set()
        await answered.wait()
        nursery.cancel_scope.cancel()
    assert answers[0][0] == 422
    assert "ann version 2: FAILED" in answers[0][1]
    async with trio.open_nursery() as nursery:  # the first checked, ann may upload again
        port = await nursery.start(serve_web, site.app(), "127.0.0.1", 0)
        kind, body = multipart({"token": played.tokens["ann"]}, "bot.py", failing)
        status, page = await post_bytes(port, "/submit", kind, body)
        nursery.cancel_scope.cancel()
    assert (status, "ann version 3: FAILED" in page) == (422, True)


# -- forms of other sites, text that runs, headers -------------------------------------------


async def _teacher_session(played: Class) -> tuple[dict[str, str], str]:  # noqa: F811
    status, headers, _ = await http(played.port, "/login", "POST", f"token={played.admin}")
    assert status == 303
    session = {"Cookie": cookie_of(headers)}
    _, _, page = await http(played.port, "/admin", headers=session)
    csrf = re.search(r"name='csrf' value='([0-9a-f]+)'", page)
    assert csrf is not None
    return session, csrf[1]


@pytest.mark.parametrize(
    "marks",
    [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}],
    ids=["origin", "sec-fetch-site"],
)
async def test_a_form_posted_by_another_site_changes_nothing(
    played: Class,  # noqa: F811
    marks: dict[str, str],
) -> None:
    """Even carrying the teacher's cookie and the page's CSRF token (as a browser would not),
    a post another site's page sent is refused: the teacher's forms, the upload, the logins."""
    session, csrf = await _teacher_session(played)
    cross = {**session, **marks}
    for path, form in (
        ("/admin/state", f"action=freeze&csrf={csrf}"),
        ("/admin/rerun", f"match=1&why=x&csrf={csrf}"),
        ("/logout", f"csrf={csrf}"),
        ("/teams/ann/login", f"token={played.tokens['ann']}"),
        ("/login", f"token={played.admin}"),
    ):
        status, headers, body = await http(played.port, path, "POST", form, headers=cross)
        assert status == 403, (path, body)
        assert "set-cookie" not in headers
    kind, body = multipart({"token": played.tokens["ann"]}, "bot.py", b"print(1)")
    status, _ = await post_bytes(played.port, "/submit", kind, body, marks)
    assert status == 403
    with played.ladder.engine.connect() as db:
        assert db.execute(select(s.ladder.c.state)).scalar() == "running"
        assert db.execute(select(s.matches.c.id).where(s.matches.c.replaces == 1)).first() is None
        assert db.execute(select(s.versions.c.id).where(s.versions.c.number > 1)).first() is None


async def test_what_the_teacher_writes_is_shown_as_text(played: Class) -> None:  # noqa: F811
    """A reason typed in the teacher's forms (pasted from anywhere) is escaped wherever shown:
    the audit, the match page, the team page."""
    hostile = "<script>window.pwned=3</script>"
    teacher = bearer(played.admin)
    for path, form in (("/admin/rerun", "match=2&why="), ("/admin/retire", "version=ann/1&why=")):
        status, _, page = await http(
            played.port, path, "POST", form + hostile.replace("=", "%3D"), headers=teacher
        )  # fmt: skip
        assert status == 200, page
    pages = [await http(played.port, path, headers=teacher) for path in ("/admin", "/teams/ann")]
    with played.ladder.engine.connect() as db:
        new = db.execute(select(s.matches.c.id).where(s.matches.c.replaces == 2)).scalar()
    pages.append(await http(played.port, f"/matches/{new}"))
    for _, _, page in pages:
        assert "&lt;script&gt;window.pwned" in page
        assert "<script>window" not in page


LADDER_PAGES = ["/", "/teams/ann", "/matches/1", "/submit", "/live", "/login", "/admin", "/nope"]


@pytest.mark.parametrize("path", LADDER_PAGES)
async def test_every_ladder_page_runs_only_the_sites_own_scripts(
    played: Class,  # noqa: F811
    path: str,
) -> None:
    """Whatever slipped into a page would not run: scripts come from the site's files only;
    no page sniffed as another type, framed by another site or posting elsewhere."""
    status, headers, _ = await http(played.port, path, headers=bearer(played.admin))
    assert status in (200, 404)
    rules = _policy(headers)
    assert rules["script-src"] == "'self'"
    assert rules["frame-ancestors"] == "'none'"
    assert rules["form-action"] == "'self'"
    assert headers["x-content-type-options"] == "nosniff"


async def test_a_replay_runs_in_a_sandbox_away_from_the_sites_cookies(
    played: Class,  # noqa: F811
) -> None:
    """A replay page runs its own inline scripts: it is served as a sandbox (an origin of its
    own), so nothing in it can read the teacher's pages or act with the teacher's cookie."""
    status, headers, page = await http(played.port, "/matches/2/replay")
    assert status == 200
    assert "<h1>replay 2</h1>" in page
    rules = _policy(headers)
    assert rules["sandbox"] == "allow-scripts"  # not allow-same-origin
    assert rules["default-src"] == "'none'"
    assert headers["x-content-type-options"] == "nosniff"


def _policy(headers: dict[str, str]) -> dict[str, str]:
    rules = (rule.strip().partition(" ") for rule in headers["content-security-policy"].split(";"))
    return {name: value for name, _, value in rules}


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (make browser)")
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_in_a_browser_a_sandboxed_replay_draws_but_cannot_reach_the_cookie(
    played: Class,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A real Penguins replay, served as the ladder serves it (sandboxed), still draws its board
    in Chromium; its scripts cannot read the teacher's cookie or the teacher's page."""
    from penguins.replay import read_events, view_data
    from replay.page import render_page

    data = view_data(read_events(penguins_log(tmp_path, ("alice", "bob"))))
    digest = played.ladder.store.put(render_page(data, "floes", "Penguins").encode())
    with played.ladder.engine.begin() as db:
        result = json.loads(
            db.execute(select(s.matches.c.result).where(s.matches.c.id == 2)).scalar()
        )
        result["files"][result["replay"]] = digest
        db.execute(s.matches.update().where(s.matches.c.id == 2).values(result=json.dumps(result)))
    browser = await trio.to_thread.run_sync(Browser, tmp_path / "profile")
    base = f"http://127.0.0.1:{played.port}"

    def run(call: Any, *args: Any) -> Any:
        return trio.to_thread.run_sync(call, *args)

    session, _ = await _teacher_session(played)
    name, _, value = session["Cookie"].partition("=")
    try:
        page = await run(browser.open, base + "/login")
        await run(lambda: page.call("Network.setCookie", name=name, value=value, url=base))
        assert "Teacher's page" in await run(
            page.evaluate, "fetch('/admin').then(r => r.text())"
        )  # the browser now carries the teacher's cookie
        await run(page.goto, base + "/matches/2/replay")
        assert await run(page.wait_for, "document.querySelectorAll('g.floe').length > 0")
        assert await run(page.evaluate, "!!document.querySelector('.ladder-back a[href=\"/\"]')")
        cookie = "(() => { try { return document.cookie; } catch (e) { return 'denied'; } })()"
        assert await run(page.evaluate, cookie) == "denied"
        reach = "fetch('/admin').then(r => r.status, () => 'blocked')"
        assert await run(page.evaluate, reach) == "blocked"
    finally:
        await trio.to_thread.run_sync(browser.close)
