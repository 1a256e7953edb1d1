"""The frames of a long match's file, packed by column (``viewer.js``'s ``unpackFrames`` reads
them back into the same frames, exactly).

A column per key of the frames (every frame has the same keys, or nothing is packed):

* ``delta``: integers, each written as its difference from the one before;
* ``ms``: numbers of at most three decimals, as integer thousandths, delta-written;
* ``diff``: lists of one length, each written as the ``[index, value]`` pairs (flattened) that
  changed since the one before;
* ``notes``: lists of ``[kind, text]`` pairs: each text's numbers are taken out, leaving a
  template (the texts' few shapes, written once) and the numbers, so a note costs its numbers
  (written as a JSON text a chunk of ``NOTES_CHUNK`` frames);
* ``rows``: lists of integers, or of rows of one width whose each place holds integers or
  strings (the strings written once): each frame's number of items, then the items flattened;
* ``raw``: the values as they are.

A number taken out of a text is written as a number when JavaScript's ``String(Number(token))``
gives the token back (no leading zero, no trailing zero after the point), as a string otherwise,
so the text is the same.

The page holds the packed JSON gzip-compressed, in base64 (``packed_text``): the browser
decompresses it with its own ``DecompressionStream``.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["PACK_VERSION", "pack_frames", "packed_text"]

#: The packed frames' version: viewer.js reads this one.
PACK_VERSION = 1
#: Frames whose notes are one JSON text (the texts are most of the data, and one step's notes
#: are read at a time).
NOTES_CHUNK = 1024
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")
_EXACT = re.compile(r"(?:0|[1-9]\d{0,14})(?:\.\d{0,14}[1-9])?")


def _number(token: str) -> int | float | str:
    """The token as JavaScript will write it back: an integer, or a decimal whose shortest
    round-trip form (Python's and JavaScript's alike) is the token itself; else the text."""
    if not _EXACT.fullmatch(token):
        return token
    if "." not in token:
        return int(token)
    return float(token) if repr(float(token)) == token else token


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _column(values: list[Any]) -> dict[str, Any]:
    if all(_is_int(v) for v in values):
        return {"kind": "delta", "v": [b - a for a, b in zip([0, *values], values, strict=False)]}
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        thousandths = [round(v * 1000) for v in values]
        if all(t / 1000 == v for t, v in zip(thousandths, values, strict=True)):
            previous = [0, *thousandths]
            return {"kind": "ms", "v": [b - a for a, b in zip(previous, thousandths, strict=False)]}
    if (
        all(isinstance(v, list) for v in values)
        and len({len(v) for v in values}) == 1
        and all(_is_int(x) or isinstance(x, str) for v in values for x in v)
    ):
        changes: list[list[Any]] = []
        before = values[0]
        for value in values[1:]:
            changes.append([x for i, (a, b) in enumerate(zip(before, value, strict=True))
                            if a != b for x in (i, b)])  # fmt: skip
            before = value
        return {"kind": "diff", "first": values[0], "v": changes}
    if all(_is_notes(v) for v in values):
        return _notes(values)
    rows = _rows(values)
    return rows if rows is not None else {"kind": "raw", "v": values}


def _rows(values: list[Any]) -> dict[str, Any] | None:
    if not all(isinstance(v, list) for v in values):
        return None
    items = [item for value in values for item in value]
    width = 0
    text: list[int] = []
    if not all(_is_int(item) for item in items):
        if not all(isinstance(item, list) for item in items) or len({len(i) for i in items}) != 1:
            return None
        width = len(items[0])
        for place in range(width):
            column = [item[place] for item in items]
            if all(isinstance(x, str) for x in column):
                text.append(place)
            elif not all(_is_int(x) for x in column):
                return None
    strings: dict[str, int] = {}
    flat: list[int] = []
    for item in items:
        if width == 0:
            flat.append(item)
            continue
        for place, x in enumerate(item):
            flat.append(strings.setdefault(x, len(strings)) if place in text else x)
    return {
        "kind": "rows", "width": width, "text": text, "strings": list(strings),
        "counts": [len(value) for value in values], "v": flat,
    }  # fmt: skip


def _is_notes(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(n, list) and len(n) == 2 and all(isinstance(x, str) for x in n) for n in value
    )


def _notes(values: list[list[list[str]]]) -> dict[str, Any]:
    """Each frame: its number of notes; each note: its template's index then its numbers, in
    a JSON text a chunk of frames (read only when one of its frames' notes is)."""
    templates: dict[tuple[str, tuple[str, ...]], int] = {}
    counts: list[int] = []
    chunks: list[str] = []
    flat: list[int | float | str] = []
    for index, notes in enumerate(values):
        if index % NOTES_CHUNK == 0 and index:
            chunks.append(json.dumps(flat, separators=(",", ":"), ensure_ascii=False))
            flat = []
        counts.append(len(notes))
        for kind, text in notes:
            parts: list[str] = []
            numbers: list[int | float | str] = []
            at = 0
            for found in _NUMBER.finditer(text):
                parts.append(text[at : found.start()])
                numbers.append(_number(found.group()))
                at = found.end()
            parts.append(text[at:])
            flat.append(templates.setdefault((kind, tuple(parts)), len(templates)))
            flat.extend(numbers)
    chunks.append(json.dumps(flat, separators=(",", ":"), ensure_ascii=False))
    shapes = [[kind, list(parts)] for kind, parts in templates]
    return {
        "kind": "notes", "templates": shapes, "counts": counts, "chunk": NOTES_CHUNK, "v": chunks
    }  # fmt: skip


def pack_frames(frames: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """``frames`` by column, or None when they do not all have the same keys."""
    if not frames:
        return None
    keys = list(frames[0])
    if any(list(frame) != keys for frame in frames):
        return None
    columns = {key: _column([frame[key] for frame in frames]) for key in keys}
    return {"packed": PACK_VERSION, "count": len(frames), "columns": columns}


def packed_text(packed: dict[str, Any]) -> str:
    """``packed`` as the page holds it: its JSON, gzip-compressed (no time stamp: the same
    frames give the same page), in base64."""

    text = json.dumps(packed, separators=(",", ":"), ensure_ascii=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), mtime=0)).decode("ascii")
