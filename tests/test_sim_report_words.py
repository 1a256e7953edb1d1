"""What `arena sim` shows a person: whole strategy names, a length with its unit, the W-D-L by
seat, an SPRT verdict that cannot be misread, and a plot that carries its verdict at its size."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from sim.report import length_unit, short_names, sprt_line, verdict, write_plot

ROOT = Path(__file__).resolve().parent.parent


def test_the_table_keeps_the_class_name_the_unit_and_the_seats(tmp_path: Path) -> None:
    """A strategy given as a long path was cut to `.../dungeon_str...`: the class name is kept."""
    homing = "docs/examples/labyrinth_strategy.py:Homing"
    out = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "sim", "labyrinth", "--strategies", f"{homing},random",
         "--matches", "6", "--workers", "1", "--seed", "2", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = done.stdout
    assert "labyrinth_strategy.py:" in table
    assert "Homing" in table
    assert "(moves)" in table
    assert "by seat" in table
    [pairing] = json.loads(out.read_text())["pairings"]
    first, second = pairing["by_seat"]
    assert sum(first) == sum(second) == 3  # three seeds, each played once from each seat
    assert [sum(column) for column in zip(first, second, strict=True)] == [
        pairing["wins"],
        pairing["draws"],
        pairing["losses"],
    ]
    assert f"{'-'.join(map(str, first))} / {'-'.join(map(str, second))}" in table


def test_short_names_keep_the_file_and_class_and_never_merge_two() -> None:
    names = ["docs/examples/dungeon_strategy.py:Cautious", "my_package.bots:Clever", "rusher"]
    assert short_names(names) == {
        names[0]: "dungeon_strategy.py:Cautious",
        names[1]: "bots:Clever",
        "rusher": "rusher",
    }
    twins = ["a/bots.py:Clever", "b/bots.py:Clever"]
    assert short_names(twins) == {name: name for name in twins}


@pytest.mark.parametrize(
    ("game", "options", "unit"),
    [
        ("dungeon", {"schedule": "timed"}, "sim ms"),
        ("dungeon", {}, "steps"),
        ("fish", {}, "moves"),
    ],
)
def test_the_length_unit_follows_the_game_and_schedule(
    game: str, options: dict[str, Any], unit: str
) -> None:
    assert length_unit({"game": game, "options": options}) == unit


def _sprt(decision: str | None, llr: float) -> dict[str, Any]:
    return {"elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "llr": llr, "lower": -2.94,
            "upper": 2.94, "groups": 61, "decision": decision}  # fmt: skip


def test_the_sprt_line_says_which_bound_was_crossed() -> None:
    """`LLR 2.98 in [-2.94, 2.94] ... H1 accepted` read as if 2.98 were inside the bounds."""
    assert sprt_line(_sprt("H1", 2.98)).endswith(
        "61 seed groups: LLR 2.98 crossed the upper bound 2.94: H1 accepted"
    )
    assert sprt_line(_sprt("H0", -3.01)).endswith(
        "LLR -3.01 crossed the lower bound -2.94: H0 accepted"
    )
    assert sprt_line(_sprt(None, 1.2)).endswith(
        "LLR 1.20, between the bounds -2.94 and 2.94: undecided"
    )
    assert " in [" not in sprt_line(_sprt("H1", 2.98))


def _pairing(a: str, b: str, low: float, high: float) -> dict[str, Any]:
    return {"a": a, "b": b, "games": 20, "wins": 10, "draws": 0, "losses": 10,
            "win_rate": (low + high) / 2, "ci95": [low, high], "elo": 0.0,
            "elo_ci95": [-50.0, 50.0], "length": 10.0}  # fmt: skip


def test_the_verdict_reads_the_interval() -> None:
    assert verdict(_pairing("x", "y", 0.55, 0.9)) == "x beats y"
    assert verdict(_pairing("x", "y", 0.1, 0.45)) == "y beats x"
    assert verdict(_pairing("x", "y", 0.3, 0.7)) == "no clear difference"


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def test_the_plot_is_as_wide_as_its_pairings(tmp_path: Path) -> None:
    """One pairing was a dot in a wide, mostly empty figure."""
    one = {"game": "fish", "games": 20, "seed": 1, "strategies": ["x", "y"],
           "pairings": [_pairing("x", "y", 0.3, 0.7)]}  # fmt: skip
    many = {**one, "strategies": ["x", "y", "z", "w"]}
    many["pairings"] = [_pairing(a, b, 0.3, 0.7) for a, b in ("xy", "xz", "xw", "yz", "yw")]
    many["ratings"] = [{"strategy": s, "mu": 25.0, "sigma": 1.0} for s in "xyzw"]
    write_plot(one, tmp_path / "one.png")
    write_plot({**one, "sprt": _sprt("H1", 2.98)}, tmp_path / "sprt.png")
    write_plot(many, tmp_path / "many.png")
    (one_wide, one_high), (many_wide, many_high) = (
        _png_size(tmp_path / "one.png"),
        _png_size(tmp_path / "many.png"),
    )
    assert one_high == many_high
    assert one_wide < 700 < 1200 < many_wide
    assert (tmp_path / "sprt.png").stat().st_size > 0


def test_a_fish_run_with_the_course_player_says_why_it_loses() -> None:
    """minimax2 lost to greedy 48-19-133 and only docs/fish.md said why: the run says it."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "sim", "fish", "--strategies", "minimax1,greedy",
         "--matches", "2", "--workers", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [said] = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert said.startswith("note: minimax1 is the course's player, kept to its rules: it places")
    assert "greedy (which places on the richest floes) beats it" in said


def test_by_seat_leaves_out_the_seats_a_never_held_at_the_end() -> None:
    """Two strategies at a four-seat Fish table: a's first seat is 1 or 2, never 3 or 4."""
    from sim.report import print_report

    pairing = {**_pairing("x", "y", 0.3, 0.7), "by_seat": [[3, 1, 6], [2, 0, 8], [0, 0, 0]]}
    report = {"game": "fish", "games": 20, "seed": 1, "strategies": ["x", "y"], "options": {},
              "pairings": [pairing], "teams": [], "failed": []}  # fmt: skip
    console = Console(width=140, file=io.StringIO())
    print_report(report, console)
    assert "3-1-6 / 2-0-8 │" in console.file.getvalue()  # type: ignore[attr-defined]
