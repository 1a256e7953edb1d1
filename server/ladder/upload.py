"""A submission sent by a web form (``multipart/form-data``), read as it streams: its few text
fields kept in memory, its one file written to disk and refused as soon as it passes the
ladder's upload limit, so a 1 GB upload costs at most the limit in bytes read and written.

    form = FormReader(content_type, folder, limit, authorize)  # sans-I/O: feed it the chunks
    for chunk in chunks: form.feed(chunk)
    upload = form.close()                              # Upload(fields, path, filename)
    upload = await read_upload(request.stream(), content_type, folder, limit, authorize)

``authorize(fields)`` is called with the fields read so far when the file's part begins, before
a byte of it is written: it raises to refuse the form (a wrong token), so that a form whose
credential is wrong writes nothing (the token's field must come before the file, as a browser
sends the fields of the page's form).

Refused with :class:`~server.ladder.db.LadderError` (one line): not a multipart form, more than
one file or :data:`MAX_FIELDS` fields, a field over :data:`MAX_FIELD` bytes, a file past
``limit``, a body cut short. The file's name is reduced to a safe base name (the suffix, such as
``.zip``, decides how it is unpacked).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import trio
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

from server.ladder.db import LadderError

__all__ = [
    "MAX_FIELD",
    "MAX_FIELDS",
    "OVERHEAD",
    "Authorize",
    "FormReader",
    "Upload",
    "read_upload",
    "safe_name",
]

MAX_FIELDS = 8
MAX_FIELD = 4096
#: What a form may hold beside its file (its fields, the parts' heads and boundaries).
OVERHEAD = MAX_FIELDS * MAX_FIELD + 65536
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(filename: str) -> str:
    """A browser's file name as a plain base name: ``C:\\x\\my bot.zip`` -> ``my_bot.zip``."""
    base = re.split(r"[\\/]", filename)[-1]
    base = _UNSAFE.sub("_", base).lstrip(".")[-100:]
    return base or "upload"


@dataclass
class Upload:
    fields: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    filename: str | None = None


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


#: Says whether a form may write its file, from the fields before it (raises to refuse).
Authorize = Callable[[dict[str, str]], None]


class FormReader:
    """Feeds a multipart body to python-multipart's push parser within limits."""

    def __init__(
        self, content_type: str, folder: Path, limit: int, authorize: Authorize | None = None
    ) -> None:
        kind, options = parse_options_header(content_type)
        boundary = options.get(b"boundary")
        if kind != b"multipart/form-data" or not boundary:
            raise LadderError("the upload is not a multipart form (multipart/form-data)")
        self.folder, self.limit, self.authorize = folder, limit, authorize
        self.upload = Upload()
        self._headers: dict[str, str] = {}
        self._header = self._value = b""
        self._name: str | None = None
        self._file: IO[bytes] | None = None
        self._size = 0
        self._text = bytearray()
        self._received = 0
        self._ended = False
        callbacks: Any = {
            "on_part_begin": self._part_begin,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }
        self._parser = MultipartParser(boundary, callbacks)

    def _part_begin(self) -> None:
        self._headers, self._name, self._text = {}, None, bytearray()

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._header += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        key = self._header.decode("latin-1").lower()
        self._headers[key] = self._value.decode("utf-8", "replace")
        self._header = self._value = b""

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get("content-disposition", ""))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        self._name = name
        if b"filename" in options:
            if self.upload.path is not None:
                raise LadderError("the form holds more than one file")
            if self.authorize is not None:
                self.authorize(dict(self.upload.fields))
            filename = options[b"filename"].decode("utf-8", "replace")
            self.upload.filename = safe_name(filename)
            self.upload.path = self.folder / self.upload.filename
            self._file = self.upload.path.open("xb")
        elif len(self.upload.fields) >= MAX_FIELDS:
            raise LadderError(f"the form holds more than {MAX_FIELDS} fields")

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self._file is not None:
            self._size += end - start
            if self._size > self.limit:
                raise LadderError(f"{self.upload.filename}: larger than {_mib(self.limit)}")
            self._file.write(data[start:end])
            return
        self._text += data[start:end]
        if len(self._text) > MAX_FIELD:
            raise LadderError(f"the form's field {self._name!r} is longer than {MAX_FIELD} bytes")

    def _part_end(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        elif self._name is not None:
            self.upload.fields[self._name] = self._text.decode("utf-8", "replace")

    def _end(self) -> None:
        self._ended = True

    def feed(self, chunk: bytes) -> None:
        """The next bytes of the body."""
        self._received += len(chunk)
        try:
            self._parser.write(chunk)
        except FormParserError as error:
            self._discard()
            raise LadderError(f"the upload is not a well-formed form ({error})") from None
        except BaseException:
            self._discard()
            raise
        if self._received > self.limit + OVERHEAD:
            self._discard()
            raise LadderError(f"the upload is larger than {_mib(self.limit)}")

    def close(self) -> Upload:
        """The form, once the whole body was fed."""
        if not self._ended:
            self._discard()
            raise LadderError("the upload was cut short (the form never ended)")
        return self.upload

    def _discard(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self.upload.path is not None:
            self.upload.path.unlink(missing_ok=True)


async def read_upload(
    chunks: AsyncIterable[bytes],
    content_type: str,
    folder: Path,
    limit: int,
    authorize: Authorize | None = None,
) -> Upload:
    """Read a streamed form (Starlette's ``request.stream()``) into ``folder``; each chunk is
    parsed and written in a worker thread (a disk, or ``authorize``, never stalls the pages)."""
    form = FormReader(content_type, folder, limit, authorize)
    async for chunk in chunks:
        if chunk:
            await trio.to_thread.run_sync(form.feed, chunk)
    return form.close()
