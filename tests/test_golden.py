"""Recorded behaviour stays the same: the golden files match what the commands produce today.

Regenerate them only on purpose, with ``tests/golden/regenerate.py``, and say why in the commit.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from golden import regenerate

GOLDEN = Path(__file__).resolve().parent / "golden"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def produced() -> dict[str, str]:
    return dict(regenerate.goldens())


def test_every_golden_file_is_still_produced(produced: dict[str, str]) -> None:
    """The recipes produce exactly the set of golden files committed, no more and no fewer."""
    committed = {p.name for p in GOLDEN.iterdir() if p.suffix in {".json", ".jsonl"}}
    assert set(produced) == committed


@pytest.mark.parametrize(
    "name", sorted(p.name for p in GOLDEN.iterdir() if p.suffix in {".json", ".jsonl"})
)
def test_output_matches_its_golden_file(name: str, produced: dict[str, str]) -> None:
    """Play, results and harness outputs are byte-for-byte what was recorded."""
    expected = (GOLDEN / name).read_text()
    actual = produced.get(name, "")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "golden", "now", lineterm="", n=1
        )
        pytest.fail(f"{name} differs from its golden file:\n" + "\n".join(list(diff)[:40]))
