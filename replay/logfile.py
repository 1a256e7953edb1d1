"""Reading a match log file of either format: a digest log (gzip, schema 2) is re-run by
:mod:`replay.digestread`, a JSON Lines log (schema 1) parsed by :mod:`replay.reader`."""

from __future__ import annotations

from pathlib import Path

from replay.digestread import parse_digest_log
from replay.reader import MatchLog, parse_log

__all__ = ["parse_log_bytes", "read_log"]


def read_log(path: str | Path, *, key: bytes | None = None) -> MatchLog:
    """Read and check the log at ``path``. Raises OSError, LogFormatError; a bad line is reported
    in ``MatchLog.bad`` (with everything before it kept), an unfinished log by ``complete``.

    A digest log (gzip: schema 2) is re-run to regenerate its outputs; ``key`` checks its
    signature too. A schema-1 log (JSON Lines) is read as it is."""
    with open(path, "rb") as binary:
        raw = binary.read()
    return parse_log_bytes(raw, str(path), key=key)


def parse_log_bytes(
    raw: bytes, path: str = "<log>", *, key: bytes | None = None, growing: bool = False
) -> MatchLog:
    """:func:`read_log` of a file's bytes, either format. ``growing``: the file is being
    written, so a last line without its newline is left out rather than judged."""
    if raw[:2] == b"\x1f\x8b":
        return parse_digest_log(raw, path, key=key)
    if growing:
        raw = raw[: raw.rfind(b"\n") + 1]
    parts = raw.decode("utf-8", "replace" if growing else "strict").split("\n")
    # On "\n" only, as written (not str.splitlines, which splits on other separators too).
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return parse_log(lines, path)
