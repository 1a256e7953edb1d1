"""A submission becomes a version: the one path for the command line and the web form.

    result = await submit(ladder, token, Path("bot.zip"), players=PLAYERS)

1. :func:`receive_version` (blocking; run in a thread): the token is checked (a team's; rate
   limited), the ladder must not be frozen, the upload is unpacked safely
   (:mod:`server.ladder.unpack`), its files put in the store and a new version recorded as
   ``checking`` in one transaction: from then on the submission survives anything.
2. :func:`check_version`: the build command, if any, runs inside the sandbox (no network, a wall
   time, CPU and process limits); then the program plays the competition's pre-flight game
   (server/competition: the game's adapter, sandboxed as in a match).
3. :func:`record_check`: one transaction: the version becomes ``active`` (its team's previous
   active one ``inactive``) or ``failed`` with its one-line reason; the build and pre-flight
   output are in the store, their digests on the version.

A submission's folder may hold ``program.toml``: ``command = ["./bot", "{host}", ...]`` and
``build = ["make"]``; otherwise the ladder's settings give them. A zip or folder whose files
all sit in one top folder is read from inside it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from sqlalchemy import Connection, exc, func, insert, select, update

from server.competition.board import Board
from server.competition.competition import HOUSE, RunOptions
from server.competition.run import make_run
from server.competition.teams import DEFAULT_SEATS, Players, TeamsError, parse_teams
from server.ladder import schema
from server.ladder.auth import authenticate
from server.ladder.db import LadderError
from server.ladder.ladder import DEFAULT_LIMITS, Ladder
from server.ladder.store import StoreError
from server.ladder.unpack import Bounds, unpack
from server.sandbox import Limits, program_paths
from server.sandbox import run as sandboxed

__all__ = [
    "OUTPUT_SHOWN",
    "Received",
    "Submitted",
    "check_version",
    "house_teams",
    "receive_version",
    "recheck",
    "record_check",
    "stale_versions",
    "submit",
]

#: How much of the build's and the pre-flight's output is kept per stream.
OUTPUT_SHOWN = 64 * 1024
PROGRAM_FILE = "program.toml"


@dataclass(frozen=True)
class Received:
    """A version recorded as ``checking``: what checking it needs."""

    version_id: int
    team: str
    number: int
    content_hash: str
    command: list[str] | None
    build: list[str] | None
    #: Why the submission cannot run at all (a broken program.toml): it fails unchecked.
    problem: str | None = None


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


def _limits(ladder: Ladder) -> dict[str, float]:
    return {**DEFAULT_LIMITS, **ladder.settings.get("limits", {})}


def _program_file(folder: Path) -> tuple[dict[str, Any], str | None]:
    path = folder / PROGRAM_FILE
    if not path.is_file():
        return {}, None
    return _program_data(path.read_bytes())


def _program_data(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """``program.toml``'s fields, or why it is broken."""
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return {}, f"{PROGRAM_FILE}: {error}"
    for key in data:
        if key not in {"command", "build"}:
            return {}, f"{PROGRAM_FILE}: unknown field {key!r} (want command, build)"
    for key in ("command", "build"):
        value = data.get(key)
        if value is not None and not (
            isinstance(value, list) and value and all(isinstance(w, str) and w for w in value)
        ):
            return {}, f"{PROGRAM_FILE}: {key} wants a list of non-empty strings"
    return data, None


def _inner(folder: Path) -> Path:
    """The folder a submission's files sit in: itself, or its one top folder."""
    entries = list(folder.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0]
    return folder


