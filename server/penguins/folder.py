"""A Penguins program's private folder, which lasts its whole game: measured and emptied by
descriptors, one per level, never recursing or following a link (a path may outgrow the
system's limit), bounded by :data:`FOLDER_FILES`, :data:`FOLDER_BYTES` and :data:`FOLDER_DEPTH`;
its board file written as a new file and read back once, at most :data:`MAX_FILE_BYTES`.
The game master (:mod:`server.penguins.master`) calls these around every call."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = [
    "FOLDER_BYTES",
    "FOLDER_DEPTH",
    "FOLDER_FILES",
    "MAX_FILE_BYTES",
    "empty_folder",
    "folder_size",
    "over_bounds",
    "read_once",
    "write_fresh",
]

#: Largest board file a program may leave behind (anything bigger is malformed).
MAX_FILE_BYTES = 1 << 20
#: Most files (and folders) a program's private folder may hold after a call.
FOLDER_FILES = 1000
#: Most bytes the files of a program's private folder may hold after a call.
FOLDER_BYTES = 64 << 20
#: How deep folders may nest in a program's private folder.
FOLDER_DEPTH = 32

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def folder_size(folder: Path) -> tuple[int, int, int]:
    """How many entries and bytes ``folder`` holds and how deep its folders nest (links counted,
    never followed), by descriptors (a path may outgrow the system's limit): depth first, one
    descriptor per level, stopping once past a bound."""
    entries = size = depth = 0
    levels = [os.open(folder, DIRECTORY)]
    scans = [os.scandir(levels[0])]
    try:
        while scans and entries <= FOLDER_FILES and depth <= FOLDER_DEPTH:
            entry = next(scans[-1], None)
            if entry is None:
                scans.pop().close()
                os.close(levels.pop())
                continue
            entries += 1
            if entry.is_dir(follow_symlinks=False):
                depth = max(depth, len(levels))
                if depth <= FOLDER_DEPTH:
                    levels.append(os.open(entry.name, DIRECTORY, dir_fd=levels[-1]))
                    scans.append(os.scandir(levels[-1]))
            elif entry.is_file(follow_symlinks=False):
                size += entry.stat(follow_symlinks=False).st_size
    finally:
        for scan in scans:
            scan.close()
        for descriptor in levels:
            os.close(descriptor)
    return entries, size, depth


def over_bounds(folder: Path) -> str:
    """Why ``folder`` is too big for a private folder, or ""."""
    entries, size, depth = folder_size(folder)
    if entries > FOLDER_FILES:
        return f"sandbox limit: its folder holds {entries} files (at most {FOLDER_FILES})"
    if size > FOLDER_BYTES:
        return f"sandbox limit: its folder holds {size} bytes (at most {FOLDER_BYTES})"
    if depth > FOLDER_DEPTH:
        return f"sandbox limit: its folder nests {depth} deep (at most {FOLDER_DEPTH})"
    return ""


def empty_folder(folder: Path) -> None:
    """Remove whatever a program left in its folder (links are removed, never followed): a
    folder's subfolders are first moved up beside it, so however deep a nest, the master holds
    two descriptors and never recurses."""
    folder.mkdir(parents=True, exist_ok=True)
    root, moved = os.open(folder, DIRECTORY), 0
    try:
        while names := os.listdir(root):
            for name in names:
                if not stat.S_ISDIR(os.lstat(name, dir_fd=root).st_mode):
                    os.unlink(name, dir_fd=root)
                    continue
                inner = os.open(name, DIRECTORY, dir_fd=root)
                try:
                    for entry in os.listdir(inner):
                        if stat.S_ISDIR(os.lstat(entry, dir_fd=inner).st_mode):
                            while os.path.lexists(folder / f".moved{moved}"):
                                moved += 1
                            os.rename(entry, f".moved{moved}", src_dir_fd=inner, dst_dir_fd=root)
                        else:
                            os.unlink(entry, dir_fd=inner)
                finally:
                    os.close(inner)
                os.rmdir(name, dir_fd=root)
    finally:
        os.close(root)


def write_fresh(path: Path, data: bytes) -> None:
    """Write ``path`` as a new regular file, whatever was there (never following a link)."""
    if os.path.lexists(path):
        if path.is_dir() and not path.is_symlink():
            raise OSError(f"{path} is a directory")
        path.unlink()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(data)


def read_once(path: Path) -> str | None:
    """The text a program left in ``path``, read once through one descriptor: None when it is
    missing, a link, not a regular file or bigger than :data:`MAX_FILE_BYTES`."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        data = os.read(descriptor, MAX_FILE_BYTES + 1)
        while len(data) <= MAX_FILE_BYTES and (more := os.read(descriptor, 1 << 16)):
            data += more
    finally:
        os.close(descriptor)
    if len(data) > MAX_FILE_BYTES:
        return None
    return data.decode("utf-8", "surrogateescape")
