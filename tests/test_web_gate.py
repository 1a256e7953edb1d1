"""The teacher's gate of every page (server/web/auth.py) and the headers of every response
(server/web/app.py), on a page of their own over loopback: wrong tokens are rate limited per
address whether typed in the login form or sent as a bearer token (429 with Retry-After, on a
fake clock), a request the browser marks as sent by another site cannot act, and every response
says how a browser must treat it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import trio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from web_client import http

from server.web import serve_web, web_app
from server.web.app import STRICT_POLICY
from server.web.auth import (
    COOKIE,
    SESSION_SECONDS,
    WINDOW,
    TeacherGate,
    Throttle,
    form_fields,
)

TOKEN = "the-teachers-token"


@dataclass
class Served:
    port: int
    gate: TeacherGate
    now: list[float]
    acted: list[str]


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    """A page with one action behind the gate and one page that says who reads it."""
    now = [1000.0]
    gate = TeacherGate(TOKEN, clock=lambda: now[0])
    acted: list[str] = []

    async def act(request: Request) -> Response:
        form = await form_fields(request)
        await gate.require(request, form)
        acted.append(form.get("what", ""))
        return JSONResponse({"ok": True})

    async def who(request: Request) -> Response:
        return JSONResponse({"teacher": await gate.is_teacher(request)})

    app = web_app([Route("/act", act, methods=["POST"]), Route("/who", who), *gate.routes()])
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        yield Served(port, gate, now, acted)
        nursery.cancel_scope.cancel()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_wrong_bearer_tokens_are_rate_limited_and_say_when_to_retry(served: Served) -> None:
    """Five wrong bearer tokens in a minute, and the sixth try waits, the right token included
    (not even looked at): 429 with Retry-After, until the first wrong one is a minute old."""
    for _ in range(5):
        status, _, _ = await http(served.port, "/act", "POST", "what=x", headers=bearer("guess"))
        assert status == 401
    served.now[0] += 20
    status, headers, body = await http(
        served.port, "/act", "POST", "what=x", headers=bearer(TOKEN)
    )  # fmt: skip
    assert status == 429
    assert headers["retry-after"] == "40"
    assert "too many wrong tokens: try again in 40 s" in body
    # Reading pages with a bearer token counts the same, and so does the login form.
    assert (await http(served.port, "/who", headers=bearer(TOKEN)))[0] == 429
    status, headers, body = await http(served.port, "/login", "POST", f"token={TOKEN}")
    assert (status, headers["retry-after"]) == (429, "40")
    assert "too many wrong tokens" in body
    assert served.acted == []
    served.now[0] += 40
    status, _, body = await http(served.port, "/act", "POST", "what=y", headers=bearer(TOKEN))
    assert status == 200, body
    assert served.acted == ["y"]
    assert served.gate.throttle.failures == {}  # forgotten once the window has passed


async def test_guesses_at_the_login_form_count_with_bearer_tokens(served: Served) -> None:
    for _ in range(3):
        assert (await http(served.port, "/login", "POST", "token=guess"))[0] == 401
    for _ in range(2):
        assert (await http(served.port, "/who", headers=bearer("guess")))[0] == 200
    status, headers, _ = await http(served.port, "/login", "POST", f"token={TOKEN}")
    assert status == 429
    assert headers["retry-after"] == str(int(WINDOW))


def test_a_crowd_of_guessing_addresses_is_remembered_within_a_bound() -> None:
    """Each address's last wrong tokens are kept, and only for so many addresses: a guesser
    from ever new addresses cannot grow the table without end."""
    throttle = Throttle(attempts=2, window=60.0, most=3)
    for address in ("a", "b", "c", "d"):
        for _ in range(5):
            throttle.failed(address, 0.0)
    assert sorted(throttle.failures) == ["b", "c", "d"]
    assert all(len(failures) == 2 for failures in throttle.failures.values())
    assert throttle.wait("d", 10.0) == 50
    assert throttle.wait("a", 10.0) == 0


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
async def test_a_request_the_browser_marks_as_another_sites_cannot_act(
    served: Served, site: str
) -> None:
    """A form of another site posted with the teacher's cookie and even the CSRF token (an
    Origin a proxy dropped, say): the browser's Sec-Fetch-Site still refuses it."""
    status, headers, _ = await http(served.port, "/login", "POST", f"token={TOKEN}")
    assert status == 303
    session = headers["set-cookie"].split(";", 1)[0]
    assert session.startswith(f"{COOKIE}=")
    form = f"what=x&csrf={served.gate.csrf_token(session.split('=', 1)[1])}"
    cross = {"Cookie": session, "Sec-Fetch-Site": site}
    status, _, body = await http(served.port, "/act", "POST", form, headers=cross)
    assert status == 403
    assert "another site" in body
    assert served.acted == []
    same = {"Cookie": session, "Sec-Fetch-Site": "same-origin"}
    assert (await http(served.port, "/act", "POST", form, headers=same))[0] == 200
    assert served.acted == ["x"]


