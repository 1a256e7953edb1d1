"""CPU time of one sandboxed program, all its processes and threads (:class:`CpuMeter`).

    meter = CpuMeter.open("m3-alpha")          # a cgroup of its own where the machine allows
    process = subprocess.Popen(meter.wrap(argv), start_new_session=True)
    await meter.started(process.pid)           # attaches its task clock, then lets it run
    ...
    meter.seconds()                            # user + system, never decreasing
    meter.close()

Where the machine allows (root, cgroup v2 with the ``cpu`` controller, or v1 ``cpuacct``), the
program runs in a cgroup of its own, entered by a ``sh`` before it execs the command (so no
process of it can escape the count); v1's ``cpu`` hierarchy gets a group too, with the default
``cpu.shares`` (the two sides of a match weigh the same however many threads each runs). The
reading is the cgroup's total (v2 ``cpu.stat`` ``usage_usec``, v1 ``cpuacct.usage``): every
process and thread, exited ones included. Elsewhere it reads ``/proc``: the sum of ``utime +
stime + cutime + cstime`` over the watched process and every live descendant (a dead process's
time is in its reaper's ``cutime``; inside bwrap the reaper of an orphan is bwrap's init, itself a
descendant). The fallback misses a process that was never waited for by a descendant; the reading
is kept monotonic (the greatest seen).

Where the kernel allows it (:mod:`server.sandbox.taskclock`), the reading is the program's task
clock instead, exact when read (a cgroup's total lags a computing program by up to a scheduler
tick): the wrapping ``sh`` waits on a pipe before it execs the command, :meth:`CpuMeter.started`
attaches the clock to it and then closes the pipe, so every process and thread of the program is
counted. The cgroup still gives the program its weight and its runnable threads.
docs/fair-time.md.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import math
import os
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import trio

from server.sandbox.taskclock import TaskClock

__all__ = ["CGROUP_ROOT", "CpuMeter", "proc_seconds", "socket_owners"]

#: Where cgroup hierarchies are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The folder, under each hierarchy, that holds the programs' groups.
PARENT = "arena"
_TICKS = os.sysconf("SC_CLK_TCK")
#: Seconds the /proc fallback keeps a program's process tree before scanning /proc again (a
#: scan reads every process's stat: 30 ms on a busy machine; a reading of a known tree, <1 ms).
TREE_SECONDS = 0.5
#: cgroup v2 ``cpu.weight`` (and v1 ``cpu.shares``) of every program: all equal.
WEIGHT_V2, SHARES_V1 = 100, 1024


@functools.cache
def task_clock_allowed() -> bool:
    """Whether this process may attach task clocks (tried once, on one of its own threads)."""
    clock = TaskClock.attach([threading.get_native_id()])
    if clock is None:
        return False
    clock.close()
    return True


class CpuMeter:
    """The CPU seconds one program used; ``kind`` is ``"cgroup2"``, ``"cgroup1"`` or ``"proc"``."""

    def __init__(self, kind: str, groups: Sequence[Path] = (), *, precise: bool = False) -> None:
        self.kind = kind
        self.groups = list(groups)
        #: The program waits until its task clock is attached (:meth:`started`).
        self.hold = precise and task_clock_allowed()
        #: The pipe the wrapped program waits on (read end, write end), once wrapped.
        self._gate: tuple[int, int] | None = None
        self.clock: TaskClock | None = None
        self._pids: list[int] = []
        self._best = 0.0
        self._tree: list[int] = []
        self._tree_at = -math.inf
        self._offset = 0.0

    @classmethod
    def open(
        cls, name: str, *, root: Path = CGROUP_ROOT, use_cgroup: bool = True, precise: bool = True
    ) -> CpuMeter:
        """A meter with a fresh cgroup named after ``name`` when ``root`` allows, else /proc;
        ``precise``: read the program's task clock where the kernel allows it."""
        leaf = f"{name}-{secrets.token_hex(4)}"
        if use_cgroup:
            with contextlib.suppress(OSError):
                kind, groups = cls._cgroup(root, leaf)
                return cls(kind, groups, precise=precise)
        return cls("proc", precise=precise)

    @staticmethod
    def _cgroup(root: Path, leaf: str) -> tuple[str, list[Path]]:
        if (root / "cgroup.controllers").is_file():  # v2 mounted at the root
            controllers = (root / "cgroup.controllers").read_text().split()
            if "cpu" not in controllers:
                raise OSError("no cpu controller")
            parent = root / PARENT
            parent.mkdir(exist_ok=True)
            (root / "cgroup.subtree_control").write_text("+cpu")
            (parent / "cgroup.subtree_control").write_text("+cpu")
            group = parent / leaf
            group.mkdir()
            (group / "cpu.weight").write_text(str(WEIGHT_V2))
            return "cgroup2", [group]
        if not (root / "cpuacct" / "cgroup.procs").is_file():
            raise OSError("no cpuacct hierarchy")
        groups: list[Path] = []
        try:
            for hierarchy in ("cpuacct", "cpu"):
                if not (root / hierarchy / "cgroup.procs").is_file():
                    continue
                group = (root / hierarchy).resolve() / PARENT / leaf
                if group in groups:
                    continue  # cpu and cpuacct mounted together
                group.mkdir(parents=True)
                groups.append(group)
                if hierarchy == "cpu" and (group / "cpu.shares").is_file():
                    (group / "cpu.shares").write_text(str(SHARES_V1))
        except OSError:
            for group in groups:
                with contextlib.suppress(OSError):
                    group.rmdir()
            raise
        return "cgroup1", groups

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` behind a ``sh`` that moves itself into the cgroup(s), waits until
        :meth:`started` attached the task clock (when it is to be: it reads its standard input,
        :meth:`stdin`, to its end), and then execs it with /dev/null for input. A setuid or
        setgid ``argv[0]`` is not held: the kernel stops a task clock at such an exec (a
        security domain crossed), so the cgroup or /proc is read."""
        if self.hold and _sets_id(argv[0]):
            self.hold = False
        steps = [f"echo $$ > '{group / 'cgroup.procs'}'" for group in self.groups]
        if self.hold:
            self._gate = os.pipe()
            steps.append("{ read -r _ || true; }")
        if not steps:
            return list(argv)
        return ["sh", "-c", " && ".join([*steps, 'exec "$@" </dev/null']), "sh", *argv]

    def stdin(self) -> int:
        """The wrapped command's standard input: the end of the pipe it waits on (closed here
        once handed over), or /dev/null's ``subprocess.DEVNULL``."""
        if self._gate is None:
            return subprocess.DEVNULL
        return self._gate[0]

    async def started(self, pid: int) -> None:
        """The wrapped program was started as ``pid``: watched, and, while it waits, its task
        clock attached before it is let go by closing the pipe (where the clock cannot be
        attached, the cgroup or /proc is read). Should this process die first, the pipe closes
        with it and the program runs all the same."""
        self.watch(pid)
        if self._gate is None:
            return
        read, write = self._gate
        self._gate = None
        try:
            os.close(read)  # the child's copy is the one it waits on
            self.clock = TaskClock.attach([pid])
        finally:
            os.close(write)
        await trio.lowlevel.checkpoint()

    def attach_running(self) -> None:
        """Attach the task clock to every thread the watched processes and their descendants
        have now (a program found running, :func:`socket_owners`); counted from here on,
        on top of what /proc or the cgroup said it had used."""
        if not task_clock_allowed() or self.clock is not None:
            return
        before = self.seconds()
        tids = [int(task.name) for pid in self._members() for task in _tasks(pid)]
        self.clock = TaskClock.attach(tids)
        self._offset = before

    def watch(self, pid: int) -> None:
        """The started process (the /proc fallback sums it and its descendants); more than
        one: a program of several processes found apart (:func:`socket_owners`)."""
        if pid not in self._pids:
            self._pids.append(pid)

    def seconds(self) -> float:
        """CPU seconds used so far (user + system), never less than the last reading."""
        try:
            if self.clock is not None:
                value = self._offset + self.clock.seconds()
            elif self.kind == "cgroup2":
                value = _v2_usage(self.groups[0])
            elif self.kind == "cgroup1":
                value = int((self.groups[0] / "cpuacct.usage").read_text()) / 1e9
            else:
                value = _stat_seconds(self._members()) if self._pids else 0.0
        except (OSError, ValueError):
            value = self._best
        self._best = max(self._best, value)
        return self._best

    @property
    def source(self) -> str:
        """Where the reading comes from: "task clock" once attached, else the ``kind``."""
        return "task clock" if self.clock is not None else self.kind

    def runnable(self) -> bool:
        """Whether a thread of the program is running or waiting for a core (state R), as
        opposed to all asleep: blocked on its sockets, idle by choice, or ended."""
        if self.kind == "cgroup1":
            tids = _ids(self.groups[0] / "tasks")
            return any(_state(Path("/proc") / tid / "stat") == "R" for tid in tids)
        if self.kind == "cgroup2":
            pids = _ids(self.groups[0] / "cgroup.threads")
            return any(_state(Path("/proc") / tid / "stat") == "R" for tid in pids)
        return any(_state(task / "stat") == "R" for pid in self._members() for task in _tasks(pid))

    def _members(self) -> list[int]:
        """The watched processes and their descendants, scanned again every TREE_SECONDS (a
        process started since is counted from the next scan; once reaped, in its parent's)."""
        now = time.monotonic()
        if now - self._tree_at >= TREE_SECONDS:
            self._tree = list(dict.fromkeys(p for root in self._pids for p in _descendants(root)))
            self._tree_at = now
        return self._tree

    def close_clock(self) -> None:
        """Close the task clock, if any (its last reading stays); the cgroup stays until
        :meth:`close`."""
        self.seconds()
        if self.clock is not None:
            self.clock.close()
        for fd in self._gate or ():  # wrapped, never started (it could not be)
            with contextlib.suppress(OSError):
                os.close(fd)
        self._gate = None

    def close(self, wait: float = 0.0) -> None:
        """Remove the cgroup(s); the last reading stays. With ``wait``: first kill what is left
        in them (a sandbox's processes end a moment after it), then try again for up to
        ``wait`` seconds (blocking: call it in a thread)."""
        self.close_clock()
        deadline = time.monotonic() + wait
        for group in self.groups:
            while True:
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break
                for pid in _ids(group / "cgroup.procs"):
                    with contextlib.suppress(OSError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                time.sleep(0.02)


def _stat_seconds(pids: Sequence[int], proc: Path = Path("/proc")) -> float:
    """utime + stime + cutime + cstime of ``pids`` (the ended ones count 0), in seconds."""
    ticks = 0
    for pid in pids:
        try:
            stat = (proc / str(pid) / "stat").read_text()
        except OSError:
            continue
        ticks += sum(int(value) for value in stat[stat.rindex(")") + 2 :].split()[11:15])
    return ticks / _TICKS


def _v2_usage(group: Path) -> float:
    for line in (group / "cpu.stat").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise ValueError("no usage_usec")


def _ids(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _sets_id(program: str) -> bool:
    """Whether ``program`` (a path, or a name looked up in PATH) is setuid or setgid."""
    path = shutil.which(program)
    try:
        mode = os.stat(path if path is not None else program).st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_ISUID | stat.S_ISGID))


def _state(stat: Path) -> str:
    try:
        text = stat.read_text()
    except OSError:
        return ""
    return text[text.rindex(")") + 2 :][:1]


def _tasks(pid: int) -> list[Path]:
    try:
        return list((Path("/proc") / str(pid) / "task").iterdir())
    except OSError:
        return []


def _descendants(pid: int, proc: Path = Path("/proc")) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError):
                stat = (entry / "stat").read_text()
                children.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(
                    int(entry.name)
                )
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def proc_seconds(pid: int | Sequence[int], proc: Path = Path("/proc")) -> float:
    """CPU seconds of ``pid`` (or of several) and its live descendants (their reaped children
    included); a process counts once however many of the given ones it descends from."""
    children: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        me, parent = int(entry.name), int(fields[1])
        children.setdefault(parent, []).append(me)
        # utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after the name.
        times[me] = sum(int(value) for value in fields[11:15])
    total, todo, seen = 0, [pid] if isinstance(pid, int) else list(pid), set()
    while todo:
        current = todo.pop()
        if current in seen or current not in times:
            continue
        seen.add(current)
        total += times[current]
        todo.extend(children.get(current, ()))
    return total / _TICKS


def socket_owners(peers: Sequence[tuple[str, int]], proc: Path = Path("/proc")) -> set[int]:
    """The processes holding the client end of loopback TCP connections whose client address
    (as the server sees it: ``getpeername()``) is one of ``peers``: their socket's inode in
    ``/proc/net/tcp`` and ``tcp6``, then the processes with a descriptor on it. Empty for what
    cannot be seen (another network namespace, another user without root)."""
    wanted = {(_normal(host), port) for host, port in peers}
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = (proc / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and _address(fields[1]) in wanted and fields[9] != "0":
                inodes.add(fields[9])
    if not inodes:
        return set()
    links = {f"socket:[{inode}]" for inode in inodes}
    owners: set[int] = set()
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in links:
                        owners.add(int(entry.name))
                        break
    return owners


def _normal(host: str) -> str:
    """An address as ``ipaddress`` writes it, IPv4-mapped IPv6 as IPv4."""
    address = ipaddress.ip_address(host.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def _address(field: str) -> tuple[str, int]:
    """A ``/proc/net/tcp*`` address (``0100007F:1F90``: 32-bit words in host byte order)."""
    host, _, port = field.partition(":")
    raw = bytes.fromhex(host)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    if sys.byteorder == "big":
        words = raw
    return _normal(str(ipaddress.ip_address(words))), int(port, 16)