def receive_version(
    ladder: Ladder, token: str, source: Path, *, origin: str = "cli", address: str = "cli"
) -> Received:
    """Check the token, unpack ``source`` and record the new version (``checking``)."""
    who = authenticate(ladder.engine, token, address, ladder.clock())
    if who.role != "team" or who.team_id is None:
        raise LadderError("the admin token cannot submit: use the team's own token")
    if ladder.row()["state"] == "frozen":  # type: ignore[index]
        raise LadderError("the ladder is frozen (grading): no submission until it is resumed")
    limits = _limits(ladder)
    bounds = Bounds(
        int(limits["upload_bytes"]), int(limits["unpacked_bytes"]), int(limits["files"])
    )
    work = Path(tempfile.mkdtemp(prefix=f"upload-{who.team}-", dir=ladder.scratch))
    try:
        files, size = unpack(source, work / "files", bounds)
        folder = _inner(work / "files")
        data, problem = _program_file(folder)
        try:
            content = ladder.store.put_tree(folder)
        except StoreError as error:
            raise LadderError(f"{source.name}: {error}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    settings = ladder.settings
    command = data.get("command", settings.get("command"))
    build = data.get("build", settings.get("build"))
    now = ladder.clock()
    for _ in range(5):  # two submissions of a team at once: the second takes the next number
        try:
            with ladder.engine.begin() as db:
                number = _next_number(db, who.team_id)
                version = db.execute(
                    insert(schema.versions)
                    .values(
                        team_id=who.team_id, number=number, content_hash=content, files=files,
                        size=size, command=json.dumps(command), build=json.dumps(build),
                        source=origin, submitted=now,
                    )
                    .returning(schema.versions.c.id)
                ).scalar_one()  # fmt: skip
                _audit(db, now, who.actor, "submit", {"version": number, "hash": content})
            break
        except exc.IntegrityError:
            continue
    else:
        raise LadderError("too many submissions of this team at once: submit again")
    assert who.team is not None
    return Received(version, who.team, number, content, command, build, problem)


def _next_number(db: Connection, team_id: int) -> int:
    highest = db.execute(
        select(func.max(schema.versions.c.number)).where(schema.versions.c.team_id == team_id)
    ).scalar()
    return int(highest or 0) + 1


def _audit(db: Connection, at: float, actor: str, action: str, detail: dict[str, Any]) -> None:
    db.execute(
        insert(schema.audit).values(at=at, actor=actor, action=action, detail=json.dumps(detail))
    )


def _shown(stdout: str, stderr: str) -> str:
    parts = []
    if stdout:
        parts.append(stdout[:OUTPUT_SHOWN])
    if stderr:
        parts.append(stderr[:OUTPUT_SHOWN])
    return "".join(part if part.endswith("\n") else part + "\n" for part in parts)


@dataclass
class _Check:
    reason: str | None = None
    program_hash: str | None = None
    build_output: str = ""
    preflight_output: str = ""
    preflight: dict[str, Any] | None = None


async def check_version(
    ladder: Ladder, received: Received, *, players: Players | None, sandbox: str = "bwrap"
) -> _Check:
    """Build (if asked) and pre-flight a received version; what happened."""
    check = _Check()
    if received.problem is not None:
        check.reason = received.problem
        return check
    if not received.command:
        check.reason = "no command: add program.toml with command = [...]"
        return check
    limits = _limits(ladder)
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
    build: list[str], folder: Path, limits: dict[str, float], sandbox: str, check: _Check
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
    check: _Check,
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


def record_check(ladder: Ladder, received: Received, check: _Check) -> Submitted:
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
        _audit(db, now, f"team:{received.team}", "checked",
               {"version": received.number, "status": status, "reason": check.reason})  # fmt: skip
    return Submitted(
        received.team, received.number, status, check.reason, received.content_hash,
        check.build_output, check.preflight_output,
    )  # fmt: skip


def stale_versions(ladder: Ladder, before: float) -> list[Received]:
    """Versions still ``checking`` that were submitted before ``before`` (UNIX seconds): their
    submission was interrupted (a kill -9, a crash) after it was recorded."""
    versions, teams = schema.versions, schema.teams
    with ladder.engine.connect() as db:
        rows = db.execute(
            select(versions, teams.c.name.label("team"))
            .join(teams, teams.c.id == versions.c.team_id)
            .where(versions.c.status == "checking", versions.c.submitted < before)
            .order_by(versions.c.id)
        ).mappings().all()  # fmt: skip
    stale = []
    for row in rows:
        problem = None
        program = ladder.store.manifest(row["content_hash"]).get(PROGRAM_FILE)
        if program is not None:
            problem = _program_data(ladder.store.read(program["hash"]))[1]
        stale.append(
            Received(
                row["id"],
                row["team"],
                row["number"],
                row["content_hash"],
                json.loads(row["command"]),
                json.loads(row["build"] or "null"),
                problem,
            )
        )
    return stale


async def recheck(
    ladder: Ladder, token: str, *, older_than: float, players: Players | None,
    sandbox: str = "bwrap", address: str = "cli",
) -> list[Submitted]:  # fmt: skip
    """The teacher's recovery after a crash: check and record every version left
    ``checking`` for more than ``older_than`` seconds (admin token)."""
    who = await trio.to_thread.run_sync(
        lambda: authenticate(ladder.engine, token, address, ladder.clock())
    )
    if who.role != "admin":
        raise LadderError("recheck needs the admin token")
    stale = await trio.to_thread.run_sync(stale_versions, ladder, ladder.clock() - older_than)
    done = []
    for received in stale:
        check = await check_version(ladder, received, players=players, sandbox=sandbox)
        done.append(await trio.to_thread.run_sync(record_check, ladder, received, check))
    return done


async def submit(
    ladder: Ladder,
    token: str,
    source: Path,
    *,
    players: Players | None,
    sandbox: str = "bwrap",
    origin: str = "cli",
    address: str = "cli",
) -> Submitted:
    """Receive, check and record one submission (the three steps above)."""
    received = await trio.to_thread.run_sync(
        lambda: receive_version(ladder, token, source, origin=origin, address=address)
    )
    check = await check_version(ladder, received, players=players, sandbox=sandbox)
    return await trio.to_thread.run_sync(record_check, ladder, received, check)
