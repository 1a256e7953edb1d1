"""The one sandbox for untrusted programs (player programs of the course, tournament entries).

    argv = sandbox_argv(["./player", "name"], folder=Path("work/p1"), limits=Limits(),
                        network=False, read_only=program_paths(["./player"]))
    outcome = run(["./player", "name"], folder=..., limits=Limits(), network=False, timeout=2)

A program runs under bubblewrap (``bwrap``, Debian's ``bubblewrap``; ``make bubblewrap``):

* **its own user**: every program running at a given moment has a uid (and gid) of its own,
  :data:`SANDBOX_UID` + a slot claimed for as long as it runs (:func:`sandbox_user`; :func:`run`
  claims one itself). Run by root (a container), bwrap works in privileged mode and ``setpriv``
  drops to that uid inside, after the mounts, with no capabilities, an empty bounding set and
  ``no_new_privs``: the program is a kernel user of its own, so the kernel counts its processes
  (``RLIMIT_NPROC`` counts per user: with one uid for all, one program's fork bomb starved
  every other program running beside it) and denies it every file that is not
  world-readable. Run by anyone else, bwrap creates a user namespace (``--unshare-user --uid N
  --disable-userns``): that uid inside, the caller's outside; the kernel (5.14 and later)
  counts processes per user namespace, each program's apart.
* **only its folder**: ``folder`` is bound read-write at :data:`INSIDE` (``/sandbox``), the
  working directory; the system is read-only (``/usr`` and its ``/bin``, ``/lib*`` links, a
  few files of ``/etc``), ``/tmp`` a private tmpfs of ``4 * file_bytes``, ``/proc`` of its own
  PID namespace, ``/dev`` minimal (null, zero, random, urandom, tty). Paths a program needs to
  start (its executable, interpreter, virtualenv: :func:`program_paths`) are bound read-only at
  their own paths; of a directory a virtualenv's ``.pth`` file names (an editable install's
  checkout), only its packages: never the checkout itself, its ``.git`` or an output folder
  put there. When root, ``folder`` must be the program's user's (the caller chowns it:
  :func:`prepare_folder`).
* **every process dies with it**: a fresh PID namespace with ``--die-with-parent``: when the
  program exits, or the caller kills bwrap, the kernel kills every descendant, a ``setsid`` one
  included. Its parent inside is bwrap's init, which ignores its signals.
* **resource limits**: :class:`Limits`, applied by util-linux ``prlimit`` just before the exec
  (CPU seconds, address space, file size, processes, open files); the wall time is the caller's
  (``timeout`` of :func:`run`).
* **no network** unless ``network=True`` (then it shares the host's network namespace, so a
  server on loopback is reachable); IPC and UTS namespaces are always its own.

``mode="none"`` runs the program bare in ``folder`` with the same rlimits and no isolation at
all, for machines without bwrap; callers warn. :func:`check_available` says why bwrap cannot
run here (or None). An exit status of 128+N from bwrap is reported as signal N, as a shell
does (a program exiting 139 by itself reads as SIGSEGV).

Blocking :func:`run` serves the Penguins game master; async callers spawn ``sandbox_argv``
themselves and kill the process group of bwrap on timeout.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import selectors
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "INSIDE",
    "SANDBOX_UID",
    "USER_SLOTS",
    "Limits",
    "Outcome",
    "check_available",
    "prepare_folder",
    "program_paths",
    "run",
    "sandbox_argv",
    "sandbox_user",
]

#: The first of the users (and groups) sandboxed programs run as: each running program has
#: its own, ``SANDBOX_UID + slot`` (:func:`sandbox_user`). The range lies in what systemd's
#: table of user ids leaves unused (0x70000000-0x7FFDFFFF): no account, service or container.
SANDBOX_UID = 2_000_000_000
#: How many programs may run sandboxed at once (on this machine, by all callers).
USER_SLOTS = 4096
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
#: How much of stdout and stderr :func:`run` keeps (the rest is read and dropped).
OUTPUT_KEPT = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program (``wall_seconds``: the caller's deadline)."""

    cpu_seconds: int = 10
    memory_bytes: int = 1 << 30
    file_bytes: int = 16 << 20
    processes: int = 64
    open_files: int = 64
    wall_seconds: float = 10.0

    def prlimit(self) -> list[str]:
        """The util-linux ``prlimit`` prefix setting these limits (soft = hard)."""
        return [
            "prlimit",
            f"--cpu={self.cpu_seconds}",
            f"--as={self.memory_bytes}",
            f"--fsize={self.file_bytes}",
            f"--nproc={self.processes}",
            f"--nofile={self.open_files}",
            "--core=0",
            "--",
        ]


@dataclass(frozen=True)
class Outcome:
    """One sandboxed call: exit code (None when killed by a signal or timed out), the signal's
    name, whether the wall time ran out, the heads of stdout and stderr, the wall time."""

    code: int | None
    signal: str | None = None
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0

    def describe(self, timeout: float | None = None) -> str:
        """How it ended, for a reason or a log: "exit code 3", "killed by SIGSEGV", ..."""
        if self.timed_out:
            return f"timed out after {timeout:g} s" if timeout is not None else "timed out"
        if self.signal is not None:
            return f"killed by {self.signal}"
        if self.code == 127 and "failed to execute" in self.stderr:
            return "the program cannot be executed (exit code 127: not found?)"
        return f"exit code {self.code}"


def _system_binds() -> list[str]:
    out: list[str] = []
    for path in SYSTEM:
        out += ["--ro-bind", path, path]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            out += ["--ro-bind", path, path]
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


