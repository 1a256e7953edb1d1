"""The ladder's storage: the migrated database is the schema module's tables, on SQLite and on a
real PostgreSQL; the content-addressed store keeps whole objects only."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, exc, insert, select, text

from server.ladder import schema
from server.ladder.db import (
    MIGRATIONS,
    LadderError,
    database_url,
    head,
    open_database,
    revision,
)
from server.ladder.store import Store, StoreError


def test_migrations_build_exactly_the_declared_tables(database_url: str) -> None:
    """Upgrading an empty database to head gives the tables schema.py declares, nothing else."""
    engine = open_database(database_url)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), schema.metadata)
    engine.dispose()
    assert differences == []


def test_opening_again_keeps_the_data_and_the_revision(database_url: str) -> None:
    """A second open (a restart) migrates nothing and finds what the first wrote."""
    engine = open_database(database_url)
    with engine.begin() as db:
        db.execute(insert(schema.teams).values(name="ann", created=1.0))
    engine.dispose()
    again = open_database(database_url)
    assert revision(again) == head()
    with again.connect() as db:
        assert db.execute(select(schema.teams.c.name)).scalars().all() == ["ann"]
    again.dispose()


def test_a_database_of_the_first_schema_is_migrated_keeping_its_teams(database_url: str) -> None:
    """A ladder made before teams counted their logouts opens at head: its teams are kept, each
    with no logout yet (so their logins made before the upgrade still verify)."""
    engine = create_engine(database_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.execute(text("INSERT INTO teams (name, created) VALUES ('ann', 1.0)"))
    engine.dispose()
    migrated = open_database(database_url)
    assert revision(migrated) == head()
    with migrated.connect() as db:
        rows = db.execute(select(schema.teams.c.name, schema.teams.c.logouts)).all()
    migrated.dispose()
    assert [tuple(row) for row in rows] == [("ann", 0)]


def test_foreign_keys_are_enforced(database_url: str) -> None:
    """A version of a team that does not exist is refused by the database itself."""
    engine = open_database(database_url)
    orphan = insert(schema.versions).values(
        team_id=99, number=1, content_hash="0" * 64, files=1, size=1, command="[]", submitted=1.0
    )
    with pytest.raises(exc.IntegrityError), engine.begin() as db:
        db.execute(orphan)
    engine.dispose()


def test_a_failed_transaction_leaves_nothing(database_url: str) -> None:
    """A transaction that fails halfway (a duplicate team) writes none of its rows."""
    engine = open_database(database_url)

    def two_bobs() -> None:
        with engine.begin() as db:
            db.execute(insert(schema.teams).values(name="bob", created=1.0))
            db.execute(insert(schema.teams).values(name="bob", created=2.0))

    with pytest.raises(exc.IntegrityError):
        two_bobs()
    with engine.connect() as db:
        assert db.execute(select(schema.teams)).all() == []
    engine.dispose()


def test_sqlite_is_opened_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    """The default database: a file in the ladder's folder, WAL, foreign keys on."""
    url = database_url(None, tmp_path)
    assert url.database == str(tmp_path / "ladder.db")
    engine = open_database(url)
    with engine.connect() as db:
        assert db.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert db.execute(text("PRAGMA foreign_keys")).scalar() == 1
    engine.dispose()


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("mysql://x/y", "only sqlite:///PATH and postgresql://... are supported"),
        ("not a url", "not a database URL"),
        ("sqlite://", "a SQLite ladder needs a file"),
        ("sqlite:///:memory:", "a SQLite ladder needs a file"),
    ],
)
def test_a_bad_db_url_is_one_line_naming_it(given: str, message: str, tmp_path: Path) -> None:
    """--db that is not SQLite with a file or PostgreSQL: one line naming the flag and value."""
    with pytest.raises(LadderError, match=message) as caught:
        database_url(given, tmp_path)
    assert str(caught.value).startswith(f"--db {given}: ")
    assert "\n" not in str(caught.value)


def test_an_unreachable_postgresql_is_one_line(tmp_path: Path) -> None:
    """A server that is not there: the URL (password hidden) and the driver's first line."""
    url = database_url(f"postgresql://ann:secret@/nothing?host={tmp_path}", tmp_path)
    with pytest.raises(LadderError) as caught:
        open_database(url)
    message = str(caught.value)
    assert "secret" not in message
    assert "\n" not in message
    assert str(tmp_path) in message


def test_a_sqlite_file_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LadderError, match="its folder does not exist"):
        open_database(f"sqlite:///{tmp_path / 'no' / 'ladder.db'}")


