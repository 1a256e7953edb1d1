"""The timed schedule (sim.timed): seeded, the same for any number of workers, applied in
arrival order as a server would (its logs replay), and a draw when time runs out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.sim import main as sim_main
from replay.matchlog import read_log
from sim.backends import LocalBackend
from sim.dungeon import DungeonGame
from sim.runner import RunSpec, run
from sim.timed import Timing

TIMED: dict[str, Any] = {"nodes": 300, "radius": 0.1, "schedule": "timed"}


def body(report: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in report.items() if k != "timing"})


def test_timed_runs_are_identical_on_one_or_two_workers() -> None:
    spec = RunSpec("dungeon", ("reference", "rusher"), matches=6, seed=4, options=TIMED)
    one = run(spec, LocalBackend(1)).report
    assert one["failed"] == []
    assert one["games"] == 6
    assert body(one) == body(run(spec, LocalBackend(2)).report)
    assert body(one) == body(run(spec, LocalBackend(1)).report)


def test_timed_and_step_schedules_play_different_matches_of_the_same_dungeon() -> None:
    timed = DungeonGame(**TIMED).play(5, ["reference", "rusher"])
    steps = DungeonGame(nodes=300, radius=0.1).play(5, ["reference", "rusher"])
    assert "sim_ms" in timed.stats[0]
    assert "steps" in steps.stats[0]
    assert timed.stats != steps.stats


def test_the_distributions_change_the_play_and_the_seed_fixes_it() -> None:
    fast = DungeonGame(**TIMED, think_ms=0.01, delay_ms=5.0)
    slow = DungeonGame(**TIMED, think_ms=5.0, delay_ms=0.01)
    outcomes = {json.dumps(game.play(7, ["reference", "rusher"]).stats) for game in (fast, slow)}
    assert len(outcomes) == 2
    again = DungeonGame(**TIMED, think_ms=5.0, delay_ms=0.01).play(7, ["reference", "rusher"])
    assert json.dumps(again.stats) in outcomes


def test_a_timed_match_log_replays_as_a_server_log(tmp_path: Path) -> None:
    """Requests go to the engine in arrival order, one at a time: `replay verify` re-runs it."""
    from replay.rerun import verify_log

    path = tmp_path / "timed.jsonl"
    result = DungeonGame(**TIMED).play_logged(3, ["reference", "rusher"], path)
    log = read_log(path)
    assert log.bad is None
    assert verify_log(log).difference is None
    crossings = [line.data for line in log.outputs if line.event == "crossing"]
    assert sum(row["crossings"] for row in result.stats) == len(crossings)


def test_time_up_ends_a_match_as_a_draw_after_draw_seconds() -> None:
    game = DungeonGame(**TIMED, draw_seconds=0.05, optimum=False)
    result = game.play(1, ["random", "random"])
    assert result.returns == [0.0, 0.0]
    assert result.winner is None
    assert result.length <= 50


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"think_ms": -1.0}, "think_ms must be 0 or more"),
        ({"delay_ms": 0.0}, "delay_ms must be positive"),
        ({"schedule": "steps", "delay_ms": 1.0}, "delay_ms: options of the timed schedule only"),
        ({"schedule": "later"}, "schedule 'later': choose timed or steps"),
    ],
)
def test_bad_timing_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DungeonGame(**{"schedule": "timed", **options})


def test_arena_sim_dungeon_is_timed_by_default_and_steps_on_request(tmp_path: Path) -> None:
    args = ["dungeon", "--strategies", "rusher,random", "--matches", "2", "--quiet"]
    args += ["--workers", "1", "--config", "nodes=300", "radius=0.1"]
    timed, steps = tmp_path / "timed.json", tmp_path / "steps.json"
    assert sim_main([*args, "--out", str(timed)]) == 0
    assert sim_main([*args, "--schedule", "steps", "--out", str(steps)]) == 0
    assert json.loads(timed.read_text())["options"]["schedule"] == "timed"
    assert "schedule" not in json.loads(steps.read_text())["options"]


def test_schedule_is_a_dungeon_flag(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fish", "--strategies", "greedy,random", "--schedule", "steps", "--quiet"]
    assert sim_main(argv) == 2
    assert "--schedule: only the dungeon has schedules, not fish" in capsys.readouterr().err


def test_timing_defaults_are_positive() -> None:
    timing = Timing()
    assert timing.think_ms > 0
    assert timing.delay_ms > 0


def test_a_timed_match_measures_each_strategy_s_thinking_per_request() -> None:
    from dungeon.config import RulesConfig
    from sim.dungeon import play_match

    readings = iter(range(1_000_000))  # a clock that moves one second per reading

    def clock() -> float:
        return float(next(readings))

    config = RulesConfig(nodes=300, radius=0.1)
    result = play_match(3, ["reference", "rusher"], config, timing=Timing(), clock=clock)
    assert len(result.think) == 2
    for (seconds, requests), figures in zip(result.think, result.stats, strict=True):
        # every crossing is a move and a solution; every call took one tick of the clock
        assert requests >= 2 * figures["crossings"] > 0
        assert seconds >= requests
    untimed = play_match(3, ["reference", "rusher"], config, timing=Timing())
    assert untimed.think == []
    assert untimed.stats == result.stats  # measuring changes nothing in the match


def test_the_timed_report_gives_thinking_per_request_and_the_steps_one_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from sim.report import print_report

    spec = RunSpec("dungeon", ("reference", "rusher"), matches=2, seed=4, options=TIMED)
    report = run(spec, LocalBackend(1)).report
    think = report["timing"]["think_us"]
    assert set(think) == {"reference", "rusher"}
    assert all(value > 0 for value in think.values())
    print_report(report)
    assert "thinking per request (this machine): reference" in capsys.readouterr().out
    steps = RunSpec("dungeon", ("reference", "rusher"), matches=2, seed=4, options={"nodes": 300})
    assert "think_us" not in run(steps, LocalBackend(1)).report["timing"]