@pytest.mark.parametrize("path", ["/who", "/login", "/static/arena.css", "/nowhere"])
async def test_every_response_says_how_a_browser_must_treat_it(served: Served, path: str) -> None:
    """No MIME sniffing, never framed, no plugins, forms only to this site: on pages, assets
    and error pages alike."""
    _, headers, _ = await http(served.port, path)
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    policy = headers["content-security-policy"]
    for rule in ("object-src 'none'", "frame-ancestors 'none'", "form-action 'self'"):
        assert rule in policy


async def test_a_strict_app_runs_only_the_sites_own_scripts() -> None:
    async def hello(request: Request) -> Response:
        return Response("<p>hi</p>", media_type="text/html")

    app = web_app([Route("/", hello)], policy=STRICT_POLICY)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(serve_web, app, "127.0.0.1", 0)
        _, headers, _ = await http(port, "/")
        nursery.cancel_scope.cancel()
    rules = dict(
        rule.strip().split(" ", 1) for rule in headers["content-security-policy"].split(";")
    )
    assert rules["script-src"] == "'self'"  # no inline script, no eval, no other site
    assert rules["default-src"] == "'self'"


async def _login(served: Served) -> tuple[dict[str, str], str]:
    """A fresh login: its cookie header and its CSRF token."""
    status, headers, _ = await http(served.port, "/login", "POST", f"token={TOKEN}")
    assert status == 303
    session = headers["set-cookie"].split(";", 1)[0]
    return {"Cookie": session}, served.gate.csrf_token(session.split("=", 1)[1])


async def _is_teacher(served: Served, cookie: dict[str, str]) -> bool:
    status, _, body = await http(served.port, "/who", headers=cookie)
    assert status == 200
    return bool(json.loads(body)["teacher"])


async def test_logging_out_ends_the_session_for_every_copy_of_its_cookie(served: Served) -> None:
    """A copy of the cookie (a shared machine, a stolen one) opens nothing after the teacher
    logged out; another login's session and CSRF token stay its own."""
    first, first_csrf = await _login(served)
    second, second_csrf = await _login(served)
    assert first != second
    assert first_csrf != second_csrf
    # A session's forms carry its own CSRF token, not another session's.
    status, _, _ = await http(served.port, "/act", "POST", f"csrf={second_csrf}", headers=first)
    assert status == 403
    status, headers, _ = await http(
        served.port, "/logout", "POST", f"csrf={first_csrf}", headers=first
    )
    assert status == 303
    assert 'arena_teacher=""' in headers["set-cookie"] or "Max-Age=0" in headers["set-cookie"]
    assert not await _is_teacher(served, first)
    status, _, _ = await http(
        served.port, "/act", "POST", f"what=x&csrf={first_csrf}", headers=first
    )
    assert status == 401
    assert await _is_teacher(served, second)
    assert served.acted == []


async def test_a_session_expires(served: Served) -> None:
    cookie, _ = await _login(served)
    served.now[0] += SESSION_SECONDS - 1
    assert await _is_teacher(served, cookie)
    served.now[0] += 1
    assert not await _is_teacher(served, cookie)
