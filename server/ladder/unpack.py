"""A submission unpacked safely into a fresh folder: a file, a folder or a zip archive.

Refused, with one line naming the entry: an absolute path or one with ``..``, a link (symbolic
or hard, in a folder or an archive), a device or FIFO, an upload past ``upload_bytes`` (checked
before it is read, and while a stream is received), more than ``files`` files, more than
``unpacked_bytes`` once unpacked. Archive sizes are counted as bytes are actually written, never
taken from the archive's own headers, so a zip bomb stops at the limit whatever it claims.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from server.ladder.db import LadderError

__all__ = ["MAX_DEPTH", "MAX_NAME", "MAX_PATH", "Bounds", "receive", "unpack"]

_CHUNK = 1 << 16
#: An entry's path: at most this many folders deep, bytes long, bytes per name.
MAX_DEPTH, MAX_PATH, MAX_NAME = 32, 1024, 128


@dataclass(frozen=True)
class Bounds:
    upload_bytes: int = 16 << 20
    unpacked_bytes: int = 64 << 20
    files: int = 1000


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


def receive(chunks: Iterable[bytes], path: Path, limit: int, name: str = "upload") -> int:
    """Write a streamed upload to ``path``; refused (and removed) as soon as it passes
    ``limit`` bytes. Its size."""
    size = 0
    whole = False
    try:
        with path.open("xb") as out:
            for chunk in chunks:
                size += len(chunk)
                _within(size, limit, name)
                out.write(chunk)
        whole = True
    finally:
        if not whole:
            path.unlink(missing_ok=True)
    return size


def _within(size: int, limit: int, name: str) -> None:
    if size > limit:
        raise LadderError(f"{name}: larger than {_mib(limit)}")


def _shown(name: str) -> str:
    return repr(name if len(name) <= 60 else name[:57] + "...")


def _relative(name: str, where: str) -> PurePosixPath:
    """An entry's path, checked to stay inside the folder and within sane lengths."""
    if "\x00" in name or "\\" in name:
        raise LadderError(f"{where}: entry {_shown(name)}: a name with NUL or a backslash")
    path = PurePosixPath(name)
    if path.is_absolute() or (path.parts and path.parts[0].endswith(":")):
        raise LadderError(f"{where}: entry {_shown(name)} is an absolute path")
    if ".." in path.parts:
        raise LadderError(f"{where}: entry {_shown(name)} leaves its folder ('..')")
    if not path.parts or path.parts == (".",):
        raise LadderError(f"{where}: an entry with an empty name")
    if len(path.parts) > MAX_DEPTH or len(name.encode()) > MAX_PATH:
        raise LadderError(
            f"{where}: entry {_shown(name)}: deeper than {MAX_DEPTH} folders or longer than "
            f"{MAX_PATH} bytes"
        )
    if any(len(part.encode()) > MAX_NAME for part in path.parts):
        raise LadderError(f"{where}: entry {_shown(name)}: a name longer than {MAX_NAME} bytes")
    return path


class _Tally:
    def __init__(self, bounds: Bounds, where: str) -> None:
        self.bounds, self.where = bounds, where
        self.files = self.bytes = self.folders = 0

    def file(self, name: str) -> None:
        self.files += 1
        if self.files > self.bounds.files:
            raise LadderError(f"{self.where}: more than {self.bounds.files} files")

    def folder(self) -> None:
        self.folders += 1
        if self.folders > self.bounds.files:
            raise LadderError(f"{self.where}: more than {self.bounds.files} folders")

    def nonempty(self) -> None:
        if self.files == 0:
            raise LadderError(f"{self.where}: no file in it")

    def add(self, size: int) -> None:
        self.bytes += size
        if self.bytes > self.bounds.unpacked_bytes:
            raise LadderError(
                f"{self.where}: more than {_mib(self.bounds.unpacked_bytes)} once unpacked"
            )


def _copy(source: Iterable[bytes], target: Path, tally: _Tally) -> None:
    with target.open("xb") as out:
        for chunk in source:
            tally.add(len(chunk))
            out.write(chunk)


def _chunks(handle: object) -> Iterable[bytes]:
    read = handle.read  # type: ignore[attr-defined]
    while chunk := read(_CHUNK):
        yield chunk


