"""A real PostgreSQL server for the tests, started once per test session in a temporary folder:
Debian's ``postgresql`` binaries (``make postgresql`` installs them when root), a unix socket in
that folder and no TCP at all, trust authentication, fsync off (a test server loses nothing it
needs). ``initdb`` and ``postgres`` refuse to run as root: when root, they run as the
``postgres`` user the Debian package creates. Where no server can start, :func:`start` says why
in one line (the tests skip with it).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["PostgresUnavailable", "postgres_server"]

_numbers = itertools.count(1)


class PostgresUnavailable(Exception):
    """Why no PostgreSQL server can start here (one line)."""


def _bindir() -> Path:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parts[-3]) if path.parts[-3].isdigit() else 0,
    )
    if not versions:
        raise PostgresUnavailable("no PostgreSQL server binaries (Debian's 'postgresql')")
    return versions[-1].parent


def _as_user() -> list[str]:
    """The prefix that runs the server's commands as a user allowed to (not root)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable(
            "running as root and no 'postgres' user to run the server as"
        ) from None
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
        raise PostgresUnavailable(f"{Path(argv[-1]).name if argv else '?'}: {last[-1]}")


@contextmanager
def postgres_server() -> Iterator[tuple[Path, str]]:
    """Start a server; yield (its socket folder, the superuser's name); stop it and remove its
    folder at the end."""
    bindir = _bindir()
    prefix = _as_user()
    user = "postgres" if prefix else pwd.getpwuid(os.geteuid()).pw_name
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    if prefix:
        shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    try:
        _run([*prefix, str(bindir / "initdb"), "--auth=trust", f"--username={user}",
              "--no-sync", "--encoding=UTF8", "--locale=C", "-D", str(data)])  # fmt: skip
        options = f"-c listen_addresses='' -k {folder} -c fsync=off -c full_page_writes=off"
        _run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w",
              "-l", str(folder / "server.log"), "start"])  # fmt: skip
        try:
            yield folder, user
        finally:
            subprocess.run(
                [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                check=False,
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(folder: Path, user: str) -> str:
    """A new empty database on the server; its URL (psycopg 3)."""
    import psycopg

    name = f"ladder_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(host=str(folder), user=user, dbname="postgres", autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://{user}@/{name}?host={folder}"
