"""A team's side of one tournament match: its program, sandboxed, or a built-in strategy.

An external team's folder is copied afresh for every match (into a private scratch folder
outside the output folder) and its ``command`` started there under :mod:`server.sandbox`, with
the placeholders replaced and the same values in ``ARENA_*`` variables. Its stdout and stderr go
to one file of the output folder, opened here and handed over as a descriptor (the sandbox's
file-size limit caps a flood). It runs as a user of its own, held until it ends
(:func:`server.sandbox.sandbox_user`). :meth:`Entrant.stop` kills the whole sandbox (bwrap's PID
namespace ends every process the program started, a ``setsid`` one included); the copy is then
deleted. A built-in team is a task of this process, played by the caller's
:class:`~server.competition.teams.Players` (the server never imports the client).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path

import trio

from floes.limits import TAIL_BYTES
from server.competition.reasons import with_limit
from server.competition.teams import MatchTicket, Players, Team
from server.sandbox import (
    SANDBOX_UID,
    Limits,
    prepare_folder,
    program_paths,
    sandbox_argv,
    sandbox_user,
)
from server.sandbox.cpu import CpuMeter

__all__ = ["Entrant", "command_line", "command_paths"]


def command_line(team: Team, ticket: MatchTicket) -> list[str]:
    """The team's argv with ``{host}`` ... ``{token}`` replaced, behind ``env ARENA_*=...``."""
    values = ticket.values()
    argv = [part.format_map(values) for part in team.command]
    env = [f"ARENA_{key.upper()}={value}" for key, value in values.items()]
    env += [f"{key}={value}" for key, value in team.env]
    return ["env", *env, *argv]


class Entrant:
    """One team in one match: start it, learn how it ended, stop it."""

    def __init__(
        self,
        team: Team,
        ticket: MatchTicket,
        *,
        scratch: Path,
        output: Path,
        limits: Limits,
        sandbox: str,
        seed: int,
        players: Players | None = None,
        meter: CpuMeter | None = None,
    ) -> None:
        self.team = team
        #: The program's CPU meter (its cgroup where the machine allows): fair time.
        self.meter = meter
        self.ticket = ticket
        self.scratch = scratch
        self.output = output
        self.limits = limits
        self.sandbox = sandbox
        #: The game's seed (a built-in team's strategy is seeded from it and its seat).
        self.seed = seed
        self.players = players
        #: How it ended before being stopped: None while running (or stopped by us).
        self.exit: str | None = None
        #: Its exit status as a process's return code (a signal: minus its number); None while
        #: running, stopped by us, or a built-in team.
        self.status: int | None = None
        #: True when it ended with a failure (non-zero exit, signal, exception).
        self.failed = False
        self.ended = trio.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._scope = trio.CancelScope()
        self._stopped = False

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Start the team (reported through ``task_status``) and wait until it ends."""
        try:
            if self.team.external:
                await self._run_program(task_status)
            else:
                await self._run_builtin(task_status)
        finally:
            self.ended.set()

    def stop(self) -> None:
        """End the team now (the match is over): the sandbox and all it holds are killed."""
        self._stopped = True
        self._scope.cancel()
        if self._process is not None and self._process.returncode is None:
            # (not yet reaped, so its pid, the group's id, cannot have been reused)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)

    async def _run_builtin(self, task_status: trio.TaskStatus[None]) -> None:
        assert self.team.builtin is not None
        task_status.started()
        if self.players is None:
            self.exit, self.failed = "no built-in players were handed in", True
            return
        with self._scope:
            failure = await self.players.play_dungeon(self.team.builtin, self.ticket, self.seed)
            self.exit, self.failed = (failure, True) if failure else ("exit code 0", False)

    async def _run_program(self, task_status: trio.TaskStatus[None]) -> None:
        # A user of its own while it runs: its processes are counted apart from every other
        # program's (RLIMIT_NPROC is per user), so a fork bomb starves only itself.
        with contextlib.ExitStack() as user:
            uid = SANDBOX_UID if self.sandbox == "none" else user.enter_context(sandbox_user())
            await self._run_as(uid, task_status)

    async def _run_as(self, uid: int, task_status: trio.TaskStatus[None]) -> None:
        assert self.team.dir is not None
        folder = self.scratch
        await trio.to_thread.run_sync(_fresh_copy, self.team.dir, folder, uid)
        argv = command_line(self.team, self.ticket)
        command = sandbox_argv(
            argv, folder=folder, limits=self.limits, network=True, mode=self.sandbox,
            read_only=command_paths(self.team.command), uid=uid,
        )  # fmt: skip
        if self.meter is not None:
            command = self.meter.wrap(command)  # enters its cgroup first: all of it is counted
        self.output.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.output.open("wb") as sink:
                # Started from this (the event loop's) thread, not by trio.lowlevel.open_process:
                # that forks in a worker thread, and bwrap's --die-with-parent follows the
                # thread that forked it, so the sandbox was killed when the idle thread ended
                # (10 s later). A fork takes a few milliseconds.
                # Its input: /dev/null, or the pipe it waits on until its task clock is on.
                stdin = subprocess.DEVNULL if self.meter is None else self.meter.stdin()
                self._process = subprocess.Popen(
                    command, stdin=stdin, stdout=sink, stderr=sink, start_new_session=True,
                )  # fmt: skip
            if self.meter is not None:
                await self.meter.started(self._process.pid)  # its task clock, then it runs
            task_status.started()
            status = await _wait(self._process)
        except OSError as error:
            self.exit, self.failed = f"cannot start: {error.strerror}", True
            task_status.started()
            return
        finally:
            if self._process is not None and self._process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._process.pid, signal.SIGKILL)  # cancelled: end it
                self._process.wait()
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(shutil.rmtree, folder, True)
        if self._stopped:
            return
        self.exit, self.failed = _describe(status, self.sandbox)
        if self.failed:
            # A limit without a signal (memory, processes): the program's own last words.
            tail = await trio.to_thread.run_sync(_tail, self.output)
            self.exit = with_limit(self.exit, tail)
        signalled = self.sandbox != "none" and 128 < status <= 128 + 64
        self.status = 128 - status if signalled else status


async def _wait(process: subprocess.Popen[bytes]) -> int:
    """Wait for ``process`` to exit without blocking the event loop (a pidfd); its status. What
    it left in its process group is killed before it is reaped (its pid is still its own)."""
    pidfd = os.pidfd_open(process.pid)
    try:
        await trio.lowlevel.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    return process.wait()


def command_paths(command: tuple[str, ...]) -> list[Path]:
    """What the command's program needs outside the system (a virtualenv's python, ...); a
    path relative to the team's folder is in the copy already."""
    first = command[0]
    if os.sep in first and not os.path.isabs(first):
        return []
    return program_paths(list(command))


def _fresh_copy(source: Path, folder: Path, uid: int) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, folder, symlinks=True)
    prepare_folder(folder, uid)


def _tail(path: Path, size: int = TAIL_BYTES) -> str:
    """The end of a program's captured output ("" when there is none)."""
    try:
        with path.open("rb") as file:
            file.seek(max(0, file.seek(0, os.SEEK_END) - size))
            return file.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _describe(status: int, mode: str) -> tuple[str, bool]:
    if status < 0:
        return f"killed by {_signal_name(-status)}", True
    if mode != "none" and 128 < status <= 128 + 64:  # bwrap reports a signal as 128 + N
        return f"killed by {_signal_name(status - 128)}", True
    return f"exit code {status}", status != 0


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