def _slot_directory() -> Path:
    """The caller's directory of slot locks (made 0700; refused if someone else made it)."""
    path = Path(tempfile.gettempdir()) / f"arena-sandbox-users-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise OSError(f"{path}: not a private directory of this user: cannot claim a user")
    return path


_next_slot = [random.randrange(USER_SLOTS)]
_slot_lock = threading.Lock()


@contextlib.contextmanager
def sandbox_user() -> Iterator[int]:
    """A user id of its own for one program, held until the block ends: :data:`SANDBOX_UID`
    plus a free slot (0 to :data:`USER_SLOTS` - 1). A slot is an ``flock`` on a file of
    :func:`_slot_directory`, so programs started by other processes at the same moment (two
    tournaments, a game master) never share one, and the kernel releases it if the caller
    dies. Slots are handed out in turn, not lowest first, so a uid is not reused while the
    processes of the program that had it are still being torn down."""
    directory = _slot_directory()
    with _slot_lock:
        first = _next_slot[0]
        for step in range(USER_SLOTS):
            slot = (first + step) % USER_SLOTS
            flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            descriptor = os.open(directory / f"slot-{slot}", flags, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                continue
            _next_slot[0] = (slot + 1) % USER_SLOTS
            break
        else:
            raise OSError(f"all {USER_SLOTS} sandbox users are in use")
    try:
        yield SANDBOX_UID + slot
    finally:
        os.close(descriptor)  # (releases the lock)


def prepare_folder(folder: Path, uid: int = SANDBOX_UID) -> None:
    """Make ``folder`` (and what is in it) user ``uid``'s, when the caller is root."""
    if os.geteuid() != 0 or not hasattr(os, "lchown"):
        return
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


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


def check_available() -> str | None:
    """None if bwrap sandboxes a program here, else why not (missing binary, namespaces
    refused, ...)."""
    for tool in ("bwrap", "prlimit", *(("setpriv",) if os.geteuid() == 0 else ())):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: make bubblewrap)"
    with tempfile.TemporaryDirectory(prefix="sandbox-check-") as directory:
        folder = Path(directory)
        try:
            outcome = run(
                ["sh", "-c", "echo ok > probe"],
                folder=folder,
                limits=Limits(),
                network=False,
                timeout=10.0,
            )
        except OSError as error:
            return f"bwrap cannot start: {error}"
        if outcome.code != 0 or not (folder / "probe").is_file():
            detail = outcome.stderr.strip().splitlines()[-1:] or [outcome.describe()]
            return f"bwrap cannot create its namespaces here: {detail[0]}"
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run(
    argv: Sequence[str],
    *,
    folder: Path,
    limits: Limits,
    network: bool,
    timeout: float,
    stdin: bytes | None = None,
    mode: str = "bwrap",
    read_only: Sequence[Path] = (),
) -> Outcome:
    """Run ``argv`` sandboxed and wait at most ``timeout`` seconds; every process it started is
    dead when this returns. Keeps the first :data:`OUTPUT_KEPT` bytes of stdout and stderr.
    The program runs as a user of its own (:func:`sandbox_user`), which ``folder`` is given
    to (:func:`prepare_folder`) first."""
    if mode == "none":
        return _run(argv, folder, limits, network, timeout, stdin, mode, read_only, SANDBOX_UID)
    with sandbox_user() as uid:
        prepare_folder(folder, uid)
        return _run(argv, folder, limits, network, timeout, stdin, mode, read_only, uid)


def _run(
    argv: Sequence[str],
    folder: Path,
    limits: Limits,
    network: bool,
    timeout: float,
    stdin: bytes | None,
    mode: str,
    read_only: Sequence[Path],
    uid: int,
) -> Outcome:
    command = sandbox_argv(
        argv, folder=folder, limits=limits, network=network, mode=mode, read_only=read_only,
        uid=uid,
    )  # fmt: skip
    start = time.monotonic()
    deadline = start + timeout
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    kept = {"stdout": bytearray(), "stderr": bytearray()}
    timed_out = False
    with selectors.DefaultSelector() as selector:
        assert process.stdout is not None
        assert process.stderr is not None
        selector.register(process.stdout, selectors.EVENT_READ, "stdout")
        selector.register(process.stderr, selectors.EVENT_READ, "stderr")
        pending = memoryview(stdin or b"")
        if process.stdin is not None:
            # Never block on a program that does not read: write what the pipe takes.
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE, "stdin")
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = process.poll() is None
                break
            events = selector.select(min(remaining, 0.2))
            for key, _ in events:
                stream = key.fileobj
                if key.data == "stdin":
                    try:
                        written = os.write(stream.fileno(), pending[:65536])  # type: ignore[union-attr]
                    except BlockingIOError:
                        written = 0
                    except OSError:
                        written = len(pending)  # it closed its stdin: drop the rest
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(stream)
                        stream.close()  # type: ignore[union-attr]
                    continue
                chunk = os.read(stream.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    selector.unregister(stream)
                    continue
                room = OUTPUT_KEPT - len(kept[key.data])
                if room > 0:
                    kept[key.data] += chunk[:room]
            # Bare mode: a helper that outlived the program may hold the pipes open.
            if not events and process.poll() is not None:
                break
    # Kill bwrap (its namespace dies with it), or in bare mode the program's group.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    status = process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    code: int | None = status
    name: str | None = None
    if timed_out:
        code = None
    elif status < 0:
        code, name = None, _signal_name(-status)
    elif mode != "none" and 128 < status <= 128 + 64:
        code, name = None, _signal_name(status - 128)
    return Outcome(
        code,
        name,
        timed_out,
        kept["stdout"].decode("utf-8", "replace"),
        kept["stderr"].decode("utf-8", "replace"),
        time.monotonic() - start,
    )
