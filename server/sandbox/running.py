"""Running a program sandboxed and waiting for it (:func:`run`, blocking), how it ended
(:class:`Outcome`), and whether bwrap works here at all (:func:`check_available`); see
:mod:`server.sandbox`."""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from server.sandbox.bwrap import sandbox_argv
from server.sandbox.limits import Limits
from server.sandbox.users import SANDBOX_UID, prepare_folder, sandbox_user

__all__ = ["OUTPUT_KEPT", "Outcome", "check_available", "run"]

#: How much of stdout and stderr :func:`run` keeps (the rest is read and dropped).
OUTPUT_KEPT = 64 * 1024


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
