"""A tiny HTTP/1.1 client over trio for the web tests (GET/POST; reads to the end)."""

from __future__ import annotations

import trio


async def http(
    port: int,
    path: str,
    method: str = "GET",
    body: str = "",
    limit: int = 1 << 20,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], str]:
    """(status, headers, body) of one request to 127.0.0.1:``port``, with extra ``headers``."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        if method == "POST":
            head += "Content-Type: application/x-www-form-urlencoded\r\n"
            head += f"Content-Length: {len(body.encode())}\r\n"
        await stream.send_all((head + "\r\n" + body).encode())
        data = b""
        while len(data) < limit and (chunk := await stream.receive_some(65536)):
            data += chunk
    header_text, _, payload = data.partition(b"\r\n\r\n")
    lines = header_text.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        payload = _dechunk(payload)
    return status, headers, payload.decode("utf-8", "replace")


def _dechunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_text, _, rest = data.partition(b"\r\n")
        size = int(size_text.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return out


async def first_events(port: int, path: str, count: int) -> list[str]:
    """The first ``count`` SSE event blocks of a stream (then it hangs up)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        data = b""
        while data.count(b"\n\n") < count + 1:
            chunk = await stream.receive_some(65536)
            if not chunk:
                break
            data += chunk.replace(b"\r\n", b"\n")
    _, _, events = data.partition(b"\n\n")
    text = events.decode()
    # Keep the event lines, dropping the chunked encoding's size lines between them.
    blocks = [
        "\n".join(x for x in block.split("\n") if x.startswith(("event:", "data:")))
        for block in text.split("\n\n")
    ]
    return [block for block in blocks if block.startswith("event:")][:count]
