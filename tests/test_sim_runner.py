"""The batch runner: seed lists, seatings, determinism across workers and backends, resume,
failures and early stopping, on a tiny race game (tests/sim_tiny_game.py) so it stays fast."""

from __future__ import annotations

import json
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from replay.journal import Journal, JournalError, journal_path
from sim.backends import DaskBackend, LocalBackend
from sim.game import GameInfo
from sim.games import GAMES
from sim.job import MatchTimeout, _with_timeout
from sim.runner import RunSpec, run
from sim.schedule import Schedule, match_seeds


@pytest.fixture(autouse=True)
def race_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "race", "sim_tiny_game:RaceGame")


def spec(**changes: Any) -> RunSpec:
    fields: dict[str, Any] = {"game": "race", "strategies": ("greedy", "random"), "matches": 40}
    fields.update(changes)
    return RunSpec(**fields)


def without_timing(report: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in report.items() if k != "timing"}, indent=2)


def test_seed_list_depends_only_on_the_run_seed_and_grows_by_extension() -> None:
    """A longer run starts with the seeds of a shorter one; another run seed gives other seeds."""
    assert match_seeds(1, 50)[:20] == match_seeds(1, 20)
    assert match_seeds(1, 20) != match_seeds(2, 20)
    assert len(set(match_seeds(1, 1000))) == 1000


@pytest.mark.parametrize(
    ("seats", "strategies", "matches", "lineups", "seatings_per_seed"),
    [
        (2, ["a", "b"], 10, [("a", "b")], [("a", "b"), ("b", "a")]),
        (2, ["a", "b", "c"], 4, [("a", "b"), ("a", "c"), ("b", "c")], [("a", "b"), ("b", "a")]),
        (4, ["a", "b"], 4, [("a", "b", "a", "b")], [("a", "b", "a", "b"), ("b", "a", "b", "a")]),
    ],
)
def test_schedule_pairs_seeds_and_rotates_seats(
    seats: int,
    strategies: list[str],
    matches: int,
    lineups: list[tuple[str, ...]],
    seatings_per_seed: list[tuple[str, ...]],
) -> None:
    """Each seed is played once per distinct rotation of each lineup, in seed-major order."""
    schedule = Schedule(GameInfo("g", seats, -1, 1), strategies, matches, seed=3)
    assert schedule.lineups == lineups
    jobs = list(schedule.jobs())
    assert [index for index, _, _ in jobs] == list(range(len(jobs)))
    first_seed = [s for _, seed_index, s in jobs if seed_index == 0]
    assert first_seed[: len(seatings_per_seed)] == seatings_per_seed
    assert len(jobs) == schedule.seed_count * len(lineups) * len(seatings_per_seed)
    assert len(jobs) // len(lineups) >= matches


def test_four_strategies_at_a_four_seat_table_sit_in_every_seat_once_per_seed() -> None:
    """With four strategies and four seats, one seed gives four games, each name in each seat."""
    schedule = Schedule(GameInfo("g", 4, 0, 1), ["a", "b", "c", "d"], 4, seed=0)
    seatings = [s for _, seed_index, s in schedule.jobs() if seed_index == 0]
    assert len(seatings) == 4
    for seat in range(4):
        assert sorted(s[seat] for s in seatings) == ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("strategies", "matches", "cause"),
    [
        (["a"], 10, "two different strategies"),
        (["a", "a"], 10, "two different strategies"),
        (["a", "b", "a"], 10, "entered twice"),
        (["a", "b"], 0, "--matches"),
    ],
)
def test_schedule_rejects_bad_runs(strategies: list[str], matches: int, cause: str) -> None:
    """A run with one strategy, a name repeated in a round robin or no matches is refused,
    naming the cause."""
    with pytest.raises(ValueError, match=cause):
        Schedule(GameInfo("g", 2, -1, 1), strategies, matches, seed=0)


def test_same_seed_same_report_for_one_or_two_workers() -> None:
    """The report (timings aside) is byte-identical for 1 and 2 local workers."""
    one = run(spec(), LocalBackend(1)).report
    two = run(spec(), LocalBackend(2)).report
    assert without_timing(one) == without_timing(two)
    pairing = one["pairings"][0]
    assert pairing["games"] == 40
    assert pairing["wins"] + pairing["draws"] + pairing["losses"] == 40
    assert pairing["win_rate"] > 0.5, "greedy plays the winning line whenever it can"


def test_dask_local_cluster_gives_the_local_report(dask_scheduler: str) -> None:
    """A Dask LocalCluster on loopback plays the same matches with the same outcomes."""
    dask = run(spec(matches=12), DaskBackend(dask_scheduler)).report
    local = run(spec(matches=12), LocalBackend(1)).report
    assert without_timing(dask) == without_timing(local)
    assert dask["timing"]["backend"].startswith("dask")


def test_resume_after_interruption_gives_the_uninterrupted_totals(tmp_path: Path) -> None:
    """Interrupted after 15 matches and resumed, a run reports what an uninterrupted one does."""
    full = run(spec(), LocalBackend(1)).report
    path = journal_path(tmp_path / "results.json")
    journal = Journal.create(path, spec().journal_header())

    def interrupt(done: int, total: int) -> None:
        if done == 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(spec(), LocalBackend(1), journal, on_match=interrupt)
    journal.close()
    resumed_journal = Journal.resume(path, spec().journal_header())
    assert len(resumed_journal.done) == 15
    outcome = run(spec(), LocalBackend(2), resumed_journal)
    resumed_journal.close()
    assert (outcome.resumed, outcome.played) == (15, 25)
    assert without_timing(outcome.report) == without_timing(full)


