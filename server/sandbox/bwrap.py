"""The command line that runs a program sandboxed (:func:`sandbox_argv`): bubblewrap's
namespaces and the view of the file system the program gets (the system read-only, the paths it
needs to start, its folder read-write), its user and its limits (see :mod:`server.sandbox`)."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from server.sandbox.limits import Limits
from server.sandbox.users import SANDBOX_UID

__all__ = ["INSIDE", "sandbox_argv"]

#: Where the program's folder appears inside the sandbox (its working directory).
INSIDE = "/sandbox"
#: Bound read-only in every sandbox, when present.
SYSTEM = ("/usr",)
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
)


def _system_binds() -> list[str]:
    out: list[str] = []
    for path in SYSTEM:
        out += ["--ro-bind", path, path]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
    # (made by bwrap for the binds below, /etc was closed to the program's user: the dynamic
    # loader could not read ld.so.cache, nor a shell follow /usr/bin/cc's alternative)
    out += ["--perms", "0755", "--dir", "/etc"]
    for path in ETC:
        out += ["--ro-bind-try", path, path]
    return out


def _covered(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in (*SYSTEM, *SYSTEM_LINKS))


def _read_only_binds(paths: Sequence[Path]) -> list[str]:
    """Binds of ``paths`` at their own paths, with world-searchable parent directories (bwrap
    would copy a parent's mode, and /root is 0700). A bound directory keeps its own mode, so
    one that others cannot search (a checkout made by ``mktemp -d`` is 0700) is made afresh
    inside and its entries are bound one by one, under the same rule."""
    wanted = sorted({os.path.abspath(p) for p in paths if not _covered(os.path.abspath(p))})
    out: list[str] = []
    made: set[str] = {"/"}
    bound: list[str] = []
    todo = wanted[::-1]
    while todo:
        path = todo.pop()
        if any(path == top or path.startswith(top + "/") for top in bound):
            continue  # already visible through a directory bound above it
        parents = []
        parent = os.path.dirname(path)
        while parent not in made:
            parents.append(parent)
            parent = os.path.dirname(parent)
        for directory in reversed(parents):
            out += ["--perms", "0755", "--dir", directory]
            made.add(directory)
        if _closed_to_others(path):
            if path not in made:
                out += ["--perms", "0755", "--dir", path]
                made.add(path)
            todo += sorted((os.path.join(path, name) for name in os.listdir(path)), reverse=True)
            continue
        bound.append(path)
        out += ["--ro-bind", path, path]
    return out


def _closed_to_others(path: str) -> bool:
    """A real directory (not a link) that users other than its owner may not search."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) and mode & 0o005 != 0o005


def sandbox_argv(
    argv: Sequence[str],
    *,
    folder: Path,
    limits: Limits,
    network: bool,
    mode: str = "bwrap",
    read_only: Sequence[Path] = (),
    uid: int = SANDBOX_UID,
) -> list[str]:
    """The command line running ``argv`` sandboxed in ``folder`` (see the module's docstring);
    ``read_only``: more paths the program may read, bound at their own paths; ``uid``: the
    user it runs as (one of :func:`sandbox_user`'s, held while it runs)."""
    if mode == "none":
        return ["env", "-C", str(folder), *limits.prlimit(), *argv]
    if mode != "bwrap":
        raise ValueError(f"unknown sandbox mode {mode!r}; choose bwrap or none")
    root = os.geteuid() == 0
    out = ["bwrap"]
    if not root:
        out += ["--unshare-user", "--uid", str(uid), "--gid", str(uid)]
        out += ["--disable-userns"]
    out += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        out.append("--unshare-net")
    out += ["--die-with-parent", "--new-session", "--clearenv"]
    out += ["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", INSIDE]
    out += ["--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
    out += _system_binds()
    out += ["--proc", "/proc", "--dev", "/dev"]
    out += ["--perms", "1777", "--size", str(4 * limits.file_bytes), "--tmpfs", "/tmp"]
    out += _read_only_binds(read_only)
    out += ["--bind", str(Path(folder).resolve()), INSIDE, "--chdir", INSIDE]
    if root:
        out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
        out += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        out += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    out += ["--", *limits.prlimit(), *argv]
    return out
