"""The ASGI application frame (static assets, 404 and 500 pages, the security headers of every
response) and serving it with Hypercorn's trio worker in the caller's nursery.

Every response carries :data:`SECURITY_HEADERS` unless its handler set its own: no MIME
sniffing, no framing by another site, no plugins, forms posting only to the site. An app whose
pages run no inline script asks for :data:`STRICT_POLICY` (scripts only from the site's own
files: a text a user wrote that slipped into a page still runs nothing); a page of it that must
run inline scripts (a self-contained replay) sets :data:`SANDBOXED`: it then runs as an opaque
origin, without the site's cookies or its other pages."""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Mapping, Sequence
from importlib import resources

import trio
from hypercorn.config import Config
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.web.page import escape, page

__all__ = [
    "BASE_POLICY",
    "SANDBOXED",
    "SECURITY_HEADERS",
    "STRICT_POLICY",
    "serve_web",
    "static_assets",
    "web_app",
]

#: The policy of every page (some pages inline their scripts: a replay, a live view).
BASE_POLICY = "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
#: The policy of an app whose pages take scripts and style sheets from the site's files only
#: (styles may be inline: a drawing sets them).
STRICT_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    f"img-src 'self' data: blob:; {BASE_POLICY}"
)
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}
#: The policy of a self-contained page that runs inline scripts (a replay): a sandbox of its
#: own origin (no cookie, no reading the site's other pages), nothing fetched from anywhere.
SANDBOXED = (
    "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; "
    "style-src 'unsafe-inline'; img-src data: blob:; frame-ancestors 'none'"
)


#: Media types of the assets by suffix.
MEDIA_TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}


def static_assets(package: str = "server.web") -> dict[str, tuple[bytes, str]]:
    """The assets shipped as package data in ``package``'s ``static/`` folder, by file name:
    their bytes and media type. They are small and read once (no file I/O per request)."""
    folder = resources.files(package) / "static"
    return {
        item.name: (item.read_bytes(), MEDIA_TYPES.get("." + item.name.rsplit(".", 1)[-1], ""))
        for item in folder.iterdir()
        if item.is_file() and "." + item.name.rsplit(".", 1)[-1] in MEDIA_TYPES
    }


def _static_route(prefix: str, package: str) -> Route:
    assets = static_assets(package)

    async def asset(request: Request) -> Response:
        found = assets.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404)
        content, media_type = found
        return Response(content, media_type=media_type, headers={"Cache-Control": "no-cache"})

    return Route(f"/{prefix}/{{name}}", asset)


async def _http_error(request: Request, error: Exception) -> Response:
    status = error.status_code if isinstance(error, HTTPException) else 500
    headers = error.headers if isinstance(error, HTTPException) else None  # a Retry-After
    if request.method == "POST":  # the pages' scripts read {"ok": false, "error": ...}
        detail = str(getattr(error, "detail", "")) or "refused"
        return JSONResponse({"ok": False, "error": detail}, status, headers)
    title = "Not found" if status == 404 else f"Error {status}"
    detail = (
        f"There is no page at <code>{escape(request.url.path)}</code>."
        if status == 404
        else escape(str(getattr(error, "detail", "")) or "The server could not answer this.")
    )
    body = f"<h1>{title}</h1><p>{detail}</p><p><a href='/'>Back to the start page</a></p>"
    return HTMLResponse(page(title, body), status, headers)


def _server_error(policy: str) -> Callable[[Request, Exception], Awaitable[Response]]:
    """The 500 page's handler. Starlette answers an exception outside the app's middleware, so
    this page carries the security headers itself."""
    headers = {**SECURITY_HEADERS, "content-security-policy": policy}

    async def handler(request: Request, error: Exception) -> Response:
        body = "<h1>Server error</h1><p>This page failed; the server goes on.</p>"
        return HTMLResponse(page("Server error", body), status_code=500, headers=headers)

    return handler


class _SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` and the app's Content-Security-Policy on every
    response that lacks them."""

    def __init__(self, app: ASGIApp, policy: str) -> None:
        self.app = app
        self.headers = {**SECURITY_HEADERS, "content-security-policy": policy}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [
                    (name.encode(), value.encode())
                    for name, value in self.headers.items()
                    if name.encode() not in present
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, without a port) is this machine's loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _LoopbackHosts:
    """ASGI middleware of a server bound to loopback: a request naming another host in its
    ``Host`` header (a page of another site whose name was made to resolve to 127.0.0.1: DNS
    rebinding) gets 421 and reaches no page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = dict(scope.get("headers", [])).get(b"host")
            host = (sent or b"").decode("latin-1")
            name = host.partition("]")[0] + "]" if host.startswith("[") else host.split(":")[0]
            if sent is not None and not is_loopback(name):
                headers = {**SECURITY_HEADERS, "content-security-policy": BASE_POLICY}
                text = (
                    "this server answers only to localhost and 127.0.0.1 (it is bound to loopback)"
                )
                response = Response(text + "\n", 421, headers, "text/plain; charset=utf-8")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def web_app(
    routes: Sequence[BaseRoute],
    assets: Mapping[str, str] | None = None,
    policy: str = BASE_POLICY,
) -> Starlette:
    """An app of ``routes`` plus ``/static/NAME`` (the shared assets), the error pages and, for
    each ``prefix: package`` of ``assets``, a page's own assets: ``package``'s ``static/``
    folder served as ``/prefix/NAME`` the same way; every response with the security headers
    and ``policy`` as its Content-Security-Policy (unless it set its own)."""
    served = {"static": "server.web", **(assets or {})}
    return Starlette(
        routes=[*routes, *(_static_route(prefix, package) for prefix, package in served.items())],
        exception_handlers={HTTPException: _http_error, 500: _server_error(policy)},
        middleware=[Middleware(_SecurityHeaders, policy=policy)],
    )


async def serve_web(
    app: Starlette,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` on ``host``:``port`` until cancelled; reports the bound port. Bound to
    loopback, it answers only requests addressed to a loopback name (``Host``)."""
    served: ASGIApp = _LoopbackHosts(app) if is_loopback(host) else app
    config = Config()
    config.bind = [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.5

    class _Started:
        def started(self, binds: list[str] | None = None) -> None:
            bound = (binds or [""])[0]
            task_status.started(int(bound.rsplit(":", 1)[1]))

    await serve(served, config, task_status=_Started())  # type: ignore[arg-type]
