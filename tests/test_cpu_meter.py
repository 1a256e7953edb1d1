"""CPU accounting of a sandboxed program: every process and thread it runs is counted, from a
cgroup of its own where the machine allows and from /proc otherwise."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from server.sandbox.cpu import (
    CGROUP_ROOT,
    CpuMeter,
    proc_seconds,
    socket_owners,
    task_clock_allowed,
)

#: Burns 0.2 CPU-s, says "done", then sleeps until killed.
BURN_THEN_WAIT = """
import time
start = time.process_time()
while time.process_time() - start < 0.2:
    pass
print("done", flush=True)
time.sleep(60)
"""

# Burns CPU in a forked child and in a second thread (about 0.2 CPU-s each), reaps the child,
# prints "done" and then waits on stdin so the meter can be read while it is alive.
PROGRAM = """
import os, sys, threading, time
def burn():
    n = 0
    start = time.thread_time()
    while time.thread_time() - start < 0.2:
        n += 1
pid = os.fork()
if pid == 0:
    burn(); os._exit(0)
thread = threading.Thread(target=burn); thread.start()
burn(); thread.join(); os.waitpid(pid, 0)
print("done", flush=True)
sys.stdin.read()
"""


def _measure(meter: CpuMeter, cgroup: list[float] | None = None) -> float:
    """The program's CPU by ``meter`` once it is done (and, into ``cgroup``, by its cgroup)."""
    command = meter.wrap([sys.executable, "-c", PROGRAM])
    if meter.hold:
        # The program's input is the pipe its wrapper waits on: talk to it through a file.
        return _measure_held(meter, command, cgroup)
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    trio.run(meter.started, process.pid)
    try:
        assert process.stdout is not None
        assert process.stdin is not None
        assert process.stdout.readline() == b"done\n"
        seconds = meter.seconds()
        if cgroup is not None:
            cgroup.append(CpuMeter(meter.kind, meter.groups).seconds())
        process.stdin.close()
        process.wait(timeout=30)
    finally:
        process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()
        meter.close()
    return seconds


