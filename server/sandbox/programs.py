"""What a program needs to start, outside the system directories: its executable, interpreter,
virtualenv (:func:`program_paths`), bound read-only in its sandbox (see :mod:`server.sandbox`)."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

__all__ = ["program_paths"]


def _interpreter(path: str) -> list[str]:
    """The interpreter named by a script's ``#!`` line (through ``env``), or []."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")][:1]
        found = shutil.which(words[0]) if words else None
        return [found] if found else []
    return words[:1]


def _top_level_names(site: Path) -> set[str]:
    """The importable names the distributions installed in ``site`` declare."""
    names: set[str] = set()
    for listing in [
        *site.glob("*.dist-info/top_level.txt"),
        *site.glob("*.egg-info/top_level.txt"),
    ]:
        with contextlib.suppress(OSError):
            names.update(line.strip() for line in listing.read_text().splitlines())
    names.discard("")
    return names


def _importable(directory: Path, names: set[str]) -> list[Path]:
    """What a ``.pth`` line's directory holds that Python imports: its packages (a folder with
    ``__init__.py``) and the modules or namespace packages named in ``names``. Never the
    directory itself: an editable install names a project's checkout, and a checkout holds its
    ``.git``, and may hold a tournament's output folder (logs, journal, teams' folders)."""
    out: list[Path] = []
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return out
    for entry in entries:
        if entry.name.startswith("."):
            continue
        init = os.path.join(entry.path, "__init__.py")
        package = entry.is_dir(follow_symlinks=False) and os.path.isfile(init)
        module = entry.name.endswith((".py", ".so")) and entry.name.split(".", 1)[0] in names
        if package or module or entry.name in names:
            out.append(Path(entry.path))
    return out


def _python_home(executable: str) -> list[Path]:
    """A Python's prefix, and a virtualenv's directory, base prefix and what is importable from
    the directories its ``.pth`` files name (:func:`_importable`)."""
    bin_dir = Path(os.path.abspath(executable)).parent
    venv = bin_dir.parent
    config = venv / "pyvenv.cfg"
    if not config.is_file():
        real = Path(os.path.realpath(executable)).parent.parent
        return [real] if (real / "lib").is_dir() else []
    out = [venv]
    for line in config.read_text(errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            out.append(Path(value.strip()).parent)
    for pth in venv.glob("lib/python*/site-packages/*.pth"):
        names = _top_level_names(pth.parent)
        lines = [line.strip() for line in pth.read_text(errors="replace").splitlines()]
        for line in lines:
            if line.startswith("/") and os.path.isdir(line):
                out += _importable(Path(line), names)
    return out


def program_paths(argv: Sequence[str]) -> list[Path]:
    """What ``argv`` needs to start, outside the system directories: the executable, the
    interpreter of a ``#!`` script (for a Python: its prefix, virtualenv and ``.pth`` paths),
    and likewise every argument that names an existing file by a path (``python3 bot.py``)."""
    out: list[Path] = []
    command = argv[0] if argv else ""
    found = command if os.sep in command else shutil.which(command)
    todo = [os.path.abspath(found)] if found and os.path.exists(found) else []
    todo += [os.path.abspath(w) for w in argv[1:] if os.sep in w and os.path.isfile(w)]
    seen: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        out.append(Path(path))
        real = os.path.realpath(path)
        if real != path:
            todo.append(real)
        if "python" in os.path.basename(path):
            out += _python_home(path)
        todo += _interpreter(real)
    return out
