"""The kernel's exact CPU clock of a program: a ``perf_event_open`` task-clock counter
(:class:`TaskClock`), counting every thread and process the program starts once attached.

    clock = TaskClock.attach([pid])     # None where the machine does not allow it
    clock.seconds()                     # CPU seconds since attached, to the nanosecond
    clock.close()

A cgroup's ``cpuacct.usage`` (or ``cpu.stat``) charges a running thread its CPU only at the
scheduler's tick or its next switch, so it lags a program that is computing by up to a tick
(4 ms at 250 Hz), more or less depending on the machine's load; a task clock is brought up to
date when it is read. Counters are inherited: threads and processes started after the attach
are counted, exited ones included. Attach before the program starts anything (a process that
waits on a pipe, :meth:`server.sandbox.cpu.CpuMeter.wrap`), or to every thread it already has.
docs/fair-time.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import struct
from collections.abc import Iterable

__all__ = ["TaskClock"]

#: ``perf_event_open``'s system call number, by machine.
_SYSCALL = {"x86_64": 298, "aarch64": 241, "i686": 336, "i386": 336, "armv7l": 364}
_PERF_TYPE_SOFTWARE = 1
_PERF_COUNT_SW_TASK_CLOCK = 1
#: perf_event_attr's bit field: inherit, and exclude_kernel (which lets a user without privilege
#: count its own programs at perf_event_paranoid 2; a task clock still counts the task's whole
#: time on a CPU, system time included).
_INHERIT, _EXCLUDE_KERNEL = 1 << 1, 1 << 5
_PERF_FLAG_FD_CLOEXEC = 1 << 3


class _Attr(ctypes.Structure):
    """``struct perf_event_attr`` up to ``config2`` (PERF_ATTR_SIZE_VER1, 72 bytes)."""

    _fields_ = [
        ("type", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64),
        ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64),
        ("flags", ctypes.c_uint64),
        ("wakeup_events", ctypes.c_uint32),
        ("bp_type", ctypes.c_uint32),
        ("config1", ctypes.c_uint64),
        ("config2", ctypes.c_uint64),
    ]


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _open(tid: int) -> int:
    """A task-clock counter of thread ``tid`` and what it starts from now; OSError if refused."""
    number, libc = _SYSCALL.get(platform.machine()), _libc()
    if number is None or libc is None:
        raise OSError("no perf_event_open on this machine")
    attr = _Attr(
        type=_PERF_TYPE_SOFTWARE,
        size=ctypes.sizeof(_Attr),
        config=_PERF_COUNT_SW_TASK_CLOCK,
        flags=_INHERIT | _EXCLUDE_KERNEL,
    )
    fd = int(libc.syscall(number, ctypes.byref(attr), tid, -1, -1, _PERF_FLAG_FD_CLOEXEC))
    if fd < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return fd


class TaskClock:
    """Task-clock counters of one program's threads (see the module's text)."""

    def __init__(self, fds: Iterable[int]) -> None:
        self._fds = list(fds)
        self._last = 0.0

    @classmethod
    def attach(cls, tids: Iterable[int]) -> TaskClock | None:
        """A clock of the threads ``tids`` (a process that has one thread: its pid) and of all
        they start from now; None where the kernel refuses (not Linux, ``perf_event_paranoid``,
        a container's filter) or a thread has ended."""
        fds: list[int] = []
        try:
            fds.extend(_open(tid) for tid in tids)  # those opened stay in fds if one fails
        except OSError:
            for fd in fds:
                os.close(fd)
            return None
        return cls(fds) if fds else None

    def seconds(self) -> float:
        """CPU seconds used since the attach, never less than the last reading."""
        total = 0
        try:
            for fd in self._fds:
                total += struct.unpack("Q", os.read(fd, 8))[0]
        except OSError:
            return self._last
        self._last = max(self._last, total / 1e9)
        return self._last

    def close(self) -> None:
        """Close the counters; the last reading stays."""
        if self._fds:
            self.seconds()
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []
