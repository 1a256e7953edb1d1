"""CPU time of one sandboxed program, all its processes and threads (:class:`CpuMeter`).

    meter = CpuMeter.open("m3-alpha")          # a cgroup of its own where the machine allows
    process = subprocess.Popen(meter.wrap(argv), start_new_session=True)
    meter.watch(process.pid)
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
is kept monotonic (the greatest seen). docs/fair-time.md.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

__all__ = ["CGROUP_ROOT", "CpuMeter", "proc_seconds"]

#: Where cgroup hierarchies are mounted.
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The folder, under each hierarchy, that holds the programs' groups.
PARENT = "arena"
_TICKS = os.sysconf("SC_CLK_TCK")
#: cgroup v2 ``cpu.weight`` (and v1 ``cpu.shares``) of every program: all equal.
WEIGHT_V2, SHARES_V1 = 100, 1024


class CpuMeter:
    """The CPU seconds one program used; ``kind`` is ``"cgroup2"``, ``"cgroup1"`` or ``"proc"``."""

    def __init__(self, kind: str, groups: Sequence[Path] = ()) -> None:
        self.kind = kind
        self.groups = list(groups)
        self._pid: int | None = None
        self._best = 0.0

    @classmethod
    def open(cls, name: str, *, root: Path = CGROUP_ROOT, use_cgroup: bool = True) -> CpuMeter:
        """A meter with a fresh cgroup named after ``name`` when ``root`` allows, else /proc."""
        leaf = f"{name}-{secrets.token_hex(4)}"
        if use_cgroup:
            with contextlib.suppress(OSError):
                return cls._cgroup(root, leaf)
        return cls("proc")

    @classmethod
    def _cgroup(cls, root: Path, leaf: str) -> CpuMeter:
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
            return cls("cgroup2", [group])
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
        return cls("cgroup1", groups)

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """``argv`` behind a ``sh`` that moves itself into the cgroup(s) and then execs it."""
        if not self.groups:
            return list(argv)
        enter = " && ".join(f"echo $$ > '{group / 'cgroup.procs'}'" for group in self.groups)
        return ["sh", "-c", f'{enter} && exec "$@"', "sh", *argv]

    def watch(self, pid: int) -> None:
        """The started process (the /proc fallback sums it and its descendants)."""
        self._pid = pid

    def seconds(self) -> float:
        """CPU seconds used so far (user + system), never less than the last reading."""
        try:
            if self.kind == "cgroup2":
                value = _v2_usage(self.groups[0])
            elif self.kind == "cgroup1":
                value = int((self.groups[0] / "cpuacct.usage").read_text()) / 1e9
            else:
                value = 0.0 if self._pid is None else proc_seconds(self._pid)
        except (OSError, ValueError):
            value = self._best
        self._best = max(self._best, value)
        return self._best

    def runnable(self) -> bool:
        """Whether a thread of the program is running or waiting for a core (state R), as
        opposed to all asleep: blocked on its sockets, idle by choice, or ended."""
        if self.kind == "cgroup1":
            tids = _ids(self.groups[0] / "tasks")
            return any(_state(Path("/proc") / tid / "stat") == "R" for tid in tids)
        if self.kind == "cgroup2":
            pids = _ids(self.groups[0] / "cgroup.threads")
            return any(_state(Path("/proc") / tid / "stat") == "R" for tid in pids)
        if self._pid is None:
            return False
        return any(
            _state(task / "stat") == "R" for pid in _descendants(self._pid) for task in _tasks(pid)
        )

    def close(self) -> None:
        """Remove the cgroup(s) (once every process in them has ended; the last reading stays)."""
        self.seconds()
        for group in self.groups:
            with contextlib.suppress(OSError):
                group.rmdir()


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


def proc_seconds(pid: int, proc: Path = Path("/proc")) -> float:
    """CPU seconds of ``pid`` and its live descendants (their reaped children included)."""
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
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in times:
            continue
        seen.add(current)
        total += times[current]
        todo.extend(children.get(current, ()))
    return total / _TICKS
