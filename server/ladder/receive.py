"""Receiving a submission: the token checked (a team's; rate limited), the ladder not frozen,
the upload unpacked safely (:mod:`server.ladder.unpack`), its files put in the store and a new
version recorded as ``checking`` in one transaction: from then on the submission survives
anything (:func:`stale_versions` finds the ones a crash left ``checking``).

A submission's folder may hold ``program.toml``: ``command = ["./bot", "{host}", ...]`` and
``build = ["make"]``; otherwise the ladder's settings give them. A zip or folder whose files
all sit in one top folder is read from inside it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, exc, func, insert, select

from server.ladder import schema
from server.ladder.auth import authenticate
from server.ladder.db import LadderError, audit
from server.ladder.ladder import DEFAULT_LIMITS, Ladder
from server.ladder.store import StoreError
from server.ladder.unpack import Bounds, unpack

__all__ = ["PROGRAM_FILE", "Received", "limits_of", "receive_version", "stale_versions"]

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


def limits_of(ladder: Ladder) -> dict[str, float]:
    """The ladder's limits on a submission and its checks (its settings over the defaults)."""
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
    limits = limits_of(ladder)
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
                audit(db, now, who.actor, "submit", {"version": number, "hash": content})
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
