"""The run journal: one JSON line per finished match, appended and flushed as it finishes.

It sits beside the results file (``results.json`` -> ``results.json.journal``). Its first line
names the run (game, strategies, seed, rules options); ``--resume`` refuses a journal written for
another run, skips every match already in it, and so loses no finished match. A last line cut
short by a crash is dropped (its match is simply played again); damage anywhere else is an error
naming the line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

__all__ = ["Journal", "JournalError", "journal_path"]

FORMAT = 1


class JournalError(Exception):
    """A journal that cannot be resumed: another run's, or damaged."""


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal")


@dataclass
class Journal:
    path: Path
    #: Matches already finished, by job index.
    done: dict[int, dict[str, Any]]
    _stream: IO[str] | None = None

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        """Start a fresh journal; refuses to overwrite one (that would lose finished matches)."""
        if path.exists():
            raise JournalError(
                f"{path} exists from an earlier run: pass --resume to continue it, "
                "or delete it to start again"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = path.open("w", encoding="utf-8")
        stream.write(json.dumps({"journal": FORMAT, **header}) + "\n")
        stream.flush()
        return cls(path, {}, stream)

    @classmethod
    def resume(cls, path: Path, header: dict[str, Any]) -> Journal:
        """Reopen a journal for appending, after checking it belongs to the same run."""
        if not path.exists():
            return cls.create(path, header)
        with path.open("rb") as raw:
            data = raw.read()
        lines = data.split(b"\n")
        # A final line without its newline was cut short mid-write: drop it and its bytes.
        complete, tail = lines[:-1], lines[-1]
        if tail:
            with path.open("r+b") as raw:
                raw.truncate(len(data) - len(tail))
        if not complete:
            path.unlink()
            return cls.create(path, header)
        first = _parse(path, 1, complete[0])
        expected = {"journal": FORMAT, **header}
        for key, value in expected.items():
            if first.get(key) != value:
                raise JournalError(
                    f"{path}:1: field {key!r} is {first.get(key)!r} but this run has {value!r}; "
                    "it belongs to another run"
                )
        done: dict[int, dict[str, Any]] = {}
        for number, line in enumerate(complete[1:], start=2):
            record = _parse(path, number, line)
            if not isinstance(record.get("index"), int):
                raise JournalError(f"{path}:{number}: field 'index' is missing or not an integer")
            done[record["index"]] = record
        return cls(path, done, path.open("a", encoding="utf-8"))

    def append(self, record: dict[str, Any]) -> None:
        """Record one finished match, on disk before this returns."""
        assert self._stream is not None, "journal is closed"
        self._stream.write(json.dumps(record) + "\n")
        self._stream.flush()
        self.done[record["index"]] = record

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


def _parse(path: Path, number: int, line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise JournalError(f"{path}:{number}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise JournalError(f"{path}:{number}: not a JSON object")
    return record
