"""Checking a received version: the build command, if any, runs inside the sandbox (no network,
a wall time, CPU and process limits); then the program plays the competition's pre-flight game
(server/competition: the game's adapter, sandboxed as in a match). :func:`record_check` writes
the verdict in one transaction: the version becomes ``active`` (its team's previous active one
``inactive``) or ``failed`` with its one-line reason; the build and pre-flight output are in the
store, their digests on the version.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from sqlalchemy import select, update

from server.competition.board import Board
from server.competition.competition import HOUSE, RunOptions
from server.competition.run import make_run
from server.competition.teams import DEFAULT_SEATS, Players, TeamsError, parse_teams
from server.ladder import schema
from server.ladder.db import audit
from server.ladder.ladder import Ladder
from server.ladder.receive import Received, limits_of
from server.ladder.store import StoreError
from server.sandbox import Limits, program_paths
from server.sandbox import run as sandboxed

__all__ = ["OUTPUT_SHOWN", "Check", "Submitted", "check_version", "house_teams", "record_check"]

#: How much of the build's and the pre-flight's output is kept per stream.
OUTPUT_SHOWN = 64 * 1024


@dataclass(frozen=True)
class Submitted:
    """A checked version: ``active`` or ``failed`` (with ``reason``), and its outputs."""

    team: str
    number: int
    status: str
    reason: str | None
    content_hash: str
    build_output: str
    preflight_output: str


def _shown(stdout: str, stderr: str) -> str:
    parts = []
    if stdout:
        parts.append(stdout[:OUTPUT_SHOWN])
    if stderr:
        parts.append(stderr[:OUTPUT_SHOWN])
    return "".join(part if part.endswith("\n") else part + "\n" for part in parts)


@dataclass
class Check:
    """What checking a version found: its reason to fail (None: it passed) and its outputs."""

    reason: str | None = None
    program_hash: str | None = None
    build_output: str = ""
    preflight_output: str = ""
    preflight: dict[str, Any] | None = None


async def check_version(
    ladder: Ladder, received: Received, *, players: Players | None, sandbox: str = "bwrap"
) -> Check:
    """Build (if asked) and pre-flight a received version; what happened."""
    check = Check()
    if received.problem is not None:
        check.reason = received.problem
        return check
    if not received.command:
        check.reason = "no command: add program.toml with command = [...]"
        return check
    limits = limits_of(ladder)
    work = ladder.scratch / f"check-{received.version_id}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        folder = work / "program"
        await trio.to_thread.run_sync(ladder.store.checkout, received.content_hash, folder)
        if received.build and not await _build(received.build, folder, limits, sandbox, check):
            return check
        too_much = await trio.to_thread.run_sync(_over_bounds, folder, limits)
        if too_much is not None:
            check.reason = f"the build left {too_much}"
            return check
        try:
            check.program_hash = await trio.to_thread.run_sync(ladder.store.put_tree, folder)
        except StoreError as error:
            check.reason = f"the build left {error}"
            return check
        await _preflight(ladder, received, folder, work, players, sandbox, check)
        return check
    finally:
        await trio.to_thread.run_sync(lambda: shutil.rmtree(work, ignore_errors=True))


def _over_bounds(folder: Path, limits: dict[str, float]) -> str | None:
    """Whether a built folder holds more files or bytes than a submission may (links and
    special files are refused when it is stored)."""
    files = size = 0
    for directory, _subdirectories, names in os.walk(folder):
        for name in names:
            files += 1
            size += (Path(directory) / name).lstat().st_size
            if files > limits["files"]:
                return f"more than {int(limits['files'])} files"
            if size > limits["unpacked_bytes"]:
                return f"more than {limits['unpacked_bytes'] / (1 << 20):g} MiB"
    return None


async def _build(
    build: list[str], folder: Path, limits: dict[str, float], sandbox: str, check: Check
) -> bool:
    seconds = float(limits["build_seconds"])
    bounds = Limits(
        cpu_seconds=int(limits["build_cpu_seconds"]), memory_bytes=2 << 30, file_bytes=64 << 20,
        processes=int(limits["build_processes"]), open_files=256, wall_seconds=seconds,
    )  # fmt: skip
    try:
        outcome = await trio.to_thread.run_sync(
            lambda: sandboxed(
                build,
                folder=folder,
                limits=bounds,
                network=False,
                timeout=seconds,
                mode=sandbox,
                read_only=program_paths(build),
            )
        )
    except OSError as error:
        check.reason = f"build: cannot start {build[0]!r}: {error.strerror or error}"
        return False
    ended = outcome.describe(seconds)
    check.build_output = (
        f"$ {' '.join(build)}\n{_shown(outcome.stdout, outcome.stderr)}[build: {ended}]\n"
    )
    if outcome.timed_out:
        check.reason = f"build: {ended} (the limit)"
    elif outcome.code != 0:
        check.reason = f"build failed: {ended}"
    return check.reason is None


async def _preflight(
    ladder: Ladder,
    received: Received,
    folder: Path,
    work: Path,
    players: Players | None,
    sandbox: str,
    check: Check,
) -> None:
    settings = ladder.settings
    game = settings["tournament"].get("game", "dungeon")
    table = {**settings["tournament"], "name": f"v{received.version_id}"}
    data = {
        "tournament": table,
        "team": [
            {"name": received.team, "dir": str(folder), "command": received.command},
            *house_teams(game, table, avoid=received.team),
        ],
    }
    try:
        tournament = parse_teams(data, base=folder, source="program", players=players)
    except TeamsError as error:
        check.reason = f"pre-flight: {error}"
        return
    out = work / "preflight"
    options = RunOptions(
        out=out, concurrency=1, sandbox=sandbox, preflight="keep", preflight_only=True,
        players=players,
    )  # fmt: skip
    runner = make_run(tournament, options, Board(tournament.name))
    runner.open_journal()
    await runner.run()
    result = runner.preflight.get(received.team)
    if result is None:
        check.reason = "pre-flight: the check did not run"
        return
    output = out / str(result.get("output") or "")
    if output.is_file():
        text = output.read_bytes()[: 2 * OUTPUT_SHOWN].decode("utf-8", "replace")
        check.preflight_output = text
    check.preflight = {k: result.get(k) for k in ("passed", "reason", "detail", "result")}
    if not result["passed"]:
        check.reason = f"pre-flight: {result['reason']}: {result['detail']}"


def house_teams(game: str, table: dict[str, Any], avoid: str = "") -> list[dict[str, str]]:
    """Built-in teams that fill a teams file of ``table`` beside one external team (so that it
    parses: a Fish game of 4 seats needs 4 teams); the pre-flight plays the external one only."""
    seats = table.get("players_per_game", DEFAULT_SEATS.get(game, 2))
    seats = seats if isinstance(seats, int) and 2 <= seats <= 8 else 2
    names = [name for name in (f"house{n}" for n in range(seats + 1)) if name != avoid]
    return [{"name": name, "builtin": HOUSE[game]} for name in names[: seats - 1]]


def record_check(ladder: Ladder, received: Received, check: Check) -> Submitted:
    """The version's verdict, in one transaction with its team's active version."""
    now = ladder.clock()
    build_hash = ladder.store.put(check.build_output.encode()) if check.build_output else None
    preflight_hash = (
        ladder.store.put(check.preflight_output.encode()) if check.preflight_output else None
    )
    status = "failed" if check.reason is not None else "active"
    versions = schema.versions
    with ladder.engine.begin() as db:
        team_id = db.execute(
            select(versions.c.team_id).where(versions.c.id == received.version_id)
        ).scalar_one()
        if status == "active":
            db.execute(
                update(versions)
                .where(versions.c.team_id == team_id, versions.c.status == "active")
                .values(status="inactive")
            )
        db.execute(
            update(versions)
            .where(versions.c.id == received.version_id)
            .values(
                status=status, reason=check.reason, program_hash=check.program_hash,
                build_output_hash=build_hash, preflight_output_hash=preflight_hash,
                preflight=json.dumps(check.preflight) if check.preflight is not None else None,
                checked=now,
            )
        )  # fmt: skip
        audit(db, now, f"team:{received.team}", "checked",
               {"version": received.number, "status": status, "reason": check.reason})  # fmt: skip
    return Submitted(
        received.team, received.number, status, check.reason, received.content_hash,
        check.build_output, check.preflight_output,
    )  # fmt: skip
