"""Version drift: every log format the landed writer ever wrote still verifies and renders.

``tests/golden/logs/`` keeps one raw log of each format (``regenerate.py`` adds the current
ones, never overwriting a kept one); a log of a version this software does not know is refused
in one line naming that version.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.replay import main

KEPT = Path(__file__).resolve().parent / "golden" / "logs"
NAMES = sorted(path.name for path in KEPT.iterdir())
#: The dungeon's kept logs (``v1-full-...``, ``v1-compact-...``, ``v2-digest-...``); the other
#: games' are ``v0-GAME-...`` (before they shared the dungeon's format) and ``v2-GAME-...``.
DUNGEON = [name for name in NAMES if name.split("-")[1] in ("full", "compact", "digest")]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_format_is_kept() -> None:
    """Today's full and compact formats (and the new default) each have a kept log."""
    assert {name.split("-")[0] + "-" + name.split("-")[1] for name in NAMES} >= {
        "v1-full",
        "v1-compact",
        "v2-digest",
    }


@pytest.mark.parametrize("name", DUNGEON)
def test_kept_log_verifies_and_renders(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify re-runs it exactly (a complete log, team 1 wins), show tells it, render draws it."""
    path = str(KEPT / name)
    status, out, _ = run(capsys, "verify", path)
    assert status == 0, out
    assert out.startswith(f"OK {path}:")
    assert "every message and engine event matches" in out
    assert "team 1 wins (shrine)" in out
    status, out, _ = run(capsys, "show", path, "--width", "160")
    assert status == 0
    assert "team 1 wins" in out
    page = tmp_path / "m.html"
    status, out, _ = run(capsys, "render", path, "-o", str(page))
    assert status == 0
    assert out.startswith(f"wrote {page}: steps 0 to ")
    assert "<svg" in page.read_text(encoding="utf-8")


def test_unknown_version_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A header of a version this software does not know: exit 2, one line naming it."""
    lines = (KEPT / "v1-full-reference-rusher-21.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema"] = 7
    future = tmp_path / "future.jsonl"
    future.write_text(json.dumps(header) + "\n", encoding="utf-8")
    for command in (["verify"], ["show"], ["render", "-o", str(tmp_path / "x.html")]):
        status, out, err = run(capsys, command[0], str(future), *command[1:])
        assert status == 2
        assert out == ""
        assert len(err.strip().splitlines()) == 1
        assert "log schema version 7" in err
