"""Recorded behaviour stays the same: the golden files match what the commands produce today.

Regenerate them only on purpose, with ``tests/golden/regenerate.py``, and say why in the commit.

The dungeon's match logs record the assignments the compiled core's solver chose
(``dungeon._fastcore``). Its pure fallback (``DUNGEON_FASTCORE=0``, or a machine with no C
compiler) must keep every result: the same results JSON byte for byte, and the same logs but
for the assignment of some ``solution`` lines, each leaving as many traps active as the
recorded one. Where the extension is not built, the logs are held to that.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from golden import regenerate

GOLDEN = Path(__file__).resolve().parent / "golden"
NAMES = sorted(p.name for p in GOLDEN.iterdir() if p.suffix in {".json", ".jsonl", ".txt"})
DUNGEON_NAMES = [n for n in NAMES if n.startswith(("log-", "sim-dungeon-"))]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def produced() -> dict[str, str]:
    return dict(regenerate.goldens())


@pytest.fixture(scope="module")
def produced_pure() -> dict[str, str]:
    """The dungeon's recipes played with the compiled core switched off."""
    return dict(regenerate.goldens(fastcore=False, only_dungeon=True))


def fail_with_diff(name: str, expected: str, actual: str) -> None:
    diff = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), "golden", "now", lineterm="", n=1
    )
    pytest.fail(f"{name} differs from its golden file:\n" + "\n".join(list(diff)[:40]))


def active_traps(traps: list[list[int]], assignment: list[bool]) -> int:
    return sum(1 for trap in traps if not any(assignment[abs(x) - 1] == (x > 0) for x in trap))


def play_of(log: str) -> tuple[list[str], list[int]]:
    """A condensed match log with every solution's assignment blanked out, and how many traps
    each solution leaves active (in log order), counted against its agent's trap problem."""
    lines, actives = [], []
    problems: dict[tuple[int, int], list[list[int]]] = {}
    for line in log.splitlines():
        record = json.loads(line) if line.startswith("{") else {}
        message = record.get("message")
        if record.get("event") == "trap_problem":
            problems[tuple(record["agent"])] = record["traps"]
        elif isinstance(message, dict) and message.get("type") == "solution":
            traps = problems[(record["team"], record["agent"])]
            actives.append(active_traps(traps, message["assignment"]))
            message["assignment"] = "..."
            line = json.dumps(record, sort_keys=True)
        lines.append(line)
    return lines, actives


def assert_same_play(name: str, expected: str, actual: str) -> None:
    """The logs are equal but for the assignments chosen, which leave as many traps active."""
    expected_lines, expected_actives = play_of(expected)
    actual_lines, actual_actives = play_of(actual)
    if expected_lines != actual_lines:
        fail_with_diff(name, "\n".join(expected_lines), "\n".join(actual_lines))
    assert actual_actives == expected_actives


def test_every_golden_file_is_still_produced(produced: dict[str, str]) -> None:
    """The recipes produce exactly the set of golden files committed, no more and no fewer."""
    assert set(produced) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_output_matches_its_golden_file(name: str, produced: dict[str, str]) -> None:
    """Play, results and harness outputs are byte-for-byte what was recorded (a match log on
    a machine without the compiled core: all but the assignments its solver chose)."""
    expected = (GOLDEN / name).read_text()
    actual = produced.get(name, "")
    if name.startswith("log-") and not regenerate.fastcore_built():
        assert_same_play(name, expected, actual)
    elif actual != expected:
        fail_with_diff(name, expected, actual)


@pytest.mark.parametrize("name", DUNGEON_NAMES)
def test_the_pure_path_keeps_every_result(name: str, produced_pure: dict[str, str]) -> None:
    """With DUNGEON_FASTCORE=0 the results JSON are byte-for-byte the golden ones, and the
    match logs differ at most in solution lines, by another assignment that leaves the same
    number of traps active (so every crossing, roll, kill and winner is the same)."""
    expected = (GOLDEN / name).read_text()
    actual = produced_pure[name]
    if name.startswith("log-"):
        assert_same_play(name, expected, actual)
    elif actual != expected:
        fail_with_diff(name, expected, actual)


def test_blanking_the_assignments_keeps_everything_else() -> None:
    """The comparison of match logs sees any change but an assignment's."""
    log = (GOLDEN / "log-rusher-random-12.jsonl").read_text()
    lines, actives = play_of(log)
    assert len(lines) == len(log.splitlines())
    assert sum('"assignment": "..."' in line for line in lines) == len(actives) > 100
    crossings = [json.loads(x)["active"] for x in log.splitlines() if '"event": "crossing"' in x]
    assert actives == crossings  # each solution's count is what the engine recorded
    changed = log.replace('"reason": "trap"', '"reason": "crossed"', 1)
    assert play_of(changed)[0] != lines