def _measure_held(meter: CpuMeter, command: list[str], cgroup: list[float] | None) -> float:
    """As :func:`_measure`, for a program whose wrapper waits for its task clock: its input is
    /dev/null, so it ends once done; a task clock and a cgroup keep what ended processes used."""
    process = subprocess.Popen(
        command, stdin=meter.stdin(), stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        trio.run(meter.started, process.pid)
        assert process.stdout is not None
        assert process.stdout.readline() == b"done\n"
        process.wait(timeout=30)
        seconds = meter.seconds()
        if cgroup is not None:
            cgroup.append(CpuMeter(meter.kind, meter.groups).seconds())
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
        meter.close()
    return seconds


def test_proc_fallback_counts_fork_and_threads() -> None:
    meter = CpuMeter.open("test", use_cgroup=False, precise=False)
    assert meter.kind == "proc"
    # Three burners of 0.2 CPU-s: the child (reaped, so in cutime), the thread, the main one.
    assert _measure(meter) >= 0.55


def test_no_cgroup_hierarchy_falls_back_to_proc(tmp_path: Path) -> None:
    assert CpuMeter.open("test", root=tmp_path).kind == "proc"


def test_cgroup_counts_fork_and_threads() -> None:
    meter = CpuMeter.open("test", precise=False)
    if meter.kind == "proc":
        pytest.skip(f"no cgroup may be created under {CGROUP_ROOT} here")
    assert _measure(meter) >= 0.55
    assert not any(group.exists() for group in meter.groups)


def test_task_clock_counts_fork_and_threads_as_the_cgroup_does() -> None:
    if not task_clock_allowed():
        pytest.skip("the kernel refuses task clocks (perf_event_open) here")
    meter, cgroup = CpuMeter.open("test"), list[float]()
    seconds = _measure(meter, cgroup)
    assert meter.clock is not None  # attached while the program waited stopped
    assert seconds >= 0.55
    if meter.kind != "proc":
        # The cgroup counted the same processes, plus the wrapping sh before it stopped.
        assert cgroup[0] == pytest.approx(seconds, abs=0.05)


def test_a_task_clock_attached_to_a_running_program_counts_its_threads() -> None:
    if not task_clock_allowed():
        pytest.skip("the kernel refuses task clocks (perf_event_open) here")
    # A program whose second thread burns 0.2 CPU-s once told to (a line on stdin).
    program = (
        "import sys, threading, time\n"
        "def burn():\n"
        "    start = time.thread_time()\n"
        "    while time.thread_time() - start < 0.2: pass\n"
        "go = threading.Event()\n"
        "thread = threading.Thread(target=lambda: (go.wait(), burn())); thread.start()\n"
        "print('ready', flush=True); sys.stdin.readline(); go.set(); thread.join()\n"
        "print('done', flush=True); sys.stdin.read()\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        assert process.stdout.readline() == b"ready\n"
        meter = CpuMeter("proc")
        meter.watch(process.pid)
        meter.attach_running()
        assert meter.clock is not None
        before = meter.seconds()
        process.stdin.write(b"go\n")
        process.stdin.flush()
        assert process.stdout.readline() == b"done\n"
        assert meter.seconds() - before >= 0.19
    finally:
        process.kill()
        process.wait()
        process.stdin.close()
        process.stdout.close()


def test_close_clock_closes_the_task_clock_and_keeps_its_reading() -> None:
    # A server keeps every finished match (and its meters): a clock left open would hold one
    # descriptor per thread of each program for as long as the server runs.
    if not task_clock_allowed():
        pytest.skip("the kernel refuses task clocks (perf_event_open) here")
    before = len(os.listdir("/proc/self/fd"))
    meter = CpuMeter("proc")
    meter.watch(os.getpid())
    meter.attach_running()
    assert meter.clock is not None
    assert len(os.listdir("/proc/self/fd")) > before
    reading = meter.seconds()
    meter.close_clock()
    assert len(os.listdir("/proc/self/fd")) == before
    assert meter.seconds() >= reading
    meter.close_clock()  # twice: nothing more to close
    assert meter.seconds() >= reading


def test_a_setuid_program_is_not_held_for_a_task_clock(tmp_path: Path) -> None:
    # The kernel stops a task clock from counting a process that execs a setuid or setgid
    # program (a setuid bwrap, for a server that is not root): the clock would read the
    # wrapping sh's microseconds for the whole program. Such a program is read from its
    # cgroup or /proc instead.
    if not task_clock_allowed():
        pytest.skip("the kernel refuses task clocks (perf_event_open) here")
    program = tmp_path / "sandbox"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o4755)
    meter = CpuMeter.open("test", use_cgroup=False)
    assert meter.hold
    assert meter.wrap([str(program), "--flag"]) == [str(program), "--flag"]
    assert not meter.hold
    plain = CpuMeter.open("test", use_cgroup=False)
    program.chmod(0o755)
    assert "read -r _" in " ".join(plain.wrap([str(program), "--flag"]))
    assert plain.hold
    plain.close()  # the pipe of a program never started is closed too


def test_a_program_waits_for_its_clock_and_runs_should_the_server_die() -> None:
    # Its wrapper waits on a pipe, not stopped: when the process holding the other end dies
    # (here: the end is closed without a clock), the program runs all the same.
    if not task_clock_allowed():
        pytest.skip("the kernel refuses task clocks (perf_event_open) here")
    meter = CpuMeter.open("test", use_cgroup=False)
    command = meter.wrap([sys.executable, "-c", "print('ran', flush=True)"])
    process = subprocess.Popen(command, stdin=meter.stdin(), stdout=subprocess.PIPE)
    assert process.stdout is not None
    try:
        meter.close()  # as the server's death would: both ends closed here, no clock attached
        assert process.stdout.readline() == b"ran\n"
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def test_reading_never_decreases() -> None:
    meter = CpuMeter("proc")
    meter.watch(2**22 + 7)  # no such process
    assert meter.seconds() == 0.0


def test_socket_owners_finds_the_process_of_a_loopback_client() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    client = subprocess.Popen(
        [sys.executable, "-c",
         "import socket, sys; s = socket.create_connection(('127.0.0.1', int(sys.argv[1])));"
         " s.recv(1)", str(listener.getsockname()[1])],
    )  # fmt: skip
    try:
        accepted, peer = listener.accept()
        with accepted:
            assert socket_owners([peer]) == {client.pid}
            assert socket_owners([("127.0.0.1", 1)]) == set()
    finally:
        client.kill()
        client.wait()
        listener.close()


def test_several_watched_processes_count_once() -> None:
    # A program found as several processes (a parent and its child both hold sockets): the
    # child's time counts once although it descends from the parent too.
    child = subprocess.Popen([sys.executable, "-c", BURN_THEN_WAIT], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"done\n"
        both = proc_seconds([os.getpid(), child.pid])
        alone = proc_seconds(child.pid)
        me = proc_seconds(os.getpid())
        assert alone >= 0.18  # 0.2 CPU-s, in 10 ms ticks: utime and stime each rounded down
        assert both == pytest.approx(me, abs=0.05)
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def test_closing_kills_what_is_left_of_the_program_and_removes_its_cgroup() -> None:
    meter = CpuMeter.open("test", precise=False)
    if meter.kind == "proc":
        pytest.skip(f"no cgroup may be created under {CGROUP_ROOT} here")
    # The program leaves a child behind (as a sandbox's processes outlive it for a moment).
    program = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n"
    subprocess.run(meter.wrap([sys.executable, "-c", program]), check=True, timeout=30)
    assert any((group / "cgroup.procs").read_text().split() for group in meter.groups)
    meter.close(wait=5.0)
    assert not any(group.exists() for group in meter.groups)
