"""Fixtures every test gets."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import structlog
from hypothesis import settings

# Property tests are deterministic like every other test: the same examples on every run and
# every machine (no example database carried between runs, no deadline that a loaded CI machine
# could miss). HYPOTHESIS_PROFILE=explore draws fresh examples, to hunt for new failures locally.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


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
    """The address of a small Dask LocalCluster on loopback (threads, no dashboard): what the
    simulator's dask backend needs, started in well under a second."""
    from distributed import LocalCluster

    with LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        dashboard_address=None,
        host="127.0.0.1",
        protocol="tcp",
    ) as cluster:
        yield cluster.scheduler_address