def test_a_line_cut_short_is_dropped_and_its_match_played_again(tmp_path: Path) -> None:
    """A journal whose last line lacks its newline loses only that line on resume."""
    path = tmp_path / "r.journal"
    journal = Journal.create(path, spec().journal_header())
    run(spec(matches=4), LocalBackend(1), journal)
    journal.close()
    with path.open("a") as stream:
        stream.write('{"index": 9, "seed"')
    again = Journal.resume(path, spec().journal_header())
    assert sorted(again.done) == [0, 1, 2, 3]
    again.close()
    assert path.read_text().endswith("\n")


@pytest.mark.parametrize(
    ("header", "cause"),
    [
        ({"seed": 5}, "'seed'"),
        ({"strategies": ["random", "greedy"]}, "'strategies'"),
    ],
)
def test_a_journal_of_another_run_is_refused(
    tmp_path: Path, header: dict[str, Any], cause: str
) -> None:
    """Resuming with another seed or other strategies names the mismatching field."""
    path = tmp_path / "r.journal"
    Journal.create(path, spec().journal_header()).close()
    with pytest.raises(JournalError, match=cause):
        Journal.resume(path, {**spec().journal_header(), **header})


def test_a_fresh_run_never_overwrites_a_journal(tmp_path: Path) -> None:
    """Starting a run over an existing journal is refused rather than losing its matches."""
    path = tmp_path / "r.journal"
    Journal.create(path, spec().journal_header()).close()
    with pytest.raises(JournalError, match="--resume"):
        Journal.create(path, spec().journal_header())


def test_a_strategy_that_raises_is_recorded_and_the_run_goes_on() -> None:
    """Matches where a strategy raises are listed with seed and error; the rest are counted."""
    report = run(spec(strategies=("raiser", "random"), matches=30), LocalBackend(2)).report
    failed = report["failed"]
    assert failed, "the raiser meets a counter of 4 in some matches"
    assert all("RuntimeError: raiser gives up at 4" in f["error"] for f in failed)
    assert all(isinstance(f["seed"], int) for f in failed)
    assert report["pairings"][0]["games"] == 30 - len(failed)


def test_a_match_past_its_time_limit_fails_with_a_timeout() -> None:
    """The per-match alarm interrupts a match that never ends."""

    def forever() -> None:
        while True:
            pass

    with pytest.raises(MatchTimeout, match=r"0\.05 s"):
        _with_timeout(forever, 0.05)


def test_sprt_stops_a_lopsided_run_early_and_identically_for_any_workers() -> None:
    """greedy vs random is decided long before 2000 games, at the same game for 1 or 2 workers."""
    sprt = {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05}
    one = run(spec(matches=2000, sprt=sprt), LocalBackend(1)).report
    two = run(spec(matches=2000, sprt=sprt), LocalBackend(2)).report
    assert one["sprt"]["decision"] == "H1"
    assert one["games"] < 2000
    assert without_timing(one) == without_timing(two)


def test_round_robin_reports_every_pairing_and_ratings() -> None:
    """Three strategies give three pairings and an openskill table naming all three."""
    report = run(spec(strategies=("greedy", "random", "raiser"), matches=10), LocalBackend(1))
    pairs = [(p["a"], p["b"]) for p in report.report["pairings"]]
    assert pairs == [("greedy", "random"), ("greedy", "raiser"), ("random", "raiser")]
    names = Counter(r["strategy"] for r in report.report["ratings"])
    assert names == Counter(["greedy", "random", "raiser"])
    assert report.report["ratings"][0]["strategy"] == "greedy"


def test_per_team_figures_are_means_over_the_games() -> None:
    """MatchResult.stats are averaged per strategy over the games it played."""
    report = run(spec(matches=6), LocalBackend(1)).report
    teams = {t["strategy"]: t for t in report["teams"]}
    assert teams["greedy"]["games"] == 6
    assert 1.0 <= teams["greedy"]["stats"]["moves"] <= 5.0


def _peak_bytes_of_first_jobs(matches: int, count: int = 2000) -> int:
    """Peak memory traced while making a run's schedule and its first ``count`` jobs with
    their match seeds: what the runner holds before the first result."""
    tracemalloc.start()
    try:
        schedule = Schedule(GameInfo("g", 2, -1, 1), ["a", "b"], matches, seed=3)
        jobs = schedule.jobs()
        for _, (index, seed_index, seats) in zip(range(count), jobs, strict=False):
            assert schedule.seed(seed_index) >= 0
            assert seats
            assert index >= 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_job_list_is_generated_lazily_and_its_memory_does_not_grow_with_matches() -> None:
    """100 million matches cost the job generator what 4,000 do (no list of jobs or seeds)."""
    small = _peak_bytes_of_first_jobs(4_000)
    huge = _peak_bytes_of_first_jobs(100_000_000)
    assert huge < small + 16_384
    assert huge < 200_000


def test_seeds_and_seed_groups_computed_on_demand_match_the_seed_list() -> None:
    schedule = Schedule(GameInfo("g", 2, -1, 1), ["a", "b"], 40, seed=5)
    assert [schedule.seed(i) for i in range(schedule.seed_count)] == match_seeds(5, 20)
    jobs = list(schedule.jobs())
    assert schedule.total == len(jobs) == 40
    assert all(schedule.seed_index(index) == group for index, group, _ in jobs)
    assert all(schedule.is_job(index) for index, _, _ in jobs)
    assert not schedule.is_job(-1)
    assert not schedule.is_job(40)
