"""A class from zero as the README shows it, every step a real command: ``init`` from a roster,
each team ``submit``s the starter (one team a program that crashes), ``run`` plays matches,
``grades`` exports the standing. Only active versions play; the broken one never does."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

from tournament_kit import sandbox_mode

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "docs" / "starters" / "starter.py"
QUITTER = ROOT / "docs" / "examples" / "classes" / "dungeon" / "quitter" / "client.py"


def arena(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", "ladder", *argv],
        capture_output=True, text=True, timeout=600, cwd=cwd,
    )  # fmt: skip


def test_a_class_from_zero_to_grades(tmp_path: Path) -> None:
    """Three teams submit, one version fails its pre-flight and stays out; the runner plays
    three matches between the two active ones; grades.csv ranks all three teams."""
    (tmp_path / "class.csv").write_text("team,members\nann,Ann\nbob,Bo\ncid,Cy\n")
    (tmp_path / "options.toml").write_text(
        "[tournament]\nmatch_seconds = 30\nconfig = { nodes = 300, radius = 0.1 }\n"
    )
    init = arena("init", "--game", "dungeon", "--roster", "class.csv", "--dir", "cs",
                 "--options", "options.toml", cwd=tmp_path)  # fmt: skip
    assert init.returncode == 0, init.stderr
    tokens = dict(line.split(",") for line in init.stdout.splitlines()[1:])
    for team, source in (("ann", STARTER), ("bob", STARTER), ("cid", QUITTER)):
        folder = tmp_path / team
        folder.mkdir()
        shutil.copy(source, folder / "client.py")
        done = arena("submit", "--dir", "cs", "--token", tokens[team], "--sandbox",
                     sandbox_mode(), team, cwd=tmp_path)  # fmt: skip
        assert done.returncode == (1 if team == "cid" else 0), done.stdout + done.stderr
    run = arena("run", "--dir", "cs", "--sandbox", sandbox_mode(), "--matches", "3",
                cwd=tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    done_lines = [line for line in run.stdout.splitlines() if " done: " in line]
    assert len(done_lines) == 3
    assert all("cid" not in line for line in run.stdout.splitlines())
    assert arena("freeze", "--dir", "cs", cwd=tmp_path).returncode == 0
    grades = arena("grades", "--dir", "cs", cwd=tmp_path)
    rows = list(csv.DictReader(io.StringIO(grades.stdout)))
    assert sorted(r["team"] for r in rows) == ["ann", "bob", "cid"]
    games = {r["team"]: int(r["games"]) for r in rows}
    assert games == {"ann": 3, "bob": 3, "cid": 0}
    assert rows[-1]["team"] == "cid"
    ann, bob = (next(r for r in rows if r["team"] == name) for name in ("ann", "bob"))
    assert (int(ann["wins"]), int(ann["draws"])) == (int(bob["losses"]), int(bob["draws"]))