def unpack(source: Path, destination: Path, bounds: Bounds) -> tuple[int, int]:
    """Unpack ``source`` into ``destination`` (created, must not exist); (files, bytes).
    Anything refused leaves ``destination`` removed."""
    where = source.name or str(source)
    try:
        info = source.lstat()
    except FileNotFoundError:
        raise LadderError(f"{source}: no such file or folder") from None
    if stat.S_ISLNK(info.st_mode):
        raise LadderError(f"{source}: a link (submit the file or folder itself)")
    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        raise LadderError(f"{source}: neither a file nor a folder")
    if stat.S_ISREG(info.st_mode):
        _within(info.st_size, bounds.upload_bytes, where)
    destination.mkdir(parents=True)
    tally = _Tally(bounds, where)
    whole = False
    try:
        if stat.S_ISDIR(info.st_mode):
            _unpack_folder(source, destination, tally)
        elif source.suffix.lower() == ".zip":
            _unpack_zip(source, destination, tally)
        else:
            _unpack_file(source, destination, tally, info.st_mode)
        tally.nonempty()
        whole = True
    finally:
        if not whole:
            shutil.rmtree(destination, ignore_errors=True)
    return tally.files, tally.bytes


def _unpack_file(source: Path, destination: Path, tally: _Tally, mode: int) -> None:
    _relative(source.name, tally.where)
    tally.file(source.name)
    with source.open("rb") as handle:
        _copy(_chunks(handle), destination / source.name, tally)
    if mode & 0o111:
        (destination / source.name).chmod(0o755)


def _unpack_folder(source: Path, destination: Path, tally: _Tally) -> None:
    total = 0
    for directory, subdirectories, names in os.walk(source):  # never follows links
        here = Path(directory)
        for name in sorted(subdirectories):
            entry = here / name
            relative = entry.relative_to(source)
            _relative(relative.as_posix(), tally.where)
            if entry.is_symlink():
                raise LadderError(f"{tally.where}: {relative.as_posix()} is a link")
            tally.folder()
            (destination / relative).mkdir()
        for name in sorted(names):
            entry = here / name
            relative = entry.relative_to(source)
            _relative(relative.as_posix(), tally.where)
            info = entry.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise LadderError(f"{tally.where}: {relative.as_posix()} is a link")
            if not stat.S_ISREG(info.st_mode):
                raise LadderError(f"{tally.where}: {relative.as_posix()} is not a regular file")
            if info.st_nlink > 1:
                raise LadderError(f"{tally.where}: {relative.as_posix()} is a hard link")
            total += info.st_size
            _within(total, tally.bounds.upload_bytes, tally.where)
            tally.file(relative.as_posix())
            with entry.open("rb") as handle:
                _copy(_chunks(handle), destination / relative, tally)
            if info.st_mode & 0o111:
                (destination / relative).chmod(0o755)


def _unpack_zip(source: Path, destination: Path, tally: _Tally) -> None:
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as error:
        raise LadderError(f"{tally.where}: not a zip archive ({error})") from None
    seen: set[str] = set()
    with archive:
        for entry in archive.infolist():
            relative = _relative(entry.filename, tally.where)
            mode = entry.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise LadderError(f"{tally.where}: entry {entry.filename!r} is a link")
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise LadderError(f"{tally.where}: entry {entry.filename!r} is not a file")
            key = relative.as_posix()
            if key in seen:
                raise LadderError(f"{tally.where}: entry {_shown(entry.filename)} twice")
            seen.add(key)
            target = destination.joinpath(*relative.parts)
            try:
                if entry.is_dir():
                    tally.folder()
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError):
                raise LadderError(
                    f"{tally.where}: entry {_shown(entry.filename)} clashes with another entry"
                ) from None
            tally.file(key)
            try:
                with archive.open(entry) as handle:
                    _copy(_chunks(handle), target, tally)
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                raise LadderError(
                    f"{tally.where}: entry {_shown(entry.filename)} clashes with another entry"
                ) from None
            except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError,
                    RuntimeError, ValueError) as error:  # fmt: skip
                raise LadderError(f"{tally.where}: entry {entry.filename!r}: {error}") from None
            if mode & 0o111:
                target.chmod(0o755)
