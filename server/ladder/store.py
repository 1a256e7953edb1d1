"""The ladder's content-addressed store: every file (a program's file, a manifest, build and
pre-flight output, a match log) kept once under its SHA-256, the database holding the digests.

    store = Store(Path("cs312/store"))
    digest = store.put(b"bytes")                     # or put_file(path), put_stream(chunks)
    store.read(digest); store.path(digest)           # objects/ab/cdef...
    manifest = store.put_tree(folder)                # a folder: a JSON manifest of its files
    store.checkout(manifest, Path("scratch/p1"))     # a fresh copy of that folder

A write goes to a temporary file in the store, is flushed to disk (fsync) and renamed into
place: a reader sees a whole object or none, and a process killed mid-write leaves at most a
temporary file (removed by :meth:`Store.sweep`), never a torn object. Objects are read-only.
A manifest is ``{"files": {"rel/path": {"hash": ..., "size": ..., "exec": bool}}}`` (sorted,
so the same folder always has the same digest): a version's content hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["Store", "StoreError"]

_DIGEST = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 16


class StoreError(Exception):
    """A digest the store does not hold, or a manifest that is not one."""


def _fsync_dir(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class Store:
    """Objects under ``root/objects/ab/cdef...``; temporary files under ``root/tmp``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.objects = root / "objects"
        self.tmp = root / "tmp"
        self.objects.mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(exist_ok=True)

    def path(self, digest: str) -> Path:
        if not _DIGEST.fullmatch(digest):
            raise StoreError(f"{digest!r} is not a SHA-256 digest")
        return self.objects / digest[:2] / digest[2:]

    def has(self, digest: str) -> bool:
        return self.path(digest).is_file()

    def read(self, digest: str) -> bytes:
        try:
            return self.path(digest).read_bytes()
        except FileNotFoundError:
            raise StoreError(f"the store holds no object {digest}") from None

    def put(self, data: bytes) -> str:
        return self.put_stream([data])

    def put_file(self, path: Path) -> str:
        with path.open("rb") as source:
            return self.put_stream(iter(lambda: source.read(_CHUNK), b""))

    def put_stream(self, chunks: Iterable[bytes]) -> str:
        """Store the bytes of ``chunks`` (written as they come, hashed on the way)."""
        digest = hashlib.sha256()
        handle, name = tempfile.mkstemp(dir=self.tmp, prefix="put-")
        temporary = Path(name)
        try:
            with os.fdopen(handle, "wb") as out:
                for chunk in chunks:
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            hexdigest = digest.hexdigest()
            final = self.path(hexdigest)
            if not final.is_file():
                final.parent.mkdir(exist_ok=True)
                temporary.chmod(0o444)
                os.replace(temporary, final)
                _fsync_dir(final.parent)
        finally:
            temporary.unlink(missing_ok=True)
        return hexdigest

    def put_json(self, value: Any) -> str:
        return self.put(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())

    def read_json(self, digest: str) -> Any:
        return json.loads(self.read(digest))

    def put_tree(self, folder: Path) -> str:
        """Store every regular file under ``folder`` and its manifest; the manifest's digest.
        Links and special files are refused (submissions are unpacked without them)."""
        files: dict[str, dict[str, Any]] = {}
        for directory, subdirectories, names in os.walk(folder):
            subdirectories.sort()
            for name in sorted(names):
                path = Path(directory) / name
                info = path.lstat()
                relative = path.relative_to(folder).as_posix()
                if not stat.S_ISREG(info.st_mode):
                    raise StoreError(f"{relative}: not a regular file")
                files[relative] = {
                    "hash": self.put_file(path),
                    "size": info.st_size,
                    "exec": bool(info.st_mode & 0o111),
                }
        return self.put_json({"files": dict(sorted(files.items()))})

    def manifest(self, digest: str) -> dict[str, dict[str, Any]]:
        """The files of a manifest, each relative path checked to stay inside its folder."""
        value = self.read_json(digest)
        if not isinstance(value, dict) or not isinstance(value.get("files"), dict):
            raise StoreError(f"{digest} is not a manifest")
        for relative in value["files"]:
            parts = PurePosixPath(relative).parts
            if relative.startswith("/") or not parts or ".." in parts:
                raise StoreError(f"{digest}: {relative!r} is outside its folder")
        files: dict[str, dict[str, Any]] = value["files"]
        return files

    def checkout(self, digest: str, destination: Path) -> None:
        """Write the folder of manifest ``digest`` into ``destination`` (created; must not
        hold the same names): fresh, writable copies of the objects."""
        destination.mkdir(parents=True, exist_ok=True)
        for relative, entry in self.manifest(digest).items():
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with self.path(entry["hash"]).open("rb") as source, target.open("xb") as out:
                while chunk := source.read(_CHUNK):
                    out.write(chunk)
            target.chmod(0o755 if entry["exec"] else 0o644)

    def sweep(self, before: float) -> int:
        """Remove temporary files last written before ``before`` (UNIX seconds): the leftovers
        of processes killed mid-write. How many."""
        removed = 0
        for leftover in self.tmp.iterdir():
            if leftover.lstat().st_mtime < before:
                leftover.unlink(missing_ok=True)
                removed += 1
        return removed
