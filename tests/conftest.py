"""Fixtures every test gets."""

from __future__ import annotations

import importlib
import os
import pkgutil
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from hypothesis import settings

try:  # private (pytest-trio reaches for it too); should trio drop it, tests just lose the seeding
    from trio._core._run import _r as trio_scheduler_random
except ImportError:  # pragma: no cover
    trio_scheduler_random = None

# Property tests are deterministic like every other test: the same examples on every run and
# every machine (no example database carried between runs, no deadline that a loaded CI machine
# could miss). HYPOTHESIS_PROFILE=explore draws fresh examples, to hunt for new failures locally.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


#: Every top-level package of the project (pyproject.toml installs these).
PROJECT_PACKAGES = (
    "arena",
    "dungeon",
    "protocol",
    "server",
    "client",
    "replay",
    "sim",
    "fish",
    "penguins",
    "labyrinth",
    "floes",
)


def import_the_whole_project() -> None:
    """Import every module of the project now, before any test runs.

    Hypothesis mixes the constants of the project's modules loaded so far (not the tests') into
    the examples it draws, derandomized or not: a property test drew other examples when run
    alone than after a test whose code imported more modules (seen: 10000 for 9999999999999),
    so a failure on CI need not reproduce with ``pytest tests/that_file.py``, and a new test
    elsewhere could change another's examples. With every module loaded up front the pool is
    the same for any selection and order of tests.
    """
    for name in PROJECT_PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not module.name.endswith(".__main__"):
                importlib.import_module(module.name)


import_the_whole_project()


@pytest.fixture(autouse=True)
def repeatable_trio_schedule(request: pytest.FixtureRequest) -> None:
    """Each test's trio tasks run in the same order on every run.

    Trio shuffles each batch of runnable tasks with a module-level ``random.Random`` that is
    never seeded: twelve clients of one in-memory match, with seeded server and strategies,
    still played a different match on every run (another winner, another number of crossings),
    and a test that depends on the course of a match passes or fails by chance. Seeding that
    generator from the test's id makes each test one fixed schedule (real sockets and threads
    aside), independent of which tests ran before it. TRIO_SCHEDULE=explore leaves it unseeded,
    to hunt for order bugs locally (run the server tests a few dozen times).
    """
    if trio_scheduler_random is not None and os.environ.get("TRIO_SCHEDULE") != "explore":
        trio_scheduler_random.seed(zlib.crc32(request.node.nodeid.encode()))


#: Variables through which the environment forces rich's terminal mode, colours or width.
TERMINAL_OVERRIDES = (
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
)


@pytest.fixture(autouse=True)
def plain_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """Printed output is plain text, whatever the shell or CI job exported.

    Tests read what the commands print with ``capsys`` (not a terminal). A CI job that sets
    ``FORCE_COLOR=1`` (common, for coloured logs) would otherwise make rich write escape codes
    into the middle of "T0 heir error: ..." and ``arena replay show``'s tests would fail.
    """
    for name in TERMINAL_OVERRIDES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def fresh_structlog() -> Iterator[None]:
    """Each test starts from structlog's defaults and leaves them so.

    Entry points (``arena match``, ``arena serve``, ...) call ``configure_logging`` once, as they
    should; run inside a test, that global setting would outlive it, and a level of "warning"
    would hide the info events a later test reads with ``capture_logs()``.
    """
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


@pytest.fixture
def dask_scheduler() -> Iterator[str]:
    """The address of a small Dask LocalCluster on loopback (threads, its HTTP server on a free
    port): what the simulator's dask backend needs, started in well under a second.

    ``dashboard_address=None`` does not turn the scheduler's HTTP server off: it binds Dask's
    default 8787, which a second test run (or any Dask on the machine) already holds."""
    from distributed import LocalCluster

    with LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        dashboard_address="127.0.0.1:0",
        host="127.0.0.1",
        protocol="tcp",
    ) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="session")
def postgres() -> Iterator[tuple[Path, str]]:
    """One real PostgreSQL server for the whole session (tests/postgres_kit.py): its socket
    folder and superuser; the tests that need it skip, with the reason, where none can start."""
    from tests.postgres_kit import PostgresUnavailable, postgres_server

    try:
        with postgres_server() as server:
            yield server
    except PostgresUnavailable as why:
        pytest.skip(f"no PostgreSQL server: {why}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database for one test, on SQLite (a file) and on the real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ladder.db'}"
    from tests.postgres_kit import fresh_database

    folder, user = request.getfixturevalue("postgres")
    return fresh_database(folder, user)
