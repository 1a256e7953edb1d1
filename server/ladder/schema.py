"""The ladder's tables, declared once (SQLAlchemy Core); every change to them is an Alembic
migration in ``migrations/versions`` (tests compare the migrated database with this module).

Times are UNIX seconds (floats), the same on SQLite and PostgreSQL. Files (programs, build and
pre-flight output, match logs, program output) live in the content-addressed store
(:mod:`server.ladder.store`); a column ending in ``_hash`` holds a store digest.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

__all__ = [
    "LADDER_STATES",
    "MATCH_STATES",
    "MAX_ID",
    "VERSION_STATES",
    "audit",
    "auth_failures",
    "ladder",
    "matches",
    "metadata",
    "ratings",
    "seats",
    "teams",
    "tokens",
    "versions",
]

#: Naming convention: constraint names are stable, so migrations can name what they change.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

#: ``running``: matches are scheduled; ``paused``: none is started (running ones finish);
#: ``frozen``: paused, and neither submissions nor ratings change (grading).
LADDER_STATES = ("running", "paused", "frozen")
#: A version's life: ``checking`` (unpacked, being built and pre-flighted), then ``active``
#: (its team's one playing version), ``failed`` (the reason says why), ``inactive`` (a newer
#: version of its team became active) or ``retired`` (by the teacher).
VERSION_STATES = ("checking", "active", "failed", "inactive", "retired")
#: A match: ``queued`` (planned), ``running`` (a runner claimed it), ``done`` (result and
#: ratings written in one transaction), ``failed`` (could not be played: no rating change),
#: ``void`` (replaced by a re-run or cancelled).
MATCH_STATES = ("queued", "running", "done", "failed", "void")
#: The largest id or number an ``Integer`` column holds on both databases (PostgreSQL's
#: ``integer`` has 32 bits): a larger one names nothing, and must not reach a query.
MAX_ID = (1 << 31) - 1


def _one_of(column: str, values: tuple[str, ...]) -> CheckConstraint:
    listed = ", ".join(f"'{value}'" for value in values)
    return CheckConstraint(f"{column} IN ({listed})", name=f"{column}_known")


#: The ladder itself: one row (id 1).
ladder = Table(
    "ladder",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("name", String(64), nullable=False),
    Column("game", String(16), nullable=False),
    Column("state", String(16), nullable=False, server_default="running"),
    #: The ladder's settings as JSON text (default command, build command, limits, ...).
    Column("settings", Text, nullable=False, server_default="{}"),
    Column("created", Double, nullable=False),
    Column("changed", Double, nullable=False),
    _one_of("state", LADDER_STATES),
)

teams = Table(
    "teams",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(32), nullable=False, unique=True),
    #: The roster row's other columns (members, e-mail...), as JSON text.
    Column("members", Text, nullable=False, server_default="{}"),
    Column("created", Double, nullable=False),
    #: How many times the team logged out of the pages: its login cookies are signed with it,
    #: so a logout ends every login of the team made before it.
    Column("logouts", Integer, nullable=False, server_default="0"),
)

#: Credentials: only the SHA-256 of each token (``team_id`` NULL: the teacher's admin token).
tokens = Table(
    "tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("teams.id", ondelete="CASCADE"), nullable=True),
    Column("role", String(8), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created", Double, nullable=False),
    Column("revoked", Boolean, nullable=False, server_default=false()),
    _one_of("role", ("team", "admin")),
)

#: Wrong tokens, by source (a web client's address, ``cli``): the rate limit's memory.
auth_failures = Table(
    "auth_failures",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source", String(64), nullable=False),
    Column("at", Double, nullable=False),
    Index(None, "source", "at"),
)

versions = Table(
    "versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("teams.id", ondelete="CASCADE"), nullable=False),
    #: 1, 2, ... per team.
    Column("number", Integer, nullable=False),
    #: The store digest of the program's manifest (its files as submitted).
    Column("content_hash", String(64), nullable=False),
    #: The built program's manifest (the folder after the build; equal without a build).
    Column("program_hash", String(64), nullable=True),
    Column("files", Integer, nullable=False),
    Column("size", Integer, nullable=False),
    #: The command that runs it (JSON list), and the build command used (JSON list or null).
    Column("command", Text, nullable=False),
    Column("build", Text, nullable=True),
    Column("status", String(16), nullable=False, server_default="checking"),
    #: One line: why it failed (or was retired); NULL otherwise.
    Column("reason", Text, nullable=True),
    Column("build_output_hash", String(64), nullable=True),
    Column("preflight_output_hash", String(64), nullable=True),
    #: The pre-flight's record as JSON text (passed, reason, detail, result).
    Column("preflight", Text, nullable=True),
    Column("source", String(8), nullable=False, server_default="cli"),
    Column("submitted", Double, nullable=False),
    Column("checked", Double, nullable=True),
    UniqueConstraint("team_id", "number"),
    _one_of("status", VERSION_STATES),
    Index(None, "team_id", "status"),
)

matches = Table(
    "matches",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("seed", Integer, nullable=False),
    Column("state", String(8), nullable=False, server_default="queued"),
    Column("created", Double, nullable=False),
    Column("started", Double, nullable=True),
    Column("finished", Double, nullable=True),
    #: Who runs it (a host/worker name) and how many times it was started.
    Column("worker", String(128), nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("result", Text, nullable=True),
    Column("log_hash", String(64), nullable=True),
    #: The match this one re-runs (its result replaces that one's), and why.
    Column("replaces", Integer, ForeignKey("matches.id"), nullable=True),
    Column("why", Text, nullable=True),
    _one_of("state", MATCH_STATES),
    Index(None, "state"),
)

#: One row per seat of a match: who played it and how it ended for them.
seats = Table(
    "seats",
    metadata,
    Column("match_id", Integer, ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
    #: Points (win 1, draw 0.5, loss 0; a shared first place split) and rank (0 = first).
    Column("points", Double, nullable=True),
    Column("rank", Integer, nullable=True),
    Column("reason", String(32), nullable=True),
    Column("detail", Text, nullable=True),
    Column("output_hash", String(64), nullable=True),
    Index(None, "version_id"),
)

#: The openskill rating of each version (Plackett-Luce), updated with each match's result.
ratings = Table(
    "ratings",
    metadata,
    Column("version_id", Integer, ForeignKey("versions.id", ondelete="CASCADE"), primary_key=True),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("games", Integer, nullable=False, server_default="0"),
    Column("wins", Integer, nullable=False, server_default="0"),
    Column("draws", Integer, nullable=False, server_default="0"),
    Column("losses", Integer, nullable=False, server_default="0"),
    Column("last_match_id", Integer, ForeignKey("matches.id"), nullable=True),
    Column("changed", Double, nullable=False),
)

#: Every admin action (and every submission), who did it and what.
audit = Table(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", Double, nullable=False),
    #: ``admin``, ``team:NAME``, ``cli``.
    Column("actor", String(64), nullable=False),
    Column("action", String(32), nullable=False),
    #: JSON text.
    Column("detail", Text, nullable=False, server_default="{}"),
)
