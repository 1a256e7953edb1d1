"""``arena check-client -- CMD ...``: check a team program against a scripted, probing server.

The program is started as a tournament starts it (docs/tournament.md): the placeholders
``{host} {port} {team} {match} {token}`` in CMD are replaced (when CMD has none, the values are
appended as arguments), and the same values are in ``ARENA_HOST``, ``ARENA_PORT``,
``ARENA_TEAM``, ``ARENA_MATCH`` and ``ARENA_TOKEN``; without ``--token`` there is no token: no
fifth argument, no ``ARENA_TOKEN``, and a ``{token}`` word is left out. The scripted server
(server/probe.py) plays the other team and probes the program; the report lists each check
(protocol/conformance.py) as passed, failed or not run, with the section of docs/protocol.md and
a hint. Exit 0 only if every check passed. The program, and every process it started, is ended
with the checker: at the end, on Ctrl-C, SIGTERM or SIGHUP (then the exit status is 128 + the
signal's number).

    arena check-client -- python3 docs/starters/starter.py
    arena check-client --team 1 --token s3cret --json -- java -cp build Starter
    arena check-client -- arena team --team {team} --port {port} --match {match}
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import trio

from arena.errors import EXIT_USAGE, command
from arena.options import ArgumentParser, add_config_option, dungeon_rules, positive_seconds, seed
from arena.stopping import STOP_SIGNALS, Stopped
from protocol.conformance import FAILED, NOT_RUN, PASSED, Observations, Verdict, evaluate
from server.probe import run_probe
from server.probe_checks import ProbeConfig

__all__ = ["main"]

PLACEHOLDERS = ("{host}", "{port}", "{team}", "{match}", "{token}")
#: Seconds the program has to exit after game_over.
EXIT_SECONDS = 10.0


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1 :]
    else:
        options, command = argv, []
    parser = ArgumentParser(
        prog="arena check-client",
        description=__doc__.splitlines()[0].split(": ", 1)[1],
        usage="arena check-client [OPTIONS] -- CMD [ARG ...]",
    )
    parser.add_argument("--team", type=int, choices=(0, 1), default=0, help="the program's team")
    parser.add_argument("--match", default="check", help="the match name it is told")
    parser.add_argument("--token", default=None, help="the token it is told (default: none)")
    parser.add_argument("--seed", type=seed, default=1, help="the dungeon's and dice's seed")
    add_config_option(parser, "rules overrides, e.g. nodes=300 radius=0.11")
    parser.add_argument(
        "--start-timeout",
        type=positive_seconds,
        default=10.0,
        help="seconds a socket has for its start (default 10, as the spec)",
    )
    parser.add_argument(
        "--seconds", type=positive_seconds, default=30.0, help="the longest the probed match runs"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--game",
        choices=("dungeon", "fish", "labyrinth", "penguins"),
        default="dungeon",
        help="the program's game (dungeon: the probes below; the others: one pre-flight game "
        "against the built-in player, sandboxed, as a tournament runs it)",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="(fish, labyrinth, penguins) the program's folder (default: the folder of the "
        "first file CMD names)",
    )
    parser.add_argument(
        "--sandbox",
        choices=("bwrap", "none"),
        default="bwrap",
        help="(fish, labyrinth, penguins) run the program under bubblewrap (default) or not",
    )
    args = parser.parse_args(options)
    if not command:
        parser.error("no program: give its command after --, e.g. -- python3 team.py")
    return args, command


def program_argv(command: list[str], values: dict[str, str]) -> list[str]:
    """CMD with its placeholders replaced; the values appended when it has none. Without a
    token (no "token" in ``values``) a ``{token}`` word is dropped, never passed empty."""
    order = ("host", "port", "team", "match", "token")
    if not any(p in word for word in command for p in PLACEHOLDERS):
        return [*command, *(values[key] for key in order if key in values)]
    out = []
    for word in command:
        if word == "{token}" and "token" not in values:
            continue
        for key in order:
            word = word.replace("{" + key + "}", values.get(key, ""))
        out.append(word)
    return out


#: Lines of the program's standard error kept for the report.
TAIL_LINES = 20


async def relay_stderr(stream: trio.abc.ReceiveStream, tail: list[str]) -> None:
    """Copy the program's error output to ours as it comes, keeping its last lines."""
    pending = b""
    while chunk := await stream.receive_some(65536):
        sys.stderr.write(chunk.decode("utf-8", "replace"))
        sys.stderr.flush()
        *lines, pending = (pending + chunk).split(b"\n")
        pending = pending[-4096:]
        tail.extend(
            line.decode("utf-8", "replace").rstrip()[:300] for line in lines if line.strip()
        )
        del tail[:-TAIL_LINES]
    if pending.strip():
        tail.append(pending.decode("utf-8", "replace").rstrip()[:300])
        del tail[:-TAIL_LINES]


async def show_progress(seen: Observations, config: ProbeConfig) -> None:
    """One line on stderr each time the check reaches a new stage, so a wait is never silent."""
    stages = (
        (lambda: True, f"waiting up to {config.start_timeout:g} s for the program's six sockets"),
        (lambda: seen.sockets > 0, "a socket connected; waiting for the six starts"),
        (
            lambda: bool(seen.started) and seen.dungeon_reads > 0,
            f"dungeon sent; playing the probed match (at most {config.play_seconds:g} s)",
        ),
        (lambda: seen.game_over_sent, "game_over sent; waiting for the program to exit"),
    )
    shown = 0
    while shown < len(stages):
        if stages[shown][0]():
            print(f"arena check-client: {stages[shown][1]}", file=sys.stderr, flush=True)
            shown += 1
            continue
        await trio.sleep(0.25)


