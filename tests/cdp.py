"""A small blocking client of Chromium's DevTools protocol, for the live pages' browser tests.

Headless Chromium (Debian's ``chromium``) is started with ``--remote-debugging-port=0``; a
page is opened through the HTTP endpoint and driven over its WebSocket (wsproto, which the web
stack brings along). ``wait_for`` hands the waiting to the page itself: a promise that resolves
when a JavaScript expression turns truthy (or rejects after a timeout), so the test never sleeps.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import itertools
import json
import re
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from wsproto import WSConnection
from wsproto.connection import ConnectionType
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    Request,
    TextMessage,
)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_LISTENING = re.compile(r"DevTools listening on (ws://\S+)")


class Page:
    """One browser tab."""

    def __init__(self, ws_url: str) -> None:
        parts = urlsplit(ws_url)
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=60)
        self._ws = WSConnection(ConnectionType.CLIENT)
        self._ids = itertools.count(1)
        self._buffer = ""
        self._sock.sendall(self._ws.send(Request(host=parts.netloc, target=parts.path)))
        while not any(isinstance(e, AcceptConnection) for e in self._events()):
            pass

    def _events(self) -> list[Any]:
        data = self._sock.recv(1 << 20)
        if not data:
            raise ConnectionError("the browser closed the DevTools connection")
        self._ws.receive_data(data)
        events = list(self._ws.events())
        for event in events:
            if isinstance(event, Ping):
                self._sock.sendall(self._ws.send(event.response()))
        return events

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        message = json.dumps({"id": number, "method": method, "params": params})
        self._sock.sendall(self._ws.send(TextMessage(data=message)))
        while True:
            for event in self._events():
                if isinstance(event, TextMessage):
                    self._buffer += event.data
                    if not event.message_finished:
                        continue
                    reply = json.loads(self._buffer)
                    self._buffer = ""
                    if reply.get("id") == number:
                        if "error" in reply:
                            raise RuntimeError(f"{method}: {reply['error']}")
                        result: dict[str, Any] = reply["result"]
                        return result
                elif isinstance(event, BytesMessage | CloseConnection):
                    continue

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (awaited if it is a promise); DevTools' console
        helpers such as ``getEventListeners(node)`` are in scope."""
        for attempt in range(50):
            try:
                result = self.call(
                    "Runtime.evaluate", expression=expression, returnByValue=True,
                    awaitPromise=True, includeCommandLineAPI=True,
                )  # fmt: skip
                break
            except RuntimeError as error:
                # The page was still loading (a new tab navigates once, a form's answer
                # replaces its page): ask the new document.
                if not ("context" in str(error) or "navigated" in str(error)) or attempt == 49:
                    raise
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise AssertionError(f"in the page: {text}")
        return result["result"].get("value")

    def goto(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def wait_for(self, expression: str, seconds: float = 30.0) -> Any:
        """Wait, in the page, until ``expression`` is truthy; its value."""
        script = (
            "new Promise((resolve, reject) => { const t0 = Date.now(); (function check() {"
            f" let v; try {{ v = ({expression}); }} catch (e) {{ v = undefined; }}"
            " if (v) resolve(v);"
            f" else if (Date.now() - t0 > {int(seconds * 1000)}) reject(new Error("
            f"{json.dumps('timed out waiting for: ' + expression)}));"
            " else setTimeout(check, 50); })(); })"
        )
        return self.evaluate(script)

    def click(self, selector: str) -> None:
        """Click the middle of the element ``selector`` names with the mouse, as a person would
        (scrolled into view first): what covers it, if anything, gets the click."""
        where = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if where is None:
            raise AssertionError(f"nothing in the page matches {selector!r}")
        x, y = where
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: Path, width: int, height: int) -> None:
        """A PNG of the page as a ``width`` x ``height`` window shows it."""
        self.call(
            "Emulation.setDeviceMetricsOverride", width=width, height=height,
            deviceScaleFactor=1, mobile=False,
        )  # fmt: skip
        shot = self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()


class Browser:
    """A headless Chromium, closed by :meth:`close`."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        self._process = subprocess.Popen(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-extensions",
                "--remote-debugging-port=0", "--remote-allow-origins=*",
                f"--user-data-dir={profile}", "about:blank",
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self._process.stderr is not None
        for line in self._process.stderr:
            found = _LISTENING.search(line)
            if found:
                self.endpoint = urlsplit(found.group(1)).netloc
                break
        else:
            raise RuntimeError("chromium did not start its DevTools endpoint")
        # Keep reading its stderr, or a full pipe would stall the browser.
        threading.Thread(target=self._drain, daemon=True).start()
        self.pages: list[Page] = []

    def _drain(self) -> None:
        assert self._process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for _ in self._process.stderr:
                pass

    def open(self, url: str) -> Page:
        host, port = self.endpoint.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        connection.request("PUT", "/json/new?about:blank")
        target = json.loads(connection.getresponse().read())
        connection.close()
        page = Page(target["webSocketDebuggerUrl"])
        self.pages.append(page)
        page.goto(url)
        page.wait_for(
            f"location.href.startsWith({json.dumps(url)}) && document.readyState !== 'loading'"
        )
        return page

    def close(self) -> None:
        for page in self.pages:
            page.close()
        self._process.kill()
        self._process.wait()
        if self._process.stderr is not None:
            self._process.stderr.close()