def test_the_store_keeps_each_content_once_under_its_digest(tmp_path: Path) -> None:
    """The same bytes have the same digest (SHA-256) and one read-only object."""
    store = Store(tmp_path)
    first = store.put(b"print('hi')\n")
    assert first == store.put(b"print('hi')\n")
    assert first == hashlib.sha256(b"print('hi')\n").hexdigest()
    assert store.read(first) == b"print('hi')\n"
    assert store.path(first).stat().st_mode & 0o222 == 0
    assert list(store.tmp.iterdir()) == []


def test_a_folder_round_trips_through_its_manifest(tmp_path: Path) -> None:
    """put_tree then checkout gives the same files, contents and executable bits; the digest
    depends on the contents only."""
    folder = tmp_path / "program"
    (folder / "src").mkdir(parents=True)
    (folder / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    store = Store(tmp_path / "store")
    digest = store.put_tree(folder)
    assert set(store.manifest(digest)) == {"run.sh", "src/main.c"}
    copy = tmp_path / "copy"
    store.checkout(digest, copy)
    assert (copy / "src" / "main.c").read_text() == "int main(void) { return 0; }\n"
    assert (copy / "run.sh").stat().st_mode & 0o111
    assert not (copy / "src" / "main.c").stat().st_mode & 0o111
    assert store.put_tree(copy) == digest


def test_a_manifest_naming_a_path_outside_is_refused(tmp_path: Path) -> None:
    """A manifest is checked before anything is written: no ``..``, no absolute path."""
    store = Store(tmp_path / "store")
    blob = store.put(b"x")
    for bad in ("../escape", "/etc/passwd", "a/../../b"):
        digest = store.put(json.dumps({"files": {bad: {"hash": blob, "exec": False}}}).encode())
        with pytest.raises(StoreError, match="outside its folder"):
            store.checkout(digest, tmp_path / "out")
    assert not (tmp_path / "escape").exists()


def test_a_write_cut_short_leaves_no_object(tmp_path: Path) -> None:
    """A write that fails midway (here the source raises; kill -9 is the same on disk) leaves no
    object under any digest and no temporary file."""
    store = Store(tmp_path)

    def chunks():
        yield b"first half"
        raise OSError("the upload broke")

    with pytest.raises(OSError, match="upload broke"):
        store.put_stream(chunks())
    assert list(store.objects.rglob("*")) == []
    assert list(store.tmp.iterdir()) == []


def test_sweep_removes_only_old_leftovers(tmp_path: Path) -> None:
    """A killed writer's temporary file is removed by sweep; one being written now is kept."""
    store = Store(tmp_path)
    old, new = store.tmp / "put-old", store.tmp / "put-new"
    old.write_bytes(b"torn")
    new.write_bytes(b"being written")
    os.utime(old, (1000.0, 1000.0))
    os.utime(new, (5000.0, 5000.0))
    assert store.sweep(before=2000.0) == 1
    assert [path.name for path in store.tmp.iterdir()] == ["put-new"]


def test_an_unknown_or_malformed_digest_is_a_store_error(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with pytest.raises(StoreError, match="holds no object"):
        store.read("a" * 64)
    with pytest.raises(StoreError, match="not a SHA-256 digest"):
        store.read("../../etc/passwd")


def test_every_declared_state_is_accepted_and_others_refused(database_url: str) -> None:
    """The migrated CHECK constraints allow exactly the states schema.py lists (compare_metadata
    does not compare CHECK constraints, so this test does)."""
    engine = open_database(database_url)
    for number, state in enumerate(schema.MATCH_STATES):
        with engine.begin() as db:
            db.execute(insert(schema.matches).values(seed=number, state=state, created=1.0))
    with pytest.raises(exc.IntegrityError), engine.begin() as db:
        db.execute(insert(schema.matches).values(seed=9, state="lost", created=1.0))
    with engine.begin() as db:
        team = db.execute(insert(schema.teams).values(name="t", created=1.0)).inserted_primary_key
    for number, status in enumerate(schema.VERSION_STATES, 1):
        with engine.begin() as db:
            db.execute(
                insert(schema.versions).values(
                    team_id=team[0],
                    number=number,
                    content_hash="0" * 64,
                    files=1,
                    size=1,
                    command="[]",
                    submitted=1.0,
                    status=status,
                )
            )
    for state in schema.LADDER_STATES:
        with engine.begin() as db:
            db.execute(schema.ladder.delete())
            db.execute(
                insert(schema.ladder).values(
                    id=1, name="x", game="dungeon", state=state, created=1.0, changed=1.0
                )
            )
    engine.dispose()


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    """A damaged or foreign ladder.db: the file and SQLite's reason, no traceback."""
    (tmp_path / "ladder.db").write_bytes(b"garbage, not SQLite\n" * 100)
    with pytest.raises(LadderError, match="file is not a database") as caught:
        open_database(database_url(None, tmp_path))
    assert "\n" not in str(caught.value)