async def stop_on_signals(scope: trio.CancelScope, stopped: list[int]) -> None:
    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async for signum in signals:
            stopped.append(signum)
            scope.cancel()
            return


async def check(
    command: list[str], config: ProbeConfig, exit_seconds: float = EXIT_SECONDS
) -> Observations:
    """Run the program against the probe; what the probe saw, with how the program ended."""
    seen = Observations(team=config.team)
    exited = trio.Event()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    values = {
        "host": "127.0.0.1",
        "port": str(port),
        "team": str(config.team),
        "match": config.match,
    }
    if config.token is not None:
        values["token"] = config.token
    seen.start_timeout = config.start_timeout
    stopped: list[int] = []
    env = {**os.environ, **{f"ARENA_{key.upper()}": value for key, value in values.items()}}
    reaper = Subreaper()
    try:
        process = await trio.lowlevel.open_process(
            program_argv(command, values),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=2,  # to our stderr: the report owns stdout (--json)
            stderr=subprocess.PIPE,  # relayed to ours, its last lines kept for the report
            start_new_session=True,  # its own process group: ended whole, children included
        )
    except OSError:
        reaper.close()
        for listener in listeners:
            await listener.aclose()
        raise
    print(f"arena check-client: checking {' '.join(command)}", file=sys.stderr, flush=True)
    try:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                await process.wait()
                # Judged as it exits: a program that ends at once on game_over may be gone
                # before the probe has finished closing its sockets.
                seen.exited_after_game_over = seen.game_over_sent
                seen.exited_early = not seen.game_over_sent
                seen.exit_status = process.returncode
                exited.set()

            nursery.start_soon(stop_on_signals, nursery.cancel_scope, stopped)
            assert process.stderr is not None
            nursery.start_soon(relay_stderr, process.stderr, seen.stderr_tail)
            nursery.start_soon(watch)
            nursery.start_soon(show_progress, seen, config)
            await run_probe(listeners, config, seen, exited)
            # A program that never connected is not waited for: it is ended at once.
            with trio.move_on_after(exit_seconds if seen.sockets else 0):
                await exited.wait()
            if exited.is_set():
                seen.exit_status = process.returncode
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            for listener in listeners:
                await listener.aclose()
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
            reaper.kill_orphans()
            reaper.close()
    if stopped:
        raise Stopped(stopped[0])
    return seen


class Subreaper:
    """The program's escaped descendants, found and killed (Linux).

    Killing the program's process group misses a child that left it (``setsid``, a daemon's
    double fork): it outlived the checker. As a child subreaper (prctl), this process becomes
    the parent of every orphaned descendant of the program instead of init, so the children it
    did not have before the program started are the program's, and are killed.
    """

    _PR_SET_CHILD_SUBREAPER = 36

    def __init__(self) -> None:
        self.active = sys.platform == "linux" and self._set(1)
        self._before = set(_children()) if self.active else set()

    def _set(self, value: int) -> bool:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            return bool(libc.prctl(self._PR_SET_CHILD_SUBREAPER, value, 0, 0, 0) == 0)
        except (OSError, AttributeError):
            return False

    def kill_orphans(self) -> int:
        """SIGKILL and reap every child that is the program's (rounds: one may fork while the
        others die, and its children come to us); how many."""
        if not self.active:
            return 0
        killed = 0
        for _ in range(100):
            orphans = [pid for pid in _children() if pid not in self._before]
            if not orphans:
                break
            for pid in orphans:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            for pid in orphans:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            killed += len(orphans)
        return killed

    def close(self) -> None:
        if self.active:
            self._set(0)
            self.active = False


def _children() -> list[int]:
    """The pids whose parent is this process (from /proc; empty where there is none)."""
    me, found = os.getpid(), []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # gone meanwhile
            if len(fields) > 1 and int(fields[1]) == me:
                found.append(int(entry.name))
    return found


MARKS = {PASSED: "PASS", FAILED: "FAIL", NOT_RUN: "NOT RUN"}


def report(verdicts: list[Verdict], command: list[str]) -> str:
    lines = [f"arena check-client: {' '.join(command)}", ""]
    for verdict in verdicts:
        lines.append(f"{MARKS[verdict.status]:<4}  {verdict.check.name}: {verdict.check.title}")
        lines.append(f"      {verdict.detail}")
        if verdict.status == FAILED:
            lines.append(f"      see: {verdict.check.section}")
            lines.append(f"      hint: {verdict.check.hint}")
    counts = {status: sum(v.status == status for v in verdicts) for status in MARKS}
    lines.append("")
    lines.append(
        f"{counts[PASSED]} of {len(verdicts)} checks passed"
        + "".join(f"; {counts[s]} {s}" for s in (FAILED, NOT_RUN) if counts[s])
    )
    return "\n".join(lines)


@command("arena check-client")
def main(argv: list[str]) -> int:
    args, program = parse_args(argv)
    if args.game != "dungeon":
        from arena.check_game import check_game

        return check_game(args, program)
    rules = dungeon_rules(args.config)
    config = replace(
        ProbeConfig(),
        team=args.team,
        match=args.match,
        token=args.token,
        seed=args.seed,
        rules=rules,
        start_timeout=args.start_timeout,
        play_seconds=args.seconds,
    )
    try:
        seen = trio.run(check, program, config)
    except OSError as error:  # the program could not be started
        print(f"arena check-client: cannot run {program[0]!r}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except Stopped as stop:
        return stop.report()
    verdicts = evaluate(seen)
    if args.json:
        print(
            json.dumps(
                {
                    "command": program,
                    "passed": all(v.passed for v in verdicts),
                    "checks": [v.as_dict() for v in verdicts],
                    "notes": seen.notes,
                },
                indent=2,
            )
        )
    else:
        print(report(verdicts, program))
    return 0 if all(v.passed for v in verdicts) else 1
