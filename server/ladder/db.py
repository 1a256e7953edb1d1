"""Opening the ladder's database: ``sqlite:///PATH`` (the default, a file in the ladder's folder)
or ``postgresql://...`` (psycopg 3), migrated to the newest schema on open.

    engine = open_database("sqlite:///cs312/ladder.db")     # or "postgresql://u@host/db"
    with engine.begin() as db:                              # one transaction
        db.execute(schema.teams.insert().values(...))

SQLite is opened in WAL mode with foreign keys on, a 30 s busy timeout, and every transaction
begun ``IMMEDIATE`` (it takes the write lock at once: two processes that read then write never
deadlock, the second waits). PostgreSQL migrations hold an advisory lock, so two processes that
open a new database at once migrate it once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, exc, select, text
from sqlalchemy.engine import URL, make_url

from server.ladder import schema as s

__all__ = [
    "BUSY_SECONDS",
    "LadderError",
    "audit",
    "database_url",
    "head",
    "ladder_row",
    "open_database",
    "revision",
]

#: How long a SQLite writer waits for another one before giving up.
BUSY_SECONDS = 30.0
MIGRATIONS = Path(__file__).parent / "migrations"
#: The advisory lock id PostgreSQL migrations hold ("ladder" in ASCII).
_LOCK = 0x6C6164646572


class LadderError(Exception):
    """Bad input to the ladder (a URL, a roster, a token, an upload): one line for the user."""


def database_url(given: str | None, folder: Path) -> URL:
    """The URL ``--db`` gives (or the default file ``FOLDER/ladder.db``), checked."""
    if given is None:
        return URL.create("sqlite", database=str(folder / "ladder.db"))
    try:
        url = make_url(given)
    except exc.ArgumentError:
        raise LadderError(
            f"--db {given}: not a database URL (sqlite:///PATH or postgresql://...)"
        ) from None
    if url.drivername in {"postgresql", "postgres", "postgresql+psycopg"}:
        return url.set(drivername="postgresql+psycopg")
    if url.drivername == "sqlite":
        if not url.database or url.database == ":memory:":
            raise LadderError(f"--db {given}: a SQLite ladder needs a file: sqlite:///PATH")
        return url
    raise LadderError(f"--db {given}: only sqlite:///PATH and postgresql://... are supported")


def _sqlite_engine(url: URL) -> Engine:
    engine = create_engine(url, connect_args={"timeout": BUSY_SECONDS})

    @event.listens_for(engine, "connect")
    def _connect(dbapi: Any, _record: Any) -> None:
        dbapi.isolation_level = None  # transactions are begun below, not by the driver
        cursor = dbapi.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def head() -> str:
    """The newest migration's revision id."""
    newest = ScriptDirectory.from_config(_config()).get_current_head()
    assert newest is not None
    return newest


def revision(engine: Engine) -> str | None:
    """The database's current revision (None: empty)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def open_database(url: URL | str) -> Engine:
    """An engine on ``url``, its schema migrated to :func:`head` (in one transaction)."""
    url = make_url(url) if isinstance(url, str) else url
    if url.drivername == "sqlite":
        assert url.database is not None
        if not Path(url.database).parent.is_dir():
            raise LadderError(f"{url.database}: its folder does not exist")
        engine = _sqlite_engine(url)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    config = _config()
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _LOCK})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    except exc.DBAPIError as error:
        engine.dispose()
        cause = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
        raise LadderError(f"{url.render_as_string(hide_password=True)}: {cause}") from None
    except Exception as error:
        engine.dispose()
        if type(error).__name__ in {"CommandError", "ResolutionError"}:
            raise LadderError(
                f"{url.render_as_string(hide_password=True)}: a database of another version "
                f"of the ladder ({error})"
            ) from None
        raise
    return engine


def ladder_row(db: Connection, *, lock: bool = False) -> dict[str, Any]:
    """The ladder's row, its settings decoded; ``lock``: held until the transaction ends
    (PostgreSQL; a SQLite transaction holds the whole database already), so results are
    recorded one at a time."""
    query = select(s.ladder).where(s.ladder.c.id == 1)
    row = db.execute(query.with_for_update() if lock else query).mappings().first()
    if row is None:
        raise LadderError("this ladder has not been created: run arena ladder init first")
    ladder = dict(row)
    ladder["settings"] = json.loads(ladder["settings"] or "{}")
    return ladder


def audit(db: Connection, at: float, actor: str, action: str, detail: dict[str, Any]) -> None:
    """One line of the ladder's audit log, in the caller's transaction."""
    db.execute(
        s.audit.insert().values(at=at, actor=actor, action=action, detail=json.dumps(detail))
    )
