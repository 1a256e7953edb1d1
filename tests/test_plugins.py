"""Strategies of one's own (sim.plugins): ``module:Class`` and ``path/to/file.py:Class`` for
every game, in ``arena sim``, ``arena match`` and ``arena team``, on pool and Dask workers,
and the one-line refusals of a strategy that cannot work. The documented examples
(docs/examples/) are played here, so the docs never show code that does not run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.match import main as match_main
from arena.sim import main as sim_main
from arena.team import main as team_main
from sim import plugins
from sim.backends import DaskBackend, LocalBackend
from sim.runner import RunSpec, run

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"

#: (game, the example strategy, a built-in opponent, rules options for a quick match)
DOCUMENTED = [
    ("dungeon", "dungeon_strategy.py:Cautious", "rusher", {"nodes": 200, "radius": 0.12}),
    ("fish", "fish_strategy.py:Hungry", "greedy", {}),
    ("penguins", "penguins_strategy.py:Hungry", "greedy", {}),
    ("labyrinth", "labyrinth_strategy.py:Homing", "random", {}),
]

RUSHER_COPY = """
from client.strategies.rusher import Rusher


class Copy(Rusher):
    pass
"""


@pytest.fixture(autouse=True)
def forget_loaded() -> None:
    plugins._loaded.clear()


@pytest.mark.parametrize(("game", "example", "opponent", "options"), DOCUMENTED)
def test_each_documented_example_plays_a_run_without_failures(
    game: str, example: str, opponent: str, options: dict[str, object]
) -> None:
    name = f"{EXAMPLES / example}"
    spec = RunSpec(game, (name, opponent), matches=2, seed=3, options=options)
    report = run(spec, LocalBackend(1)).report
    assert report["failed"] == []
    assert report["games"] == 2
    assert report["teams"][0]["strategy"] == name


def test_a_file_strategy_is_loaded_again_in_pool_workers_and_plays_as_the_builtin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subclass of rusher from a file, on 2 worker processes: the same results as rusher."""
    path = tmp_path / "mine.py"
    path.write_text(RUSHER_COPY)
    options = {"nodes": 200, "radius": 0.12}
    mine = run(
        RunSpec("dungeon", (f"{path}:Copy", "random"), 4, seed=5, options=options), LocalBackend(2)
    ).report
    builtin = run(
        RunSpec("dungeon", ("rusher", "random"), 4, seed=5, options=options), LocalBackend(1)
    ).report
    assert mine["failed"] == []
    assert mine["pairings"][0]["wins"] == builtin["pairings"][0]["wins"]
    assert mine["teams"][0]["stats"] == builtin["teams"][0]["stats"]


def test_a_module_strategy_plays_on_dask_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dask_scheduler: str
) -> None:
    (tmp_path / "my_team.py").write_text(RUSHER_COPY)
    monkeypatch.syspath_prepend(str(tmp_path))
    options = {"nodes": 200, "radius": 0.12}
    spec = RunSpec("dungeon", ("my_team:Copy", "random"), 2, seed=5, options=options)
    report = run(spec, DaskBackend(dask_scheduler)).report
    assert report["failed"] == []
    assert report["games"] == 2
    monkeypatch.delitem(sys.modules, "my_team")


def test_arena_sim_takes_a_relative_file_path_and_records_it_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mine.py").write_text(RUSHER_COPY)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "r.json"
    argv = ["dungeon", "--strategies", "mine.py:Copy,random", "--matches", "2"]
    assert (
        sim_main([*argv, "--config", "nodes=200", "radius=0.12", "--quiet", "--out", str(out)]) == 0
    )
    assert json.loads(out.read_text())["strategies"][0] == f"{tmp_path / 'mine.py'}:Copy"


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        ("nowhere.py:Team", "no such file"),
        ("no_such_module_here:Team", "cannot import no_such_module_here"),
        ("json:Nope", "json has no attribute Nope"),
        ("json:dumps", "dumps is not a class"),
        ("json:JSONDecoder", "lacks observe, choose_move, solve"),
        ("json:", "expected module:Class or path/to/file.py:Class"),
        ("{broken}:Team", "failed to load: SyntaxError"),
        ("{raises}:Team", "Class(team, seed) failed: RuntimeError: no"),
    ],
)
def test_a_strategy_that_cannot_work_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], strategy: str, message: str
) -> None:
    broken, raises = tmp_path / "broken.py", tmp_path / "raises.py"
    broken.write_text("def (:\n")
    raises.write_text(
        "class Team:\n    def __init__(self, team, seed):\n        raise RuntimeError('no')\n"
        "    observe = choose_move = solve = print\n"
    )
    strategy = strategy.format(broken=broken, raises=raises)
    assert sim_main(["dungeon", "--strategies", f"{strategy},rusher", "--quiet"]) == 2
    assert match_main(["--strategies", f"{strategy},rusher"]) == 2
    assert team_main(["--team", "0", "--strategy", strategy]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert all(message in line for line in lines)
    assert lines[0].startswith("arena sim: --strategies: ")


def test_a_turn_based_game_checks_its_own_interface(capsys: pytest.CaptureFixture[str]) -> None:
    example = f"{EXAMPLES / 'dungeon_strategy.py'}:Cautious"
    assert sim_main(["fish", "--strategies", f"{example},greedy", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "Cautious lacks step; a fish strategy is a class with step, made as Class()" in error


def test_an_unknown_plain_name_still_lists_the_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["dungeon", "--strategies", "nobody,rusher", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "unknown dungeon strategies: nobody; have: classic, random, reference, rusher" in error
