"""A submission from a web form, read as it streams: the fields and the one file kept, a huge
upload refused at the limit (not read to its end), malformed forms refused with one line."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path

import pytest

from server.ladder.db import LadderError
from server.ladder.upload import FormReader, read_upload, safe_name

BOUNDARY = "----arena7MA4YWxkTrZu0gW"
TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def _part(name: str, value: bytes, filename: str | None = None) -> bytes:
    disposition = f'form-data; name="{name}"'
    if filename is not None:
        disposition += f'; filename="{filename}"'
    head = f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n"
    if filename is not None:
        head += "Content-Type: application/zip\r\n"
    return head.encode() + b"\r\n" + value + b"\r\n"


def _body(*parts: bytes) -> bytes:
    return b"".join(parts) + f"--{BOUNDARY}--\r\n".encode()


async def _stream(data: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


@pytest.mark.parametrize("size", [1, 7, 1 << 16])
async def test_the_fields_and_the_file_are_read_however_the_body_is_split(
    size: int, tmp_path: Path
) -> None:
    body = _body(_part("token", b"t0ken"), _part("program", b"PK\x03\x04 zip bytes", "bot.zip"))
    upload = await read_upload(_stream(body, size), TYPE, tmp_path, limit=1 << 20)
    assert upload.fields == {"token": "t0ken"}
    assert upload.filename == "bot.zip"
    assert upload.path == tmp_path / "bot.zip"
    assert upload.path.read_bytes() == b"PK\x03\x04 zip bytes"


async def test_a_1_gb_upload_is_refused_at_the_limit(tmp_path: Path) -> None:
    """The body of a 1 GiB file is refused once its file passes 16 MiB: 17 chunks of 1 MiB are
    read, not 1024, and the partial file is removed."""
    read = 0

    async def huge() -> AsyncIterator[bytes]:
        nonlocal read
        yield _part("token", b"t").rstrip(b"\r\n") + b"\r\n"
        head = (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="p"; filename="big.zip"\r\n\r\n'
        )
        yield head.encode()
        for _ in range(1024):
            read += 1
            yield bytes(1 << 20)

    with pytest.raises(LadderError, match=r"^big\.zip: larger than 16 MiB$"):
        async with aclosing(huge()) as chunks:
            await read_upload(chunks, TYPE, tmp_path, limit=16 << 20)
    assert read == 17
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        ("application/x-www-form-urlencoded", b"token=x", "not a multipart form"),
        (TYPE, _body(_part("a", b"1", "a.zip"), _part("b", b"2", "b.zip")), "more than one file"),
        (TYPE, _body(*(_part(f"f{n}", b"x") for n in range(9))), "more than 8 fields"),
        (TYPE, _body(_part("token", b"x" * 5000)), "field 'token' is longer than 4096 bytes"),
        (TYPE, _part("program", b"half", "bot.zip"), "the upload was cut short"),
    ],
    ids=["not-multipart", "two-files", "many-fields", "long-field", "cut-short"],
)
def test_a_malformed_form_is_one_line_and_leaves_no_file(
    content_type: str, body: bytes, message: str, tmp_path: Path
) -> None:
    def run() -> None:
        form = FormReader(content_type, tmp_path, limit=1 << 20)
        form.feed(body)
        form.close()

    with pytest.raises(LadderError, match=message) as caught:
        run()
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("given", "safe"),
    [
        ("bot.zip", "bot.zip"),
        ("C:\\Users\\ann\\my bot.zip", "my_bot.zip"),
        ("../../etc/passwd", "passwd"),
        ("..", "upload"),
        (".hidden.zip", "hidden.zip"),
        ("<script>.py", "_script_.py"),
        ("", "upload"),
    ],
)
def test_a_browser_file_name_becomes_a_safe_base_name(given: str, safe: str) -> None:
    assert safe_name(given) == safe


def test_a_file_is_not_written_before_its_form_is_authorized(tmp_path: Path) -> None:
    """As the file's part begins, the fields before it (the token) are handed to ``authorize``:
    refused, the form ends there and no file was ever created."""
    seen: list[tuple[dict[str, str], list[Path]]] = []

    def refuse(fields: dict[str, str]) -> None:
        seen.append((fields, list(tmp_path.iterdir())))
        raise LadderError("wrong token")

    form = FormReader(TYPE, tmp_path, 1 << 20, refuse)
    with pytest.raises(LadderError, match=r"^wrong token$"):
        form.feed(_body(_part("token", b"guess"), _part("program", b"x" * 100, "bot.zip")))
    assert seen == [({"token": "guess"}, [])]
    assert form.upload.path is None
    assert list(tmp_path.iterdir()) == []
    allowed = FormReader(TYPE, tmp_path, 1 << 20, lambda fields: None)
    allowed.feed(_body(_part("token", b"t0ken"), _part("program", b"zip", "bot.zip")))
    assert allowed.close().path == tmp_path / "bot.zip"
