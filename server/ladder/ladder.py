"""One ladder: its folder (the store, the default SQLite file, ``ladder.json``), its database
and its settings; created from a roster (:meth:`Ladder.create`) and opened by every command
after (:meth:`Ladder.open`).

    ladder, tokens, admin = Ladder.create(Path("cs312"), None, game="dungeon",
                                          roster=parse_roster(text))
    ladder = Ladder.open(Path("cs312"), None)      # --db remembered in ladder.json
    ladder.status()                                # teams, versions, states (plain data)
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update

from server.ladder import schema
from server.ladder.auth import Identity, authenticate, new_token, token_hash
from server.ladder.db import LadderError, database_url, open_database
from server.ladder.roster import NAME, RosterRow
from server.ladder.store import Store

__all__ = ["DEFAULT_COMMANDS", "DEFAULT_LIMITS", "GAMES", "Ladder"]

GAMES = ("dungeon", "fish", "penguins", "labyrinth")
#: How a submitted program is run when its ``program.toml`` does not say (the starters' way).
DEFAULT_COMMANDS: dict[str, list[str]] = {
    "dungeon": ["python3", "client.py", "{host}", "{port}", "{team}", "{match}", "{token}"],
    "fish": ["python3", "client.py", "{host}", "{port}", "{name}"],
    "labyrinth": ["python3", "client.py", "{host}", "{port}", "{name}"],
    "penguins": ["python3", "player.py"],
}
#: A submission's bounds (see server/ladder/unpack.py) and its build's.
DEFAULT_LIMITS: dict[str, float] = {
    "upload_bytes": 16 << 20,
    "unpacked_bytes": 64 << 20,
    "files": 1000,
    "build_seconds": 120,
    "build_cpu_seconds": 120,
    "build_processes": 64,
}
_MANIFEST = "ladder.json"
_STALE_TEMPORARY = 3600.0


def _insert_teams(
    conn: Connection, roster: list[RosterRow], tokens: dict[str, str], now: float
) -> None:
    for row in roster:
        team = conn.execute(
            insert(schema.teams)
            .values(name=row.name, members=json.dumps(row.members), created=now)
            .returning(schema.teams.c.id)
        ).scalar_one()
        conn.execute(
            insert(schema.tokens).values(
                team_id=team, role="team", token_hash=token_hash(tokens[row.name]), created=now
            )
        )


def _audit(conn: Connection, at: float, actor: str, action: str, detail: dict[str, Any]) -> None:
    conn.execute(
        insert(schema.audit).values(at=at, actor=actor, action=action, detail=json.dumps(detail))
    )


@dataclass
class Ladder:
    folder: Path
    engine: Engine
    store: Store
    clock: Callable[[], float] = field(default=time.time)

    @classmethod
    def create(
        cls,
        folder: Path,
        db: str | None,
        *,
        game: str,
        roster: list[RosterRow],
        name: str | None = None,
        settings: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> tuple[Ladder, dict[str, str], str]:
        """A new ladder in ``folder``: a team per roster row with its token, and the admin
        token (returned once: only their hashes are kept)."""
        if game not in GAMES:
            raise LadderError(f"--game {game}: wants one of {', '.join(GAMES)}")
        name = name or folder.resolve().name
        if not NAME.fullmatch(name):
            raise LadderError(f"ladder name {name!r}: wants 1-32 of [A-Za-z0-9_-] (use --name)")
        if folder.exists() and not folder.is_dir():
            raise LadderError(f"--dir {folder}: not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        url = database_url(db, folder)
        ladder = cls(folder.resolve(), open_database(url), Store(folder / "store"), clock)
        now = clock()
        every = {
            "tournament": {"name": name, "game": game},
            "command": DEFAULT_COMMANDS[game],
            "build": None,
            "limits": dict(DEFAULT_LIMITS),
        }
        every.update(settings or {})
        tokens = {row.name: new_token() for row in roster}
        admin = new_token()
        with ladder.engine.begin() as conn:
            if conn.execute(select(schema.ladder.c.id)).first() is not None:
                ladder.close()
                raise LadderError(f"{folder}: already holds a ladder (its database: {url})")
            conn.execute(
                insert(schema.ladder).values(
                    id=1,
                    name=name,
                    game=game,
                    settings=json.dumps(every),
                    created=now,
                    changed=now,
                )
            )
            conn.execute(
                insert(schema.tokens).values(
                    role="admin", token_hash=token_hash(admin), created=now
                )
            )
            _insert_teams(conn, roster, tokens, now)
            conn.execute(
                insert(schema.audit).values(
                    at=now,
                    actor="cli",
                    action="init",
                    detail=json.dumps({"game": game, "teams": len(roster)}),
                )
            )
        if db is not None:
            manifest = folder / _MANIFEST
            descriptor = os.open(manifest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                json.dump({"db": db}, out)
        return ladder, tokens, admin

    @classmethod
    def open(cls, folder: Path, db: str | None, clock: Callable[[], float] = time.time) -> Ladder:
        """The ladder in ``folder`` (its database: ``db``, else the one ``init`` was given)."""
        if db is not None:
            database_url(db, folder)  # a bad --db is named before anything else
        if not folder.is_dir():
            raise LadderError(
                f"--dir {folder}: no ladder here (start one with 'arena ladder init')"
            )
        if db is None and (folder / _MANIFEST).is_file():
            try:
                db = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))["db"]
            except (ValueError, KeyError, TypeError):
                raise LadderError(f'{folder / _MANIFEST}: damaged (want {{"db": URL}})') from None
        if db is None and not (folder / "ladder.db").is_file():
            raise LadderError(
                f"--dir {folder}: no ladder here (start one with 'arena ladder init')"
            )
        ladder = cls(
            folder.resolve(),
            open_database(database_url(db, folder)),
            Store(folder / "store"),
            clock,
        )
        if ladder.row() is None:
            ladder.close()
            raise LadderError(f"--dir {folder}: its database holds no ladder ('arena ladder init')")
        ladder.store.sweep(before=clock() - _STALE_TEMPORARY)
        return ladder

    def admin(self, token: str, source: str = "cli") -> Identity:
        """The teacher, or :class:`LadderError`."""
        who = authenticate(self.engine, token, source, self.clock())
        if who.role != "admin":
            raise LadderError("this needs the admin token")
        return who

    def add_teams(self, roster: list[RosterRow], token: str) -> dict[str, str]:
        """Teams that join late (admin token): their tokens, shown once."""
        who = self.admin(token)
        tokens = {row.name: new_token() for row in roster}
        now = self.clock()
        with self.engine.begin() as conn:
            known = {
                name.lower(): name for name in conn.execute(select(schema.teams.c.name)).scalars()
            }
            for row in roster:
                if row.name.lower() in known:
                    raise LadderError(f"team {row.name!r}: already in the ladder")
            _insert_teams(conn, roster, tokens, now)
            _audit(conn, now, who.actor, "add_teams", {"teams": [row.name for row in roster]})
        return tokens

    def reissue(self, team: str, token: str) -> str:
        """A new token for ``team`` (admin token; a lost one): its old tokens are revoked."""
        who = self.admin(token)
        fresh = new_token()
        now = self.clock()
        with self.engine.begin() as conn:
            team_id = conn.execute(
                select(schema.teams.c.id).where(schema.teams.c.name == team)
            ).scalar()
            if team_id is None:
                raise LadderError(f"no team {team!r} in the ladder")
            conn.execute(
                update(schema.tokens).where(schema.tokens.c.team_id == team_id).values(revoked=True)
            )
            conn.execute(
                insert(schema.tokens).values(
                    team_id=team_id, role="team", token_hash=token_hash(fresh), created=now
                )
            )
            _audit(conn, now, who.actor, "reissue_token", {"team": team})
        return fresh

    def version_outputs(
        self, token: str, number: int | None = None, team: str | None = None, source: str = "cli"
    ) -> dict[str, Any]:
        """One version (the newest by default) with its reason and its build and pre-flight
        output: a team's token sees its own team's, the admin token any ``team``'s."""
        who = authenticate(self.engine, token, source, self.clock())
        if who.role == "team":
            if team is not None and team != who.team:
                raise LadderError(f"a team's token shows its own versions only, not {team!r}'s")
            team = who.team
        elif team is None:
            raise LadderError("with the admin token, name the team (--team)")
        versions, teams = schema.versions, schema.teams
        query = (
            select(versions)
            .join(teams, teams.c.id == versions.c.team_id)
            .where(teams.c.name == team)
            .order_by(versions.c.number.desc())
        )
        if number is not None:
            query = query.where(versions.c.number == number)
        with self.engine.connect() as conn:
            row = conn.execute(query.limit(1)).mappings().first()
        if row is None:
            which = f" {number}" if number is not None else ""
            raise LadderError(f"team {team!r} has no version{which}")

        def text(digest: str | None) -> str:
            return self.store.read(digest).decode("utf-8", "replace") if digest else ""

        return {
            "team": team,
            "number": row["number"],
            "status": row["status"],
            "reason": row["reason"],
            "content_hash": row["content_hash"],
            "build_output": text(row["build_output_hash"]),
            "preflight_output": text(row["preflight_output_hash"]),
        }

    def close(self) -> None:
        self.engine.dispose()

    def row(self) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            found = conn.execute(select(schema.ladder)).mappings().first()
        return dict(found) if found is not None else None

    @property
    def settings(self) -> dict[str, Any]:
        row = self.row()
        assert row is not None
        settings: dict[str, Any] = json.loads(row["settings"])
        return settings

    @property
    def scratch(self) -> Path:
        """Where submissions are unpacked and built (removed when done)."""
        path = self.folder / "scratch"
        path.mkdir(exist_ok=True)
        return path

    def status(self) -> dict[str, Any]:
        """The ladder, its teams and their versions (newest first), as plain data."""
        row = self.row()
        assert row is not None
        with self.engine.connect() as conn:
            teams = [
                dict(team)
                for team in conn.execute(select(schema.teams).order_by(schema.teams.c.name))
                .mappings()
                .all()
            ]
            versions = conn.execute(
                select(schema.versions).order_by(schema.versions.c.number.desc())
            ).mappings()
            by_team: dict[int, list[dict[str, Any]]] = {}
            for version in versions:
                by_team.setdefault(version["team_id"], []).append(
                    {
                        "number": version["number"],
                        "status": version["status"],
                        "reason": version["reason"],
                        "content_hash": version["content_hash"],
                        "files": version["files"],
                        "size": version["size"],
                        "submitted": version["submitted"],
                        "checked": version["checked"],
                    }
                )
        listed = []
        for team in teams:
            own = by_team.get(team["id"], [])
            active = next((v["number"] for v in own if v["status"] == "active"), None)
            listed.append({"team": team["name"], "active": active, "versions": own})
        return {
            "ladder": {"name": row["name"], "game": row["game"], "state": row["state"]},
            "teams": listed,
        }
