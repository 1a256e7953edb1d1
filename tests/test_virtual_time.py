"""Tests meant to run on virtual time do: pytest-trio runs a test on a fixture's clock only when
the test takes the fixture as an argument; ``usefixtures("autojump_clock")`` leaves it on the
real clock (test_fair_server.py did, and its timings then depended on the machine's load)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BY_MARK = re.compile(r"usefixtures\([^)]*(autojump_clock|mock_clock)")


def test_no_test_asks_for_a_clock_it_does_not_take() -> None:
    marked = sorted(
        path.name
        for path in TESTS.rglob("*.py")
        if path.name != Path(__file__).name and BY_MARK.search(path.read_text(encoding="utf-8"))
    )
    assert marked == []
