"""The teacher's credential: every request that changes state needs it, whatever address the page
binds; pages that only show stay open.

A request is the teacher's when it carries ``Authorization: Bearer TOKEN`` (scripts, curl) or
the session cookie the login form sets (a browser) together with its session's CSRF token (the
form field ``csrf`` or the header ``X-CSRF-Token``). Each login is a random session of its own,
ended by logging out or after SESSION_SECONDS. The cookie is HttpOnly and SameSite=Strict; a
request sent by a page of another site (its ``Origin``, or its ``Sec-Fetch-Site``) is refused
before anything else. Wrong tokens, at the login form or as a bearer token, are rate limited per
client address (:class:`Throttle`: then 429 with ``Retry-After``, the token not looked at).
Tokens are compared in constant time.

    gate = TeacherGate(token)                 # or TeacherGate.from_env(): given or generated
    gate = TeacherGate(check=is_admin)        # or await is_admin(token, address) -> bool
    app = web_app([*routes, *gate.routes()])  # GET/POST /login, POST /logout
    await gate.require(request, form)         # in each state-changing handler
    await gate.is_teacher(request)            # in a page that only reads
    gate.csrf_meta(request)                   # in pages: the token arena.post() sends
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import time
import urllib.parse
from collections import deque
from collections.abc import Awaitable, Callable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from server.web.page import escape, page

__all__ = [
    "COOKIE",
    "ENV_TOKEN",
    "SESSION_SECONDS",
    "TeacherGate",
    "Throttle",
    "TooManyTries",
    "client_address",
    "form_fields",
    "same_origin",
    "too_many",
]

#: The cookie a logged-in browser carries, and the variable that gives the token.
COOKIE = "arena_teacher"
ENV_TOKEN = "ARENA_TEACHER_TOKEN"
#: Wrong tokens (the login form, a bearer token): at most this many per address in WINDOW s.
ATTEMPTS, WINDOW = 5, 60.0
#: A login lasts this long (seconds); at most this many are open (the oldest closed first).
SESSION_SECONDS, MAX_SESSIONS = 12 * 3600.0, 64
#: Addresses whose wrong tokens are remembered at most; past it the oldest guesser is forgotten.
MAX_ADDRESSES = 10_000

#: Whether a token given by a client address is the teacher's (may raise TooManyTries).
Check = Callable[[str, str], Awaitable[bool]]
#: A form body larger than this is refused (the pages' forms are a few fields).
MAX_FORM = 64 * 1024


def same_origin(request: Request) -> None:
    """Refuse a request sent by a page of another site: its ``Origin`` is not this host, or the
    browser says it came from elsewhere (``Sec-Fetch-Site``; ``none`` is a typed address)."""
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host"):
        raise HTTPException(403, "a page of another site cannot act here")
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise HTTPException(403, "a page of another site cannot act here")


def client_address(request: Request) -> str:
    return request.client.host if request.client else "?"


class TooManyTries(Exception):
    """A client address that used up its wrong tokens (raised by a gate's ``check`` that
    counts them itself, such as the ladder's, in its database)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many wrong tokens: try again in {retry_after} s")
        self.retry_after = retry_after


def too_many(retry_after: int) -> HTTPException:
    """The 429 of a client address that used up its wrong tokens."""
    return HTTPException(
        429,
        f"too many wrong tokens: try again in {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


class Throttle:
    """Wrong tokens per client address: after ``attempts`` within ``window`` seconds, every try
    from that address is refused until its oldest wrong token is ``window`` seconds old. Plain
    data: the caller gives the time."""

    def __init__(
        self, attempts: int = ATTEMPTS, window: float = WINDOW, most: int = MAX_ADDRESSES
    ) -> None:
        self.attempts, self.window, self.most = attempts, window, most
        self.failures: dict[str, deque[float]] = {}

    def wait(self, address: str, now: float) -> int:
        """Whole seconds ``address`` must wait before its next try (0: it may try now). Forgets
        every address whose wrong tokens are all older than the window."""
        for known in list(self.failures):
            failures = self.failures[known]
            while failures and failures[0] <= now - self.window:
                failures.popleft()
            if not failures:
                del self.failures[known]
        mine = self.failures.get(address)
        if mine is None or len(mine) < self.attempts:
            return 0
        return max(1, math.ceil(mine[0] + self.window - now))

    def failed(self, address: str, now: float) -> None:
        """One more wrong token from ``address``."""
        if address not in self.failures and len(self.failures) >= self.most:
            del self.failures[next(iter(self.failures))]  # the longest known
        self.failures.setdefault(address, deque(maxlen=self.attempts)).append(now)


async def form_fields(request: Request) -> dict[str, str]:
    """The URL-encoded form of a POST (what the pages send), its size bounded."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise HTTPException(413, "a form of more than 64 KiB")
    fields = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {key: values[-1] for key, values in fields.items()}


def _new_token() -> str:
    """18 random bytes, URL-safe, never starting with ``-`` (it is typed after a flag)."""
    while (token := secrets.token_urlsafe(18)).startswith("-"):
        pass
    return token


class TeacherGate:
    """Checks the teacher's credential and serves the login form."""

    def __init__(
        self,
        token: str = "",
        clock: Callable[[], float] = time.monotonic,
        check: Check | None = None,
        home: str = "/",
    ) -> None:
        """``token``: the teacher's token; or ``check``, awaited with a token and the client's
        address, which says whether the token is the teacher's (for a token kept only as a
        hash: it runs its lookup off the event loop)."""
        if not token and check is None:
            raise ValueError("the teacher's token cannot be empty")
        self.token = token
        self._check = check or self._same_token
        self.home = home  # where the login form leads
        self._key = secrets.token_bytes(32)  # sessions end with the server
        self._sessions: dict[str, float] = {}  # SHA-256 of each session -> when it expires
        self._clock = clock
        self.throttle = Throttle()

    @classmethod
    def from_env(cls, given: str | None = None) -> TeacherGate:
        """The token given (a flag), else ``ARENA_TEACHER_TOKEN``, else a new random one."""
        return cls(given or os.environ.get(ENV_TOKEN) or _new_token())

    async def _same_token(self, given: str, address: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    async def is_token(self, request: Request, given: str) -> bool:
        """Whether ``given`` is the teacher's token; raises 429 (:func:`too_many`) for an
        address that used up its wrong tokens, without looking at ``given``."""
        address, now = client_address(request), self._clock()
        if wait := self.throttle.wait(address, now):
            raise too_many(wait)
        try:
            right = await self._check(given, address)
        except TooManyTries as error:
            raise too_many(error.retry_after) from None
        if not right:
            self.throttle.failed(address, now)
        return right

    @staticmethod
    def _bearer(request: Request) -> str | None:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return (given.strip() or None) if scheme.lower() == "bearer" else None

    async def is_teacher(self, request: Request) -> bool:
        """Whether a request that only reads (a GET) comes from the teacher: the bearer token
        or the login cookie (no CSRF token needed for reading)."""
        given = self._bearer(request)
        if given is not None:
            return await self.is_token(request, given)
        return self.logged_in(request)

    def _mac(self, label: str) -> str:
        return hmac.new(self._key, label.encode(), hashlib.sha256).hexdigest()

    def _session(self, request: Request) -> str | None:
        """The request's session, when its cookie holds one of the gate's, unexpired."""
        sent = request.cookies.get(COOKIE, "")
        expires = self._sessions.get(hashlib.sha256(sent.encode("utf-8", "replace")).hexdigest())
        return sent if expires is not None and self._clock() < expires else None

    def logged_in(self, request: Request) -> bool:
        return self._session(request) is not None

    def csrf_token(self, session: str) -> str:
        """The CSRF token of a session (its forms carry it)."""
        return self._mac(f"csrf:{session}")

    def csrf_for(self, request: Request) -> str:
        """The CSRF token of the request's session ("" when it has none)."""
        session = self._session(request)
        return "" if session is None else self.csrf_token(session)

    def csrf_meta(self, request: Request) -> str:
        """HTML for a page: the CSRF token when the browser is logged in, else a login link."""
        if self.logged_in(request):
            return f'<meta name="csrf-token" content="{self.csrf_for(request)}">'
        return '<p class="muted login"><a href="/login">Log in as the teacher</a> to act.</p>'

    def _open_session(self) -> str:
        """A new session (one per login), lasting SESSION_SECONDS; the oldest is dropped past
        MAX_SESSIONS, the expired ones on the way."""
        now = self._clock()
        for key, expires in list(self._sessions.items()):
            if expires <= now:
                del self._sessions[key]
        while len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[next(iter(self._sessions))]
        session = secrets.token_urlsafe(32)
        self._sessions[hashlib.sha256(session.encode()).hexdigest()] = now + SESSION_SECONDS
        return session

    async def require(self, request: Request, form: dict[str, str]) -> None:
        """Return when the request is the teacher's; raise 401 or 403 otherwise."""
        same_origin(request)
        given = self._bearer(request)
        if given is not None:
            if await self.is_token(request, given):
                return
            raise HTTPException(401, "wrong teacher token")
        if not self.logged_in(request):
            raise HTTPException(401, "the teacher's credential is needed: log in at /login")
        sent = form.get("csrf") or request.headers.get("x-csrf-token", "")
        if not hmac.compare_digest(
            sent.encode("utf-8", "replace"), self.csrf_for(request).encode()
        ):
            raise HTTPException(403, "a form without this page's CSRF token")

    def routes(self) -> list[Route]:
        return [
            Route("/login", self._login_form, methods=["GET"]),
            Route("/login", self._login, methods=["POST"]),
            Route("/logout", self._logout, methods=["POST"]),
        ]

    async def _login_form(self, request: Request) -> Response:
        return HTMLResponse(self._form_page(""))

    def _form_page(self, message: str) -> str:
        note = f'<p class="error">{escape(message)}</p>' if message else ""
        body = (
            "<h1>Teacher's login</h1>"
            "<p class='muted'>The token was printed when the server started (or set with "
            f"{ENV_TOKEN}).</p>{note}"
            '<form method="post" action="/login"><input type="password" name="token" '
            'autocomplete="current-password" placeholder="teacher token" required> '
            "<button>Log in</button></form>"
        )
        return page("Teacher's login", body)

    async def _login(self, request: Request) -> Response:
        same_origin(request)
        form = await form_fields(request)
        try:
            right = await self.is_token(request, form.get("token", ""))
        except HTTPException as error:  # too many wrong tokens
            return HTMLResponse(self._form_page(error.detail), error.status_code, error.headers)
        if not right:
            return HTMLResponse(self._form_page("wrong token"), 401)
        response = RedirectResponse(self.home, status_code=303)
        response.set_cookie(
            COOKIE, self._open_session(), httponly=True, samesite="strict", path="/"
        )
        return response

    async def _logout(self, request: Request) -> Response:
        await self.require(request, await form_fields(request))
        session = self._session(request)
        if session is not None:  # a copy of the cookie opens nothing any more
            self._sessions.pop(hashlib.sha256(session.encode()).hexdigest(), None)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response
