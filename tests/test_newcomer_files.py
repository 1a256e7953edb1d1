"""What a newcomer meets around the code: docs that stand alone in a clone, outputs of the README's
commands that git ignores and `make clean` removes, a layering banner that reads cleanly."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: A path that exists only on someone's machine.
MACHINE = r"(?<![\w.~-])/(?:work|home|tmp|root|Users)/[\w.-]"
#: That, or a document that is not in the repository.
OUTSIDE = re.compile(
    MACHINE + r"|\.\./shared\b"  # the workplace's folder beside the clone
    r"|\bspec/[\w-]+\.md\b"  # the course's spec files, which the repository does not carry
    r"|\bspec (?:section|§) ?\d|\bspec §"  # "spec section 6": a section of those files
)

#: What the README's example commands write at the top of a clone (the README names each).
OUTPUTS = [
    "logs/match.jsonl",
    "logs.key",
    "results.json",
    "results.json.journal",
    "results.png",
    "r.json",
    "r.json.journal",
    "big.json",
    "match.html",
    "game.html",
    "fork.jsonl",
    "final.png",
    "dungeon.png",
    "maze.png",
    "cs312/index.html",
    "dungeon-class/results.csv",
    "fish-class/index.html",
    "tokens.csv",
]


def _readable_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_outside_path_pattern_catches_what_it_is_for() -> None:
    caught = ["see /work/peers/fish", "`../shared/spec/fish.md`", "(`spec/dungeon.md` 2-4)"]
    caught += ["flock /tmp/bench.lock", "logical (spec section 6)", "order (spec §3)"]
    kept = ["a private `/tmp`", "docs/simulator.md", "--log-dir /var/log/dungeon", "spec's rules"]
    assert [text for text in caught if not OUTSIDE.search(text)] == []
    assert [text for text in kept if OUTSIDE.search(text)] == []


@pytest.mark.parametrize("path", _readable_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_readme_and_docs_name_no_path_outside_the_repository(path: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in OUTSIDE.finditer(line)
    ]
    assert found == []


def test_the_benchmarks_name_no_machine_path() -> None:
    found = [
        f"{path.name}: {match.group(0)!r}"
        for path in sorted((ROOT / "bench").glob("*.py"))
        for match in re.finditer(MACHINE, path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_every_output_of_the_readme_examples_is_named_there_and_ignored_by_git() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # A journal is written beside each --out file (docs/simulator.md).
    assert [n for n in OUTPUTS if n.split("/")[0].removesuffix(".journal") not in readme] == []
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git clone")
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "-v", "-n", *OUTPUTS],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=30,
    )  # fmt: skip
    unignored = [line.split("\t")[-1] for line in done.stdout.splitlines() if line.startswith("::")]
    assert unignored == []


def test_make_clean_removes_what_the_readme_examples_write(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for name in [*OUTPUTS, "docs/kept.png", "teams.toml"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    done = subprocess.run(
        ["make", "--no-print-directory", "clean"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    # What a person wrote (their teams file) and the docs' own pictures stay.
    assert left == ["Makefile", "docs/kept.png", "teams.toml"]


def test_contract_names_fit_the_layering_banner() -> None:
    """lint-imports prints 'NAME KEPT' on an 80-column line: a longer name ran into KEPT."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "importlinter"
    ]["contracts"]
    assert [c["name"] for c in contracts if len(c["name"]) + len(" BROKEN") > 79] == []


def test_the_readme_penguins_board_takes_a_placement_and_a_move(tmp_path: Path) -> None:
    """The README's penguins-player lines named a board.txt nobody had: it copies this one."""
    board = tmp_path / "board.txt"
    shutil.copy(ROOT / "docs" / "examples" / "penguins_board.txt", board)
    player = [sys.executable, "-m", "arena", "penguins"]
    for phase in (["phase=placement", "penguins=3"], ["phase=movement"]):
        done = subprocess.run(
            [*player, *phase, str(board), str(board)],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert board.read_text().splitlines()[-1].startswith("penguins-territory 1 ")


def test_every_file_of_the_repository_the_readme_names_exists() -> None:
    """A newcomer copies commands as they are: each docs/ or tests/ file they read must be there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b(?:docs|tests)/[\w/.-]+\.(?:json|txt|toml|py|md|java)\b", readme))
    assert "docs/examples/penguins_board.txt" in named
    assert sorted(path for path in named if not (ROOT / path).is_file()) == []
